// What validating and mutating admission policies share: which bindings apply to a
// request (the policy's matchConstraints and the binding's matchResources), the parameter
// objects a binding's paramRef selects, and the variables their expressions see.

import type { KubeObject } from '../api/index.ts';
import { isObject } from '../api/json.ts';
import { isEverything, matchLabels, type LabelSelector } from '../api/labels.ts';
import { currentRequest, type RequestUser } from '../api/request-context.ts';
import { noAuthorizer, type Authorize } from '../cel/authz.ts';
import { cel, loadCel } from '../cel/lazy.ts';
import type { CelProgram } from '../cel/environment.ts';
import type { AdmissionAttributes } from './chain.ts';
import { equivalentMatch, versionedAttributes, type EquivalentResource, type Equivalents } from './equivalents.ts';
import { admissionReview } from './webhook-review.ts';
import { ruleMatches, rulesOf, selectorOf, type WebhookRule } from './webhook-rules.ts';
import { evaluationErrorText } from '../cel/errors.ts';

export type Raw = Record<string, unknown>;

export const text = (v: unknown): string => (typeof v === 'string' ? v : '');
export const objects = (v: unknown): Raw[] => (Array.isArray(v) ? v.filter(isObject) : []);

const apiserverUser: RequestUser = { name: 'system:apiserver', uid: '', groups: ['system:authenticated', 'system:masters'] };

/** What a policy's expressions see (all dynamically typed). */
export const policyVariableTypes = { object: 'dyn', oldObject: 'dyn', request: 'dyn', params: 'dyn', namespaceObject: 'dyn', variables: 'dyn', authorizer: 'kubernetes.authorization.Authorizer' } as const;

export function specOf(o: KubeObject): Raw {
  const spec = (o as Raw).spec;
  return isObject(spec) ? spec : {};
}

export interface PolicySources {
  /** The objects at once when known (a synced informer), else once read. */
  policies(): KubeObject[] | Promise<KubeObject[]>;
  bindings(): KubeObject[] | Promise<KubeObject[]>;
  /** A namespace, or undefined when it does not exist. */
  namespace(name: string): Promise<KubeObject | undefined>;
  /** A kind's scope, undefined when it is not served; without it (tests) params() alone tells what is served, and no scope is checked. */
  paramScope?(apiVersion: string, kind: string): 'Namespaced' | 'Cluster' | undefined;
  /**
   * The parameter objects of a kind (`apiVersion`, `kind`) in a namespace ('' for all or
   * cluster-scoped), by name or label selector; undefined when the kind is not served.
   */
  params(apiVersion: string, kind: string, namespace: string, name: string | undefined, selector: LabelSelector | undefined): Promise<KubeObject[] | undefined>;
  /** The server's authorizer, which the expressions' `authorizer` asks; without it (tests) every check has no opinion. */
  authorize?: Authorize;
  /** The resources stored with a request's and conversion between them, for matchPolicy Equivalent. */
  equivalents?: Equivalents;
  log(message: string): void;
}

interface Resources {
  rules: WebhookRule[];
  resourceNames: string[][];
  exclude: WebhookRule[];
  excludeNames: string[][];
  namespaceSelector: LabelSelector | Error;
  objectSelector: LabelSelector | Error;
  matchPolicy: string;
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
    matchPolicy: typeof r.matchPolicy === 'string' ? r.matchPolicy : 'Equivalent',
  };
}

/**
 * The resource a rule list matches the request through (upstream's matchesResourceRules):
 * the request's own (`{}`) when a rule and its resourceNames match; else, under
 * matchPolicy Equivalent, the first resource stored with it a rule matches (names not
 * checked there, as upstream); undefined when none.
 */
