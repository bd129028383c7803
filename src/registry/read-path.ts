// Reads: get, list and watch through the watch cache, with upstream's resourceVersion rules.
import { apiVersionOf, gone, notFound, type GroupResource, type KubeObject, type ListMeta } from '../api/index.ts';
import { tooLargeResourceVersion, type CachedObject, type CacheWatcher, type WatchCache } from '../cache/index.ts';
import { isStorageError, type Backend, type KeyValue } from '../storage/backend.ts';
import { corruptListError, isCorruptObjectError, type CorruptObjectError } from './codec.ts';
import { decodeContinue, encodeContinue } from './continue-token.ts';
import { filterPredicate, type ObjectFilter } from './filter.ts';
import { collectionPrefix, objectKey } from './keys.ts';
import type { ResourceType } from './resource-type.ts';

/** How fresh a read must be; see endpoints/read-options.ts for how requests map to it. */
export type ReadConsistency =
  | { kind: 'consistent' }
  | { kind: 'any' }
  | { kind: 'notOlderThan'; revision: number; requested?: string }
  | { kind: 'exact'; revision: number; requested?: string };

export interface ListItem {
  object: KubeObject;
  /** The object's JSON, when the cache already has it (lists are assembled from these bytes). */
  json?: Uint8Array;
  /** kind, apiVersion and metadata without managedFields, when the cache can read them without decoding the object. */
  metadataView?: KubeObject;
  /** The cache's other encodings of the object (EncodingMemo), when it comes from the cache. */
  encoded?(name: string, encode: (object: KubeObject) => Uint8Array): Uint8Array;
}

export interface ListPage {
  kind: string;
  apiVersion: string;
  metadata: ListMeta;
  items: ListItem[];
}

export interface ListRequest {
  consistency?: ReadConsistency;
  filter?: ObjectFilter;
  limit?: number;
  continue?: string;
}

export interface WatchRequest {
  /** "" (current state first, consistent), "0" (current state first, from the cache) or a revision to start after. */
  resourceVersion: string;
  /** sendInitialEvents: true sends the state first; false starts at resourceVersion with none. */
  sendInitialEvents?: boolean;
  filter?: ObjectFilter;
  bookmarks: boolean;
}

