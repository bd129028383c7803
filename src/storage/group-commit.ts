// Group commit: writes that arrive together share one transaction, so a burst of
// requests costs one fsync rather than one each. node:sqlite is synchronous, so a
// commit blocks the event loop; requests arriving meanwhile wait in the kernel and
// are read in the next poll phase. Flushing in setImmediate (the check phase, right
// after the poll phase) therefore batches everything read in one turn, including
// whatever arrived while the previous commit ran.
//
// Each write keeps its own outcome: the commit function answers per op, a number
// (the write's revision) or an Error (that op alone failed).
//
// A commit may finish later (a promise: SQLite's sync on the thread pool while the disk
// is slow, wal-sync.ts). The next batch then waits for it, and collects whatever arrives
// meanwhile: while one batch is made durable, the event loop serves requests and the
// next batch grows.

import { unavailable } from './errors.ts';

/**
 * Commits a batch in one transaction; one result per op, in order, now or once the
 * commit is durable. May throw or reject: then every op fails with it.
 */
export type CommitBatch<Op> = (ops: Op[]) => Array<number | Error> | Promise<Array<number | Error>>;

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
  /** The commit whose results are not in yet; no other starts before it settles. */
  #committing: Promise<void> | undefined;
  #closed = false;

  constructor(commit: CommitBatch<Op>, maxBatch = DEFAULT_MAX_BATCH) {
    this.#commit = commit;
    this.#maxBatch = maxBatch;
  }

  submit(op: Op): Promise<number> {
    if (this.#closed) return Promise.reject(unavailable('the storage backend is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ op, resolve, reject });
      this.#schedule();
    });
  }

  /** Commits everything queued (after the commit in flight), and refuses new writes from now on. */
  async close(): Promise<void> {
    this.#closed = true;
    for (;;) {
      if (this.#committing !== undefined) await this.#committing;
      else if (this.#queue.length > 0) this.#commitNext();
      else return;
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#committing !== undefined || this.#queue.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => this.#flushOnce());
  }

  #flushOnce(): void {
    this.#scheduled = false;
    // close() may have got there first, or be waiting on a commit itself.
    if (this.#committing !== undefined || this.#queue.length === 0) return;
    this.#commitNext();
    this.#schedule();
  }

  #commitNext(): void {
    const batch = this.#queue.length <= this.#maxBatch ? this.#queue : this.#queue.slice(0, this.#maxBatch);
    this.#queue = batch === this.#queue ? [] : this.#queue.slice(this.#maxBatch);
    let results: Array<number | Error> | Promise<Array<number | Error>>;
    try {
      results = this.#commit(batch.map((p) => p.op));
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    if (!(results instanceof Promise)) {
      settle(batch, results);
      return;
    }
    this.#committing = results
      .then((done) => settle(batch, done), (err: unknown) => { for (const p of batch) p.reject(err); })
      .finally(() => {
        this.#committing = undefined;
        this.#schedule();
      });
  }
}

function settle<Op>(batch: Pending<Op>[], results: Array<number | Error>): void {
  batch.forEach((p, i) => {
    const result = results[i];
    if (typeof result === 'number') p.resolve(result);
    else p.reject(result ?? new Error('group commit: no result for a write'));
  });
}
