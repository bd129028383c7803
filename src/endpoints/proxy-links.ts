// What kube-apiserver's proxy transport (apimachinery's proxy.Transport, which pods/proxy,
// services/proxy and nodes/proxy wrap around the backend) does to an answer on its way
// back: a redirect to the backend itself becomes a path under the proxy, and so do the
// links of an HTML page (`text/html`, plain, gzip or raw deflate): every start tag is read
// with Go's HTML tokenizer and written again as Go writes a token, its URL attributes
// (upstream's list: `a href`, `img src`, `form action` …) rewritten; the rest of the page
// passes as it came. CSS URLs in style elements stay, as upstream leaves them.

import { posix } from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { htmlTokens, startTagString } from '../encoding/html-tokens.ts';

/** Which attributes of which elements name URLs (upstream's atomsToAttrs). */
const urlAttributes: ReadonlyMap<string, ReadonlySet<string>> = new Map(Object.entries({
  a: ['href'], applet: ['codebase'], area: ['href'], audio: ['src'], base: ['href'], blockquote: ['cite'],
  body: ['background'], button: ['formaction'], command: ['icon'], del: ['cite'], embed: ['src'], form: ['action'],
  frame: ['longdesc', 'src'], head: ['profile'], html: ['manifest'], iframe: ['longdesc', 'src'],
  img: ['longdesc', 'src', 'usemap'], input: ['src', 'usemap', 'formaction'], ins: ['cite'], link: ['href'],
  object: ['classid', 'codebase', 'data', 'usemap'], q: ['cite'], script: ['src'], source: ['src'], video: ['poster', 'src'],
}).map(([element, names]) => [element, new Set(names)]));

/** Go's path.Join: the non-empty elements joined and cleaned; nothing when all are empty. */
export function goPathJoin(...elements: string[]): string {
  const joined = elements.filter((e) => e !== '').join('/');
  if (joined === '') return '';
  const cleaned = posix.normalize(joined);
  return cleaned.length > 1 && cleaned.endsWith('/') ? cleaned.slice(0, -1) : cleaned;
}

/** Where the proxy is: its path prefix, and the request it passed on (for which hosts are the backend's). */
export interface ProxyPlace {
  /** The path up to and including `proxy` (`/api/v1/namespaces/ns/pods/web/proxy`). */
  prefix: string;
  /** The URL the backend was asked for. */
  backend: URL;
  /** The Host the caller asked this server by ('' when none). */
  requestHost: string;
}

/**
 * A URL the backend answered (a redirect, a link), as upstream's rewriteURL makes it: one to
 * another host, or relative, as it came; one to the backend itself (or to the server's own
 * host) a path under the proxy's prefix, without scheme and host.
 */
export function proxiedUrl(target: string, place: ProxyPlace): string {
  let url: URL;
  try {
    url = new URL(target, 'relative:/');
  } catch {
    return target;
  }
  const host = url.host;
  // Go's URL path: what follows the scheme and authority (`http://pod:80` has none, and is left alone).
  const path = target.replace(/^[a-z][a-z0-9+.-]*:/i, '').replace(/^\/\/[^/?#]*/, '');
  if ((host !== '' && host !== place.backend.host && host !== place.requestHost) || !path.startsWith('/')) return target;
  // The server's own host stays named; the backend's is dropped, leaving a path on the server.
  const origin = host !== '' && host === place.requestHost ? `${url.protocol}//${host}` : '';
  const tail = `${url.search}${url.hash}`;
  if (url.pathname.startsWith(place.prefix)) return `${origin}${url.pathname}${tail}`;
  return `${origin}${goPathJoin(place.prefix, url.pathname)}${url.pathname.endsWith('/') ? '/' : ''}${tail}`;
}

/** An HTML page with the URLs of its tags made by `rewrite`, every start tag written as Go writes it. */
export function rewriteHtmlLinks(html: Uint8Array, rewrite: (url: string) => string): Buffer {
  const parts: (Uint8Array | string)[] = [];
  for (const token of htmlTokens(html)) {
    if (token.type !== 'startTag' && token.type !== 'selfClosingTag') {
      parts.push(token.raw);
      continue;
    }
    const names = urlAttributes.get(token.name);
    const attributes = names === undefined ? token.attributes
      : token.attributes.map((a) => (names.has(a.key) ? { key: a.key, value: rewrite(a.value) } : a));
    parts.push(startTagString(token.name, attributes, token.type === 'selfClosingTag'));
  }
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)));
}

/** Whether upstream's transport rewrites an answer of this Content-Type (its media type exactly `text/html`). */
export function isHtml(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';', 1)[0]!.trim() === 'text/html';
}

const gunzip = promisify(zlib.gunzip);
const gzip = promisify(zlib.gzip);
const inflateRaw = promisify(zlib.inflateRaw);
const deflateRaw = promisify(zlib.deflateRaw);

/**
 * How large a page may be, read or decompressed (upstream reads any size into memory): a
 * larger one is refused rather than taking the server's memory.
 */
export const maxPageBytes = 256 * 1024 * 1024;

/** A failure rewriting a page, in Go's words; the proxy answers it as an unclassified 500. */
export class RewriteError extends Error {}

/**
 * The HTML body with its links rewritten, in the Content-Encoding it came in (gzip, or
 * deflate read as Go's compress/flate reads it: raw); undefined for an encoding upstream
 * does not read, which passes as it came.
 */
export async function rewrittenHtmlBody(body: Buffer, encoding: string, rewrite: (url: string) => string, maxInflated = maxPageBytes): Promise<Buffer | undefined> {
  if (encoding === '') return rewriteHtmlLinks(body, rewrite);
  const inflateLimit = { maxOutputLength: maxInflated };
  if (encoding === 'gzip') {
    // gzip.NewReader reads the header at once: an empty or foreign body fails there.
    if (body.length === 0) throw new RewriteError('errorf making gzip reader: EOF');
    if (body.length < 10) throw new RewriteError('errorf making gzip reader: unexpected EOF');
    if (body[0] !== 0x1f || body[1] !== 0x8b || body[2] !== 8) throw new RewriteError('errorf making gzip reader: gzip: invalid header');
    return gzip(rewriteHtmlLinks(await inflated(gunzip(body, inflateLimit), maxInflated), rewrite));
  }
  if (encoding === 'deflate') return deflateRaw(rewriteHtmlLinks(await inflated(inflateRaw(body, inflateLimit), maxInflated), rewrite), { level: zlib.constants.Z_BEST_COMPRESSION });
  return undefined;
}

/** The inflated bytes, or the failure in Go's words where they are known. */
async function inflated(inflating: Promise<Buffer>, maxInflated: number): Promise<Buffer> {
  try {
    return await inflating;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'Z_BUF_ERROR') throw new RewriteError('unexpected EOF');
    if (code === 'ERR_BUFFER_TOO_LARGE') throw new RewriteError(`the page inflates past ${maxInflated} bytes`);
    if ((err as Error).message === 'incorrect data check') throw new RewriteError('gzip: invalid checksum');
    throw new RewriteError((err as Error).message);
  }
}
