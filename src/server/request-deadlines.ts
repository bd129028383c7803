// Short requests' deadlines, as upstream's request deadline and timeout filters keep them: a
// request that is not long-running has `--request-timeout` (60 s) from its arrival, or its
// `timeout` parameter when that is shorter and above zero. One whose handler has not returned
// by then is answered 504 there and then, and what its handler writes afterwards goes nowhere
// (heard only by what wraps the response above the deadline's guard: the audit's recorder).
import { goParseDuration } from '../api/go-time.ts';
import type { HttpResponse } from '../endpoints/http.ts';

/** One request's deadline, until its handler returns. */
export interface Deadline {
  readonly at: number;
  readonly res: HttpResponse;
  /** Answered 504 (or cut off mid-answer) when the deadline passed. */
  timedOut: boolean;
  /** Its handler returned. */
  ended: boolean;
  /** Told when its handler returns: what waits for it past the deadline (the request's audit event). */
  onEnd?: () => void;
}

/**
 * What upstream's timeout filter writes: NewTimeoutError's Status, which carries no kind or
 * apiVersion, encoded by Go's json.Encoder (a newline after it) with no Content-Type of its
 * own, so Go's server sniffs one.
 */
const timedOutBody = `${JSON.stringify({
  metadata: {}, status: 'Failure', message: 'Timeout: request did not complete within the allotted timeout', reason: 'Timeout', details: {}, code: 504,
})}\n`;

/**
 * Headers set before the timeout filter (HSTS, the connection's closing while shutting down,
 * the audit ID): kept on a 504. What the filters after it and the handler set (priority and
 * fairness' uids, warnings, CORS) is dropped, as upstream's timeout writer drops them.
 */
const outerHeaders = new Set(['strict-transport-security', 'connection', 'audit-id']);

/**
 * Deadlines of the requests in flight, with one timer for the earliest: a request adds and
 * removes an entry and nothing more, whatever the load (the timer fires about once a
 * `--request-timeout` and looks at the requests still in flight then).
 */
export class RequestDeadlines {
  readonly #defaultMs: number;
  readonly #pending = new Set<Deadline>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;

  constructor(defaultMs: number) {
    this.#defaultMs = defaultMs;
  }

  /**
   * The deadline of a request arriving now, its `timeout` parameter as given (already checked
   * to be a Go duration; one that is not is ignored here).
   */
  start(res: HttpResponse, timeout: string | null): Deadline {
    let ms = this.#defaultMs;
    if (timeout !== null && timeout !== '') {
      try {
        const given = goParseDuration(timeout);
        if (given > 0 && given < ms) ms = given;
      } catch {
        // Refused with a 400 by the filter chain.
      }
    }
    const deadline: Deadline = { at: performance.now() + ms, res, timedOut: false, ended: false };
    this.#pending.add(deadline);
    if (deadline.at < this.#timerAt) this.#arm(deadline.at);
    return deadline;
  }

  /** The request's handler returned. */
  end(deadline: Deadline): void {
    this.#pending.delete(deadline);
    deadline.ended = true;
    deadline.onEnd?.();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, at - performance.now()));
    this.#timer.unref();
  }

  #expire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    // Timers may fire a fraction of a millisecond before performance.now() reaches them.
    const now = performance.now() + 1;
    let next = Infinity;
    for (const deadline of this.#pending) {
      if (deadline.at <= now) {
        this.#pending.delete(deadline);
        deadline.timedOut = true;
        answerTimedOut(deadline);
      } else if (deadline.at < next) {
        next = deadline.at;
      }
    }
    if (next !== Infinity) this.#arm(next);
  }
}

/** The response's methods a handler answers with: what the deadline's guard stops. */
const guardedMethods = ['setHeader', 'writeHead', 'write', 'end', 'flushHeaders', 'cork', 'uncork'] as const;
type GuardedMethod = (typeof guardedMethods)[number];
type Methods = Partial<Record<GuardedMethod, (...args: unknown[]) => unknown>>;

/**
 * A guarded response: its own methods under the guard, and, past the deadline, what the
 * handler goes on writing (the headers it sets, whether it has started an answer).
 */
interface Guard {
  readonly methods: Methods;
  readonly headers: Map<string, unknown>;
  started: boolean;
}

const guards = new WeakMap<Deadline, Guard>();

