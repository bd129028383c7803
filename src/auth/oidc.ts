// JWT authenticators: ID tokens of an OpenID Connect issuer, as upstream's JWT authenticator
// (apiserver/plugin/pkg/authenticator/token/oidc) runs one entry of an
// AuthenticationConfiguration's `jwt` list, or the legacy `--oidc-*` flags turned into one.
// A token whose `iss` is the issuer is verified against the issuer's keys (found through its
// discovery document) and its claims mapped to a user; any other token is left to the other
// authenticators. Expressions (CEL) arrive compiled: this layer only calls them.
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { AuthenticationFailure, type TokenAuthenticator } from './authenticate.ts';
import type { UserInfo } from './user.ts';
import { credentialIdKey } from './x509.ts';

/**
 * A compiled expression and its source. `evaluate` takes the token's claims (or, for user
 * validation rules, the user as authentication.k8s.io's UserInfo) as decoded JSON and
 * answers the expression's value, or throws an Error whose message says why it could not.
 */
export interface CompiledExpression {
  expression: string;
  evaluate(input: Readonly<Record<string, unknown>>): unknown;
}

/** A claim (with its prefix, applied when not empty) or an expression. */
export type PrefixedClaimOrExpression = { claim: string; prefix: string } | { expression: CompiledExpression };

/** One JWT authenticator, validated: upstream's apiserver.JWTAuthenticator with its expressions compiled. */
export interface JwtAuthenticatorSpec {
  issuer: {
    url: string;
    /** Where the discovery document is read instead of `<url>/.well-known/openid-configuration`. */
    discoveryURL?: string;
    /** A token must be meant for any one of them. */
    audiences: readonly string[];
  };
  /** Claim validation rules naming a claim: it must be present with this string value. */
  requiredClaims: Readonly<Record<string, string>>;
  /** Claim validation rules as expressions of `claims`; false refuses the token with the message. */
  claimValidationRules: readonly (CompiledExpression & { message: string })[];
  username: PrefixedClaimOrExpression;
  groups?: PrefixedClaimOrExpression;
  uid?: { claim: string } | { expression: CompiledExpression };
  /** Extra attributes, each an expression of `claims` giving a string or a list of strings. */
  extra: readonly (CompiledExpression & { key: string })[];
  /** Expressions of `user`, checked once the user is mapped; false refuses the token with the message. */
  userValidationRules: readonly (CompiledExpression & { message: string })[];
}

export interface JwtAuthenticatorOptions {
  /** The algorithms a token may be signed with. */
  signingAlgs: readonly string[];
  /** GETs a URL of the issuer (over its CA) and parses its JSON. */
  fetchJson(url: string): Promise<unknown>;
  log(message: string): void;
  now?: () => number;
  /** A token of the issuer was authenticated or refused, in `seconds` (upstream's latency metric). */
  observe?(result: 'success' | 'failure', seconds: number): void;
  /** The issuer's key set was fetched (with it) or could not be. */
  keysFetched?(result: 'success' | 'failure', keySet?: unknown): void;
  /**
   * GETs a distributed claim's endpoint (with its access token as a bearer token) and answers
   * the JWT it returns; rejects with Go's words (`Get "…": …`, `error while getting distributed
   * claim JWT: 404 Not Found`). Without it, distributed claims are not resolved.
   */
  fetchClaimToken?(url: string, accessToken: string | undefined): Promise<string>;
}

/** The algorithms an ID token may be signed with (upstream's allow-list). */
export const allSigningAlgs: readonly string[] = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512'];

/** The `--oidc-*` flags, as kube-apiserver takes them (but the CA file, read by the caller). */
export interface OidcFlags {
  issuerUrl: string;
  clientId: string;
  /** Default `sub`. */
  usernameClaim: string;
  /** As the flag was given (undefined when it was not): `-` for none. */
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  /** `--oidc-required-claim key=value`: each must be present with that string value. */
  requiredClaims: Readonly<Record<string, string>>;
  /** `--oidc-signing-algs`, default RS256. */
  signingAlgs: readonly string[];
}

