// Making a commit durable: fdatasync of SQLite's write-ahead log, after each batch.
//
// Where the sync runs decides how a burst of writes flows. On libuv's thread pool the
// event loop hears of the sync's end only in a later turn, after the requests it is busy
// with (several milliseconds under load, for a sync of half a millisecond); the batch's
// writes wait all that time, the next batch waits behind them, and requests move in
// convoys with the loop idle between them. On a disk that syncs fast it costs less to
// sync on the loop itself: creates ran ~20% faster that way on the project's machine.
//
// So the sync runs on the loop while it is fast: while the running average of its
// syncs there stays under `inlineLimitMs` and none takes longer than `stallLimitMs`.
// Otherwise syncs move to the thread pool for `backoffMs`, and then the loop tries
// again with a fresh average: a slow disk costs the loop a few slow syncs per backoff
// (ten of 5 ms, six of 8 ms, one over 20 ms). The average, not each sync, decides,
// because a fast disk has slow moments too (on the project's machine ~1% of syncs under
// load took over 2 ms, the median 0.45).
//
// Syncs also go to the thread pool while `later` says that another thread's work waits
// on the loop (the apply worker's answers): a sync on the loop would hold them up too,
// and the two threads would take turns. Applies by three managers ran 780 and 784/s that
// way against 685 and 685/s with the syncs on the loop.

import { close, closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

export interface WalSyncOptions {
  /** Syncs on the loop averaging more than this move to the thread pool for a while (default 2 ms). */
  inlineLimitMs?: number;
  /** One sync on the loop longer than this moves them at once (default 20 ms). */
  stallLimitMs?: number;
  /** How long syncs stay on the thread pool before the loop tries again (default 1 s). */
  backoffMs?: number;
  /** The clock (tests). */
  now?: () => number;
  /** The sync on the loop and on the thread pool (tests replace them). */
  syncNow?: (fd: number) => void;
  syncLater?: (fd: number) => Promise<void>;
  /** Told how long each sync took, in seconds, and whether it ran on the loop (metrics). */
  observe?: (seconds: number, onLoop: boolean) => void;
  /** While this says so, syncs go to the thread pool (another thread's work waits on the loop). */
  later?: () => boolean;
}

const fdatasyncLater = promisify(fdatasync);
/** The weight of the newest sync in the running average: one slow sync moves it little. */
const WEIGHT = 0.05;
const closeLater = promisify(close);

export class WalSync {
  readonly #path: string;
  readonly #inlineLimitMs: number;
  readonly #stallLimitMs: number;
  readonly #backoffMs: number;
  readonly #now: () => number;
  readonly #syncNow: (fd: number) => void;
  readonly #syncLater: (fd: number) => Promise<void>;
  readonly #observe: ((seconds: number, onLoop: boolean) => void) | undefined;
  readonly #later: (() => boolean) | undefined;
  #fd: number | undefined;
  /** Syncs go to the thread pool until then. */
  #laterUntil = -Infinity;
  /** The running average of syncs on the loop since they last came back to it, in ms. */
  #averageMs = 0;

  constructor(path: string, opts: WalSyncOptions = {}) {
    this.#path = path;
    this.#inlineLimitMs = opts.inlineLimitMs ?? 2;
    this.#stallLimitMs = opts.stallLimitMs ?? 20;
    this.#backoffMs = opts.backoffMs ?? 1_000;
    this.#now = opts.now ?? (() => performance.now());
    this.#syncNow = opts.syncNow ?? fdatasyncSync;
    this.#syncLater = opts.syncLater ?? fdatasyncLater;
    this.#observe = opts.observe;
    this.#later = opts.later;
  }

  /** Whether the next sync runs on the loop. */
  get inline(): boolean {
    return this.#now() >= this.#laterUntil && this.#later?.() !== true;
  }

  /**
   * Makes everything written to the log so far durable: done when it returns undefined,
   * or when the promise resolves. Throws (or rejects) when the sync failed.
   */
  sync(): void | Promise<void> {
    const fd = this.#open();
    const start = this.#now();
    if (start < this.#laterUntil || this.#later?.() === true) {
      const synced = this.#syncLater(fd);
      const observe = this.#observe;
      return observe === undefined ? synced : synced.then(() => observe((this.#now() - start) / 1000, false));
    }
    this.#syncNow(fd);
    const end = this.#now();
    const took = end - start;
    this.#observe?.(took / 1000, true);
    this.#averageMs += WEIGHT * (took - this.#averageMs);
    if (took > this.#stallLimitMs || this.#averageMs > this.#inlineLimitMs) {
      this.#laterUntil = end + this.#backoffMs;
      this.#averageMs = 0;
    }
  }

  async close(): Promise<void> {
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd !== undefined) await closeLater(fd);
  }

  /** The log's descriptor, opened at the first sync; its directory entry is synced then, once. */
  #open(): number {
    if (this.#fd !== undefined) return this.#fd;
    const fd = openSync(this.#path, 'r');
    try {
      const dir = openSync(dirname(this.#path), 'r');
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    this.#fd = fd;
    return fd;
  }
}
