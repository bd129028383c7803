// CBOR (RFC 8949) for JSON-shaped data, byte for byte as k8s.io/apimachinery's CBOR serializer encodes and decodes.
import { badRequest, type StatusError } from '../api/index.ts';

/**
 * The head of tag 55799, "self-described CBOR": upstream's serializer writes it before
 * every top-level data item it encodes and recognizes CBOR bodies by it.
 */
export const selfDescribedCbor: Uint8Array = Uint8Array.of(0xd9, 0xd9, 0xf7);

/**
 * One data item already encoded, written as it is: the embedded object of a watch event,
 * which upstream encodes first (with its own 55799 tag) and then copies into the event.
 */
export class EncodedCbor {
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
}

// Major types, shifted into the initial byte.
const MT_UINT = 0 << 5;
const MT_NINT = 1 << 5;
const MT_BYTES = 2 << 5;
const MT_ARRAY = 4 << 5;
const MT_MAP = 5 << 5;
const MT_TAG = 6 << 5;

const TAG_BASE64URL = 21;
const TAG_BASE64 = 22;
const TAG_BASE16 = 23;
const TAG_SELF_DESCRIBED = 55799;

const twoTo32 = 2 ** 32;
const twoTo63 = 2 ** 63;

/** A growable output buffer. */
class Writer {
  buf = new Uint8Array(256);
  view = new DataView(this.buf.buffer);
  pos = 0;

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** The head of a data item: major type and argument, in the shortest form (RFC 8949 4.2.1). */
  head(major: number, n: number): void {
    this.ensure(9);
    if (n < 24) {
      this.buf[this.pos++] = major | n;
    } else if (n < 0x100) {
      this.buf[this.pos++] = major | 24;
      this.buf[this.pos++] = n;
    } else if (n < 0x10000) {
      this.buf[this.pos++] = major | 25;
      this.view.setUint16(this.pos, n);
      this.pos += 2;
    } else if (n < twoTo32) {
      this.buf[this.pos++] = major | 26;
      this.view.setUint32(this.pos, n);
      this.pos += 4;
    } else {
      this.buf[this.pos++] = major | 27;
      this.view.setBigUint64(this.pos, BigInt(n));
      this.pos += 8;
    }
  }

  bigHead(major: number, n: bigint): void {
    if (n < BigInt(twoTo32)) {
      this.head(major, Number(n));
      return;
    }
    this.ensure(9);
    this.buf[this.pos++] = major | 27;
    this.view.setBigUint64(this.pos, n);
    this.pos += 8;
  }