/**
 * The username prefix the legacy flags mean: the issuer and `#` before any claim but
 * `email`, unless a prefix was given; `-` for none (upstream's options/authentication.go).
 */
export function usernamePrefixOf(flags: Pick<OidcFlags, 'issuerUrl' | 'usernameClaim' | 'usernamePrefix'>): string {
  if (flags.usernamePrefix === '-') return '';
  if ((flags.usernamePrefix ?? '') === '' && flags.usernameClaim !== 'email') return `${flags.issuerUrl}#`;
  return flags.usernamePrefix ?? '';
}

/** The JWT authenticator the legacy flags describe, as upstream builds it from them. */
export function specOfFlags(flags: OidcFlags): JwtAuthenticatorSpec {
  return {
    issuer: { url: flags.issuerUrl, audiences: [flags.clientId] },
    requiredClaims: flags.requiredClaims,
    claimValidationRules: [],
    username: { claim: flags.usernameClaim, prefix: usernamePrefixOf(flags) },
    ...((flags.groupsClaim ?? '') !== '' ? { groups: { claim: flags.groupsClaim!, prefix: flags.groupsPrefix ?? '' } } : {}),
    extra: [],
    userValidationRules: [],
  };
}

/** go-oidc tolerates five minutes of clock skew on nbf. */
const nbfLeewaySeconds = 300;
/** A key set is fetched again for an unknown key at most this often. */
const refetchMs = 10_000;
/** The discovery document is tried again this often until it answers, as upstream's poll. */
const discoveryRetryMs = 10_000;

export interface JwtAuthenticator {
  issuer: string;
  authenticate: TokenAuthenticator;
  /** Whether the issuer's keys are known (upstream's HealthCheck). */
  ready(): boolean;
  /** Reads the discovery document (retrying until it answers) and the keys; resolves once ready or closed. */
  start(): Promise<void>;
  close(): void;
}

/** An issuer's keys, found through its discovery document and fetched again (not too often) for a key they lack. */
interface IssuerKeys {
  ready(): boolean;
  /** Reads the discovery document (retrying until it answers) and the keys; resolves once ready or closed. */
  start(): Promise<void>;
  close(): void;
  /** Rejects with jose's error when the signature does not verify. */
  verifySignature(token: string): Promise<void>;
}

function issuerKeys(issuer: string, discoveryURL: string | undefined, opts: JwtAuthenticatorOptions, keysFetched = opts.keysFetched): IssuerKeys {
  const now = opts.now ?? (() => Date.now());
  let jwksUri: string | undefined;
  let keys: ReturnType<typeof createLocalJWKSet> | undefined;
  let fetchedAt = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const fetchKeys = async (): Promise<void> => {
    fetchedAt = now();
    let keySet: unknown;
    try {
      keySet = await opts.fetchJson(jwksUri!);
      keys = createLocalJWKSet(keySet as JSONWebKeySet);
    } catch (err) {
      keysFetched?.('failure');
      throw err;
    }
    keysFetched?.('success', keySet);
  };

  const discover = async (): Promise<void> => {
    const wellKnown = discoveryURL ?? `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const document = (await opts.fetchJson(wellKnown)) as { issuer?: unknown; jwks_uri?: unknown };
    if (document.issuer !== issuer) {
      throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(issuer)} got ${JSON.stringify(document.issuer)}`);
    }
    if (typeof document.jwks_uri !== 'string') throw new Error('oidc: the discovery document names no jwks_uri');
    jwksUri = document.jwks_uri;
    await fetchKeys();
  };

  return {
    ready: () => keys !== undefined,
    async start() {
      while (!closed) {
        try {
          await discover();
          return;
        } catch (err) {
          opts.log(`oidc authenticator: initializing plugin: ${(err as Error).message}`);
          if (closed) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, discoveryRetryMs);
          });
        }
      }
    },
    close() {
      closed = true;
      clearTimeout(timer);
      wake?.();
    },
    async verifySignature(token) {
      const attempt = () => compactVerify(token, keys!, { algorithms: [...opts.signingAlgs] });
      try {
        await attempt();
      } catch (err) {
        const code = (err as { code?: string }).code;
        // A key the cached set does not have: the issuer may have rotated; fetch it again, not too often.
        if ((code === 'ERR_JWKS_NO_MATCHING_KEY' || code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') && now() - fetchedAt >= refetchMs) {
          await fetchKeys();
          await attempt();
          return;
        }
        throw err;
      }
    },
  };
}

