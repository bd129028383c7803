// OpenID Connect ID tokens (`--oidc-issuer-url` and the other `--oidc-*` flags), as
// upstream's JWT authenticator (apiserver/plugin/pkg/authenticator/token/oidc) runs the
// legacy flags: a token whose `iss` is the issuer is verified against the issuer's keys
// (found through its discovery document) and its claims mapped to a user; any other token
// is left to the other authenticators.
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { AuthenticationFailure, type TokenAuthenticator } from './authenticate.ts';
import type { UserInfo } from './user.ts';
import { credentialIdKey } from './x509.ts';

export interface OidcOptions {
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
  /** GETs a URL of the issuer (over its CA, `--oidc-ca-file`) and parses its JSON. */
  fetchJson(url: string): Promise<unknown>;
  log(message: string): void;
  now?: () => number;
}

/** go-oidc tolerates five minutes of clock skew on nbf. */
const nbfLeewaySeconds = 300;
/** A key set is fetched again for an unknown key at most this often. */
const refetchMs = 10_000;
/** The discovery document is tried again this often until it answers, as upstream's poll. */
const discoveryRetryMs = 10_000;

export interface OidcAuthenticator {
  authenticate: TokenAuthenticator;
  /** Reads the discovery document (retrying until it answers) and the keys; resolves once ready or closed. */
  start(): Promise<void>;
  close(): void;
}

/**
 * The username prefix the legacy flags mean: the issuer and `#` before any claim but
 * `email`, unless a prefix was given; `-` for none (upstream's options/authentication.go).
 */
export function usernamePrefixOf(opts: Pick<OidcOptions, 'issuerUrl' | 'usernameClaim' | 'usernamePrefix'>): string {
  if (opts.usernamePrefix === '-') return '';
  if ((opts.usernamePrefix ?? '') === '' && opts.usernameClaim !== 'email') return `${opts.issuerUrl}#`;
  return opts.usernamePrefix ?? '';
}

export function oidcAuthenticator(opts: OidcOptions): OidcAuthenticator {
  const now = opts.now ?? (() => Date.now());
  const usernamePrefix = usernamePrefixOf(opts);
  let jwksUri: string | undefined;
  let keys: ReturnType<typeof createLocalJWKSet> | undefined;
  let fetchedAt = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  const fetchKeys = async (): Promise<void> => {
    fetchedAt = now();
    keys = createLocalJWKSet((await opts.fetchJson(jwksUri!)) as JSONWebKeySet);
  };

  const discover = async (): Promise<void> => {
    const wellKnown = `${opts.issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const document = (await opts.fetchJson(wellKnown)) as { issuer?: unknown; jwks_uri?: unknown };
    if (document.issuer !== opts.issuerUrl) {
      throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(opts.issuerUrl)} got ${JSON.stringify(document.issuer)}`);
    }
    if (typeof document.jwks_uri !== 'string') throw new Error('oidc: the discovery document names no jwks_uri');
    jwksUri = document.jwks_uri;
    await fetchKeys();
  };

  const verifySignature = async (token: string): Promise<Uint8Array> => {
    const attempt = () => compactVerify(token, keys!, { algorithms: [...opts.signingAlgs] });
    try {
      return (await attempt()).payload;
    } catch (err) {
      const code = (err as { code?: string }).code;
      // A key the cached set does not have: the issuer may have rotated; fetch it again, not too often.
      if ((code === 'ERR_JWKS_NO_MATCHING_KEY' || code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') && now() - fetchedAt >= refetchMs) {
        await fetchKeys();
        return (await attempt()).payload;
      }
      throw err;
    }
  };

  const authenticate: TokenAuthenticator = (token) => {
    if (issuerOf(token) !== opts.issuerUrl) return undefined;
    if (keys === undefined) throw new AuthenticationFailure('oidc: authenticator not initialized');
    return (async () => {
      let payload: Uint8Array;
      try {
        payload = await verifySignature(token);
      } catch (err) {
        throw new AuthenticationFailure(`oidc: verify token: ${joseMessage(err, opts.signingAlgs)}`);
      }
      const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
      checkTimesAndAudience(claims, opts, now());
      return { user: userOf(claims, opts, usernamePrefix) };
    })();
  };

  return {
    authenticate,
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
  };
}

