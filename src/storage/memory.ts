// The in-memory backend: the same MVCC semantics as the SQLite one (every version
// kept until compaction, one global revision), for tests and ephemeral servers.
// Writes apply synchronously, so each one is its own "commit".

import { searchIndex } from '../api/binary-search.ts';
import type { Backend, KeyValue, ListOptions, ListResult, PutOptions, StorageEvent, Watch } from './backend.ts';
import { futureRevision, unavailable } from './errors.ts';
import { Expiries, notDue } from './expiries.ts';
import { listRange } from './keys.ts';
import { INITIAL_REVISION, readRevision } from './revisions.ts';
import { SortedKeys } from './sorted-keys.ts';
import { WatchHub } from './watch-hub.ts';
import { applyOp, preconditionFailure, type WriteOp } from './write-op.ts';

export interface MemoryBackendOptions {
  /** Events a watcher may leave unread before its watch is ended (default 10,000). */
  watchQueueLimit?: number;
}

/** One version of a key; a deletion is a version without kv (a tombstone). */
interface Version {
  revision: number;
  kv: KeyValue | undefined;
}

export class MemoryBackend implements Backend {
  #revision = INITIAL_REVISION;
  #compacted = 0;
  /** Versions of each key, oldest first; compaction drops those no read can reach. */
  readonly #versions = new Map<string, Version[]>();
  /** Keys with a current (not deleted) version: current lists in O(limit + log n). */
  readonly #liveKeys = new SortedKeys();
  /** Keys with any version kept: lists at older revisions. */
  readonly #keptKeys = new SortedKeys();
  /** The key each revision wrote: #log[i] was written at revision #logStart + i. */
  #log: string[] = [];
  #logStart = INITIAL_REVISION + 1;
  readonly #watches: WatchHub;
  /** Keys written with a time to live: deleted once due. */
  readonly #expiries = new Expiries((due) => {
    for (const { key, at } of due) this.#write({ type: 'delete', key, expectRevision: undefined, dueAt: at }).catch(() => {});
  });
  #closed = false;

  constructor(opts: MemoryBackendOptions = {}) {
    this.#watches = new WatchHub(
      {
        currentRevision: () => this.#revision,
        compactedRevision: () => this.#compacted,
        eventsAfter: (prefix, after, through, limit) => this.#eventsAfter(prefix, after, through, limit),
      },
      { queueLimit: opts.watchQueueLimit },
    );
  }

  async get(key: string, opts: { revision?: number } = {}): Promise<KeyValue | undefined> {
    this.#checkOpen();
    const revision = readRevision(opts.revision, this.#revision, this.#compacted);
    return copy(this.#versionAt(key, revision)?.kv);
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    this.#checkOpen();
    const revision = readRevision(opts.revision, this.#revision, this.#compacted);
    const range = listRange(prefix, opts.startAfter);
    const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Infinity;
    const items: KeyValue[] = [];
    let remaining = 0;
    if (revision === this.#revision) {
      const { start, end } = this.#liveKeys.bounds(range);
      const stop = Math.min(end, start + limit);
      for (let i = start; i < stop; i++) items.push(copy(this.#current(this.#liveKeys.at(i))) as KeyValue);
      remaining = end - stop;
    } else {
      const { start, end } = this.#keptKeys.bounds(range);
      for (let i = start; i < end; i++) {
        const kv = this.#versionAt(this.#keptKeys.at(i), revision)?.kv;
        if (kv === undefined) continue;
        if (items.length < limit) items.push(copy(kv) as KeyValue);
        else remaining++;
      }
    }
    return { items, revision, more: remaining > 0, remaining };
  }

  create(key: string, value: Uint8Array, opts?: PutOptions): Promise<number> {
    return this.#write({ type: 'create', key, value: value.slice(), ttlSeconds: opts?.ttlSeconds });
  }

  update(key: string, value: Uint8Array, expectRevision: number, opts?: PutOptions): Promise<number> {
    return this.#write({ type: 'update', key, value: value.slice(), expectRevision, ttlSeconds: opts?.ttlSeconds });
  }

  delete(key: string, expectRevision?: number): Promise<number> {
    return this.#write({ type: 'delete', key, expectRevision });
  }

  watch(prefix: string, fromRevision: number): Watch {
    this.#checkOpen();
    return this.#watches.watch(prefix, fromRevision);
  }

  async currentRevision(): Promise<number> {
    this.#checkOpen();
    return this.#revision;
  }

  readonly currentRevisionNow = (): number => {
    this.#checkOpen();
    return this.#revision;
  };

  /**
   * Drop the versions no read at or after `revision` can reach: for each key written
   * since the last compaction, everything older than its latest version at
   * `revision`, and that version too when it is a deletion.
   */
  async compact(revision: number): Promise<void> {
    this.#checkOpen();
    if (revision > this.#revision) throw futureRevision(revision, this.#revision);
    if (revision <= this.#compacted) return;
    const touched = new Set(this.#log.slice(0, revision - this.#logStart + 1));
    this.#compacted = revision;
    for (const key of touched) {
      const versions = this.#versions.get(key) as Version[];
      let keep = latestAtOrBefore(versions, revision);
      if (keep >= 0 && versions[keep]?.kv === undefined) keep++;
      if (keep > 0) versions.splice(0, keep);
      if (versions.length === 0) {
        this.#versions.delete(key);
        this.#keptKeys.remove(key);
      }
    }
    // Watches start at `revision` or later and need only the events after it.
    this.#log = this.#log.slice(revision - this.#logStart + 1);
    this.#logStart = revision + 1;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#expiries.close();
    this.#watches.closeAll();
  }

  #write(op: WriteOp): Promise<number> {
    if (this.#closed) return Promise.reject(unavailable('the storage backend is closed'));
    const existing = this.#current(op.key);
    const failure = op.type === 'delete' && op.dueAt !== undefined && !this.#expiries.isDue(op.key, op.dueAt) ? notDue(op.key) : preconditionFailure(op, existing);
    if (failure !== undefined) return Promise.reject(failure);
    this.#expiries.record(op);
    const revision = ++this.#revision;
    const { kv, event } = applyOp(op, existing, revision);
    let versions = this.#versions.get(op.key);
    if (versions === undefined) {
      versions = [];
      this.#versions.set(op.key, versions);
      this.#keptKeys.insert(op.key);
    }
    versions.push({ revision, kv });
    if (kv === undefined) this.#liveKeys.remove(op.key);
    else this.#liveKeys.insert(op.key);
    this.#log.push(op.key);
    this.#watches.publish([event]);
    return Promise.resolve(revision);
  }

  #current(key: string): KeyValue | undefined {
    const versions = this.#versions.get(key);
    return versions?.[versions.length - 1]?.kv;
  }

  #versionAt(key: string, revision: number): Version | undefined {
    const versions = this.#versions.get(key);
    if (versions === undefined) return undefined;
    return versions[latestAtOrBefore(versions, revision)];
  }

  #eventsAfter(prefix: string, after: number, through: number, limit: number): StorageEvent[] {
    const events: StorageEvent[] = [];
    for (let revision = Math.max(after + 1, this.#logStart); revision <= through && events.length < limit; revision++) {
      const key = this.#log[revision - this.#logStart] as string;
      if (!key.startsWith(prefix)) continue;
      const versions = this.#versions.get(key) as Version[];
      const at = latestAtOrBefore(versions, revision);
      const kv = versions[at]?.kv;
      const prev = versions[at - 1]?.kv;
      if (kv !== undefined) events.push(prev === undefined ? { type: 'put', kv, revision } : { type: 'put', kv, prev, revision });
      else if (prev !== undefined) events.push({ type: 'delete', kv: { ...prev, modRevision: revision }, prev, revision });
    }
    return events;
  }

  #checkOpen(): void {
    if (this.#closed) throw unavailable('the storage backend is closed');
  }
}

/** Index of the last version at or before `revision`, or -1. */
function latestAtOrBefore(versions: readonly Version[], revision: number): number {
  return searchIndex(0, versions.length, (i) => (versions[i] as Version).revision > revision) - 1;
}

/** Callers get their own bytes, so nothing they do can change what is stored. */
function copy(kv: KeyValue | undefined): KeyValue | undefined {
  return kv === undefined ? undefined : { ...kv, value: kv.value.slice() };
}
