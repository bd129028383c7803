// One watch on the cache. It goes through up to four phases, each feeding the next
// without a gap or a duplicate because the cache is single-threaded:
//   waiting  — for a future fromRevision, until the cache reaches it (or 504);
//   initial  — the state captured at creation, as ADDED events, then with bookmarks
//              the `k8s.io/initial-events-end` BOOKMARK;
//   history  — the cache's event history after its start revision, read lazily as
//              the consumer pulls, so catching up costs no memory of its own;
//   live     — fed by the cache's fan-out into a bounded queue.
// Only the live phase buffers anything. A watcher that leaves more than `queueLimit`
// events or `queueBytes` of them unread leaves the fan-out: once its queue is read it is
// back in the history phase, from the first event it did not queue, and live again when
// it catches up. So a slow reader still gets every event, and holds no more than its
// queue; it ends (410, the client re-lists) only when the history has let go of the events
// it has not read.

import { BoundedQueue } from '../api/bounded-queue.ts';
import { eventFor, type EventHistory } from './history.ts';
import { eventBytes, selects, type CacheEvent, type CachedObject, type CacheWatcher, type ObjectPredicate } from './types.ts';

/** What a watcher needs from its cache. */
export interface WatcherHost {
  readonly history: EventHistory;
  readonly queueLimit: number;
  readonly queueBytes: number;
  readonly freeze: boolean;
  /** Start receiving the fan-out. */
  goLive(watcher: Watcher): void;
  /** Stop receiving anything: the watcher ended. */
  forget(watcher: Watcher): void;
  /** The error for a watcher whose place in the history was trimmed away. */
  tooOld(revision: number): Error;
  /** Stop feeding a watcher that fell behind: it reads the history instead. */
  leaveLive(watcher: Watcher): void;
}

type Phase = 'waiting' | 'initial' | 'history' | 'live' | 'ended';

interface Waiter {
  resolve(result: IteratorResult<CacheEvent, undefined>): void;
  reject(err: unknown): void;
}

const DONE: IteratorResult<CacheEvent, undefined> = Object.freeze({ done: true, value: undefined });

export class Watcher implements CacheWatcher, AsyncIterator<CacheEvent, undefined> {
  readonly prefix: string;
  readonly predicate: ObjectPredicate | undefined;
  readonly bookmarks: boolean;
  readonly #host: WatcherHost;
  #phase: Phase;
  /** Initial phase: the captured state, and the next index to send. */
  #initial: readonly CachedObject[] | undefined;
  #initialIndex = 0;
  /** Sent when the initial events are done (with bookmarks). */
  #initialEnd: CacheEvent | undefined;
  /** History phase: the next history entry to read. */
  #nextSeq = 0;
  /**
   * The revision the watcher has got through: where it started, then the last event queued,
   * handed out or passed over in the history. A watcher the history let go of names it in
   * its 410 (the client had every event it was owed up to it).
   */
  #reachedRevision = 0;
  /** Live phase: the unread events, and their JSON bytes. */
  readonly #queue: BoundedQueue<CacheEvent>;
  #queuedBytes = 0;
  /** Made when first asked for; settled by #end. */
  #ended: { promise: Promise<void>; resolve(): void } | undefined;
  /** An error the consumer has not seen yet; it ends the iteration once seen. */
  #failure: Error | undefined;
  /** Pending next() calls, oldest first (only while nothing is ready). */
  #waiters: Waiter[] = [];

  constructor(host: WatcherHost, prefix: string, predicate: ObjectPredicate | undefined, bookmarks: boolean) {
    this.#host = host;
    this.prefix = prefix;
    this.predicate = predicate;
    this.bookmarks = bookmarks;
    this.#queue = new BoundedQueue(host.queueLimit);
    this.#phase = 'waiting';
  }

  /** Send `state` first, then (with `end`) that bookmark, then the history from `nextSeq`. */
  startWithState(state: readonly CachedObject[], revision: number, nextSeq: number, end: CacheEvent | undefined): void {
    this.#initial = state;
    this.#initialEnd = end;
    this.#reachedRevision = revision;
    this.#nextSeq = nextSeq;
    this.#phase = 'initial';
    this.#wake();
  }

