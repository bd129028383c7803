// The aggregation layer's proxy: a request for a group and version an APIService names a
// service for is passed, already authenticated and authorized here, to the extension API
// server behind that service, as kube-aggregator's proxy handler passes it: the body and
// the answer streamed (watches too), the user told in
// X-Remote-User, X-Remote-Uid, X-Remote-Group and X-Remote-Extra-* headers over the
// front-proxy client certificate, the caller's own credentials and impersonation headers
// removed. An APIService not available, or a service that cannot be reached, is a plain-text 503.
// An HTTP/1.1 upgrade (a WebSocket, SPDY: a console or an exec an extension server serves)
// is passed on with the user's headers and, once the extension server switches, both
// connections joined, as upstream's proxy passes it.
//
// What is sent is what Go sends: the path unescaped and escaped again and the query
// re-encoded (handler_proxy.go builds a new url.URL from the request's Path and
// Query().Encode()); Go's reverse proxy's hop-by-hop headers dropped and X-Forwarded-For
// appended; apimachinery's proxy transport's X-Forwarded-Uri, -Host and -Proto; the audit
// ID (NewRequestForProxy). What comes back loses the hop-by-hop headers and the CORS ones
// (corsRemovingTransport). A failed round trip is that transport's "error trying to reach
// service: …" in Go's words, answered 503 by the aggregator's responder.
import type { ClientRequest, IncomingMessage } from 'node:http';
import type https from 'node:https';
import path from 'node:path';
import { goDialError } from '../api/go-dial-error.ts';
import { goEscape, goUnescape, percentEncoded } from '../api/go-url.ts';
import { switchOf } from './backend-request.ts';
import type { RequestUser } from '../api/request-context.ts';
import type { HttpRequest, HttpResponse } from './http.ts';
import { answeredHeaders, forwardedHeaders, notForwarded, sendBody, streamAnswer } from './proxy-stream.ts';
import { abandonWithCaller, connectionOffered, isUpgradeRequest, joinUpgrade, passedOnHeaders, UpgradeFailure, type BackendUpgrade } from './upgrade.ts';

/** Where an aggregated group and version is served: the extension server's address and the TLS agent to reach it. */
export interface AggregationTarget {
  /** `https://host:port` of a ready endpoint of the service. */
  origin: string;
  /** Keeps connections, with the front-proxy client certificate and the APIService's CA (or no verification). */
  agent: https.Agent;
  /** The name the extension server's certificate must hold (`<service>.<namespace>.svc`): in the words of a failed check. */
  serverName?: string;
  /**
   * Why no transport to the extension server can be built (a caBundle that is no PEM), in
   * client-go's words: the answer, a 500, to an available APIService's requests
   * (handler_proxy.go's transportBuildingError).
   */
  transportError?: string;
}

/** kube-aggregator's aggregatedDiscoveryTimeout: a discovery request (`/apis/<group>/<version>`) proxied is cut after 5 s. */
const discoveryTimeoutMs = 5000;

/** What the handler asks of the aggregation layer: undefined for a group and version served here. */
export type AggregationLookup = (group: string, version: string) => { target?: AggregationTarget } | undefined;

/** What client-go's SetAuthProxyHeaders replaces: the user's headers, never the caller's. */
function isRemoteUserHeader(name: string): boolean {
  return name === 'x-remote-user' || name === 'x-remote-uid' || name === 'x-remote-group' || name.startsWith('x-remote-extra-');
}

