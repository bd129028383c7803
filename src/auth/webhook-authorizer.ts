// A webhook authorizer (`--authorization-webhook-config-file`, or a `Webhook` entry of an
// AuthorizationConfiguration), as upstream's plugin/pkg/authorizer/webhook: each request it
// is asked about becomes a SubjectAccessReview POSTed to the webhook (unless its match
// conditions exclude it); the answer allows, denies or has no opinion, and is cached
// (allowed answers for authorizedTTL, others for unauthorizedTTL) by the review's spec.
// A webhook that cannot be asked decides by its failure policy, with the error. The HTTP
// call (with its retries) and the match conditions (CEL) arrive as functions.
import { parseLabelSelector } from '../api/labels.ts';
import type { AuthorizationAttributes, AuthorizationDecision, Authorizer } from './authorize.ts';
import type { RuleResolver, SubjectRules } from './rule-resolver.ts';
import type { UserInfo } from './user.ts';

export interface WebhookAuthorizerOptions {
  name: string;
  /** The SubjectAccessReview version sent and expected: v1, or v1beta1 (whose spec names the groups `group`). */
  version: 'v1' | 'v1beta1';
  /** POSTs the review to the webhook and answers its decoded response; throws an Error whose message says why it could not. */
  call(review: Record<string, unknown>): Promise<unknown>;
  /** How long an allowed answer, and any other answer, is reused; 0 for not at all. */
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  /** What a webhook that cannot be asked decides: no opinion (the next mode is asked) or deny. */
  failurePolicy: 'NoOpinion' | 'Deny';
  /**
   * The match conditions over the review's spec (v1): false skips the webhook (no opinion);
   * throws when one cannot be evaluated (then the failure policy decides).
   */
  matches?(spec: Readonly<Record<string, unknown>>): boolean;
  now?(): number;
}

/** Upstream's cache size (an LRU of 8,192 reviews). */
const cacheSize = 8192;
/** Requester-controlled attributes this long are not cached (upstream's maxControlledAttrCacheSize). */
const maxCachedAttributesLength = 10_000;

interface ReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
}

/** The SubjectAccessReview spec (v1) upstream builds from a request's attributes. */
export function reviewSpecOf(user: UserInfo, attributes: AuthorizationAttributes): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (attributes.resource !== '') {
    const resourceAttributes: Record<string, unknown> = {};
    const set = (key: string, value: string | undefined) => {
      if (value !== undefined && value !== '') resourceAttributes[key] = value;
    };
    set('namespace', attributes.namespace);
    set('verb', attributes.verb);
    set('group', attributes.group);
    set('version', attributes.version);
    set('resource', attributes.resource);
    set('subresource', attributes.subresource);
    set('name', attributes.name);
    const fieldRequirements = (attributes.fieldSelector ?? []).map((term) => ({ key: term.field, operator: term.operator === '!=' ? 'NotIn' : 'In', values: [term.value] }));
    if (fieldRequirements.length > 0) resourceAttributes.fieldSelector = { requirements: fieldRequirements };
    const labelRequirements = labelRequirementsOf(attributes.labelSelector);
    if (labelRequirements.length > 0) resourceAttributes.labelSelector = { requirements: labelRequirements };
    spec.resourceAttributes = resourceAttributes;
  } else {
    spec.nonResourceAttributes = { path: attributes.path, verb: attributes.verb };
  }
  if (user.name !== '') spec.user = user.name;
  if (user.groups.length > 0) spec.groups = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) spec.extra = user.extra;
  if (user.uid !== '') spec.uid = user.uid;
  return spec;
}

/** A label selector's requirements as a review tells them: equality and sets as In and NotIn, existence as Exists and DoesNotExist. */
function labelRequirementsOf(raw: string | undefined): Record<string, unknown>[] {
  if (raw === undefined) return [];
  let requirements;
  try {
    requirements = parseLabelSelector(raw).requirements;
  } catch {
    return [];
  }
  const operators: Record<string, string> = { '=': 'In', '==': 'In', in: 'In', '!=': 'NotIn', notin: 'NotIn', exists: 'Exists', '!': 'DoesNotExist' };
  return requirements.flatMap((r) => {
    const operator = operators[r.operator];
    if (operator === undefined) return [];
    return [{ key: r.key, operator, ...(r.values.length > 0 ? { values: r.values } : {}) }];
  });
}

/** The review as the webhook's version has it on the wire. */
function reviewFor(version: 'v1' | 'v1beta1', spec: Record<string, unknown>): Record<string, unknown> {
  let wire = spec;
  if (version === 'v1beta1' && spec.groups !== undefined) {
    const { groups, ...rest } = spec;
    wire = { ...rest, group: groups };
  }
  return { apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', metadata: { creationTimestamp: null }, spec: wire, status: { allowed: false } };
}

export function webhookAuthorizer(opts: WebhookAuthorizerOptions): Authorizer & RuleResolver {
  const now = opts.now ?? (() => Date.now());
  const onError: AuthorizationDecision['decision'] = opts.failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion';
  // Insertion order is recency: a hit is moved to the end, the oldest dropped past the size.
  const cache = new Map<string, { status: ReviewStatus; expires: number }>();

  const decide = (status: ReviewStatus): AuthorizationDecision => {
    const reason = typeof status.reason === 'string' ? status.reason : '';
    if (status.denied === true && status.allowed === true) {
      return { decision: 'Deny', reason, error: 'webhook subject access review returned both allow and deny response' };
    }
    if (status.denied === true) return { decision: 'Deny', reason };
    if (status.allowed === true) return { decision: 'Allow', reason };
    return { decision: 'NoOpinion', reason };
  };

  return {
    async authorize(user, attributes) {
      const spec = reviewSpecOf(user, attributes);
      if (opts.matches !== undefined) {
        let matched: boolean;
        try {
          matched = opts.matches(spec);
        } catch (err) {
          return { decision: onError, reason: '', error: (err as Error).message };
        }
        if (!matched) return { decision: 'NoOpinion', reason: '' };
      }
      const key = JSON.stringify(spec);
      const cached = cache.get(key);
      if (cached !== undefined) {
        cache.delete(key);
        if (cached.expires > now()) {
          cache.set(key, cached);
          return decide(cached.status);
        }
      }
      let status: ReviewStatus;
      try {
        const answer = await opts.call(reviewFor(opts.version, spec));
        const found = (answer as { status?: unknown } | null)?.status;
        status = found !== null && typeof found === 'object' ? (found as ReviewStatus) : {};
      } catch (err) {
        return { decision: onError, reason: '', error: (err as Error).message };
      }
      const ttl = status.allowed === true ? opts.authorizedTtlMs : opts.unauthorizedTtlMs;
      const controlled = attributes.namespace.length + attributes.verb.length + attributes.group.length + (attributes.version ?? '').length
        + attributes.resource.length + attributes.subresource.length + attributes.name.length + attributes.path.length;
      if (ttl > 0 && controlled < maxCachedAttributesLength) {
        cache.set(key, { status, expires: now() + ttl });
        if (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
      }
      return decide(status);
    },
    async rulesFor(): Promise<SubjectRules> {
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' };
    },
  };
}
