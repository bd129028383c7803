// Service-account tokens as upstream's pkg/serviceaccount: bound JWTs issued for TokenRequests, and their authentication.
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { CompactSign, compactVerify } from 'jose';
import { AuthenticationFailure, type TokenAuthenticator } from './authenticate.ts';
import type { ServiceAccountKeys, SigningKey, VerificationKey } from './service-account-keys.ts';
import type { UserInfo } from './user.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../api/labels.ts';
import { goQuote, goQuoteList } from '../api/field-errors.ts';
import { credentialIdKey } from './x509.ts';

/** What a bound token names: an object's name and uid. */
export interface ObjectRef {
  name: string;
  uid: string;
}

export interface TokenClaimsRequest {
  namespace: string;
  serviceAccount: ObjectRef;
  /** At most one of pod and secret; a pod-bound token also names the pod's node when it has one. */
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  audiences: readonly string[];
  expirationSeconds: number;
  /** Upstream's extended projected tokens: valid for expirationSeconds, but `warnafter` this many seconds. */
  warnAfterSeconds?: number;
}

/** Seconds of clock skew tolerated on exp, nbf and iat, as go-jose's DefaultLeeway. */
const leewaySeconds = 60;

export const serviceAccountUsernamePrefix = 'system:serviceaccount:';

/**
 * `system:serviceaccount:<namespace>:<name>` split as upstream's serviceaccount.SplitUsername:
 * the namespace a DNS label, the name a DNS subdomain; undefined for any other user name.
 */
export function splitServiceAccountName(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(serviceAccountUsernamePrefix)) return undefined;
  const parts = username.slice(serviceAccountUsernamePrefix.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}
export const allServiceAccountsGroup = 'system:serviceaccounts';

/**
 * Signs a token with upstream's claims: iss, sub `system:serviceaccount:<ns>:<name>`, aud,
 * exp, iat, nbf, jti, and `kubernetes.io` {namespace, serviceaccount, pod|secret|node, warnafter}.
 * The JWS header carries the key id (`kid`) upstream computes.
 */
export async function issueServiceAccountToken(key: SigningKey, issuer: string, request: TokenClaimsRequest, nowMs = Date.now()): Promise<{ token: string; expiration: Date; jti: string }> {
  const now = Math.floor(nowMs / 1000);
  const jti = randomUUID();
  // go-jose normalises the claims into maps before writing them, so every level's keys are
  // sorted: namespace, node, pod, secret, serviceaccount, warnafter; a ref's name, uid.
  const kubernetes: Record<string, unknown> = { namespace: request.namespace };
  if (request.node !== undefined) kubernetes.node = objectRef(request.node);
  if (request.pod !== undefined) kubernetes.pod = objectRef(request.pod);
  if (request.secret !== undefined) kubernetes.secret = objectRef(request.secret);
  kubernetes.serviceaccount = objectRef(request.serviceAccount);
  if (request.warnAfterSeconds !== undefined) kubernetes.warnafter = now + request.warnAfterSeconds;
  const claims = {
    aud: [...request.audiences],
    exp: now + request.expirationSeconds,
    iat: now,
    iss: issuer,
    jti,
    'kubernetes.io': kubernetes,
    nbf: now,
    sub: `${serviceAccountUsernamePrefix}${request.namespace}:${request.serviceAccount.name}`,
  };
  const token = await new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: key.algorithm, kid: key.keyId })
    .sign(key.privateKey);
  return { token, expiration: new Date((now + request.expirationSeconds) * 1000), jti };
}

/** A claim's reference to an object, its empty members left out (upstream's ref has omitempty). */
function objectRef(ref: ObjectRef): Record<string, string> {
  return { ...(ref.name !== '' ? { name: ref.name } : {}), ...(ref.uid !== '' ? { uid: ref.uid } : {}) };
}

