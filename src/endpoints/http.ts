// The HTTP edge the handlers share: bodies, answers, gzip, Status errors.
import type { IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { internalError, isStatusError, requestEntityTooLarge, StatusError, type KubeObject, type Status } from '../api/index.ts';
import { currentRequest } from '../api/request-context.ts';
import { storageErrorStatus } from '../registry/storage-errors.ts';
import { loadCborObjectCodec } from '../encoding/cbor-loader.ts';
import { encodeYaml } from '../encoding/decode.ts';
import type { Negotiated } from '../encoding/negotiate.ts';
import { loadProtobufCodec } from '../encoding/protobuf-loader.ts';

/** What handlers need of a request: the shape shared by HTTP/1.1 and HTTP/2 compat requests. */
export interface HttpRequest extends AsyncIterable<Buffer | string> {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
  /** Header names and values as received, repeated headers apart (Impersonate-Group). */
  readonly rawHeaders?: string[];
  once(event: 'close', listener: () => void): unknown;
  /** Node's readable streams: an iterator that can stop early without destroying the request. */
  iterator?(options: { destroyOnReturn: boolean }): AsyncIterable<Buffer | string>;
}

/** What handlers need of a response. */
export interface HttpResponse {
  statusCode: number;
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  getHeader(name: string): unknown;
  writeHead(status: number, headers?: Record<string, string | number | string[]>): unknown;
  write(chunk: string | Uint8Array): boolean;
  end(chunk?: string | Uint8Array): unknown;
  /** HTTP/1.1 only: send the headers now rather than with the first body chunk. */
  flushHeaders?(): void;
  /** HTTP/1.1: hold writes until end() (or uncork) and send them together. */
  cork?(): void;
  /** Send what was written since cork() (with it, the watch handler writes a burst of events in one go). */
  uncork?(): void;
  /** HTTP/2: the stream the answer is written to, which corks as HTTP/1.1 answers do. */
  readonly stream?: { cork(): void };
  once(event: 'close' | 'drain', listener: () => void): unknown;
}

/** Largest request body accepted, as upstream's 3 MiB limit for object bodies. */
const maxBodyBytes = 3 * 1024 * 1024;

export async function readBody(req: HttpRequest, limit = maxBodyBytes): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw requestEntityTooLarge();
  const body = isNodeReadable(req) ? await readStream(req, limit) : await readIterable(req, limit);
  currentRequest()?.auditRequestBody?.(body, req.headers['content-type']);
  return body;
}

/** What readStream needs of Node's readable streams (HTTP/1.1 and HTTP/2 compat requests). */
interface NodeReadable {
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  readonly readableEnded: boolean;
  readonly destroyed: boolean;
}

function isNodeReadable(req: HttpRequest): req is HttpRequest & NodeReadable {
  const candidate = req as Partial<NodeReadable>;
  return typeof candidate.on === 'function' && typeof candidate.pause === 'function' && typeof candidate.resume === 'function' && typeof candidate.readableEnded === 'boolean';
}

/**
 * The body by the stream's events: a tenth of the CPU of its async iterator, whose
 * promises and listeners per request were ~10 µs of a ConfigMap create. Stopping at the
 * limit leaves the request alive and paused: the 413 still has to be answered on it,
 * and the server then drains or cuts off the rest (server/unread-body.ts).
 */
function readStream(req: NodeReadable, limit: number): Promise<Buffer> {
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(prematureClose());
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('close', onClose);
    };
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > limit) {
        done();
        req.pause();
        reject(requestEntityTooLarge());
        return;
      }
      chunks.push(buf);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    // Closed before its end: the client went away mid-body.
    const onClose = () => {
      done();
      reject(prematureClose());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    // A 'data' listener starts the flow, unless the stream was paused before: then this does.
    req.resume();
  });
}

/** What Node's stream utilities say of a stream closed before its end (a disconnect, server.ts). */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

