// A sorted array of keys with binary search, for the memory backend's ordered
// lists. Inserts and removals move the tail of the array (a memmove, fast for the
// sizes an ephemeral or test server holds); lookups are O(log n).

import { itself, lowerBound, upperBound } from '../api/binary-search.ts';
import type { KeyRange } from './keys.ts';

export class SortedKeys {
  #keys: string[] = [];

  get size(): number {
    return this.#keys.length;
  }

  insert(key: string): void {
    const i = lowerBound(this.#keys, key, itself);
    if (this.#keys[i] !== key) this.#keys.splice(i, 0, key);
  }

  remove(key: string): void {
    const i = lowerBound(this.#keys, key, itself);
    if (this.#keys[i] === key) this.#keys.splice(i, 1);
  }

  /** [start, end) indexes of the keys in `range`. */
  bounds(range: KeyRange): { start: number; end: number } {
    const start = range.after === undefined ? lowerBound(this.#keys, range.from, itself) : upperBound(this.#keys, range.after, itself);
    const end = range.end === undefined ? this.#keys.length : lowerBound(this.#keys, range.end, itself);
    return { start, end: Math.max(start, end) };
  }

  at(index: number): string {
    return this.#keys[index] as string;
  }
}
