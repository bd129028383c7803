// The aggregation layer's proxy: a request for a group and version an APIService names a
// service for is passed, already authenticated and authorized here, to the extension API
// server behind that service, as kube-aggregator's proxy handler passes it: the path and
// query as they came, the body and the answer streamed (watches too), the user told in
// X-Remote-User, X-Remote-Uid, X-Remote-Group and X-Remote-Extra-* headers over the
// front-proxy client certificate, the caller's own credentials and impersonation headers
// removed. An APIService not available, or a service that cannot be reached, is a plain-text 503.
// An HTTP/1.1 upgrade (a WebSocket, SPDY: a console or an exec an extension server serves)
// is passed on with the user's headers and, once the extension server switches, both
// connections joined, as upstream's proxy passes it.
import type https from 'node:https';
import { goDialError } from '../api/go-dial-error.ts';
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
  /** How long a request that is not a watch may wait for the extension server's answer (`--request-timeout`). */
  timeoutMs: number;
}

/** Upstream's timeout filter's answer for a request that did not complete in time. */
const timeoutStatus = JSON.stringify({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
  reason: 'Timeout', details: {}, code: 504,
});

/** A watch is long-running: no timeout (upstream's BasicLongRunningRequestCheck, as far as a proxy can tell). */
function isWatch(url: string): boolean {
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const watch = query.get('watch');
  return (watch !== null && watch !== '0' && watch !== 'false') || /\/watch\//.test(url.split('?')[0]!);
}

/** What the handler asks of the aggregation layer: undefined for a group and version served here. */
export type AggregationLookup = (group: string, version: string) => { target?: AggregationTarget } | undefined;

/** Headers the aggregator does not pass on: besides a proxy's usual ones, proxy headers and what it sets itself (the user's). */
function dropped(name: string): boolean {
  return notForwarded(name) || name.startsWith('proxy-') || name.startsWith('x-remote-');
}

/** Extra keys escaped as client-go's transport escapes them into header names. */
function extraHeader(key: string): string {
  return `X-Remote-Extra-${encodeURIComponent(key).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
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
 * An upgrade passed to the extension server as upstream's aggregator passes it: the caller's
 * headers (Connection and Upgrade among them, but its credentials, impersonation and any
 * X-Remote-* it sent), the user's X-Remote-* headers, X-Forwarded-For; then the extension
 * server's 101 and both connections joined, or its refusal passed back. One that cannot be
 * reached, or answers neither, is upstream's plain-text 503.
 */
async function upgradeToExtension(req: HttpRequest, res: HttpResponse, target: AggregationTarget, user: RequestUser, track: (stop: () => void) => () => void): Promise<void> {
  const headers = { ...passedOnHeaders(req, (name) => name === 'host' || name.startsWith('x-remote-') || name.startsWith('proxy-')), ...remoteUserHeaders(user) };
  let upgrade: BackendUpgrade;
  try {
    upgrade = await dialUpgrade(req, `${target.origin}${req.url ?? '/'}`, headers, target.agent);
  } catch (err) {
    proxyError(res, `error dialing backend: ${goDialError(err as NodeJS.ErrnoException, new URL(target.origin).host)}`, 503);
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
  if (isUpgradeRequest(req) && connectionOffered(req)) return upgradeToExtension(req, res, target, user, opts.track);
  const { forwardRedirects } = opts;
  const headers = { ...forwardedHeaders(req, dropped), ...remoteUserHeaders(user) };
  const https = process.getBuiltinModule('node:https');
  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const upstream = https.request(`${target.origin}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, agent: target.agent }, (answer) => {
      clearTimeout(timer);
      const code = answer.statusCode ?? 502;
      const location = answer.headers.location;
      if (!forwardRedirects && code >= 300 && code <= 399 && location !== undefined && location !== '') {
        answer.resume();
        if (!gone) {
          res.writeHead(502, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(Buffer.byteLength(redirectRejected)) });
          res.end(redirectRejected);
        }
        resolve();
        return;
      }
      // Connection-level headers stay with their hop (an HTTP/2 answer may not carry them at all).
      res.writeHead(code, answeredHeaders(answer));
      res.flushHeaders?.();
      void streamAnswer(answer, res).then(resolve);
    });
    let gone = false;
    upstream.on('error', (err) => {
      clearTimeout(timer);
      // The caller went away (and the call with it): nobody to answer.
      if (!gone && !res.headersSent) proxyError(res, err.message, 503);
      resolve();
    });
    // Upstream's request timeout (non-long-running requests): a 504 Status when the extension server has not answered.
    if (!isWatch(req.url ?? '/')) {
      timer = setTimeout(() => {
        if (!gone && !res.headersSent) {
          res.statusCode = 504;
          res.setHeader('Content-Type', 'application/json');
          res.end(timeoutStatus);
        }
        upstream.destroy();
        resolve();
      }, target.timeoutMs);
    }
    // The caller going away ends the call (a watch, most often).
    res.once('close', () => {
      gone = true;
      clearTimeout(timer);
      upstream.destroy();
      resolve();
    });
    sendBody(req, upstream);
  });
}
