// Shared set-up for the watch cache tests: a MemoryBackend holding ConfigMaps, a
// cache over it, and helpers to write objects and read watch events without hanging.

import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { WatchCache, type CacheEvent, type CacheWatcher, type WatchCacheOptions } from '../../src/cache/index.ts';
import type { KubeObject } from '../../src/api/index.ts';
import { MemoryBackend, StorageError, type Backend, type KeyValue, type StorageEvent, type Watch } from '../../src/storage/index.ts';

export const PREFIX = '/registry/configmaps/';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function key(namespace: string, name: string): string {
  return `${PREFIX}${namespace}/${name}`;
}

export function configMap(namespace: string, name: string, data: Record<string, string> = {}, labels?: Record<string, string>): Uint8Array {
  const metadata: Record<string, unknown> = { name, namespace };
  if (labels !== undefined) metadata.labels = labels;
  return encoder.encode(JSON.stringify({ metadata, data }));
}

export function decodeConfigMap(kv: KeyValue): KubeObject {
  const object = JSON.parse(decoder.decode(kv.value)) as KubeObject;
  if (object.metadata === undefined) throw new Error('no metadata');
  return { apiVersion: 'v1', kind: 'ConfigMap', ...object, metadata: { ...object.metadata, resourceVersion: String(kv.modRevision) } };
}

export function json(bytes: Uint8Array): unknown {
  return JSON.parse(decoder.decode(bytes));
}

export interface Fixture {
  backend: Backend;
  cache: WatchCache;
  logs: string[];
  /** Create or update (unconditionally) an object; returns the write's revision. */
  put(namespace: string, name: string, data?: Record<string, string>, labels?: Record<string, string>): Promise<number>;
  del(namespace: string, name: string): Promise<number>;
}

export async function startCache(t: TestContext, opts: Partial<WatchCacheOptions> = {}, backend: Backend = new MemoryBackend()): Promise<Fixture> {
  const logs: string[] = [];
  const cache = new WatchCache({
    backend,
    prefix: PREFIX,
    decode: decodeConfigMap,
    bookmark: { kind: 'ConfigMap', apiVersion: 'v1' },
    log: (msg) => logs.push(msg),
    ...opts,
  });
  t.after(async () => {
    cache.close();
    await backend.close();
  });
  await cache.start();
  return {
    backend,
    cache,
    logs,
    async put(namespace, name, data = {}, labels) {
      const k = key(namespace, name);
      const existing = await backend.get(k);
      const value = configMap(namespace, name, data, labels);
      return existing === undefined ? backend.create(k, value) : backend.update(k, value, existing.modRevision);
    },
    del: (namespace, name) => backend.delete(key(namespace, name)),
  };
}

/** The next event, or a test failure after `ms` instead of a hang. */
export async function nextEvent(watcher: CacheWatcher, ms = 2000): Promise<CacheEvent> {
  const result = await nextResult(watcher, ms);
  if (result.done === true) throw new Error('the watch ended instead of delivering an event');
  return result.value;
}

/**
 * A next() that was started but whose answer nobody took yet (startReading() or a
 * timed out nextResult() leave one): the following read takes it, so no event is lost.
 */
const pending = new WeakMap<CacheWatcher, Promise<IteratorResult<CacheEvent, undefined>>>();

function pull(watcher: CacheWatcher): Promise<IteratorResult<CacheEvent, undefined>> {
  let next = pending.get(watcher);
  if (next === undefined) {
    next = watcher[Symbol.asyncIterator]().next() as Promise<IteratorResult<CacheEvent, undefined>>;
    next.catch(() => {}); // whoever takes it sees the rejection
    pending.set(watcher, next);
  }
  return next;
}

export async function nextResult(watcher: CacheWatcher, ms = 2000): Promise<IteratorResult<CacheEvent, undefined>> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Error(`no watch event within ${ms} ms`);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut), ms);
  });
  try {
    const result = await Promise.race([pull(watcher), timeout]);
    pending.delete(watcher);
    return result;
  } catch (err) {
    if (err !== timedOut) pending.delete(watcher);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

export async function nextEvents(watcher: CacheWatcher, count: number): Promise<CacheEvent[]> {
  const events: CacheEvent[] = [];
  while (events.length < count) events.push(await nextEvent(watcher));
  return events;
}

/**
 * Starts a read that nobody awaits yet: a watcher goes live (receives the fan-out)
 * once it was read past its history. The event it gets is kept for the next read.
 */
export function startReading(watcher: CacheWatcher): void {
  void pull(watcher);
}

/**
 * Asserts that `watcher` delivers nothing before the event of `barrier`, a write it
 * is meant to see: a watcher gets its events in revision order, so any event owed
 * for an earlier write (or a bookmark sent before) would come first.
 */
export async function assertNothingBefore(watcher: CacheWatcher, barrier: () => Promise<number>): Promise<void> {
  const revision = await barrier();
  const event = await nextEvent(watcher);
  assert.ok(event.type !== 'BOOKMARK' && event.revision === revision, `expected the barrier's event at ${revision} first, got ${brief(event)}`);
}

/** A short summary of an event: type, name, resourceVersion. */
export function brief(event: CacheEvent): string {
  return `${event.type} ${event.object.metadata.name ?? ''}@${event.object.metadata.resourceVersion}`;
}

/** A MemoryBackend whose watches can be made to fail on demand, as a network or a compaction would. */
export class FlakyBackend extends MemoryBackend {
  readonly #watches = new Set<FlakyWatch>();
  watchCalls = 0;

  override watch(prefix: string, fromRevision: number): Watch {
    this.watchCalls++;
    const watch = new FlakyWatch(super.watch(prefix, fromRevision), (w) => this.#watches.delete(w));
    this.#watches.add(watch);
    return watch;
  }

  /** Every open watch's iteration fails with `code`. */
  failWatches(code: 'Unavailable' | 'Compacted'): void {
    for (const watch of [...this.#watches]) watch.fail(new StorageError(code, `injected ${code}`));
  }
}

class FlakyWatch implements Watch {
  readonly #inner: Watch;
  readonly #forget: (w: FlakyWatch) => void;
  #failure: StorageError | undefined;
  #reject: ((err: unknown) => void) | undefined;

  constructor(inner: Watch, forget: (w: FlakyWatch) => void) {
    this.#inner = inner;
    this.#forget = forget;
  }

  fail(err: StorageError): void {
    this.#failure = err;
    this.#reject?.(err);
    this.close();
  }

  close(): void {
    this.#inner.close();
    this.#forget(this);
  }

  [Symbol.asyncIterator](): AsyncIterator<StorageEvent> {
    const inner = this.#inner[Symbol.asyncIterator]();
    return {
      next: () => {
        if (this.#failure !== undefined) return Promise.reject(this.#failure);
        return new Promise((resolve, reject) => {
          this.#reject = reject;
          inner.next().then((result) => (this.#failure !== undefined ? reject(this.#failure) : resolve(result)), reject);
        });
      },
      return: () => {
        this.close();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }
}
