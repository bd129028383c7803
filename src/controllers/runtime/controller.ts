// A controller on the runtime: informers feed keys into a WorkQueue (handlers only
// queue), and workers take keys and reconcile them, one key never twice at once. A
// reconcile that throws is retried after the key's backoff; one that succeeds clears
// it, and may ask to look again later (polling what it waits for). stop() ends the
// informers, abandons what is queued, cancels every timer and waits for the
// reconciles in flight, so nothing of the controller outlives it.

import type { BackoffOptions } from './backoff.ts';
import type { Clock } from './clock.ts';
import type { Informer } from './informer.ts';
import { WorkQueue } from './work-queue.ts';

/** What a reconcile asks for besides success: to be run again after `requeueAfterMs` (0: at once). */
export type ReconcileResult = void | { requeueAfterMs: number };

export interface ControllerOptions {
  /** Names the controller in log lines, e.g. "namespace". */
  name: string;
  informers: Informer[];
  reconcile(key: string): Promise<ReconcileResult>;
  /** Keys reconciled at the same time (default 1). */
  workers?: number;
  clock?: Clock;
  backoff?: BackoffOptions;
  /** Whether a failure is worth a log line (default: all are); it is retried either way. */
  shouldLog?(err: unknown): boolean;
  log: (message: string) => void;
}

export class Controller {
  readonly queue: WorkQueue;
  readonly #name: string;
  readonly #informers: Informer[];
  readonly #reconcile: (key: string) => Promise<ReconcileResult>;
  readonly #workerCount: number;
  readonly #shouldLog: (err: unknown) => boolean;
  readonly #log: (message: string) => void;
  #workers: Promise<void>[] = [];
  #stopping: Promise<void> | undefined;

  constructor(opts: ControllerOptions) {
    this.#name = opts.name;
    this.#informers = opts.informers;
    this.#reconcile = opts.reconcile;
    this.#workerCount = opts.workers ?? 1;
    this.#shouldLog = opts.shouldLog ?? (() => true);
    this.#log = opts.log;
    this.queue = new WorkQueue({ clock: opts.clock, backoff: opts.backoff });
  }

  /** Starts the informers, waits for their first lists, then starts the workers. */
  async start(): Promise<void> {
    await Promise.all(this.#informers.map((informer) => informer.start()));
    if (this.#stopping !== undefined || this.#workers.length > 0) return;
    for (let i = 0; i < this.#workerCount; i++) this.#workers.push(this.#work());
  }

  /** Resolves once no key is queued or being reconciled (keys due later do not count). */
  idle(): Promise<void> {
    return this.queue.whenIdle();
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.queue.shutDown();
      await Promise.all(this.#informers.map((informer) => informer.stop()));
      await Promise.all(this.#workers);
    })();
    return this.#stopping;
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        const result = await this.#reconcile(key);
        this.queue.forget(key);
        if (result !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
      } catch (err) {
        if (!this.queue.isShutDown) {
          if (this.#shouldLog(err)) this.#log(`${this.#name} controller: ${key}: ${(err as Error)?.message ?? String(err)}`);
          this.queue.addRateLimited(key);
        }
      } finally {
        this.queue.done(key);
      }
    }
  }
}