/**
 * go-oidc's Verify of a token's claims and signature, its error as go-oidc words it: the
 * claims' checks first (cheap, before any key is fetched), then the algorithm and the signature.
 */
async function verifyToken(token: string, claims: Record<string, unknown>, audiences: readonly string[], keys: IssuerKeys, opts: JwtAuthenticatorOptions): Promise<string | undefined> {
  const failure = checkAudience(claims, audiences) ?? checkTimes(claims, (opts.now ?? Date.now)());
  if (failure !== undefined) return failure;
  const alg = algorithmOf(token);
  if (alg === undefined) return 'oidc: malformed jwt: the header is not JSON';
  if (!opts.signingAlgs.includes(alg)) return `oidc: id token signed with unsupported algorithm, expected ${goList(opts.signingAlgs)} got ${JSON.stringify(alg)}`;
  try {
    await keys.verifySignature(token);
  } catch (err) {
    return joseMessage(err);
  }
  return undefined;
}

export function jwtAuthenticator(spec: JwtAuthenticatorSpec, opts: JwtAuthenticatorOptions): JwtAuthenticator {
  const issuer = spec.issuer.url;
  const keys = issuerKeys(issuer, spec.issuer.discoveryURL, opts);
  // Distributed claims' issuers other than this one, verified by their own keys (read on first use).
  const others = new Map<string, IssuerKeys>();
  const keysOf = (other: string): IssuerKeys | undefined => {
    if (other === issuer) return keys;
    let found = others.get(other);
    if (found === undefined) {
      others.set(other, (found = issuerKeys(other, undefined, opts, () => {})));
      void found.start();
    }
    return found.ready() ? found : undefined;
  };

  const authenticate: TokenAuthenticator = (token) => {
    const claims = untrustedClaims(token);
    // Google's legacy issuer without its scheme counts as the one with it, as upstream's.
    const claimed = claims?.iss === 'accounts.google.com' ? 'https://accounts.google.com' : claims?.iss;
    if (claims === undefined || claimed !== issuer) return undefined;
    const started = performance.now();
    const observed = (result: 'success' | 'failure') => opts.observe?.(result, (performance.now() - started) / 1000);
    if (!keys.ready()) {
      observed('failure');
      throw new AuthenticationFailure('oidc: authenticator not initialized');
    }
    return (async () => {
      try {
        const sourceMissing = distributedSourcesMissing(claims);
        const failure = sourceMissing ?? await verifyToken(token, claims, spec.issuer.audiences, keys, opts);
        if (failure !== undefined) throw new AuthenticationFailure(`oidc: verify token: ${failure}`);
        if (spec.groups !== undefined && 'claim' in spec.groups && opts.fetchClaimToken !== undefined) {
          await expandDistributedClaim(claims, spec.groups.claim, spec.issuer.audiences, keysOf, opts);
        }
        const user = userOf(claims, spec);
        observed('success');
        return { user };
      } catch (err) {
        observed('failure');
        throw err;
      }
    })();
  };

  return {
    issuer,
    authenticate,
    ready: () => keys.ready(),
    start: () => keys.start(),
    close() {
      keys.close();
      for (const other of others.values()) other.close();
    },
  };
}

/** go-oidc's check of `_claim_names` against `_claim_sources`: a name's source must be there. */
function distributedSourcesMissing(claims: Record<string, unknown>): string | undefined {
  const names = claims._claim_names;
  if (names === undefined || names === null) return undefined;
  if (typeof names !== 'object' || Array.isArray(names)) return 'oidc: failed to unmarshal claims: json: cannot unmarshal _claim_names';
  const sources = (claims._claim_sources ?? {}) as Record<string, unknown>;
  for (const source of Object.values(names as Record<string, unknown>)) {
    if (typeof source !== 'string' || source === '') return 'oidc: failed to obtain source from claim name';
    if (typeof sources !== 'object' || sources[source] === undefined) return 'oidc: source does not exist';
  }
  return undefined;
}