/** Upstream's WarnOnlyBoundTokenExpirationSeconds: what a kubelet asks for projected volumes (an hour and 7 seconds). */
export const projectedTokenExpirationSeconds = 3607;
/** Upstream's ExpirationExtensionSeconds: how long such a token is really valid (a year) with `--service-account-extend-token-expiration`. */
export const extendedTokenExpirationSeconds = 365 * 24 * 60 * 60;

export interface ServiceAccountTokenIssuerOptions {
  issuer: string;
  keys: () => Promise<ServiceAccountKeys>;
  apiAudiences: readonly string[];
  /** `--service-account-extend-token-expiration` (on, as upstream). */
  extendExpiration?: boolean;
}

/**
 * Issues TokenRequest tokens as upstream's TokenREST: a pod-bound token asked for 3607
 * seconds for the API server's audiences (what kubelets request for projected volumes)
 * is valid a year, with `warnafter` at the time asked, so that clients slow to reload
 * it keep working while the server can tell stale tokens apart.
 */
export function serviceAccountTokenIssuer(opts: ServiceAccountTokenIssuerOptions): (request: TokenClaimsRequest) => Promise<{ token: string; expiration: Date; jti: string }> {
  return async (request) => {
    const { signing } = await opts.keys();
    const extend = (opts.extendExpiration ?? true) && request.pod !== undefined && request.expirationSeconds === projectedTokenExpirationSeconds
      && request.audiences.every((a) => opts.apiAudiences.includes(a));
    const claims = extend ? { ...request, expirationSeconds: extendedTokenExpirationSeconds, warnAfterSeconds: request.expirationSeconds } : request;
    return issueServiceAccountToken(signing, opts.issuer, claims);
  };
}

/** An object a token is bound to, as it is now; undefined when it no longer exists. */
export interface BoundObject {
  uid: string;
  deletionTimestamp?: string;
  labels?: Readonly<Record<string, string>>;
  /** A Secret's `data.token`, decoded. */
  token?: string;
  /** A ServiceAccount's `secrets` references, by name. */
  secretNames?: readonly string[];
}

/** Looks up what tokens name, as upstream's ServiceAccountTokenGetter (the watch caches, then storage). */
export interface ServiceAccountTokenGetter {
  serviceAccount(namespace: string, name: string): Promise<BoundObject | undefined>;
  pod(namespace: string, name: string): Promise<BoundObject | undefined>;
  secret(namespace: string, name: string): Promise<BoundObject | undefined>;
  node(name: string): Promise<BoundObject | undefined>;
  /** Labels a token Secret `kubernetes.io/legacy-token-last-used: <date>` (its uid a precondition). */
  markLegacyTokenUsed?(namespace: string, name: string, uid: string, date: string): Promise<void>;
}

export interface ServiceAccountTokenAuthenticatorOptions {
  /** `--service-account-issuer`: tokens from any of them are accepted; the first signs. */
  issuers: readonly string[];
  /** Loaded on first use: the default key is only created when a token is first issued or met. */
  keys: () => Promise<ServiceAccountKeys>;
  /** `--api-audiences`: what a token must be meant for when the request names no audiences. */
  apiAudiences: readonly string[];
  getter: ServiceAccountTokenGetter;
  now?: () => number;
  /** Each use counted (upstream's metrics). */
  observe?: (use: ServiceAccountTokenUse) => void;
}

interface Claims {
  iss?: unknown;
  sub?: unknown;
  aud?: unknown;
  exp?: unknown;
  nbf?: unknown;
  iat?: unknown;
  jti?: unknown;
  'kubernetes.io'?: {
    namespace?: string;
    serviceaccount?: Partial<ObjectRef>;
    pod?: Partial<ObjectRef>;
    secret?: Partial<ObjectRef>;
    node?: Partial<ObjectRef>;
    warnafter?: number;
  };
}

/** How a service account token was used, for upstream's `serviceaccount_*_total` counters. */
export type ServiceAccountTokenUse = 'legacy' | 'stale' | 'valid' | 'legacy_manual' | 'legacy_auto' | 'invalid_legacy_auto';

