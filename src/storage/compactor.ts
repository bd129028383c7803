// Periodic compaction, like etcd's "periodic" auto-compactor and kube-apiserver's
// --etcd-compaction-interval: remember the revision at regular times and compact
// to the one that was current `retainMs` ago, so history stays about that long.

import type { Backend } from './backend.ts';
import { SharedCompactor, type CompactionClock } from './shared-compactor.ts';

/**
 * The compactor for a backend: storage that several servers may share (etcd) compacts
 * by the shared clock, once per interval for the whole cluster; a backend only this
 * process uses (sqlite, memory) keeps `intervalMs` of history by its own samples.
 */
export function compactorFor(backend: Backend, opts: { intervalMs: number; onError?: (err: unknown) => void }): { start(): void; close(): void } {
  if ('advanceCompactionClock' in backend) {
    return new SharedCompactor(backend as Backend & CompactionClock, { intervalMs: opts.intervalMs, ...(opts.onError ? { onError: opts.onError } : {}) });
  }
  return new Compactor(backend, { retainMs: opts.intervalMs, ...(opts.onError ? { onError: opts.onError } : {}) });
}

export interface CompactorOptions {
  /** How much history to keep (default 5 minutes). */
  retainMs?: number;
  /** How often to sample the revision and compact (default retainMs / 10, as etcd does). */
  intervalMs?: number;
  /** The clock (tests). */
  now?: () => number;
  /** Where failures go; compaction is retried at the next interval either way. */
  onError?: (err: unknown) => void;
}

interface Sample {
  time: number;
  revision: number;
}

export class Compactor {
  readonly #backend: Backend;
  readonly #retainMs: number;
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #onError: (err: unknown) => void;
  /** Revisions seen at each tick, oldest first, newer than the last compaction. */
  #samples: Sample[] = [];
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #closed = false;

  constructor(backend: Backend, opts: CompactorOptions = {}) {
    this.#backend = backend;
    this.#retainMs = opts.retainMs ?? 5 * 60_000;
    this.#intervalMs = opts.intervalMs ?? Math.max(1, Math.floor(this.#retainMs / 10));
    this.#now = opts.now ?? Date.now;
    this.#onError = opts.onError ?? ((err) => console.error('storage compaction failed:', err));
  }

  start(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setInterval(() => void this.tick(), this.#intervalMs);
    // Compaction alone is no reason to keep the process alive.
    this.#timer.unref();
    void this.tick();
  }

  /** Sample the current revision and compact to the newest sample at least retainMs old. */
  async tick(): Promise<void> {
    // A slow compaction must not overlap the next one.
    if (this.#running || this.#closed) return;
    this.#running = true;
    try {
      const now = this.#now();
      this.#samples.push({ time: now, revision: await this.#backend.currentRevision() });
      let target: Sample | undefined;
      while (this.#samples.length > 0 && (this.#samples[0] as Sample).time <= now - this.#retainMs) target = this.#samples.shift();
      if (target !== undefined && !this.#closed) await this.#backend.compact(target.revision);
    } catch (err) {
      if (!this.#closed) this.#onError(err);
    } finally {
      this.#running = false;
    }
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
