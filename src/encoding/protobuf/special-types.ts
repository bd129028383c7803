// Messages whose JSON form is not an object of their fields, converted as
// k8s.io/apimachinery marshals them: meta/v1 Time, MicroTime, Duration and FieldsV1,
// resource.Quantity and intstr.IntOrString, and apiextensions' JSON (a CRD schema's
// default, example and enum values). (runtime.RawExtension embeds a whole object and
// lives in codec.ts; messages whose JSON form is one of their message fields, as
// JSONSchemaPropsOrBool, in one-of-types.ts.)
//
// Each decoder reads the fields of one embedded message and returns its JSON value, or
// undefined when Go would marshal it as null (a zero Time, an empty FieldsV1), so that
// the field is left out. Each encoder writes the fields of the message for a JSON value,
// exactly as gogo-protobuf's Marshal does; undefined is the Go zero value.

import { goJsonSyntaxError } from '../../api/go-json-syntax.ts';
import { replaceLoneSurrogateEscapes } from '../../api/lone-surrogates.ts';
import { canonicalQuantity, parseQuantity } from '../../api/quantity.ts';
import { ProtoReader, ProtoWriter, WIRE_BYTES, WIRE_VARINT, WireError } from './wire.ts';

type Decoder = (r: ProtoReader) => unknown;
type Encoder = (value: unknown, w: ProtoWriter) => void;

interface SpecialType {
  decode: Decoder;
  encode: Encoder;
}

/**
 * Reads the fields of a small message whose Go type is `goName`, as its gogo Unmarshal does:
 * an end of group or a field number that is not positive refused, unknown fields skipped.
 */
function readFields(r: ProtoReader, goName: string, read: (field: number, wireType: number) => boolean): void {
  while (!r.done()) {
    const at = r.pos;
    const [field, wireType] = r.tag();
    if (wireType === 4) throw new WireError(`proto: ${goName}: wiretype end group for non-group`);
    if (field <= 0) throw new WireError(`proto: ${goName}: illegal tag ${field} (wire type ${r.tagText(at)})`);
    if (!read(field, wireType)) r.skipFrom(at);
  }
}

function expectWire(actual: number, expected: number, goField: string): void {
  if (actual !== expected) throw new WireError(`proto: wrong wireType = ${actual} for field ${goField}`);
}

/**
 * Seconds and nanoseconds of a Time or MicroTime: meta/v1's Unmarshal reads an empty message
 * as the zero time, anything else as a Timestamp {1 seconds, 2 nanos}.
 */
function readTimestamp(r: ProtoReader): { seconds: number; nanos: number; empty: boolean } {
  let seconds = 0;
  let nanos = 0;
  const empty = r.done();
  readFields(r, 'Timestamp', (field, wireType) => {
    if (field !== 1 && field !== 2) return false;
    expectWire(wireType, WIRE_VARINT, field === 1 ? 'Seconds' : 'Nanos');
    if (field === 1) seconds = r.int64();
    else nanos = r.int32();
    return true;
  });
  return { seconds, nanos, empty };
}

const maxSeconds = 253402300799; // 9999-12-31T23:59:59Z, the last time Go's JSON marshals
const minSeconds = -62135596800; // 0001-01-01T00:00:00Z

/** RFC 3339 in UTC, seconds precision: "2024-01-02T03:04:05Z". */
function formatSeconds(seconds: number): string {
  if (!Number.isSafeInteger(seconds) || seconds < minSeconds || seconds > maxSeconds) {
    throw new WireError('time out of range');
  }
  const iso = new Date(seconds * 1000).toISOString();
  return `${iso.slice(0, 19)}Z`;
}

const rfc3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Seconds since the epoch and the nanoseconds of an RFC 3339 time string. */
function parseTime(value: string): { seconds: number; nanos: number } {
  const m = rfc3339.exec(value);
  const ms = m === null ? NaN : Date.parse(`${m[1]}T${m[2]}${m[4]!.toUpperCase()}`);
  if (m === null || Number.isNaN(ms)) throw new Error(`not an RFC 3339 time: ${JSON.stringify(value)}`);
  const fraction = (m[3] ?? '.').slice(1, 10).padEnd(9, '0');
  return { seconds: Math.floor(ms / 1000), nanos: Number(fraction) };
}