function matchedThrough(rules: WebhookRule[], names: string[][], matchPolicy: string, attrs: AdmissionAttributes, sources: PolicySources): { equivalent?: EquivalentResource } | undefined {
  if (rules.some((rule, i) => ruleMatches(rule, attrs) && (names[i]!.length === 0 || names[i]!.includes(attrs.name)))) return {};
  if (matchPolicy !== 'Equivalent' || sources.equivalents === undefined) return undefined;
  const equivalent = equivalentMatch(rules, attrs, sources.equivalents, ruleMatches);
  return equivalent === undefined ? undefined : { equivalent };
}

/**
 * The request as the binding's policy sees it, when the binding applies: the request's own
 * attributes, or those of the equivalent resource the policy's matchConstraints matched
 * through (objects converted); undefined when it does not apply. A selector that does not
 * parse is logged and counts as not applying.
 */
export async function bindingApplies(policy: KubeObject, binding: KubeObject, attrs: AdmissionAttributes, sources: PolicySources): Promise<AdmissionAttributes | undefined> {
  const spec = specOf(policy);
  const bindingSpec = specOf(binding);
  if (!isObject(spec.matchConstraints)) return undefined;
  let through: { equivalent?: EquivalentResource } | undefined;
  try {
    through = await within(resourcesOf(spec.matchConstraints), attrs, false, sources);
    if (through === undefined) return undefined;
    if (isObject(bindingSpec.matchResources) && (await within(resourcesOf(bindingSpec.matchResources), attrs, true, sources)) === undefined) return undefined;
  } catch (err) {
    sources.log(`admission policy ${policy.metadata.name}: ${(err as Error).message}`);
    return undefined;
  }
  // A conversion that fails fails the request (an internal error, as upstream's).
  return through.equivalent === undefined ? attrs : await versionedAttributes(attrs, through.equivalent, sources.equivalents!);
}

/** Whether the request is within `resources` (an empty rule list: every request, for a binding's matchResources), and through which resource. */
async function within(resources: Resources, attrs: AdmissionAttributes, emptyMatchesAll: boolean, sources: PolicySources): Promise<{ equivalent?: EquivalentResource } | undefined> {
  if (matchedThrough(resources.exclude, resources.excludeNames, resources.matchPolicy, attrs, sources) !== undefined) return undefined;
  const included = resources.rules.length === 0 ? (emptyMatchesAll ? {} : undefined) : matchedThrough(resources.rules, resources.resourceNames, resources.matchPolicy, attrs, sources);
  if (included === undefined) return undefined;
  const namespaceName = attrs.group === '' && attrs.resource === 'namespaces' ? attrs.name : attrs.namespace;
  if (resources.namespaceSelector instanceof Error) throw resources.namespaceSelector;
  if (namespaceName !== '' && !isEverything(resources.namespaceSelector)) {
    const labels = attrs.group === '' && attrs.resource === 'namespaces' && attrs.object !== undefined
      ? attrs.object.metadata.labels ?? {}
      : (await sources.namespace(namespaceName))?.metadata.labels ?? {};
    if (!matchLabels(resources.namespaceSelector, labels)) return undefined;
  }
  if (resources.objectSelector instanceof Error) throw resources.objectSelector;
  if (!isEverything(resources.objectSelector)) {
    const selected = [attrs.object, attrs.oldObject].some((o) => o !== undefined && matchLabels(resources.objectSelector as LabelSelector, o.metadata?.labels ?? {}));
    if (!selected) return undefined;
  }
  return included;
}


/** `ofPolicy`: the error is the policy's own (its paramKind not served), not its binding's. */
export type ParamOutcome = { params: Array<KubeObject | null> } | { error: string; ofPolicy?: boolean } | { missing: 'Deny' | 'Allow' };

/**
 * The parameter objects a binding selects, as upstream's CollectParams: one null when the
 * policy takes none or the binding names none. A namespaced kind's are read in the paramRef's
 * namespace, else the request's; a cluster-scoped kind's paramRef may name no namespace.
 */
