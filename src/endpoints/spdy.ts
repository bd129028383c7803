// SPDY/3.1 as Kubernetes' streams use it (moby/spdystream, which kubelets and client-go speak
// for exec, attach and port-forward): streams opened with a header block (SYN_STREAM) and
// answered (SYN_REPLY), data both ways, FIN to half-close, RST_STREAM to abort; PING answered;
// SETTINGS and WINDOW_UPDATE ignored, as spdystream ignores flow control. Either side of a
// connection: the client opens odd-numbered streams, the server hears of them. Not a general
// SPDY implementation: HTTP-over-SPDY libraries insist on :method and :path headers, which
// these streams do not carry.
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import zlib from 'node:zlib';

/** SPDY/3's header compression dictionary (draft-mbelshe-httpbis-spdy-00 §2.6.10.1): length-prefixed words, then text. */
const dictionary = (() => {
  const words = ['options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language',
    'accept-ranges', 'age', 'allow', 'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding', 'content-language',
    'content-length', 'content-location', 'content-md5', 'content-range', 'content-type', 'date', 'etag', 'expect', 'expires', 'from', 'host',
    'if-match', 'if-modified-since', 'if-none-match', 'if-range', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'pragma',
    'proxy-authenticate', 'proxy-authorization', 'range', 'referer', 'retry-after', 'server', 'te', 'trailer', 'transfer-encoding', 'upgrade',
    'user-agent', 'vary', 'via', 'warning', 'www-authenticate', 'method', 'get', 'status', '200 OK', 'version', 'HTTP/1.1', 'url', 'public',
    'set-cookie', 'keep-alive', 'origin'];
  const tail = '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505203 Non-Authoritative Information'
    + '204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented'
    + '503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,'
    + 'image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=gzip,deflate,sdch'
    + 'charset=utf-8charset=iso-8859-1,utf-,*,enq=0.';
  return Buffer.concat([...words.map((w) => Buffer.concat([uint32(w.length), Buffer.from(w, 'latin1')])), Buffer.from(tail, 'latin1')]);
})();

const SYN_STREAM = 1;
const SYN_REPLY = 2;
const RST_STREAM = 3;
const PING = 6;
const GOAWAY = 7;
const FLAG_FIN = 1;
/** RST_STREAM's CANCEL status. */
const CANCEL = 5;
/** The largest frame accepted (SPDY's length field allows 16 MiB; spdystream writes far less). */
const maxFrameBytes = 1 << 20;

function uint32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(value >>> 0);
  return out;
}

/** One zlib stream per direction, shared by every header block of the connection, each block flushed. */
class HeaderCodec {
  readonly #stream: zlib.Deflate | zlib.Inflate;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(kind: 'deflate' | 'inflate') {
    this.#stream = kind === 'deflate' ? zlib.createDeflate({ dictionary }) : zlib.createInflate({ dictionary });
    this.#stream.on('error', () => {});
  }

  /** The block through the stream, in the order blocks were given. */
  process(block: Buffer): Promise<Buffer> {
    const next = this.#queue.then(() => new Promise<Buffer>((resolve, reject) => {
      const out: Buffer[] = [];
      let size = 0;
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        // A header block that inflates past any real one ends the connection.
        if (size > maxFrameBytes) this.#stream.destroy(new Error('header block too large'));
        else out.push(chunk);
      };
      const onError = (err: Error) => {
        this.#stream.off('data', onData);
        reject(err);
      };
      this.#stream.on('data', onData);
      this.#stream.once('error', onError);
      this.#stream.write(block);
      this.#stream.flush(zlib.constants.Z_SYNC_FLUSH, () => {
        this.#stream.off('data', onData);
        this.#stream.off('error', onError);
        resolve(Buffer.concat(out));
      });
    }));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  close(): void {
    this.#stream.destroy();
  }
}

function decodeHeaders(block: Buffer): Record<string, string> {
  const headers: Record<string, string> = {};
  let at = 4;
  for (let n = block.readUInt32BE(0); n > 0; n--) {
    const nameLength = block.readUInt32BE(at);
    const name = block.subarray(at + 4, at + 4 + nameLength).toString();
    at += 4 + nameLength;
    const valueLength = block.readUInt32BE(at);
    headers[name] = block.subarray(at + 4, at + 4 + valueLength).toString();
    at += 4 + valueLength;
  }
  return headers;
}

