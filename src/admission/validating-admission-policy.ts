// ValidatingAdmissionPolicy admission (admissionregistration.k8s.io/v1), after upstream's
// plugin/policy/validating: every binding whose policy matches the request (the policy's
// matchConstraints and the binding's matchResources) evaluates the policy's CEL
// validations over object, oldObject, request, params, namespaceObject and variables,
// once per parameter object its paramRef selects. A failed validation is denied, warned
// about or audited as the binding's validationActions say; an expression that cannot be
// evaluated, or a binding that cannot be applied (no params, a missing param kind),
// denies under failurePolicy Fail and is passed over under Ignore.

import { StatusError, type KubeObject } from '../api/index.ts';
import { isEverything, matchLabels, type LabelSelector } from '../api/labels.ts';
import { addWarning, currentRequest, type RequestUser } from '../api/request-context.ts';
import { compile } from '../cel/environment.ts';
import { evaluateMatchConditions, type MatchCondition } from '../cel/match-conditions.ts';
import { celValue } from '../cel/validation-rules.ts';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.ts';
import { admissionReview } from './webhook-review.ts';
import { isExemptFromWebhooks, ruleMatches, rulesOf, selectorOf, type WebhookRule } from './webhook-rules.ts';

type Raw = Record<string, unknown>;

export interface PolicySources {
  policies(): Promise<KubeObject[]>;
  bindings(): Promise<KubeObject[]>;
  /** A namespace, or undefined when it does not exist. */
  namespace(name: string): Promise<KubeObject | undefined>;
  /**
   * The parameter objects of a kind (`apiVersion`, `kind`) in a namespace ('' for all or
   * cluster-scoped), by name or label selector; undefined when the kind is not served.
   */
  params(apiVersion: string, kind: string, namespace: string, name: string | undefined, selector: LabelSelector | undefined): Promise<KubeObject[] | undefined>;
  log(message: string): void;
}

const apiserverUser: RequestUser = { name: 'system:apiserver', uid: '', groups: ['system:authenticated', 'system:masters'] };

const variableTypes = { object: 'dyn', oldObject: 'dyn', request: 'dyn', params: 'dyn', namespaceObject: 'dyn', variables: 'dyn', authorizer: 'dyn' } as const;

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const objects = (v: unknown): Raw[] => (Array.isArray(v) ? v.filter(isObject) : []);

interface Decision {
  action: 'deny' | 'admit';
  message: string;
  reason: string;
}

/** Upstream's reasonToCode. */
function codeFor(reason: string): number {
  return reason === 'Forbidden' ? 403 : reason === 'Unauthorized' ? 401 : reason === 'RequestEntityTooLarge' ? 413 : 422;
}

interface Resources {
  rules: WebhookRule[];
  resourceNames: string[][];
  exclude: WebhookRule[];
  excludeNames: string[][];
  namespaceSelector: LabelSelector | Error;
  objectSelector: LabelSelector | Error;
}

function resourcesOf(raw: unknown): Resources {
  const r = isObject(raw) ? raw : {};
  const names = (rules: Raw[]) => rules.map((rule) => (Array.isArray(rule.resourceNames) ? rule.resourceNames.map(String) : []));
  return {
    rules: rulesOf(r.resourceRules),
    resourceNames: names(objects(r.resourceRules)),
    exclude: rulesOf(r.excludeResourceRules),
    excludeNames: names(objects(r.excludeResourceRules)),
    namespaceSelector: selectorOf(r.namespaceSelector),
    objectSelector: selectorOf(r.objectSelector),
  };
}

function namedRuleMatches(rule: WebhookRule, names: string[], attrs: AdmissionAttributes): boolean {
  return ruleMatches(rule, attrs) && (names.length === 0 || names.includes(attrs.name));
}

