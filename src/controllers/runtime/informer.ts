// An informer, after client-go's: it lists a resource, then watches it from the
// list's resourceVersion, keeping an IndexedStore of the current objects and telling
// handlers what was added, updated and deleted. A watch that ends is started again
// from the last resourceVersion seen (bookmarks keep it recent); a watch refused or
// ended with 410 (its place in the history is gone, or the watch cache re-listed)
// makes it list again, and the differences to its store become events, so handlers
// miss nothing but intermediate states. Reads go through the Store's read side, which
// serves them from the watch cache.

import { isStatusError, type KubeObject } from '../../api/index.ts';
import { TimeSlice } from '../../api/time-slice.ts';
import type { CacheEvent, CacheWatcher } from '../../cache/index.ts';
import type { ObjectFilter } from '../../registry/filter.ts';
import type { ListPage, ListRequest, WatchRequest } from '../../registry/read-path.ts';
import { Backoff, type BackoffOptions } from './backoff.ts';
import { sleep, systemClock, type Clock } from './clock.ts';
import { IndexedStore, objectKey, type IndexFunc } from './indexed-store.ts';

/** At most this many queued events are taken in one step of the watch. */
const maxEventsPerTurn = 256;

/** While an informer takes in a list, the event loop turns at least this often (milliseconds). */
const LIST_SLICE_MS = 4;

/** What an informer reads: the read side of a registry Store. */
export interface InformerSource {
  list(namespace: string, req?: ListRequest): Promise<ListPage>;
  watch(namespace: string, req: WatchRequest): Promise<CacheWatcher>;
}

/** Called synchronously as the store changes; they should only queue work. */
export interface InformerHandlers {
  add?(object: KubeObject): void;
  /** Also for every object still there after a re-list, as client-go does: compare resourceVersions to skip those. */
  update?(old: KubeObject, current: KubeObject): void;
  /** With the last state seen (after a re-list, the state before the gap). */
  delete?(object: KubeObject): void;
}

export interface InformerOptions {
  source: InformerSource;
  /** Names the resource in log lines, e.g. "namespaces". */
  resource: string;
  /** Only the objects matching this (a field or label selector, as clients send). */
  filter?: ObjectFilter;
  indexers?: Readonly<Record<string, IndexFunc>>;
  /**
   * Keep and hand out kind, apiVersion and metadata only (without managedFields), as
   * client-go's metadata informers: the cache reads them without decoding the objects.
   */
  metadataOnly?: boolean;
  clock?: Clock;
  /** Delays between attempts while listing or watching keeps failing (default 50 ms doubling to 5 s). */
  retry?: BackoffOptions;
  log: (message: string) => void;
}

export class Informer {
  readonly store: IndexedStore;
  readonly #source: InformerSource;
  readonly #resource: string;
  readonly #filter: ObjectFilter | undefined;
  readonly #metadataOnly: boolean;
  readonly #clock: Clock;
  readonly #retry: Backoff;
  readonly #log: (message: string) => void;
  readonly #handlers: InformerHandlers[] = [];
  #resourceVersion = '';
  /** Lists completed, for tests and logs. */
  #lists = 0;
  #synced = false;
  #syncWaiters: { resolve(): void; reject(err: Error): void }[] = [];
  #loop: Promise<void> | undefined;
  #watcher: CacheWatcher | undefined;
  #pause: { cancel(): void } | undefined;
  #stopped = false;

  constructor(opts: InformerOptions) {
    this.store = new IndexedStore(opts.indexers);
    this.#source = opts.source;
    this.#resource = opts.resource;
    this.#filter = opts.filter;
    this.#metadataOnly = opts.metadataOnly === true;
    this.#clock = opts.clock ?? systemClock;
    this.#retry = new Backoff({ baseMs: 50, maxMs: 5_000, ...opts.retry });
    this.#log = opts.log;
  }