function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts = [uint32(Object.keys(headers).length)];
  for (const [name, value] of Object.entries(headers)) {
    for (const text of [name.toLowerCase(), value]) parts.push(uint32(Buffer.byteLength(text)), Buffer.from(text));
  }
  return Buffer.concat(parts);
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8003, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24 | payload.length) >>> 0, 4);
  return Buffer.concat([head, payload]);
}

function dataFrame(id: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(id & 0x7fffffff, 0);
  head.writeUInt32BE(((flags & 0xff) << 24 | data.length) >>> 0, 4);
  return Buffer.concat([head, data]);
}

/**
 * One stream: its headers, what the other side sends ('data', then 'end' at its FIN, or
 * 'end' when it resets the stream or the connection ends), and our side to write.
 */
export class SpdyStream extends EventEmitter {
  readonly id: number;
  readonly headers: Record<string, string>;
  readonly #session: SpdySession;
  #ended = false;
  #remoteEnded = false;

  constructor(session: SpdySession, id: number, headers: Record<string, string>) {
    super();
    this.#session = session;
    this.id = id;
    this.headers = headers;
  }

  write(data: string | Uint8Array): void {
    if (!this.#ended) this.#session.send(dataFrame(this.id, 0, Buffer.from(data)));
  }

  /** Half-closes our side (FIN), after `data` if given. */
  end(data?: string | Uint8Array): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#session.send(dataFrame(this.id, FLAG_FIN, Buffer.from(data ?? '')));
  }

  /** The other side is done with the stream: no more 'data'. */
  remoteEnd(): void {
    if (this.#remoteEnded) return;
    this.#remoteEnded = true;
    this.emit('end');
  }

  get remoteEnded(): boolean {
    return this.#remoteEnded;
  }
}

/**
 * A SPDY/3.1 connection over `socket`. As a server, `onStream` hears of each stream the
 * other side opens, once it is answered; as a client, openStream opens them. 'close' when
 * the connection ends (every stream ends with it).
 */
export class SpdySession extends EventEmitter {
  readonly #socket: Duplex;
  readonly #inflate = new HeaderCodec('inflate');
  readonly #deflate = new HeaderCodec('deflate');
  readonly #streams = new Map<number, SpdyStream>();
  /** Streams we opened that wait for their SYN_REPLY. */
  readonly #opening = new Map<number, { resolve: (stream: SpdyStream) => void; reject: (err: Error) => void; stream: SpdyStream }>();
  readonly #onStream: ((stream: SpdyStream) => void) | undefined;
  #nextId: number;
  /** Frames go out in order, a header block's frame waiting for its compression. */
  #sending: Promise<unknown> = Promise.resolve();
  #buffer: Buffer = Buffer.alloc(0);
  #reading: Promise<unknown> = Promise.resolve();
  #closed = false;

  /** How long an opened stream waits for its reply (client-go's 30 s; tests shorten it). */
  readonly #replyTimeoutMs: number;

