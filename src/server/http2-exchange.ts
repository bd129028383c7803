// HTTP/2 requests served on Node's core stream API, without its compatibility layer.
import http2, { type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { TLSSocket } from 'node:tls';

/**
 * Node's HTTP/2 compatibility layer wraps every stream in a Readable request and a
 * Stream response, each with its own listeners on the stream and events of its own:
 * ~8–10 µs of every request, an eighth of a GET. These two are the little of it the
 * handlers use (endpoints/http.ts HttpRequest and HttpResponse), read and written on
 * the stream itself. HTTP/1.1 keeps Node's IncomingMessage and ServerResponse.
 */
export class Http2Request {
  readonly stream: ServerHttp2Stream;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly method: string;
  readonly url: string;

  constructor(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, rawHeaders: string[]) {
    this.stream = stream;
    this.headers = headers;
    this.rawHeaders = rawHeaders;
    this.method = headers[':method'] ?? 'GET';
    // A CONNECT names an authority and no path: its target, as Go's server takes it (its RequestURI).
    this.url = this.method === 'CONNECT' ? headers[':authority'] ?? '' : headers[':path'] ?? '/';
  }

  /** The connection's TLS socket, as the compatibility layer's request proxies it (remoteAddress, the peer certificate). */
  get socket(): TLSSocket | undefined {
    return this.stream.session?.socket as TLSSocket | undefined;
  }

  get readableEnded(): boolean {
    return this.stream.readableEnded;
  }

  get destroyed(): boolean {
    return this.stream.destroyed;
  }

  on(event: string, listener: (...args: any[]) => void): this {
    this.stream.on(event, listener);
    return this;
  }

  once(event: string, listener: (...args: any[]) => void): this {
    this.stream.once(event, listener);
    return this;
  }

  removeListener(event: string, listener: (...args: any[]) => void): this {
    this.stream.removeListener(event, listener);
    return this;
  }

  pause(): this {
    this.stream.pause();
    return this;
  }

  resume(): this {
    this.stream.resume();
    return this;
  }

  iterator(options: { destroyOnReturn: boolean }): AsyncIterable<Buffer | string> {
    return this.stream.iterator(options);
  }

  [Symbol.asyncIterator](): AsyncIterator<Buffer | string> {
    return this.stream[Symbol.asyncIterator]();
  }
}

type HeaderValue = string | number | readonly string[];

/**
 * The answer on a stream. Headers go out with the first write (or writeHead, or end);
 * 'finish' and 'close' are the stream's close, as the compatibility layer emits them.
 */
export class Http2Response {
  readonly stream: ServerHttp2Stream;
  statusCode = 200;
  #headers: Record<string, HeaderValue> = {};
  #ending = false;
  /** A HEAD answer ends with its headers (Node ends the stream in respond()); its body is not written. */
  readonly #head: boolean;

  constructor(stream: ServerHttp2Stream, method: string) {
    this.stream = stream;
    this.#head = method === 'HEAD';
  }

  get headersSent(): boolean {
    return this.stream.headersSent;
  }

  get writableEnded(): boolean {
    return this.#ending;
  }

  get writableLength(): number {
    return this.stream.writableLength;
  }

  setHeader(name: string, value: HeaderValue): this {
    if (this.stream.headersSent) throw Object.assign(new Error('Response has already been initiated.'), { code: 'ERR_HTTP2_HEADERS_SENT' });
    const key = name.toLowerCase();
    // Connection-specific headers do not exist in HTTP/2 (RFC 9113 §8.2.2): dropped, as Node's own response drops them.
    if (key !== 'connection') this.#headers[key] = value;
    return this;
  }

  getHeader(name: string): HeaderValue | undefined {
    return this.#headers[name.toLowerCase()];
  }

  getHeaderNames(): string[] {
    return Object.keys(this.#headers);
  }

  removeHeader(name: string): void {
    if (this.stream.headersSent) throw Object.assign(new Error('Response has already been initiated.'), { code: 'ERR_HTTP2_HEADERS_SENT' });
    delete this.#headers[name.toLowerCase()];
  }

  writeHead(status: number, headers?: Record<string, HeaderValue>): this {
    if (this.#gone()) return this;
    if (headers !== undefined) for (const name in headers) this.setHeader(name, headers[name]!);
    this.statusCode = status;
    this.#respond(false);
    return this;
  }

  /** Sends the headers now (a watch's, before its first event). */
  flushHeaders(): void {
    if (!this.#gone() && !this.stream.headersSent) this.#respond(false);
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.#ending || this.#gone()) return false;
    if (!this.stream.headersSent) this.#respond(false);
    if (this.#head) return true;
    return this.stream.write(chunk);
  }

  end(chunk?: string | Uint8Array): this {
    if (this.#ending) return this;
    this.#ending = true;
    if (this.#gone()) return this;
    const body = chunk !== undefined && !this.#head ? chunk : undefined;
    if (!this.stream.headersSent) {
      this.#respond(body === undefined);
      if (body === undefined) return this;
    }
    if (body !== undefined) this.stream.end(body);
    else this.stream.end();
    return this;
  }

  cork(): void {
    this.stream.cork();
  }

  uncork(): void {
    this.stream.uncork();
  }

  once(event: 'close' | 'drain' | 'finish', listener: () => void): this {
    this.stream.once(streamEvent(event), listener);
    return this;
  }

  on(event: 'close' | 'drain' | 'finish', listener: () => void): this {
    this.stream.on(streamEvent(event), listener);
    return this;
  }

  removeListener(event: 'close' | 'drain' | 'finish', listener: () => void): this {
    this.stream.removeListener(streamEvent(event), listener);
    return this;
  }

  #gone(): boolean {
    return this.stream.destroyed || this.stream.closed;
  }

  #respond(endStream: boolean): void {
    const headers = this.#headers;
    headers[':status'] = this.statusCode;
    // A stream whose request body was read to its end is destroyed the moment it closes. Its
    // last write, done after that, then makes an error nobody hears, with its stack: ~4 µs
    // of every create. Ending with (no) trailers closes the stream after the writes are done.
    if (!endStream && this.stream.readableEnded) {
      this.stream.once('wantTrailers', sendNoTrailers);
      this.stream.respond(headers as http2.OutgoingHttpHeaders, { waitForTrailers: true });
      return;
    }
    this.stream.respond(headers as http2.OutgoingHttpHeaders, { endStream });
  }
}

function sendNoTrailers(this: ServerHttp2Stream): void {
  this.sendTrailers({});
}

function streamEvent(event: 'close' | 'drain' | 'finish'): 'close' | 'drain' {
  return event === 'drain' ? 'drain' : 'close';
}

/**
 * What the compatibility layer answers before a request reaches the handlers: an
 * expectation other than 100-continue is 417, and 100-continue gets its interim answer at
 * once. Answers whether the request goes on to the handlers. A CONNECT goes on, as Go's
 * server hands it to the handler (the compatibility layer would answer it 405).
 */
export function admitHttp2Request(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): boolean {
  // Reset already: nothing to answer (respond would throw).
  if (stream.destroyed || stream.closed) return false;
  const expect = headers.expect;
  if (expect === undefined) return true;
  if (expect === '100-continue') {
    stream.additionalHeaders({ ':status': http2.constants.HTTP_STATUS_CONTINUE });
    return true;
  }
  stream.respond({ ':status': http2.constants.HTTP_STATUS_EXPECTATION_FAILED }, { endStream: true });
  return false;
}
