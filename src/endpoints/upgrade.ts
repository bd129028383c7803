// Upgraded connections (exec, attach, port-forward): an HTTP/1.1 request asking to switch
// protocols reaches the handlers through the usual filters with its connection on offer; a
// handler that upgrades it takes the connection, and joins it to the kubelet's as upstream's
// UpgradeAwareHandler hijacks and copies both ways, or answers its WebSocket itself (the
// stream translator and the port-forward tunnel, which these checks tell apart).
import type { Duplex } from 'node:stream';
import type { HttpRequest } from './http.ts';
import type { RequestInfo } from './request-info.ts';

/**
 * Whether the server should hand an HTTP/1.1 upgrade request over with its connection: the
 * connect subresources that upgrade (exec, attach, portforward), a node's proxy (which
 * passes an upgrade on to the kubelet as upstream's does), and watches, which upstream
 * serves over WebSocket too. Any other is served as a plain request, its Upgrade header
 * ignored, which is what a resource that does not upgrade does upstream.
 */
export function mayUpgrade(info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  if (info.verb === 'watch') return true;
  if (info.group !== '') return false;
  if (info.resource === 'nodes') return info.subresource === 'proxy';
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