/** An item's object as its caller may change it: decoded again from its JSON when it has one (cheaper than a clone). */
export function freshCopy(item: { object: KubeObject; json?: Uint8Array }): KubeObject {
  const json = item.json;
  return json === undefined ? item.object : (JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8')) as KubeObject);
}

const encoder = new TextEncoder();
const comma = encoder.encode(',');
const listEnd = encoder.encode(']}');

/**
 * A resourceVersion past 2^53 as Go prints the uint64 it parses (JavaScript's number has
 * lost its last digits); undefined for one a number holds exactly.
 */
export function unsafeRevisionText(text: string): string | undefined {
  const revision = Number(text);
  return Number.isSafeInteger(revision) || !/^\d+$/.test(text) ? undefined : BigInt(text).toString();
}

function tooLarge(revision: number, current: number, requested?: string) {
  return tooLargeResourceVersion(requested ?? revision, current);
}

/**
 * The read side of a resource: get, list and watch with upstream's consistency rules,
 * served from the watch cache when there is one (consistent reads wait until it has
 * caught up with the backend) and from the backend's history otherwise.
 */
/** The 410 of a continue whose revision was compacted: a new token goes with it (etcd3 store's handleCompactedErrorForPaging). */
const inconsistentContinue = 'The provided continue parameter is too old to display a consistent list result. You can start a new list without '
  + 'the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the '
  + 'provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk '
  + 'was returned and now may show up in the list.';

export class ReadPath {
  private readonly type: ResourceType;
  private readonly backend: Backend;
  private readonly cache: WatchCache | undefined;
  private readonly decode: (kv: KeyValue) => KubeObject;
  private readonly groupResource: GroupResource;

  constructor(type: ResourceType, backend: Backend, cache: WatchCache | undefined, decode: (kv: KeyValue) => KubeObject) {
    this.type = type;
    this.backend = backend;
    this.cache = cache;
    this.decode = decode;
    this.groupResource = { group: type.group, resource: type.resource };
  }

  async get(namespace: string, name: string, consistency: ReadConsistency = { kind: 'consistent' }): Promise<KubeObject> {
    return freshCopy(await this.getItem(namespace, name, consistency));
  }

  /**
   * The object as the cache holds it: shared and frozen, with its JSON (answers are
   * written from those bytes); callers must not change it. Without a cache, a fresh copy.
   */
  async getItem(namespace: string, name: string, consistency: ReadConsistency = { kind: 'consistent' }): Promise<ListItem> {
    const key = objectKey(this.type, namespace, name);
    const groupResource = { group: this.type.group, resource: this.type.resource };
    if (this.cache !== undefined && this.cache.ready && !this.consistentFromStorage(consistency)) {
      const waiting = this.catchUp(this.cache, consistency);
      if (waiting !== undefined) await waiting;
      let cached = this.cache.get(key);
      if (cached === undefined && this.cache.corruptError(key) !== undefined) {
        // A value that could not be read may read now (a key service back): asked again first.
        await this.cache.retryCorrupt();
        cached = this.cache.get(key);
      }
      if (cached === undefined) throw this.cache.corruptError(key) ?? notFound(groupResource, name);
      return cached;
    }
    // A cache still loading: a get costs one key, so it reads through to the backend,
    // as upstream's cacher does (KEP-4568); the read is current, hence fresh enough.
    if (this.cache !== undefined) {
      this.cache.start();
      await this.checkReached(consistency);
    }
    const kv = await this.backend.get(key);
    if (kv === undefined) throw notFound(groupResource, name);
    return { object: this.decode(kv) };
  }

  /**
   * A consistent list answered at once, without a promise: the objects under `namespace`
   * (shared and frozen) when the cache is loaded and has already caught up with the
   * backend (isFreshNow), else undefined and the caller makes the read that waits. For
   * checks made on every write (admission) that would otherwise await a read that is
   * almost always ready.
   */
  listNow(namespace: string): KubeObject[] | undefined {
    return this.objectsNow(this.freshCacheNow(), namespace);
  }

  /**
   * A list of consistency 'any' answered at once: the cache's objects at whatever revision
   * it holds (shared, frozen), or undefined while it has not loaded (or holds a corrupt one).
   */
  listCachedNow(namespace: string): KubeObject[] | undefined {
    return this.objectsNow(this.cache?.ready === true ? this.cache : undefined, namespace);
  }

  /** The namespace's objects in `cache` as it is now; undefined without a cache or with a corrupt object among them. */
  private objectsNow(cache: WatchCache | undefined, namespace: string): KubeObject[] | undefined {
    const page = cache?.list({ prefix: collectionPrefix(this.type, namespace) });
    if (page === undefined || page.corrupt !== undefined) return undefined;
    return page.items.map((item) => item.object);
  }

  /** As listNow, for one object: it (shared and frozen), null when there is none, undefined when only a waiting read can tell. */
  getNow(namespace: string, name: string): KubeObject | null | undefined {
    const cache = this.freshCacheNow();
    if (cache === undefined) return undefined;
    const key = objectKey(this.type, namespace, name);
    const cached = cache.get(key);
    if (cached !== undefined) return cached.object;
    return cache.corruptError(key) === undefined ? null : undefined;
  }

  private freshCacheNow(): WatchCache | undefined {
    const cache = this.cache;
    if (cache === undefined || !cache.ready || this.backend.consistentReadsFromStorage === true || !cache.isFreshNow()) return undefined;
    return cache;
  }

  /**
   * The cache's decoded object for `key` when the cache holds it at exactly `revision`
   * (shared and frozen: read it, never change it), so a write that just read the key's
   * bytes need not decode them again; undefined otherwise.
   */
  cachedAt(key: string, revision: number): KubeObject | undefined {
    const cached = this.cachedState(key);
    return cached?.revision === revision ? cached.object : undefined;
  }

  /**
   * The cache's current state of `key` (shared and frozen), for an update to start from
   * without reading the storage; undefined when the cache is not loaded or lacks the key.
   * It may be behind the storage: a write made from it must hold its revision as the
   * precondition.
   */
  cachedState(key: string): CachedObject | undefined {
    return this.cache?.ready === true ? this.cache.get(key) : undefined;
  }

  /**
   * A write's object, as its Store encoded and stored it at `revision`, offered to the
   * cache as the decoded form of that state (WatchCache.adopt): it is frozen when taken.
   */
  adoptWritten(key: string, revision: number, object: KubeObject): void {
    if (this.cache?.ready === true) this.cache.adopt(key, revision, object);
  }

  /** A consistent read on a backend whose watches cannot prove they are current (etcd): it goes to the backend, as upstream. */
  private consistentFromStorage(consistency: ReadConsistency): boolean {
    return consistency.kind === 'consistent' && this.backend.consistentReadsFromStorage === true;
  }

  /** A read at or above a revision the backend has not reached: 504, as a cache that waited for it in vain. */
  private async checkReached(consistency: ReadConsistency): Promise<void> {
    if (consistency.kind !== 'notOlderThan' && consistency.kind !== 'exact') return;
    const current = await this.backend.currentRevision();
    if (consistency.revision > current) throw tooLarge(consistency.revision, current, consistency.requested);
  }

  /** What to wait for until the cache is fresh enough for the read: nothing when it is already (most reads). */
  private catchUp(cache: WatchCache, consistency: ReadConsistency): Promise<unknown> | undefined {
    if (consistency.kind === 'consistent') return cache.isFreshNow() ? undefined : cache.waitUntilFresh();
    if (consistency.kind === 'notOlderThan' || consistency.kind === 'exact') return consistency.revision <= cache.revision ? undefined : cache.waitForRevision(consistency.revision, consistency.requested);
    return undefined;
  }

  async list(namespace: string, req: ListRequest = {}): Promise<ListPage> {
    const prefix = collectionPrefix(this.type, namespace);
    const limit = req.limit !== undefined && req.limit > 0 ? req.limit : 0;
    let consistency = req.consistency ?? { kind: 'consistent' };
    let startAfter: string | undefined;
    let fromContinue = false;
    if (req.continue !== undefined && req.continue !== '') {
      const token = decodeContinue(req.continue);
      // A negative revision (an expired token's successor) continues at the latest.
      consistency = token.revision > 0 ? { kind: 'exact', revision: token.revision } : { kind: 'consistent' };
      startAfter = prefix + token.lastKey;
      fromContinue = true;
    }
    const predicate = req.filter === undefined ? undefined : filterPredicate(req.filter, this.type);

    let result: { items: ListItem[]; revision: number; more: boolean; remaining: number; lastKey: string | undefined } | undefined;
    // A cache still loading: lists whose cost is bounded (a limit, no selector; or an
    // exact revision, which the cache could only serve from its history anyway) read
    // through to the backend, as upstream's cacher does (KEP-4568); any other list
    // waits for the load, which is itself a full list of the backend.
    const fromStorage = this.consistentFromStorage(consistency);
    if (this.cache !== undefined && !this.cache.ready && !fromStorage) {
      const bounded = consistency.kind === 'exact' || (limit > 0 && predicate === undefined);
      if (bounded) this.cache.start();
      else await this.cache.whenReady();
    }
    if (this.cache !== undefined && this.cache.ready && !fromStorage) {
      const waiting = this.catchUp(this.cache, consistency);
      if (waiting !== undefined) await waiting;
      const listCache = () => this.cache!.list({
        prefix,
        revision: consistency.kind === 'exact' ? consistency.revision : undefined,
        startAfter,
        limit: limit === 0 ? undefined : limit,
        predicate,
      });
      let page = listCache();
      if (page?.corrupt !== undefined) {
        // As a get: values that could not be read are asked again, then the page taken again.
        await this.cache.retryCorrupt();
        page = listCache();
      }
      if (page?.corrupt !== undefined) throw corruptListError(this.groupResource, page.corrupt);
      if (page !== undefined) {
        const last = page.items[page.items.length - 1];
        result = { items: page.items, revision: page.revision, more: page.more, remaining: page.remaining, lastKey: last?.key };
      }
    }
    result ??= await this.listFromBackend(prefix, consistency, startAfter, limit, predicate, fromContinue);

    const list: ListPage = {
      kind: this.type.listKind,
      apiVersion: apiVersionOf(this.type.group, this.type.version),
      metadata: { resourceVersion: String(result.revision) },
      items: result.items,
    };
    if (limit > 0 && result.more && result.lastKey !== undefined) {
      list.metadata.continue = encodeContinue({ revision: result.revision, lastKey: result.lastKey.slice(prefix.length) });
      // Upstream omits the count when a selector filtered the items: it would be a guess.
      if (predicate === undefined) list.metadata.remainingItemCount = result.remaining;
    }
    return list;
  }

  /** Pages through the backend at one revision; with a selector, reads on until `limit` objects match. */
  private async listFromBackend(
    prefix: string, consistency: ReadConsistency, startAfter: string | undefined, limit: number,
    predicate: ((o: KubeObject) => boolean) | undefined, fromContinue: boolean,
  ) {
    let revision = consistency.kind === 'exact' ? consistency.revision : undefined;
    if (consistency.kind === 'notOlderThan' || consistency.kind === 'exact') {
      const current = await this.backend.currentRevision();
      if (consistency.revision > current) throw tooLarge(consistency.revision, current, consistency.requested);
    }
    const items: ListItem[] = [];
    const corrupt: CorruptObjectError[] = [];
    let lastKey: string | undefined;
    let more = false;
    let remaining = 0;
    for (;;) {
      let page;
      try {
        page = await this.backend.list(prefix, { revision, limit: limit === 0 ? undefined : limit, startAfter });
      } catch (err) {
        if (!isStorageError(err, 'Compacted')) throw err;
        if (!fromContinue || startAfter === undefined) throw gone('The resourceVersion for the provided list is too old.');
        // Upstream's etcd store answers an expired continue with a token to go on at the latest revision.
        const expired = gone(inconsistentContinue);
        expired.listMeta = { continue: encodeContinue({ revision: -1, lastKey: startAfter.slice(prefix.length) }) };
        throw expired;
      }
      revision = page.revision;
      let index = 0;
      for (; index < page.items.length && (limit === 0 || items.length < limit); index++) {
        const kv = page.items[index]!;
        lastKey = kv.key;
        let object: KubeObject;
        try {
          object = this.decode(kv);
        } catch (err) {
          // Upstream reads on and names every corrupt key in one error (up to 100).
          if (!isCorruptObjectError(err)) throw err;
          corrupt.push(err);
          if (corrupt.length > 100) throw corruptListError(this.groupResource, corrupt);
          continue;
        }
        if (predicate === undefined || predicate(object)) items.push({ object });
      }
      const unread = page.items.length - index;
      more = page.more || unread > 0;
      remaining = page.remaining + unread;
      if (limit === 0 || items.length >= limit || !page.more) break;
      startAfter = lastKey;
    }
    if (corrupt.length > 0) throw corruptListError(this.groupResource, corrupt);
    return { items, revision: revision!, more, remaining, lastKey };
  }

  /** A watch from the cache; without one (tests of the Store alone) watching is not offered. */
  async watch(namespace: string, req: WatchRequest): Promise<CacheWatcher> {
    const cache = this.cache;
    if (cache === undefined) throw new Error('watch needs the watch cache');
    const prefix = collectionPrefix(this.type, namespace);
    const predicate = req.filter === undefined ? undefined : filterPredicate(req.filter, this.type);
    const rv = req.resourceVersion;
    // Upstream: unset → the current state (consistent) as ADDED, then changes; "0" → the
    // same from the cache; n → changes after n. sendInitialEvents overrides the first two.
    const initialEvents = req.sendInitialEvents ?? (rv === '' || rv === '0');
    // A watch starts once its cache has loaded: the cache is what feeds it.
    await cache.whenReady();
    if (rv === '') await cache.waitUntilFresh();
    else if (rv !== '0') await cache.waitForRevision(Number(rv), unsafeRevisionText(rv));
    const fromRevision = rv === '' || rv === '0' ? cache.revision : Number(rv);
    return cache.watch({ prefix, fromRevision, initialEvents, initialEventsEnd: req.sendInitialEvents === true, predicate, bookmarks: req.bookmarks });
  }
}

/**
 * A list's JSON as the pieces it is made of: its head, each item's cached bytes (not
 * encoded again) with commas between, and its end. Written as they are, a full list is
 * not copied into one buffer of megabytes first.
 */
export function listJsonParts(list: ListPage): { parts: Uint8Array[]; length: number } {
  const head = JSON.stringify({ kind: list.kind, apiVersion: list.apiVersion, metadata: list.metadata });
  const parts: Uint8Array[] = [encoder.encode(`${head.slice(0, -1)},"items":[`)];
  list.items.forEach((item, i) => {
    if (i > 0) parts.push(comma);
    parts.push(item.json ?? encoder.encode(JSON.stringify(item.object)));
  });
  parts.push(listEnd);
  let length = 0;
  for (const part of parts) length += part.byteLength;
  return { parts, length };
}
