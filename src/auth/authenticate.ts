// Authentication: who a request's credentials (bearer token, client certificate) name, composed as kube-apiserver composes its authenticators.
import { hash } from 'node:crypto';
import { systemAuthenticated, type UserInfo } from './user.ts';

/** What an authenticator may look at: the request's headers and the TLS client certificate. */
export interface AuthenticationRequest {
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The client certificate the TLS handshake received, with the handshake's verdict on it. */
  clientCertificate?: ClientCertificate;
  /** The audiences the credential must be meant for; the API server's own when absent. */
  audiences?: readonly string[];
  /** The request's URL path (anonymous access may be limited to some paths). */
  path?: string;
  /** The headers as received, names and values in turn (a header sent twice is two values). */
  rawHeaders?: readonly string[];
}

/** A TLS peer certificate as Node's getPeerCertificate() and TLSSocket.authorized describe it. */
export interface ClientCertificate {
  /** Whether it chains to the client CA (TLSSocket.authorized, and the chain's root one of the client CA's). */
  verified: boolean;
  /** Whether it chains to the request-header CA (`--requestheader-client-ca-file`): an authenticating proxy's. */
  proxyVerified?: boolean;
  /** Why not, when not verified (TLSSocket.authorizationError). */
  verificationError?: string;
  commonName: string;
  organizations: string[];
  /** Extended key usage OIDs, absent when the certificate has none (then it is good for any use, as Go reads it). */
  extendedKeyUsage?: string[];
  /** SHA-256 of the DER certificate, hex. */
  fingerprint256: string;
}

export interface Authenticated {
  user: UserInfo;
  /** The audiences the credential was accepted for (TokenReview's status.audiences). */
  audiences?: string[];
  /** What the authenticator adds to the request's audit event (upstream's AddAuditAnnotation). */
  auditAnnotations?: Readonly<Record<string, string>>;
  /** Warnings for the caller (a `Warning` header each), as upstream's authenticators add them. */
  warnings?: readonly string[];
}

/**
 * Credentials that name nobody (a bad token, an unverified certificate): 401, whatever
 * else the request carries, as upstream's union with anonymous "fail on error".
 */
export class AuthenticationFailure extends Error {
  /** What the refusing authenticator adds to the request's audit event (upstream's AddAuditAnnotation before it failed). */
  readonly auditAnnotations: Readonly<Record<string, string>> | undefined;

  constructor(message: string, auditAnnotations?: Readonly<Record<string, string>>) {
    super(message);
    this.auditAnnotations = auditAnnotations;
  }
}

/** Several refusals as one: their messages joined, their audit annotations together. */
function joinedFailure(failures: readonly AuthenticationFailure[], first?: string): AuthenticationFailure {
  const annotations = Object.assign({}, ...failures.map((f) => f.auditAnnotations ?? {})) as Record<string, string>;
  return new AuthenticationFailure(aggregate([...(first === undefined ? [] : [first]), ...failures.map((f) => f.message)]), Object.keys(annotations).length > 0 ? annotations : undefined);
}

/**
 * As upstream's authenticator.Request: the user the request's credentials name,
 * undefined when it carries none this authenticator reads, or an AuthenticationFailure
 * thrown when it carries some that are not valid.
 */
export type Authenticator = (request: AuthenticationRequest) => Answer;

/** As upstream's authenticator.Token: the same for a bearer token. */
export type TokenAuthenticator = (token: string, audiences: readonly string[] | undefined) => Answer;

/**
 * Who the credentials name (undefined: they name nobody), at once when the authenticator
 * knows without waiting (a token table, a certificate), else as a promise (a lookup).
 * Failures are thrown or rejected alike: callers `await` the answer in a `try`. Answers
 * at once take no promise per layer: the layers were ~11 of a get's ~50 promises.
 */
export type Answer = Authenticated | undefined | Promise<Authenticated | undefined>;

/** `next` applied to an answer, at once when the answer is there. */
function afterAnswer(answer: Answer, next: (found: Authenticated | undefined) => Answer): Answer {
  return answer instanceof Promise ? answer.then(next) : next(answer);
}

/**
 * The first of `count` attempts that names someone: one that names nobody, or fails with
 * AuthenticationFailure (its message kept in `failures`), passes to the next; any other
 * error ends the search. Synchronous while the attempts answer at once.
 */
