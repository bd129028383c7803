// Entries ordered by key: a list of sorted blocks, i.e. a B-tree of height two, as
// Python's sortedcontainers.SortedList does it. Seeking is two binary searches
// (O(log n)); an insert or removal moves at most one block's tail (≤ MAX_BLOCK
// pointers) and, when a block splits or empties, the block list (n / 512 pointers
// at most). Ranks sum the sizes of the blocks before a position: n / 512 additions,
// under a microsecond at 100,000 keys — cheaper in practice than keeping counts in
// a deeper tree. bench/watch-cache.ts measures inserts at 100,000 keys.

import { lowerBound, upperBound } from '../api/binary-search.ts';

export interface Keyed {
  readonly key: string;
}

/** A block splits in two above this size. */
const MAX_BLOCK = 1024;
/** A block this small merges with a neighbour when both fit in one. */
const MIN_BLOCK = 128;

export class SortedEntries<T extends Keyed> {
  /** Non-empty blocks, each sorted, all keys of block i below those of block i + 1. */
  #blocks: T[][] = [];
  #size = 0;

  /** From entries sorted by key without duplicates (as a backend lists them); anything else is inserted one by one. */
  static fromSorted<T extends Keyed>(entries: readonly T[]): SortedEntries<T> {
    const sorted = new SortedEntries<T>();
    for (let i = 1; i < entries.length; i++) {
      if ((entries[i - 1] as T).key >= (entries[i] as T).key) {
        for (const entry of entries) sorted.set(entry);
        return sorted;
      }
    }
    const half = MAX_BLOCK >>> 1;
    for (let i = 0; i < entries.length; i += half) sorted.#blocks.push(entries.slice(i, i + half));
    sorted.#size = entries.length;
    return sorted;
  }

  get size(): number {
    return this.#size;
  }

  /** Insert `entry`, or replace the entry with the same key. */
  set(entry: T): void {
    if (this.#blocks.length === 0) {
      this.#blocks.push([entry]);
      this.#size = 1;
      return;
    }
    const b = Math.min(this.#blockFor(entry.key), this.#blocks.length - 1);
    const block = this.#blocks[b] as T[];
    const i = lowerBound(block, entry.key, keyOf);
    if (i < block.length && (block[i] as T).key === entry.key) {
      block[i] = entry;
      return;
    }
    block.splice(i, 0, entry);
    this.#size++;
    if (block.length > MAX_BLOCK) this.#blocks.splice(b + 1, 0, block.splice(block.length >>> 1));
  }

  /** Remove the entry with `key`; false when there was none. */
  delete(key: string): boolean {
    const b = this.#blockFor(key);
    const block = this.#blocks[b];
    if (block === undefined) return false;
    const i = lowerBound(block, key, keyOf);
    if (i === block.length || (block[i] as T).key !== key) return false;
    block.splice(i, 1);
    this.#size--;
    if (block.length === 0) this.#blocks.splice(b, 1);
    else if (block.length < MIN_BLOCK) this.#mergeSmall(b);
    return true;
  }

  /** A cursor at the first entry whose key is >= `key` (inclusive) or > `key`. */
  seek(key: string, inclusive: boolean): Cursor<T> {
    const b = inclusive ? this.#blockFor(key) : this.#blockAfter(key);
    const block = this.#blocks[b];
    const i = block === undefined ? 0 : inclusive ? lowerBound(block, key, keyOf) : upperBound(block, key, keyOf);
    return new Cursor(this.#blocks, b, i);
  }

  /** How many entries have a key below `key` (or at most `key` when inclusive). */
  rank(key: string, inclusive: boolean): number {
    const b = inclusive ? this.#blockAfter(key) : this.#blockFor(key);
    let rank = 0;
    for (let j = 0; j < b; j++) rank += (this.#blocks[j] as T[]).length;
    const block = this.#blocks[b];
    if (block !== undefined) rank += inclusive ? upperBound(block, key, keyOf) : lowerBound(block, key, keyOf);
    return rank;
  }

  /** Entries with `after` < key < `end` (undefined `end`: no upper bound). */
  countBetween(after: string, end: string | undefined): number {
    const upTo = end === undefined ? this.#size : this.rank(end, false);
    return Math.max(0, upTo - this.rank(after, true));
  }

  /** Index of the first block whose last key is >= key (blocks.length when none). */
  #blockFor(key: string): number {
    return lowerBound(this.#blocks, key, lastKey);
  }

  /** Index of the first block whose last key is > key. */
  #blockAfter(key: string): number {
    return upperBound(this.#blocks, key, lastKey);
  }

  /** Many deletions leave small blocks; merging keeps the block list short. */
  #mergeSmall(b: number): void {
    const block = this.#blocks[b] as T[];
    const next = this.#blocks[b + 1];
    if (next !== undefined && block.length + next.length <= MAX_BLOCK) {
      this.#blocks[b] = block.concat(next);
      this.#blocks.splice(b + 1, 1);
      return;
    }
    const previous = this.#blocks[b - 1];
    if (previous !== undefined && block.length + previous.length <= MAX_BLOCK) {
      this.#blocks[b - 1] = previous.concat(block);
      this.#blocks.splice(b, 1);
    }
  }
}

/** Forward iteration; valid until the structure is next modified (lists are synchronous). */
export class Cursor<T extends Keyed> {
  readonly #blocks: readonly T[][];
  #block: number;
  #index: number;

  constructor(blocks: readonly T[][], block: number, index: number) {
    this.#blocks = blocks;
    this.#block = block;
    this.#index = index;
  }

  /** The entry at the cursor, or undefined at the end. */
  peek(): T | undefined {
    for (;;) {
      const block = this.#blocks[this.#block];
      if (block === undefined) return undefined;
      if (this.#index < block.length) return block[this.#index];
      this.#block++;
      this.#index = 0;
    }
  }

  /** The entry at the cursor, moving past it. */
  next(): T | undefined {
    const entry = this.peek();
    if (entry !== undefined) this.#index++;
    return entry;
  }
}

const keyOf = (entry: Keyed): string => entry.key;

/** A block's last (greatest) key; blocks are never empty. */
const lastKey = (block: readonly Keyed[]): string => (block[block.length - 1] as Keyed).key;
