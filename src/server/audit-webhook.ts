// The audit webhook backend (`--audit-webhook-config-file`), as upstream's in batch mode:
// events are buffered (at most `bufferSize`; past it they are dropped and the drop logged),
// sent as an audit.k8s.io EventList once `maxBatchSize` are waiting or the oldest has
// waited `maxWaitMs`, at most `qps` batches a second (with a burst), each in the background.
// A batch that cannot be sent is logged and dropped. The HTTP call, with its retries,
// arrives as a function.

export interface AuditWebhookOptions {
  /** POSTs an EventList to the webhook; rejects when it could not. */
  send(events: Record<string, unknown>): Promise<void>;
  /** The audit.k8s.io version of the lists (`--audit-webhook-version`). */
  version: string;
  bufferSize: number;
  maxBatchSize: number;
  maxWaitMs: number;
  /** Batches a second and the burst (undefined: no throttling). */
  throttle?: { qps: number; burst: number };
  log(message: string): void;
}

export class AuditWebhookSink {
  readonly #opts: AuditWebhookOptions;
  #queue: object[] = [];
  #timer: NodeJS.Timeout | undefined;
  #tokens: number;
  #refilledAt = performance.now();
  readonly #inFlight = new Set<Promise<void>>();

  constructor(opts: AuditWebhookOptions) {
    this.#opts = opts;
    this.#tokens = opts.throttle?.burst ?? 0;
  }

  write(event: object): void {
    if (this.#queue.length >= this.#opts.bufferSize) {
      this.#opts.log("Error in audit plugin 'buffered' affecting 1 audit events: audit buffer queue blocked");
      return;
    }
    this.#queue.push(event);
    if (this.#queue.length >= this.#opts.maxBatchSize) this.#drain(false);
    else this.#wait(() => this.#drain(true), this.#opts.maxWaitMs);
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
    const list = { kind: 'EventList', apiVersion: this.#opts.version, metadata: {}, items };
    const sent = this.#opts.send(list).catch((err: unknown) => {
      this.#opts.log(`Error in audit plugin 'webhook' affecting ${items.length} audit events: ${(err as Error).message}`);
    }).finally(() => this.#inFlight.delete(sent));
    this.#inFlight.add(sent);
  }
}
