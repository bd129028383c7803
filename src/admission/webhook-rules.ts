// Which webhooks a request calls: admissionregistration.k8s.io/v1 webhooks read from
// their configurations, and upstream's matching (apiserver/pkg/admission/plugin/webhook:
// predicates/rules, predicates/namespace, predicates/object, generic.ShouldCallHook).

import { equivalentMatch, type EquivalentResource, type Equivalents } from './equivalents.ts';
import { internalError, notFound, type KubeObject } from '../api/index.ts';
import { isEverything, labelSelectorFromObject, matchLabels, type LabelSelector, type LabelSelectorObject } from '../api/labels.ts';
import type { AdmissionAttributes } from './chain.ts';

export type WebhookKind = 'mutating' | 'validating';

export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: string;
}

interface ClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port: number };
  /** PEM text of the CA bundle (decoded from base64), when given. */
  caPem?: string;
}

/** One webhook of a configuration, defaults applied. */
export interface Webhook {
  kind: WebhookKind;
  configurationName: string;
  name: string;
  rules: WebhookRule[];
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy: string;
  /** Parsed selectors; an error when the stored selector does not parse (the call then fails with it). */
  namespaceSelector: LabelSelector | Error;
  objectSelector: LabelSelector | Error;
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: string;
  clientConfig: ClientConfig;
  /** CEL conditions the request must meet to be sent (all true). */
  matchConditions: { name: string; expression: string }[];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/** Rules (operations, groups, versions, resources, scope) as stored in a webhook or a policy's matchResources. */
export function rulesOf(raw: unknown): WebhookRule[] {
  return (Array.isArray(raw) ? raw : []).filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null).map((r) => ({
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    scope: typeof r.scope === 'string' ? r.scope : '*',
  }));
}

export function selectorOf(v: unknown): LabelSelector | Error {
  try {
    // A webhook's absent selector is defaulted to {} (everything) by the API.
    return labelSelectorFromObject((v ?? {}) as LabelSelectorObject);
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

function decodeCaBundle(v: unknown): string | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  return Buffer.from(v, 'base64').toString('utf8');
}

/** The webhooks of a stored configuration, in their order. */
export function webhooksOf(config: KubeObject, kind: WebhookKind): Webhook[] {
  const raw = (config as Record<string, unknown>).webhooks;
  const hooks: unknown[] = Array.isArray(raw) ? raw : [];
  return hooks.filter((h): h is Record<string, unknown> => typeof h === 'object' && h !== null).map((h) => {
    const cc = (typeof h.clientConfig === 'object' && h.clientConfig !== null ? h.clientConfig : {}) as Record<string, unknown>;
    const svc = cc.service as Record<string, unknown> | undefined;
    const clientConfig: ClientConfig = {};
    if (typeof cc.url === 'string') clientConfig.url = cc.url;
    if (svc !== undefined && svc !== null) {
      clientConfig.service = {
        namespace: String(svc.namespace ?? ''),
        name: String(svc.name ?? ''),
        path: typeof svc.path === 'string' ? svc.path : undefined,
        port: typeof svc.port === 'number' ? svc.port : 443,
      };
    }
    const caPem = decodeCaBundle(cc.caBundle);
    if (caPem !== undefined) clientConfig.caPem = caPem;
    const rules = rulesOf(h.rules);
    return {
      kind,
      configurationName: config.metadata.name ?? '',
      name: String(h.name ?? ''),
      rules,
      failurePolicy: h.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
      matchPolicy: typeof h.matchPolicy === 'string' ? h.matchPolicy : 'Equivalent',
      namespaceSelector: selectorOf(h.namespaceSelector),
      objectSelector: selectorOf(h.objectSelector),
      sideEffects: typeof h.sideEffects === 'string' ? h.sideEffects : '',
      timeoutSeconds: typeof h.timeoutSeconds === 'number' ? h.timeoutSeconds : 10,
      admissionReviewVersions: strings(h.admissionReviewVersions),
      reinvocationPolicy: typeof h.reinvocationPolicy === 'string' ? h.reinvocationPolicy : 'Never',
      clientConfig,
      matchConditions: (Array.isArray(h.matchConditions) ? h.matchConditions : [])
        .filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null)
        .map((c) => ({ name: String(c.name ?? ''), expression: String(c.expression ?? '') })),
    };
  });
}

/** Configurations are called in the order of their names, their webhooks in order (upstream sorts them so). */
export function orderedWebhooks(configs: KubeObject[], kind: WebhookKind): Webhook[] {
  return [...configs]
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0))
    .flatMap((c) => webhooksOf(c, kind));
}

/**
 * Requests about admission configuration itself never go to webhooks, so that a broken
 * webhook cannot lock its own configuration (rules.IsExemptAdmissionConfigurationResource).
 */
