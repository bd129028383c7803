// Binary search over sorted data, for every ordered structure in the project (the
// watch cache's sorted entries and history, the memory backend's keys and
// versions, the stable sort of strategic merge patch lists).

/**
 * The first index in [from, to) at which `reached(index)` holds, `to` when none
 * does (Go's sort.Search). `reached` must be false up to some index and true from
 * there on.
 */
export function searchIndex(from: number, to: number, reached: (index: number) => boolean): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (reached(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// lowerBound and upperBound take string keys only: a comparison that has seen
// only strings stays on V8's fast path, and every sorted structure here is keyed
// by storage key. Searches by number (revisions) use searchIndex.

/** The first index of `items` (sorted by `keyOf`) whose key is >= `key`; items.length when none. */
export function lowerBound<T>(items: readonly T[], key: string, keyOf: (item: T) => string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyOf(items[mid] as T) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index of `items` (sorted by `keyOf`) whose key is > `key`; items.length when none. */
export function upperBound<T>(items: readonly T[], key: string, keyOf: (item: T) => string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyOf(items[mid] as T) <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** keyOf for arrays of the keys themselves. */
export function itself(key: string): string {
  return key;
}