export function validatingAdmissionPolicy(sources: PolicySources): AdmissionPlugin {
  /** Whether the request is within `resources` (an empty rule list: every request, for a binding's matchResources). */
  async function within(resources: Resources, attrs: AdmissionAttributes, emptyMatchesAll: boolean): Promise<boolean> {
    const included = resources.rules.length === 0 ? emptyMatchesAll : resources.rules.some((rule, i) => namedRuleMatches(rule, resources.resourceNames[i]!, attrs));
    if (!included) return false;
    if (resources.exclude.some((rule, i) => namedRuleMatches(rule, resources.excludeNames[i]!, attrs))) return false;
    const namespaceName = attrs.group === '' && attrs.resource === 'namespaces' ? attrs.name : attrs.namespace;
    if (resources.namespaceSelector instanceof Error) throw resources.namespaceSelector;
    if (namespaceName !== '' && !isEverything(resources.namespaceSelector)) {
      const labels = attrs.group === '' && attrs.resource === 'namespaces' && attrs.object !== undefined
        ? attrs.object.metadata.labels ?? {}
        : (await sources.namespace(namespaceName))?.metadata.labels ?? {};
      if (!matchLabels(resources.namespaceSelector, labels)) return false;
    }
    if (resources.objectSelector instanceof Error) throw resources.objectSelector;
    if (!isEverything(resources.objectSelector)) {
      return [attrs.object, attrs.oldObject].some((o) => o !== undefined && matchLabels(resources.objectSelector as LabelSelector, o.metadata?.labels ?? {}));
    }
    return true;
  }

  /** The decisions of one policy under one binding. */
  async function decide(policy: KubeObject, binding: KubeObject, attrs: AdmissionAttributes): Promise<Decision[]> {
    const spec = isObject((policy as Raw).spec) ? (policy as Raw).spec as Raw : {};
    const bindingSpec = isObject((binding as Raw).spec) ? (binding as Raw).spec as Raw : {};
    const failClosed = text(spec.failurePolicy) !== 'Ignore';
    const failure = (message: string): Decision[] => (failClosed ? [{ action: 'deny', message, reason: 'Invalid' }] : []);

    const paramKind = isObject(spec.paramKind) ? spec.paramKind : undefined;
    let paramSets: Array<KubeObject | null> = [null];
    if (paramKind !== undefined) {
      const paramRef = isObject(bindingSpec.paramRef) ? bindingSpec.paramRef : undefined;
      if (paramRef === undefined) return failure(`failed to configure binding: paramRef is required when paramKind is set`);
      const selector = isObject(paramRef.selector) ? selectorOf(paramRef.selector) : undefined;
      if (selector instanceof Error) return failure(`failed to configure binding: ${selector.message}`);
      const namespace = text(paramRef.namespace) !== '' ? text(paramRef.namespace) : attrs.namespace;
      const found = await sources.params(text(paramKind.apiVersion), text(paramKind.kind), namespace, text(paramRef.name) || undefined, selector);
      if (found === undefined) return failure(`failed to configure policy: failed to find resource referenced by paramKind: '${text(paramKind.apiVersion)}, Kind=${text(paramKind.kind)}'`);
      if (found.length === 0) {
        return text(paramRef.parameterNotFoundAction) === 'Deny'
          ? [{ action: 'deny', message: 'no params found for policy binding with `Deny` parameterNotFoundAction', reason: 'Invalid' }]
          : [];
      }
      paramSets = found;
    }

    const request = (admissionReview('v1', '', attrs, currentRequest()?.user ?? apiserverUser) as { request: unknown }).request;
    const namespaceObject = attrs.namespace === '' ? null : await sources.namespace(attrs.namespace);
    const base = {
      object: attrs.object === undefined ? null : celValue(attrs.object, undefined),
      oldObject: attrs.oldObject === undefined ? null : celValue(attrs.oldObject, undefined),
      request: celValue(request, undefined),
      namespaceObject: namespaceObject === undefined || namespaceObject === null ? null : celValue(namespaceObject, undefined),
    };
    const decisions: Decision[] = [];
    for (const param of paramSets) {
      const variables: Record<string, unknown> = { ...base, params: param === null ? null : celValue(param, undefined), authorizer: null };
      const conditions: MatchCondition[] = objects(spec.matchConditions).map((c) => ({ name: text(c.name), expression: text(c.expression) }));
      if (conditions.length > 0) {
        const outcome = evaluateMatchConditions(conditions, variables);
        if ('error' in outcome) {
          decisions.push(...failure(outcome.error));
          continue;
        }
        if (!outcome.matches) continue;
      }
      // Variables in order, each able to use those before it; one that fails fails what uses it.
      const composed: Record<string, unknown> = {};
      const broken = new Map<string, string>();
      variables.variables = composed;
      for (const v of objects(spec.variables)) {
        const name = text(v.name);
        const compiled = compile(text(v.expression), variableTypes);
        if (compiled.program === undefined) {
          broken.set(name, `compilation failed: ${compiled.error}`);
          continue;
        }
        try {
          composed[name] = compiled.program(variables);
        } catch (err) {
          broken.set(name, `expression '${text(v.expression)}' resulted in error: ${firstLine(err)}`);
        }
      }
      for (const validation of objects(spec.validations)) {
        const expression = text(validation.expression);
        const usesBroken = [...broken.keys()].find((name) => new RegExp(`variables\\.${name}\\b`).test(expression));
        if (usesBroken !== undefined) {
          decisions.push(...failure(broken.get(usesBroken)!));
          continue;
        }
        const compiled = compile(expression, variableTypes);
        if (compiled.program === undefined) {
          decisions.push(...failure(`compilation error: ${compiled.error}`));
          continue;
        }
        let result: unknown;
        try {
          result = compiled.program(variables);
        } catch (err) {
          decisions.push(...failure(`expression '${expression}' resulted in error: ${firstLine(err)}`));
          continue;
        }
        if (result === true) continue;
        if (result !== false) {
          decisions.push(...failure(`expression '${expression}' resulted in an unexpected type: want bool`));
          continue;
        }
        decisions.push({ action: 'deny', message: messageOf(validation, variables), reason: text(validation.reason) || 'Invalid' });
      }
    }
    return decisions;
  }

  return {
    name: 'ValidatingAdmissionPolicy',
    async validate(attrs) {
      if (isExemptFromWebhooks(attrs)) return;
      const [policies, bindings] = await Promise.all([sources.policies(), sources.bindings()]);
      if (policies.length === 0 || bindings.length === 0) return;
      const byName = new Map(policies.map((p) => [p.metadata.name ?? '', p]));
      let denied: { policy: string; binding: string; decision: Decision } | undefined;
      for (const binding of [...bindings].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))) {
        const bindingSpec = isObject((binding as Raw).spec) ? (binding as Raw).spec as Raw : {};
        const policy = byName.get(text(bindingSpec.policyName));
        if (policy === undefined) continue;
        const spec = isObject((policy as Raw).spec) ? (policy as Raw).spec as Raw : {};
        if (!isObject(spec.matchConstraints)) continue;
        try {
          if (!(await within(resourcesOf(spec.matchConstraints), attrs, false))) continue;
          if (isObject(bindingSpec.matchResources) && !(await within(resourcesOf(bindingSpec.matchResources), attrs, true))) continue;
        } catch (err) {
          sources.log(`ValidatingAdmissionPolicy ${policy.metadata.name}: ${firstLine(err)}`);
          continue;
        }
        const actions = Array.isArray(bindingSpec.validationActions) ? bindingSpec.validationActions.map(String) : [];
        for (const decision of await decide(policy, binding, attrs)) {
          if (decision.action !== 'deny') continue;
          const [policyName, bindingName] = [policy.metadata.name ?? '', binding.metadata.name ?? ''];
          if (actions.includes('Warn')) addWarning(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${decision.message}`);
          if (actions.includes('Deny')) denied ??= { policy: policyName, binding: bindingName, decision };
          // Audit: recorded in audit events' annotations upstream; Plinth has no audit log yet.
        }
      }
      if (denied === undefined) return;
      const message = `ValidatingAdmissionPolicy '${denied.policy}' with binding '${denied.binding}' denied request: ${denied.decision.message}`;
      const resource = attrs.group === '' ? attrs.resource : `${attrs.resource}.${attrs.group}`;
      const reason = denied.decision.reason;
      throw new StatusError(codeFor(reason), reason, `${resource} "${attrs.name}" is forbidden: ${message}`, {
        name: attrs.name, ...(attrs.group === '' ? {} : { group: attrs.group }), kind: attrs.resource, causes: [{ message }],
      });
    },
  };
}

function firstLine(err: unknown): string {
  return ((err as Error)?.message ?? String(err)).split('\n')[0]!;
}

/** A failed validation's message: its message, else its messageExpression's answer, else upstream's default. */
function messageOf(validation: Raw, variables: Record<string, unknown>): string {
  if (text(validation.message) !== '') return text(validation.message);
  if (text(validation.messageExpression) !== '') {
    const compiled = compile(text(validation.messageExpression), variableTypes);
    try {
      const message = compiled.program?.(variables);
      if (typeof message === 'string' && message.trim() !== '' && !message.includes('\n')) return message.trim();
    } catch {
      // As upstream: a messageExpression that fails falls back to the default message.
    }
  }
  return `failed expression: ${text(validation.expression).trim()}`;
}
