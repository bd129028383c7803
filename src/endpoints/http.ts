import type { IncomingHttpHeaders } from 'node:http';
import { internalError, isStatusError, requestEntityTooLarge, StatusError, type Status } from '../api/index.ts';
import { encodeYaml } from '../encoding/decode.ts';
import type { Negotiated } from '../encoding/negotiate.ts';

/** What handlers need of a request: the shape shared by HTTP/1.1 and HTTP/2 compat requests. */
export interface HttpRequest extends AsyncIterable<Buffer | string> {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
  once(event: 'close', listener: () => void): unknown;
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
  once(event: 'close' | 'drain', listener: () => void): unknown;
}

/** Largest request body accepted, as upstream's 3 MiB limit for object bodies. */
export const maxBodyBytes = 3 * 1024 * 1024;

export async function readBody(req: HttpRequest, limit = maxBodyBytes): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw requestEntityTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
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

export function encodeAs(negotiated: Negotiated, value: unknown): string {
  return negotiated.serializer === 'yaml' ? encodeYaml(value) : JSON.stringify(value);
}

export function writeObject(res: HttpResponse, status: number, negotiated: Negotiated, value: unknown, headers: Record<string, string> = {}): void {
  writeBytes(res, status, negotiated.contentType, encodeAs(negotiated, value), headers);
}

/** Any error as a Status answer; errors that are not StatusErrors are bugs: 500, cause logged. */
export function writeError(res: HttpResponse, err: unknown, log: (message: string) => void = console.error): void {
  const statusError = toStatusError(err, log);
  if (res.headersSent) {
    res.end();
    return;
  }
  const status: Status = statusError.toStatus();
  writeBytes(res, statusError.code, 'application/json', JSON.stringify(status), statusError.headers);
}

export function toStatusError(err: unknown, log: (message: string) => void = console.error): StatusError {
  if (isStatusError(err)) return err;
  log(`internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return internalError(err instanceof Error ? err.message : String(err));
}
