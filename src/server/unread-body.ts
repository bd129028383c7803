// Request bodies left unread by an answer: drained or cut off so that the connection stays usable.
import http2 from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2Request, Http2Response } from './http2-exchange.ts';

/**
 * HTTP/1.1: the most of an unread body still read after the answer to keep the
 * connection (Go's maxPostHandlerReadBytes); past it the connection is closed instead.
 */
const http1DrainBytes = 256 * 1024;

/**
 * HTTP/2: the most of an unread body read and dropped after the answer before the
 * stream is reset. Reading it lets a client that queued its whole body finish writing
 * it: Node's own client, for one, keeps the queued writes of a reset stream charged to
 * its session memory, and after a few reset megabytes refuses every later stream on
 * the connection. A few times the largest body we accept.
 */
const http2DrainBytes = 16 * 1024 * 1024;

/** HTTP/2: how long after the answer the rest of an unread body may take before the stream is reset (the default). */
export const defaultUnreadBodyGraceMs = 5000;

/**
 * Makes sure a request body the handler did not read (an error answered first, a body
 * on a GET) never holds the connection.
 *
 * HTTP/2: once the answer is sent, the rest of the body is read and dropped, which
 * returns its flow-control credit; past `http2DrainBytes`, or when the rest is slower
 * than `graceMs`, the stream is reset with NO_ERROR, as Go's server does at once
 * and RFC 9113 §8.1 allows after a complete answer. Unread data would otherwise sit in the stream's window and the session's
 * memory.
 *
 * HTTP/1.1: Node reads an unread body to its end after the answer. Like Go's server,
 * only a small rest is worth that; when more than 256 KiB (or an unknown amount) is
 * left, the answer says `Connection: close` and the connection ends after it.
 */
export function releaseUnreadBody(req: Http2Request | IncomingMessage, res: Http2Response | ServerResponse, graceMs = defaultUnreadBodyGraceMs): void {
  if ('stream' in req) {
    const stream = req.stream;
    stream.once('finish', () => drainStream(req, stream, graceMs));
    return;
  }
  const response = res as ServerResponse;
  const writeHead = response.writeHead;
  // Every answer's headers pass through writeHead (an implicit header calls it too): the last moment to choose.
  response.writeHead = function (this: ServerResponse, ...args: Parameters<typeof writeHead>) {
    if (!req.complete && !response.headersSent && unreadBytes(req) > http1DrainBytes) response.setHeader('Connection', 'close');
    return writeHead.apply(this, args);
  } as typeof writeHead;
}

/**
 * Runs when the answer's last frame is written. Resuming before Node's own check (which
 * resets a stream nobody read) keeps the stream open to drain it.
 */
function drainStream(req: Http2Request, stream: http2.ServerHttp2Stream, graceMs: number): void {
  if (stream.closed || stream.destroyed || req.readableEnded) return;
  const cutOff = () => {
    if (!stream.closed && !stream.destroyed) stream.close(http2.constants.NGHTTP2_NO_ERROR);
  };
  const timer = setTimeout(cutOff, graceMs).unref();
  stream.once('close', () => clearTimeout(timer));
  let drained = 0;
  req.on('data', (chunk: Buffer | string) => {
    drained += chunk.length;
    if (drained > http2DrainBytes) cutOff();
  });
  req.resume();
}

/** What may be left of an HTTP/1.1 body: its declared length when nothing was read, else unknown. */
function unreadBytes(req: IncomingMessage): number {
  const declared = Number(req.headers['content-length']);
  if (req.headers['content-length'] === undefined || !Number.isFinite(declared) || req.readableDidRead) return Infinity;
  return declared;
}
