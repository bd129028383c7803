// What the watch cache hands out. Everything here is shared between requests and
// watchers: treat it as immutable (the cache freezes objects unless told not to).

import type { KubeObject } from '../api/index.ts';

/**
 * Other encodings of a cached object (Protobuf), made by the first reader that needs one
 * and kept beside its JSON for as long as the cache keeps the object, so that lists and
 * watch frames cost no encoding after the first.
 */
export interface EncodingMemo {
  /** The bytes `encode` makes of the object, under `name`: made once, then shared. Do not write to them. */
  encoded(name: string, encode: (object: KubeObject) => Uint8Array): Uint8Array;
}

export interface CachedObject extends EncodingMemo {
  /** The storage key. */
  readonly key: string;
  /** Decoded, with metadata.resourceVersion set. Frozen (WatchCacheOptions.freeze): copy before changing. */
  readonly object: KubeObject;
  /** The JSON encoding of `object`, made once when the event arrived (DESIGN.md "Encode once"). Do not write to it. */
  readonly json: Uint8Array;
  /**
   * kind, apiVersion and metadata without managedFields, for readers of metadata alone:
   * read from `json` without decoding the whole object when it is not decoded yet.
   */
  readonly metadataView: KubeObject;
  /** The object's modRevision. */
  readonly revision: number;
}

type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface CacheEvent {
  readonly type: CacheEventType;
  /** For BOOKMARK: {kind, apiVersion, metadata: {resourceVersion, annotations?}} only. */
  readonly object: KubeObject;
  /** The JSON encoding of `object`, shared by every watcher that receives the event. */
  readonly json: Uint8Array;
  readonly revision: number;
  /** The event as a line of the JSON watch stream (`json` is a view into it), when the cache made one. */
  readonly frame?: Uint8Array;
  /**
   * About the bytes of `json`, for an event that makes its JSON only when first read
   * (a deletion): what queues and the window count it as, the same before and after.
   */
  readonly size?: number;
  /** CachedObject.metadataView of the state the event carries (not on bookmarks). */
  readonly metadataView?: KubeObject;
  /** Other encodings of `object`, kept with the state the event carries (not on bookmarks). */
  encoded?(name: string, encode: (object: KubeObject) => Uint8Array): Uint8Array;
}

/** The bytes a watcher's queue counts an event as: its JSON's, or its size when it makes its JSON only when read. */
export function eventBytes(event: CacheEvent): number {
  return event.size ?? event.json.byteLength;
}

/** Selects objects, for lists and watches (label and field selectors). */
export type ObjectPredicate = ((object: KubeObject) => boolean) & {
  /** It reads kind, apiVersion and metadata alone: the cache gives it CachedObject.metadataView, which needs no decoding. */
  readonly onMetadata?: boolean;
};

/** Whether the predicate selects the cached object, given what it reads. */
export function selects(predicate: ObjectPredicate, item: { readonly object: KubeObject; readonly metadataView?: KubeObject }): boolean {
  return predicate(predicate.onMetadata === true ? item.metadataView ?? item.object : item.object);
}

export interface CacheWatcher extends AsyncIterable<CacheEvent> {
  /** End the watch: a pending next() resolves done, and the watcher's memory is released. */
  close(): void;
  /** Events ready now, up to `max`, without waiting (never the end or a failure, which next() answers). */
  takeReady?(max: number): CacheEvent[];
  /** JSON bytes of the events queued for the consumer and not yet taken. */
  readonly queuedBytes: number;
  /** Settles when the watch ends, however it ends, whether or not the consumer is waiting in next(). */
  readonly ended: Promise<void>;
}

export interface CacheListOptions {
  /** A namespace's prefix, or the cache's whole prefix. */
  prefix: string;
  /** Read the state at exactly this revision (unset or 0: the current state). */
  revision?: number;
  /** Only keys strictly after this one (a continue token's last key). */
  startAfter?: string;
  /** At most this many matching items (unset or 0: no limit). */
  limit?: number;
  predicate?: ObjectPredicate;
}

export interface CacheListResult {
  items: CachedObject[];
  /** The revision the list was read at. */
  revision: number;
  /** True when keys (matching or not) follow the last examined key. */
  more: boolean;
  /** How many keys (matching or not) follow the last examined key. */
  remaining: number;
  /** The errors of keys in the listed range whose values cannot be decoded (whatever the predicate): the list should fail. */
  corrupt?: Error[];
}

export interface CacheWatchOptions {
  prefix: string;
  /** Send the events after this revision (ignored with initialEvents). */
  fromRevision: number;
  /** First the current state as ADDED events, then the changes after it. */
  initialEvents?: boolean;
  predicate?: ObjectPredicate;
  /**
   * With initialEvents and bookmarks: end the initial events with the
   * `k8s.io/initial-events-end` BOOKMARK (default true). Upstream sends it only to a client
   * that asked for `sendInitialEvents`, not to a watch that starts from the state because
   * it gave no resourceVersion.
   */
  initialEventsEnd?: boolean;
  /** Periodic BOOKMARKs, and with initialEvents the `k8s.io/initial-events-end` one. */
  bookmarks?: boolean;
}
