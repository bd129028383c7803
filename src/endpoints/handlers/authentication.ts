// authentication.k8s.io requests: serviceaccounts/token (TokenRequest), tokenreviews and selfsubjectreviews, answered as upstream's registries answer them.
import { badRequest, conflict, invalid, isStatusError, parseGroupVersion, type KubeObject } from '../../api/index.ts';
import { goFieldTypeError, isGoInt64, isObject } from '../../api/json.ts';
import { addAuditAnnotation, addWarning, currentRequest } from '../../api/request-context.ts';
import * as field from '../../api/field-errors.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { validateName } from '../../registry/validation/names.ts';
import { writeAnswer } from '../answer.ts';
import { readBody } from '../http.ts';
import { decodeObjectBody, ensureRequestNamespace } from '../object-body.ts';
import { writeOptions } from '../query.ts';
import type { RequestScope } from './scope.ts';
import { rfc3339Seconds } from '../../api/time.ts';

const group = 'authentication.k8s.io';
const apiVersion = `${group}/v1`;

/** authentication.k8s.io's UserInfo. */
export interface ReviewedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** What the authentication side (auth/, wired in cli/) does for these handlers. */
export interface AuthenticationApi {
  /** `--api-audiences`: a TokenRequest or TokenReview without audiences is for these. */
  apiAudiences: readonly string[];
  /** `--service-account-max-token-expiration` in seconds: a TokenRequest asking longer is shortened to it, with a warning. */
  maxExpirationSeconds?: number;
  /** Signs a bound service-account token. */
  issueToken(request: {
    namespace: string;
    serviceAccount: KubeObject;
    pod?: KubeObject;
    secret?: KubeObject;
    node?: KubeObject;
    audiences: string[];
    expirationSeconds: number;
  }): Promise<{ token: string; expiration: Date; jti?: string }>;
  /** Authenticates a bearer token as the server would, for the audiences. */
  reviewToken(token: string, audiences: readonly string[]): Promise<{ user?: ReviewedUser; audiences?: string[]; error?: string }>;
  /** The issuer's OpenID discovery document and public keys (`/.well-known/openid-configuration`, `/openid/v1/jwks`). */
  openIdConfiguration(): Promise<unknown>;
  jwks(): Promise<unknown>;
}

/** Upstream's TokenRequestSpec defaults and bounds: an hour by default, ten minutes at least, 2^32 seconds at most. */
const defaultExpirationSeconds = 3600;
const minExpirationSeconds = 600;
const maxExpirationSeconds = 2 ** 32;

/**
 * POST serviceaccounts/{name}/token: a TokenRequest for the account, optionally bound to
 * a Pod, Secret or Node of its namespace, answered 201 with the token (upstream's TokenREST).
 */
