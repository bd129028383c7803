// A long loop on the event loop's thread that gives it a turn every few milliseconds, so
// that requests are answered meanwhile (a cache filling, an informer taking in a list).

export class TimeSlice {
  readonly #ms: number;
  #start = performance.now();

  constructor(ms: number) {
    this.#ms = ms;
  }

  /** Whether the loop, at its `i`th item, has run its slice out and should await next(). The clock is read every 16 items. */
  due(i: number): boolean {
    return (i & 15) === 15 && performance.now() - this.#start > this.#ms;
  }

  /** One turn of the event loop (its check phase), then a new slice. */
  async next(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.#start = performance.now();
  }
}