async function readIterable(req: HttpRequest, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.iterator?.({ destroyOnReturn: false }) ?? req) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > limit) throw requestEntityTooLarge();
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export function writeBytes(res: HttpResponse, status: number, contentType: string, body: Uint8Array | string, headers: Record<string, string> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': bytes.byteLength, 'Cache-Control': 'no-cache, private', ...headers });
  res.end(bytes);
}

/** Gzip at the fast level, as upstream compresses; Node's zlib loads with the first answer compressed (~2 ms of every start otherwise). */
let gzipFast: ((bytes: Uint8Array) => Promise<Buffer>) | undefined;

async function gzip(bytes: Uint8Array): Promise<Buffer> {
  if (gzipFast === undefined) {
    const zlib = await import('node:zlib');
    const compress = promisify(zlib.gzip);
    const options = { level: zlib.constants.Z_BEST_SPEED };
    gzipFast = (input) => compress(input, options);
  }
  return gzipFast(bytes);
}

/**
 * An answer made of pieces (a list from its items' bytes). A small one is written piece by
 * piece, corked so they go out together; a large one, and any gzip takes, is first joined
 * into the buffer the last large answer used (joinParts): a fresh buffer of megabytes
 * would cost its page faults and its collection every time. A large one answered while
 * another joined answer is still being sent goes out in pieces.
 */
export async function writeParts(res: HttpResponse, status: number, contentType: string, body: { parts: Uint8Array[]; length: number }, opts: { gzip?: boolean } = {}): Promise<void> {
  const { parts, length } = body;
  if (opts.gzip && length >= gzipThresholdBytes) {
    const joined = joinParts(parts, length);
    try {
      // Written once compressed: the joined bytes are free again when this returns.
      return await writeGzipped(res, status, contentType, joined.bytes, {});
    } finally {
      joined.release();
    }
  }
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': length, 'Cache-Control': 'no-cache, private' });
  if (length >= joinedFromBytes && !joinedInFlight) {
    // One write of a buffer used before rather than a write per part (20,001 for 10,000
    // objects, ~7 ms of stream calls): the buffer is the answer's until its stream closes.
    const joined = joinParts(parts, length);
    joinedInFlight = true;
    res.once('close', () => {
      joinedInFlight = false;
      joined.release();
    });
    res.end(joined.bytes);
    return;
  }
  // HTTP/2 answers write to their stream; HTTP/1.1 ones cork themselves. end() uncorks.
  const corkable = res.stream ?? res;
  corkable.cork?.();
  for (const part of parts) res.write(part);
  res.end();
}

/**
 * The buffer the last joined answer used, kept for the next one while the collector lets
 * it live. Memory the process has already touched is cheap to write again, while fresh
 * megabytes cost their page faults every time (on the project's VM joining an 11 MB list
 * took 45–65 ms into a new buffer, 3–4 ms into one used before).
 */
let spareJoin: WeakRef<Buffer> | undefined;

/** `parts` joined, in the spare buffer when it is free and large enough; release() gives the buffer back (once nothing reads it). */
function joinParts(parts: Uint8Array[], length: number): { bytes: Buffer; release(): void } {
  let target = spareJoin?.deref();
  if (target !== undefined && target.length >= length) spareJoin = undefined;
  else target = Buffer.allocUnsafeSlow(length);
  let at = 0;
  for (const part of parts) {
    target.set(part, at);
    at += part.length;
  }
  const joined = target;
  return {
    bytes: joined.subarray(0, length),
    release: () => {
      const spare = spareJoin?.deref();
      if (spare === undefined || spare.length < joined.length) spareJoin = new WeakRef(joined);
    },
  };
}

/** Upstream compresses only answers of at least 128 KiB (defaultGzipThresholdBytes): smaller ones cost more than they save. */
const gzipThresholdBytes = 128 * 1024;

/** Lists written from their items' bytes are joined from this size on (smaller ones write their few parts). */
const joinedFromBytes = 128 * 1024;

/**
 * Whether a joined answer's stream is still open. One at a time: lists answered meanwhile
 * are written in parts, which reference the cache's bytes, rather than each holding a copy
 * of megabytes for as long as its client takes to read it.
 */