export async function tokenRequestHandler(scope: RequestScope, registry: ResourceRegistry, api: AuthenticationApi): Promise<void> {
  const { info } = scope;
  // Upstream's create handler checks the CreateOptions (dryRun, fieldManager, fieldValidation) before decoding the body: 422.
  const { dryRun } = writeOptions(scope.query, 'CreateOptions');
  const request = (await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), {
    cbor: scope.cbor, kind: 'TokenRequest', metadataOfVersion: 'v1', schemeType: { group, version: 'v1', kind: 'TokenRequest' },
  })).object;
  // Decoded now for its 400s, as upstream decodes the body; read again once admission has run.
  decodeTokenRequestSpec(request.spec);
  const name = info.name;
  const namespace = info.namespace;
  ensureRequestNamespace(request, namespace);
  // Admission sees the TokenRequest as upstream's create handler and TokenREST show it:
  // mutating plugins before anything is looked up, validating ones once it is valid.
  // TokenREST issues a token on a dry run too (it stores nothing); admission is told.
  const attrs = {
    operation: 'CREATE' as const, group: '', version: 'v1', resource: 'serviceaccounts', subresource: 'token',
    kind: 'TokenRequest', kindGroupVersion: { group, version: 'v1' },
    namespace, name, object: request, oldObject: undefined, dryRun, namespaced: true,
  };
  await scope.served.store.admission.admit(attrs);
  // TokenREST gets the TokenRequest as mutating admission left it.
  const admitted = attrs.object;
  const spec = decodeTokenRequestSpec(admitted.spec);
  if (admitted.metadata.name && admitted.metadata.name !== name) {
    throw invalid('TokenRequest', name, [field.invalid('metadata.name', admitted.metadata.name, 'must match the service account name if specified')], group);
  }
  const serviceAccount = await scope.served.store.get(namespace, name);
  if (admitted.metadata.uid && admitted.metadata.uid !== serviceAccount.metadata.uid) {
    throw conflict({ group, resource: 'TokenRequest' }, name, `the UID in the token request (${admitted.metadata.uid}) does not match the UID of the service account (${serviceAccount.metadata.uid})`);
  }
  const audiences = spec.audiences !== undefined && spec.audiences.length > 0 ? spec.audiences : [...api.apiAudiences];
  let expirationSeconds = spec.expirationSeconds ?? defaultExpirationSeconds;
  if (expirationSeconds < minExpirationSeconds) {
    throw invalid('TokenRequest', '', [field.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes')], group);
  }
  if (expirationSeconds > maxExpirationSeconds) {
    throw invalid('TokenRequest', '', [field.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds')], group);
  }

  await scope.served.store.admission.validate(attrs);

  const bound: { pod?: KubeObject; secret?: KubeObject; node?: KubeObject } = {};
  const ref = spec.boundObjectRef;
  if (ref !== undefined) {
    // Upstream's schema.FromAPIVersionAndKind: an apiVersion that does not parse (two slashes) names no group.
    const refGroup = parseGroupVersion(ref.apiVersion ?? '')?.group ?? '';
    const refName = ref.name ?? '';
    let uid: string | undefined;
    if (refGroup === '' && ref.kind === 'Pod') {
      const pod = await store(registry, 'pods').get(namespace, boundObjectName(refName));
      if ((pod.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName !== name) {
        throw badRequest(`cannot bind token for serviceaccount ${field.goQuote(name)} to pod running with different serviceaccount name.`);
      }
      bound.pod = pod;
      uid = pod.metadata.uid;
      // A pod-bound token also names the pod's node, or just its name when the node is gone.
      const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
      if (nodeName) bound.node = await findOr(registry, 'nodes', '', nodeName, { metadata: { name: nodeName } });
    } else if (refGroup === '' && ref.kind === 'Secret') {
      bound.secret = await store(registry, 'secrets').get(namespace, boundObjectName(refName));
      uid = bound.secret.metadata.uid;
    } else if (refGroup === '' && ref.kind === 'Node') {
      bound.node = await store(registry, 'nodes').get('', boundObjectName(refName));
      uid = bound.node.metadata.uid;
    } else {
      throw badRequest(`cannot bind token to object of type ${goGroupVersionKind(ref.apiVersion ?? '', ref.kind ?? '')}`);
    }
    if (ref.uid && ref.uid !== uid) {
      throw conflict({ group: '', resource: ref.kind! }, refName, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
  }

  if (api.maxExpirationSeconds !== undefined && expirationSeconds > api.maxExpirationSeconds) {
    addWarning(`requested expiration of ${expirationSeconds} seconds shortened to ${api.maxExpirationSeconds} seconds`);
    expirationSeconds = api.maxExpirationSeconds;
  }
  const now = new Date();
  const { token, jti } = await api.issueToken({ namespace, serviceAccount, ...bound, audiences, expirationSeconds });
  // Upstream's ServiceAccountTokenJTI: the token's id noted on the issuing request's audit event.
  if (jti !== undefined && jti !== '') addAuditAnnotation('authentication.kubernetes.io/issued-credential-id', `JTI=${jti}`);
  const answer: KubeObject = {
    kind: 'TokenRequest',
    apiVersion,
    // TokenREST keeps the request's metadata (a SubresourceObjectMetaPreserver), its name, namespace and uid the account's.
    metadata: tokenRequestMetadata(admitted.metadata, { name, namespace, uid: serviceAccount.metadata.uid ?? '', creationTimestamp: rfc3339(now) }),
    // TokenRequestSpec's members have no omitempty: an absent boundObjectRef is written null.
    spec: { audiences, expirationSeconds, boundObjectRef: ref ?? null },
    status: { token, expirationTimestamp: rfc3339(new Date(now.getTime() + expirationSeconds * 1000)) },
  };
  await writeAnswer(scope, 201, answer);
}

/** ObjectMeta's members in Go's order, for those set. */
const objectMetaOrder = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'];

/** Metadata with its members in Go's order (ObjectMeta's fields), as Go writes it back. */
function inGoOrder(meta: Record<string, unknown>): KubeObject['metadata'] {
  const out: Record<string, unknown> = {};
  for (const key of objectMetaOrder) if (meta[key] !== undefined) out[key] = meta[key];
  for (const [key, value] of Object.entries(meta)) if (!(key in out) && value !== undefined) out[key] = value;
  return out as KubeObject['metadata'];
}

/** The request's metadata with what TokenREST sets (name, namespace, uid, creationTimestamp). */
function tokenRequestMetadata(sent: KubeObject['metadata'], set: { name: string; namespace: string; uid: string; creationTimestamp: string }): KubeObject['metadata'] {
  return inGoOrder({ ...sent, ...set });
}

/**
 * The name of a bound object as the registry's key function takes it (NamespaceKeyFunc /
 * NoNamespaceKeyFunc): required, and one a storage key can hold, else 400 before any lookup.
 */
function boundObjectName(name: string): string {
  if (name === '') throw badRequest('Name parameter required.');
  const problems = validateName(name, 'path-segment');
  if (problems.length > 0) throw badRequest(`Name parameter invalid: ${field.goQuote(name)}: ${problems.join(';')}`);
  return name;
}

interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
}

/**
 * A TokenRequest's spec as decoding it into upstream's Go type checks it: the first value
 * of the wrong type, in document order, is a 400 with Go's json message; null leaves a
 * field unset (an audience "").
 */
function decodeTokenRequestSpec(spec: unknown): TokenRequestSpec {
  const typeError = (value: unknown, struct: string, path: string, goType: string) =>
    badRequest(`TokenRequest in version "v1" cannot be handled as a TokenRequest: ${goFieldTypeError(value, struct, path, goType)}`);
  if (spec === undefined || spec === null) return {};
  if (!isObject(spec)) throw typeError(spec, 'TokenRequest', 'spec', 'v1.TokenRequestSpec');
  const out: TokenRequestSpec = {};
  for (const [field, value] of Object.entries(spec)) {
    if (value === null) continue;
    switch (field) {
      case 'audiences':
        if (!Array.isArray(value)) throw typeError(value, 'TokenRequestSpec', 'spec.audiences', '[]string');
        out.audiences = value.map((v) => {
          if (v === null) return '';
          if (typeof v !== 'string') throw typeError(v, 'TokenRequestSpec', 'spec.audiences', 'string');
          return v;
        });
        break;
      case 'expirationSeconds':
        if (!isGoInt64(value)) throw typeError(value, 'TokenRequestSpec', 'spec.expirationSeconds', 'int64');
        out.expirationSeconds = value;
        break;
      case 'boundObjectRef': {
        if (!isObject(value)) throw typeError(value, 'TokenRequestSpec', 'spec.boundObjectRef', 'v1.BoundObjectReference');
        const ref: Record<string, string> = {};
        for (const [key, v] of Object.entries(value)) {
          if (v === null || !['kind', 'apiVersion', 'name', 'uid'].includes(key)) continue;
          if (typeof v !== 'string') throw typeError(v, 'BoundObjectReference', `spec.boundObjectRef.${key}`, key === 'uid' ? 'types.UID' : 'string');
          ref[key] = v;
        }
        out.boundObjectRef = ref;
        break;
      }
    }
  }
  return out;
}

/**
 * POST tokenreviews: whether a token authenticates, and as whom, for the audiences
 * asked (the API server's when none), as upstream's tokenreview REST.
 */
export async function tokenReviewHandler(scope: RequestScope, api: AuthenticationApi): Promise<void> {
  writeOptions(scope.query, 'CreateOptions');
  const review = (await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), {
    cbor: scope.cbor, kind: 'TokenReview', metadataOfVersion: scope.served.type.version, schemeType: { group, version: scope.served.type.version, kind: 'TokenReview' },
  })).object;
  const spec = decodeTokenReviewSpec(review.spec, scope.served.type.version);
  const token = spec.token ?? '';
  if (token === '') throw badRequest('token is required for TokenReview in authentication');
  const wanted = spec.audiences !== undefined && spec.audiences.length > 0 ? spec.audiences : [...api.apiAudiences];
  const result = await api.reviewToken(token, wanted);
  // TokenReviewStatus as Go writes it: `authenticated` omitted when false, `user` (a struct) always there.
  const status: Record<string, unknown> = {};
  if (result.user !== undefined) status.authenticated = true;
  status.user = result.user ?? {};
  if (result.user !== undefined && result.audiences !== undefined && result.audiences.length > 0) status.audiences = result.audiences;
  if (result.error !== undefined && result.error !== '') status.error = result.error;
  // The spec as decoded into the Go type: unknown members gone, an empty audiences list omitted.
  const echoed = { token, ...(spec.audiences !== undefined && spec.audiences.length > 0 ? { audiences: spec.audiences } : {}) };
  await writeAnswer(scope, 201, { kind: 'TokenReview', apiVersion, metadata: wipedSystemFields(review), spec: echoed, status });
}

/** A TokenReview's spec as decoding it into upstream's Go type checks it (a 400 with Go's error); null leaves a field unset. */
function decodeTokenReviewSpec(spec: unknown, version: string): { token?: string; audiences?: string[] } {
  const typeError = (value: unknown, struct: string, path: string, goType: string) =>
    badRequest(`TokenReview in version ${JSON.stringify(version)} cannot be handled as a TokenReview: ${goFieldTypeError(value, struct, path, goType)}`);
  if (spec === undefined || spec === null) return {};
  if (!isObject(spec)) throw typeError(spec, 'TokenReview', 'spec', 'v1.TokenReviewSpec');
  const out: { token?: string; audiences?: string[] } = {};
  if (spec.token !== undefined && spec.token !== null) {
    if (typeof spec.token !== 'string') throw typeError(spec.token, 'TokenReviewSpec', 'spec.token', 'string');
    out.token = spec.token;
  }
  if (spec.audiences !== undefined && spec.audiences !== null) {
    if (!Array.isArray(spec.audiences)) throw typeError(spec.audiences, 'TokenReviewSpec', 'spec.audiences', '[]string');
    out.audiences = spec.audiences.map((a) => {
      if (a !== null && typeof a !== 'string') throw typeError(a, 'TokenReviewSpec', 'spec.audiences', 'string');
      return a ?? '';
    });
  }
  return out;
}

/**
 * POST selfsubjectreviews: the requesting user as the server sees it (`kubectl auth whoami`),
 * in a new object as upstream's REST makes it: nothing of the request's metadata, created now.
 */
export async function selfSubjectReviewHandler(scope: RequestScope): Promise<void> {
  writeOptions(scope.query, 'CreateOptions');
  // The body says nothing the answer takes; it is decoded for its refusals.
  await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), {
    cbor: scope.cbor, kind: 'SelfSubjectReview', metadataOfVersion: scope.served.type.version, schemeType: { group, version: scope.served.type.version, kind: 'SelfSubjectReview' },
  });
  const userInfo = reviewedUser(currentRequest()?.user ?? { name: '', uid: '', groups: [] });
  await writeAnswer(scope, 201, { kind: 'SelfSubjectReview', apiVersion, metadata: { creationTimestamp: rfc3339(new Date()) }, status: { userInfo } });
}

/**
 * The reviewed user of an authenticated UserInfo, as authentication.k8s.io writes it (empty
 * fields left out; the extra keys sorted, as Go writes a map).
 */
export function reviewedUser(user: { name: string; uid: string; groups: readonly string[]; extra?: Readonly<Record<string, readonly string[]>> }): ReviewedUser {
  const out: ReviewedUser = { username: user.name };
  if (user.uid !== '') out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) {
    out.extra = Object.fromEntries(Object.keys(user.extra).sort().map((k) => [k, [...user.extra![k]!]]));
  }
  return out;
}

