// The watch cache of one resource (DESIGN.md "Watch cache"), after kube-apiserver's
// storage/cacher: it lists the resource's prefix from the backend, then follows the
// backend's watch, keeping
//   - the current objects, in a Map for gets and a sorted structure for lists in
//     O(log n + limit) (sorted-entries.ts);
//   - a window of recent events (history.ts), from which watches at past revisions
//     are served and list snapshots at past revisions are rebuilt (snapshots.ts);
//   - the watchers, fed by one fan-out per event: the event is decoded and encoded
//     once (as the watch stream's line, states.ts), and each watcher only runs its
//     predicate and queues a reference.
// Everything is synchronous between awaits, so the state, the history and the
// watchers always agree on what happened up to `revision`.

import { type KubeObject, type StatusError } from '../api/index.ts';
import { outsideRequest } from '../api/request-context.ts';
import { TimeSlice } from '../api/time-slice.ts';
import { isStorageError, StorageError, type Backend, type KeyValue, type StorageEvent, type Watch } from '../storage/index.ts';
import { encodeJson } from './encode.ts';
import { cacheClosed, cacheInitializing, cacheReinitialized, tooLargeResourceVersion, tooOldResourceVersion } from './errors.ts';
import { EventHistory, eventFor, type HistoryEntry } from './history.ts';
import { searchKeys, SnapshotOverlays, type Overlay } from './snapshots.ts';
import { SortedEntries } from './sorted-entries.ts';
import { CachedState, deletedEvent, plainEvent, stateWithEvent } from './states.ts';
import { selects, type CacheEvent, type CachedObject, type CacheListOptions, type CacheListResult, type CacheWatchOptions, type CacheWatcher } from './types.ts';
import { Watcher, type WatcherHost } from './watcher.ts';

export type { CacheEvent, CacheWatcher } from './types.ts';

export interface WatchCacheOptions {
  backend: Backend;
  /** The resource's key prefix, e.g. "/registry/configmaps/". */
  prefix: string;
  /**
   * Sets apiVersion, kind and metadata.resourceVersion. May throw (a corrupt value): the key
   * is then kept as corrupt with that error, which gets and lists of it answer and which
   * ends the watches that would have seen it (their ERROR event).
   */
  decode(kv: KeyValue): KubeObject;
  /**
   * The JSON of a decoded object straight from its stored bytes, when the stored form
   * allows it (cheaper than encoding the object again); undefined falls back to encoding.
   */
  encode?(kv: KeyValue): Uint8Array | undefined;
  /**
   * Whether a value arriving by the watch is known to decode (its Store encoded it in this
   * process): with `encode`, its object is then decoded when first needed (a watcher's
   * selector, a filtered list, a write reading it), not on arrival; most never are.
   */
  decodesLater?(kv: KeyValue): boolean;
  /**
   * The object a writer in this process encoded into the value, when it said so before
   * writing: with `decodesLater`, the new state takes it as its decoded form on arrival
   * (CachedState.adoptEncoded), before watchers and informers read it.
   */
  writtenObject?(kv: KeyValue): KubeObject | undefined;
  /**
   * The metadata view (metadata-view.ts metadataViewJson) of a value a writer encoded on
   * another thread, when no object was offered: the new state takes it on arrival
   * (CachedState.adoptMetadataView) rather than read it from the JSON.
   */
  writtenView?(kv: KeyValue): string | undefined;
  /** What a BOOKMARK object names. */
  bookmark: { kind: string; apiVersion: string };
  /**
   * Every object's metadata view will be read (in-process metadata informers, e.g. the
   * garbage collector's): make each while loading, from the object just decoded, rather
   * than read it from the JSON again once the decoded objects are collected.
   */
  metadataViewsOnLoad?: boolean;
  /** How long events are kept for watches from past revisions (default 5 minutes, like the backend's compaction). */
  historyWindowMs?: number;
  /** At most this many events are kept, whatever their age (default 102,400, upstream's largest watch cache capacity). */
  maxHistoryEvents?: number;
  /** At most about this many bytes of events are kept, whatever their age (default 256 MiB; see `--watch-cache-window-bytes`). */
  maxHistoryBytes?: number;
  /** How long after it stopped being current a revision can still be listed exactly (Exact, continue), default 75 s. */
  snapshotTtlMs?: number;
  /** How long a read or watch at a revision the cache has not reached waits (default 3 s, as upstream). */
  maxWaitMs?: number;
  /** How long whenReady() waits for the first load before answering 429 (default 60 s). */
  loadWaitMs?: number;
  /** Period of BOOKMARK events (default 1 minute, as upstream). */
  bookmarkIntervalMs?: number;
  /** Events a watcher may leave unread before it is ended (default 1,000). */
  watcherQueueLimit?: number;
  /** Bytes of events a watcher may leave unread before it is ended (default 16 MiB; a single event is always taken). */
  watcherQueueBytes?: number;
  /** While something waits for a revision, how often the backend's current revision is checked (default 100 ms, as upstream's progress requests). */
  progressIntervalMs?: number;
  /** Deep-freeze the objects handed out (default true), so that a reader that changes one fails loudly instead of corrupting what others see. */
  freeze?: boolean;
  now?: () => number;
  log?: (msg: string) => void;
}

