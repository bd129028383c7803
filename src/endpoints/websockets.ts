// WebSockets on connections the server handed over (upgrade.ts), by the ws library: the
// handshake, and the back-pressure between a WebSocket and the kubelet connection it is
// joined to (the stream translator, the port-forward tunnel), as Go's blocking copies give it.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * Accepts the WebSocket with `protocol` when the client offered it (else with none, as
 * gorilla's upgrader does); undefined when the handshake failed: the library answered 400
 * and closed the connection.
 *
 * The protocol is chosen here rather than by the library, which takes only RFC 7230 tokens:
 * the tunnel's `SPDY/3.1+portforward.k8s.io` has a `/`, which Go's WebSocket servers accept.
 */
export function acceptWebSocket(connection: { req: IncomingMessage; socket: Duplex; head: Buffer }, protocol: string | undefined): Promise<WebSocket | undefined> {
  const { req } = connection;
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const chosen = protocol !== undefined && offered.includes(protocol) ? protocol : undefined;
  delete req.headers['sec-websocket-protocol'];
  // Messages up to x/net/websocket's 32 MiB, which upstream's watch and remote command servers read with (ws allows 100).
  const server = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 32 << 20 });
  if (chosen !== undefined) server.on('headers', (headers: string[]) => headers.push(`Sec-WebSocket-Protocol: ${chosen}`));
  return new Promise((resolve) => {
    const failed = () => resolve(undefined);
    connection.socket.once('close', failed);
    server.handleUpgrade(req, connection.socket, connection.head, (ws) => {
      connection.socket.off('close', failed);
      resolve(ws);
    });
  });
}

/** How much may wait to be written either way before the side sending it is no longer read. */
export const highWaterBytes = 1 << 20;

/**
 * Sends to the WebSocket what the kubelet's connection sends, holding that connection back
 * (not read) while more than `highWaterBytes` waits to go out. Returns the send function.
 */
export function sendHoldingBack(ws: WebSocket, kubelet: Duplex): (message: Buffer) => void {
  let unsent = 0;
  return (message) => {
    unsent += message.length;
    if (unsent > highWaterBytes) kubelet.pause();
    ws.send(message, { binary: true }, () => {
      unsent -= message.length;
      if (unsent <= highWaterBytes / 2) kubelet.resume();
    });
  };
}

/**
 * Holds the WebSocket back (not read) while the kubelet's connection has more than
 * `highWaterBytes` to write; call the function returned after each write to it.
 */
export function holdBackWhileFull(ws: WebSocket, kubelet: Duplex): () => void {
  kubelet.on('drain', () => ws.resume());
  return () => {
    if (kubelet.writableLength > highWaterBytes) ws.pause();
  };
}
