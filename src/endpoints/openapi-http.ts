// How kube-openapi's handlers answer over HTTP: the Accept clauses of munnerz/goautoneg and
// Go's http.ServeContent (Last-Modified, If-Match, If-None-Match, If-Modified-Since and
// If-Unmodified-Since), which /openapi/v2 and /openapi/v3 are served through.
import type { HttpRequest, HttpResponse } from './http.ts';

export interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
}

/** strconv.ParseFloat's decimal syntax; anything else is 0, as goautoneg ignores the error. */
const goFloat = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * goautoneg's ParseAccept: comma-separated ranges, each `type/subtype` (a lone `*` is
 * `*\/*`; anything else is skipped), spaces trimmed but case kept, q=0 kept; sorted by q,
 * then a specific type before `*`, a specific subtype before `*`, as Go's sort.Sort does
 * for short slices (insertion sort, its Less as written).
 */
export function goautonegClauses(header: string): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.trim().split(';');
    const pieces = range.split('/');
    const type = pieces[0]!.trim();
    let subtype: string;
    if (pieces.length === 1 && type === '*') subtype = '*';
    else if (pieces.length === 2) subtype = pieces[1]!.trim();
    else continue;
    let q = 1;
    for (const param of params) {
      const eq = param.indexOf('=');
      if (eq < 0 || param.slice(0, eq).trim() !== 'q') continue;
      const value = param.slice(eq + 1);
      q = goFloat.test(value) ? Number(value) : 0;
    }
    clauses.push({ type, subtype, q });
  }
  const less = (a: AcceptClause, b: AcceptClause) => a.q > b.q || (a.type !== '*' && b.type === '*') || (a.subtype !== '*' && b.subtype === '*');
  for (let i = 1; i < clauses.length; i++) {
    for (let j = i; j > 0 && less(clauses[j]!, clauses[j - 1]!); j--) [clauses[j], clauses[j - 1]] = [clauses[j - 1]!, clauses[j]!];
  }
  return clauses;
}

/** The first of `offered` (`type/subtype`) that a clause, taken in order, matches exactly or by `*`, as kube-openapi's handlers pick. */
export function pickOffered<T extends string>(clauses: readonly AcceptClause[], offered: readonly T[]): T | undefined {
  for (const clause of clauses) {
    for (const media of offered) {
      const [type, subtype] = media.split('/') as [string, string];
      if ((clause.type === type || clause.type === '*') && (clause.subtype === subtype || clause.subtype === '*')) return media;
    }
  }
  return undefined;
}

/** The header a filter in front of every handler sets when the handler does not (WithCacheControl). */
export const noCache = { 'Cache-Control': 'no-cache, private' };

/** An answer with no body (Go's WriteHeader alone: a zero Content-Length, no type). */
export function writeEmpty(res: HttpResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...noCache, ...headers, 'Content-Length': 0 });
  res.end();
}

/** An RFC 1123 date as Go's time.RFC1123 writes a UTC time ("UTC", not "GMT"). */
export function rfc1123(date: Date): string {
  return date.toUTCString().replace(/GMT$/, 'UTC');
}

/** Go's scanETag: a strong or weak quoted entity tag at the start of `s`, and what follows it. */
function scanETag(s: string): [string, string] {
  s = s.trim();
  const start = s.startsWith('W/') ? 2 : 0;
  if (s.length - start < 2 || s[start] !== '"') return ['', ''];
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) return [s.slice(0, i + 1), s.slice(i + 1)];
    if (!(c === 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80)) return ['', ''];
  }
  return ['', ''];
}

type Condition = 'none' | 'true' | 'false';

/** Walks an If-Match or If-None-Match list: `*` answers `star`, a tag matching answers `match`. */
function matchList(header: string | undefined, matches: (tag: string) => boolean, star: Condition, match: Condition, otherwise: Condition): Condition {
  if (header === undefined || header === '') return 'none';
  let rest = header;
  for (;;) {
    rest = rest.trim();
    if (rest === '') break;
    if (rest.startsWith(',')) {
      rest = rest.slice(1);
      continue;
    }
    if (rest.startsWith('*')) return star;
    const [tag, remain] = scanETag(rest);
    if (tag === '') break;
    if (matches(tag)) return match;
    rest = remain;
  }
  return otherwise;
}

/** Go's ParseTime: an HTTP date in any of its three forms; undefined when it is none. */
function parseHttpTime(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** Compares a modification time, truncated to the second as Last-Modified carries it, with a header's time. */
function notAfter(modified: Date, header: string | undefined): boolean | undefined {
  const t = parseHttpTime(header);
  if (t === undefined) return undefined;
  return Math.floor(modified.getTime() / 1000) * 1000 <= t;
}

/**
 * Go's http.ServeContent for a body held in memory: Last-Modified from `lastModified`, the
 * preconditions of RFC 7232 against the ETag among `headers` (412 when If-Match or
 * If-Unmodified-Since fails, 304 for a GET or HEAD whose If-None-Match or
 * If-Modified-Since holds: without Content-Type, and without Last-Modified when there is
 * an ETag), then 200 with Accept-Ranges and Content-Length. Range requests are answered whole.
 */
export function serveContent(req: HttpRequest, res: HttpResponse, body: string | Uint8Array, headers: Record<string, string>, lastModified?: Date): void {
  const h: Record<string, string | number> = { ...noCache, ...headers };
  if (lastModified !== undefined) h['Last-Modified'] = lastModified.toUTCString();
  const etag = typeof h.ETag === 'string' ? h.ETag : '';
  const method = req.method ?? 'GET';
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  let precondition = matchList(header('if-match'), (tag) => tag === etag && etag.startsWith('"'), 'true', 'true', 'false');
  if (precondition === 'none' && lastModified !== undefined) {
    const unmodified = notAfter(lastModified, header('if-unmodified-since'));
    precondition = unmodified === undefined ? 'none' : unmodified ? 'true' : 'false';
  }
  if (precondition === 'false') return writeEmpty(res, 412, stringHeaders(h));
  const weak = (tag: string) => tag.replace(/^W\//, '') === etag.replace(/^W\//, '');
  let noneMatch = matchList(header('if-none-match'), weak, 'false', 'false', 'true');
  if (noneMatch === 'none' && lastModified !== undefined && (method === 'GET' || method === 'HEAD')) {
    const unmodified = notAfter(lastModified, header('if-modified-since'));
    if (unmodified === true) noneMatch = 'false';
  }
  if (noneMatch === 'false') {
    if (method !== 'GET' && method !== 'HEAD') return writeEmpty(res, 412, stringHeaders(h));
    delete h['Content-Type'];
    if (etag !== '') delete h['Last-Modified'];
    res.writeHead(304, h);
    res.end();
    return;
  }
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(200, { ...h, 'Accept-Ranges': 'bytes', 'Content-Length': bytes.byteLength });
  res.end(bytes);
}

function stringHeaders(h: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));
}
