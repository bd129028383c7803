// The server side of SPDY/3.1 as Kubernetes' streams use it (moby/spdystream, which client-go
// and kubelets speak for exec, attach and port-forward): streams opened by the client with a
// header block (SYN_STREAM), answered (SYN_REPLY), data both ways, FIN to half-close; PING
// answered; SETTINGS and WINDOW_UPDATE ignored, as spdystream ignores flow control. Enough for
// a fake kubelet; not a general SPDY implementation (HTTP-over-SPDY libraries insist on
// :method and :path headers, which these streams do not carry).
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
  const parts = words.map((w) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(w.length);
    return Buffer.concat([length, Buffer.from(w, 'latin1')]);
  });
  return Buffer.concat([...parts, Buffer.from(tail, 'latin1')]);
})();

const SYN_STREAM = 1;
const SYN_REPLY = 2;
const RST_STREAM = 3;
const PING = 6;
const FLAG_FIN = 1;

/** One zlib stream per direction, shared by every header block of the session, each block flushed. */
class HeaderCodec {
  readonly #stream: zlib.Deflate | zlib.Inflate;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(kind: 'deflate' | 'inflate') {
    this.#stream = kind === 'deflate' ? zlib.createDeflate({ dictionary }) : zlib.createInflate({ dictionary });
  }

  /** The block through the stream, in the order blocks were given. */
  process(block: Buffer): Promise<Buffer> {
    const next = this.#queue.then(() => new Promise<Buffer>((resolve, reject) => {
      const out: Buffer[] = [];
      const onData = (chunk: Buffer) => out.push(chunk);
      this.#stream.on('data', onData);
      this.#stream.once('error', reject);
      this.#stream.write(block);
      this.#stream.flush(zlib.constants.Z_SYNC_FLUSH, () => {
        this.#stream.off('data', onData);
        this.#stream.off('error', reject);
        resolve(Buffer.concat(out));
      });
    }));
    this.#queue = next.catch(() => undefined);
    return next;
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
  const parts = [Buffer.alloc(4)];
  parts[0]!.writeUInt32BE(Object.keys(headers).length);
  for (const [name, value] of Object.entries(headers)) {
    for (const text of [name, value]) {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(Buffer.byteLength(text));
      parts.push(length, Buffer.from(text));
    }
  }
  return Buffer.concat(parts);
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8003, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24) | payload.length, 4);
  return Buffer.concat([head, payload]);
}

function dataFrame(id: number, flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(id & 0x7fffffff, 0);
  head.writeUInt32BE(((flags & 0xff) << 24) | data.length, 4);
  return Buffer.concat([head, data]);
}

/** A stream the client opened: its headers, what it sends ('data', 'end'), and our side to write. */
export class SpdyStream extends EventEmitter {
  readonly id: number;
  readonly headers: Record<string, string>;
  readonly #session: SpdySession;

  constructor(session: SpdySession, id: number, headers: Record<string, string>) {
    super();
    this.#session = session;
    this.id = id;
    this.headers = headers;
  }

  write(data: string | Buffer): void {
    this.#session.send(dataFrame(this.id, 0, Buffer.from(data)));
  }

  /** Half-closes our side (FIN), after `data` if given. */
  end(data?: string | Buffer): void {
    this.#session.send(dataFrame(this.id, FLAG_FIN, Buffer.from(data ?? '')));
  }
}

/** The server's side of a SPDY/3.1 connection: `onStream` hears of each stream the client opens, once it is answered. */
export class SpdySession {
  readonly #socket: Duplex;
  readonly #inflate = new HeaderCodec('inflate');
  readonly #deflate = new HeaderCodec('deflate');
  readonly #streams = new Map<number, SpdyStream>();
  /** Frames go out in order, a SYN_REPLY waiting for its header block. */
  #sending: Promise<unknown> = Promise.resolve();
  #buffer = Buffer.alloc(0);
  #reading: Promise<unknown> = Promise.resolve();

  constructor(socket: Duplex, onStream: (stream: SpdyStream) => void) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.#buffer = Buffer.concat([this.#buffer, chunk]);
      while (this.#buffer.length >= 8) {
        const length = this.#buffer.readUInt32BE(4) & 0xffffff;
        if (this.#buffer.length < 8 + length) break;
        const frame = this.#buffer.subarray(0, 8 + length);
        this.#buffer = this.#buffer.subarray(8 + length);
        // Header blocks inflate in order, so frames are handled one after another.
        this.#reading = this.#reading.then(() => this.#frame(frame, onStream)).catch(() => socket.destroy());
      }
    });
  }

  send(frame: Buffer | Promise<Buffer>): void {
    this.#sending = this.#sending.then(async () => {
      if (!this.#socket.destroyed) this.#socket.write(await frame);
    }).catch(() => this.#socket.destroy());
  }

  async #frame(frame: Buffer, onStream: (stream: SpdyStream) => void): Promise<void> {
    const flags = frame[4]!;
    const payload = frame.subarray(8);
    if ((frame[0]! & 0x80) === 0) {
      const stream = this.#streams.get(frame.readUInt32BE(0) & 0x7fffffff);
      if (stream === undefined) return;
      if (payload.length > 0) stream.emit('data', payload);
      if ((flags & FLAG_FIN) !== 0) stream.emit('end');
      return;
    }
    const type = frame.readUInt16BE(2);
    if (type === SYN_STREAM) {
      const id = payload.readUInt32BE(0) & 0x7fffffff;
      const stream = new SpdyStream(this, id, decodeHeaders(await this.#inflate.process(payload.subarray(10))));
      this.#streams.set(id, stream);
      const reply = Buffer.alloc(4);
      reply.writeUInt32BE(id);
      this.send(this.#deflate.process(encodeHeaders({})).then((block) => controlFrame(SYN_REPLY, 0, Buffer.concat([reply, block]))));
      onStream(stream);
      if ((flags & FLAG_FIN) !== 0) stream.emit('end');
    } else if (type === RST_STREAM) {
      this.#streams.get(payload.readUInt32BE(0) & 0x7fffffff)?.emit('end');
    } else if (type === PING) {
      this.send(controlFrame(PING, 0, payload));
    }
  }
}