export function isExemptFromWebhooks(attrs: AdmissionAttributes): boolean {
  return attrs.group === 'admissionregistration.k8s.io' && [
    'mutatingwebhookconfigurations', 'validatingwebhookconfigurations',
    'validatingadmissionpolicies', 'validatingadmissionpolicybindings',
    'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings',
  ].includes(attrs.resource);
}

function isNamespaceResource(attrs: AdmissionAttributes): boolean {
  return attrs.group === '' && attrs.resource === 'namespaces';
}

/** The namespace a request is in; for a namespace itself, its own name (upstream sets it so). */
function requestNamespace(attrs: AdmissionAttributes): string {
  return isNamespaceResource(attrs) ? attrs.name : attrs.namespace;
}

function splitResource(resSub: string): [string, string] {
  const slash = resSub.indexOf('/');
  return slash < 0 ? [resSub, ''] : [resSub.slice(0, slash), resSub.slice(slash + 1)];
}

/** rules.Matcher.Matches: scope, operation, group, version, resource and subresource. */
export function ruleMatches(rule: WebhookRule, attrs: AdmissionAttributes): boolean {
  const namespace = requestNamespace(attrs);
  const namespaceObject = isNamespaceResource(attrs);
  const scopeOk = rule.scope === '*' ? true
    : rule.scope === 'Namespaced' ? !namespaceObject && namespace !== ''
    : rule.scope === 'Cluster' ? namespaceObject || namespace === ''
    : false;
  if (!scopeOk) return false;
  if (!rule.operations.some((op) => op === '*' || op === attrs.operation)) return false;
  if (!rule.apiGroups.some((g) => g === '*' || g === attrs.group)) return false;
  if (!rule.apiVersions.some((v) => v === '*' || v === attrs.version)) return false;
  return rule.resources.some((resSub) => {
    const [res, sub] = splitResource(resSub);
    return (res === '*' || res === attrs.resource) && (sub === '*' || sub === attrs.subresource);
  });
}

export interface MatchContext {
  /** The namespace's labels, or undefined when it does not exist. */
  namespaceLabels(name: string): Promise<Record<string, string> | undefined>;
  /** The resources stored with the request's (its other versions), for webhooks whose matchPolicy is Equivalent. */
  equivalents?: Equivalents;
}

/** What a webhook is called for: the request's own resource, or the equivalent one its rules named. */
export interface Invocation {
  equivalent?: EquivalentResource;
}

/**
 * Whether the webhook is called for the request (generic.ShouldCallHook). Selector
 * problems (a namespace that does not exist, a selector that does not parse) fail the
 * request only when the rules match, as upstream.
 */
export async function shouldCall(hook: Webhook, attrs: AdmissionAttributes, ctx: MatchContext): Promise<Invocation | false> {
  let selectorError: Error | undefined;

  // namespaceSelector: cluster-scoped objects other than namespaces always match.
  const namespace = requestNamespace(attrs);
  if (namespace !== '' || isNamespaceResource(attrs)) {
    const selector = hook.namespaceSelector;
    if (selector instanceof Error) selectorError = internalError(selector.message);
    else if (!isEverything(selector)) {
      let labels: Record<string, string> | undefined;
      // A namespace being created or updated is matched on its own new labels.
      if (isNamespaceResource(attrs) && attrs.subresource === '' && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) {
        labels = attrs.object?.metadata.labels ?? {};
      } else {
        labels = await ctx.namespaceLabels(namespace);
      }
      if (labels === undefined) {
        // The namespace is not there: 404, as upstream answers for backwards compatibility.
        selectorError = notFound({ group: '', resource: 'namespaces' }, namespace);
      } else if (!matchLabels(selector, labels)) {
        return false;
      }
    }
  }

  // objectSelector: the new or the old object's labels.
  const objSelector = hook.objectSelector;
  if (objSelector instanceof Error) selectorError ??= internalError(objSelector.message);
  else if (!isEverything(objSelector)) {
    const matches = [attrs.object, attrs.oldObject].some((o) => o !== undefined && matchLabels(objSelector, o.metadata?.labels ?? {}));
    if (!matches) return false;
  }

  const invocation = matchingRule(hook, attrs, ctx);
  if (invocation === undefined) return false;
  if (selectorError !== undefined) throw selectorError;
  return invocation;
}

/**
 * The rules against the request's resource; under matchPolicy Equivalent, when none names
 * it, against each resource stored with it, rule by rule (upstream's ShouldCallHook).
 */
function matchingRule(hook: Webhook, attrs: AdmissionAttributes, ctx: MatchContext): Invocation | undefined {
  if (hook.rules.some((rule) => ruleMatches(rule, attrs))) return {};
  if (hook.matchPolicy !== 'Equivalent' || ctx.equivalents === undefined) return undefined;
  const equivalent = equivalentMatch(hook.rules, attrs, ctx.equivalents, ruleMatches);
  return equivalent === undefined ? undefined : { equivalent };
}
