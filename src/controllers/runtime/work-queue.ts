// A work queue of keys, after client-go's workqueue: a key added while it waits is
// queued once; a key added while a worker processes it is queued again when the
// worker is done, so one key is never processed by two workers at once. Delayed adds
// and per-key backoff (addRateLimited, forget) sit on top, timed by a Clock.

import { Backoff, type BackoffOptions } from './backoff.ts';
import { systemClock, type Clock, type Timer } from './clock.ts';

export interface WorkQueueOptions {
  clock?: Clock;
  backoff?: BackoffOptions;
}

interface Delayed {
  at: number;
  timer: Timer;
}

export class WorkQueue {
  readonly #clock: Clock;
  readonly #backoff: Backoff;
  /** Keys ready to be handed out, in order; #queue[#head..] are unread. */
  #queue: string[] = [];
  #head = 0;
  /** Keys that need processing: queued, or added again while being processed. */
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  /** Keys to be added later, by key (the earliest time wins). */
  readonly #delayed = new Map<string, Delayed>();
  /** Workers waiting for a key. */
  readonly #getters: ((key: string | undefined) => void)[] = [];
  /** Callers of whenIdle. */
  readonly #idleWaiters: (() => void)[] = [];
  #shutDown = false;

  constructor(opts: WorkQueueOptions = {}) {
    this.#clock = opts.clock ?? systemClock;
    this.#backoff = new Backoff(opts.backoff);
  }

  /** Keys ready and not yet handed out. */
  get length(): number {
    return this.#queue.length - this.#head;
  }

  /** Keys handed out and not yet done. */
  get processing(): number {
    return this.#processing.size;
  }

  /** Keys whose delayed add is still to come. */
  get delayed(): number {
    return this.#delayed.size;
  }

  get isShutDown(): boolean {
    return this.#shutDown;
  }

  add(key: string): void {
    if (this.#shutDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    // done() queues it again; until then it must not reach a second worker.
    if (this.#processing.has(key)) return;
    this.#enqueue(key);
  }

  /** Adds `key` after `ms`; while a delayed add of the key waits, the earlier of the two stands. */
  addAfter(key: string, ms: number): void {
    if (this.#shutDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.#clock.now() + ms;
    const existing = this.#delayed.get(key);
    if (existing !== undefined) {
      if (existing.at <= at) return;
      existing.timer.cancel();
    }
    const timer = this.#clock.setTimer(ms, () => {
      if (this.#delayed.get(key)?.timer !== timer) return;
      this.#delayed.delete(key);
      this.add(key);
    });
    this.#delayed.set(key, { at, timer });
  }

  /** Adds `key` after its backoff: each call without a forget() in between waits twice as long, up to the cap. */
  addRateLimited(key: string): void {
    if (this.#shutDown) return;
    this.addAfter(key, this.#backoff.next(key));
  }

  /** Clears the key's backoff (after it was processed successfully). */
  forget(key: string): void {
    this.#backoff.forget(key);
  }

  /** Failures counted for `key` since it was last forgotten. */
  retries(key: string): number {
    return this.#backoff.failures(key);
  }

  /** The next key to process; undefined once the queue is shut down. Call done(key) after. */
  get(): Promise<string | undefined> {
    if (this.#shutDown) return Promise.resolve(undefined);
    if (this.length > 0) return Promise.resolve(this.#take(this.#dequeue()));
    return new Promise((resolve) => this.#getters.push(resolve));
  }

  /** Marks `key` processed; if it was added meanwhile, it is queued again now. */
  done(key: string): void {
    if (!this.#processing.delete(key)) return;
    if (!this.#shutDown && this.#dirty.has(key)) this.#enqueue(key);
    this.#checkIdle();
  }

  /** Resolves once no key is queued or being processed (delayed adds do not count). */
  whenIdle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Stops accepting keys, drops the queued and delayed ones (cancelling their timers)
   * and answers undefined to waiting workers. Keys being processed may still call done().
   */
  shutDown(): void {
    if (this.#shutDown) return;
    this.#shutDown = true;
    for (const { timer } of this.#delayed.values()) timer.cancel();
    this.#delayed.clear();
    this.#queue = [];
    this.#head = 0;
    this.#dirty.clear();
    for (const getter of this.#getters.splice(0)) getter(undefined);
    this.#checkIdle();
  }

  #enqueue(key: string): void {
    const getter = this.#getters.shift();
    if (getter !== undefined) getter(this.#take(key));
    else this.#queue.push(key);
  }

  #dequeue(): string {
    const key = this.#queue[this.#head++] as string;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return key;
  }

  #take(key: string): string {
    this.#dirty.delete(key);
    this.#processing.add(key);
    return key;
  }

  #isIdle(): boolean {
    return this.length === 0 && this.#processing.size === 0;
  }

  #checkIdle(): void {
    if (!this.#isIdle()) return;
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}