function writeTimestamp(w: ProtoWriter, seconds: number, nanos: number): void {
  // gogo writes both fields of a Timestamp, zero or not.
  w.int(1, seconds);
  w.int(2, nanos);
}

/** meta/v1 Time: seconds only; Go drops the nanoseconds both ways. A zero Time is an empty message. */
const time: SpecialType = {
  decode(r) {
    const { seconds, empty } = readTimestamp(r);
    // The first second of year 1 is Go's zero time, which marshals as null.
    return empty || seconds === minSeconds ? undefined : formatSeconds(seconds);
  },
  encode(value, w) {
    if (value === undefined) return;
    if (typeof value !== 'string') throw new Error('a Time must be a string');
    const { seconds } = parseTime(value);
    if (seconds !== minSeconds) writeTimestamp(w, seconds, 0);
  },
};

/** meta/v1 MicroTime: RFC 3339 with six fractional digits, "2024-01-02T03:04:05.123456Z". */
const microTime: SpecialType = {
  decode(r) {
    const { seconds, nanos, empty } = readTimestamp(r);
    // time.Unix normalises the nanoseconds into the seconds.
    const carry = Math.floor(nanos / 1e9);
    const rest = nanos - carry * 1e9;
    if (empty || (seconds + carry === minSeconds && rest === 0)) return undefined;
    const base = formatSeconds(seconds + carry);
    return `${base.slice(0, 19)}.${String(Math.floor(rest / 1000)).padStart(6, '0')}Z`;
  },
  encode(value, w) {
    if (value === undefined) return;
    if (typeof value !== 'string') throw new Error('a MicroTime must be a string');
    const { seconds, nanos } = parseTime(value);
    const micros = Math.floor(nanos / 1000) * 1000;
    if (seconds !== minSeconds || micros !== 0) writeTimestamp(w, seconds, micros);
  },
};

const durationUnits: Record<string, number> = {
  ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9,
};

function fractionOf(n: number, unit: number, digits: number): string {
  const whole = Math.floor(n / unit);
  const frac = String(n - whole * unit).padStart(digits, '0').replace(/0+$/, '');
  return frac === '' ? String(whole) : `${whole}.${frac}`;
}

/** Go's time.Duration.String(): "1h0m0s", "1.5s", "300ms", "0s". */
export function formatDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let u = Math.abs(ns);
  if (u < 1e3) return `${sign}${u}ns`;
  if (u < 1e6) return `${sign}${fractionOf(u, 1e3, 3)}µs`;
  if (u < 1e9) return `${sign}${fractionOf(u, 1e6, 6)}ms`;
  const hours = Math.floor(u / 3600e9);
  u -= hours * 3600e9;
  const minutes = Math.floor(u / 60e9);
  u -= minutes * 60e9;
  const h = hours > 0 ? `${hours}h` : '';
  const m = hours > 0 || minutes > 0 ? `${minutes}m` : '';
  return `${sign}${h}${m}${fractionOf(u, 1e9, 9)}s`;
}

/** Go's time.ParseDuration, as nanoseconds. */
export function parseDuration(value: string): number {
  const m = /^([+-]?)((?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+|0)$/.exec(value);
  if (m === null) throw new Error(`not a duration: ${JSON.stringify(value)}`);
  let ns = 0;
  for (const part of m[2]!.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    ns += Math.round(Number(part[1]) * durationUnits[part[2]!]!);
  }
  return m[1] === '-' ? -ns : ns;
}

/** meta/v1 Duration {1 duration int64 nanoseconds}. */
const duration: SpecialType = {
  decode(r) {
    let ns = 0;
    readFields(r, 'Duration', (field, wireType) => {
      if (field !== 1) return false;
      expectWire(wireType, WIRE_VARINT, 'Duration');
      ns = r.int64();
      return true;
    });
    return formatDuration(ns);
  },
  encode(value, w) {
    if (value === undefined) value = '0s';
    if (typeof value !== 'string') throw new Error('a Duration must be a string');
    w.int(1, parseDuration(value));
  },
};

/** The one length-delimited field 1 (Go's Raw) of a message whose Go type is `goName`, as bytes, or undefined. */
function readRawField(r: ProtoReader, goName: string): Uint8Array | undefined {
  let bytes: Uint8Array | undefined;
  readFields(r, goName, (field, wireType) => {
    if (field !== 1) return false;
    expectWire(wireType, WIRE_BYTES, 'Raw');
    bytes = r.bytes();
    return true;
  });
  return bytes;
}

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

/** Parses embedded JSON bytes (FieldsV1, RawExtension), lone surrogates read as U+FFFD as Go reads them. */
export function parseJsonBytes(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(replaceLoneSurrogateEscapes(utf8.decode(bytes)));
  } catch {
    throw new WireError(`${what} does not hold valid JSON`);
  }
}

