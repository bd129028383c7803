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
 * `contentType`; else the status the handshake was refused with, the connection answered and
 * closed (x/net/websocket's refusals, or the library's 400 for a malformed handshake).
 */
export async function watchOverWebSocket(req: HttpRequest, contentType: string): Promise<WebSocketResponse | number> {
  const connection = takeConnection(req);
  if (connection === undefined) return 400;
  const offered = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '');
  const refusal = handshakeRefusal(req, offered);
  if (refusal !== undefined) {
    connection.socket.end(`HTTP/1.1 ${refusal === 403 ? '403 Forbidden' : '400 Bad Request'}\r\n\r\n`);
    return refusal;
  }
  const { acceptWebSocket } = await import('./websockets.ts');
  const ws = await acceptWebSocket({ req: req as unknown as IncomingMessage, ...connection }, offered[0]);
  if (ws === undefined) return 400;
  return new WebSocketResponse(ws, connection.socket as Socket, contentType);
}

/**
 * What x/net/websocket's Handler, which upstream's watch server answers WebSockets with,
 * refuses before the switch, with only a status line: a request without an Origin, or with
 * one that is no URL (Go's ParseRequestURI: an absolute URI or path; a browser's `null`
 * is neither), 403; more than one protocol offered, 400 (it speaks the one a client names).
 */
function handshakeRefusal(req: HttpRequest, offered: readonly string[]): 400 | 403 | undefined {
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || !isRequestUri(origin)) return 403;
  if (offered.length > 1) return 400;
  return undefined;
}

function isRequestUri(text: string): boolean {
  // Controls and spaces are refused anywhere; past that, a path, or a scheme and what URL reads after it.
  if (text === '' || /[\u0000-\u0020\u007f]/.test(text)) return false;
  if (text.startsWith('/')) return true;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)) return false;
  return URL.canParse(text);
}