/**
 * Upstream's claimResolver.expand for the groups claim: when the token names it only in
 * `_claim_names`, the JWT its source's endpoint answers (asked with the source's access
 * token) is verified as one of its issuer's and its value of the claim taken.
 */
async function expandDistributedClaim(
  claims: Record<string, unknown>, claim: string, audiences: readonly string[], keysOf: (issuer: string) => IssuerKeys | undefined, opts: JwtAuthenticatorOptions,
): Promise<void> {
  const fail = (why: string): never => {
    throw new AuthenticationFailure(`oidc: could not expand distributed claims: ${why}`);
  };
  if (Object.hasOwn(claims, claim)) return;
  const names = claims._claim_names as Record<string, unknown> | undefined;
  if (names === undefined || names === null) return;
  const source = names[claim];
  if (typeof source !== 'string') return;
  const endpoint = ((claims._claim_sources ?? {}) as Record<string, { endpoint?: unknown; access_token?: unknown }>)[source];
  if (endpoint === undefined) return fail(`id token _claim_names contained a source ${source} missing in _claims_sources`);
  // An aggregated claim (a JWT inline) is not supported, as upstream: ignored.
  if (typeof endpoint.endpoint !== 'string' || endpoint.endpoint === '') return;
  const url = endpoint.endpoint;
  let jwt: string;
  try {
    jwt = await opts.fetchClaimToken!(url, typeof endpoint.access_token === 'string' && endpoint.access_token !== '' ? endpoint.access_token : undefined);
  } catch (err) {
    return fail(`while getting distributed claim ${JSON.stringify(claim)}: ${(err as Error).message}`);
  }
  const distributed = untrustedClaims(jwt);
  if (distributed === undefined) return fail(`getting untrusted issuer from endpoint ${url} failed for claim ${JSON.stringify(claim)}: malformed token`);
  const distributedIssuer = typeof distributed.iss === 'string' ? distributed.iss : '';
  const keys = keysOf(distributedIssuer);
  if (keys === undefined) return fail(`verifying untrusted issuer ${distributedIssuer} failed: verifier not initialized for issuer: ${JSON.stringify(distributedIssuer)}`);
  const failure = await verifyToken(jwt, distributed, audiences, keys, opts);
  if (failure !== undefined) return fail(`verify distributed claim token: ${failure}`);
  if (!Object.hasOwn(distributed, claim)) return fail(`jwt returned by distributed claim endpoint ${JSON.stringify(url)} did not contain claim: ${claim}`);
  claims[claim] = distributed[claim];
}

/** The token's claims, read without verifying anything (upstream's untrustedIssuer); undefined for no JWT. */
function untrustedClaims(token: string): Record<string, unknown> | undefined {
  if (token.trimStart().startsWith('{')) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as unknown;
    if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) return undefined;
    return claims as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The `alg` of the token's protected header ('' when it has none; undefined when the header is not JSON). */
function algorithmOf(token: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8')) as { alg?: unknown };
    return typeof header.alg === 'string' ? header.alg : '';
  } catch {
    return undefined;
  }
}

function joseMessage(err: unknown): string {
  const code = (err as { code?: string }).code;
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' || code === 'ERR_JWKS_NO_MATCHING_KEY' || code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') {
    return 'failed to verify signature: failed to verify id token signature';
  }
  return `oidc: malformed jwt: ${(err as Error).message}`;
}

/** Go's %q of a string slice: `["a" "b"]`. */
function goList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/**
 * The audience check: go-oidc's for one audience (the client id), upstream's own for
 * several (any one of them, MatchAny), each with its words.
 */