interface RevisionWaiter {
  revision: number;
  resolve(): void;
  reject(err: unknown): void;
  timer: NodeJS.Timeout;
}

/**
 * Items per backend list call when (re)filling the cache, unless the backend says
 * otherwise (Backend.fillPageSize). A list call is not sliced, and a request arriving
 * meanwhile waits for it: on SQLite a page of 1,000 ConfigMaps took 6–13 ms to read (37
 * ms the first, in a process that has just started), one of 100 1–9 ms, the whole list
 * the same time.
 */
const LIST_PAGE = 100;
/**
 * While a cache fills, the event loop runs at least this often (milliseconds), so that
 * requests are answered meanwhile: a page of 1,000 objects decodes in 5–10 ms warm, but
 * 30–70 ms in a process that has just started, and a new connection's TLS handshake and
 * first request need several turns. The first /readyz after serving on 10,000 ConfigMaps
 * (the caches of the controllers that start then filling): 41–78 ms with 4 ms slices and
 * pages of 250, 33–58 ms with 2 ms and 100.
 */
const FILL_SLICE_MS = 2;
/** Retry delays after backend failures: doubling from the first, up to the last. */
const RETRY_MIN_MS = 50;
const RETRY_MAX_MS = 5_000;
/** A backend watch that lived this long was healthy: the retry delay starts over. */
const HEALTHY_WATCH_MS = 10_000;

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/**
 * The history's default byte bound, per resource. It keeps the whole 5-minute window
 * for 10 KiB objects written up to ~85 times a second, and never bites before the
 * 102,400-event bound for objects under ~2.5 KiB; past that one hot resource of large
 * objects cannot take more than this, and watches from before its window get 410.
 */
const DEFAULT_HISTORY_BYTES = 256 * 1024 * 1024;
/** A watcher's default unread backlog in bytes: 1,000 events (the count bound) of 16 KiB. */
const DEFAULT_WATCHER_QUEUE_BYTES = 16 * 1024 * 1024;

export class WatchCache {
  readonly #backend: Backend;
  readonly #prefix: string;
  readonly #decode: (kv: KeyValue) => KubeObject;
  readonly #encode: ((kv: KeyValue) => Uint8Array | undefined) | undefined;
  readonly #decodesLater: ((kv: KeyValue) => boolean) | undefined;
  readonly #writtenObject: ((kv: KeyValue) => KubeObject | undefined) | undefined;
  readonly #writtenView: ((kv: KeyValue) => string | undefined) | undefined;
  readonly #metadataViewsOnLoad: boolean;
  readonly #bookmarkType: { kind: string; apiVersion: string };
  readonly #historyWindowMs: number;
  readonly #maxHistoryEvents: number;
  readonly #maxHistoryBytes: number;
  readonly #snapshotTtlMs: number;
  readonly #maxWaitMs: number;
  readonly #loadWaitMs: number;
  readonly #bookmarkIntervalMs: number;
  readonly #progressIntervalMs: number;
  readonly #freeze: boolean;
  readonly #now: () => number;
  readonly #log: (msg: string) => void;

  /** Current objects by key, and the same in key order. */
  #objects = new Map<string, CachedObject>();
  #sorted = new SortedEntries<CachedObject>();
  /** Keys whose current value cannot be decoded, with the error that says so and the value's revision. */
  #corrupt = new Map<string, { error: Error; modRevision: number }>();
  /** A read of the corrupt keys again (retryCorrupt), while one runs. */
  #retrying: Promise<void> | undefined;
  readonly #history = new EventHistory(0);
  readonly #overlays = new SnapshotOverlays();
  #revision = 0;

  /** Every watcher not yet ended. */
  readonly #watchers = new Set<Watcher>();
  /** Live watchers by prefix: an event is offered to the groups whose prefix its key has. */
  readonly #live = new Map<string, Set<Watcher>>();
  readonly #host: WatcherHost;

  readonly #waiters = new Set<RevisionWaiter>();
  #progressLoop: Promise<void> | undefined;

  /** Bumped by every (re)list and (re)watch: a consumer of an older backend watch stops. */
  #epoch = 0;
  /** The current backend watch, while it is believed healthy. */
  #backendWatch: Watch | undefined;
  #backendWatchStarted = 0;
  #failures = 0;
  #bookmarkTimer: NodeJS.Timeout | undefined;
  #started = false;
  #closed = false;
  /** Settled by the first load (or by close() before it). */
  readonly #loaded = deferred();
  #ready = false;

