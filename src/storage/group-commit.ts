// Group commit: writes that arrive together share one transaction, so a burst of
// requests costs one fsync rather than one each. node:sqlite is synchronous, so a
// commit blocks the event loop; requests arriving meanwhile wait in the kernel and
// are read in the next poll phase. Flushing in setImmediate (the check phase, right
// after the poll phase) therefore batches everything read in one turn, including
// whatever arrived while the previous commit ran.
//
// Each write keeps its own outcome: the commit function answers per op, a number
// (the write's revision) or an Error (that op alone failed).

import { unavailable } from './errors.ts';

/** Commits a batch in one transaction; one result per op, in order. May throw: then every op fails with it. */
export type CommitBatch<Op> = (ops: Op[]) => Array<number | Error>;

interface Pending<Op> {
  op: Op;
  resolve(revision: number): void;
  reject(err: unknown): void;
}

/**
 * Above this many queued writes a batch is split, and the event loop gets a turn
 * between transactions, so one huge burst cannot stall reads and watches for long.
 */
const DEFAULT_MAX_BATCH = 1000;

export class GroupCommit<Op> {
  readonly #commit: CommitBatch<Op>;
  readonly #maxBatch: number;
  #queue: Pending<Op>[] = [];
  #scheduled = false;
  #closed = false;

  constructor(commit: CommitBatch<Op>, maxBatch = DEFAULT_MAX_BATCH) {
    this.#commit = commit;
    this.#maxBatch = maxBatch;
  }

  submit(op: Op): Promise<number> {
    if (this.#closed) return Promise.reject(unavailable('the storage backend is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ op, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flushOnce());
      }
    });
  }

  /** Commit everything queued, then refuse new writes. */
  close(): void {
    this.#closed = true;
    while (this.#queue.length > 0) this.#commitNext();
  }

  #flushOnce(): void {
    this.#scheduled = false;
    if (this.#queue.length === 0) return; // close() got there first
    this.#commitNext();
    if (this.#queue.length > 0 && !this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#flushOnce());
    }
  }

  #commitNext(): void {
    const batch = this.#queue.length <= this.#maxBatch ? this.#queue : this.#queue.slice(0, this.#maxBatch);
    this.#queue = batch === this.#queue ? [] : this.#queue.slice(this.#maxBatch);
    let results: Array<number | Error>;
    try {
      results = this.#commit(batch.map((p) => p.op));
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => {
      const result = results[i];
      if (typeof result === 'number') p.resolve(result);
      else p.reject(result ?? new Error('group commit: no result for a write'));
    });
  }
}
