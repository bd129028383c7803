// authentication.k8s.io requests: serviceaccounts/token (TokenRequest), tokenreviews and selfsubjectreviews, answered as upstream's registries answer them.
import { badRequest, conflict, invalid, isStatusError, type KubeObject } from '../../api/index.ts';
import { goFieldTypeError, isGoInt64, isObject } from '../../api/json.ts';
import { addWarning, currentRequest } from '../../api/request-context.ts';
import * as field from '../../api/field-errors.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { writeAnswer } from '../answer.ts';
import { readBody } from '../http.ts';
import { decodeObjectBody, ensureRequestNamespace } from '../object-body.ts';
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
  }): Promise<{ token: string; expiration: Date }>;
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
  const request = (await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), { cbor: scope.cbor, kind: 'TokenRequest', metadataOfVersion: 'v1' })).object;
  checkTypeMeta(request, apiVersion, 'TokenRequest');
  const spec = decodeTokenRequestSpec(request.spec);
  const name = info.name;
  const namespace = info.namespace;
  ensureRequestNamespace(request, namespace);
  // Admission sees the TokenRequest as upstream's create handler and TokenREST show it:
  // mutating plugins before anything is looked up, validating ones once it is valid.
  const attrs = {
    operation: 'CREATE' as const, group: '', version: 'v1', resource: 'serviceaccounts', subresource: 'token',
    kind: 'TokenRequest', kindGroupVersion: { group, version: 'v1' },
    namespace, name, object: request, oldObject: undefined, dryRun: false, namespaced: true,
  };
  await scope.served.store.admission.admit(attrs);
  if (request.metadata.name && request.metadata.name !== name) {
    throw invalid('TokenRequest', name, [field.invalid('metadata.name', request.metadata.name, 'must match the service account name if specified')], group);
  }
  const serviceAccount = await scope.served.store.get(namespace, name);
  if (request.metadata.uid && request.metadata.uid !== serviceAccount.metadata.uid) {
    throw conflict({ group, resource: 'TokenRequest' }, name, `the UID in the token request (${request.metadata.uid}) does not match the UID of the service account (${serviceAccount.metadata.uid})`);
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
    const refGroup = (ref.apiVersion ?? '').includes('/') ? ref.apiVersion!.split('/')[0]! : '';
    const refName = ref.name ?? '';
    let uid: string | undefined;
    if (refGroup === '' && ref.kind === 'Pod') {
      const pod = await store(registry, 'pods').get(namespace, refName);
      if ((pod.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName !== name) {
        throw badRequest(`cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`);
      }
      bound.pod = pod;
      uid = pod.metadata.uid;
      // A pod-bound token also names the pod's node, or just its name when the node is gone.
      const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
      if (nodeName) bound.node = await findOr(registry, 'nodes', '', nodeName, { metadata: { name: nodeName } });
    } else if (refGroup === '' && ref.kind === 'Secret') {
      bound.secret = await store(registry, 'secrets').get(namespace, refName);
      uid = bound.secret.metadata.uid;
    } else if (refGroup === '' && ref.kind === 'Node') {
      bound.node = await store(registry, 'nodes').get('', refName);
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
  const { token } = await api.issueToken({ namespace, serviceAccount, ...bound, audiences, expirationSeconds });
  const answer: KubeObject = {
    kind: 'TokenRequest',
    apiVersion,
    metadata: { name, namespace, uid: serviceAccount.metadata.uid, creationTimestamp: rfc3339(now) },
    spec: { audiences, expirationSeconds, ...(ref !== undefined ? { boundObjectRef: ref } : {}) },
    status: { token, expirationTimestamp: rfc3339(new Date(now.getTime() + expirationSeconds * 1000)) },
  };
  await writeAnswer(scope, 201, answer);
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
  const review = (await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), { cbor: scope.cbor, kind: 'TokenReview', metadataOfVersion: scope.served.type.version })).object;
  checkTypeMeta(review, `${group}/${scope.served.type.version}`, 'TokenReview');
  const spec = decodeTokenReviewSpec(review.spec, scope.served.type.version);
  const token = spec.token ?? '';
  if (token === '') throw badRequest('token is required for TokenReview in authentication');
  const wanted = spec.audiences !== undefined && spec.audiences.length > 0 ? spec.audiences : [...api.apiAudiences];
  const result = await api.reviewToken(token, wanted);
  const status: Record<string, unknown> = { authenticated: result.user !== undefined };
  if (result.user !== undefined) {
    status.user = result.user;
    if (result.audiences !== undefined && result.audiences.length > 0) status.audiences = result.audiences;
  }
  if (result.error !== undefined) status.error = result.error;
  await writeAnswer(scope, 201, { kind: 'TokenReview', apiVersion, metadata: reviewMetadata(review), spec: review.spec ?? {}, status });
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

/** POST selfsubjectreviews: the requesting user as the server sees it (`kubectl auth whoami`). */
export async function selfSubjectReviewHandler(scope: RequestScope): Promise<void> {
  const review = (await decodeObjectBody(scope.req.headers['content-type'], await readBody(scope.req), { cbor: scope.cbor, kind: 'SelfSubjectReview', metadataOfVersion: scope.served.type.version })).object;
  checkTypeMeta(review, `${group}/${scope.served.type.version}`, 'SelfSubjectReview');
  const userInfo = reviewedUser(currentRequest()?.user ?? { name: '', uid: '', groups: [] });
  await writeAnswer(scope, 201, { kind: 'SelfSubjectReview', apiVersion, metadata: reviewMetadata(review), status: { userInfo } });
}

/** The reviewed user of an authenticated UserInfo, as authentication.k8s.io writes it (empty fields left out). */
export function reviewedUser(user: { name: string; uid: string; groups: readonly string[]; extra?: Readonly<Record<string, readonly string[]>> }): ReviewedUser {
  const out: ReviewedUser = { username: user.name };
  if (user.uid !== '') out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

/** A review is not stored: its answer keeps the metadata the client sent, but for what only storage sets. */
function reviewMetadata(review: KubeObject): KubeObject['metadata'] {
  const { resourceVersion: _rv, uid: _uid, ...rest } = review.metadata;
  return rest;
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

/**
 * A body's apiVersion and kind, when given (not empty), are the ones the endpoint takes: 400 otherwise,
 * as upstream's create handler refuses data of another API version.
 */
function checkTypeMeta(body: KubeObject, expectedApiVersion: string, kind: string): void {
  if (body.apiVersion !== undefined && body.apiVersion !== '' && body.apiVersion !== expectedApiVersion) {
    throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${expectedApiVersion})`);
  }
  if (body.kind !== undefined && body.kind !== '' && body.kind !== kind) {
    throw badRequest(`the kind in the data (${body.kind}) does not match the expected kind (${kind})`);
  }
}

/** Go's schema.GroupVersionKind.String(): `group/version, Kind=kind`. */
function goGroupVersionKind(apiVersionText: string, kind: string): string {
  const [g, v] = apiVersionText.includes('/') ? apiVersionText.split('/', 2) as [string, string] : ['', apiVersionText];
  return `${g}/${v}, Kind=${kind}`;
}

function rfc3339(date: Date): string {
  return rfc3339Seconds(date.getTime());
}
