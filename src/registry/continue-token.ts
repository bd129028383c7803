// The continue token of chunked lists, in upstream's shape, read as upstream's storage reads it.
import { posix } from 'node:path';
import { badRequest } from '../api/index.ts';
import { goJsonKind } from '../api/json.ts';
import { goJsonSyntaxError } from '../api/go-json-syntax.ts';

/**
 * The opaque `continue` of a chunked list, in upstream's shape: base64url of
 * {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the list prefix>\u0000"}.
 * `start` is the next key to read, so "\u0000" after the last returned key.
 */
export interface ContinueToken {
  /** The revision the list continues at; negative (upstream's -1): at the latest, as a token answered with an expired one reads. */
  revision: number;
  /** The last key returned, relative to the list prefix. */
  lastKey: string;
}

export function encodeContinue(token: ContinueToken): string {
  const json = JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.revision, start: `${token.lastKey}\u0000` });
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** 400 for a token upstream's storage cannot read (storage.ValidateListOptions and DecodeContinue's words). */
function invalidToken(why: string): never {
  throw badRequest(`invalid continue token: continue key is not valid: ${why}`);
}

const rawUrlBase64 = /^[A-Za-z0-9_-]*$/;

export function decodeContinue(text: string): ContinueToken {
  // Go's base64.RawURLEncoding: the URL alphabet, no padding; a lone last character is no byte.
  const bad = rawUrlBase64.test(text) ? (text.length % 4 === 1 ? text.length - 1 : -1) : text.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0) invalidToken(`illegal base64 data at input byte ${bad}`);
  const bytes = Buffer.from(text, 'base64url');
  const syntax = goJsonSyntaxError(bytes);
  if (syntax !== undefined) invalidToken(syntax);
  const parsed = JSON.parse(bytes.toString('utf8')) as unknown;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    invalidToken(`json: cannot unmarshal ${goJsonKind(parsed)} into Go value of type storage.continueToken`);
  }
  const { v, rv, start } = parsed as { v?: unknown; rv?: unknown; start?: unknown };
  if (v !== undefined && v !== null && typeof v !== 'string') invalidToken(`json: cannot unmarshal ${goJsonKind(v)} into Go struct field continueToken.v of type string`);
  if (rv !== undefined && rv !== null && (typeof rv !== 'number' || !Number.isSafeInteger(rv))) {
    invalidToken(`json: cannot unmarshal ${typeof rv === 'number' ? `number ${rv}` : goJsonKind(rv)} into Go struct field continueToken.rv of type int64`);
  }
  if (start !== undefined && start !== null && typeof start !== 'string') invalidToken(`json: cannot unmarshal ${goJsonKind(start)} into Go struct field continueToken.start of type string`);
  if (v !== 'meta.k8s.io/v1') invalidToken(`server does not recognize this encoded version ${typeof v === 'string' ? v : ''}`);
  if (typeof rv !== 'number' || rv === 0) invalidToken('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof start !== 'string' || start === '') invalidToken('encoded start key empty (version meta.k8s.io/v1)');
  // Against path traversal, as upstream: the key must be its own clean path.
  const key = start.startsWith('/') ? start : `/${start}`;
  if (goCleanPath(key) !== key) invalidToken(start);
  const relative = key.slice(1);
  return { revision: rv, lastKey: relative.endsWith('\u0000') ? relative.slice(0, -1) : relative };
}

/** Go's path.Clean of an absolute path: no `.` or `..` elements, doubled or trailing slashes. */
function goCleanPath(path: string): string {
  const cleaned = posix.normalize(path);
  return cleaned.length > 1 && cleaned.endsWith('/') ? cleaned.slice(0, -1) : cleaned;
}