  /** Handlers added after the first list hear of the objects already stored as adds, as in client-go. */
  addHandlers(handlers: InformerHandlers): void {
    this.#handlers.push(handlers);
    if (!this.#synced) return;
    for (const object of this.store.list()) {
      try {
        handlers.add?.(object);
      } catch (err) {
        this.#handlerFailed('add', err);
      }
    }
  }

  get hasSynced(): boolean {
    return this.#synced;
  }

  /** The resourceVersion the store is at. */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** How many lists were applied (the first one and every re-list). */
  get lists(): number {
    return this.#lists;
  }

  /** Starts listing and watching; resolves once the first list is in the store (retrying until it is), rejects if stopped before. */
  start(): Promise<void> {
    if (this.#stopped) return Promise.reject(new Error(`informer for ${this.#resource} is stopped`));
    this.#loop ??= this.#run();
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve, reject) => this.#syncWaiters.push({ resolve, reject }));
  }

  /** Ends the watch and any wait between attempts; resolves once the informer calls no handler any more. */
  async stop(): Promise<void> {
    if (!this.#stopped) {
      this.#stopped = true;
      this.#watcher?.close();
      this.#pause?.cancel();
      for (const waiter of this.#syncWaiters.splice(0)) waiter.reject(new Error(`informer for ${this.#resource} stopped before its first list`));
    }
    await this.#loop;
  }

  async #run(): Promise<void> {
    let relist = true;
    let failing = false;
    while (!this.#stopped) {
      let failure: unknown;
      let listing = false;
      try {
        if (relist) {
          listing = true;
          await this.#list();
          listing = false;
          relist = false;
        }
        if (this.#stopped) return;
        const watcher = await this.#source.watch('', { resourceVersion: this.#resourceVersion, filter: this.#filter, bookmarks: true });
        if (this.#stopped) {
          watcher.close();
          return;
        }
        this.#watcher = watcher;
        for await (const event of watcher) {
          if (this.#stopped) return;
          this.#take(event);
          // The events queued behind it (a commit's batch arrives together) without a promise each.
          for (const next of watcher.takeReady?.(maxEventsPerTurn) ?? []) {
            if (this.#stopped) return;
            this.#take(next);
          }
          failing = false;
          this.#retry.forget('');
        }
      } catch (err) {
        failure = err;
      } finally {
        this.#watcher = undefined;
      }
      if (this.#stopped) return;
      // 410: the history we would watch from is gone; only a fresh list is complete.
      if (isStatusError(failure) && failure.code === 410) relist = true;
      const what = listing ? 'list failed' : relist ? 'watch expired' : 'watch failed';
      // The first retry is at once; while attempts keep failing, they back off.
      const delay = failing ? this.#retry.next('') : 0;
      failing = true;
      if (failure !== undefined) {
        this.#log(`informer for ${this.#resource}: ${what}: ${(failure as Error).message}; ${relist ? 'listing' : 'watching'} again${delay > 0 ? ` in ${delay} ms` : ''}`);
      }
      if (delay > 0) {
        const pause = sleep(this.#clock, delay);
        this.#pause = pause;
        await pause.done;
        this.#pause = undefined;
      }
    }
  }

  /** Lists, then makes the store equal to the list, telling the handlers what differs. */
  async #list(): Promise<void> {
    // A consistent read (like resourceVersion=""): everything written before start() is in it.
    const page = await this.#source.list('', { filter: this.#filter });
    if (this.#stopped) return;
    const listed = new Set<string>();
    const slice = new TimeSlice(LIST_SLICE_MS);
    for (let i = 0; i < page.items.length; i++) {
      const item = page.items[i]!;
      const object = this.#metadataOnly ? item.metadataView ?? item.object : item.object;
      listed.add(objectKey(object));
      const old = this.store.set(object);
      if (old === undefined) this.#notify('add', object);
      else this.#notify('update', object, old);
      // A list of many objects lets the event loop turn every few milliseconds, so that
      // the server answers requests meanwhile (the garbage collector's informers list
      // every object of every type once the caches have loaded).
      if (slice.due(i)) {
        await slice.next();
        if (this.#stopped) return;
      }
    }
    for (const key of this.store.keys()) {
      if (listed.has(key)) continue;
      const old = this.store.delete(key) as KubeObject;
      this.#notify('delete', old);
    }
    this.#resourceVersion = page.metadata.resourceVersion ?? '';
    this.#lists++;
    if (!this.#synced) {
      this.#synced = true;
      for (const waiter of this.#syncWaiters.splice(0)) waiter.resolve();
    }
  }

  #take(event: CacheEvent): void {
    this.#apply(event.type, this.#metadataOnly ? event.metadataView ?? event.object : event.object);
  }

  #apply(type: string, object: KubeObject): void {
    const resourceVersion = object.metadata.resourceVersion;
    if (type === 'BOOKMARK') {
      if (resourceVersion !== undefined) this.#resourceVersion = resourceVersion;
      return;
    }
    if (type === 'DELETED') {
      const old = this.store.delete(objectKey(object));
      this.#notify('delete', object, old);
    } else {
      const old = this.store.set(object);
      if (old === undefined) this.#notify('add', object);
      else this.#notify('update', object, old);
    }
    if (resourceVersion !== undefined) this.#resourceVersion = resourceVersion;
  }

  /** A handler that throws is a bug in it; the informer logs it and goes on. */
  #notify(kind: 'add' | 'update' | 'delete', object: KubeObject, old?: KubeObject): void {
    for (const handlers of this.#handlers) {
      try {
        if (kind === 'add') handlers.add?.(object);
        else if (kind === 'update') handlers.update?.(old as KubeObject, object);
        else handlers.delete?.(object);
      } catch (err) {
        this.#handlerFailed(kind, err);
      }
    }
  }

  #handlerFailed(kind: string, err: unknown): void {
    this.#log(`informer for ${this.#resource}: ${kind} handler failed: ${(err as Error).message}`);
  }
}