export async function paramsFor(policy: KubeObject, binding: KubeObject, attrs: AdmissionAttributes, sources: PolicySources): Promise<ParamOutcome> {
  const spec = specOf(policy);
  const bindingSpec = specOf(binding);
  const paramKind = isObject(spec.paramKind) ? spec.paramKind : undefined;
  if (paramKind === undefined) return { params: [null] };
  const [apiVersion, kind] = [text(paramKind.apiVersion), text(paramKind.kind)];
  // The kind as GroupVersionKind.String() writes it: `/v1, Kind=X` for the core group.
  const notServed = { error: `failed to configure policy: failed to find resource referenced by paramKind: '${apiVersion.includes('/') ? '' : '/'}${apiVersion}, Kind=${kind}'`, ofPolicy: true };
  const scope = sources.paramScope?.(apiVersion, kind);
  if (sources.paramScope !== undefined && scope === undefined) return notServed;
  const paramRef = isObject(bindingSpec.paramRef) ? bindingSpec.paramRef : undefined;
  if (paramRef === undefined) return { params: [null] };
  const namespace = text(paramRef.namespace) || attrs.namespace;
  if (scope === 'Namespaced' && namespace === '') return { error: 'failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources' };
  if (scope === 'Cluster' && text(paramRef.namespace) !== '') return { error: 'failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`' };
  const selector = isObject(paramRef.selector) ? selectorOf(paramRef.selector) : undefined;
  if (selector instanceof Error) return { error: `failed to configure binding: ${selector.message}` };
  const found = await sources.params(apiVersion, kind, namespace, text(paramRef.name) || undefined, selector);
  if (found === undefined) return notServed;
  if (found.length === 0) return { missing: text(paramRef.parameterNotFoundAction) === 'Deny' ? 'Deny' : 'Allow' };
  return { params: found };
}

/** object, oldObject, request and namespaceObject, in CEL form, and the authorizer library for the requesting user. */
export async function requestVariables(attrs: AdmissionAttributes, sources: Pick<PolicySources, 'namespace' | 'authorize'>): Promise<Record<string, unknown>> {
  // Every policy's evaluation starts here: CEL is loaded from here on (composeVariables and the plugins call cel()).
  const { celValue, CelAuthorizer } = await loadCel();
  const user = currentRequest()?.user ?? apiserverUser;
  const request = (admissionReview('v1', '', attrs, user) as { request: unknown }).request;
  // None for a request of a Namespace (its own name is its namespace), as upstream's dispatchers.
  const kindOf = attrs.kindGroupVersion ?? attrs;
  const ofNamespace = attrs.kind === 'Namespace' && kindOf.group === '' && kindOf.version === 'v1';
  const namespaceObject = attrs.namespace === '' || ofNamespace ? undefined : await sources.namespace(attrs.namespace);
  return {
    object: attrs.object === undefined ? null : celValue(attrs.object, undefined),
    oldObject: attrs.oldObject === undefined ? null : celValue(attrs.oldObject, undefined),
    request: celValue(request, undefined),
    namespaceObject: namespaceObject === undefined ? null : celValue(namespaceObject, undefined),
    authorizer: new CelAuthorizer(user, sources.authorize ?? noAuthorizer, {
      group: attrs.group, resource: attrs.resource, subresource: attrs.subresource, namespace: attrs.namespace, name: attrs.name,
    }),
  };
}


/** Thrown by a variable read while its value is awaited (an authorizer's answer): the expression runs again once it is there. */
class Awaited extends Error {}

/** Runs an expression's program over what the policy's expressions see, its variables included. */
export type RunExpression = (program: CelProgram) => Promise<unknown>;

/**
 * Sets `activation.variables` to the policy's variables as upstream's composition gives them
 * (a lazy map): each evaluated when an expression first reads it, over the same activation,
 * and kept. One that fails fails only the expressions that read it, in upstream's words
 * (`composited variable "x" fails to evaluate: …`); one an expression does not need
 * (`true || variables.x`) does not fail it. Answers how to run an expression over them.
 */
