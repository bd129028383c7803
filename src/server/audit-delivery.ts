// How audit events reach a backend that is not written in place: upstream's buffered
// backend (batch mode: events buffered, at most `bufferSize`, past it dropped and the drop
// logged; delivered in batches once `maxBatchSize` are waiting or the oldest has waited
// `maxWaitMs`, at most `qps` batches a second with a burst, each in the background; a batch
// that cannot be delivered is logged and dropped), and its blocking modes (each event
// delivered alone as it comes, the request waiting for its first). The delivery itself (an
// HTTP call with its retries, a write to the log) arrives as a function.
import type { AuditSink } from './audit.ts';

export interface BufferedAuditOptions {
  /** The backend, as upstream names it in a plugin error ('webhook', 'log'). */
  name: string;
  /** Delivers a batch; rejects (or throws) when it could not. */
  deliver(events: object[]): Promise<void> | void;
  bufferSize: number;
  maxBatchSize: number;
  maxWaitMs: number;
  /** Batches a second and the burst (undefined: no throttling). */
  throttle?: { qps: number; burst: number };
  log(message: string): void;
}

export class BufferedAuditSink implements AuditSink {
  readonly #opts: BufferedAuditOptions;
  #queue: object[] = [];
  #timer: NodeJS.Timeout | undefined;
  #tokens: number;
  #refilledAt = performance.now();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(opts: BufferedAuditOptions) {
    this.#opts = opts;
    this.#tokens = opts.throttle?.burst ?? 0;
  }

  /** Buffers the event; stored as far as the request is concerned (a batch that fails later is only logged). */
  write(event: object): boolean {
    if (this.#queue.length >= this.#opts.bufferSize) {
      this.#opts.log("Error in audit plugin 'buffered' affecting 1 audit events: audit buffer queue blocked");
      return true;
    }
    this.#queue.push(event);
    if (this.#queue.length >= this.#opts.maxBatchSize) this.#drain(false);
    else this.#wait(() => this.#drain(true), this.#opts.maxWaitMs);
    return true;
  }

  /** Sends what is queued now, throttle or not (at shutdown). */
  flush(): void {
    void this.close();
  }

  /** Sends what is queued and waits for every batch in flight. */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#queue.length > 0) this.#send(this.#queue.splice(0, this.#opts.maxBatchSize));
    await Promise.all(this.#inFlight);
  }

  /** Runs `then` after `ms` unless a timer is already set. */
  #wait(then: () => void, ms: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      then();
    }, ms);
    this.#timer.unref();
  }

  /** Sends full batches (and, once the oldest has waited long enough, a partial one) while the throttle allows. */
  #drain(timedOut: boolean): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    while (this.#queue.length >= this.#opts.maxBatchSize || (timedOut && this.#queue.length > 0)) {
      const wait = this.#take();
      if (wait > 0) {
        this.#wait(() => this.#drain(timedOut), wait);
        return;
      }
      this.#send(this.#queue.splice(0, this.#opts.maxBatchSize));
    }
    if (this.#queue.length > 0) this.#wait(() => this.#drain(true), this.#opts.maxWaitMs);
  }

  /** A throttle token: 0 when one was taken, else how long until one is there (milliseconds). */
  #take(): number {
    const throttle = this.#opts.throttle;
    if (throttle === undefined) return 0;
    const now = performance.now();
    this.#tokens = Math.min(throttle.burst, this.#tokens + ((now - this.#refilledAt) / 1000) * throttle.qps);
    this.#refilledAt = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) / throttle.qps) * 1000);
  }

  #send(items: object[]): void {
    let delivered: Promise<void>;
    try {
      // Called at once: a delivery that is itself synchronous (the log) is done when this returns.
      delivered = Promise.resolve(this.#opts.deliver(items));
    } catch (err) {
      delivered = Promise.reject(err);
    }
    const sent = delivered.catch((err: unknown) => {
      this.#opts.log(`Error in audit plugin '${this.#opts.name}' affecting ${items.length} audit events: ${(err as Error).message}`);
    }).finally(() => this.#inFlight.delete(sent));
    this.#inFlight.add(sent);
  }
}

/**
 * Upstream's blocking modes for a backend that is not written in place: each event
 * delivered alone as it comes. `blocking` ignores a failure (logged); `blocking-strict`
 * answers it, and a request whose first event was not delivered is refused.
 */
export class BlockingAuditSink implements AuditSink {
  readonly #opts: { name: string; deliver(events: object[]): Promise<void>; strict: boolean; log(message: string): void };
  readonly #inFlight = new Set<Promise<boolean>>();

  constructor(opts: { name: string; deliver(events: object[]): Promise<void>; strict: boolean; log(message: string): void }) {
    this.#opts = opts;
  }

  write(event: object): Promise<boolean> {
    const sent: Promise<boolean> = this.#opts.deliver([event]).then(() => true, (err: unknown) => {
      this.#opts.log(`Error in audit plugin '${this.#opts.name}' affecting 1 audit events: ${(err as Error).message}`);
      return !this.#opts.strict;
    }).finally(() => this.#inFlight.delete(sent));
    this.#inFlight.add(sent);
    return sent;
  }

  flush(): void {}

  /** Waits for the events in flight. */
  async close(): Promise<void> {
    await Promise.all(this.#inFlight);
  }
}
