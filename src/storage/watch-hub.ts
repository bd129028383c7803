// Watches for both backends, etcd-style: a new watcher first catches up from the
// stored history ("unsynced" in etcd's words), then, in the same synchronous step in
// which it reads the last stored revision, joins the live watchers that receive each
// commit's events. Backends commit and read synchronously (node:sqlite is
// synchronous, the memory backend trivially so), so no commit can fall between the
// last history read and going live: no gap and no duplicate.
//
// Memory stays bounded: history is read a page at a time, only as fast as the
// consumer pulls, and a live watcher's queue is capped. A consumer that lets the
// cap be exceeded sees the watch end with an 'Unavailable' error; it can watch
// again from the last revision it received (the watch cache re-lists if that was compacted).

import { BoundedQueue } from '../api/bounded-queue.ts';
import type { StorageError, StorageEvent, Watch } from './backend.ts';
import { isStorageError } from './backend.ts';
import { compacted, unavailable } from './errors.ts';

/** What a catching-up watcher reads from its backend. All synchronous, see above. */
export interface EventHistory {
  currentRevision(): number;
  compactedRevision(): number;
  /** Events for keys under `prefix` with after < revision <= through, oldest first, at most `limit`. */
  eventsAfter(prefix: string, after: number, through: number, limit: number): StorageEvent[];
}

export interface WatchHubOptions {
  /** Events a live watcher may hold unread before it is ended (default 10,000). */
  queueLimit?: number | undefined;
}

const DEFAULT_WATCH_QUEUE_LIMIT = 10_000;

/** Events read from history per step of a catch-up. */
const CATCH_UP_PAGE = 1000;

/** The watchers of one backend. */
export class WatchHub {
  readonly #history: EventHistory;
  readonly #queueLimit: number;
  /** Every open watcher, so that close() can end them all. */
  readonly #open = new Set<Watcher>();
  /**
   * Watchers that have caught up and receive published events, by prefix when it ends at
   * a `/` (every watch cache's: `/registry/configmaps/`), which an event's key finds by its
   * own `/`-ended prefixes rather than asking each of the ~70 watchers; the others apart.
   */
  readonly #liveByPrefix = new Map<string, Set<Watcher>>();
  readonly #liveOther = new Set<Watcher>();
  #liveCount = 0;

  constructor(history: EventHistory, opts: WatchHubOptions = {}) {
    this.#history = history;
    this.#queueLimit = opts.queueLimit ?? DEFAULT_WATCH_QUEUE_LIMIT;
  }

  watch(prefix: string, fromRevision: number): Watch {
    const watcher = new Watcher(
      {
        history: this.#history,
        queueLimit: this.#queueLimit,
        goLive: (w) => this.#goLive(w),
        forget: (w) => {
          this.#leave(w);
          this.#open.delete(w);
        },
      },
      prefix,
      fromRevision,
    );
    this.#open.add(watcher);
    return watcher;
  }

  /**
   * Hand the events of a commit, in revision order, to the live watchers. Call it
   * right after the commit, before anything else can run, and before the writers
   * hear back (so a writer that then watches from its revision misses nothing).
   */
  publish(events: readonly StorageEvent[]): void {
    if (this.#liveCount === 0) return;
    // Event by event, so each watcher gets its events in revision order. A watcher whose
    // queue overflows leaves its set meanwhile, which iteration then passes over.
    for (const event of events) {
      const key = event.kv.key;
      for (let slash = key.indexOf('/'); slash !== -1; slash = key.indexOf('/', slash + 1)) {
        const watchers = this.#liveByPrefix.get(key.slice(0, slash + 1));
        if (watchers !== undefined) for (const watcher of watchers) watcher.offer(event);
      }
      for (const watcher of this.#liveOther) if (key.startsWith(watcher.prefix)) watcher.offer(event);
    }
  }

  #goLive(watcher: Watcher): void {
    const set = this.#liveSet(watcher.prefix, true)!;
    if (set.has(watcher)) return;
    set.add(watcher);
    this.#liveCount++;
  }

  #leave(watcher: Watcher): void {
    const set = this.#liveSet(watcher.prefix, false);
    if (set === undefined || !set.delete(watcher)) return;
    this.#liveCount--;
    if (set.size === 0 && set !== this.#liveOther) this.#liveByPrefix.delete(watcher.prefix);
  }

  /** Where a live watcher of `prefix` is kept (made when `make`). */
  #liveSet(prefix: string, make: boolean): Set<Watcher> | undefined {
    if (!prefix.endsWith('/')) return this.#liveOther;
    let set = this.#liveByPrefix.get(prefix);
    if (set === undefined && make) this.#liveByPrefix.set(prefix, (set = new Set()));
    return set;
  }

