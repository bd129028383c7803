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
    // x/net/websocket, upstream's, reads nothing of the client's close or of a message past
    // its limit but that the watch is over: the server closes with a normal closure, no reason
    // (where ws would echo the client's code and reason, or give its own, 1009).
    const close = ws.close.bind(ws);
    ws.close = (() => close(1000)) as WebSocket['close'];
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
 * closed (x/net/websocket's refusals).
 */
export async function watchOverWebSocket(req: HttpRequest, contentType: string): Promise<WebSocketResponse | number> {
  const connection = takeConnection(req);
  if (connection === undefined) return 400;
  const refusal = handshakeRefusal(req);
  if (refusal !== undefined) {
    connection.socket.end(refusal.answer);
    return refusal.code;
  }
  const { acceptWebSocket } = await import('./websockets.ts');
  const ws = await acceptWebSocket({ req: req as unknown as IncomingMessage, ...connection }, protocolsOffered(req)[0], { anyKey: true });
  if (ws === undefined) return 400;
  return new WebSocketResponse(ws, connection.socket as Socket, contentType);
}

/**
 * The protocols a client offers as x/net/websocket reads them: the header trimmed, then
 * split at commas and each trimmed (empty ones kept: `a,` offers two).
 */
function protocolsOffered(req: HttpRequest): string[] {
  const header = String(req.headers['sec-websocket-protocol'] ?? '').trim();
  return header === '' ? [] : header.split(',').map((p) => p.trim());
}

/**
 * What x/net/websocket's Handler, which upstream's watch server answers WebSockets with,
 * refuses before the switch, in its order and words (a status line, at most one header, the
 * error's text): no Sec-WebSocket-Key (any other key is taken), a version other than 13, then
 * a request without an Origin or with one that is no URL (Go's ParseRequestURI: an absolute
 * URI or path; a browser's `null` is neither), then other than one protocol offered.
 */
function handshakeRefusal(req: HttpRequest): { code: 400 | 403; answer: string } | undefined {
  if (String(req.headers['sec-websocket-key'] ?? '') === '') return { code: 400, answer: 'HTTP/1.1 400 Bad Request\r\n\r\nmismatch challenge/response' };
  if (req.headers['sec-websocket-version'] !== '13') {
    return { code: 400, answer: 'HTTP/1.1 400 Bad Request\r\nSec-WebSocket-Version: 13\r\n\r\nmissing or bad WebSocket Version' };
  }
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || !isRequestUri(origin)) return { code: 403, answer: 'HTTP/1.1 403 Forbidden\r\n\r\n' };
  const offered = protocolsOffered(req);
  if (offered.length > 1) return { code: 400, answer: 'HTTP/1.1 400 Bad Request\r\n\r\n' };
  return undefined;
}

function isRequestUri(text: string): boolean {
  // Controls and spaces are refused anywhere; past that, a path, or a scheme and what URL reads after it.
  if (text === '' || /[\u0000-\u0020\u007f]/.test(text)) return false;
  if (text.startsWith('/')) return true;
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)) return false;
  return URL.canParse(text);
}