function checkAudience(claims: Record<string, unknown>, audiences: readonly string[]): string | undefined {
  const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === 'string') : [];
  if (aud.some((a) => audiences.includes(a))) return undefined;
  const expected = audiences.length === 1 ? JSON.stringify(audiences[0]) : `in ${goList([...audiences].sort())}`;
  return `oidc: expected audience ${expected} got ${goList(aud)}`;
}

/** go-oidc's expiry and not-before checks, with its words (times as Go's time.Time prints them, in UTC). */
function checkTimes(claims: Record<string, unknown>, nowMs: number): string | undefined {
  const seconds = nowMs / 1000;
  const exp = typeof claims.exp === 'number' ? claims.exp : undefined;
  if (exp === undefined || exp < seconds) return `oidc: token is expired (Token Expiry: ${goTime(exp)})`;
  if (typeof claims.nbf === 'number' && seconds + nbfLeewaySeconds < claims.nbf) {
    return `oidc: current time ${goTime(seconds)} before the nbf (not before) time: ${goTime(claims.nbf)}`;
  }
  return undefined;
}

/** A Unix time in seconds as Go's time.Time String() prints it in UTC (`2009-11-10 23:00:00 +0000 UTC`); the zero time for none. */
export function goTime(seconds: number | undefined): string {
  if (seconds === undefined) return '0001-01-01 00:00:00 +0000 UTC';
  // Past what a Date holds (±275,760 years): the number itself, rather than an exception.
  if (!Number.isFinite(seconds) || Math.abs(seconds) > 8.64e12) return `${seconds}`;
  const whole = Math.floor(seconds);
  const iso = new Date(whole * 1000).toISOString();
  const nanos = Math.round((seconds - whole) * 1e9);
  const fraction = nanos === 0 ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction} +0000 UTC`;
}

/**
 * The user the claims name, in upstream's order: username, groups, uid, extra; then the
 * required claims, the claim validation rules and the user validation rules.
 */
function userOf(claims: Record<string, unknown>, spec: JwtAuthenticatorSpec): UserInfo {
  const user: UserInfo = { name: usernameOf(claims, spec.username), uid: '', groups: groupsOf(claims, spec.groups) };
  if (spec.uid !== undefined) user.uid = uidOf(claims, spec.uid);
  const extra: Record<string, string[]> = {};
  for (const mapping of spec.extra) {
    // Upstream returns the extra mappings' evaluation error as it is.
    const value = evaluate(mapping, claims, '');
    const values = stringList(value, `oidc: error evaluating extra claim expression: ${mapping.expression}`);
    if (values.length > 0) extra[mapping.key] = values;
  }
  if (typeof claims.jti === 'string') extra[credentialIdKey] = [`JTI=${claims.jti}`];
  if (Object.keys(extra).length > 0) user.extra = extra;
  for (const [claim, want] of Object.entries(spec.requiredClaims)) {
    if (!Object.hasOwn(claims, claim)) throw new AuthenticationFailure(`oidc: required claim ${claim} not present in ID token`);
    const got = claims[claim] === null ? '' : claims[claim];
    if (typeof got !== 'string') throw new AuthenticationFailure(`oidc: parse claim ${claim}: json: cannot unmarshal ${goKind(got)} into Go value of type string`);
    if (got !== want) throw new AuthenticationFailure(`oidc: required claim ${claim} value does not match. Got = ${got}, want = ${want}`);
  }
  checkRules(spec.claimValidationRules, claims, 'oidc: error evaluating claim validation expression');
  if (spec.userValidationRules.length > 0) {
    const userInfo = { username: user.name, uid: user.uid, groups: user.groups, extra: user.extra ?? {} };
    checkRules(spec.userValidationRules, userInfo, 'oidc: error evaluating user info validation rule');
  }
  return user;
}

function usernameOf(claims: Record<string, unknown>, mapping: PrefixedClaimOrExpression): string {
  if ('expression' in mapping) {
    const value = evaluate(mapping.expression, claims, 'oidc: error evaluating username claim expression');
    if (typeof value !== 'string') throw new AuthenticationFailure('oidc: error evaluating username claim expression: username claim expression must return a string');
    return value;
  }
  // Go decodes a null into a string as the empty string, and into a bool as false.
  const username = claims[mapping.claim] === null ? '' : claims[mapping.claim];
  if (typeof username !== 'string') {
    throw new AuthenticationFailure(`oidc: parse username claims ${JSON.stringify(mapping.claim)}: ${unmarshalError(username, 'string')}`);
  }
  if (mapping.claim === 'email' && Object.hasOwn(claims, 'email_verified')) {
    if (claims.email_verified !== null && typeof claims.email_verified !== 'boolean') throw new AuthenticationFailure(`oidc: parse 'email_verified' claim: ${unmarshalError(claims.email_verified, 'bool')}`);
    if (!claims.email_verified) throw new AuthenticationFailure('oidc: email not verified');
  }
  return mapping.prefix + username;
}

function groupsOf(claims: Record<string, unknown>, mapping: PrefixedClaimOrExpression | undefined): string[] {
  if (mapping === undefined) return [];
  if ('claim' in mapping) {
    // A claim that is absent names no groups.
    if (!Object.hasOwn(claims, mapping.claim)) return [];
    const value = claims[mapping.claim];
    if (value === null) return [];
    const list = typeof value === 'string' ? [value] : Array.isArray(value) && value.every((g) => typeof g === 'string') ? (value as string[]) : undefined;
    if (list === undefined) throw new AuthenticationFailure(`oidc: parse groups claim ${JSON.stringify(mapping.claim)}: json: cannot unmarshal ${goKind(value)} into Go value of type string`);
    return list.map((g) => mapping.prefix + g);
  }
  const value = evaluate(mapping.expression, claims, 'oidc: error evaluating group claim expression');
  return stringList(value, 'oidc: error evaluating group claim expression');
}

function uidOf(claims: Record<string, unknown>, mapping: { claim: string } | { expression: CompiledExpression }): string {
  if ('claim' in mapping) {
    const uid = claims[mapping.claim] === null ? '' : claims[mapping.claim];
    if (typeof uid !== 'string') throw new AuthenticationFailure(`oidc: parse uid claim ${JSON.stringify(mapping.claim)}: ${unmarshalError(uid, 'string')}`);
    return uid;
  }
  const value = evaluate(mapping.expression, claims, 'oidc: error evaluating uid claim expression');
  if (typeof value !== 'string') throw new AuthenticationFailure('oidc: error evaluating uid claim expression: uid claim expression must return a string');
  return value;
}

/** The expression's value; one that fails is refused as upstream's mapper words it, after `context` when there is one. */
function evaluate(expression: CompiledExpression, input: Readonly<Record<string, unknown>>, context: string): unknown {
  try {
    return expression.evaluate(input);
  } catch (err) {
    const why = `expression '${expression.expression}' resulted in error: ${(err as Error).message}`;
    throw new AuthenticationFailure(context === '' ? why : `${context}: ${why}`);
  }
}

/**
 * Upstream's convertCELValueToStringList: a string (none when empty), a list of strings
 * (empty ones left out), or null (none); anything else is an error.
 */
function stringList(value: unknown, context: string): string[] {
  if (value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.filter((v) => v !== '');
  throw new AuthenticationFailure(`${context}: expression must return a string or a list of strings`);
}

/** Each rule must be true; the first false one refuses the token with its message, as upstream's checkValidationRulesEvaluation. */
function checkRules(rules: readonly (CompiledExpression & { message: string })[], input: Readonly<Record<string, unknown>>, context: string): void {
  for (const rule of rules) {
    const value = evaluate(rule, input, context);
    if (typeof value !== 'boolean') throw new AuthenticationFailure(`${context}: validation expression must return a boolean`);
    if (!value) throw new AuthenticationFailure(`${context}: validation expression '${rule.expression}' failed: ${rule.message}`);
  }
}

/** encoding/json's error for a claim that is absent or not of the Go type. */
function unmarshalError(value: unknown, goType: string): string {
  return value === undefined ? 'claim not present' : `json: cannot unmarshal ${goKind(value)} into Go value of type ${goType}`;
}

/** The JSON kind Go's decoder names in its type errors. */
function goKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value;
}
