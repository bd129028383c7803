// WebSockets on connections the server handed over (upgrade.ts), by the ws library: the
// handshake, and the back-pressure between a WebSocket and the kubelet connection it is
// joined to (the stream translator, the port-forward tunnel), as Go's blocking copies give it.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * Accepts the WebSocket with `protocol` when the client offered it (else with none, as
 * gorilla's upgrader does); undefined when the handshake failed: the library answered 400
 * and closed the connection. `anyKey`: any non-empty Sec-WebSocket-Key is taken, as
 * x/net/websocket takes it (the library takes only a well-formed one).
 *
 * The protocol is chosen here rather than by the library, which takes only RFC 7230 tokens:
 * the tunnel's `SPDY/3.1+portforward.k8s.io` has a `/`, which Go's WebSocket servers accept.
 */
export function acceptWebSocket(connection: { req: IncomingMessage; socket: Duplex; head: Buffer }, protocol: string | undefined, opts: { anyKey?: boolean } = {}): Promise<WebSocket | undefined> {
  const { req } = connection;
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const chosen = protocol !== undefined && offered.includes(protocol) ? protocol : undefined;
  delete req.headers['sec-websocket-protocol'];
  // Messages up to x/net/websocket's 32 MiB, which upstream's watch and remote command servers read with (ws allows 100).
  const server = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 32 << 20 });
  if (chosen !== undefined) server.on('headers', (headers: string[]) => headers.push(`Sec-WebSocket-Protocol: ${chosen}`));
  const key = String(req.headers['sec-websocket-key'] ?? '');
  if (opts.anyKey === true && key !== '' && !/^[+/0-9A-Za-z]{22}==$/.test(key)) {
    // x/net/websocket takes any key and answers its hash; ws takes only a 16-byte nonce in
    // base64: it is shown one, and the answer's accept made from the key the client sent.
    req.headers['sec-websocket-key'] = 'AAAAAAAAAAAAAAAAAAAAAA==';
    const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
    server.on('headers', (headers: string[]) => {
      const at = headers.findIndex((h) => h.toLowerCase().startsWith('sec-websocket-accept:'));
      if (at >= 0) headers[at] = `Sec-WebSocket-Accept: ${accept}`;
    });
  }
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
