// /metrics in Protobuf, as promhttp answers a scraper asking for expfmt's FmtProtoDelim:
// io.prometheus.client.MetricFamily messages (client_model's metrics.proto), each after its
// length as a varint. As client_golang gathers them: families sorted by name, a series'
// labels by name and the series by their labels' values (NormalizeMetricFamilies), a
// histogram's buckets without +Inf (its count says it). server/ may not import encoding/'s
// ProtoWriter (DESIGN.md), so the few wire forms needed are written here.

/**
 * A family as a registry's metric hands it to prom-client (series.ts' Exported, prom-client's
 * own metrics alike): a counter's or gauge's values are its series; a histogram's are, per
 * series, its cumulative buckets (`le`, +Inf last), `_sum` and `_count`, the series' labels
 * in `sharedLabels`.
 */
export interface ExportedFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: ReadonlyArray<{ value: number; labels: Readonly<Record<string, string | number>>; metricName?: string; sharedLabels?: Readonly<Record<string, string | number>> }>;
}

/** metrics.proto's MetricType. */
const metricType = { counter: 0, gauge: 1, histogram: 4 } as const;

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;

/** One series: its labels sorted by name, and a counter's or gauge's value or a histogram. */
interface Series {
  labels: Array<[string, string]>;
  value: number;
  histogram?: { count: number; sum: number; buckets: Array<{ count: number; bound: number }> };
}

/** The families, delimited, in client_golang's order. */
export function encodeMetricFamilies(families: readonly ExportedFamily[]): Uint8Array {
  const out: number[] = [];
  for (const family of [...families].sort((a, b) => compare(a.name, b.name))) {
    const message = familyMessage(family);
    varint(out, message.length);
    append(out, message);
  }
  return Uint8Array.from(out);
}

/** A MetricFamily: name 1, help 2, type 3, metric 4 (a Metric: label 1, gauge 2, counter 3, histogram 7). */
function familyMessage(family: ExportedFamily): number[] {
  const out: number[] = [];
  string(out, 1, family.name);
  string(out, 2, family.help);
  tag(out, 3, WIRE_VARINT);
  varint(out, metricType[family.type]);
  for (const series of seriesOf(family).sort(bySeriesLabels)) {
    const metric: number[] = [];
    for (const [name, value] of series.labels) {
      const pair: number[] = [];
      string(pair, 1, name);
      string(pair, 2, value);
      message(metric, 1, pair);
    }
    if (series.histogram === undefined) {
      // Gauge and Counter: value 1.
      const value: number[] = [];
      double(value, 1, series.value);
      message(metric, family.type === 'gauge' ? 2 : 3, value);
    } else {
      // Histogram: sample_count 1, sample_sum 2, bucket 3 (a Bucket: cumulative_count 1, upper_bound 2).
      const histogram: number[] = [];
      tag(histogram, 1, WIRE_VARINT);
      varint(histogram, series.histogram.count);
      double(histogram, 2, series.histogram.sum);
      for (const { count, bound } of series.histogram.buckets) {
        const bucket: number[] = [];
        tag(bucket, 1, WIRE_VARINT);
        varint(bucket, count);
        double(bucket, 2, bound);
        message(histogram, 3, bucket);
      }
      message(metric, 7, histogram);
    }
    message(out, 4, metric);
  }
  return out;
}

function seriesOf(family: ExportedFamily): Series[] {
  if (family.type !== 'histogram') return family.values.map(({ value, labels }) => ({ labels: sortedLabels(labels), value }));
  const all: Series[] = [];
  let buckets: Array<{ count: number; bound: number }> = [];
  let sum = 0;
  for (const { value, labels, metricName = '', sharedLabels = {} } of family.values) {
    if (metricName.endsWith('_bucket')) {
      if (labels.le !== '+Inf') buckets.push({ count: value, bound: Number(labels.le) });
    } else if (metricName.endsWith('_sum')) {
      sum = value;
    } else {
      // _count, a series' last value.
      all.push({ labels: sortedLabels(sharedLabels), value: 0, histogram: { count: value, sum, buckets } });
      buckets = [];
    }
  }
  return all;
}

function sortedLabels(labels: Readonly<Record<string, string | number>>): Array<[string, string]> {
  return Object.entries(labels).map(([name, value]): [string, string] => [name, String(value)]).sort(([a], [b]) => compare(a, b));
}

/** client_golang's metricSorter: by the labels' values in order (the family's series have the same label names). */
function bySeriesLabels(a: Series, b: Series): number {
  if (a.labels.length !== b.labels.length) return a.labels.length - b.labels.length;
  for (let i = 0; i < a.labels.length; i++) {
    const order = compare(a.labels[i]![1], b.labels[i]![1]);
    if (order !== 0) return order;
  }
  return 0;
}

/** Go's string order (bytes; the same as UTF-16 units for the names and values here). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const utf8 = new TextEncoder();
const float = new DataView(new ArrayBuffer(8));

/** A non-negative integer below 2^53. */
function varint(out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
}

function tag(out: number[], field: number, wireType: number): void {
  varint(out, field * 8 + wireType);
}

/** A double: fixed64, little-endian. */
function double(out: number[], field: number, value: number): void {
  tag(out, field, WIRE_FIXED64);
  float.setFloat64(0, value, true);
  for (let i = 0; i < 8; i++) out.push(float.getUint8(i));
}

function string(out: number[], field: number, value: string): void {
  const bytes = utf8.encode(value);
  tag(out, field, WIRE_BYTES);
  varint(out, bytes.length);
  append(out, bytes);
}

function message(out: number[], field: number, inner: readonly number[]): void {
  tag(out, field, WIRE_BYTES);
  varint(out, inner.length);
  append(out, inner);
}

function append(out: number[], bytes: ArrayLike<number>): void {
  for (let i = 0; i < bytes.length; i++) out.push(bytes[i]!);
}