  constructor(socket: Duplex, role: 'client' | 'server', onStream?: (stream: SpdyStream) => void, opts: { replyTimeoutMs?: number } = {}) {
    super();
    this.#replyTimeoutMs = opts.replyTimeoutMs ?? 30_000;
    this.#socket = socket;
    this.#onStream = onStream;
    this.#nextId = role === 'client' ? 1 : 2;
    socket.on('data', (chunk: Buffer) => this.#received(chunk));
    socket.once('close', () => this.close());
    socket.on('error', () => this.close());
  }

  /** Opens a stream with these headers; resolves once the other side answers it. */
  openStream(headers: Record<string, string>): Promise<SpdyStream> {
    if (this.#closed) return Promise.reject(new Error('the connection is closed'));
    const id = this.#nextId;
    this.#nextId += 2;
    const stream = new SpdyStream(this, id, headers);
    this.#streams.set(id, stream);
    const opened = new Promise<SpdyStream>((resolve, reject) => {
      // client-go waits 30 s for a stream's reply, then fails with spdystream's words.
      const timer = setTimeout(() => {
        this.#opening.delete(id);
        reject(new Error('Timeout occurred'));
      }, this.#replyTimeoutMs);
      const settle = <T>(done: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        done(value);
      };
      this.#opening.set(id, { resolve: settle(resolve), reject: settle(reject), stream });
    });
    // Stream id, no associated stream, priority 0 and slot 0, then the header block.
    const fixed = Buffer.concat([uint32(id), uint32(0), Buffer.from([0, 0])]);
    this.send(this.#deflate.process(encodeHeaders(headers)).then((block) => controlFrame(SYN_STREAM, 0, Buffer.concat([fixed, block]))));
    return opened;
  }

  send(frame: Buffer | Promise<Buffer>): void {
    this.#sending = this.#sending.then(async () => {
      const bytes = await frame;
      if (!this.#socket.destroyed && this.#socket.writable) this.#socket.write(bytes);
    }).catch(() => this.close());
  }

  /** Ends the connection and every stream on it. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket.destroy();
    this.#inflate.close();
    this.#deflate.close();
    for (const { reject } of this.#opening.values()) reject(new Error('the connection closed'));
    this.#opening.clear();
    for (const stream of this.#streams.values()) stream.remoteEnd();
    this.emit('close');
  }

  #received(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    while (this.#buffer.length >= 8) {
      const length = this.#buffer.readUInt32BE(4) & 0xffffff;
      if (length > maxFrameBytes) {
        this.close();
        return;
      }
      if (this.#buffer.length < 8 + length) break;
      const frame = this.#buffer.subarray(0, 8 + length);
      this.#buffer = this.#buffer.subarray(8 + length);
      // Header blocks inflate in order, so frames are handled one after another.
      this.#reading = this.#reading.then(() => this.#frame(frame)).catch(() => this.close());
    }
  }

  async #frame(frame: Buffer): Promise<void> {
    const flags = frame[4]!;
    const payload = frame.subarray(8);
    if ((frame[0]! & 0x80) === 0) {
      const stream = this.#streams.get(frame.readUInt32BE(0) & 0x7fffffff);
      if (stream === undefined) return;
      if (payload.length > 0) stream.emit('data', Buffer.from(payload));
      if ((flags & FLAG_FIN) !== 0) stream.remoteEnd();
      return;
    }
    const type = frame.readUInt16BE(2);
    if (type === SYN_STREAM) {
      const id = payload.readUInt32BE(0) & 0x7fffffff;
      const stream = new SpdyStream(this, id, decodeHeaders(await this.#inflate.process(payload.subarray(10))));
      if (this.#onStream === undefined) {
        this.send(controlFrame(RST_STREAM, 0, Buffer.concat([uint32(id), uint32(CANCEL)])));
        return;
      }
      this.#streams.set(id, stream);
      this.send(this.#deflate.process(encodeHeaders({})).then((block) => controlFrame(SYN_REPLY, 0, Buffer.concat([uint32(id), block]))));
      this.#onStream(stream);
      if ((flags & FLAG_FIN) !== 0) stream.remoteEnd();
    } else if (type === SYN_REPLY) {
      const id = payload.readUInt32BE(0) & 0x7fffffff;
      // The reply's headers are read to keep the shared decompression in step.
      await this.#inflate.process(payload.subarray(4));
      const opening = this.#opening.get(id);
      this.#opening.delete(id);
      opening?.resolve(opening.stream);
      if ((flags & FLAG_FIN) !== 0) this.#streams.get(id)?.remoteEnd();
    } else if (type === RST_STREAM) {
      const id = payload.readUInt32BE(0) & 0x7fffffff;
      const opening = this.#opening.get(id);
      this.#opening.delete(id);
      opening?.reject(new Error(`stream ${id} was reset`));
      this.#streams.get(id)?.remoteEnd();
    } else if (type === PING) {
      this.send(controlFrame(PING, 0, payload));
    } else if (type === GOAWAY) {
      this.close();
    }
  }
}