let joinedInFlight = false;

/** Whether the client takes gzip (`Accept-Encoding`), as upstream's compression filter reads it. */
export function acceptsGzip(req: HttpRequest): boolean {
  const header = req.headers['accept-encoding'];
  if (header === undefined) return false;
  return header.split(',').some((part) => {
    const [coding = '', ...params] = part.trim().split(';');
    if (coding.trim().toLowerCase() !== 'gzip') return false;
    return !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p));
  });
}

/**
 * Writes an answer body, gzip-compressed (fast level, as upstream) when the client
 * takes it and the body is large enough. `gzip` is decided per request by the caller.
 */
export async function writeBody(res: HttpResponse, status: number, contentType: string, body: Uint8Array | string, headers: Record<string, string> = {}, opts: { gzip?: boolean } = {}): Promise<void> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (opts.gzip && bytes.byteLength >= gzipThresholdBytes) return writeGzipped(res, status, contentType, bytes, headers);
  writeBytes(res, status, contentType, bytes, headers);
}

/** Writes `bytes` gzip-compressed at the fast level, as upstream does. */
async function writeGzipped(res: HttpResponse, status: number, contentType: string, bytes: Uint8Array, headers: Record<string, string>): Promise<void> {
  const compressed = await gzip(bytes);
  writeBytes(res, status, contentType, compressed, { ...headers, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
}

/** An answer's body in the negotiated serializer (the Protobuf and CBOR codecs load on first use). */
export async function encodeAnswer(negotiated: Negotiated, value: unknown): Promise<Uint8Array | string> {
  switch (negotiated.serializer) {
    case 'json':
      return negotiated.pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
    case 'yaml':
      return encodeYaml(value);
    case 'protobuf':
      return (await loadProtobufCodec()).encodeProtobufObject(value as KubeObject);
    case 'cbor':
      return (await loadCborObjectCodec()).encodeCborObject(value as KubeObject);
  }
}

export async function writeObject(res: HttpResponse, status: number, negotiated: Negotiated, value: unknown, headers: Record<string, string> = {}, opts: { gzip?: boolean } = {}): Promise<void> {
  return writeBody(res, status, negotiated.contentType, await encodeAnswer(negotiated, value), headers, opts);
}

/**
 * Any error as a Status answer, in the serializer negotiated for errors (JSON when none
 * is given or the Status cannot be encoded), or as its plain text when it has one (Go's
 * http.Error); errors that are not StatusErrors are bugs: 500, cause logged.
 */
export async function writeError(res: HttpResponse, err: unknown, log: (message: string) => void = console.error, negotiated?: Negotiated): Promise<void> {
  const statusError = toStatusError(err, log);
  if (res.headersSent) {
    res.end();
    return;
  }
  if (statusError.plainText !== undefined) {
    // Go's http.Error: the text as it is, whatever the Accept or Accept-Encoding.
    writeBytes(res, statusError.code, 'text/plain; charset=utf-8', statusError.plainText, { ...statusError.headers, 'X-Content-Type-Options': 'nosniff' });
    return;
  }
  const status: Status = statusError.toStatus();
  let contentType = 'application/json';
  let body: Uint8Array | string = JSON.stringify(status);
  if (negotiated !== undefined && negotiated.serializer !== 'json') {
    try {
      body = await encodeAnswer(negotiated, status);
      contentType = negotiated.contentType;
    } catch {
      // Answered in JSON, as upstream writes an error it cannot negotiate.
    }
  } else if (negotiated?.pretty === true) body = JSON.stringify(status, null, 2);
  if (res.headersSent) return;
  writeBytes(res, statusError.code, contentType, body, statusError.headers);
}

export function toStatusError(err: unknown, log: (message: string) => void = console.error): StatusError {
  if (isStatusError(err)) return err;
  log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  // An unreachable storage (503) or a value it could not take (500), as upstream answers them.
  const fromStorage = storageErrorStatus(err);
  if (fromStorage !== undefined) return fromStorage;
  return internalError(err instanceof Error ? err.message : String(err));
}
