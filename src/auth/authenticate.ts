// Bearer-token authentication: who a request's Authorization header names.
import { createHash } from 'node:crypto';
import { systemAuthenticated, type UserInfo } from './user.ts';

/** Who the request's credentials name, or undefined when they name nobody. */
export type Authenticator = (authorizationHeader: string | undefined) => UserInfo | undefined;

/**
 * Authenticates `Authorization: Bearer <token>` against a static token table (for
 * example a parsed token file). The header is read like k8s.io/apiserver's bearertoken
 * authenticator: trimmed, the scheme word compared case-insensitively, the token being
 * what follows the first space up to the next one. The user comes back with
 * `system:authenticated` added, as kube-apiserver's authenticated group adder does.
 *
 * Tokens are looked up by their SHA-256 digest, so how long a lookup takes says nothing
 * about how much of a guessed token was right.
 *
 * Undefined means "not authenticated": the server answers 401 Unauthorized when a
 * request has no usable credentials (there is no anonymous access).
 */
export function bearerAuthenticator(tokens: Map<string, UserInfo>): Authenticator {
  const byDigest = new Map<string, UserInfo>();
  for (const [token, user] of tokens) {
    const groups = user.groups.includes(systemAuthenticated) ? [...user.groups] : [...user.groups, systemAuthenticated];
    byDigest.set(digest(token), Object.freeze({ name: user.name, uid: user.uid, groups: Object.freeze(groups) as string[] }));
  }
  return (authorizationHeader) => {
    const token = bearerToken(authorizationHeader);
    return token === undefined ? undefined : byDigest.get(digest(token));
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

function digest(token: string): string {
  return createHash('sha256').update(token).digest('base64');
}
