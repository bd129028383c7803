// RBAC policy rules as data: the wire types, whether a rule allows a request (upstream's
// pkg/apis/rbac/v1 evaluation helpers) and whether some rules cover others (component-
// helpers' rbac/validation Covers, used by escalation checks).
import type { AuthorizationAttributes } from './authorize.ts';
import { appendAll, goQuoteList } from '../api/field-errors.ts';

/** rbac.authorization.k8s.io/v1 PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

const all = '*';

function has(values: readonly string[] | undefined, value: string): boolean {
  return values !== undefined && values.includes(value);
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === all || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === all || g === group);
}

/**
 * `*`, the exact `resource` or `resource/subresource`, or `*\/subresource` for a request of a
 * subresource. As upstream, `resource/*` is no wildcard: it matches only itself.
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  for (const r of rule.resources ?? []) {
    if (r === all || r === combined) return true;
    if (subresource !== '' && r === `*/${subresource}`) return true;
  }
  return false;
}

/** A rule without resourceNames applies to every name (and to requests without one). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** `*`, the exact path, or a prefix ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === all || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** Upstream's RuleAllows: does this rule allow the request? */
export function ruleAllows(attributes: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (attributes.resource !== '') {
    return verbMatches(rule, attributes.verb)
      && apiGroupMatches(rule, attributes.group)
      && resourceMatches(rule, attributes.resource, attributes.subresource)
      && resourceNameMatches(rule, attributes.name);
  }
  return verbMatches(rule, attributes.verb) && nonResourceURLMatches(rule, attributes.path);
}

/** One verb, one group, one resource and at most one name (or one URL and one verb) per rule, as upstream's BreakdownRule. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

function hasAll(set: readonly string[] | undefined, values: readonly string[] | undefined): boolean {
  if (values === undefined) return true;
  // Rules list a few values each: a scan is cheaper than building a Set per check.
  for (const value of values) if (set === undefined || !set.includes(value)) return false;
  return true;
}

function resourceCoversAll(owner: readonly string[] | undefined, sub: readonly string[] | undefined): boolean {
  if (has(owner, all) || hasAll(owner, sub)) return true;
  for (const path of sub ?? []) {
    if (has(owner, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0 || !has(owner, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));
}

/** Whether `owner` (any rule) covers `sub` (one broken-down rule), as upstream's ruleCovers. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, all) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, all) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((path) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, path)));
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && urls && names;
}

/** Upstream's Covers: whether `owner` rules allow all that `servant` rules do, and the broken-down rules they do not. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  // A rule covers every piece of itself: a servant rule the owner holds as it is needs no
  // breaking down (the bootstrap policy's reconciling, at each start, compares roles of
  // hundreds of rules with themselves).
  const held = new Set(owner.map(ruleKey));
  for (const rule of servant) {
    if (held.has(ruleKey(rule))) continue;
    for (const sub of breakdownRule(rule)) if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
  }
  return { covered: missing.length === 0, missing };
}

/** A rule's fields, with absent lists as empty ones: equal keys, equal rules. */
function ruleKey(rule: PolicyRule): string {
  return JSON.stringify([rule.verbs, rule.apiGroups ?? [], rule.resources ?? [], rule.resourceNames ?? [], rule.nonResourceURLs ?? []]);
}

/** Upstream's CompactRules: rules of one group, one resource and at most one name that differ only by verb become one. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const names = rule.resourceNames ?? [];
    const isSimple = names.length <= 1 && (rule.nonResourceURLs ?? []).length === 0
      && (rule.apiGroups ?? []).length === 1 && (rule.resources ?? []).length === 1;
    if (!isSimple) {
      compacted.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups![0], rule.resources![0], names[0] ?? null]);
    const existing = simple.get(key);
    if (existing !== undefined) appendAll(existing.verbs, rule.verbs);
    else simple.set(key, { ...rule, verbs: [...rule.verbs] });
  }
  return [...compacted, ...simple.values()];
}


/** Upstream's CompactString, as escalation messages show a rule: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoteList(rule.apiGroups!)}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${goQuoteList(rule.resources!)}`);
  if ((rule.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuoteList(rule.nonResourceURLs!)}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuoteList(rule.resourceNames!)}`);
  if (rule.verbs.length > 0) parts.push(`Verbs:${goQuoteList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
