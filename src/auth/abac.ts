// The ABAC authorization mode (`--authorization-mode ABAC` with `--authorization-policy-file`),
// as upstream's pkg/auth/authorizer/abac: a file of policies, one JSON object a line (blank
// lines and `#` comments skipped), each either versioned
// (`{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {…}}`)
// or in the unversioned v0 form (`{"user": "alice", "readonly": true}`), converted as
// upstream converts them. A request is allowed when any policy matches it; otherwise the
// mode has no opinion.
import { goFieldTypeError, goJsonKind, isObject } from '../api/json.ts';
import type { AuthorizationAttributes, Authorizer } from './authorize.ts';
import type { RuleResolver, SubjectRules } from './rule-resolver.ts';
import { systemAuthenticated, type UserInfo } from './user.ts';

/** The internal abac.PolicySpec: empty strings match nothing, `*` everything. */
export interface AbacPolicy {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

const group = 'abac.authorization.kubernetes.io';

/** Reads one struct of string fields and the readonly flag, refusing a wrong type as Go's decoder words it. */
function fields(raw: Record<string, unknown>, struct: string, prefix: string, names: readonly string[]): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const name of names) {
    const value = raw[name];
    const goType = name === 'readonly' ? 'bool' : 'string';
    if (value === undefined || value === null) continue;
    if (typeof value !== (name === 'readonly' ? 'boolean' : 'string')) throw new Error(goFieldTypeError(value, struct, `${prefix}${name}`, goType));
    out[name] = value as string | boolean;
  }
  return out;
}

const text = (v: string | boolean | undefined): string => (typeof v === 'string' ? v : '');

/** A v1beta1 Policy: its spec as is, but a user or group of `*` meaning every authenticated subject. */
function fromV1beta1(raw: Record<string, unknown>): AbacPolicy {
  const spec = raw.spec ?? {};
  if (!isObject(spec)) throw new Error(`json: cannot unmarshal ${goJsonKind(spec)} into Go struct field Policy.spec of type v1beta1.PolicySpec`);
  const f = fields(spec, 'PolicySpec', 'spec.', ['user', 'group', 'readonly', 'apiGroup', 'resource', 'namespace', 'nonResourcePath']);
  const policy: AbacPolicy = {
    user: text(f.user), group: text(f.group), readonly: f.readonly === true,
    apiGroup: text(f.apiGroup), resource: text(f.resource), namespace: text(f.namespace), nonResourcePath: text(f.nonResourcePath),
  };
  if (policy.user === '*' || policy.group === '*') Object.assign(policy, { user: '', group: systemAuthenticated });
  return policy;
}

/** A v0 policy, converted as upstream: what it leaves out matches everything, of every API group. */
function fromV0(raw: Record<string, unknown>): AbacPolicy {
  const f = fields(raw, 'Policy', '', ['user', 'group', 'readonly', 'resource', 'namespace']);
  const [user, grp, namespace, resource] = [text(f.user), text(f.group), text(f.namespace), text(f.resource)];
  const policy: AbacPolicy = { user, group: grp, readonly: f.readonly === true, apiGroup: '*', resource: resource || '*', namespace: namespace || '*', nonResourcePath: '' };
  if (user === '' && grp === '') policy.group = systemAuthenticated;
  if (user === '*' || grp === '*') Object.assign(policy, { user: '', group: systemAuthenticated });
  if (namespace === '' && resource === '') policy.nonResourcePath = '*';
  return policy;
}

/** One line's policy and whether it was unversioned, or an error in the words of upstream's decoding. */
function decodeLine(line: string): [AbacPolicy, boolean] {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (err) {
    throw new Error(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
  if (!isObject(raw)) {
    throw new Error(`couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonKind(raw)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const apiVersion = typeof raw.apiVersion === 'string' ? raw.apiVersion : '';
  const kind = typeof raw.kind === 'string' ? raw.kind : '';
  // A line without apiVersion or kind is the unversioned v0 form.
  if (apiVersion === '' || kind === '') return [fromV0(raw), true];
  if (kind === 'Policy' && apiVersion === `${group}/v1beta1`) return [fromV1beta1(raw), false];
  if (kind === 'Policy' && apiVersion === `${group}/v0`) return [fromV0(raw), false];
  throw new Error(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`);
}

/**
 * The policies of a policy file's text (NewFromFile); an error names the file, the line's
 * number and text, as upstream's policyLoadError.
 */
export function parseAbacPolicies(content: string, file: string): { policies: AbacPolicy[]; unversioned: number } {
  const policies: AbacPolicy[] = [];
  let unversioned = 0;
  content.split('\n').forEach((rawLine, i) => {
    const line = rawLine.replace(/\r$/, '');
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    try {
      const [policy, isUnversioned] = decodeLine(line);
      policies.push(policy);
      if (isUnversioned) unversioned++;
    } catch (err) {
      throw new Error(`error reading policy file ${file}, line ${i + 1}: ${line}: ${(err as Error).message}`);
    }
  });
  return { policies, unversioned };
}

function subjectMatches(p: AbacPolicy, user: UserInfo): boolean {
  let matched = false;
  if (p.user !== '') {
    if (p.user === '*') matched = true;
    else if (p.user !== user.name) return false;
    else matched = true;
  }
  if (p.group !== '') {
    if (p.group === '*') matched = true;
    else if (!user.groups.includes(p.group)) return false;
    else matched = true;
  }
  return matched;
}

const readOnlyVerbs = new Set(['get', 'list', 'watch']);

function matches(p: AbacPolicy, user: UserInfo, a: AuthorizationAttributes): boolean {
  if (!subjectMatches(p, user)) return false;
  if (p.readonly && !readOnlyVerbs.has(a.verb)) return false;
  if (a.resource !== '') {
    return (p.namespace === '*' || p.namespace === a.namespace) && (p.resource === '*' || p.resource === a.resource) && (p.apiGroup === '*' || p.apiGroup === a.group);
  }
  const path = p.nonResourcePath;
  return path === '*' || path === a.path || (path.endsWith('*') && a.path.startsWith(path.replace(/\*+$/, '')));
}

/** The ABAC mode over its policies: Allow when one matches, else no opinion ("No policy matched."); rules listed as upstream's RulesFor. */
export function abacAuthorizer(policies: readonly AbacPolicy[]): Authorizer & RuleResolver {
  return {
    authorize(user, attributes) {
      return policies.some((p) => matches(p, user, attributes)) ? { decision: 'Allow' } : { decision: 'NoOpinion', reason: 'No policy matched.' };
    },
    async rulesFor(user, namespace): Promise<SubjectRules> {
      const rules: SubjectRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const p of policies) {
        if (!subjectMatches(p, user) || (p.namespace !== '*' && p.namespace !== namespace)) continue;
        const verbs = p.readonly ? ['get', 'list', 'watch'] : ['*'];
        if (p.resource !== '') rules.resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
        if (p.nonResourcePath !== '') rules.nonResourceRules.push({ verbs: [...verbs], nonResourceURLs: [p.nonResourcePath] });
      }
      return rules;
    },
  };
}