  constructor(opts: WatchCacheOptions) {
    this.#backend = opts.backend;
    this.#prefix = opts.prefix;
    this.#decode = opts.decode;
    this.#encode = opts.encode;
    this.#decodesLater = opts.decodesLater;
    this.#writtenObject = opts.writtenObject;
    this.#writtenView = opts.writtenView;
    this.#metadataViewsOnLoad = opts.metadataViewsOnLoad === true;
    this.#bookmarkType = { kind: opts.bookmark.kind, apiVersion: opts.bookmark.apiVersion };
    this.#historyWindowMs = opts.historyWindowMs ?? 5 * 60_000;
    this.#maxHistoryEvents = opts.maxHistoryEvents ?? 102_400;
    this.#maxHistoryBytes = opts.maxHistoryBytes ?? DEFAULT_HISTORY_BYTES;
    this.#snapshotTtlMs = opts.snapshotTtlMs ?? 75_000;
    this.#maxWaitMs = opts.maxWaitMs ?? 3_000;
    this.#loadWaitMs = opts.loadWaitMs ?? 60_000;
    this.#bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 60_000;
    this.#progressIntervalMs = opts.progressIntervalMs ?? 100;
    this.#freeze = opts.freeze ?? true;
    this.#now = opts.now ?? Date.now;
    this.#log = opts.log ?? ((msg) => console.error(msg));
    this.#host = {
      history: this.#history,
      queueLimit: opts.watcherQueueLimit ?? 1_000,
      queueBytes: opts.watcherQueueBytes ?? DEFAULT_WATCHER_QUEUE_BYTES,
      freeze: this.#freeze,
      goLive: (watcher) => {
        let group = this.#live.get(watcher.prefix);
        if (group === undefined) this.#live.set(watcher.prefix, (group = new Set()));
        group.add(watcher);
      },
      forget: (watcher) => {
        this.#watchers.delete(watcher);
        this.#host.leaveLive(watcher);
      },
      leaveLive: (watcher) => {
        const group = this.#live.get(watcher.prefix);
        if (group !== undefined && group.delete(watcher) && group.size === 0) this.#live.delete(watcher.prefix);
      },
      tooOld: (revision) => tooOldResourceVersion(revision, this.#history.startRevision),
    };
  }

  /**
   * Start loading: list the prefix (in pages, letting the event loop run between them),
   * then follow the backend's watch. Resolves once the cache serves; a failed load is
   * retried (backing off) until it succeeds, so this rejects only when the cache is
   * closed first. Calling it again answers the same promise: whoever needs the cache
   * first starts it, which is how caches load lazily.
   */
  start(): Promise<void> {
    if (!this.#started && !this.#closed) {
      this.#started = true;
      // The cache serves every request: whichever started it does not own its reads and watch.
      outsideRequest(() => {
        void this.#relist().catch((err: unknown) => this.#recover(err));
        this.#bookmarkTimer = setInterval(() => this.#sendBookmarks(), this.#bookmarkIntervalMs);
      });
      this.#bookmarkTimer?.unref();
    }
    return this.#loaded.promise;
  }

  /** Whether the first load is done: until then get, list and watch cannot be served from the cache. */
  get ready(): boolean {
    return this.#ready;
  }

