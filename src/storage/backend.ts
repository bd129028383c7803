// The storage contract: etcd's model (DESIGN.md "Storage contract"), so that every
// backend, including the etcd adapter, has the same semantics.

export interface KeyValue {
  key: string;
  value: Uint8Array;
  /** Revision of the write that created this key (since its last deletion). */
  createRevision: number;
  /** Revision of the last write to this key; an object's resourceVersion. */
  modRevision: number;
  /**
   * Set when the stored bytes could not be transformed for reading (a value encrypted with
   * a key no longer configured, an unknown prefix): `value` then holds the bytes as stored,
   * and readers surface the value as a CorruptObject error naming its key, without failing
   * a whole list or watch for it.
   */
  transformError?: string;
  /**
   * Set when the value was read through a key that no longer writes (a provider or key after
   * the first, a KMS key id since replaced): an update that changes nothing writes it anyway,
   * so that rewriting objects moves them to the current key (upstream's stale reads).
   */
  stale?: true;
}

/** Events are shared by every watcher that receives them: treat them as read-only. */
export interface StorageEvent {
  type: 'put' | 'delete';
  /** For a put: the new value. For a delete: the key with its last value and modRevision = the delete's revision. */
  kv: KeyValue;
  /** The value before this event, when there was one. */
  prev?: KeyValue;
  /** Revision of the write that produced the event. */
  revision: number;
}

export interface ListOptions {
  /** Read at this revision (must not be compacted, nor in the future); unset or 0: current. */
  revision?: number;
  /** At most this many items (0 or unset: no limit). */
  limit?: number;
  /** Only keys strictly greater than this one (for continuing a chunked list). */
  startAfter?: string;
  /**
   * False: `remaining` may be answered as 0, for a reader that pages through a whole
   * prefix and does not need it (counting the rest costs a pass over it per page).
   * `more` is exact either way.
   */
  countRemaining?: boolean;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True when more keys under the prefix follow the last item. */
  more: boolean;
  /** How many keys under the prefix follow the last item. */
  remaining: number;
}

/**
 * A watch's errors come out of its iterator (next() rejects once, then the iterator
 * is done): `Compacted` when the history it needs is gone, at the start or while it
 * catches up; `Unavailable` when the consumer left too many events unread (the
 * queue is bounded) or the backend failed. Either way, watch again from the last
 * revision received, or re-list when that fails with `Compacted`.
 */
export interface Watch extends AsyncIterable<StorageEvent> {
  /** Stop the watch; the iterator ends, a pending next() included. Breaking out of `for await` does the same. */
  close(): void;
  /**
   * A watch of a backend in this process: true while its consumer waits in next() with
   * nothing queued and the watch live, so the consumer has had every event of its prefix
   * up to the backend's current revision (events are queued as they commit). Absent for etcd.
   */
  readonly caughtUp?: boolean;
  /**
   * A watch of a remote backend (etcd): false while it may still receive events older than
   * a revision read from the backend now (it replays the history written before it was
   * opened, or reopens after its connection broke); a reader must not count such a
   * revision as reached meanwhile. Absent: the backend's watches are never behind it.
   */
  readonly settled?: boolean;
}

/** Backend.changesSince's answer. */
export interface PrefixChanges {
  revision: number;
  keys: number;
  changed: boolean;
}

/** How a create or update writes, beyond its value. */
export interface PutOptions {
  /**
   * Whole seconds (> 0) the key lives without another write: then the backend deletes it,
   * an ordinary delete with its event, as etcd deletes the keys of an expired lease
   * (kube-apiserver stores Events so, `--event-ttl`). A later write without it keeps the
   * key for good. At least this long; how much longer is the backend's: about a second
   * in this process, and on etcd the lease's reuse window (a tenth of it, at most 60 s).
   */
  ttlSeconds?: number;
}

/**
 * A new store is at revision 1 (as in etcd), so its first write gets revision 2.
 * A write whose promise resolved is durable (for sqlite, on disk) and its events
 * have already been handed to the live watches. Reads below the compacted revision
 * fail with `Compacted`, above the current one with `FutureRevision`.
 */
export interface Backend {
  /** The key's version at the revision (default: current), or undefined when it did not exist then. */
  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined>;
  /** Keys under `prefix` (a plain string prefix) in bytewise order. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Fails with `KeyExists` when the key is present. Returns the new revision. */
  create(key: string, value: Uint8Array, opts?: PutOptions): Promise<number>;
  /** Fails with `RevisionMismatch` (or `KeyNotFound`) unless the key's modRevision is expectRevision. */
  update(key: string, value: Uint8Array, expectRevision: number, opts?: PutOptions): Promise<number>;
  /** Deletes the key (`KeyNotFound` if absent); with expectRevision, only if its modRevision matches (else `RevisionMismatch`). Returns the new revision. */
  delete(key: string, expectRevision?: number): Promise<number>;
  /** Events for keys under the prefix with revision > fromRevision, in order; `Compacted` if that history is gone. */
  watch(prefix: string, fromRevision: number): Watch;
  /** The latest revision, linearizable. */
  currentRevision(): Promise<number>;
  /**
   * The latest revision at once, from a backend in this process (SQLite, memory), whose
   * watches have a write's events queued in the step that makes its revision current.
   * Absent for etcd. A consistent read from a cache that already has it need not wait.
   */
  readonly currentRevisionNow?: () => number;
  /**
   * For a reader whose watch events cross a network (etcd): the latest revision, linearizable,
   * with the number of keys under `prefix` then and whether any of them was written after
   * `after`. Unwritten and as many as a watch cache held at `after`, the prefix had no event
   * between: the cache has all of them up to that revision, whatever its watch still carries
   * (another server's writes, on their way). Absent for backends in this process.
   */
  changesSince?(prefix: string, after: number): Promise<PrefixChanges>;
  /**
   * Forget history older than revision; reads and watches below it fail with `Compacted`
   * (reads at it, and watches from it, still work). At or below the compacted revision:
   * nothing to do. Above the current revision: `FutureRevision`. Does not bump the revision.
   */
  compact(revision: number): Promise<void>;
  /**
   * Consistent reads (no resourceVersion) must go to the backend rather than a watch
   * cache: its watches cannot prove they have every event up to its current revision
   * (etcd without reliable progress notifications). Unset: the backend publishes each
   * write's events to its watches as it commits, so a cache can tell.
   */
  readonly consistentReadsFromStorage?: boolean;
  /**
   * Items per list call for a reader that takes a whole prefix in pages (a watch cache
   * filling). A backend in this process reads a page on the event loop's thread, where a
   * request arriving meanwhile waits for it: small pages. A remote one pays a round trip
   * per page. Unset: 100.
   */
  readonly fillPageSize?: number;
  /** Finish the writes already submitted, end every watch, release the storage. Later calls fail with `Unavailable`. */
  close(): Promise<void>;
}

/** `Internal`: a value could not be prepared for storage (upstream's storage.InternalError: a transformer that cannot write). */
export type StorageErrorCode = 'KeyExists' | 'KeyNotFound' | 'RevisionMismatch' | 'Compacted' | 'FutureRevision' | 'CorruptObject' | 'Unavailable' | 'Internal';

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly key: string | undefined;
  /** For Compacted: the compacted revision. For RevisionMismatch: the key's current modRevision. */
  readonly revision: number | undefined;

  constructor(code: StorageErrorCode, message: string, key?: string, revision?: number) {
    super(message);
    this.name = 'StorageError';
    this.code = code;
    this.key = key;
    this.revision = revision;
  }
}

export function isStorageError(err: unknown, code?: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && (code === undefined || err.code === code);
}
