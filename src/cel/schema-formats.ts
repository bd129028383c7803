// String formats a CRD schema gives a CEL type of its own, as upstream's conversion of
// custom resources to CEL values does: `date` and `date-time` strings are timestamps,
// `duration` strings durations and `byte` strings bytes (base64-decoded). A value that
// does not parse stays a string (schema validation has refused it already).

import { Environment } from '@marcbachmann/cel-js';

type DurationConstructor = new (seconds: bigint, nanos: number) => unknown;
let durationClass: DurationConstructor | undefined;

/** cel-js's duration class (not exported: taken from a value it makes). */
function durationOf(seconds: bigint, nanos: number): unknown {
  durationClass ??= (new Environment().evaluate('duration("0s")') as object).constructor as DurationConstructor;
  return new durationClass(seconds, nanos);
}

const goUnits: Record<string, bigint> = { ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
const second = 1_000_000_000n;
const day = 24n * 3_600n * second;
// strfmt.ParseDuration's second form: a whole number and a unit word.
const unitWords: Record<string, bigint> = {
  ns: 1n, nanosecond: 1n, nanoseconds: 1n,
  us: 1_000n, 'µs': 1_000n, microsecond: 1_000n, microseconds: 1_000n,
  ms: 1_000_000n, millisecond: 1_000_000n, milliseconds: 1_000_000n,
  s: second, second, seconds: second,
  m: 60n * second, minute: 60n * second, minutes: 60n * second,
  h: 3_600n * second, hour: 3_600n * second, hours: 3_600n * second,
  d: day, day, days: day,
  w: 7n * day, wk: 7n * day, wks: 7n * day, week: 7n * day, weeks: 7n * day,
};

/** Go's time.ParseDuration, in nanoseconds (undefined when it does not parse). */
function goDurationNanos(s: string): bigint | undefined {
  let rest = s;
  let sign = 1n;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    if (rest[0] === '-') sign = -1n;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  const part = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== '') {
    const m = part.exec(rest);
    if (m === null || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const unit = goUnits[m[3]!]!;
    total += BigInt(m[1] || '0') * unit;
    const fraction = m[2] ?? '';
    if (fraction !== '') total += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

function durationNanos(s: string): bigint | undefined {
  const go = goDurationNanos(s);
  if (go !== undefined) return go;
  const m = /^(\d+)\s*([a-zµ]+)$/.exec(s);
  const unit = m === null ? undefined : unitWords[m[2]!];
  return unit === undefined ? undefined : BigInt(m![1]!) * unit;
}

const dateTimePattern = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;

function timestamp(s: string, dateOnly: boolean): Date | undefined {
  if (dateOnly) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return undefined;
    const d = new Date(`${s}T00:00:00Z`);
    return Number.isNaN(d.getTime()) ? undefined : d;
  }
  const m = dateTimePattern.exec(s);
  if (m === null) return undefined;
  const zone = m[8]!.toUpperCase() === 'Z' ? 'Z' : m[8]!.length === 5 ? `${m[8]!.slice(0, 3)}:${m[8]!.slice(3)}` : m[8]!;
  const d = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${(m[7] ?? '').slice(0, 4)}${zone}`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function base64Bytes(s: string): Uint8Array | undefined {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s)) return undefined;
  return new Uint8Array(Buffer.from(s, 'base64'));
}

/** A string of a schema's `format` as CEL sees it: the string itself unless the format has a type. */
export function formattedString(value: string, format: unknown): unknown {
  switch (format) {
    case 'date': return timestamp(value, true) ?? value;
    case 'date-time': return timestamp(value, false) ?? value;
    case 'byte': return base64Bytes(value) ?? value;
    case 'duration': {
      const nanos = durationNanos(value);
      if (nanos === undefined) return value;
      return durationOf(nanos / second, Number(nanos % second));
    }
    default: return value;
  }
}

/** The CEL type a string schema's format gives its values (upstream's SchemaDeclType). */
export function formatType(format: unknown): string {
  switch (format) {
    case 'date':
    case 'date-time': return 'google.protobuf.Timestamp';
    case 'duration': return 'google.protobuf.Duration';
    case 'byte': return 'bytes';
    default: return 'string';
  }
}