  result(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

const utf8Encoder = new TextEncoder();

/** Go strings are written as byte strings (upstream's StringToByteString and FieldNameToByteString). */
function writeString(w: Writer, s: string): void {
  // ASCII, the usual case, is copied without an intermediate buffer.
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    w.head(MT_BYTES, s.length);
    w.ensure(s.length);
    for (let i = 0; i < s.length; i++) w.buf[w.pos++] = s.charCodeAt(i);
    return;
  }
  const b = utf8Encoder.encode(s);
  w.head(MT_BYTES, b.length);
  w.bytes(b);
}

/** Integers in the shortest head; an int64 out of a double's exact range goes through BigInt. */
function writeInteger(w: Writer, v: number): void {
  if (v >= 0) {
    if (v < twoTo32) w.head(MT_UINT, v);
    else w.bigHead(MT_UINT, BigInt(v));
  } else if (v >= -twoTo32) {
    w.head(MT_NINT, -1 - v);
  } else {
    w.bigHead(MT_NINT, -1n - BigInt(v));
  }
}

const f32 = new Float32Array(1);
const f32Bits = new Uint32Array(f32.buffer);

/**
 * The IEEE 754 half-precision bits of a float32 value, or undefined when half precision
 * cannot hold it exactly (fxamacker/cbor's ShortestFloat16: subnormal halves included).
 */
function float16Bits(value: number): number | undefined {
  f32[0] = value;
  const bits = f32Bits[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const biased = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (biased === 0) return mantissa === 0 ? sign : undefined; // zero; float32 subnormals are far below half's range
  const exponent = biased - 127;
  if (exponent > 15) return undefined;
  if (exponent >= -14) {
    if ((mantissa & 0x1fff) !== 0) return undefined;
    return sign | ((exponent + 15) << 10) | (mantissa >>> 13);
  }
  if (exponent < -24) return undefined;
  // A half subnormal: value = k * 2^-24 with k < 1024.
  const significand = mantissa | 0x800000;
  const shift = -exponent - 1;
  if ((significand & ((1 << shift) - 1)) !== 0) return undefined;
  return sign | (significand >>> shift);
}

/** A float in the narrowest of half, single and double precision that keeps its value. */
function writeFloat(w: Writer, v: number): void {
  if (Number.isNaN(v)) throw new Error('cbor: unsupported value: floating-point NaN');
  if (!Number.isFinite(v)) throw new Error('cbor: unsupported value: floating-point infinity');
  w.ensure(9);
  if (Math.fround(v) === v) {
    const half = float16Bits(v);
    if (half !== undefined) {
      w.buf[w.pos++] = 0xf9;
      w.view.setUint16(w.pos, half);
      w.pos += 2;
      return;
    }
    w.buf[w.pos++] = 0xfa;
    w.view.setFloat32(w.pos, v);
    w.pos += 4;
    return;
  }
  w.buf[w.pos++] = 0xfb;
  w.view.setFloat64(w.pos, v);
  w.pos += 8;
}

/**
 * Whether a JS number is an integer for Go: an integral JSON number decodes to int64 in
 * an unstructured object (k8s.io/apimachinery/pkg/util/json), anything else to float64.
 */
function isGoInteger(v: number): boolean {
  return Number.isInteger(v) && v >= -twoTo63 && v < twoTo63;
}

/** Map keys in RFC 8949 4.2.1 order: bytewise on their encodings, which for byte strings is shorter first, then bytewise. */
function compareKeys(a: string, b: string): number {
  if (isAscii(a) && isAscii(b)) {
    if (a.length !== b.length) return a.length - b.length;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const ab = utf8Encoder.encode(a);
  const bb = utf8Encoder.encode(b);
  if (ab.length !== bb.length) return ab.length - bb.length;
  for (let i = 0; i < ab.length; i++) if (ab[i] !== bb[i]) return ab[i]! - bb[i]!;
  return 0;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

function writeValue(w: Writer, value: unknown, depth: number): void {
  if (depth > 10_000) throw new Error('cbor: exceeded max nested level 10000');
  switch (typeof value) {
    case 'string':
      writeString(w, value);
      return;
    case 'number':
      if (isGoInteger(value)) writeInteger(w, value === 0 ? 0 : value);
      else writeFloat(w, value);
      return;
    case 'boolean':
      w.byte(value ? 0xf5 : 0xf4);
      return;
    case 'bigint':
      if (value >= 0n) {
        if (value >= 1n << 64n) throw new Error('cbor: unsupported value: integer out of range');
        w.bigHead(MT_UINT, value);
      } else {
        if (value < -(1n << 64n)) throw new Error('cbor: unsupported value: integer out of range');
        w.bigHead(MT_NINT, -1n - value);
      }
      return;
    case 'undefined':
      w.byte(0xf6); // as JSON.stringify does in arrays; object fields that are undefined are skipped
      return;
    case 'object':
      break;
    default:
      throw new Error(`cbor: unsupported type: ${typeof value}`);
  }
  if (value === null) {
    w.byte(0xf6);
    return;
  }
  if (value instanceof EncodedCbor) {
    w.bytes(value.bytes);
    return;
  }
  if (value instanceof Uint8Array) {
    // A Go []byte: tag 22 tells the decoder its text form is base64 (ByteSliceLaterFormatBase64).
    w.byte(MT_TAG | TAG_BASE64);
    w.head(MT_BYTES, value.length);
    w.bytes(value);
    return;
  }
  if (Array.isArray(value)) {
    w.head(MT_ARRAY, value.length);
    for (const item of value) writeValue(w, item, depth + 1);
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((k) => record[k] !== undefined);
  keys.sort(compareKeys);
  w.head(MT_MAP, keys.length);
  for (const key of keys) {
    writeString(w, key);
    writeValue(w, record[key], depth + 1);
  }
}

/**
 * One data item for JSON-shaped data, as upstream's CBOR serializer writes it: the
 * self-described tag first (unless `selfDescribed` is false, as for a nested item),
 * strings and map keys as byte strings, keys in bytewise order of their encodings,
 * integers and floats in their shortest forms, definite lengths only. A Uint8Array is a Go
 * []byte (tag 22 and a byte string); an EncodedCbor is copied as it is. NaN and
 * infinities are refused, as upstream's encoder refuses them.
 */
export function encodeCbor(value: unknown, opts: { selfDescribed?: boolean } = {}): Uint8Array {
  const w = new Writer();
  if (opts.selfDescribed ?? true) w.bytes(selfDescribedCbor);
  writeValue(w, value, 0);
  return w.result();
}

// ---------------------------------------------------------------------------------------
// Decoding, with the rules of upstream's decode mode (internal/modes/decode.go).

/** Upstream's limits: nesting of arrays, maps and tags together, and the size of each array and map. */
export const cborLimits: CborLimits = { maxNestedLevels: 64, maxArrayElements: 1024, maxMapPairs: 1024 };

export interface CborLimits {
  maxNestedLevels: number;
  maxArrayElements: number;
  maxMapPairs: number;
}

/** Decoding options: other limits, for reading answers (a list of more than 1024 items) in tests and tools. */
export interface CborDecodeOptions {
  limits?: Partial<CborLimits>;
}

/** A malformed or refused body, worded as fxamacker/cbor words it. */
class CborError extends Error {}

const majorNames = [
  'positive integer', 'negative integer', 'byte string', 'UTF-8 text string',
  'array', 'map', 'tag', 'primitives',
] as const;

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });
const lenientUtf8 = new TextDecoder('utf-8');

function base64url(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64url');
}

function base64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
}

function base16(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex');
}

/** A string data item, kept as bytes until the caller decides how it reads (text must be UTF-8; tags 21-23 re-encode). */
interface StringItem {
  major: number;
  bytes: Uint8Array;
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time as Go's time.RFC3339Nano formats it after parsing: fraction without trailing zeros, "Z" for UTC. */
function normalizeRfc3339(s: string): string | undefined {
  const m = rfc3339.exec(s);
  if (m === null) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = m;
  const ms = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second}Z`);
  if (Number.isNaN(ms) || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const frac = fraction === undefined ? '' : fraction.slice(0, 10).replace(/0+$/, '').replace(/^\.$/, '');
  const offset = zone!.toUpperCase() === 'Z' || zone === '+00:00' || zone === '-00:00' ? 'Z' : zone!;
  return `${year}-${month}-${day}T${hour}:${minute}:${second}${frac}${offset}`;
}

/** Seconds since the epoch (tag 1) as RFC3339Nano in UTC. */
function epochToRfc3339(seconds: number): string {
  if (!Number.isFinite(seconds)) throw new CborError('cbor: data item of cbor type primitives is not accepted by protocol: floating-point infinity');
  const whole = Math.floor(seconds);
  const date = new Date(whole * 1000);
  if (Number.isNaN(date.getTime())) throw new CborError(`cbor: cannot unmarshal tag into Go value of type time.Time (time out of range)`);
  let nanos = Math.round((seconds - whole) * 1e9);
  let text = date.toISOString().slice(0, 19);
  if (nanos >= 1e9) nanos = 999_999_999;
  if (nanos > 0) text += `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${text}Z`;
}

class Reader {
  readonly data: Uint8Array;
  readonly view: DataView;
  readonly limits: CborLimits;
  pos = 0;
  /** A float holding an integer (`2.0`) was read: no Go integer field takes it (fxamacker's fillFloat). */
  integralFloat = false;

  constructor(data: Uint8Array, limits: CborLimits) {
    this.data = data;
    this.limits = limits;
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  need(n: number): void {
    if (this.pos + n > this.data.length) throw new CborError('unexpected EOF');
  }

  /** The argument of a head whose additional information is `info`; -1 for indefinite length. */
  argument(major: number, info: number): number {
    if (info < 24) return info;
    switch (info) {
      case 24:
        this.need(1);
        return this.data[this.pos++]!;
      case 25: {
        this.need(2);
        const v = this.view.getUint16(this.pos);
        this.pos += 2;
        return v;
      }
      case 26: {
        this.need(4);
        const v = this.view.getUint32(this.pos);
        this.pos += 4;
        return v;
      }
      case 27: {
        this.need(8);
        const big = this.view.getBigUint64(this.pos);
        this.pos += 8;
        // Lengths beyond 2^53 cannot be satisfied by any body; integers are read by readInteger.
        return big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
      }
      case 31:
        if (major === 2 || major === 3 || major === 4 || major === 5) return -1;
        break;
      default:
        break;
    }
    throw new CborError(`cbor: invalid additional information ${info} for type ${majorNames[major]}`);
  }

  /** An integer of major type 0 or 1 as Go's int64 (IntDecConvertSignedOrFail). */
  integer(major: number, info: number): number {
    let n: bigint;
    if (info === 27) {
      this.need(8);
      n = this.view.getBigUint64(this.pos);
      this.pos += 8;
    } else {
      n = BigInt(this.argument(major, info));
    }
    const value = major === 0 ? n : -1n - n;
    if (value > (1n << 63n) - 1n || value < -(1n << 63n)) {
      throw new CborError(`cbor: cannot unmarshal ${majorNames[major]} into Go value of type int64 (${value} overflows Go's int64)`);
    }
    return Number(value);
  }

  /** The content of a byte or text string; indefinite length joins definite chunks of the same type. */
  string(major: number, info: number): StringItem {
    const length = this.argument(major, info);
    if (length >= 0) {
      this.need(length);
      const bytes = this.data.subarray(this.pos, this.pos + length);
      this.pos += length;
      return { major, bytes };
    }
    const chunks: Uint8Array[] = [];
    for (;;) {
      this.need(1);
      const initial = this.data[this.pos++]!;
      if (initial === 0xff) break;
      const chunkMajor = initial >> 5;
      const chunkInfo = initial & 0x1f;
      if (chunkMajor !== major || chunkInfo === 31) {
        throw new CborError(`cbor: wrong element type ${majorNames[chunkMajor]} for indefinite-length ${majorNames[major]}`);
      }
      chunks.push(this.string(chunkMajor, chunkInfo).bytes);
    }
    return { major, bytes: Buffer.concat(chunks) };
  }
}

function textOf(item: StringItem): string {
  if (item.major === 3) {
    try {
      return fatalUtf8.decode(item.bytes);
    } catch {
      throw new CborError('cbor: invalid UTF-8 string');
    }
  }
  // A byte string holds any Go string; invalid UTF-8 becomes U+FFFD, as Go's JSON encoder writes it.
  return lenientUtf8.decode(item.bytes);
}

function refused(what: string): CborError {
  return new CborError(`cbor: data item of cbor type primitives is not accepted by protocol: ${what}`);
}

function float16(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

function setField(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

/** Reads one data item into JSON-shaped data. */
function readItem(r: Reader, depth: number): unknown {
  r.need(1);
  const initial = r.data[r.pos++]!;
  const major = initial >> 5;
  const info = initial & 0x1f;
  switch (major) {
    case 0:
    case 1:
      return r.integer(major, info);
    case 2:
    case 3:
      return textOf(r.string(major, info));
    case 4: {
      if (depth + 1 > r.limits.maxNestedLevels) throw new CborError(`cbor: exceeded max nested level ${r.limits.maxNestedLevels}`);
      const length = r.argument(major, info);
      const tooMany = `cbor: exceeded max number of elements ${r.limits.maxArrayElements} for CBOR array`;
      if (length > r.limits.maxArrayElements) throw new CborError(tooMany);
      const items: unknown[] = [];
      if (length >= 0) {
        for (let i = 0; i < length; i++) items.push(readItem(r, depth + 1));
        return items;
      }
      for (;;) {
        r.need(1);
        if (r.data[r.pos] === 0xff) {
          r.pos++;
          return items;
        }
        if (items.length === r.limits.maxArrayElements) throw new CborError(tooMany);
        items.push(readItem(r, depth + 1));
      }
    }
    case 5: {
      if (depth + 1 > r.limits.maxNestedLevels) throw new CborError(`cbor: exceeded max nested level ${r.limits.maxNestedLevels}`);
      const length = r.argument(major, info);
      const tooMany = `cbor: exceeded max number of key-value pairs ${r.limits.maxMapPairs} for CBOR map`;
      if (length > r.limits.maxMapPairs) throw new CborError(tooMany);
      const obj: Record<string, unknown> = {};
      for (let index = 0; length < 0 || index < length; index++) {
        if (length < 0) {
          r.need(1);
          if (r.data[r.pos] === 0xff) {
            r.pos++;
            break;
          }
          if (index === r.limits.maxMapPairs) throw new CborError(tooMany);
        }
        const key = readKey(r, depth + 1);
        const value = readItem(r, depth + 1);
        // Go's "\"%v\"": the key as it is between quotes, nothing escaped.
        if (Object.hasOwn(obj, key)) throw new CborError(`cbor: found duplicate map key "${key}" at map element index ${index}`);
        setField(obj, key, value);
      }
      return obj;
    }
    case 6:
      return readTag(r, info, depth);
    default:
      return readSimple(r, info);
  }
}

/** A map key must be a string (MapKeyByteStringForbidden into map[string]interface{}); tags around it are skipped. */
function readKey(r: Reader, depth: number): string {
  r.need(1);
  const initial = r.data[r.pos]!;
  const major = initial >> 5;
  if (major === 2 || major === 3) {
    r.pos++;
    return textOf(r.string(major, initial & 0x1f));
  }
  const start = r.pos;
  const value = readItem(r, depth);
  if (typeof value === 'string' && (r.data[start]! >> 5) === 6) return value;
  throw new CborError(`cbor: cannot unmarshal ${majorNames[major]} into Go value of type string`);
}

function readTag(r: Reader, info: number, depth: number): unknown {
  let tag: number;
  if (info === 27) {
    r.need(8);
    const big = r.view.getBigUint64(r.pos);
    r.pos += 8;
    tag = big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
  } else {
    tag = r.argument(6, info);
  }
  if (depth + 1 > r.limits.maxNestedLevels) throw new CborError(`cbor: exceeded max nested level ${r.limits.maxNestedLevels}`);
  r.need(1);
  const contentMajor = r.data[r.pos]! >> 5;
  switch (tag) {
    case 0: {
      // An RFC 3339 time: a text string only, and a valid time (TimeTagToRFC3339Nano).
      if (contentMajor !== 3) throw new CborError(`cbor: tag number 0 must be followed by text string, got ${majorNames[contentMajor]}`);
      const text = readItem(r, depth + 1) as string;
      const normalized = normalizeRfc3339(text);
      if (normalized === undefined) throw new CborError(`cbor: cannot set ${text} for time.Time: not an RFC 3339 time`);
      return normalized;
    }
    case 1: {
      if (contentMajor !== 0 && contentMajor !== 1 && contentMajor !== 7) {
        throw new CborError(`cbor: tag number 1 must be followed by integer or floating-point number, got ${majorNames[contentMajor]}`);
      }
      const seconds = readItem(r, depth + 1);
      if (typeof seconds !== 'number') throw new CborError(`cbor: tag number 1 must be followed by integer or floating-point number, got primitives`);
      return epochToRfc3339(seconds);
    }
    case 2:
    case 3:
      // Bignums cannot round-trip through unstructured data (BignumTagForbidden).
      if (contentMajor !== 2) throw new CborError(`cbor: tag number ${tag} must be followed by byte string, got ${majorNames[contentMajor]}`);
      throw new CborError('cbor: data item of cbor type tag is not accepted by protocol: bignum');
    case TAG_BASE64URL:
    case TAG_BASE64:
    case TAG_BASE16:
      // "Expected later encoding": the byte string reads as its text encoding (a Go []byte as JSON shows it).
      if (contentMajor === 2) {
        r.pos++;
        const bytes = r.string(2, r.data[r.pos - 1]! & 0x1f).bytes;
        return tag === TAG_BASE64 ? base64(bytes) : tag === TAG_BASE64URL ? base64url(bytes) : base16(bytes);
      }
      return readItem(r, depth + 1);
    case TAG_SELF_DESCRIBED:
    default:
      // Unrecognized tags decode to their content (UnrecognizedTagContentToAny).
      return readItem(r, depth + 1);
  }
}

function readSimple(r: Reader, info: number): unknown {
  switch (info) {
    case 20:
      return false;
    case 21:
      return true;
    case 22:
      return null;
    case 24: {
      r.need(1);
      const value = r.data[r.pos++]!;
      if (value < 32) throw new CborError(`cbor: invalid simple value ${value} for type primitives`);
      throw refused(`simple value ${value} is not recognized`);
    }
    case 25: {
      r.need(2);
      const v = float16(r.view.getUint16(r.pos));
      r.pos += 2;
      return checkFloat(r, v);
    }
    case 26: {
      r.need(4);
      const v = r.view.getFloat32(r.pos);
      r.pos += 4;
      return checkFloat(r, v);
    }
    case 27: {
      r.need(8);
      const v = r.view.getFloat64(r.pos);
      r.pos += 8;
      return checkFloat(r, v);
    }
    case 28:
    case 29:
    case 30:
      throw new CborError(`cbor: invalid additional information ${info} for type primitives`);
    case 31:
      throw new CborError('cbor: unexpected "break" code');
    default:
      throw refused(`simple value ${info} is not recognized`);
  }
}

function checkFloat(r: Reader, v: number): number {
  if (Number.isNaN(v)) throw refused('floating-point NaN');
  if (!Number.isFinite(v)) throw refused('floating-point infinity');
  if (Number.isInteger(v)) r.integralFloat = true;
  return v;
}

function asBadRequest(err: unknown): StatusError {
  if (err instanceof CborError) return badRequest(err.message);
  if (err instanceof RangeError) return badRequest(`cbor: ${err.message}`); // a stack overflow cannot happen below 64 levels; kept as a 400 all the same
  throw err;
}

/** One item from `pos`; returns the value, where the next item starts, and whether a float held an integer. */
function readOne(data: Uint8Array, pos: number, opts: CborDecodeOptions): [unknown, number, boolean] {
  const r = new Reader(data, { ...cborLimits, ...opts.limits });
  r.pos = pos;
  if (pos >= data.length) throw new CborError('EOF');
  const value = readItem(r, 0);
  return [value, r.pos, r.integralFloat];
}

/**
 * Decodes a body that is exactly one CBOR data item into JSON-shaped data, by upstream's
 * rules: byte and text strings are both strings (text must be valid UTF-8), tags 21-23
 * around a byte string give its base64url, base64 or hex text, tag 0 and 1 times give RFC
 * 3339 strings, tag 55799 and unknown tags give their content; integers beyond int64,
 * bignums, NaN, infinities, undefined and other simple values, duplicate map keys,
 * non-string keys, more than 64 levels of arrays, maps and tags, more than 1024 elements
 * in an array or pairs in a map, and bytes after the item are refused. Indefinite lengths
 * are accepted. Throws a 400 StatusError with fxamacker/cbor's wording of the problem.
 */
export function decodeCbor(data: Uint8Array, opts: CborDecodeOptions = {}): unknown {
  return decodeCborNotingFloats(data, opts).value;
}

/**
 * decodeCbor, telling also whether a float item held an integer (`2.0`): a value no Go
 * integer field takes, where JSON-shaped data cannot tell it from `2`.
 */
export function decodeCborNotingFloats(data: Uint8Array, opts: CborDecodeOptions = {}): { value: unknown; integralFloat: boolean } {
  try {
    const [value, end, integralFloat] = readOne(data, 0, opts);
    if (end !== data.length) throw new CborError(`cbor: ${data.length - end} bytes of extraneous data starting at index ${end}`);
    return { value, integralFloat };
  } catch (err) {
    throw asBadRequest(err);
  }
}

/** decodeCbor for an object body: the item must be a map, as decoding into map[string]interface{} requires. */
export function decodeCborObject(data: Uint8Array, opts: CborDecodeOptions = {}): Record<string, unknown> {
  const value = decodeCbor(data, opts);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const what = value === null ? 'primitives' : Array.isArray(value) ? 'array' : typeof value === 'string' ? 'byte string' : typeof value === 'number' ? 'positive integer' : 'primitives';
    throw badRequest(`cbor: cannot unmarshal ${what} into Go value of type map[string]interface {}`);
  }
  return value as Record<string, unknown>;
}

/** Moves past the data item at the reader's position, which decodeCbor found well-formed. */
function skipItem(r: Reader): void {
  r.need(1);
  const initial = r.data[r.pos++]!;
  const major = initial >> 5;
  const info = initial & 0x1f;
  switch (major) {
    case 0:
    case 1:
      r.integer(major, info);
      return;
    case 2:
    case 3:
      r.string(major, info);
      return;
    case 4:
    case 5: {
      const length = r.argument(major, info);
      const items = major === 5 ? 2 : 1;
      if (length >= 0) {
        for (let i = 0; i < length * items; i++) skipItem(r);
        return;
      }
      while (r.data[r.pos] !== 0xff) skipItem(r);
      r.pos++;
      return;
    }
    case 6:
      skipTagHead(r, info);
      skipItem(r);
      return;
    default:
      r.pos += info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
  }
}

function skipTagHead(r: Reader, info: number): void {
  if (info === 27) r.pos += 8;
  else r.argument(6, info);
}

/** Moves past the tags enclosing the data item at the reader's position; returns that item's major type. */
function skipTags(r: Reader): number {
  for (;;) {
    r.need(1);
    const initial = r.data[r.pos]!;
    if (initial >> 5 !== 6) return initial >> 5;
    r.pos++;
    skipTagHead(r, initial & 0x1f);
  }
}

/** A data item's CBOR type and, for an array or a map, its items'; tags around each left aside. */
interface TypeNode {
  type: string;
  items?: TypeNode[];
  entries?: Map<string, TypeNode>;
}

/** Moves past the break that ends an indefinite-length item, or answers that the item goes on. */
function atEnd(r: Reader, index: number, length: number): boolean {
  if (length >= 0) return index >= length;
  if (r.data[r.pos] !== 0xff) return false;
  r.pos++;
  return true;
}

/** The types of the data item at the reader's position and of everything in it, which decodeCbor found well-formed. */
function readTypes(r: Reader): TypeNode {
  const major = skipTags(r);
  const type = majorNames[major]!;
  if (major !== 4 && major !== 5) {
    skipItem(r);
    return { type };
  }
  const initial = r.data[r.pos++]!;
  const length = r.argument(major, initial & 0x1f);
  if (major === 4) {
    const items: TypeNode[] = [];
    for (let i = 0; !atEnd(r, i, length); i++) items.push(readTypes(r));
    return { type, items };
  }
  const entries = new Map<string, TypeNode>();
  for (let i = 0; !atEnd(r, i, length); i++) {
    const keyMajor = skipTags(r);
    if (keyMajor !== 2 && keyMajor !== 3) {
      skipItem(r);
      skipItem(r);
      continue;
    }
    const keyInitial = r.data[r.pos++]!;
    entries.set(textOf(r.string(keyMajor, keyInitial & 0x1f)), readTypes(r));
  }
  return { type, entries };
}

/**
 * The types of each body's items, read once on the first question about it: an error
 * names one item's type, but telling an integer from a float at every integer field of
 * a body otherwise read the body again for each. Null: the body is not one data item.
 */
const typesOfBodies = new WeakMap<Uint8Array, TypeNode | null>();

function typesOf(data: Uint8Array): TypeNode | undefined {
  let types = typesOfBodies.get(data);
  if (types === undefined) {
    try {
      types = readTypes(new Reader(data, cborLimits));
    } catch {
      types = null;
    }
    typesOfBodies.set(data, types);
  }
  return types ?? undefined;
}

/**
 * The CBOR type, as fxamacker/cbor names it in its errors (`UTF-8 text string`, `byte
 * string`, `positive integer`, `primitives`...), of the data item at `path` (map keys and
 * array indexes from the root) of a body decodeCbor read, tags around it left aside (the
 * decoder reads through them); undefined where the path leads nowhere. What decoding into
 * a Go type refuses is named by the type the body gave it, which the decoded value no
 * longer tells (both string types are strings, and 2.0 is 2).
 */
export function cborTypeAt(data: Uint8Array, path: readonly (string | number)[]): string | undefined {
  let node = typesOf(data);
  for (const step of path) {
    if (node === undefined) return undefined;
    node = typeof step === 'number' ? node.items?.[step] : node.entries?.get(step);
  }
  return node?.type;
}

/** Decodes an RFC 8742 CBOR sequence (application/cbor-seq): data items one after another. */
export function decodeCborSequence(data: Uint8Array, opts: CborDecodeOptions = {}): unknown[] {
  const items: unknown[] = [];
  try {
    let pos = 0;
    while (pos < data.length) {
      const [value, end] = readOne(data, pos, opts);
      items.push(value);
      pos = end;
    }
  } catch (err) {
    throw asBadRequest(err);
  }
  return items;
}