  /** Send the history from `nextSeq` (the first entry after `fromRevision`). */
  startFromHistory(fromRevision: number, nextSeq: number): void {
    if (this.#phase === 'ended') return;
    this.#reachedRevision = fromRevision;
    this.#nextSeq = nextSeq;
    this.#phase = 'history';
    this.#wake();
  }

  get live(): boolean {
    return this.#phase === 'live';
  }

  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  get ended(): Promise<void> {
    if (this.#ended === undefined) {
      const { promise, resolve } = Promise.withResolvers<void>();
      this.#ended = { promise, resolve };
      if (this.#phase === 'ended') resolve();
    }
    return this.#ended.promise;
  }

  [Symbol.asyncIterator](): AsyncIterator<CacheEvent, undefined> {
    return this;
  }

  next(): Promise<IteratorResult<CacheEvent, undefined>> {
    if (this.#waiters.length === 0) {
      const ready = this.#pull();
      if (ready instanceof Error) return Promise.reject(ready);
      if (ready !== undefined) return Promise.resolve(ready);
    }
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /**
   * Events ready now, up to `max`, without waiting: a consumer that writes several events
   * at once takes them after next() answered. Never the end or a failure: next() tells those.
   */
  takeReady(max: number): CacheEvent[] {
    const ready: CacheEvent[] = [];
    while (ready.length < max && this.#waiters.length === 0 && this.#phase !== 'ended') {
      const result = this.#pull();
      if (result instanceof Error) {
        // #pull hands a failure out once; it is next()'s to tell.
        this.#failure = result;
        break;
      }
      if (result === undefined || result.done === true) break;
      ready.push(result.value);
    }
    return ready;
  }

  /** Called by `for await` on break or throw. */
  return(): Promise<IteratorResult<CacheEvent, undefined>> {
    this.close();
    return Promise.resolve(DONE);
  }

  close(): void {
    if (this.#phase === 'ended') return;
    this.#end();
    this.#failure = undefined;
    for (const waiter of this.#waiters.splice(0)) waiter.resolve(DONE);
  }

  /** End the watch with `failure`, which the consumer's next() rejects with (once). */
  fail(failure: Error): void {
    if (this.#phase === 'ended') return;
    this.#end();
    const waiter = this.#waiters.shift();
    if (waiter === undefined) {
      this.#failure = failure;
      return;
    }
    waiter.reject(failure);
    for (const other of this.#waiters.splice(0)) other.resolve(DONE);
  }

  /**
   * An event of the fan-out (live phase only): the history's entry `seq` (for a bookmark,
   * the history's end). Kept small: it runs per event per watcher.
   */
  push(event: CacheEvent, seq: number): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      this.#reachedRevision = event.revision;
      waiter.resolve({ done: false, value: event });
      return;
    }
    const bytes = eventBytes(event);
    if ((this.#queuedBytes + bytes > this.#host.queueBytes && this.#queue.length > 0) || !this.#queue.push(event)) {
      this.#fallBehind(seq);
      return;
    }
    this.#queuedBytes += bytes;
    this.#reachedRevision = event.revision;
  }

  /** Too much unread: leave the fan-out, and read the history from `seq` once the queue is read. */
  #fallBehind(seq: number): void {
    this.#host.leaveLive(this);
    this.#phase = 'history';
    this.#nextSeq = seq;
  }

  /** The answer to next() if there is one now: a result, an error to reject with, or undefined (wait). */
  #pull(): IteratorResult<CacheEvent, undefined> | Error | undefined {
    for (;;) {
      const queued = this.#queue.shift();
      if (queued !== undefined) {
        this.#queuedBytes -= eventBytes(queued);
        return { done: false, value: queued };
      }
      switch (this.#phase) {
        case 'initial': {
          const event = this.#nextInitial();
          if (event !== undefined) return { done: false, value: event };
          continue;
        }
        case 'history': {
          const event = this.#nextFromHistory();
          if (event !== undefined) return { done: false, value: event };
          continue;
        }
        case 'ended': {
          const failure = this.#failure;
          if (failure === undefined) return DONE;
          this.#failure = undefined;
          return failure;
        }
        default:
          return undefined;
      }
    }
  }

  #nextInitial(): CacheEvent | undefined {
    const state = this.#initial as readonly CachedObject[];
    while (this.#initialIndex < state.length) {
      const item = state[this.#initialIndex++] as CachedObject;
      if (this.predicate === undefined || selects(this.predicate, item)) {
        return { type: 'ADDED', object: item.object, json: item.json, revision: item.revision };
      }
    }
    this.#initial = undefined;
    this.#phase = 'history';
    const end = this.#initialEnd;
    this.#initialEnd = undefined;
    return end;
  }

  /** The next event from the history; at its end, go live. */
  #nextFromHistory(): CacheEvent | undefined {
    const { history } = this.#host;
    if (this.#nextSeq < history.startSeq) {
      this.#fail(this.#host.tooOld(this.#reachedRevision));
      return undefined;
    }
    const end = history.endSeq;
    while (this.#nextSeq < end) {
      const entry = history.at(this.#nextSeq++);
      this.#reachedRevision = entry.revision;
      if (!entry.key.startsWith(this.prefix)) continue;
      if (entry.failure !== undefined) {
        this.#fail(entry.failure);
        return undefined;
      }
      const event = this.predicate === undefined ? entry.event : eventFor(entry, this.predicate, this.#host.freeze);
      if (event !== undefined) return event;
    }
    this.#phase = 'live';
    this.#host.goLive(this);
    return undefined;
  }

  /** Fail from inside #pull: the failure is returned by the #pull that follows. */
  #fail(failure: Error): void {
    this.#end();
    this.#failure = failure;
  }

  /** A phase change while next() calls wait: answer them. */
  #wake(): void {
    while (this.#waiters.length > 0) {
      const ready = this.#pull();
      if (ready === undefined) return;
      const waiter = this.#waiters.shift() as Waiter;
      if (ready instanceof Error) {
        waiter.reject(ready);
        for (const other of this.#waiters.splice(0)) other.resolve(DONE);
        return;
      }
      waiter.resolve(ready);
    }
  }

  /** Stop receiving and release what is held. */
  #end(): void {
    this.#phase = 'ended';
    this.#queue.clear();
    this.#queuedBytes = 0;
    this.#ended?.resolve();
    this.#initial = undefined;
    this.#initialEnd = undefined;
    this.#host.forget(this);
  }
}
