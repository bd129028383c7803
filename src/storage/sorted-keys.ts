// A sorted array of keys with binary search, for the memory backend's ordered
// lists. Inserts and removals move the tail of the array (a memmove, fast for the
// sizes an ephemeral or test server holds); lookups are O(log n).

import type { KeyRange } from './keys.ts';

export class SortedKeys {
  #keys: string[] = [];

  get size(): number {
    return this.#keys.length;
  }

  insert(key: string): void {
    const i = this.#lowerBound(key);
    if (this.#keys[i] !== key) this.#keys.splice(i, 0, key);
  }

  remove(key: string): void {
    const i = this.#lowerBound(key);
    if (this.#keys[i] === key) this.#keys.splice(i, 1);
  }

  /** [start, end) indexes of the keys in `range`. */
  bounds(range: KeyRange): { start: number; end: number } {
    const start = range.after === undefined ? this.#lowerBound(range.from) : this.#upperBound(range.after);
    const end = range.end === undefined ? this.#keys.length : this.#lowerBound(range.end);
    return { start, end: Math.max(start, end) };
  }

  at(index: number): string {
    return this.#keys[index] as string;
  }

  /** First index whose key is >= key. */
  #lowerBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#keys[mid] as string) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index whose key is > key. */
  #upperBound(key: string): number {
    let lo = 0;
    let hi = this.#keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#keys[mid] as string) <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
