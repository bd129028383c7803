// The Protobuf wire format (https://protobuf.dev/programming-guides/encoding/): a reader
// that never reads past its end and a writer into a growable buffer. Only what Kubernetes'
// gogo-generated messages use: varints (int32, int64, bool), length-delimited fields
// (strings, bytes, messages, map entries, packed numbers), fixed64 doubles (a CRD
// schema's maximum) and, to skip unknown fields, fixed32.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
const WIRE_FIXED32 = 5;

/** Malformed input: the caller turns it into a 400. */
export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

const TWO_32 = 4294967296;
// Invalid UTF-8 becomes U+FFFD, as Go's JSON encoder writes such strings.
const utf8 = new TextDecoder('utf-8');

export class ProtoReader {
  readonly buf: Uint8Array;
  pos: number;
  readonly end: number;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /**
   * A varint as its low and high 32 bits (unsigned). Ten bytes at most; the tenth may
   * only carry the 64th bit, as in upstream's decoders.
   */
  private varint64(): [lo: number, hi: number] {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new WireError('unexpected end of data in a varint');
      const b = this.buf[this.pos++]!;
      const bits = b & 0x7f;
      if (i < 4) lo |= bits << (7 * i);
      else if (i === 4) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (7 * i - 32);
      if (b < 0x80) {
        if (i === 9 && b > 1) throw new WireError('varint overflows 64 bits');
        return [lo >>> 0, hi >>> 0];
      }
    }
    throw new WireError('varint longer than 10 bytes');
  }

  /** A tag, a length or another non-negative value that must fit in 32 bits. */
  uint32(): number {
    const [lo, hi] = this.varint64();
    if (hi !== 0) throw new WireError('varint too large');
    return lo;
  }

  /** int32: negative values are sign-extended to ten bytes on the wire. */
  int32(): number {
    return this.varint64()[0] | 0;
  }

  /** int64 as a number; exact up to 2^53, beyond that rounded like JSON numbers are. */
  int64(): number {
    const [lo, hi] = this.varint64();
    if (hi & 0x80000000) return -((~hi >>> 0) * TWO_32 + (~lo >>> 0) + 1);
    return hi * TWO_32 + lo;
  }

  uint64(): number {
    const [lo, hi] = this.varint64();
    return hi * TWO_32 + lo;
  }

  bool(): boolean {
    const [lo, hi] = this.varint64();
    return lo !== 0 || hi !== 0;
  }

  /** A double: fixed64, little-endian. */
  double(): number {
    this.advance(8);
    return new DataView(this.buf.buffer, this.buf.byteOffset).getFloat64(this.pos - 8, true);
  }

  /** The bounds of a length-delimited value; advances past it. */
  delimited(): [start: number, end: number] {
    const length = this.uint32();
    const start = this.pos;
    if (length > this.end - start) throw new WireError('length-delimited field runs past the end of its message');
    this.pos = start + length;
    return [start, start + length];
  }

  bytes(): Uint8Array {
    const [start, end] = this.delimited();
    return this.buf.slice(start, end);
  }

  string(): string {
    const [start, end] = this.delimited();
    return utf8.decode(this.buf.subarray(start, end));
  }

  /** A reader over the next length-delimited value (an embedded message). */
  message(): ProtoReader {
    const [start, end] = this.delimited();
    return new ProtoReader(this.buf, start, end);
  }

  /** Skips a field's value of the given wire type; groups (3, 4) are not used by Kubernetes. */
  skip(wireType: number): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.varint64();
        return;
      case WIRE_FIXED64:
        this.advance(8);
        return;
      case WIRE_BYTES:
        this.delimited();
        return;
      case WIRE_FIXED32:
        this.advance(4);
        return;
      default:
        throw new WireError(`unsupported wire type ${wireType}`);
    }
  }

  private advance(n: number): void {
    if (n > this.end - this.pos) throw new WireError('unexpected end of data in a fixed-size field');
    this.pos += n;
  }

  /** The next tag as field number and wire type. */
  tag(): [field: number, wireType: number] {
    const tag = this.uint32();
    const field = tag >>> 3;
    if (field === 0) throw new WireError('field number 0');
    return [field, tag & 7];
  }
}

