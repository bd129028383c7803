// Upgraded connections (exec, attach, port-forward, a node's proxy, the aggregator's): an
// HTTP/1.1 request asking to switch protocols reaches the handlers through the usual filters
// with its connection on offer; a handler that upgrades it takes the connection, and joins it
// to the backend's (a kubelet, an extension API server) as upstream's UpgradeAwareHandler
// hijacks and copies both ways, or answers its WebSocket itself (the stream translator and
// the port-forward tunnel, which these checks tell apart).
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HttpRequest, HttpResponse } from './http.ts';
import { answeredHeaders, forwardedHeaders, streamAnswer } from './proxy-stream.ts';
import type { RequestInfo } from './request-info.ts';

/**
 * Whether the server should hand an HTTP/1.1 upgrade request over with its connection: the
 * connect subresources that upgrade (exec, attach, portforward), the proxies of nodes, pods
 * and services (which pass an upgrade on as upstream's do), and watches, which upstream
 * serves over WebSocket too. Any other is served as a plain request, its Upgrade header
 * ignored, which is what a resource that does not upgrade does upstream.
 */
export function mayUpgrade(info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  if (info.verb === 'watch') return true;
  if (info.group !== '') return false;
  if (info.subresource === 'proxy') return info.resource === 'nodes' || info.resource === 'pods' || info.resource === 'services';
  return info.resource === 'pods' && (info.subresource === 'exec' || info.subresource === 'attach' || info.subresource === 'portforward');
}

interface Offered {
  socket: Duplex;
  head: Buffer;
  taken: boolean;
}

const offered = new WeakMap<object, Offered>();

/** The server hands over the connection of an upgrade request (`head`: what came after its headers). */
export function offerConnection(req: object, socket: Duplex, head: Buffer): void {
  offered.set(req, { socket, head, taken: false });
}

/** Whether a handler took the request's connection (the server then leaves it alone). */
export function connectionTaken(req: object): boolean {
  return offered.get(req)?.taken === true;
}

/** Whether the request's connection is on offer and not yet taken. */
export function connectionOffered(req: HttpRequest): boolean {
  return offered.get(req)?.taken === false;
}

/** The request's connection and what the client sent past its headers; undefined when none is on offer (HTTP/2, or not an upgrade). */
export function takeConnection(req: HttpRequest): { socket: Duplex; head: Buffer } | undefined {
  const entry = offered.get(req);
  if (entry === undefined || entry.taken) return undefined;
  entry.taken = true;
  return { socket: entry.socket, head: entry.head };
}

/**
 * Ends `outgoing`, the caller's upgrade on its way to a backend, when the caller's connection
 * closes before the backend has answered: one that never answers would hold it for ever.
 */
export function abandonWithCaller(req: HttpRequest, outgoing: ClientRequest): void {
  const socket = offered.get(req)?.socket;
  if (socket === undefined) return;
  const abandon = () => outgoing.destroy();
  socket.once('close', abandon);
  const answered = () => socket.off('close', abandon);
  outgoing.once('response', answered);
  outgoing.once('upgrade', answered);
  outgoing.once('error', answered);
}

/** The WebSocket protocol of remote commands that carries the CLOSE signal (the stream translator serves it). */
export const protocolV5 = 'v5.channel.k8s.io';

/**
 * apimachinery's wsstream.IsWebSocketRequestWithStreamCloseProtocol: a WebSocket upgrade
 * (`Connection` naming upgrade as a token, `Upgrade: websocket`) that asks for v5.
 */
export function wantsStreamTranslation(req: HttpRequest): boolean {
  if (!isWebSocketUpgrade(req)) return false;
  return String(req.headers['sec-websocket-protocol'] ?? '').split(',').some((p) => p.trim() === protocolV5);
}

/**
 * The SPDY protocols a port-forward over WebSocket tunnels (upstream's
 * IsWebSocketRequestWithTunnelingProtocol and spdyProtocolsFromWebsocketProtocols): of a
 * WebSocket upgrade's protocols, those `SPDY/3.1+<name>.k8s.io`, without the prefix. Empty
 * for any other request.
 */
export function tunnelledProtocols(req: HttpRequest): string[] {
  if (!isWebSocketUpgrade(req)) return [];
  const prefix = 'SPDY/3.1+';
  return String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim())
    .filter((p) => p.startsWith(prefix) && p.endsWith('.k8s.io')).map((p) => p.slice(prefix.length));
}

