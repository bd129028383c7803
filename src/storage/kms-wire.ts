// The few Protobuf shapes the KMS v2 messages use (proto3 strings, bytes, enums and
// map<string, bytes>), for the stored EncryptedObject and the plugin's gRPC messages. Kept
// apart from encoding/protobuf, which storage does not reach.

/** A field of a message to write: absent, empty and zero values are left out, as proto3 writes them. */
export type WireValue = string | Uint8Array | number | ReadonlyMap<string, Uint8Array> | undefined;

const MALFORMED = 'proto: cannot parse invalid wire-format data';

function varint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** A field's tag and length as bytes, then the bytes themselves (not copied byte by byte: values are kilobytes). */
function lengthDelimited(parts: Uint8Array[], field: number, bytes: Uint8Array): void {
  const head: number[] = [];
  varint(head, (field << 3) | 2);
  varint(head, bytes.length);
  parts.push(Uint8Array.from(head), bytes);
}

/** The message of `fields` (field number, value) in field order; a map's entries by key. */
export function encodeMessage(fields: Array<[number, WireValue]>): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [field, value] of fields) {
    if (value === undefined) continue;
    if (typeof value === 'number') {
      if (value === 0) continue;
      const head: number[] = [];
      varint(head, field << 3);
      varint(head, value);
      parts.push(Uint8Array.from(head));
    } else if (typeof value === 'string' || value instanceof Uint8Array) {
      const bytes = typeof value === 'string' ? Buffer.from(value) : value;
      if (bytes.length > 0) lengthDelimited(parts, field, bytes);
    } else {
      // A map entry always carries its key and value, as Go's encoder writes them.
      for (const key of [...value.keys()].sort()) {
        const entry: Uint8Array[] = [];
        lengthDelimited(entry, 1, Buffer.from(key));
        lengthDelimited(entry, 2, value.get(key)!);
        lengthDelimited(parts, field, Buffer.concat(entry));
      }
    }
  }
  return Buffer.concat(parts);
}

/** A decoded message: the last value of each field, and every entry of its map fields. */
export class WireMessage {
  readonly #bytes = new Map<number, Uint8Array>();
  readonly #numbers = new Map<number, number>();
  readonly #entries = new Map<number, Uint8Array[]>();

  /** Throws upstream's proto.Unmarshal error on bytes that are not a message; unknown fields are skipped. */
  constructor(data: Uint8Array) {
    let pos = 0;
    const readVarint = (): number => {
      let value = 0;
      for (let shift = 0; shift < 64; shift += 7) {
        if (pos >= data.length) throw new Error(MALFORMED);
        const b = data[pos++]!;
        value += (b & 0x7f) * 2 ** shift;
        if (b < 0x80) return value;
      }
      throw new Error(MALFORMED);
    };
    while (pos < data.length) {
      const tag = readVarint();
      const field = Math.floor(tag / 8);
      const wireType = tag % 8;
      if (field === 0) throw new Error(MALFORMED);
      switch (wireType) {
        case 0:
          this.#numbers.set(field, readVarint());
          break;
        case 1:
        case 5:
          pos += wireType === 1 ? 8 : 4;
          if (pos > data.length) throw new Error(MALFORMED);
          break;
        case 2: {
          const length = readVarint();
          if (pos + length > data.length) throw new Error(MALFORMED);
          const bytes = data.subarray(pos, pos + length);
          pos += length;
          this.#bytes.set(field, bytes);
          const entries = this.#entries.get(field) ?? [];
          entries.push(bytes);
          this.#entries.set(field, entries);
          break;
        }
        default:
          throw new Error(MALFORMED);
      }
    }
  }

  bytes(field: number): Uint8Array {
    return this.#bytes.get(field) ?? new Uint8Array(0);
  }

  string(field: number): string {
    return Buffer.from(this.bytes(field)).toString('utf8');
  }

  number(field: number): number {
    return this.#numbers.get(field) ?? 0;
  }

  /** A map<string, bytes> field; a later entry of a key wins, as Go's decoder keeps it. */
  map(field: number): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    for (const entry of this.#entries.get(field) ?? []) {
      const message = new WireMessage(entry);
      out.set(message.string(1), message.bytes(2));
    }
    return out;
  }
}
