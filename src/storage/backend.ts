// The storage contract: etcd's model (DESIGN.md "Storage contract"), so that every
// backend, including the etcd adapter, has the same semantics.

export interface KeyValue {
  key: string;
  value: Uint8Array;
  /** Revision of the write that created this key (since its last deletion). */
  createRevision: number;
  /** Revision of the last write to this key; an object's resourceVersion. */
  modRevision: number;
}

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
  /** Read at this revision (must not be compacted); default: current. */
  revision?: number;
  /** At most this many items (0 or unset: no limit). */
  limit?: number;
  /** Only keys strictly greater than this one (for continuing a chunked list). */
  startAfter?: string;
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

export interface Watch extends AsyncIterable<StorageEvent> {
  /** Stop the watch; the iterator ends. */
  close(): void;
}

export interface Backend {
  get(key: string, opts?: { revision?: number }): Promise<KeyValue | undefined>;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Fails with `KeyExists` when the key is present. Returns the new revision. */
  create(key: string, value: Uint8Array): Promise<number>;
  /** Fails with `RevisionMismatch` (or `KeyNotFound`) unless the key's modRevision is expectRevision. */
  update(key: string, value: Uint8Array, expectRevision: number): Promise<number>;
  /** Deletes the key; with expectRevision, only if its modRevision matches. Returns the new revision. */
  delete(key: string, expectRevision?: number): Promise<number>;
  /** Events for keys under the prefix with revision > fromRevision, in order; `Compacted` if that history is gone. */
  watch(prefix: string, fromRevision: number): Watch;
  /** The latest revision, linearizable. */
  currentRevision(): Promise<number>;
  /** Forget history older than revision; reads and watches below it fail with `Compacted`. */
  compact(revision: number): Promise<void>;
  close(): Promise<void>;
}

export type StorageErrorCode = 'KeyExists' | 'KeyNotFound' | 'RevisionMismatch' | 'Compacted' | 'FutureRevision' | 'CorruptObject' | 'Unavailable';

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
