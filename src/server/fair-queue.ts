// The in-flight limits of reads and writes for requests priority and fairness has not
// classified (its levels are priority-levels.ts): with fairness off, refused at once past
// the limit (a queue length of 0, upstream's max-in-flight filter); with it on but no
// FlowSchemas to classify by, a request waits in its flow's queue (a flow is a user, as
// APF's ByUser distinguisher makes it), freed slots going to the flows in turn, and is
// refused (429) when its flow's queue is full or it waited too long.

export interface FairLimiterOptions {
  /** Requests served at once. */
  limit: number;
  /** Requests one flow may have waiting (APF's queueLengthLimit, 50). */
  queueLength: number;
  /** How long a request may wait for a slot. */
  maxWaitMs: number;
}

interface Waiter {
  grant(release: () => void): void;
  timer: NodeJS.Timeout;
}

export class FairLimiter {
  readonly #opts: FairLimiterOptions;
  #inUse = 0;
  /** Waiting requests by flow; the map's order is the turn order (a served flow goes to the back). */
  readonly #queues = new Map<string, Waiter[]>();

  constructor(opts: FairLimiterOptions) {
    this.#opts = opts;
  }

  get inUse(): number {
    return this.#inUse;
  }

  /**
   * A slot for `flow`: its release function, or undefined when the request is to be
   * refused. `whenAbandoned` is handed a function that takes a waiting request out of its
   * queue (its client went away: 'abandoned'); once the request has its slot it does nothing.
   */
  acquire(flow: string, whenAbandoned?: (abandon: () => void) => void): Promise<(() => void) | undefined | 'abandoned'> {
    if (this.#inUse < this.#opts.limit && this.#queues.size === 0) return Promise.resolve(this.#take());
    const queue = this.#queues.get(flow) ?? [];
    if (queue.length >= this.#opts.queueLength) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      /** Takes the waiter out of its flow's queue: whether it was still there. */
      const leave = () => {
        clearTimeout(waiter.timer);
        const waiting = this.#queues.get(flow);
        const at = waiting?.indexOf(waiter) ?? -1;
        if (waiting === undefined || at < 0) return false;
        waiting.splice(at, 1);
        if (waiting.length === 0) this.#queues.delete(flow);
        return true;
      };
      const waiter: Waiter = {
        grant: (release) => {
          clearTimeout(waiter.timer);
          resolve(release);
        },
        timer: setTimeout(() => {
          leave();
          resolve(undefined);
        }, this.#opts.maxWaitMs),
      };
      queue.push(waiter);
      this.#queues.set(flow, queue);
      whenAbandoned?.(() => {
        if (leave()) resolve('abandoned');
      });
      this.#dispatch();
    });
  }

  #take(): () => void {
    this.#inUse++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inUse--;
      this.#dispatch();
    };
  }

  /** Free slots go to the waiting flows in turn, one request each. */
  #dispatch(): void {
    while (this.#inUse < this.#opts.limit && this.#queues.size > 0) {
      const [flow, queue] = this.#queues.entries().next().value as [string, Waiter[]];
      this.#queues.delete(flow);
      const waiter = queue.shift()!;
      if (queue.length > 0) this.#queues.set(flow, queue);
      waiter.grant(this.#take());
    }
  }
}