/** Go's reverse proxy's hop-by-hop headers (httputil's hopHeaders), removed both ways. */
const goHopByHop: ReadonlySet<string> = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** The headers a Connection header names (Go's reverse proxy removes them too). */
function connectionNamed(value: string | string[] | undefined): Set<string> {
  return new Set([value ?? []].flat().flatMap((v) => v.split(',')).map((t) => t.trim().toLowerCase()).filter((t) => t !== ''));
}

/** The CORS headers apimachinery's corsRemovingTransport strips from an extension server's answer. */
const corsHeaders: ReadonlySet<string> = new Set(['access-control-allow-credentials', 'access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin']);

/** RFC 7230's token characters, which client-go's headerKeyEscape leaves as they are (but `%`). */
function isTokenByte(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || "!#$&'*+-.^_`|~".includes(String.fromCharCode(b));
}

/** Extra keys escaped as client-go's transport escapes them into header names (headerKeyEscape: every byte but a token's, and `%`). */
function extraHeader(key: string): string {
  let escaped = '';
  for (const b of Buffer.from(key, 'utf8')) escaped += isTokenByte(b) ? String.fromCharCode(b) : percentEncoded(b);
  return `X-Remote-Extra-${escaped}`;
}

/**
 * The request target kube-aggregator sends the extension server: the path unescaped and
 * escaped again (url.URL.EscapedPath of the request's Path: `%2F` a slash, `(` `%28`), the
 * query as url.Values.Encode writes what url.ParseQuery read (keys sorted, a key without a
 * value given `=`, pairs with a `;` or a malformed escape dropped); `escapedPath` also for
 * X-Forwarded-Uri, `endsWithSlash` of the unescaped path.
 */
export function extensionTarget(url: string): { target: string; escapedPath: string; endsWithSlash: boolean } {
  const mark = url.indexOf('?');
  const rawPath = mark < 0 ? url : url.slice(0, mark);
  const unescaped = goUnescape(rawPath, false);
  const escapedPath = unescaped === undefined ? rawPath : goEscape(unescaped, false);
  const values = new Map<string, Buffer[]>();
  for (const pair of mark < 0 ? [] : url.slice(mark + 1).split('&')) {
    if (pair.includes(';') || pair === '') continue;
    const equals = pair.indexOf('=');
    const key = goUnescape(equals < 0 ? pair : pair.slice(0, equals), true);
    const value = goUnescape(equals < 0 ? '' : pair.slice(equals + 1), true);
    if (key === undefined || value === undefined) continue;
    // Latin-1 keeps the bytes one to a character: the keys sort as Go sorts its byte strings.
    const name = key.toString('latin1');
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  const query = [...values.keys()].sort().flatMap((name) => values.get(name)!.map((v) => `${goEscape(Buffer.from(name, 'latin1'), true)}=${goEscape(v, true)}`)).join('&');
  return { target: query === '' ? escapedPath : `${escapedPath}?${query}`, escapedPath, endsWithSlash: (unescaped ?? Buffer.from(rawPath)).at(-1) === 0x2f };
}

/** The caller's address as Go prints a RemoteAddr's host (an IPv4-mapped address as IPv4). */
function clientAddress(req: HttpRequest): string | undefined {
  const address = (req as { socket?: { remoteAddress?: string } }).socket?.remoteAddress;
  return address?.replace(/^::ffff:(?=\d+\.)/, '');
}

/** The request's audit ID, which kube-aggregator passes on in Audit-ID (NewRequestForProxy). */
function auditIdOf(res: HttpResponse): string | undefined {
  const id = res.getHeader?.('audit-id');
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The headers of a request passed on (not an upgrade): the caller's but its credentials,
 * impersonation, the user's X-Remote-* and Go's reverse proxy's hop-by-hop ones (`TE:
 * trailers` kept); X-Forwarded-For appended, apimachinery's proxy transport's
 * X-Forwarded-Uri, -Host (the extension server's) and -Proto; the audit ID; the user's X-Remote-*.
 */
function requestHeaders(req: HttpRequest, res: HttpResponse, target: AggregationTarget, forwarded: { escapedPath: string; endsWithSlash: boolean }, user: RequestUser): Record<string, string | string[]> {
  const named = connectionNamed(req.headers.connection);
  const headers = forwardedHeaders(req, (name) => notForwarded(name) || goHopByHop.has(name) || named.has(name) || isRemoteUserHeader(name));
  if ([req.headers.te ?? []].flat().some((v) => v.split(',').some((t) => t.trim().toLowerCase() === 'trailers'))) headers.te = 'trailers';
  const client = clientAddress(req);
  if (client !== undefined) {
    const prior = headers['x-forwarded-for'];
    headers['x-forwarded-for'] = prior === undefined ? client : `${[prior].flat().join(', ')}, ${client}`;
  }
  const cleaned = path.posix.normalize(forwarded.escapedPath).replace(/(.)\/+$/, '$1');
  headers['x-forwarded-uri'] = forwarded.endsWithSlash ? `${cleaned}/` : cleaned;
  headers['x-forwarded-host'] = new URL(target.origin).host;
  headers['x-forwarded-proto'] = 'https';
  const auditId = auditIdOf(res);
  if (auditId !== undefined) headers['audit-id'] = auditId;
  return { ...headers, ...remoteUserHeaders(user) };
}

/** The extension server's answer's headers passed back: not its connection's (Go's reverse proxy), nor CORS ones (apimachinery's proxy transport). */
function responseHeaders(answer: IncomingMessage): Record<string, string | string[]> {
  const named = connectionNamed(answer.headers.connection);
  const headers = answeredHeaders(answer);
  for (const name of Object.keys(headers)) if (goHopByHop.has(name) || named.has(name) || corsHeaders.has(name)) delete headers[name];
  return headers;
}

/** Upstream's proxyError: http.Error's plain text. */
function proxyError(res: HttpResponse, message: string, code: number): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = code;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(`${message}\n`);
}

/** What upstream's proxy answers for a redirect it will not forward (`--aggregator-reject-forwarding-redirect`). */
const redirectRejected = 'the backend attempted to redirect this request, which is not permitted';

export interface ExtensionProxyOptions {
  /** Pass a redirect on (`--aggregator-reject-forwarding-redirect=false`). */
  forwardRedirects: boolean;
  /** Lets a server that stops end an upgraded connection (the handler's long-running requests). */
  track: (stop: () => void) => () => void;
}

/** The user, as the extension server reads it from the front proxy (X-Remote-*). */
function remoteUserHeaders(user: RequestUser): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { 'X-Remote-User': user.name };
  if (user.uid !== '') headers['X-Remote-Uid'] = user.uid;
  if (user.groups.length > 0) headers['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) headers[extraHeader(key)] = [...values];
  return headers;
}

/**
 * An upgrade passed to the extension server as upstream's aggregator passes it, at the same
 * re-encoded path and query: the caller's headers (Connection and Upgrade among them, but its
 * credentials, impersonation and the user's X-Remote-* it sent), the user's X-Remote-*
 * headers, X-Forwarded-For, the audit ID; then the extension
 * server's 101 and both connections joined, or its refusal passed back. One that cannot be
 * reached, or answers neither, is upstream's plain-text 503.
 */
async function upgradeToExtension(req: HttpRequest, res: HttpResponse, target: AggregationTarget, user: RequestUser, track: (stop: () => void) => () => void): Promise<void> {
  const passed = passedOnHeaders(req, (name) => name === 'host' || isRemoteUserHeader(name));
  const auditId = auditIdOf(res);
  if (auditId !== undefined) passed['audit-id'] = auditId;
  const headers = { ...passed, ...remoteUserHeaders(user) };
  let upgrade: BackendUpgrade;
  try {
    upgrade = await dialUpgrade(req, `${target.origin}${extensionTarget(req.url ?? '/').target}`, headers, target.agent);
  } catch (err) {
    proxyError(res, `error dialing backend: ${goDialError(err as NodeJS.ErrnoException, new URL(target.origin).host, target.serverName)}`, 503);
    return;
  }
  try {
    await joinUpgrade(req, res, upgrade, track);
  } catch (err) {
    if (!(err instanceof UpgradeFailure)) throw err;
    proxyError(res, err.message, 503);
  }
}

/** The upgrade request sent: the extension server's switch with its connection, or its answer. */
function dialUpgrade(req: HttpRequest, url: string, headers: Record<string, string | string[]>, agent: https.Agent): Promise<BackendUpgrade> {
  const outgoing = process.getBuiltinModule('node:https').request(url, { method: req.method ?? 'GET', headers, agent });
  return switchOf(outgoing, (err) => err, (sent) => abandonWithCaller(req, sent));
}

/**
 * Passes the request to the target and its answer back. A redirect the extension server
 * answers (3xx with a Location) is not forwarded unless `forwardRedirects`: the caller gets
 * upstream's 502 instead, as `--aggregator-reject-forwarding-redirect` (on by default) does.
 */
export async function proxyToExtension(req: HttpRequest, res: HttpResponse, target: AggregationTarget | undefined, user: RequestUser, opts: ExtensionProxyOptions): Promise<void> {
  if (target === undefined) {
    proxyError(res, 'service unavailable', 503);
    return;
  }
  if (target.transportError !== undefined) {
    proxyError(res, target.transportError, 500);
    return;
  }
  if (isUpgradeRequest(req) && connectionOffered(req)) return upgradeToExtension(req, res, target, user, opts.track);
  const { forwardRedirects } = opts;
  const forwarded = extensionTarget(req.url ?? '/');
  const headers = requestHeaders(req, res, target, forwarded, user);
  const address = new URL(target.origin).host;
  const https = process.getBuiltinModule('node:https');
  const replayable = isReplayable(req);
  await new Promise<void>((resolve) => {
    let discoveryTimer: NodeJS.Timeout | undefined;
    let gone = false;
    let upstream: ClientRequest;
    const send = (retry: boolean): void => {
      upstream = https.request(`${target.origin}${forwarded.target}`, { method: req.method ?? 'GET', headers, agent: target.agent }, (answer) => {
        const code = answer.statusCode ?? 502;
        const location = answer.headers.location;
        if (!forwardRedirects && code >= 300 && code <= 399 && location !== undefined && location !== '') {
          clearTimeout(discoveryTimer);
          answer.resume();
          if (!gone) {
            res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(redirectRejected)) });
            res.end(redirectRejected);
          }
          resolve();
          return;
        }
        // Connection-level headers stay with their hop (an HTTP/2 answer may not carry them at all).
        res.writeHead(code, responseHeaders(answer));
        res.flushHeaders?.();
        void streamAnswer(answer, res).then(() => {
          clearTimeout(discoveryTimer);
          resolve();
        });
      });
      const sent = upstream;
      sent.on('error', (err) => {
        // A kept-alive connection the extension server closed while idle: Go's transport sends
        // a request without a body again on a new one (shouldRetryRequest), so the caller sees
        // what the server's state gives (a refused dial, say), not the stale connection's reset.
        if (!gone && !retry && replayable && sent.reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET') {
          send(true);
          return;
        }
        clearTimeout(discoveryTimer);
        // The caller went away (and the call with it): nobody to answer.
        if (!gone && !res.headersSent) proxyError(res, `error trying to reach service: ${goDialError(err as NodeJS.ErrnoException, address, target.serverName)}`, 503);
        resolve();
      });
      if (retry) sent.end();
      else sendBody(req, sent);
    };
    send(false);
    // A discovery request's context ends after 5 s, its answer or not (the round trip's error then, as the transport words a deadline).
    if (isDiscoveryPath(forwarded.escapedPath)) {
      discoveryTimer = setTimeout(() => {
        if (!gone && !res.headersSent) proxyError(res, 'error trying to reach service: context deadline exceeded', 503);
        upstream.destroy();
        resolve();
      }, discoveryTimeoutMs);
    }
    // The caller going away ends the call (a watch, most often), as does the request's deadline
    // (the server's, server/request-deadlines.ts), which answers and closes the response.
    res.once('close', () => {
      gone = true;
      clearTimeout(discoveryTimer);
      upstream.destroy();
      resolve();
    });
  });
}

/** Go's Request.isReplayable for a proxied request: no body, and a method that may be sent twice. */
function isReplayable(req: HttpRequest): boolean {
  const method = req.method ?? 'GET';
  if (!['GET', 'HEAD', 'OPTIONS', 'TRACE'].includes(method)) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

/** kube-aggregator's test for a discovery request: a path of three segments once its slashes are trimmed (`/apis/<group>/<version>`). */
function isDiscoveryPath(path: string): boolean {
  return path.replace(/^\/+|\/+$/g, '').split('/').length === 3;
}