/** The token's `iss`, read without verifying anything (upstream's hasCorrectIssuer); undefined for no JWT. */
function issuerOf(token: string): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { iss?: unknown };
    return typeof claims.iss === 'string' ? claims.iss : undefined;
  } catch {
    return undefined;
  }
}

function joseMessage(err: unknown, algs: readonly string[]): string {
  const code = (err as { code?: string }).code;
  if (code === 'ERR_JOSE_ALG_NOT_ALLOWED') return `oidc: id token signed with unsupported algorithm, expected ${goList(algs)}`;
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' || code === 'ERR_JWKS_NO_MATCHING_KEY') return 'failed to verify signature: failed to verify id token signature';
  return `oidc: malformed jwt: ${(err as Error).message}`;
}

/** Go's %q of a string slice: `["a" "b"]`. */
function goList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** go-oidc's checks after the signature: audience (any of the client's), expiry, not-before. */
function checkTimesAndAudience(claims: Record<string, unknown>, opts: OidcOptions, nowMs: number): void {
  const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === 'string') : [];
  if (!aud.includes(opts.clientId)) throw new AuthenticationFailure(`oidc: verify token: oidc: expected audience in ${goList([opts.clientId])} got ${goList(aud)}`);
  const seconds = nowMs / 1000;
  if (typeof claims.exp !== 'number' || claims.exp <= seconds) throw new AuthenticationFailure('oidc: verify token: oidc: token is expired');
  if (typeof claims.nbf === 'number' && seconds + nbfLeewaySeconds < claims.nbf) {
    throw new AuthenticationFailure('oidc: verify token: oidc: current time before the nbf (not before) time');
  }
}

/** The user the claims name, as upstream's getUsername, getGroups and getExtra, then the required claims. */
function userOf(claims: Record<string, unknown>, opts: OidcOptions, usernamePrefix: string): UserInfo {
  const username = claims[opts.usernameClaim];
  if (typeof username !== 'string') {
    const why = username === undefined ? 'claim not present' : `json: cannot unmarshal ${goKind(username)} into Go value of type string`;
    throw new AuthenticationFailure(`oidc: parse username claims ${JSON.stringify(opts.usernameClaim)}: ${why}`);
  }
  if (opts.usernameClaim === 'email' && Object.hasOwn(claims, 'email_verified')) {
    if (typeof claims.email_verified !== 'boolean') throw new AuthenticationFailure(`oidc: parse 'email_verified' claim: json: cannot unmarshal ${goKind(claims.email_verified)} into Go value of type bool`);
    if (!claims.email_verified) throw new AuthenticationFailure('oidc: email not verified');
  }
  let groups: string[] = [];
  if (opts.groupsClaim !== undefined && opts.groupsClaim !== '' && Object.hasOwn(claims, opts.groupsClaim)) {
    const value = claims[opts.groupsClaim];
    const list = typeof value === 'string' ? [value] : Array.isArray(value) && value.every((g) => typeof g === 'string') ? (value as string[]) : undefined;
    if (list === undefined) throw new AuthenticationFailure(`oidc: parse groups claim ${JSON.stringify(opts.groupsClaim)}: json: cannot unmarshal ${goKind(value)} into Go value of type string`);
    groups = list.map((g) => (opts.groupsPrefix ?? '') + g);
  }
  for (const [claim, want] of Object.entries(opts.requiredClaims)) {
    if (!Object.hasOwn(claims, claim)) throw new AuthenticationFailure(`oidc: required claim ${claim} not present in ID token`);
    const got = claims[claim];
    if (typeof got !== 'string') throw new AuthenticationFailure(`oidc: parse claim ${claim}: json: cannot unmarshal ${goKind(got)} into Go value of type string`);
    if (got !== want) throw new AuthenticationFailure(`oidc: required claim ${claim} value does not match. Got = ${got}, want = ${want}`);
  }
  const user: UserInfo = { name: usernamePrefix + username, uid: '', groups };
  if (typeof claims.jti === 'string') user.extra = { [credentialIdKey]: [`JTI=${claims.jti}`] };
  return user;
}

/** The JSON kind Go's decoder names in its type errors. */
function goKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value;
}
