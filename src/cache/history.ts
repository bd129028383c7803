// The watch cache's window of recent events, oldest first. Watchers that start in
// the past read it (lazily, as they are pulled), and list snapshots at past
// revisions are rebuilt from it (snapshots.ts). Each entry keeps the state before
// and after its event, which is what both of those need. The window is bounded by
// time, by count and by bytes (the events' encodings, which is most of what an
// entry holds: states keep their decoded form only while it is used, and a deletion's
// event makes its bytes only when read, states.ts).

import { searchIndex } from '../api/binary-search.ts';
import { BoundedQueue } from '../api/bounded-queue.ts';
import { selects, type CacheEvent, type CachedObject, type ObjectPredicate } from './types.ts';
import { deletedEvent, eventAs } from './states.ts';

/** What an entry costs besides its event's bytes (the entry, its event and state, their views), roughly. */
const ENTRY_OVERHEAD_BYTES = 400;

function entryBytes(entry: HistoryEntry): number {
  const { event } = entry;
  return (event.size ?? (event.frame ?? event.json).byteLength) + ENTRY_OVERHEAD_BYTES;
}

export interface HistoryEntry {
  /** Position in the history; keeps growing across trims and resets, so a stale cursor is detectable. */
  readonly seq: number;
  readonly revision: number;
  /** When the cache applied the event (WatchCacheOptions.now). */
  readonly time: number;
  readonly key: string;
  /** State after the event; undefined for a deletion. */
  readonly current: CachedObject | undefined;
  /** State before the event; undefined for a creation. */
  readonly prev: CachedObject | undefined;
  /** The event for watchers without a predicate (and for those whose predicate agrees on both states). */
  readonly event: CacheEvent;
  /** Set when the new value could not be decoded: watchers that reach the entry end with this error instead of an event. */
  readonly failure?: Error;
  /** Made on first need, then shared: for watchers the change makes start or stop matching. */
  asAdded?: CacheEvent;
  asDeleted?: CacheEvent;
}

export class EventHistory {
  /** The kept entries, oldest first; bounded by trim(), not by a limit of the queue. */
  readonly #entries = new BoundedQueue<HistoryEntry>();
  /** seq of the oldest kept entry. */
  #startSeq = 0;
  /** Every event with a revision above this one is kept. */
  #startRevision: number;
  /** What the kept entries cost, as entryBytes counts it. */
  #bytes = 0;

  constructor(startRevision: number) {
    this.#startRevision = startRevision;
  }

  /** Watches from this revision or later can be served; older ones get 410. */
  get startRevision(): number {
    return this.#startRevision;
  }

  get startSeq(): number {
    return this.#startSeq;
  }

  /** One past the newest entry's seq. */
  get endSeq(): number {
    return this.#startSeq + this.#entries.length;
  }

  get length(): number {
    return this.#entries.length;
  }

  /** Bytes held by the kept entries: their events' encodings plus a fixed overhead each. */
  get bytes(): number {
    return this.#bytes;
  }

  at(seq: number): HistoryEntry {
    return this.#entries.at(seq - this.#startSeq) as HistoryEntry;
  }

  push(entry: Omit<HistoryEntry, 'seq'>): HistoryEntry {
    const full: HistoryEntry = { seq: this.endSeq, ...entry };
    this.#entries.push(full);
    this.#bytes += entryBytes(full);
    return full;
  }

  /** seq of the first entry with a revision above `revision` (endSeq when none). */
  seqAfter(revision: number): number {
    const entries = this.#entries;
    return this.#startSeq + searchIndex(0, entries.length, (i) => (entries.at(i) as HistoryEntry).revision > revision);
  }

  /** Forget entries older than `before` (a time), and the oldest while more than `maxEntries` or `maxBytes` are kept. */
  trim(before: number, maxEntries: number, maxBytes: number): void {
    const entries = this.#entries;
    for (;;) {
      const oldest = entries.at(0);
      if (oldest === undefined || (entries.length <= maxEntries && this.#bytes <= maxBytes && oldest.time >= before)) return;
      entries.shift();
      this.#bytes -= entryBytes(oldest);
      this.#startRevision = oldest.revision;
      this.#startSeq++;
    }
  }

  /** Forget everything: a re-list at `revision` starts a new history. */
  reset(revision: number): void {
    this.#startSeq = this.endSeq;
    this.#entries.clear();
    this.#bytes = 0;
    this.#startRevision = revision;
  }
}

/**
 * What a watcher with `predicate` sees of an entry, like upstream's
 * cacheWatcher.convertToWatchEvent: an object that starts matching arrives as
 * ADDED, one that stops matching as DELETED carrying the object as it was before
 * the change but with the event's resourceVersion.
 */
export function eventFor(entry: HistoryEntry, predicate: ObjectPredicate, freeze: boolean): CacheEvent | undefined {
  const { current, prev } = entry;
  const matchesNow = current !== undefined && selects(predicate, current);
  const matchedBefore = prev !== undefined && selects(predicate, prev);
  if (matchesNow) {
    if (matchedBefore || prev === undefined) return entry.event;
    return (entry.asAdded ??= eventAs('ADDED', current, entry.revision));
  }
  if (!matchedBefore) return undefined;
  if (current === undefined) return entry.event;
  return (entry.asDeleted ??= deletedEvent(prev, entry.revision, freeze));
}