  /**
   * Resolve once the cache has loaded, starting the load if nobody has. After
   * loadWaitMs: 429 "storage is (re)initializing" with Retry-After 1, as upstream
   * answers while its cache initializes.
   */
  whenReady(): Promise<void> {
    if (this.#ready) return Promise.resolve();
    const loaded = this.start();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(cacheInitializing()), this.#loadWaitMs);
      timer.unref();
      loaded.then(resolve, reject).finally(() => clearTimeout(timer));
    });
  }

  /** End every watcher (their iterations finish), stop following the backend, fail pending waits. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#epoch++;
    clearInterval(this.#bookmarkTimer);
    this.#backendWatch?.close();
    this.#backendWatch = undefined;
    for (const watcher of [...this.#watchers]) watcher.close();
    for (const waiter of [...this.#waiters]) this.#settleWaiter(waiter, cacheClosed());
    if (!this.#ready) this.#loaded.reject(cacheClosed());
  }

  /** The latest revision the cache has applied, or learnt that its prefix has no events up to. */
  get revision(): number {
    return this.#revision;
  }

  /** Watchers not yet ended (for tests and metrics: a closed watch must not linger). */
  get watcherCount(): number {
    return this.#watchers.size;
  }

  /** Objects currently cached. */
  get size(): number {
    return this.#objects.size;
  }

  /** Events in the history window, and about how many bytes they hold (for tests and metrics). */
  get historyStats(): { events: number; bytes: number } {
    return { events: this.#history.length, bytes: this.#history.bytes };
  }

  /**
   * Resolve once the cache has seen `revision`. Meanwhile the backend's current
   * revision is checked every progressIntervalMs, so that writes to other prefixes
   * count as progress. After maxWaitMs: 504 "Too large resource version", as upstream.
   */
  waitForRevision(revision: number, requested?: string): Promise<void> {
    if (revision <= this.#revision) return Promise.resolve();
    if (this.#closed) return Promise.reject(cacheClosed());
    return new Promise((resolve, reject) => {
      const waiter: RevisionWaiter = {
        revision,
        resolve,
        reject,
        timer: setTimeout(() => this.#settleWaiter(waiter, tooLargeResourceVersion(requested ?? revision, this.#revision)), this.#maxWaitMs),
      };
      this.#waiters.add(waiter);
      this.#progressLoop ??= this.#followProgress();
    });
  }

  /**
   * Whether a consistent read may be answered at once: the backend tells its current
   * revision without a round trip (one in this process) and the cache has reached it.
   * Otherwise the read waits in waitUntilFresh.
   */
  isFreshNow(): boolean {
    if (this.#closed) return false;
    const current = this.#backend.currentRevisionNow?.();
    if (current === undefined) return false;
    if (current <= this.#revision) return true;
    // Writes under other prefixes moved the revision. When our backend watch has nothing
    // queued and waits for more, we have applied every event of ours up to `current`:
    // the revision is ours without the turn #syncProgress waits for.
    if (this.#backendWatch?.caughtUp !== true) return false;
    this.#setRevision(current);
    return true;
  }

  /** A consistent read: wait until the cache has the backend's current revision; resolves with the cache's revision then. */
  async waitUntilFresh(): Promise<number> {
    if (this.#closed) throw cacheClosed();
    const current = await this.#syncProgress();
    await this.waitForRevision(current);
    return this.#revision;
  }

  /**
   * The object a writer in this process encoded into `key`'s current state at `revision`,
   * so the cache need not decode that state's JSON when the object is first asked for
   * (CachedState.adopt). The writer must not change it afterwards: it is frozen.
   */
  adopt(key: string, revision: number, object: KubeObject): boolean {
    const state = this.#objects.get(key);
    return state instanceof CachedState && state.revision === revision && state.adopt(object);
  }

  get(key: string): CachedObject | undefined {
    return this.#objects.get(key);
  }

  /** The error of a key whose current value cannot be decoded (get answers undefined for it). */
  corruptError(key: string): Error | undefined {
    return this.#corrupt.get(key)?.error;
  }

  /**
   * Reads the corrupt keys again from the backend, once at a time. A value that now reads
   * at the revision it was corrupt at (its key management service back, its key added by a
   * configuration reload) takes the corrupt entry's place: the state at that revision is the
   * same, now readable, so gets and lists answer it; watchers are not told anything (those
   * that would have seen it ended with its error and list again). Without corrupt keys, nothing.
   */
  retryCorrupt(): Promise<void> {
    if (this.#corrupt.size === 0) return Promise.resolve();
    this.#retrying ??= this.#readCorruptAgain().finally(() => {
      this.#retrying = undefined;
    });
    return this.#retrying;
  }

  async #readCorruptAgain(): Promise<void> {
    const epoch = this.#epoch;
    for (const [key, entry] of [...this.#corrupt]) {
      const kv = await this.#backend.get(key).catch(() => undefined);
      // Changed meanwhile (a later write's event, a re-list): that answer stands.
      if (kv === undefined || epoch !== this.#epoch || this.#corrupt.get(key) !== entry || kv.modRevision !== entry.modRevision) continue;
      let object: KubeObject;
      try {
        object = this.#decode(kv);
      } catch (err) {
        // Still unreadable: its error as it is now.
        this.#corrupt.set(key, { error: err instanceof Error ? err : new Error(String(err)), modRevision: entry.modRevision });
        continue;
      }
      this.#corrupt.delete(key);
      const state = this.#cached(key, object, kv.modRevision, kv);
      this.#objects.set(key, state);
      this.#sorted.set(state);
    }
  }

  /** Corrupt keys under `prefix` after `startAfter` and up to `through` (inclusive) when given, in key order. */
  #corruptIn(prefix: string, startAfter: string | undefined, through: string | undefined): Error[] {
    if (this.#corrupt.size === 0) return [];
    const { after, inclusive } = keyRange(prefix, startAfter);
    const keys = [...this.#corrupt.keys()].filter((key) => key.startsWith(prefix) && (inclusive ? key >= after : key > after) && (through === undefined || key <= through));
    return keys.sort().map((key) => this.#corrupt.get(key)!.error);
  }

  /**
   * Keys under `prefix` in order, after `startAfter`, at `revision` (default: now).
   * A past revision is served while it is in the history and stopped being current
   * less than snapshotTtlMs ago; otherwise `undefined`, and the caller reads the
   * backend instead. Costs O(log n + examined keys), plus for a past revision the
   * keys written since it (snapshots.ts).
   */
  list(opts: CacheListOptions): CacheListResult | undefined {
    if (this.#closed) return undefined;
    this.#trimHistory();
    const revision = opts.revision === undefined || opts.revision === 0 ? this.#revision : opts.revision;
    if (revision > this.#revision || revision < this.#history.startRevision) return undefined;
    const seq = this.#history.seqAfter(revision);
    if (seq === this.#history.endSeq) {
      const result = this.#listCurrent(opts, revision);
      const corrupt = this.#corruptIn(opts.prefix, opts.startAfter, result.more ? result.items[result.items.length - 1]?.key : undefined);
      return corrupt.length === 0 ? result : { ...result, corrupt };
    }
    if (this.#history.at(seq).time < this.#now() - this.#snapshotTtlMs) return undefined;
    return this.#listSnapshot(opts, this.#overlays.at(revision, this.#history));
  }

  /**
   * Events for keys under `prefix` after `fromRevision`, or first the current state
   * (initialEvents). Throws 410 Expired when `fromRevision` is older than the
   * history; a future `fromRevision` waits like waitForRevision (its 504 comes out
   * of the iteration). A consumer that leaves more than watcherQueueLimit events (or
   * watcherQueueBytes) unread goes on from the history (watcher.ts); the iteration ends
   * with 410 when the history no longer holds what it has not read, or when the cache
   * had to re-list from the backend (the client re-lists too).
   */
  watch(opts: CacheWatchOptions): CacheWatcher {
    if (this.#closed) throw cacheClosed();
    this.#trimHistory();
    const watcher = new Watcher(this.#host, opts.prefix, opts.predicate, opts.bookmarks === true);
    if (opts.initialEvents === true) {
      const revision = this.#revision;
      const end = opts.bookmarks === true && opts.initialEventsEnd !== false ? this.#bookmark(revision, true) : undefined;
      this.#watchers.add(watcher);
      watcher.startWithState(this.#snapshotItems(opts.prefix), revision, this.#history.endSeq, end);
      // The state holds a value that cannot be decoded: the watch ends with its error, as a list would.
      const corrupt = this.#corruptIn(opts.prefix, undefined, undefined)[0];
      if (corrupt !== undefined) watcher.fail(corrupt);
      return watcher;
    }
    const from = opts.fromRevision;
    if (from < this.#history.startRevision) throw tooOldResourceVersion(from, this.#history.startRevision);
    this.#watchers.add(watcher);
    if (from <= this.#revision) {
      watcher.startFromHistory(from, this.#history.seqAfter(from));
    } else {
      this.waitForRevision(from).then(
        () => {
          if (from < this.#history.startRevision) watcher.fail(tooOldResourceVersion(from, this.#history.startRevision));
          else watcher.startFromHistory(from, this.#history.seqAfter(from));
        },
        (err: unknown) => watcher.fail(err as StatusError),
      );
    }
    return watcher;
  }

  // ---- reads ----

  #listCurrent(opts: CacheListOptions, revision: number): CacheListResult {
    const { after, inclusive, end } = keyRange(opts.prefix, opts.startAfter);
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Infinity;
    const { predicate } = opts;
    const items: CachedObject[] = [];
    const cursor = this.#sorted.seek(after, inclusive);
    for (;;) {
      const item = cursor.next();
      if (item === undefined || (end !== undefined && item.key >= end)) return { items, revision, more: false, remaining: 0 };
      if (predicate !== undefined && !selects(predicate, item)) continue;
      items.push(item);
      if (items.length === limit) {
        const remaining = this.#sorted.countBetween(item.key, end);
        return { items, revision, more: remaining > 0, remaining };
      }
    }
  }

  /** Walk the current state and the overlay of keys written since the revision side by side (snapshots.ts). */
  #listSnapshot(opts: CacheListOptions, overlay: Overlay): CacheListResult {
    const { after, inclusive, end } = keyRange(opts.prefix, opts.startAfter);
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Infinity;
    const { predicate } = opts;
    const { states, keys } = overlay;
    const items: CachedObject[] = [];
    const cursor = this.#sorted.seek(after, inclusive);
    let next = searchKeys(keys, after, inclusive);
    for (;;) {
      let current = cursor.peek();
      while (current !== undefined && states.has(current.key)) {
        cursor.next();
        current = cursor.peek();
      }
      if (current !== undefined && end !== undefined && current.key >= end) current = undefined;
      let changedKey: string | undefined = keys[next];
      if (changedKey !== undefined && end !== undefined && changedKey >= end) changedKey = undefined;
      let item: CachedObject | undefined;
      if (current !== undefined && (changedKey === undefined || current.key < changedKey)) {
        item = cursor.next();
      } else if (changedKey !== undefined) {
        next++;
        item = states.get(changedKey);
        if (item === undefined) continue; // absent at that revision
      } else {
        return { items, revision: overlay.revision, more: false, remaining: 0 };
      }
      const found = item as CachedObject;
      if (predicate !== undefined && !selects(predicate, found)) continue;
      items.push(found);
      if (items.length === limit) {
        const remaining = this.#countAt(overlay, found.key, end);
        return { items, revision: overlay.revision, more: remaining > 0, remaining };
      }
    }
  }

  /** Keys present at the overlay's revision with `after` < key < `end`. */
  #countAt(overlay: Overlay, after: string, end: string | undefined): number {
    let count = this.#sorted.countBetween(after, end);
    const { keys, states } = overlay;
    for (let i = searchKeys(keys, after, false); i < keys.length; i++) {
      const key = keys[i] as string;
      if (end !== undefined && key >= end) break;
      if (this.#objects.has(key)) count--;
      if (states.get(key) !== undefined) count++;
    }
    return count;
  }

  /** The current objects under `prefix`, in key order, for a watch's initial events. */
  #snapshotItems(prefix: string): CachedObject[] {
    const { after, inclusive, end } = keyRange(prefix, undefined);
    const items: CachedObject[] = [];
    const cursor = this.#sorted.seek(after, inclusive);
    for (let item = cursor.next(); item !== undefined && (end === undefined || item.key < end); item = cursor.next()) items.push(item);
    return items;
  }

  // ---- following the backend ----

  /** Fill the cache from a list of the prefix, then watch from the list's revision. */
  async #relist(): Promise<void> {
    const epoch = ++this.#epoch;
    this.#backendWatch?.close();
    this.#backendWatch = undefined;
    const items: CachedObject[] = [];
    const corrupt = new Map<string, { error: Error; modRevision: number }>();
    let revision: number | undefined;
    let startAfter: string | undefined;
    const stale = () => epoch !== this.#epoch || this.#closed;
    const slice = new TimeSlice(FILL_SLICE_MS);
    for (;;) {
      const page = await this.#backend.list(this.#prefix, { revision, limit: this.#backend.fillPageSize ?? LIST_PAGE, startAfter, countRemaining: false });
      if (stale()) return;
      revision ??= page.revision;
      for (let i = 0; i < page.items.length; i++) {
        const kv = page.items[i]!;
        const object = this.#decodeOrLog(kv);
        if (object instanceof Error) corrupt.set(kv.key, { error: object, modRevision: kv.modRevision });
        else items.push(this.#cached(kv.key, object, kv.modRevision, kv));
        if (slice.due(i)) {
          await slice.next();
          if (stale()) return;
        }
      }
      if (!page.more || page.items.length === 0) break;
      startAfter = (page.items[page.items.length - 1] as KeyValue).key;
      await slice.next();
      if (stale()) return;
    }
    const listed = revision as number;
    if (this.#revision > 0) this.#log(`watch cache ${this.#prefix}: re-listed at revision ${listed}; ending ${this.#watchers.size} watchers, which re-list`);
    // Watchers cannot be told what changed between the last event they got and the
    // list, so they end and their clients re-list, like upstream's cacher does.
    for (const watcher of [...this.#watchers]) watcher.fail(cacheReinitialized(listed));
    this.#objects = new Map(items.map((item) => [item.key, item]));
    this.#corrupt = corrupt;
    this.#sorted = SortedEntries.fromSorted(items);
    this.#history.reset(listed);
    this.#overlays.clear();
    this.#setRevision(listed);
    this.#watchFrom(listed);
    if (!this.#ready) {
      this.#ready = true;
      this.#loaded.resolve();
    }
  }

  #watchFrom(revision: number): void {
    const epoch = ++this.#epoch;
    const watch = this.#backend.watch(this.#prefix, revision);
    this.#backendWatch = watch;
    this.#backendWatchStarted = this.#now();
    void this.#consume(watch, epoch);
  }

  async #consume(watch: Watch, epoch: number): Promise<void> {
    let failure: unknown;
    try {
      for await (const event of watch) {
        if (epoch !== this.#epoch) return;
        this.#apply(event);
      }
      failure = new StorageError('Unavailable', 'the backend ended the watch');
    } catch (err) {
      failure = err;
    }
    if (epoch !== this.#epoch || this.#closed) return;
    this.#backendWatch = undefined;
    if (this.#now() - this.#backendWatchStarted > HEALTHY_WATCH_MS) this.#failures = 0;
    await this.#recover(failure);
  }

  /**
   * After the backend watch failed: watch again from the last applied revision,
   * which loses nothing; when that history is compacted (or anything but a
   * transient failure), re-list. Retries back off while the backend keeps failing.
   */
  async #recover(failure: unknown): Promise<void> {
    for (;;) {
      if (this.#closed) return;
      const delay = this.#failures === 0 ? 0 : Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (this.#failures - 1));
      this.#failures++;
      // Until the first load succeeds there is nothing to watch on from: list again.
      const relist = !this.#ready || !isStorageError(failure, 'Unavailable');
      const what = this.#ready ? `backend watch failed at revision ${this.#revision}` : 'loading failed';
      this.#log(`watch cache ${this.#prefix}: ${what} (${(failure as Error)?.message ?? String(failure)}); ${relist ? 're-listing' : 'watching again'}${delay > 0 ? ` in ${delay} ms` : ''}`);
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay).unref());
      if (this.#closed) return;
      try {
        if (relist) await this.#relist();
        else this.#watchFrom(this.#revision);
        return;
      } catch (err) {
        if (this.#closed) return;
        failure = err;
      }
    }
  }

  /** One backend event: update the state, record it, fan it out. */
  #apply(event: StorageEvent): void {
    const prev = this.#objects.get(event.kv.key);
    // The key string the cache already holds, rather than one more copy per event in the history.
    const key = prev?.key ?? event.kv.key;
    const { revision } = event;
    let current: CachedState | undefined;
    let cacheEvent: CacheEvent;
    if (revision <= this.#revision) this.#log(`watch cache ${this.#prefix}: event at revision ${revision} arrived after revision ${this.#revision}`);
    // A value this process encoded is kept as its JSON alone until its object is needed.
    const json = event.type === 'put' ? this.#encode?.(event.kv) : undefined;
    const later = json !== undefined && this.#decodesLater?.(event.kv) === true;
    const decoded = event.type === 'put' && !later ? this.#decodeOrLog(event.kv) : undefined;
    if (decoded instanceof Error) {
      this.#applyCorrupt(key, prev, decoded, revision);
      return;
    }
    const object = decoded;
    // A corrupt key written with a good value, or deleted, is no longer corrupt.
    const wasCorrupt = this.#corrupt.delete(key);
    if (object !== undefined || later) {
      // One array holds the event's line for watchers and the new state's JSON.
      const made = stateWithEvent(prev === undefined ? 'ADDED' : 'MODIFIED', key, object, json, event.kv.modRevision, revision, this.#freeze);
      current = made.state;
      cacheEvent = made.event;
      if (later) {
        const written = this.#writtenObject?.(event.kv);
        if (written !== undefined) current.adoptEncoded(written);
        else {
          const view = this.#writtenView?.(event.kv);
          if (view !== undefined) current.adoptMetadataView(view);
        }
      }
      this.#objects.set(key, current);
      this.#sorted.set(current);
    } else if (prev !== undefined) {
      this.#objects.delete(key);
      this.#sorted.delete(key);
      cacheEvent = deletedEvent(prev, revision, this.#freeze);
    } else if (wasCorrupt) {
      // A corrupt object deleted (unsafe deletion): watchers hear DELETED with what the key says of it.
      const tombstone = this.#tombstone(key, revision);
      this.#fanOut(this.#history.push({ revision, time: this.#now(), key, current: undefined, prev: tombstone, event: deletedEvent(tombstone, revision, this.#freeze) }));
      this.#setRevision(revision);
      return;
    } else {
      this.#setRevision(revision);
      return;
    }
    if (this.#freeze) {
      Object.freeze(cacheEvent);
      if (current !== undefined) Object.freeze(current);
    }
    const entry = this.#history.push({ revision, time: this.#now(), key, current, prev, event: cacheEvent });
    this.#trimHistory();
    this.#fanOut(entry);
    // The superseded state stays in the history by its bytes; its decoded form goes once
    // whoever holds it is done with it. Released after the fan-out, whose selectors read
    // its metadata view, which it lets go then.
    if (prev instanceof CachedState) prev.release();
    this.#setRevision(revision);
  }

  /** Offer an event to the live watchers whose prefix covers its key. Per watcher: a predicate and a queue push. */
  #fanOut(entry: HistoryEntry): void {
    for (const [prefix, group] of this.#live) {
      if (!entry.key.startsWith(prefix)) continue;
      if (entry.failure !== undefined) {
        for (const watcher of [...group]) watcher.fail(entry.failure);
        continue;
      }
      // A watcher that falls behind leaves the group as it is pushed to (a Set's iteration allows it).
      for (const watcher of group) {
        if (watcher.predicate === undefined) {
          watcher.push(entry.event, entry.seq);
          continue;
        }
        const event = eventFor(entry, watcher.predicate, this.#freeze);
        if (event !== undefined) watcher.push(event, entry.seq);
      }
    }
  }

  #setRevision(revision: number): void {
    if (revision <= this.#revision) return;
    this.#revision = revision;
    for (const waiter of this.#waiters) if (waiter.revision <= revision) this.#settleWaiter(waiter);
  }

  #settleWaiter(waiter: RevisionWaiter, err?: unknown): void {
    if (!this.#waiters.delete(waiter)) return;
    clearTimeout(waiter.timer);
    if (err === undefined) waiter.resolve();
    else waiter.reject(err);
  }

  /** While anyone waits for a revision, check the backend's progress every progressIntervalMs. */
  async #followProgress(): Promise<void> {
    try {
      while (this.#waiters.size > 0 && !this.#closed) {
        try {
          await this.#syncProgress();
        } catch (err) {
          this.#log(`watch cache ${this.#prefix}: reading the backend's revision failed: ${(err as Error).message}`);
        }
        if (this.#waiters.size === 0) break;
        await new Promise((resolve) => setTimeout(resolve, this.#progressIntervalMs).unref());
      }
    } finally {
      this.#progressLoop = undefined;
    }
  }

  /**
   * Ask the backend for its current revision R and, when the cache's backend watch
   * was healthy throughout, count R as reached even if no event of this prefix
   * carried it (writes to other prefixes move the revision too). This stands in for
   * etcd's progress notifications and rests on the Backend contract: a write's
   * events reach the live watches in the same synchronous step that makes its
   * revision current (both backends publish as they commit). So when R is read, the
   * events up to R are already queued in our watch, and our consumer applies them in
   * microtasks; one macrotask later (setImmediate) they are all applied.
   *
   * A remote backend (etcd) publishes no such step: another server's write reaches our
   * watch over the network after its revision is current. There the revision counts only
   * when the backend shows the prefix unwritten since the cache's revision, with as many
   * keys as the cache holds (changesSince); else the events on their way will move it.
   */
  async #syncProgress(): Promise<number> {
    const epoch = this.#epoch;
    const watching = this.#backendWatch !== undefined;
    const after = this.#revision;
    const held = this.#objects.size + this.#corrupt.size;
    let current: number;
    let proven = true;
    if (this.#backend.changesSince === undefined) {
      current = await this.#backend.currentRevision();
    } else {
      const changes = await this.#backend.changesSince(this.#prefix, after);
      current = changes.revision;
      proven = !changes.changed && changes.keys === held;
    }
    if (current <= this.#revision) return current;
    await new Promise((resolve) => setImmediate(resolve));
    // A remote backend's watch replaying older history (or reopening) may not have them yet.
    const watch = this.#backendWatch;
    if (proven && watching && epoch === this.#epoch && watch !== undefined && watch.settled !== false && !this.#closed) this.#setRevision(current);
    return current;
  }

  #sendBookmarks(): void {
    let bookmark: CacheEvent | undefined;
    for (const group of this.#live.values()) {
      for (const watcher of group) {
        if (!watcher.bookmarks) continue;
        bookmark ??= this.#bookmark(this.#revision, false);
        watcher.push(bookmark, this.#history.endSeq);
      }
    }
  }

  #bookmark(revision: number, initialEventsEnd: boolean): CacheEvent {
    const metadata: KubeObject['metadata'] = { resourceVersion: String(revision) };
    if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END]: 'true' };
    const object: KubeObject = { kind: this.#bookmarkType.kind, apiVersion: this.#bookmarkType.apiVersion, metadata };
    return plainEvent('BOOKMARK', object, revision, this.#freeze);
  }

  #trimHistory(): void {
    const before = this.#history.startRevision;
    this.#history.trim(this.#now() - this.#historyWindowMs, this.#maxHistoryEvents, this.#maxHistoryBytes);
    if (this.#history.startRevision !== before) this.#overlays.dropBefore(this.#history.startRevision);
  }

  #decodeOrLog(kv: KeyValue): KubeObject | Error {
    try {
      return this.#decode(kv);
    } catch (err) {
      this.#log(`watch cache ${this.#prefix}: ${kv.key} at revision ${kv.modRevision} cannot be decoded: ${(err as Error).message}`);
      return err instanceof Error ? err : new Error(String(err));
    }
  }

  /**
   * A put whose value cannot be decoded: the key is corrupt from now on; the object it held
   * leaves the state, and the watches that would see the change end with the error (an
   * ERROR event, as upstream's storage watch), also those that replay it from the history.
   */
  #applyCorrupt(key: string, prev: CachedObject | undefined, error: Error, revision: number): void {
    this.#corrupt.set(key, { error, modRevision: revision });
    if (prev !== undefined) {
      this.#objects.delete(key);
      this.#sorted.delete(key);
      if (prev instanceof CachedState) prev.release();
    }
    // The event is never sent (the failure is); it stands for the entry's bytes in the history.
    const placeholder = deletedEvent(prev ?? this.#tombstone(key, revision), revision, this.#freeze);
    const entry = this.#history.push({ revision, time: this.#now(), key, current: undefined, prev, event: placeholder, failure: error });
    this.#trimHistory();
    this.#fanOut(entry);
    this.#setRevision(revision);
  }

  /** What the key alone says of an object that cannot be decoded: its name and namespace. */
  #tombstone(key: string, revision: number): CachedState {
    const [first = '', second] = key.slice(this.#prefix.length).split('/');
    const metadata: KubeObject['metadata'] = second === undefined ? { name: first } : { name: second, namespace: first };
    metadata.resourceVersion = String(revision);
    const object: KubeObject = { kind: this.#bookmarkType.kind, apiVersion: this.#bookmarkType.apiVersion, metadata };
    return new CachedState(key, encodeJson(object), revision, object, this.#freeze);
  }

  #cached(key: string, object: KubeObject, revision: number, kv: KeyValue): CachedState {
    const cached = new CachedState(key, this.#encode?.(kv) ?? encodeJson(object), revision, object, this.#freeze);
    if (this.#metadataViewsOnLoad) void cached.metadataView;
    if (this.#freeze) Object.freeze(cached);
    return cached;
  }
}

function deferred(): { promise: Promise<void>; resolve(): void; reject(err: unknown): void } {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Settled whether or not anyone waits: a close() before the load is no unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** Where a list under `prefix` starts (after `startAfter` when that is inside the prefix) and ends (exclusive). */
function keyRange(prefix: string, startAfter: string | undefined): { after: string; inclusive: boolean; end: string | undefined } {
  const end = prefixEnd(prefix);
  if (startAfter !== undefined && startAfter >= prefix) return { after: startAfter, inclusive: false, end };
  return { after: prefix, inclusive: true, end };
}

/** The smallest string above every string starting with `prefix` (undefined: none), like etcd's GetPrefixRangeEnd. */
function prefixEnd(prefix: string): string | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const code = prefix.charCodeAt(i);
    if (code < 0xffff) return prefix.slice(0, i) + String.fromCharCode(code + 1);
  }
  return undefined;
}