/**
 * A TokenReview is not stored: its answer keeps the metadata the client sent but for the
 * system fields upstream's create handler wipes (rest.WipeObjectMetaSystemFields).
 */
function wipedSystemFields(review: KubeObject): KubeObject['metadata'] {
  const { creationTimestamp: _created, uid: _uid, deletionTimestamp: _deleted, deletionGracePeriodSeconds: _grace, selfLink: _selfLink, ...rest } = review.metadata as KubeObject['metadata'] & { selfLink?: string };
  return inGoOrder(rest);
}

function store(registry: ResourceRegistry, resource: string) {
  return registry.lookup('', 'v1', resource)!.store;
}

async function findOr(registry: ResourceRegistry, resource: string, namespace: string, name: string, fallback: KubeObject): Promise<KubeObject> {
  try {
    return await store(registry, resource).get(namespace, name);
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return fallback;
    throw err;
  }
}

/** Go's schema.GroupVersionKind.String() of schema.FromAPIVersionAndKind: `group/version, Kind=kind`, an unparsable apiVersion left out. */
function goGroupVersionKind(apiVersionText: string, kind: string): string {
  const { group: g, version: v } = parseGroupVersion(apiVersionText) ?? { group: '', version: '' };
  return `${g}/${v}, Kind=${kind}`;
}

function rfc3339(date: Date): string {
  return rfc3339Seconds(date.getTime());
}
