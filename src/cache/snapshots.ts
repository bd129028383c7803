// List snapshots at past revisions (for resourceVersionMatch=Exact and continue
// tokens), rebuilt from the current state and the event history rather than kept
// as copies: a copy per write, even a copy-on-write tree's path, would cost memory
// for every write whether or not anyone lists at that revision.
//
// The state at revision R is the current state, except for the keys written after
// R; for each of those, the `prev` of its first event after R is its state at R
// (undefined: absent then). That set of keys, sorted, is an Overlay. A list at R
// walks the current state and the overlay side by side: O(limit + log n + keys
// written since R). Overlays are memoised per revision and brought up to date
// incrementally, so the chunks of one paginated list do not each re-read the
// events since R.

import { itself, lowerBound, upperBound } from '../api/binary-search.ts';
import type { CachedObject } from './types.ts';
import type { EventHistory } from './history.ts';

export interface Overlay {
  readonly revision: number;
  /** The state at `revision` of every key written since; undefined: absent at `revision`. */
  readonly states: Map<string, CachedObject | undefined>;
  /** The keys of `states`, sorted. */
  keys: string[];
  /** History entries before this seq are folded in. */
  throughSeq: number;
}

/** Overlays kept at once; a paginated list reuses one, so few are needed. */
const MAX_OVERLAYS = 8;

export class SnapshotOverlays {
  /** In least-recently-used order (a Map iterates in insertion order). */
  #overlays = new Map<number, Overlay>();

  /** The overlay for `revision`, folding in the history entries it has not seen. `revision` must be >= history.startRevision. */
  at(revision: number, history: EventHistory): Overlay {
    let overlay = this.#overlays.get(revision);
    if (overlay !== undefined) this.#overlays.delete(revision);
    // Entries this overlay has not folded in were trimmed: rebuild it from what is kept.
    if (overlay === undefined || overlay.throughSeq < history.startSeq) {
      overlay = { revision, states: new Map(), keys: [], throughSeq: history.seqAfter(revision) };
    }
    this.#overlays.set(revision, overlay);
    if (this.#overlays.size > MAX_OVERLAYS) this.#overlays.delete(this.#overlays.keys().next().value as number);

    const end = history.endSeq;
    if (overlay.throughSeq < end) {
      const added: string[] = [];
      for (let seq = overlay.throughSeq; seq < end; seq++) {
        const entry = history.at(seq);
        if (overlay.states.has(entry.key)) continue;
        overlay.states.set(entry.key, entry.prev);
        added.push(entry.key);
      }
      overlay.throughSeq = end;
      if (added.length > 0) overlay.keys = mergeSorted(overlay.keys, added.sort());
    }
    return overlay;
  }

  /** Drop the overlays of revisions before `revision`. */
  dropBefore(revision: number): void {
    for (const key of [...this.#overlays.keys()]) if (key < revision) this.#overlays.delete(key);
  }

  clear(): void {
    this.#overlays.clear();
  }
}

function mergeSorted(a: string[], b: string[]): string[] {
  if (a.length === 0) return b;
  const merged: string[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) merged[k++] = (a[i] as string) <= (b[j] as string) ? (a[i++] as string) : (b[j++] as string);
  while (i < a.length) merged[k++] = a[i++] as string;
  while (j < b.length) merged[k++] = b[j++] as string;
  return merged;
}

/** First index of a sorted string array whose value is >= key (or > key when not inclusive). */
export function searchKeys(keys: readonly string[], key: string, inclusive: boolean): number {
  return inclusive ? lowerBound(keys, key, itself) : upperBound(keys, key, itself);
}
