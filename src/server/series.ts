// Counters, gauges and histograms kept as plain numbers per label set, and read by
// prom-client's registry only when /metrics is scraped (the registry, and prom-client
// itself, are made on the first scrape: metrics.ts). prom-client's own metrics hash
// their labels (sort and join) on every inc() and observe(); a request records several,
// so on the request path that cost more than the rest of the metrics together. A series
// is looked up once per label set and then updated in place.
type Labels = Record<string, string>;

/** What prom-client's registry reads from a metric when it renders the text format. */
export interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  aggregator: 'sum';
  values: Array<{ value: number; labels: Labels; metricName?: string; sharedLabels?: Labels }>;
}

/** The metrics a registry renders, in the order they were made; those with `reset` are resettable (DELETE /metrics). */
export type MetricList = Array<{ readonly name: string; get(): Exported; reset?(): void }>;

/** A label set's series; `reset` until it is recorded again after a reset. */
interface Entry<S> {
  labels: Labels;
  series: S;
  reset: boolean;
}

abstract class PlainMetric<S> {
  readonly name: string;
  readonly help: string;
  readonly #series = new Map<string, Entry<S>>();

  constructor(list: MetricList, name: string, help: string) {
    this.name = name;
    this.help = help;
    list.push(this);
  }

  /** The series of a label set: `key` names it (any string unique to those labels), `labels` are made only the first time. */
  series(key: string, labels: () => Labels): S {
    let found = this.#series.get(key);
    if (found === undefined) {
      found = { labels: labels(), series: this.create(), reset: false };
      this.#series.set(key, found);
    }
    return found.series;
  }

  /** Drops a label set's series (upstream deletes the series of key ids it no longer tracks). */
  delete(key: string): void {
    this.#series.delete(key);
  }

  /**
   * DELETE /metrics, as upstream's registry resets its vectors: every labelled series is
   * gone until it is recorded again. Callers keep their series and record into them in place,
   * so a series is zeroed and left out while still zero (a gauge set to 0 after a reset stays
   * out until it moves). An unlabelled one is not a vector: `resetUnlabelled` says whether
   * it goes back to zero (a counter's Reset) or is left as it is (gauges and histograms have none).
   */
  reset(): void {
    for (const entry of this.#series.values()) {
      if (Object.keys(entry.labels).length === 0) {
        if (this.resetUnlabelled) this.zero(entry.series);
        continue;
      }
      this.zero(entry.series);
      entry.reset = true;
    }
  }

  protected readonly resetUnlabelled: boolean = false;

  protected abstract create(): S;

  protected abstract zero(series: S): void;

  protected abstract isZero(series: S): boolean;

  /** The series shown: not those reset and not recorded since. */
  protected *entries(): IterableIterator<Entry<S>> {
    for (const entry of this.#series.values()) {
      if (entry.reset) {
        if (this.isZero(entry.series)) continue;
        entry.reset = false;
      }
      yield entry;
    }
  }

  /** prom-client's registry calls this when scraped. */
  abstract get(): Exported;
}

/** A counter or a gauge: one number per label set. */
class PlainValue extends PlainMetric<{ value: number }> {
  readonly #type: 'counter' | 'gauge';

  constructor(list: MetricList, name: string, help: string, type: 'counter' | 'gauge') {
    super(list, name, help);
    this.#type = type;
  }

  protected create(): { value: number } {
    return { value: 0 };
  }

  protected zero(series: { value: number }): void {
    series.value = 0;
  }

  protected isZero(series: { value: number }): boolean {
    return series.value === 0;
  }

  get(): Exported {
    return { name: this.name, help: this.help, type: this.#type, aggregator: 'sum', values: [...this.entries()].map(({ labels, series }) => ({ value: series.value, labels })) };
  }
}

export class PlainCounter extends PlainValue {
  protected override readonly resetUnlabelled = true;

  constructor(list: MetricList, name: string, help: string) {
    super(list, name, help, 'counter');
  }
}

export class PlainGauge extends PlainValue {
  constructor(list: MetricList, name: string, help: string) {
    super(list, name, help, 'gauge');
  }
}

/** A gauge whose values are read from elsewhere when scraped. */
export class CollectedGauge {
  readonly name: string;
  readonly help: string;
  readonly #collect: () => Array<{ labels: Labels; value: number }>;

  constructor(list: MetricList, name: string, help: string, collect: () => Array<{ labels: Labels; value: number }>) {
    this.name = name;
    this.help = help;
    this.#collect = collect;
    list.push(this);
  }

  get(): Exported {
    return { name: this.name, help: this.help, type: 'gauge', aggregator: 'sum', values: this.#collect() };
  }
}

/** A histogram read from elsewhere when scraped: per label set its buckets' counts (not cumulative, the overflow last), sum and count. */
export class CollectedHistogram {
  readonly name: string;
  readonly help: string;
  readonly #bounds: readonly number[];
  readonly #collect: () => Array<{ labels: Labels; counts: readonly number[]; sum: number; count: number }>;

  constructor(list: MetricList, name: string, help: string, bounds: readonly number[], collect: () => Array<{ labels: Labels; counts: readonly number[]; sum: number; count: number }>) {
    this.name = name;
    this.help = help;
    this.#bounds = bounds;
    this.#collect = collect;
    list.push(this);
  }

  /** As PlainHistogram renders it. */
  get(): Exported {
    const values: Exported['values'] = [];
    for (const { labels, counts, sum, count } of this.#collect()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += counts[i]!;
        values.push({ value: cumulative, labels: { le: String(bound) }, metricName: `${this.name}_bucket`, sharedLabels: labels });
      });
      values.push({ value: count, labels: { le: '+Inf' }, metricName: `${this.name}_bucket`, sharedLabels: labels });
      values.push({ value: sum, labels: {}, metricName: `${this.name}_sum`, sharedLabels: labels });
      values.push({ value: count, labels: {}, metricName: `${this.name}_count`, sharedLabels: labels });
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }
}

/** Observations counted per bucket (not yet cumulative), their sum and count. */
export class HistogramSeries {
  readonly #bounds: readonly number[];
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.counts = new Array<number>(bounds.length).fill(0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const bounds = this.#bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }
}

export class PlainHistogram extends PlainMetric<HistogramSeries> {
  readonly #bounds: readonly number[];

  constructor(list: MetricList, name: string, help: string, bounds: readonly number[]) {
    super(list, name, help);
    this.#bounds = bounds;
  }

  protected create(): HistogramSeries {
    return new HistogramSeries(this.#bounds);
  }

  protected zero(series: HistogramSeries): void {
    series.counts.fill(0);
    series.sum = 0;
    series.count = 0;
  }

  protected isZero(series: HistogramSeries): boolean {
    return series.count === 0;
  }

  /** As prom-client writes a histogram: cumulative buckets with `le` first, then +Inf, _sum and _count. */
  get(): Exported {
    const values: Exported['values'] = [];
    for (const { labels, series } of this.entries()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        values.push({ value: cumulative, labels: { le: String(bound) }, metricName: `${this.name}_bucket`, sharedLabels: labels });
      });
      values.push({ value: series.count, labels: { le: '+Inf' }, metricName: `${this.name}_bucket`, sharedLabels: labels });
      values.push({ value: series.sum, labels: {}, metricName: `${this.name}_sum`, sharedLabels: labels });
      values.push({ value: series.count, labels: {}, metricName: `${this.name}_count`, sharedLabels: labels });
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum', values };
  }
}
