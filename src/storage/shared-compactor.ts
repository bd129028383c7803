// Compaction of storage that several servers share (an etcd cluster), as
// kube-apiserver's etcd3 compactor does it: one key (`compact_rev_key`) whose version is
// a logical clock. Every interval each server tries to move the clock on from the time
// it last saw, with a compare-and-swap; the one that succeeds compacts to the revision
// it saw one interval before, and the others learn the new time and try again at their
// next interval. So the cluster compacts about once per interval whichever servers are
// up, and keeps between one and two intervals of history.

/** What the shared compactor needs of the storage. */
export interface CompactionClock {
  /**
   * Compare-and-swap on the compaction clock: when its time is `time`, move it to
   * `time + 1` (recording `revision`, the one about to be compacted) and answer won.
   * Either way answer the clock's time after the call and the storage's current revision.
   */
  advanceCompactionClock(time: number, revision: number): Promise<{ won: boolean; time: number; currentRevision: number }>;
  compact(revision: number): Promise<void>;
}

export interface SharedCompactorOptions {
  /** How often each server takes its turn (--etcd-compaction-interval, default 5 minutes); 0 turns compaction off. */
  intervalMs?: number;
  /** Where failures go; the next interval tries again either way. */
  onError?: (err: unknown) => void;
  /** Told of each compaction this server made. */
  onCompacted?: (revision: number) => void;
}

export class SharedCompactor {
  readonly #storage: CompactionClock;
  readonly #intervalMs: number;
  readonly #onError: (err: unknown) => void;
  readonly #onCompacted: (revision: number) => void;
  /** The clock's time this server last saw (0: the key does not exist yet). */
  #time = 0;
  /** The revision current at this server's last turn: what the next won turn compacts to (0: none yet). */
  #revision = 0;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #closed = false;

  constructor(storage: CompactionClock, opts: SharedCompactorOptions = {}) {
    this.#storage = storage;
    this.#intervalMs = opts.intervalMs ?? 5 * 60_000;
    this.#onError = opts.onError ?? ((err) => console.error('storage compaction failed:', err));
    this.#onCompacted = opts.onCompacted ?? (() => {});
  }

  /** The first turn comes one interval after start, as upstream's. */
  start(): void {
    if (this.#timer !== undefined || this.#closed || this.#intervalMs <= 0) return;
    this.#timer = setInterval(() => void this.turn(), this.#intervalMs);
    this.#timer.unref();
  }

  /** One turn: advance the clock from the time last seen; having won, compact to the revision seen at the last turn. */
  async turn(): Promise<void> {
    if (this.#running || this.#closed) return;
    this.#running = true;
    try {
      const { won, time, currentRevision } = await this.#storage.advanceCompactionClock(this.#time, this.#revision);
      const target = this.#revision;
      this.#time = time;
      this.#revision = currentRevision;
      // No compaction on the first turn: nothing was seen an interval ago.
      if (won && target > 0 && !this.#closed) {
        await this.#storage.compact(target);
        this.#onCompacted(target);
      }
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
