// A first-in first-out queue with an optional limit, for the watch paths: the
// watch hub's and the watch cache's watchers (whose limit ends a slow consumer)
// and the watch cache's event history (random access by position, trimmed from
// the front). A ring buffer over an array: push and shift are O(1) (amortised,
// for growth), nothing is allocated per item, and a shifted slot is cleared at
// once so its item can be collected.

/** Past this many slots, an emptied queue gives its array back rather than keep it for the next burst. */
const KEEP_WHEN_EMPTY = 256;

export class BoundedQueue<T> {
  /** Items held at most; push refuses beyond it. */
  readonly limit: number;
  /** Items are #slots[(#head + i) % #slots.length] for i < #length; the other slots are undefined. */
  #slots: (T | undefined)[] = [];
  #head = 0;
  #length = 0;

  constructor(limit = Infinity) {
    this.limit = limit;
  }

  get length(): number {
    return this.#length;
  }

  /** Append `item`; false (and the item is not added) when the queue already holds `limit` items. */
  push(item: T): boolean {
    const length = this.#length;
    if (length >= this.limit) return false;
    const slots = this.#slots;
    if (length < slots.length) {
      const i = this.#head + length;
      slots[i < slots.length ? i : i - slots.length] = item;
    } else if (this.#head === 0) {
      // Full and in order: the array's own push grows it (amortised O(1), and
      // faster than copying into a new array here).
      slots.push(item);
    } else {
      this.#unwrap()[length] = item;
    }
    this.#length = length + 1;
    return true;
  }

  /** Remove and return the oldest item; undefined when empty. */
  shift(): T | undefined {
    const length = this.#length - 1;
    if (length < 0) return undefined;
    const slots = this.#slots;
    const head = this.#head;
    const item = slots[head];
    slots[head] = undefined;
    this.#length = length;
    if (length > 0) this.#head = head + 1 < slots.length ? head + 1 : 0;
    else if (slots.length > KEEP_WHEN_EMPTY) this.clear();
    else this.#head = 0;
    return item;
  }

  /** The item `index` places after the oldest (0: the oldest); undefined outside the queue. */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.#length) return undefined;
    const slots = this.#slots;
    const i = this.#head + index;
    return slots[i < slots.length ? i : i - slots.length];
  }

  /** Drop every item and the memory holding them. */
  clear(): void {
    this.#slots = [];
    this.#head = 0;
    this.#length = 0;
  }

  /**
   * Full and wrapped around: copy the items in order into an array with room for
   * as many again, so the copy is paid for by the pushes that fill that room.
   */
  #unwrap(): (T | undefined)[] {
    const old = this.#slots;
    const slots = old.slice(this.#head).concat(old.slice(0, this.#head));
    for (let i = old.length; i > 0; i--) slots.push(undefined);
    this.#slots = slots;
    this.#head = 0;
    return slots;
  }
}