function firstRecognised(count: number, attempt: (i: number) => Answer, failures: AuthenticationFailure[], from = 0): Answer {
  for (let i = from; i < count; i++) {
    let found: Answer;
    try {
      found = attempt(i);
    } catch (err) {
      if (!(err instanceof AuthenticationFailure)) throw err;
      failures.push(err);
      continue;
    }
    if (found instanceof Promise) {
      return found.then(
        (value) => (value !== undefined ? value : firstRecognised(count, attempt, failures, i + 1)),
        (err: unknown) => {
          if (!(err instanceof AuthenticationFailure)) throw err;
          failures.push(err);
          return firstRecognised(count, attempt, failures, i + 1);
        },
      );
    }
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * A static token table (`--token-auth-file`). Tokens are looked up by their SHA-256
 * digest, so how long a lookup takes says nothing about how much of a guessed token was right.
 */
export function tokenFileAuthenticator(tokens: Map<string, UserInfo>): TokenAuthenticator {
  const byDigest = new Map<string, UserInfo>();
  for (const [token, user] of tokens) {
    byDigest.set(digest(token), Object.freeze({ name: user.name, uid: user.uid, groups: Object.freeze([...user.groups]) as string[] }));
  }
  return (token) => {
    const user = byDigest.get(digest(token));
    return user === undefined ? undefined : { user };
  };
}

/**
 * A token that knows no audiences (static tokens) is good for the API server's own
 * audiences only, as upstream's WrapAudienceAgnosticToken: when the requested audiences
 * share none with them, it is not recognised.
 */
export function audienceAgnostic(apiAudiences: readonly string[], authenticate: TokenAuthenticator): TokenAuthenticator {
  return (token, audiences) => {
    const wanted = audiences ?? apiAudiences;
    const common = apiAudiences.filter((a) => wanted.includes(a));
    if (apiAudiences.length > 0 && common.length === 0) return undefined;
    return afterAnswer(authenticate(token, audiences), (found) => (found === undefined ? undefined : { ...found, audiences: common }));
  };
}

/**
 * Several token authenticators, as upstream's token union: the first that recognises
 * the token answers; when none does, the failures of those that refused it are joined.
 */
export function unionTokenAuthenticator(authenticators: readonly TokenAuthenticator[]): TokenAuthenticator {
  return (token, audiences) => {
    const failures: AuthenticationFailure[] = [];
    return afterAnswer(firstRecognised(authenticators.length, (i) => authenticators[i]!(token, audiences), failures), (found) => {
      if (found !== undefined) return found;
      if (failures.length > 0) throw joinedFailure(failures);
      return undefined;
    });
  };
}

/**
 * `Authorization: Bearer <token>`, read like k8s.io/apiserver's bearertoken authenticator:
 * trimmed, the scheme word compared case-insensitively, the token being what follows the
 * first space up to the next one. A bearer token nobody recognises is `invalid bearer token`.
 */
export function bearerTokenAuthenticator(authenticate: TokenAuthenticator): Authenticator {
  const refused = (err: unknown): never => {
    if (err instanceof AuthenticationFailure) throw joinedFailure([err], 'invalid bearer token');
    throw err;
  };
  const recognised = (found: Authenticated | undefined): Authenticated => {
    if (found === undefined) throw new AuthenticationFailure('invalid bearer token');
    return found;
  };
  return (request) => {
    const token = bearerToken(headerValue(request.headers.authorization));
    if (token === undefined) return undefined;
    let found: Answer;
    try {
      found = authenticate(token, request.audiences);
    } catch (err) {
      return refused(err);
    }
    return found instanceof Promise ? found.then(recognised, refused) : recognised(found);
  };
}

/** The token of an `Authorization: Bearer <token>` header, or undefined for any other header. */
export function bearerToken(authorizationHeader: string | undefined): string | undefined {
  const auth = authorizationHeader?.trim() ?? '';
  if (auth === '') return undefined;
  const parts = auth.split(' ', 3);
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer') return undefined;
  const token = parts[1]!;
  return token === '' ? undefined : token;
}

export interface RequestAuthenticatorOptions {
  /** In upstream's order: client certificates, then bearer tokens. */
  authenticators: readonly Authenticator[];
  /**
   * `--anonymous-auth`, or an authentication configuration's `anonymous`: a request with no
   * credentials is system:anonymous; with `paths`, only a request for one of them.
   */
  anonymous: boolean | { paths: ReadonlySet<string> };
}

export const anonymousUser: UserInfo = Object.freeze({ name: 'system:anonymous', uid: '', groups: Object.freeze(['system:unauthenticated']) as string[] });

/**
 * The API server's authenticator, as kube-apiserver builds it: the union of the
 * request authenticators (the first that names a user wins), `system:authenticated`
 * added to whoever they name (the authenticated group adder), and, when no
 * credentials were presented at all, system:anonymous if allowed. Credentials that
 * fail are a failure even when anonymous access is on.
 */
export function requestAuthenticator(opts: RequestAuthenticatorOptions): Authenticator {
  const { authenticators } = opts;
  return (request) => {
    const failures: AuthenticationFailure[] = [];
    return afterAnswer(firstRecognised(authenticators.length, (i) => authenticators[i]!(request), failures), (found) => {
      if (found !== undefined) return { ...found, user: withAuthenticatedGroup(found.user) };
      if (failures.length > 0) throw joinedFailure(failures);
      return anonymousAllowed(opts.anonymous, request.path) ? { user: anonymousUser } : undefined;
    });
  };
}

/** Upstream's anonymous authenticator: every path, or only those its conditions name. */
function anonymousAllowed(anonymous: RequestAuthenticatorOptions['anonymous'], path: string | undefined): boolean {
  if (typeof anonymous === 'boolean') return anonymous;
  return anonymous.paths.size === 0 || (path !== undefined && anonymous.paths.has(path));
}

/** `system:authenticated` added unless present, or unless the user is anonymous or already names the unauthenticated group. */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === anonymousUser.name || user.groups.includes(systemAuthenticated) || user.groups.includes('system:unauthenticated')) return user;
  // A static token's user is the same frozen object on every request: so is the result.
  let added = withGroupAdded.get(user);
  if (added === undefined) {
    added = { ...user, groups: [...user.groups, systemAuthenticated] };
    if (Object.isFrozen(user)) Object.freeze(added.groups);
    withGroupAdded.set(user, Object.isFrozen(user) ? Object.freeze(added) : added);
  }
  return added;
}

const withGroupAdded = new WeakMap<UserInfo, UserInfo>();

/** Go's utilerrors.NewAggregate(...).Error(): one message as it is, several as `[a, b]`. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages.flatMap((m) => (m.startsWith('[') && m.endsWith(']') ? m.slice(1, -1).split(', ') : [m])))];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function digest(token: string): string {
  // One-shot: a quarter of the cost of a Hash object per request.
  return hash('sha256', token, 'base64');
}