/**
 * Upstream's JWTTokenAuthenticator with its bound-token validator: a token whose `iss`
 * is not one of ours is not recognised (another authenticator may know it); one that
 * is must have a good signature from a key of ours, be meant for the requested
 * audiences, be within its lifetime, and name a service account (and a bound pod,
 * secret or node) that still exists with the same uid. Failures carry upstream's messages.
 */
export function serviceAccountTokenAuthenticator(opts: ServiceAccountTokenAuthenticatorOptions): TokenAuthenticator {
  const issuers = new Set(opts.issuers);
  const now = opts.now ?? Date.now;
  return async (token, requestedAudiences) => {
    const unverified = unverifiedClaims(token);
    if (unverified === undefined || typeof unverified.iss !== 'string' || !issuers.has(unverified.iss)) return undefined;

    const { claims, audiences } = await verifiedToken(token, opts, requestedAudiences, (iss) => issuers.has(iss));

    const nowSeconds = now() / 1000;
    // go-jose's order: not before, then expiry, then issued at.
    if (typeof claims.nbf === 'number' && nowSeconds < claims.nbf - leewaySeconds) throw new AuthenticationFailure('service account token is not valid yet');
    if (typeof claims.exp === 'number' && nowSeconds > claims.exp + leewaySeconds) throw new AuthenticationFailure('service account token has expired');
    if (typeof claims.iat === 'number' && nowSeconds < claims.iat - leewaySeconds) throw new AuthenticationFailure('service account token is issued in the future');

    const user = await boundUser(claims, opts.getter, nowSeconds);
    // Upstream's projected token transition: a token used past its `warnafter` is stale, noted for the audit.
    const warnafter = claims['kubernetes.io']?.warnafter;
    if (typeof warnafter !== 'number' || warnafter === 0) return { user, audiences };
    if (nowSeconds <= warnafter) {
      opts.observe?.('valid');
      return { user, audiences };
    }
    opts.observe?.('stale');
    const after = Math.floor(nowSeconds) - warnafter;
    return { user, audiences, auditAnnotations: { 'authentication.k8s.io/stale-token': `subject: ${String(claims.sub)}, seconds after warning threshold: ${after}` } };
  };
}

/**
 * Upstream's JWTTokenAuthenticator's common part: the signature by one of our keys (the one
 * the token names, else any), an issuer `accepts`, and the audiences: the token's (the API's
 * own when it names none) that the request wants, at least one when the API has audiences.
 */
async function verifiedToken(
  token: string, opts: { keys: () => Promise<ServiceAccountKeys>; apiAudiences: readonly string[] }, requestedAudiences: readonly string[] | undefined, accepts: (iss: string) => boolean,
): Promise<{ claims: Claims; audiences: string[] }> {
  const kid = unverifiedKeyId(token);
  const { verification } = await opts.keys();
  const keys = kid === undefined ? verification : verification.filter((k) => k.keyId === kid);
  if (keys.length === 0) throw new AuthenticationFailure('invalid signature, no keys found');
  const claims = await verifiedClaims(token, keys);
  if (typeof claims.iss !== 'string' || !accepts(claims.iss)) throw new AuthenticationFailure(`token issuer ${goQuote(String(claims.iss))} is invalid`);
  const tokenAudiences = audiencesOf(claims.aud);
  const wanted = requestedAudiences ?? opts.apiAudiences;
  const tokenAuds = tokenAudiences.length === 0 ? [...opts.apiAudiences] : tokenAudiences;
  const audiences = tokenAuds.filter((a) => wanted.includes(a));
  if (audiences.length === 0 && opts.apiAudiences.length > 0) {
    throw new AuthenticationFailure(`token audiences ${goQuoteList(tokenAuds)} is invalid for the target audiences ${goQuoteList(wanted)}`);
  }
  return { claims, audiences };
}