  /** End every watch (their iterators finish normally). */
  closeAll(): void {
    for (const watcher of [...this.#open]) watcher.close();
  }
}

interface WatcherHost {
  history: EventHistory;
  queueLimit: number;
  goLive(watcher: Watcher): void;
  forget(watcher: Watcher): void;
}

interface Waiter {
  resolve(result: IteratorResult<StorageEvent, undefined>): void;
  reject(err: unknown): void;
}

const DONE: IteratorResult<StorageEvent, undefined> = { done: true, value: undefined };

class Watcher implements Watch, AsyncIterator<StorageEvent, undefined> {
  readonly #host: WatcherHost;
  readonly #prefix: string;
  /** Every event up to this revision has been queued or delivered. */
  #cursor: number;
  /** The unread events. */
  readonly #queue: BoundedQueue<StorageEvent>;
  #live = false;
  #ended = false;
  /** An error the consumer has not seen yet; it ends the watch once seen. */
  #failure: StorageError | undefined;
  /** Pending next() calls, oldest first (only when the queue is empty). */
  #waiters: Waiter[] = [];

  constructor(host: WatcherHost, prefix: string, fromRevision: number) {
    this.#host = host;
    this.#prefix = prefix;
    this.#cursor = fromRevision;
    // At least one, so that a catch-up page (below) is never empty.
    this.#queue = new BoundedQueue(Math.max(1, host.queueLimit));
    const compactedRevision = host.history.compactedRevision();
    // Reported through the iterator rather than thrown here, as the etcd adapter
    // only learns it from the server's first watch response.
    if (fromRevision < compactedRevision) this.#failure = compacted(fromRevision, compactedRevision);
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageEvent, undefined> {
    return this;
  }

  get caughtUp(): boolean {
    return this.#live && !this.#ended && this.#failure === undefined && this.#queue.length === 0 && this.#waiters.length > 0;
  }

  next(): Promise<IteratorResult<StorageEvent, undefined>> {
    if (this.#waiters.length === 0) {
      const ready = this.#take();
      if (ready !== undefined) return ready;
    }
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Called by `for await` on break or throw. */
  return(): Promise<IteratorResult<StorageEvent, undefined>> {
    this.close();
    return Promise.resolve(DONE);
  }

  close(): void {
    if (this.#ended) return;
    this.#end();
    this.#failure = undefined;
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(DONE);
  }

  get prefix(): string {
    return this.#prefix;
  }

  /** An event of a commit under this watch's prefix, from the hub; only while live. */
  offer(event: StorageEvent): void {
    if (event.revision <= this.#cursor || this.#ended) return;
    this.#cursor = event.revision;
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      waiter.resolve({ done: false, value: event });
      return;
    }
    if (!this.#queue.push(event)) {
      this.#fail(unavailable(`watch on ${this.#prefix} fell more than ${this.#host.queueLimit} events behind and was ended to bound memory; watch again from the last revision received`));
    }
  }

  /** The answer to next() if there is one now, else undefined (wait). */
  #take(): Promise<IteratorResult<StorageEvent, undefined>> | undefined {
    if (this.#queue.length === 0 && !this.#live && !this.#ended && this.#failure === undefined) this.#catchUp();
    const event = this.#queue.shift();
    if (event !== undefined) return Promise.resolve({ done: false, value: event });
    if (this.#failure !== undefined) {
      const failure = this.#failure;
      this.#failure = undefined;
      this.#end();
      return Promise.reject(failure);
    }
    if (this.#ended) return Promise.resolve(DONE);
    return undefined;
  }

  /** Read history pages until there is something to deliver or we have caught up and gone live. */
  #catchUp(): void {
    const { history } = this.#host;
    try {
      while (!this.#live && this.#queue.length === 0) {
        const compactedRevision = history.compactedRevision();
        if (this.#cursor < compactedRevision) throw compacted(this.#cursor, compactedRevision);
        const through = history.currentRevision();
        // A page never exceeds the queue's limit, so the (empty) queue takes all of it.
        const page = Math.min(CATCH_UP_PAGE, this.#queue.limit);
        const events = history.eventsAfter(this.#prefix, this.#cursor, through, page);
        for (const event of events) this.#queue.push(event);
        if (events.length < page) {
          this.#cursor = Math.max(this.#cursor, through);
          this.#live = true;
          this.#host.goLive(this);
        } else {
          this.#cursor = (events[events.length - 1] as StorageEvent).revision;
        }
      }
    } catch (err) {
      this.#fail(isStorageError(err) ? err : unavailable(`reading watch history: ${(err as Error).message}`));
    }
  }

  #fail(failure: StorageError): void {
    this.#end();
    const waiter = this.#waiters.shift();
    if (waiter === undefined) {
      this.#failure = failure;
      return;
    }
    waiter.reject(failure);
    for (const other of this.#waiters.splice(0)) other.resolve(DONE);
  }

  /** Stop receiving and drop what is queued. */
  #end(): void {
    this.#ended = true;
    this.#live = false;
    this.#queue.clear();
    this.#host.forget(this);
  }
}