export function composeVariables(spec: Raw, activation: Record<string, unknown>): RunExpression {
  const known = new Map<string, { value: unknown } | { error: Error }>();
  const awaited = new Map<string, Promise<void>>();
  let interrupted = false;
  const declared = objects(spec.variables).map((v) => [text(v.name), text(v.expression)] as const);
  // What the variable at `count` sees: those declared before it, as upstream declares each
  // variable after them, so that none reads itself or a later one (no cycle).
  const scopes: Record<string, unknown>[] = [];
  const scope = (count: number): Record<string, unknown> => {
    if (scopes[count] !== undefined) return scopes[count];
    const variables = {};
    declared.slice(0, count).forEach(([name, expression], i) => {
      Object.defineProperty(variables, name, { enumerable: true, configurable: true, get: () => read(name, expression, i) });
    });
    return (scopes[count] = variables);
  };
  activation.variables = scope(declared.length);

  function read(name: string, expression: string, at: number): unknown {
    const outcome = known.get(name);
    if (outcome !== undefined) {
      if ('error' in outcome) throw outcome.error;
      return outcome.value;
    }
    if (awaited.has(name)) {
      interrupted = true;
      throw new Awaited();
    }
    const failed = (err: unknown) => ({ error: new Error(`composited variable "${name}" fails to evaluate: ${evaluationErrorText(err)}`) });
    const compiled = cel().compile(expression, policyVariableTypes);
    if (compiled.program === undefined) return settle(name, { error: new Error(`composited variable "${name}" fails to compile: compilation failed: ${compiled.error}`) });
    let value: unknown;
    try {
      value = compiled.program({ ...activation, variables: scope(at) });
    } catch (err) {
      if (err instanceof Awaited) throw err;
      return settle(name, failed(err));
    }
    if (!(value instanceof Promise)) return settle(name, { value });
    // Known once it settles; one that waited on another variable is evaluated again.
    awaited.set(name, value.then(
      (settled) => void known.set(name, { value: settled }),
      (err) => void (err instanceof Awaited || known.set(name, failed(err))),
    ).finally(() => awaited.delete(name)));
    interrupted = true;
    throw new Awaited();
  }

  function settle(name: string, outcome: { value: unknown } | { error: Error }): unknown {
    known.set(name, outcome);
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  return async (program) => {
    for (;;) {
      interrupted = false;
      let outcome: { value: unknown } | { error: unknown };
      try {
        outcome = { value: await program(activation) };
      } catch (error) {
        outcome = { error };
      }
      // A run that read a variable still awaited may have decided nothing: again once it is known.
      if (!interrupted) {
        if ('error' in outcome) throw outcome.error;
        return outcome.value;
      }
      while (awaited.size > 0) await Promise.all(awaited.values());
    }
  };
}

export function firstLine(err: unknown): string {
  return ((err as Error)?.message ?? String(err)).split('\n')[0]!;
}


/** A binding with the policy it names. */
export interface BoundPolicy {
  policy: KubeObject;
  binding: KubeObject;
}

/**
 * The bindings in name order, each with the policy it names (bindings naming no policy left
 * out). Undefined at once when the sources know without waiting that there is no policy or
 * no binding (most writes, in most clusters): the plugin then answers without a promise.
 */
export function boundPolicies(sources: PolicySources): BoundPolicy[] | Promise<BoundPolicy[]> | undefined {
  const policies = sources.policies();
  const bindings = sources.bindings();
  if (Array.isArray(policies) && Array.isArray(bindings)) return policies.length === 0 || bindings.length === 0 ? undefined : bind(policies, bindings);
  return Promise.all([policies, bindings]).then(([p, b]) => bind(p, b));
}

function bind(policies: KubeObject[], bindings: KubeObject[]): BoundPolicy[] {
  const byName = new Map(policies.map((p) => [p.metadata.name ?? '', p]));
  const bound: BoundPolicy[] = [];
  for (const binding of [...bindings].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1))) {
    const policy = byName.get(text(specOf(binding).policyName));
    if (policy !== undefined) bound.push({ policy, binding });
  }
  return bound;
}
