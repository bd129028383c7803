// A Clock for tests: time stands still until advance(), which runs the timers that
// fall due, in order, synchronously.

import type { Clock, Timer } from '../../src/controllers/runtime/index.ts';

interface Scheduled {
  at: number;
  seq: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  #now = 0;
  #seq = 0;
  readonly #timers = new Set<Scheduled>();
  #pendingWaiters: { count: number; resolve(): void }[] = [];

  now(): number {
    return this.#now;
  }

  setTimer(ms: number, fn: () => void): Timer {
    const scheduled: Scheduled = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.add(scheduled);
    this.#pendingWaiters = this.#pendingWaiters.filter((w) => (this.#timers.size >= w.count ? (w.resolve(), false) : true));
    return { cancel: () => void this.#timers.delete(scheduled) };
  }

  /** Timers set and neither run nor cancelled. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Resolves once at least `count` timers are pending (a barrier for code that sets one after an await). */
  untilPending(count = 1): Promise<void> {
    if (this.#timers.size >= count) return Promise.resolve();
    return new Promise((resolve) => this.#pendingWaiters.push({ count, resolve }));
  }

  /** Delays of the pending timers from now, soonest first. */
  get pendingDelays(): number[] {
    return [...this.#timers].sort((a, b) => a.at - b.at || a.seq - b.seq).map((t) => t.at - this.#now);
  }

  /** Moves time forward by `ms`, running every timer due by then. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      let next: Scheduled | undefined;
      for (const t of this.#timers) if (t.at <= until && (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      if (next === undefined) break;
      this.#timers.delete(next);
      this.#now = next.at;
      next.fn();
    }
    this.#now = until;
  }
}

/** A promise and its resolve, for letting a test wait until something happened. */
export function barrier<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
