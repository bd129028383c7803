// A watch over WebSocket, as upstream's WatchServer serves one when the request asks for it:
// each event one message, text for JSON (the event's line as the JSON stream has it),
// binary for other serializers (a Protobuf event without the length its stream frame
// carries). The watch handler writes to this response as to an HTTP one; back-pressure,
// the end and a stalled client's reset work the same way.
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { HttpRequest, HttpResponse } from './http.ts';
import { connectionOffered, isWebSocketUpgrade, takeConnection } from './upgrade.ts';

/** Past this much unsent, a write says to wait (as a socket's high-water mark does). */
const highWaterBytes = 64 * 1024;

export class WebSocketResponse extends EventEmitter implements HttpResponse {
  statusCode = 101;
  readonly headersSent = true;
  writableEnded = false;
  /** The connection under the WebSocket: a stalled watch is reset through it. */
  readonly socket: Socket;
  readonly #ws: WebSocket;
  readonly #binary: boolean;
  readonly #lengthPrefixed: boolean;
  #waiting = false;

  constructor(ws: WebSocket, socket: Socket, contentType: string) {
    super();
    this.#ws = ws;
    this.socket = socket;
    this.#binary = !/json/i.test(contentType);
    this.#lengthPrefixed = /protobuf/i.test(contentType);
    ws.once('close', () => {
      this.writableEnded = true;
      this.emit('finish');
      this.emit('close');
    });
    ws.on('error', () => ws.terminate());
    // The client sends nothing a watch reads; what it sends is dropped, as upstream ignores it.
    ws.on('message', () => {});
  }

  get writableLength(): number {
    return this.#ws.bufferedAmount;
  }

  setHeader(): void {}
  getHeader(): undefined {
    return undefined;
  }
  writeHead(): void {}
  flushHeaders(): void {}
  /** Each write is its own message: frames written together stay apart. */
  cork(): void {}
  uncork(): void {}

  write(chunk: string | Uint8Array): boolean {
    if (this.writableEnded || this.#ws.readyState !== this.#ws.OPEN) return false;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const message = this.#lengthPrefixed ? bytes.subarray(4) : bytes;
    this.#ws.send(this.#binary ? message : message.toString(), { binary: this.#binary }, () => {
      if (this.#waiting && this.#ws.bufferedAmount <= highWaterBytes) {
        this.#waiting = false;
        this.emit('drain');
      }
    });
    if (this.#ws.bufferedAmount <= highWaterBytes) return true;
    this.#waiting = true;
    return false;
  }

  end(chunk?: string | Uint8Array): void {
    if (this.writableEnded) return;
    if (chunk !== undefined) this.write(chunk);
    this.writableEnded = true;
    this.#ws.close(1000);
  }
}

/** Whether a watch request asks for a WebSocket and its connection is on offer (not over HTTP/2). */
export function wantsWebSocket(req: HttpRequest): boolean {
  return isWebSocketUpgrade(req) && connectionOffered(req);
}

/**
 * The WebSocket a watch request asks for (wantsWebSocket), its messages framed for
 * `contentType`; 'refused' when the handshake failed (the library answered 400 and closed
 * the connection).
 */
export async function watchOverWebSocket(req: HttpRequest, contentType: string): Promise<WebSocketResponse | 'refused'> {
  const connection = takeConnection(req);
  if (connection === undefined) return 'refused';
  // x/net/websocket, which upstream's watch uses, takes a single protocol the client names as the one spoken.
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
  const { acceptWebSocket } = await import('./websockets.ts');
  const ws = await acceptWebSocket({ req: req as unknown as IncomingMessage, ...connection }, offered.length === 1 ? offered[0] : undefined);
  if (ws === undefined) return 'refused';
  return new WebSocketResponse(ws, connection.socket as Socket, contentType);
}
