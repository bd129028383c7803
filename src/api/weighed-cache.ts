// A cache bounded by its keys' total length as well as their number, for caches keyed by
// what clients send (CEL expressions, regular expressions): a count alone lets a few huge
// keys, and what was built from them, fill the heap.

/** Values by string key, the oldest entries dropped first when either bound is passed. */
export class WeighedCache<V> {
  readonly #entries = new Map<string, V>();
  #chars = 0;
  readonly #maxEntries: number;
  readonly #maxChars: number;

  constructor(maxEntries: number, maxChars: number) {
    this.#maxEntries = maxEntries;
    this.#maxChars = maxChars;
  }

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  /** Keeps `value` unless its key alone is over the bound (then it is not kept). */
  set(key: string, value: V): void {
    if (key.length > this.#maxChars) return;
    if (this.#entries.has(key)) this.#entries.delete(key);
    else this.#chars += key.length;
    this.#entries.set(key, value);
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries && this.#chars <= this.#maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= oldest.length;
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The keys' total length. */
  get chars(): number {
    return this.#chars;
  }
}
