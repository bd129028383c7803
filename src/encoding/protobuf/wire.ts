// The Protobuf wire format (https://protobuf.dev/programming-guides/encoding/): a reader
// that never reads past its end and a writer into a growable buffer. Only what Kubernetes'
// gogo-generated messages use: varints (int32, int64, bool), length-delimited fields
// (strings, bytes, messages, map entries, packed numbers), fixed64 doubles (a CRD
// schema's maximum) and, to skip unknown fields, fixed32 and groups. Malformed input fails
// as the gogo-generated Unmarshal methods of upstream's types fail, in their words.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;

/**
 * Malformed input, in the words of upstream's gogo-generated Unmarshal methods
 * (`unexpected EOF`, `proto: integer overflow`, ...): the caller turns it into a 400.
 */
export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

// gogo's errors (k8s.io/api/core/v1/generated.pb.go: io.ErrUnexpectedEOF, ErrIntOverflowGenerated,
// ErrInvalidLengthGenerated; skipGenerated's ErrUnexpectedEndOfGroupGenerated).
export const unexpectedEOF = 'unexpected EOF';
const integerOverflow = 'proto: integer overflow';
const negativeLength = 'proto: negative length found during unmarshaling';

const TWO_32 = 4294967296;
// Invalid UTF-8 becomes U+FFFD, as Go's JSON encoder writes such strings.
const utf8 = new TextDecoder('utf-8');

/**
 * Reads one message as gogo's generated Unmarshal does: a varint of ten bytes at most (bits
 * past the 64th dropped, an eleventh byte an overflow), lengths as Go's signed int, and
 * nothing read past the end of the message.
 */
export class ProtoReader {
  readonly buf: Uint8Array;
  pos: number;
  /** Where the message starts: Go's offsets (and so its length overflow) count from there. */
  readonly start: number;
  readonly end: number;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.start = start;
    this.end = end;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /** A varint as its low and high 32 bits (unsigned), as gogo reads it: past ten bytes, an overflow. */
  private varint64(): [lo: number, hi: number] {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new WireError(unexpectedEOF);
      const b = this.buf[this.pos++]!;
      const bits = b & 0x7f;
      if (i < 4) lo |= bits << (7 * i);
      else if (i === 4) {
        lo |= bits << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (7 * i - 32);
      if (b < 0x80) return [lo >>> 0, hi >>> 0];
    }
    throw new WireError(integerOverflow);
  }

  /** int32: the low 32 bits, as Go's `v |= int32(b&0x7F) << shift` keeps them. */
  int32(): number {
    return this.varint64()[0] | 0;
  }

  /** int64 as a number; exact up to 2^53, beyond that rounded like JSON numbers are. */
  int64(): number {
    const [lo, hi] = this.varint64();
    if (hi & 0x80000000) return -((~hi >>> 0) * TWO_32 + (~lo >>> 0) + 1);
    return hi * TWO_32 + lo;
  }

  bool(): boolean {
    const [lo, hi] = this.varint64();
    return lo !== 0 || hi !== 0;
  }

  /** A double: fixed64, little-endian. */
  double(): number {
    if (8 > this.end - this.pos) throw new WireError(unexpectedEOF);
    this.pos += 8;
    return new DataView(this.buf.buffer, this.buf.byteOffset).getFloat64(this.pos - 8, true);
  }

  /** The bounds of a length-delimited value; advances past it. */
  delimited(): [start: number, end: number] {
    const [lo, hi] = this.varint64();
    const start = this.pos;
    if (hi !== 0) throw new WireError(lengthError(start - this.start, lo, hi));
    if (lo > this.end - start) throw new WireError(unexpectedEOF);
    this.pos = start + lo;
    return [start, start + lo];
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

  /**
   * The field whose tag starts at `tagAt`, skipped as gogo's skipGenerated skips a field it
   * does not know: groups (wire types 3 and 4) included, whose ends it finds; bounds checked
   * once the field is passed. `limit`: the end the field must not pass (a map entry's).
   */
  skipFrom(tagAt: number, limit = this.end): void {
    let p = tagAt;
    let depth = 0;
    while (p < this.end) {
      this.pos = p;
      const wireType = this.varint64()[0] & 7;
      switch (wireType) {
        case 0:
          this.varint64();
          p = this.pos;
          break;
        case 1:
          p = this.pos + 8;
          break;
        case 2: {
          const [lo, hi] = this.varint64();
          // skipGenerated counts from the field's tag.
          if (hi !== 0 && lengthError(this.pos - tagAt, lo, hi) === negativeLength) throw new WireError(negativeLength);
          p = this.pos + hi * TWO_32 + lo;
          break;
        }
        case 3:
          depth++;
          p = this.pos;
          break;
        case 4:
          if (depth === 0) throw new WireError('proto: unexpected end of group');
          depth--;
          p = this.pos;
          break;
        case 5:
          p = this.pos + 4;
          break;
        default:
          throw new WireError(`proto: illegal wireType ${wireType}`);
      }
      if (depth === 0) {
        if (p > limit) throw new WireError(unexpectedEOF);
        this.pos = p;
        return;
      }
    }
    throw new WireError(unexpectedEOF);
  }

  /**
   * The next tag as Go reads it: the field number as `int32(wire >> 3)` (zero or negative
   * for a tag Go calls illegal) and the wire type.
   */
  tag(): [field: number, wireType: number] {
    if (this.pos < this.end) {
      const b = this.buf[this.pos]!;
      if (b < 0x80) {
        this.pos++;
        return [b >>> 3, b & 7];
      }
    }
    const [lo, hi] = this.varint64();
    return [((lo >>> 3) | (hi << 29)) | 0, lo & 7];
  }

  /** The tag starting at `at` as the unsigned decimal Go prints it (illegal tag errors). */
  tagText(at: number): string {
    const saved = this.pos;
    this.pos = at;
    const [lo, hi] = this.varint64();
    this.pos = saved;
    return (BigInt(hi) * 4294967296n + BigInt(lo)).toString();
  }
}

/**
 * What gogo says of a length of 2^32 bytes or more at `offset` into its message: Go's int
 * is 64 bits, so with the 64th bit set it is negative, and so is a sum past 2^63;
 * otherwise it runs past the end.
 */
function lengthError(offset: number, lo: number, hi: number): string {
  if (hi & 0x80000000) return negativeLength;
  if (hi === 0x7fffffff && lo + offset >= TWO_32) return negativeLength;
  return unexpectedEOF;
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