/**
 * Puts the deadline's guard on its response, under whatever wraps the response from now on,
 * as upstream's timeout writer is under the filters inside its timeout filter (the audit's
 * response writer among them). Until the deadline it passes everything on; past it what the
 * handler writes goes through those wrappers and stops here, taking no more than upstream's
 * timed-out writer does (headers set on a map of their own, writes refused quietly).
 */
export function guardResponse(deadline: Deadline): void {
  if (guards.has(deadline)) return;
  const res = deadline.res as unknown as Methods;
  const guard: Guard = { methods: {}, headers: new Map(), started: false };
  for (const name of guardedMethods) {
    const method = res[name];
    if (method === undefined) continue;
    guard.methods[name] = method;
    res[name] = (...args: unknown[]) => (deadline.timedOut ? goneNowhere(guard, name, args, res) : method.apply(res, args));
  }
  guards.set(deadline, guard);
}

/** A call past the deadline: noted as the handler sees its answer, and sent nowhere. */
function goneNowhere(guard: Guard, name: GuardedMethod, args: unknown[], res: Methods): unknown {
  if (name === 'cork' || name === 'uncork') return undefined;
  if (name === 'setHeader') {
    guard.headers.set(String(args[0]).toLowerCase(), args[1]);
    return res;
  }
  if (name === 'writeHead') for (const [header, value] of Object.entries(args[1] ?? {})) guard.headers.set(header.toLowerCase(), value);
  // writeHead, write, end, flushHeaders: the handler's answer has started.
  guard.started = true;
  return name === 'write' ? true : name === 'flushHeaders' ? undefined : res;
}

/**
 * The deadline passed before the handler returned. Unanswered: upstream's 504. Mid-answer:
 * the answer is cut off, as upstream's filter aborts it (HTTP/2's stream reset, HTTP/1.1's
 * connection closed). Either way the response then takes no more writes from the handler:
 * its guard keeps them, and after a 504 the handler sees a response of its own, unsent, with
 * the headers it sets (as upstream's timed-out writer gives it fresh headers).
 */
function answerTimedOut(deadline: Deadline): void {
  const res = deadline.res;
  if (res.writableEnded) return;
  guardResponse(deadline);
  const guard = guards.get(deadline)!;
  const native = res as HttpResponse & { getHeaderNames?(): string[]; removeHeader?(name: string): void };
  if (!res.headersSent) {
    beneathWrappers(res, guard.methods, () => {
      for (const name of native.getHeaderNames?.() ?? []) if (!outerHeaders.has(name.toLowerCase())) native.removeHeader?.(name);
      // HTTP/1.1 with the body still coming: the connection ends after the answer (Go's server
      // ends it rather than drain a body its handler is still reading), and the request with it,
      // so that a handler waiting for the rest hears of it (Node tells a request whose answer
      // is sent nothing of its connection's end).
      const request = (res as { req?: { complete: boolean; destroy(): void; socket?: { once(event: 'close', listener: () => void): unknown } | null } }).req;
      if (request !== undefined && !request.complete) {
        res.setHeader('Connection', 'close');
        request.socket?.once('close', () => request.destroy());
      }
      res.writeHead(504, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(timedOutBody), 'Cache-Control': 'no-cache, private' });
      res.end(timedOutBody);
    });
    Object.defineProperty(res, 'headersSent', { get: () => guard.started, configurable: true });
    Object.assign(res, { getHeader: (name: string) => guard.headers.get(name.toLowerCase()) });
  } else {
    guard.started = true;
    const cut = res as HttpResponse & { stream?: { close(code: number): void }; destroy?(): void };
    // NGHTTP2_INTERNAL_ERROR, as Go's HTTP/2 server resets the stream of a handler that aborted.
    if (cut.stream !== undefined) cut.stream.close(2);
    else cut.destroy?.();
  }
}

/**
 * Runs `answer` with the response's own methods back in place, Node's calls among them
 * (ServerResponse's end uncorks, the HTTP/2 response's writeHead sets headers): the 504 is
 * written under the guard and what wraps it, as upstream's timeout filter writes outside the
 * filters it runs, so that the audit's recorder hears nothing of it.
 */
function beneathWrappers(res: HttpResponse, methods: Methods, answer: () => void): void {
  const own = res as unknown as Methods;
  const above: Methods = {};
  for (const name of guardedMethods) if (methods[name] !== undefined) above[name] = own[name];
  Object.assign(own, methods);
  try {
    answer();
  } finally {
    Object.assign(own, above);
  }
}
