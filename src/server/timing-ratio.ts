// A ratio observed over time, as upstream's timing ratio histograms (component-base's
// TimingHistogram behind API Priority and Fairness' utilization metrics): "observations,
// at the end of every nanosecond". Each bucket counts the nanoseconds the ratio spent at
// or below its bound (and above the one before), the sum is the ratio's integral over
// nanoseconds, and the count every nanosecond since it was made.

/** A histogram's reading: its buckets' nanoseconds (not cumulative, the overflow last), sum and count. */
export interface TimingReading {
  nanos: readonly number[];
  sum: number;
  count: number;
}

export class TimingRatio {
  readonly #bounds: readonly number[];
  readonly #nanos: number[];
  #sum = 0;
  #numerator: number;
  #denominator: number;
  /** When the ratio last changed (ms, the levels' clock). */
  #since: number;

  constructor(bounds: readonly number[], numerator: number, denominator: number, now: number) {
    this.#bounds = bounds;
    this.#nanos = new Array<number>(bounds.length + 1).fill(0);
    this.#numerator = numerator;
    this.#denominator = denominator;
    this.#since = now;
  }

  /** The numerator from `now` on. */
  set(numerator: number, now: number): void {
    if (numerator === this.#numerator) return;
    this.#advance(now);
    this.#numerator = numerator;
  }

  /** The denominator from `now` on. */
  setDenominator(denominator: number, now: number): void {
    if (denominator === this.#denominator) return;
    this.#advance(now);
    this.#denominator = denominator;
  }

  read(now: number): TimingReading {
    this.#advance(now);
    let count = 0;
    for (const n of this.#nanos) count += n;
    return { nanos: [...this.#nanos], sum: this.#sum, count };
  }

  /** Counts the time since the last change at the ratio it had. */
  #advance(now: number): void {
    const nanos = Math.round((now - this.#since) * 1e6);
    if (nanos <= 0) return;
    this.#since = now;
    const ratio = this.#numerator / this.#denominator;
    // The first bound at or above the ratio (Go's sort.SearchFloat64s), else the overflow.
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && bounds[i]! < ratio) i++;
    this.#nanos[i]! += nanos;
    this.#sum += nanos * ratio;
  }
}