/** The issuer of the long-lived tokens kept in Secrets of type `kubernetes.io/service-account-token`. */
export const legacyIssuer = 'kubernetes/serviceaccount';
const lastUsedLabel = 'kubernetes.io/legacy-token-last-used';
const invalidSinceLabel = 'kubernetes.io/legacy-token-invalid-since';

interface LegacyClaims {
  sub?: unknown;
  'kubernetes.io/serviceaccount/namespace'?: unknown;
  'kubernetes.io/serviceaccount/secret.name'?: unknown;
  'kubernetes.io/serviceaccount/service-account.name'?: unknown;
  'kubernetes.io/serviceaccount/service-account.uid'?: unknown;
}

export interface LegacyServiceAccountTokenAuthenticatorOptions {
  keys: () => Promise<ServiceAccountKeys>;
  apiAudiences: readonly string[];
  /** `--service-account-lookup` (true): the Secret must still hold the token, and the account exist with its uid. */
  lookup: boolean;
  getter: ServiceAccountTokenGetter;
  now?: () => number;
  /** Each use counted (upstream's metrics). */
  observe?: (use: ServiceAccountTokenUse) => void;
}

/**
 * Upstream's legacy token authenticator: a token of the `kubernetes/serviceaccount` issuer
 * (what kube-controller-manager's token controller writes into a Secret of type
 * `kubernetes.io/service-account-token`), signed by a key of ours, meant for the API's
 * audiences, with its claims; with lookup, its Secret must exist, not be deleted, hold this
 * very token and not be marked invalid by the legacy token cleaner, and its account must
 * exist with the uid it names. Each use labels the Secret with the day (once a day), as
 * upstream's legacy token tracking. Failures carry upstream's messages.
 */