/** meta/v1 FieldsV1 {1 Raw bytes}: the raw JSON of the field set. */
const fieldsV1: SpecialType = {
  decode(r) {
    const raw = readRawField(r, 'FieldsV1');
    return raw === undefined || raw.length === 0 ? undefined : parseJsonBytes(raw, 'FieldsV1');
  },
  encode(value, w) {
    if (value !== undefined) w.bytes(1, utf8Encoder.encode(JSON.stringify(value)));
  },
};

/**
 * apiextensions/v1 JSON {1 raw bytes}: any JSON value, its raw text. Go keeps the text it
 * was given; from JSON-shaped data it is written compact. Raw is written only when set:
 * null (a `null` in an enum) is an empty message, and an empty message is null.
 */
const anyJson: SpecialType = {
  decode(r) {
    const raw = readRawField(r, 'JSON');
    if (raw === undefined || raw.length === 0) return undefined;
    try {
      return parseJsonBytes(raw, 'a JSON value');
    } catch (err) {
      // Converting to the internal type unmarshals the text: Go's words for text that is not JSON.
      throw new WireError(goJsonSyntaxError(raw) ?? (err as Error).message);
    }
  },
  encode(value, w) {
    if (value !== undefined) w.bytes(1, utf8Encoder.encode(JSON.stringify(value)));
  },
};

/**
 * resource.Quantity {1 string}: the quantity's text; without it the zero Quantity, "0" (an
 * entry of a ResourceList without its value). The text is parsed with the rest of the
 * object's quantities, as a JSON body's are.
 */
const quantity: SpecialType = {
  decode(r) {
    let text = '0';
    readFields(r, 'Quantity', (field, wireType) => {
      if (field !== 1) return false;
      expectWire(wireType, WIRE_BYTES, 'String_');
      text = r.string();
      return true;
    });
    return text;
  },
  encode(value, w) {
    if (value === undefined) value = '0';
    if (typeof value !== 'string' && typeof value !== 'number') throw new Error('a Quantity must be a string or number');
    if (parseQuantity(value) === undefined) throw new Error(`not a quantity: ${JSON.stringify(value)}`);
    w.string(1, canonicalQuantity(value));
  },
};

/** intstr.IntOrString {1 type (0 int, 1 string), 2 intVal, 3 strVal}: a number or a string. */
const intOrString: SpecialType = {
  decode(r) {
    let type = 0;
    let intVal = 0;
    let strVal = '';
    readFields(r, 'IntOrString', (field, wireType) => {
      if (field === 1) {
        expectWire(wireType, WIRE_VARINT, 'Type');
        type = r.int64();
      } else if (field === 2) {
        expectWire(wireType, WIRE_VARINT, 'IntVal');
        intVal = r.int32();
      } else if (field === 3) {
        expectWire(wireType, WIRE_BYTES, 'StrVal');
        strVal = r.string();
      } else return false;
      return true;
    });
    return type === 1 ? strVal : intVal;
  },
  encode(value, w) {
    // gogo writes all three fields.
    if (value === undefined) value = 0;
    if (typeof value === 'string') {
      w.int(1, 1);
      w.int(2, 0);
      w.string(3, value);
    } else if (typeof value === 'number' && Number.isInteger(value)) {
      w.int(1, 0);
      w.int(2, value);
      w.string(3, '');
    } else throw new Error('an IntOrString must be an integer or a string');
  },
};

/** By message name as messages.ts spells it. */
export const specialTypes: ReadonlyMap<string, SpecialType> = new Map([
  ['meta.v1.Time', time],
  ['meta.v1.MicroTime', microTime],
  ['meta.v1.Duration', duration],
  ['meta.v1.FieldsV1', fieldsV1],
  ['resource.Quantity', quantity],
  ['intstr.IntOrString', intOrString],
  ['apiextensions.v1.JSON', anyJson],
]);