const utf8Encoder = new TextEncoder();

/**
 * Writes one message into a growable buffer. A nested message reserves one byte for its
 * length and moves its content right when the length needs more, so the many small
 * messages cost no copy.
 */
export class ProtoWriter {
  private buf: Uint8Array;
  private pos = 0;

  /** `capacity`: the bytes to start with, when the caller knows about how many it writes. */
  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const bigger = new Uint8Array(size);
    bigger.set(this.buf.subarray(0, this.pos));
    this.buf = bigger;
  }

  /** A non-negative integer below 2^53 as a varint. */
  private varint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
  }

  /** A signed integer as its 64-bit two's complement varint (how int32 and int64 go on the wire). */
  private signedVarint(n: number): void {
    if (n >= 0) {
      this.varint(n);
      return;
    }
    const big = BigInt.asUintN(64, BigInt(Math.trunc(n)));
    this.ensure(10);
    let rest = big;
    while (rest >= 0x80n) {
      this.buf[this.pos++] = Number(rest & 0x7fn) | 0x80;
      rest >>= 7n;
    }
    this.buf[this.pos++] = Number(rest);
  }

  tag(field: number, wireType: number): void {
    this.varint(field * 8 + wireType);
  }

  int(field: number, value: number): void {
    this.tag(field, WIRE_VARINT);
    this.signedVarint(value);
  }

  bool(field: number, value: boolean): void {
    this.tag(field, WIRE_VARINT);
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
  }

  /** A double as fixed64, little-endian. */
  double(field: number, value: number): void {
    this.tag(field, WIRE_FIXED64);
    this.ensure(8);
    new DataView(this.buf.buffer, this.buf.byteOffset).setFloat64(this.pos, value, true);
    this.pos += 8;
  }

  /** The tag and length of a length-delimited field whose `length` bytes the caller writes next. */
  header(field: number, length: number): void {
    this.tag(field, WIRE_BYTES);
    this.varint(length);
  }

  bytes(field: number, value: Uint8Array): void {
    this.tag(field, WIRE_BYTES);
    this.varint(value.length);
    this.raw(value);
  }

  string(field: number, value: string): void {
    this.tag(field, WIRE_BYTES);
    // A UTF-8 string takes at most three bytes per UTF-16 unit.
    const max = value.length * 3;
    if (max < 0x80) {
      this.ensure(1 + max);
      const lengthAt = this.pos++;
      const { written } = utf8Encoder.encodeInto(value, this.buf.subarray(this.pos));
      this.buf[lengthAt] = written;
      this.pos += written;
      return;
    }
    this.raw(utf8Encoder.encode(value), true);
  }

  /** Appends bytes as they are; with `lengthPrefixed`, preceded by their length. */
  raw(value: Uint8Array, lengthPrefixed = false): void {
    if (lengthPrefixed) this.varint(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** Starts an embedded message (its tag is written); pass the result to `endMessage`. */
  beginMessage(field: number): number {
    this.tag(field, WIRE_BYTES);
    this.ensure(1);
    return this.pos++;
  }

  endMessage(lengthAt: number): void {
    const start = lengthAt + 1;
    const length = this.pos - start;
    if (length < 0x80) {
      this.buf[lengthAt] = length;
      return;
    }
    let extra = 0;
    for (let n = length; n >= 0x80; n = Math.floor(n / 0x80)) extra++;
    this.ensure(extra);
    this.buf.copyWithin(start + extra, start, this.pos);
    let p = lengthAt;
    let n = length;
    while (n >= 0x80) {
      this.buf[p++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[p] = n;
    this.pos = start + extra + length;
  }

  finish(): Uint8Array {
    return this.pos === this.buf.length ? this.buf : this.buf.slice(0, this.pos);
  }
}
