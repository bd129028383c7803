// Requests executing and waiting, by kind (read-only or mutating), as upstream's in-flight
// filters observe them: the most each count reached in the last whole second (upstream
// resets its watermarks every second: apiserver_current_inflight_requests and, with
// priority and fairness, apiserver_current_inqueue_requests), and the count over time as a
// fraction of its limit (apiserver_flowcontrol_read_vs_write_current_requests: the in-flight
// limits without priority and fairness; 1 with it, which makes the "fraction" the count).

import { TimingRatio, type TimingReading } from './timing-ratio.ts';

export type RequestKind = 'readOnly' | 'mutating';
export type RequestPhase = 'executing' | 'waiting';

/** Upstream's buckets for read_vs_write_current_requests. */
export const readWriteBounds: readonly number[] = [0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1];

const periodMs = 1000;

/** The most a count reached in each second, read for the last whole one (0 for a second it did not change in, as upstream's). */
export class Watermark {
  #windowEnd: number;
  #max = 0;
  #published = 0;

  constructor(now: number) {
    this.#windowEnd = now + periodMs;
  }

  record(value: number, now: number): void {
    this.#roll(now);
    if (value > this.#max) this.#max = value;
  }

  read(now: number): number {
    this.#roll(now);
    return this.#published;
  }

  #roll(now: number): void {
    if (now < this.#windowEnd) return;
    const ended = Math.floor((now - this.#windowEnd) / periodMs) + 1;
    this.#published = ended === 1 ? this.#max : 0;
    this.#max = 0;
    this.#windowEnd += ended * periodMs;
  }
}

class Count {
  value = 0;
  readonly mark: Watermark;
  readonly ratio: TimingRatio;

  constructor(denominator: number, now: number) {
    this.mark = new Watermark(now);
    this.ratio = new TimingRatio(readWriteBounds, 0, denominator, now);
  }

  add(delta: number, now: number): void {
    this.value += delta;
    this.mark.record(this.value, now);
    this.ratio.set(this.value, now);
  }
}

export interface RequestConcurrencyOptions {
  /** Priority and fairness queues requests: their waiting is counted too. */
  waiting: boolean;
  /** The in-flight limits (without priority and fairness), each the denominator of its kind's executing ratio; 0 or absent: 1. */
  limits?: { readOnly: number; mutating: number };
  /** The clock, in ms (tests). */
  now?: () => number;
}

export class RequestConcurrency {
  readonly #now: () => number;
  readonly #executing: Record<RequestKind, Count>;
  readonly #waiting: Record<RequestKind, Count> | undefined;

  constructor(opts: RequestConcurrencyOptions) {
    this.#now = opts.now ?? (() => performance.now());
    const now = this.#now();
    const denominator = (limit: number | undefined) => (limit === undefined || limit <= 0 ? 1 : limit);
    this.#executing = { readOnly: new Count(denominator(opts.limits?.readOnly), now), mutating: new Count(denominator(opts.limits?.mutating), now) };
    this.#waiting = opts.waiting ? { readOnly: new Count(1, now), mutating: new Count(1, now) } : undefined;
  }

  /** A request of the kind began (1) or stopped (-1) executing, or waiting in a queue. */
  note(phase: RequestPhase, mutating: boolean, delta: 1 | -1): void {
    const counts = phase === 'executing' ? this.#executing : this.#waiting;
    counts?.[mutating ? 'mutating' : 'readOnly'].add(delta, this.#now());
  }

  /** The last whole second's watermarks of a phase, by kind (none for waiting without queues). */
  watermarks(phase: RequestPhase): Array<{ kind: RequestKind; value: number }> {
    const counts = phase === 'executing' ? this.#executing : this.#waiting;
    if (counts === undefined) return [];
    const now = this.#now();
    return (['readOnly', 'mutating'] as const).map((kind) => ({ kind, value: counts[kind].mark.read(now) }));
  }

  /** The timing ratio histograms' readings, by phase and kind. */
  readings(): Array<{ phase: RequestPhase; kind: RequestKind; reading: TimingReading }> {
    const now = this.#now();
    const of = (phase: RequestPhase, counts: Record<RequestKind, Count>) =>
      (['readOnly', 'mutating'] as const).map((kind) => ({ phase, kind, reading: counts[kind].ratio.read(now) }));
    return [...(this.#waiting === undefined ? [] : of('waiting', this.#waiting)), ...of('executing', this.#executing)];
  }
}