export function legacyServiceAccountTokenAuthenticator(opts: LegacyServiceAccountTokenAuthenticatorOptions): TokenAuthenticator {
  const now = opts.now ?? Date.now;
  return async (token, requestedAudiences) => {
    const unverified = unverifiedClaims(token);
    if (unverified === undefined || unverified.iss !== legacyIssuer) return undefined;
    // A legacy token names no audience: it is meant for the API's own (upstream's implicit audiences).
    const verified = await verifiedToken(token, opts, requestedAudiences, (iss) => iss === legacyIssuer);
    const claims = verified.claims as Claims & LegacyClaims;
    const { audiences } = verified;
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    const subject = text(claims.sub);
    const namespace = text(claims['kubernetes.io/serviceaccount/namespace']);
    const secretName = text(claims['kubernetes.io/serviceaccount/secret.name']);
    const name = text(claims['kubernetes.io/serviceaccount/service-account.name']);
    const uid = text(claims['kubernetes.io/serviceaccount/service-account.uid']);
    if (subject === '') throw new AuthenticationFailure('sub claim is missing');
    if (namespace === '') throw new AuthenticationFailure('namespace claim is missing');
    if (secretName === '') throw new AuthenticationFailure('secretName claim is missing');
    if (name === '') throw new AuthenticationFailure('serviceAccountName claim is missing');
    if (uid === '') throw new AuthenticationFailure('serviceAccountUID claim is missing');
    if (subject !== `${serviceAccountUsernamePrefix}${namespace}:${name}`) throw new AuthenticationFailure('sub claim is invalid');
    // A token without audiences, as upstream's JWT authenticator notes a legacy one.
    const annotations: Record<string, string> = {};
    if (audiencesOf(claims.aud).length === 0) {
      annotations['authentication.k8s.io/legacy-token'] = subject;
      opts.observe?.('legacy');
    }
    const warnings: string[] = [];
    if (opts.lookup) {
      const secret = await opts.getter.secret(namespace, secretName);
      if (secret === undefined || secret.deletionTimestamp !== undefined) throw new AuthenticationFailure('Token has been invalidated');
      if (!sameToken(secret.token ?? '', token)) throw new AuthenticationFailure("Token does not match server's copy");
      const account = await opts.getter.serviceAccount(namespace, name);
      if (account === undefined) throw new AuthenticationFailure(`serviceaccounts ${goQuote(name)} not found`);
      if (account.deletionTimestamp !== undefined) throw new AuthenticationFailure(`ServiceAccount ${namespace}/${name} has been deleted`);
      if (account.uid !== uid) throw new AuthenticationFailure(`ServiceAccount UID (${account.uid}) does not match claim (${uid})`);
      const markUsed = () => markLegacyTokenUsed(opts.getter, namespace, secretName, secret, now());
      if (secret.labels?.[invalidSinceLabel] !== undefined && secret.labels[invalidSinceLabel] !== '') {
        opts.observe?.('invalid_legacy_auto');
        await markUsed();
        // Noted for the request's audit event, as upstream's validator notes it before refusing.
        annotations['authentication.k8s.io/legacy-token-invalidated'] = `${secretName}/${namespace}`;
        throw new AuthenticationFailure(`the token in secret ${namespace}/${secretName} for service account ${namespace}/${name} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${invalidSinceLabel}' label from the secret to temporarily allow use of this token`, annotations);
      }
      await markUsed();
      // Upstream's tracking: a token the account's own secrets list names was generated for it, and is warned of.
      if (account.secretNames?.includes(secretName) === true) {
        annotations['authentication.k8s.io/legacy-token-autogenerated-secret'] = secretName;
        warnings.push('Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens.');
        opts.observe?.('legacy_auto');
      } else {
        annotations['authentication.k8s.io/legacy-token-manual-secret'] = secretName;
        opts.observe?.('legacy_manual');
      }
    }
    return {
      user: { name: `${serviceAccountUsernamePrefix}${namespace}:${name}`, uid, groups: [allServiceAccountsGroup, `${allServiceAccountsGroup}:${namespace}`], extra: {} },
      audiences,
      auditAnnotations: annotations,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  };
}

/** Compared in constant time, as upstream's subtle.ConstantTimeCompare. */
function sameToken(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Today's date on the Secret unless it already says today (or tomorrow, a clock ahead), as upstream's tracking. */
async function markLegacyTokenUsed(getter: ServiceAccountTokenGetter, namespace: string, name: string, secret: BoundObject, nowMs: number): Promise<void> {
  const today = new Date(nowMs).toISOString().slice(0, 10);
  const tomorrow = new Date(nowMs + 86_400_000).toISOString().slice(0, 10);
  const lastUsed = secret.labels?.[lastUsedLabel];
  if (lastUsed === today || lastUsed === tomorrow || getter.markLegacyTokenUsed === undefined) return;
  // A failed label is logged upstream, never a failed authentication.
  await getter.markLegacyTokenUsed(namespace, name, secret.uid, today).catch(() => {});
}

/** The validator's lookups: the account and what the token is bound to must exist with the uids it names. */
async function boundUser(claims: Claims, getter: ServiceAccountTokenGetter, nowSeconds: number): Promise<UserInfo> {
  const k8s = claims['kubernetes.io'] ?? {};
  const namespace = k8s.namespace ?? '';
  const sa = { name: k8s.serviceaccount?.name ?? '', uid: k8s.serviceaccount?.uid ?? '' };
  // Deleted longer ago than the leeway counts as deleted.
  const deleted = (object: BoundObject) => object.deletionTimestamp !== undefined && Date.parse(object.deletionTimestamp) / 1000 < nowSeconds - leewaySeconds;

  const account = await getter.serviceAccount(namespace, sa.name);
  if (account === undefined) throw new AuthenticationFailure(`serviceaccounts ${goQuote(sa.name)} not found`);
  if (account.uid !== sa.uid) throw new AuthenticationFailure(`service account UID (${account.uid}) does not match claim (${sa.uid})`);
  if (deleted(account)) throw new AuthenticationFailure(`service account ${namespace}/${sa.name} has been deleted`);

  const extra: Record<string, string[]> = {};
  // Each bound object: gone, then another object (uid), then deleted, as upstream's validator checks them.
  if (k8s.secret !== undefined) {
    const secret = await getter.secret(namespace, k8s.secret.name ?? '');
    if (secret === undefined) throw new AuthenticationFailure('service account token has been invalidated');
    if (secret.uid !== (k8s.secret.uid ?? '')) throw new AuthenticationFailure(`secret UID (${secret.uid}) does not match service account secret ref claim (${k8s.secret.uid ?? ''})`);
    if (deleted(secret)) throw new AuthenticationFailure('service account token has been invalidated');
  }
  if (k8s.pod !== undefined) {
    const pod = await getter.pod(namespace, k8s.pod.name ?? '');
    if (pod === undefined) throw new AuthenticationFailure('service account token has been invalidated');
    if (pod.uid !== (k8s.pod.uid ?? '')) throw new AuthenticationFailure(`pod UID (${pod.uid}) does not match service account pod ref claim (${k8s.pod.uid ?? ''})`);
    if (deleted(pod)) throw new AuthenticationFailure('service account token has been invalidated');
    // ServiceAccountInfo.UserInfo: the pod only when both its name and uid are known.
    if (k8s.pod.name && k8s.pod.uid) {
      extra['authentication.kubernetes.io/pod-name'] = [k8s.pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [k8s.pod.uid];
    }
  }
  if (k8s.node !== undefined) {
    if (k8s.pod === undefined) {
      const node = await getter.node(k8s.node.name ?? '');
      if (node === undefined) throw new AuthenticationFailure('service account token has been invalidated');
      if (node.uid !== (k8s.node.uid ?? '')) throw new AuthenticationFailure(`node UID (${node.uid}) does not match service account node ref claim (${k8s.node.uid ?? ''})`);
      if (deleted(node)) throw new AuthenticationFailure('service account token has been invalidated');
    }
    // The node's uid only with its name (a pod-bound token names just the name of a node that was gone).
    if (k8s.node.name) {
      extra['authentication.kubernetes.io/node-name'] = [k8s.node.name];
      if (k8s.node.uid) extra['authentication.kubernetes.io/node-uid'] = [k8s.node.uid];
    }
  }
  if (typeof claims.jti === 'string' && claims.jti !== '') extra[credentialIdKey] = [`JTI=${claims.jti}`];
  return {
    name: `${serviceAccountUsernamePrefix}${namespace}:${sa.name}`,
    uid: sa.uid,
    groups: [allServiceAccountsGroup, `${allServiceAccountsGroup}:${namespace}`],
    extra,
  };
}

/** The claims of a compact JWS, unverified (to see whose it is), or undefined when it is no JWT. */
function unverifiedClaims(token: string): Claims | undefined {
  if (token.trim().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    return typeof claims === 'object' && claims !== null && !Array.isArray(claims) ? (claims as Claims) : undefined;
  } catch {
    return undefined;
  }
}

function unverifiedKeyId(token: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { kid?: unknown };
    return typeof header.kid === 'string' && header.kid !== '' ? header.kid : undefined;
  } catch {
    return undefined;
  }
}

/** The claims, once one of the keys verifies the signature; the failures of each key otherwise. */
async function verifiedClaims(token: string, keys: readonly VerificationKey[]): Promise<Claims> {
  const failures: string[] = [];
  for (const { key, algorithm } of keys) {
    try {
      const { payload } = await compactVerify(token, key, { algorithms: [algorithm] });
      return JSON.parse(new TextDecoder().decode(payload)) as Claims;
    } catch {
      failures.push('go-jose/go-jose: error in cryptographic primitive');
    }
  }
  const unique = [...new Set(failures)];
  throw new AuthenticationFailure(unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`);
}

function audiencesOf(aud: unknown): string[] {
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
}