/** apimachinery's wsstream.IsWebSocketRequest: `Connection` naming upgrade as a token, and `Upgrade: websocket`. */
export function isWebSocketUpgrade(req: HttpRequest): boolean {
  const connection = String(req.headers.connection ?? '').toLowerCase();
  return /(^|.*,\s*)upgrade($|\s*,)/.test(connection) && String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** apimachinery's httpstream.IsUpgradeRequest: a Connection header that mentions upgrade. */
export function isUpgradeRequest(req: HttpRequest): boolean {
  const connection = req.headers.connection;
  return typeof connection === 'string' && connection.toLowerCase().includes('upgrade');
}

/**
 * Copies both ways until one side is done (it ended or closed, and what it sent is written
 * to the other), or either fails; then closes both, as upstream's two copies do. Resolves then.
 */
export function spliceConnections(a: Duplex, b: Duplex): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      a.destroy();
      b.destroy();
      resolve();
    };
    const flushThenFinish = (to: Duplex) => {
      if (to.writableFinished || to.destroyed) return finish();
      to.once('finish', finish);
      to.once('close', finish);
      if (!to.writableEnded) to.end();
    };
    for (const [from, to] of [[a, b], [b, a]] as const) {
      from.pipe(to);
      from.once('end', () => flushThenFinish(to));
      from.once('close', () => flushThenFinish(to));
      from.once('error', finish);
    }
  });
}

/** A backend's answer to an upgrade passed to it: its connection once it switched, else its answer (the body unread). */
export type BackendUpgrade =
  | { switched: true; answer: IncomingMessage; socket: Duplex; head: Buffer }
  | { switched: false; answer: IncomingMessage };

/** Why an upgrade could not be passed on, in upstream's words: each proxy answers it as its errors are answered (a Status, plain text). */
export class UpgradeFailure extends Error {}

/**
 * The caller's headers as upstream's proxies pass them on: all but the credentials and
 * impersonation the filters used (and those `dropped`; an upgrade keeps its Connection and
 * Upgrade), with the caller's address appended to X-Forwarded-For.
 */
export function passedOnHeaders(req: HttpRequest, dropped: (name: string) => boolean): Record<string, string | string[]> {
  const headers = forwardedHeaders(req, (name) => name === 'authorization' || name.startsWith('impersonate-') || name.startsWith(':') || dropped(name));
  const clientIp = (req as { socket?: { remoteAddress?: string } }).socket?.remoteAddress;
  if (clientIp !== undefined) {
    const prior = headers['x-forwarded-for'];
    headers['x-forwarded-for'] = prior === undefined ? clientIp : `${[prior].flat().join(', ')}, ${clientIp}`;
  }
  return headers;
}

/** How long a backend's refusal of an upgrade may take to come back (upstream's deadline). */
const refusalDeadlineMs = 10_000;

/**
 * The backend's answer to the caller's upgrade, as upstream's tryUpgrade gives it: once it
 * switched, its 101 as it came (its Connection and Upgrade headers too) and then both
 * connections joined until either is done (`track` lets a server that stops end them); a
 * refusal passed back (answerRefusal). Throws UpgradeFailure when it cannot.
 */
export async function joinUpgrade(req: HttpRequest, res: HttpResponse, upgrade: BackendUpgrade, track: (stop: () => void) => () => void): Promise<void> {
  if (!upgrade.switched) return answerRefusal(res, upgrade.answer);
  const client = takeConnection(req);
  if (client === undefined) {
    upgrade.socket.destroy();
    throw new UpgradeFailure('request connection cannot be hijacked');
  }
  const switched: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upgrade.answer.headers)) if (value !== undefined) switched[name] = value;
  res.writeHead(101, switched);
  res.end();
  if (upgrade.head.length > 0) client.socket.write(upgrade.head);
  if (client.head.length > 0) upgrade.socket.write(client.head);
  const untrack = track(() => {
    client.socket.destroy();
    upgrade.socket.destroy();
  });
  try {
    await spliceConnections(client.socket, upgrade.socket);
  } finally {
    untrack();
  }
}

/**
 * A backend that did not switch: its refusal (400 and above) passed back as it wrote it, with
 * upstream's 10 seconds to come back; anything else upstream's `invalid upgrade response`
 * (thrown as UpgradeFailure).
 */
export async function answerRefusal(res: HttpResponse, answer: IncomingMessage): Promise<void> {
  const status = answer.statusCode ?? 0;
  if (status < 400) {
    answer.destroy();
    throw new UpgradeFailure(`invalid upgrade response: status code ${status}`);
  }
  const deadline = setTimeout(() => answer.destroy(), refusalDeadlineMs);
  try {
    res.writeHead(status, answeredHeaders(answer));
    await streamAnswer(answer, res);
  } finally {
    clearTimeout(deadline);
  }
}
