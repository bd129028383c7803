// The open watch streams, what each holds for a client that has not read it, and
// how a stream whose client stops reading is ended. A watch's data waits in two
// places: events queued for it in the watch cache (bounded there, by count and
// bytes: past it the watch ends) and bytes written to the response that the
// client has not taken (the handler waits for 'drain', so about one frame past
// the response's buffer). What is still unread when the watch ends, or a write
// the client leaves untaken for the grace period, gets the HTTP/2 stream reset or
// the HTTP/1.1 connection reset, which frees the kernel's buffers too, like the
// write deadlines upstream servers put on a connection.
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import type { CacheWatcher } from '../cache/index.ts';
import type { HttpResponse } from './http.ts';

/** What is needed of a response beyond HttpResponse, on HTTP/1.1 (socket) or HTTP/2 (stream). */
interface StreamingResponse extends HttpResponse {
  readonly writableLength: number;
  readonly socket?: Socket | null;
  readonly stream?: http2.ServerHttp2Stream;
  removeListener(event: 'close' | 'drain' | 'finish', listener: () => void): unknown;
  once(event: 'close' | 'drain' | 'finish', listener: () => void): unknown;
}

/** What a watch serves, for the metrics of its events and its end. */
export interface WatchedType {
  group: string;
  version: string;
  kind: string;
  resource: string;
}

export interface OpenStream {
  readonly res: StreamingResponse;
  readonly watcher: CacheWatcher;
  readonly type: WatchedType | undefined;
  closed: boolean;
  ended: boolean;
  /** Set while a wait for 'drain' is pending: told when the watch ends. */
  onEnded: (() => void) | undefined;
}

export interface WatchStreamStats {
  /** Watch responses not yet closed (including ended ones whose client has not taken the rest). */
  open: number;
  /** Per open stream: bytes queued in the watch cache plus bytes its response has not sent. */
  bytesInFlight: number[];
  /** Streams reset (HTTP/2) or connections reset (HTTP/1.1) because the client did not read. */
  reset: number;
}

/** Ways a wait for the client to take a write ends. */
type DrainResult = 'drained' | 'closed' | 'ended' | 'stalled';

export class WatchStreams {
  /** How long a client may leave a watch's data untaken before its stream or connection is reset. */
  readonly writeGraceMs: number;
  readonly #open = new Set<OpenStream>();
  #reset = 0;

  readonly #onEvent: ((type: WatchedType, count: number) => void) | undefined;
  readonly #onTerminated: ((type: WatchedType) => void) | undefined;

  /** `--min-request-timeout`: a watch without `timeoutSeconds` ends after between this many seconds and twice that; 0 never. */
  readonly minTimeoutSeconds: number;

  /** `onEvent`: events were written to a watch; `onTerminated`: a watch was cut off for not reading. */
  constructor(opts: { writeGraceMs: number; minTimeoutSeconds?: number; onEvent?: (type: WatchedType, count: number) => void; onTerminated?: (type: WatchedType) => void }) {
    this.writeGraceMs = opts.writeGraceMs;
    this.minTimeoutSeconds = opts.minTimeoutSeconds ?? 1800;
    this.#onEvent = opts.onEvent;
    this.#onTerminated = opts.onTerminated;
  }

  /** `count` events were written to the stream. */
  sent(stream: OpenStream, count = 1): void {
    if (stream.type !== undefined) this.#onEvent?.(stream.type, count);
  }

  stats(): WatchStreamStats {
    const bytesInFlight: number[] = [];
    for (const stream of this.#open) bytesInFlight.push(stream.res.writableLength + stream.watcher.queuedBytes);
    return { open: this.#open.size, bytesInFlight, reset: this.#reset };
  }

  /** Track a watch response until it closes. */
  open(res: HttpResponse, watcher: CacheWatcher, type?: WatchedType): OpenStream {
    const stream: OpenStream = { res: res as StreamingResponse, watcher, type, closed: false, ended: false, onEnded: undefined };
    this.#open.add(stream);
    // One listener for the stream's life, not one per wait.
    void watcher.ended.then(() => {
      stream.ended = true;
      stream.onEnded?.();
    });
    stream.res.once('close', () => {
      stream.closed = true;
      this.#open.delete(stream);
    });
    return stream;
  }

  /**
   * After a write the response did not take at once: wait until the client takes it
   * ('drained'), the response closes, the watch ends (it stops waiting for events
   * that will not come), or the grace period passes without the client reading ('stalled').
   */
  waitForDrain(stream: OpenStream): Promise<DrainResult> {
    if (stream.closed) return Promise.resolve('closed');
    if (stream.ended) return Promise.resolve('ended');
    const { res } = stream;
    return new Promise<DrainResult>((resolve) => {
      let settled = false;
      const settle = (result: DrainResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        res.removeListener('drain', onDrain);
        res.removeListener('close', onClose);
        stream.onEnded = undefined;
        resolve(result);
      };
      const onDrain = () => settle('drained');
      const onClose = () => settle('closed');
      const timer = setTimeout(() => settle('stalled'), this.writeGraceMs);
      res.once('drain', onDrain);
      res.once('close', onClose);
      stream.onEnded = () => settle('ended');
    });
  }

  /** End the response; if the client has not taken the rest within the grace period, reset it. */
  finish(stream: OpenStream): void {
    const { res } = stream;
    if (!res.writableEnded) res.end();
    if (stream.closed) return;
    const done = () => {
      clearTimeout(timer);
      res.removeListener('finish', done);
      res.removeListener('close', done);
    };
    const timer = setTimeout(() => {
      done();
      this.reset(stream);
    }, this.writeGraceMs);
    timer.unref();
    res.once('finish', done);
    res.once('close', done);
  }

  /**
   * Drop what the client left unread: RST_STREAM (CANCEL) on HTTP/2; on HTTP/1.1 a
   * TCP reset, so that the kernel discards the unsent data rather than keep trying
   * to deliver it behind a FIN.
   */
  reset(stream: OpenStream): void {
    if (stream.closed) return;
    this.#reset++;
    if (stream.type !== undefined) this.#onTerminated?.(stream.type);
    const { res } = stream;
    if (res.stream !== undefined) {
      if (!res.stream.destroyed) res.stream.close(http2.constants.NGHTTP2_CANCEL);
      return;
    }
    const socket = res.socket;
    if (socket === undefined || socket === null) return;
    // Over TLS the TCP connection is the socket the TLS one wraps.
    const tcp = (socket as Socket & { _parent?: Socket })._parent ?? socket;
    try {
      tcp.resetAndDestroy();
    } catch {
      // Not a TCP socket: closing it is all there is.
    }
    socket.destroy();
  }
}
