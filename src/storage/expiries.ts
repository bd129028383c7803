// Keys written with a time to live (PutOptions.ttlSeconds) in a backend of this process:
// when each is due, and a timer that hands the due ones back to the backend to delete, as
// etcd's lessor revokes expired leases. Due times are wall-clock milliseconds, so the keys
// of a SQLite file expire after a restart when they would have without it.

import { StorageError } from './backend.ts';
import type { WriteOp } from './write-op.ts';

/** Sweeps are at least this far apart: keys falling due meanwhile are deleted together. */
const SWEEP_INTERVAL_MS = 1000;
/** setTimeout's longest delay; a later due time is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface DueKey {
  key: string;
  /** The due time it had when found due: its delete applies only while it still has it. */
  at: number;
}

/** An expiry's delete found its key written again (or deleted) since it fell due: nothing to do. */
export function notDue(key: string): StorageError {
  return new StorageError('RevisionMismatch', `${key} was written again before it expired`, key);
}

export class Expiries {
  /** Each key's due time. */
  readonly #due = new Map<string, number>();
  /**
   * [due time, key], a binary min-heap by due time. A key written again leaves its old
   * entry behind: an entry whose time is no longer its key's is skipped when it comes up.
   */
  readonly #heap: Array<[number, string]> = [];
  readonly #expire: (due: DueKey[]) => void;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (Infinity: none armed). */
  #timerAt = Infinity;
  #closed = false;

  /** `expire` is given the keys that fell due; it deletes those still due (see `isDue`). */
  constructor(expire: (due: DueKey[]) => void, now: () => number = Date.now) {
    this.#expire = expire;
    this.#now = now;
  }

  /** How many keys have a due time. */
  get size(): number {
    return this.#due.size;
  }

  /** Whether an expiry's delete of `key` (found due at `at`) still applies. */
  isDue(key: string, at: number): boolean {
    return this.#due.get(key) === at;
  }

  /** A due time known from before (a stored one, at start). */
  set(key: string, at: number): void {
    this.#due.set(key, at);
    this.#push(at, key);
    this.#arm(at);
  }

  /**
   * What the successful write `op` does to its key's due time: a put with a time to
   * live sets it (the new time is answered), any other write clears it (null when there
   * was one to clear); undefined when nothing changed.
   */
  record(op: WriteOp): number | null | undefined {
    if (op.type !== 'delete' && op.ttlSeconds !== undefined) {
      const at = this.#now() + op.ttlSeconds * 1000;
      this.set(op.key, at);
      return at;
    }
    return this.#due.delete(op.key) ? null : undefined;
  }

  /** Forget every due time (a failed transaction: the stored ones are read again). */
  clear(): void {
    this.#due.clear();
    this.#heap.length = 0;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(at: number): void {
    if (this.#closed || at >= this.#timerAt) return;
    clearTimeout(this.#timer);
    const now = this.#now();
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#sweep(), Math.min(Math.max(at - now, 0), MAX_TIMER_MS));
    this.#timer.unref();
  }

  #sweep(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.#now();
    const due: DueKey[] = [];
    while (this.#heap.length > 0 && this.#heap[0]![0] <= now) {
      const [at, key] = this.#pop();
      if (this.#due.get(key) === at) due.push({ key, at });
    }
    if (due.length > 0) this.#expire(due);
    const next = this.#heap[0]?.[0];
    if (next !== undefined) this.#arm(Math.max(next, now + SWEEP_INTERVAL_MS));
  }

  #push(at: number, key: string): void {
    const heap = this.#heap;
    heap.push([at, key]);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]![0] <= at) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  #pop(): [number, string] {
    const heap = this.#heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && heap[left]![0] < heap[least]![0]) least = left;
        if (right < heap.length && heap[right]![0] < heap[least]![0]) least = right;
        if (least === i) break;
        [heap[i], heap[least]] = [heap[least]!, heap[i]!];
        i = least;
      }
    }
    return top;
  }
}
