// The continue token of chunked lists, in upstream's shape.
import { badRequest } from '../api/index.ts';

/**
 * The opaque `continue` of a chunked list, in upstream's shape: base64url of
 * {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the list prefix>\u0000"}.
 * `start` is the next key to read, so "\u0000" after the last returned key.
 */
export interface ContinueToken {
  revision: number;
  /** The last key returned, relative to the list prefix. */
  lastKey: string;
}

export function encodeContinue(token: ContinueToken): string {
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.revision, start: `${token.lastKey}\u0000` });
  return Buffer.from(json, 'utf8').toString('base64url');
}

export function decodeContinue(text: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data or JSON');
  }
  const { v, rv, start } = (parsed ?? {}) as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== 'meta.k8s.io/v1') throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv <= 0) throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof start !== 'string' || start === '' || start.includes('/..') || start.startsWith('/')) {
    throw badRequest('continue key is not valid: encoded start key is invalid');
  }
  return { revision: rv, lastKey: start.endsWith('\u0000') ? start.slice(0, -1) : start };
}
