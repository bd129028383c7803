// How priority levels lend and borrow seats, as upstream's API Priority and Fairness moves
// each level's concurrency limit (apiserver/pkg/util/flowcontrol: the config controller's
// periodic adjustment and its allocation problem):
//
// - each level's seat demand (the seats its requests hold and wait for) is integrated over
//   time; every adjustment period (10 s) gives its time-weighted average, standard
//   deviation and high watermark, and the demand is smoothed: the envelope (average plus
//   deviation), or more while an earlier, higher demand decays (coefficient 0.977 a period,
//   a half-life of five minutes);
// - the server's seats are then shared out again (priority-levels.ts): the exempt level
//   takes what its demand reached, and when enough is left, every other level gets a
//   common multiple of its target (its smoothed demand, at least its floor), held between
//   its floor (what it does not lend, or its demand's high watermark if less than its
//   nominal limit) and its ceiling (its nominal limit plus what it may borrow): the
//   allocation problem below.

/** A level's demand over an adjustment period, as upstream's seatDemandStats keeps it. */
export interface DemandStats {
  average: number;
  deviation: number;
  highWatermark: number;
  smoothed: number;
}

const smoothing = 0.977;

/**
 * The integral of a value over time (upstream's fairqueuing Integrator): its time-weighted
 * average and standard deviation, and its extremes, since the last reset.
 */
export class Integrator {
  #value = 0;
  #since: number;
  #elapsed = 0;
  #integral = 0;
  #integralSquares = 0;
  #max = 0;
  readonly #now: () => number;

  /** `now` in milliseconds. */
  constructor(now: () => number) {
    this.#now = now;
    this.#since = now();
  }

  /** The value from now (or `now`, ms, read from the same clock) on. */
  set(value: number, now?: number): void {
    this.#advance(now);
    this.#value = value;
    if (value > this.#max) this.#max = value;
  }

  /** What was integrated since the last reset (seconds; NaN average and deviation over none), then starts again from now. */
  reset(): { seconds: number; average: number; deviation: number; max: number } {
    this.#advance();
    const seconds = this.#elapsed;
    const average = seconds > 0 ? this.#integral / seconds : NaN;
    const variance = seconds > 0 ? this.#integralSquares / seconds - average * average : NaN;
    const result = { seconds, average, deviation: variance >= 0 ? Math.sqrt(variance) : NaN, max: this.#max };
    this.#elapsed = this.#integral = this.#integralSquares = 0;
    this.#max = this.#value;
    return result;
  }

  #advance(at?: number): void {
    const now = at ?? this.#now();
    const dt = (now - this.#since) / 1000;
    this.#since = now;
    if (dt <= 0) return;
    this.#elapsed += dt;
    this.#integral += this.#value * dt;
    this.#integralSquares += this.#value * this.#value * dt;
  }
}

/** Folds a period's integral into the level's demand statistics (upstream's seatDemandStats.update). */
export function updateDemand(stats: DemandStats, period: ReturnType<Integrator['reset']>): void {
  // Whole seats, as upstream keeps it.
  stats.highWatermark = Math.round(period.max);
  if (period.seconds <= 0) return;
  stats.average = period.average;
  stats.deviation = Number.isNaN(period.deviation) ? 0 : period.deviation;
  const envelope = stats.average + stats.deviation;
  stats.smoothed = Math.max(envelope, smoothing * stats.smoothed + (1 - smoothing) * envelope);
}

/** One level's part of the allocation problem. */
export interface AllocationItem {
  target: number;
  lower: number;
  upper: number;
}

/** A target under this counts as this, so that every level has a share to scale. */
const minTarget = 0.001;
const epsilon = 1e-7;

/**
 * Shares `total` seats out among the items: each gets `fairFraction × target`, held within
 * its bounds, with the one fraction that makes the shares sum to `total` (upstream's
 * computeConcurrencyAllocation). The sum of the clamped shares grows with the fraction,
 * piecewise linearly, its corners where a share meets a bound: the answer lies on the
 * segment between the two corners whose sums bracket the total.
 */
export function allocateSeats(total: number, items: readonly AllocationItem[]): { shares: number[]; fairFraction: number } {
  let lowSum = 0;
  let highSum = 0;
  for (const [i, item] of items.entries()) {
    if (item.lower < 0) throw new Error(`lower bound ${i} is ${item.lower} but negative lower bounds are not allowed`);
    if (item.target < item.lower) throw new Error(`target ${i} is ${item.target}, which is below its lower bound of ${item.lower}`);
    if (item.upper < item.lower) throw new Error(`upper bound ${i} is ${item.upper} but should not be less than the lower bound ${item.lower}`);
    lowSum += item.lower;
    highSum += item.upper;
  }
  if (lowSum - total > epsilon) throw new Error(`lower bounds sum to ${lowSum}, which is higher than the required sum of ${total}`);
  if (total - highSum > epsilon) throw new Error(`upper bounds sum to ${highSum}, which is lower than the required sum of ${total}`);
  const targets = items.map((item) => Math.max(item.target, minTarget));
  const sharesAt = (fraction: number) => items.map((item, i) => Math.min(item.upper, Math.max(item.lower, fraction * targets[i]!)));
  const sumAt = (fraction: number) => sharesAt(fraction).reduce((sum, share) => sum + share, 0);
  if (total === 0) return { shares: items.map(() => 0), fairFraction: 0 };
  if (lowSum - total > -epsilon) return { shares: items.map((item) => item.lower), fairFraction: Math.min(...items.map((item, i) => item.lower / targets[i]!)) };
  if (total - highSum > -epsilon) return { shares: items.map((item) => item.upper), fairFraction: Math.max(...items.map((item, i) => item.upper / targets[i]!)) };
  const corners = [...new Set(items.flatMap((item, i) => [item.lower / targets[i]!, item.upper / targets[i]!]))].sort((a, b) => a - b);
  let below = corners[0]!;
  let belowSum = sumAt(below);
  for (const corner of corners.slice(1)) {
    const cornerSum = sumAt(corner);
    if (cornerSum >= total) {
      // Linear between the two corners.
      const fraction = cornerSum === belowSum ? corner : below + (corner - below) * (total - belowSum) / (cornerSum - belowSum);
      return { shares: sharesAt(fraction), fairFraction: fraction };
    }
    below = corner;
    belowSum = cornerSum;
  }
  return { shares: sharesAt(below), fairFraction: below };
}
