// Kubernetes' Protobuf encoding of objects (application/vnd.kubernetes.protobuf), to and
// from the plain JSON-shaped data the rest of Plinth works with.
//
// An object is the bytes 6b 38 73 00 ("k8s\0") then a runtime.Unknown {1 typeMeta
// {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType} whose raw is the
// object's message (k8s.io/apimachinery/pkg/runtime/serializer/protobuf).
//
// JSON shape, as kube-apiserver would answer after decoding into its Go types: gogo
// writes every Go value field, zero or not, so a zero scalar on the wire only means
// "unset" unless the Go field is a pointer (flag p: kept, `replicas: 0`) or has no
// `omitempty` (flag z: kept, `containerPort`, `ready: false`); other zero scalars are left
// out, as Go's JSON encoder leaves them out. Messages are kept even when empty
// (`status: {}`), except the special types that marshal to null (a zero Time).
//
// Messages with a JSON form of their own come in two sorts: small ones the codec hands
// whole to special-types.ts (Time, Quantity, a CRD schema's JSON values), and those whose
// JSON is one of their message fields (a CRD schema's items, additionalProperties), whose
// fields the codec reads and writes as any message's, one-of-types.ts choosing the form.

import {
  badRequest, internalError, isStatusError, notAcceptable,
  type KubeList, type KubeObject, type Status, type WatchEvent, type WatchEventType,
} from '../../api/index.ts';
import { isObject, setMember } from '../../api/json.ts';
import { messageFor } from './kinds.ts';
import { messages } from './messages.ts';
import { type OneOfForm, oneOfTypes } from './one-of-types.ts';
import { parseJsonBytes, specialTypes } from './special-types.ts';
import { ProtoReader, ProtoWriter, WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT, WireError } from './wire.ts';

export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

const magic = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);
const rawExtension = 'runtime.RawExtension';

/**
 * Deepest nesting of messages (objects embedded in RawExtensions count too). A CRD's schema
 * takes two per level (a property's map entry and its schema, or items and its schema).
 */
const maxDepth = 300;

type Json = Record<string, unknown>;

interface Field {
  number: number;
  json: string;
  type: string;
  repeated: boolean;
  map: boolean;
  inline: boolean;
  /** A zero scalar on the wire stays in the JSON (Go pointer, or no omitempty). */
  keepZero: boolean;
  /** A Go pointer or named slice: written only when set; other fields are written always. */
  pointer: boolean;
  /** A Go value of a type with a JSON form of its own whose zero Go writes as null (a Time without omitzero). */
  nullWhenZero: boolean;
}

interface Message {
  name: string;
  fields: Field[];
  byNumber: Map<number, Field>;
  /** A named Go slice (ExtraValue): one repeated field without a JSON name; its JSON is that list. */
  bareList: boolean;
  /** Its JSON is one of its fields (one-of-types.ts). */
  oneOf: OneOfForm | undefined;
}

const scalarTypes = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'double']);

const compiled: ReadonlyMap<string, Message> = new Map(
  Object.entries(messages).map(([name, rows]) => {
    const fields = rows
      .map(([number, json, type, flags]): Field => ({
        number,
        json,
        type,
        repeated: flags.includes('r'),
        map: flags.includes('m'),
        inline: flags.includes('i'),
        keepZero: flags.includes('p') || flags.includes('z'),
        pointer: flags.includes('p'),
        nullWhenZero: flags === '' && !scalarTypes.has(type),
      }))
      .sort((a, b) => a.number - b.number);
    const bareList = fields.length === 1 && fields[0]!.json === '';
    return [name, { name, fields, byNumber: new Map(fields.map((f) => [f.number, f])), bareList, oneOf: oneOfTypes.get(name) }];
  }),
);

function messageNamed(name: string): Message {
  const message = compiled.get(name);
  if (message === undefined) throw new Error(`no Protobuf descriptor for message ${name}`);
  return message;
}

function hasMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === magic[0] && bytes[1] === magic[1] && bytes[2] === magic[2] && bytes[3] === magic[3];
}

// ---------------------------------------------------------------------------------------
// Decoding

function expectWire(field: Field, actual: number, expected: number): void {
  if (actual !== expected) throw new WireError(`field ${field.json} has wire type ${actual}, expected ${expected}`);
}

function decodeScalar(type: string, r: ProtoReader): unknown {
  switch (type) {
    case 'string':
      return r.string();
    case 'bytes': {
      const [start, end] = r.delimited();
      return Buffer.from(r.buf.buffer, r.buf.byteOffset + start, end - start).toString('base64');
    }
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    case 'double': {
      // Go's JSON encoder cannot write NaN or infinities.
      const value = r.double();
      if (!Number.isFinite(value)) throw new WireError(`${value} is not a JSON number`);
      return value;
    }
    default:
      return r.int64();
  }
}

function wireTypeOf(type: string): number {
  return type === 'string' || type === 'bytes' ? WIRE_BYTES : type === 'double' ? WIRE_FIXED64 : WIRE_VARINT;
}

function isZero(value: unknown): boolean {
  return value === '' || value === 0 || value === false;
}

/** One value of a field's type; undefined when the value marshals to null. */
function decodeValue(field: Field, type: string, wireType: number, r: ProtoReader, depth: number): unknown {
  if (scalarTypes.has(type)) {
    expectWire(field, wireType, wireTypeOf(type));
    return decodeScalar(type, r);
  }
  expectWire(field, wireType, WIRE_BYTES);
  const sub = r.message();
  if (type === rawExtension) return decodeRawExtension(sub, depth + 1);
  const special = specialTypes.get(type);
  if (special !== undefined) return special.decode(sub);
  const message = messageNamed(type);
  const out = decodeMessage(message, sub, {}, depth + 1);
  if (message.oneOf !== undefined) return message.oneOf.toJson(out);
  return message.bareList ? out[''] ?? [] : out;
}

/** A map entry {1 key, 2 value}; a missing key or value is the zero value, as in Go. */
function decodeMapEntry(field: Field, r: ProtoReader, depth: number): [string, unknown] {
  let key = '';
  let value: unknown;
  let seen = false;
  while (!r.done()) {
    const [number, wireType] = r.tag();
    if (number === 1) {
      expectWire(field, wireType, WIRE_BYTES);
      key = r.string();
    } else if (number === 2) {
      value = decodeValue(field, field.type, wireType, r, depth);
      seen = true;
    } else r.skip(wireType);
  }
  if (!seen) value = zeroOf(field.type);
  return [key, value ?? null];
}

function zeroOf(type: string): unknown {
  switch (type) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    case 'int32':
    case 'int64':
    case 'double':
      return 0;
    default: {
      const special = specialTypes.get(type);
      if (special !== undefined) return special.decode(new ProtoReader(new Uint8Array(0)));
      const oneOf = compiled.get(type)?.oneOf;
      if (oneOf !== undefined) return oneOf.toJson({}) ?? null;
      return type === rawExtension ? null : compiled.get(type)?.bareList === true ? [] : {};
    }
  }
}

function decodeMessage(message: Message, r: ProtoReader, out: Json, depth: number): Json {
  if (depth > maxDepth) throw new WireError('messages nested too deeply');
  while (!r.done()) {
    const [number, wireType] = r.tag();
    const field = message.byNumber.get(number);
    if (field === undefined) {
      r.skip(wireType);
      continue;
    }
    if (field.map) {
      expectWire(field, wireType, WIRE_BYTES);
      const [key, value] = decodeMapEntry(field, r.message(), depth + 1);
      const existing = out[field.json];
      const map: Json = isObject(existing) ? existing : {};
      if (map !== existing) setMember(out, field.json, map);
      setMember(map, key, value);
    } else if (field.repeated) {
      const existing = out[field.json];
      const list: unknown[] = Array.isArray(existing) ? existing : [];
      if (list !== existing) setMember(out, field.json, list);
      if (wireType === WIRE_BYTES && field.type !== 'string' && field.type !== 'bytes' && scalarTypes.has(field.type)) {
        // Packed numbers: gogo's proto2 output never packs, but a proto3-minded client may.
        const packed = r.message();
        while (!packed.done()) list.push(decodeScalar(field.type, packed));
      } else {
        list.push(decodeValue(field, field.type, wireType, r, depth) ?? null);
      }
    } else if (field.inline) {
      expectWire(field, wireType, WIRE_BYTES);
      decodeMessage(messageNamed(field.type), r.message(), out, depth + 1);
    } else if (compiled.has(field.type) && !messageNamed(field.type).bareList && messageNamed(field.type).oneOf === undefined) {
      // A message seen twice merges, as in Protobuf (a one-of type seen twice: the last wins).
      expectWire(field, wireType, WIRE_BYTES);
      const existing = out[field.json];
      setMember(out, field.json, decodeMessage(messageNamed(field.type), r.message(), isObject(existing) ? existing : {}, depth + 1));
    } else {
      const value = decodeValue(field, field.type, wireType, r, depth);
      if (value === undefined && field.nullWhenZero) setMember(out, field.json, null);
      else if (value === undefined || (!field.keepZero && isZero(value) && scalarTypes.has(field.type))) delete out[field.json];
      else setMember(out, field.json, value);
    }
  }
  return out;
}

/** RawExtension {1 raw}: an embedded object, itself Protobuf (with the prefix) or JSON. */
function decodeRawExtension(r: ProtoReader, depth: number): unknown {
  let raw: Uint8Array | undefined;
  while (!r.done()) {
    const [number, wireType] = r.tag();
    if (number === 1 && wireType === WIRE_BYTES) {
      const [start, end] = r.delimited();
      raw = r.buf.subarray(start, end);
    } else r.skip(wireType);
  }
  if (raw === undefined || raw.length === 0) return undefined;
  return hasMagic(raw) ? decodeEnvelope(raw, depth) : parseJsonBytes(raw, 'RawExtension');
}

function decodeEnvelope(bytes: Uint8Array, depth: number): Json {
  if (!hasMagic(bytes)) {
    throw new WireError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const r = new ProtoReader(bytes, magic.length);
  let apiVersion = '';
  let kind = '';
  let contentEncoding = '';
  let raw: [number, number] | undefined;
  while (!r.done()) {
    const [number, wireType] = r.tag();
    if (number === 1 && wireType === WIRE_BYTES) {
      const typeMeta = r.message();
      while (!typeMeta.done()) {
        const [n, w] = typeMeta.tag();
        if (n === 1 && w === WIRE_BYTES) apiVersion = typeMeta.string();
        else if (n === 2 && w === WIRE_BYTES) kind = typeMeta.string();
        else typeMeta.skip(w);
      }
    } else if (number === 2 && wireType === WIRE_BYTES) raw = r.delimited();
    else if (number === 3 && wireType === WIRE_BYTES) contentEncoding = r.string();
    else r.skip(wireType);
  }
  if (kind === '') throw new WireError("Object 'Kind' is missing");
  if (contentEncoding !== '') throw new WireError(`unsupported content encoding ${JSON.stringify(contentEncoding)}`);
  const name = messageFor(apiVersion, kind);
  if (name === undefined) throw badRequest(`no kind "${kind}" is registered for version "${apiVersion}"`);
  const message = messageNamed(name);
  const out: Json = { apiVersion, kind };
  if (raw !== undefined) decodeMessage(message, new ProtoReader(bytes, raw[0], raw[1]), out, depth + 1);
  if (out.metadata === undefined && message.fields.some((f) => f.json === 'metadata')) out.metadata = {};
  return out;
}

function decodeFailure(err: unknown): never {
  if (err instanceof WireError) throw badRequest(`the body of the request could not be decoded as Protobuf: ${err.message}`);
  throw err;
}

/**
 * A Protobuf-encoded object (request body) as JSON-shaped data with apiVersion and kind.
 * Malformed or truncated bytes and kinds without a descriptor are a 400.
 */
export function decodeProtobufObject(bytes: Uint8Array): KubeObject {
  try {
    return decodeEnvelope(bytes, 0) as KubeObject;
  } catch (err) {
    return decodeFailure(err);
  }
}

/** A meta/v1 WatchEvent message {1 type, 2 object} (one frame of a Protobuf watch, without its length). */
export function decodeProtobufWatchEvent(bytes: Uint8Array): WatchEvent {
  try {
    const event = decodeMessage(messageNamed('meta.v1.WatchEvent'), new ProtoReader(bytes), {}, 0);
    if (!isObject(event.object)) throw new WireError('watch event without an object');
    return { type: (event.type ?? '') as WatchEventType, object: event.object as KubeObject };
  } catch (err) {
    return decodeFailure(err);
  }
}

// ---------------------------------------------------------------------------------------
// Encoding

/** A value the descriptors cannot encode; `path` says where. */
class EncodeError extends Error {
  readonly path: string[] = [];
}

function fail(message: string): never {
  throw new EncodeError(message);
}

/** A scalar; undefined is the Go zero value. */
function encodeScalar(type: string, number: number, value: unknown, w: ProtoWriter): void {
  switch (type) {
    case 'string':
      if (value === undefined) value = '';
      if (typeof value !== 'string') fail('expected a string');
      w.string(number, value);
      return;
    case 'bytes':
      if (value === undefined) value = '';
      if (typeof value !== 'string') fail('expected a base64 string');
      w.bytes(number, Buffer.from(value, 'base64'));
      return;
    case 'bool':
      if (value === undefined) value = false;
      if (typeof value !== 'boolean') fail('expected a boolean');
      w.bool(number, value);
      return;
    default: {
      if (value === undefined) value = 0;
      if (type === 'double') {
        if (typeof value !== 'number') fail('expected a number');
        w.double(number, value);
        return;
      }
      if (typeof value !== 'number' || !Number.isInteger(value)) fail('expected an integer');
      const limit = type === 'int32' ? 2 ** 31 : 2 ** 63;
      if (value < -limit || value >= limit) fail(`integer out of ${type} range`);
      w.int(number, value);
    }
  }
}

/** One value of a field's type as field `number`; undefined is the Go zero value, which gogo writes too. */
function encodeValue(type: string, number: number, value: unknown, w: ProtoWriter): void {
  if (scalarTypes.has(type)) {
    encodeScalar(type, number, value, w);
    return;
  }
  const at = w.beginMessage(number);
  if (type === rawExtension) encodeRawExtension(value, w);
  else {
    const special = specialTypes.get(type);
    if (special !== undefined) {
      try {
        special.encode(value, w);
      } catch (err) {
        fail((err as Error).message);
      }
    } else {
      const message = messageNamed(type);
      if (message.oneOf !== undefined) {
        let fields: Json = {};
        try {
          if (value !== undefined) fields = message.oneOf.fromJson(value);
        } catch (err) {
          fail((err as Error).message);
        }
        encodeMessage(message, fields, w);
      } else if (message.bareList) {
        if (value !== undefined && !Array.isArray(value)) fail('expected a list');
        encodeMessage(message, { '': value }, w);
      } else {
        if (value !== undefined && !isObject(value)) fail('expected an object');
        encodeMessage(message, value ?? {}, w);
      }
    }
  }
  w.endMessage(at);
}

/** Go string order: bytewise UTF-8, which differs from UTF-16 order past the BMP. */
function byUtf8(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/**
 * Fields in field-number order, as gogo-protobuf's generated Marshal writes them: a Go value
 * field always (absent or null in JSON is its zero value), a pointer only when set, bytes
 * only when non-nil, one entry per element of a list and per key of a map, keys sorted.
 */
function encodeMessage(message: Message, json: Json, w: ProtoWriter): void {
  for (const field of message.fields) {
    try {
      if (field.inline) {
        const at = w.beginMessage(field.number);
        encodeMessage(messageNamed(field.type), json, w);
        w.endMessage(at);
        continue;
      }
      const set = Object.hasOwn(json, field.json) ? json[field.json] : undefined;
      const value = set === null ? undefined : set;
      if (field.map) {
        if (value === undefined) continue;
        if (!isObject(value)) fail('expected an object');
        for (const key of Object.keys(value).sort(byUtf8)) {
          const entry = value[key] ?? undefined;
          const at = w.beginMessage(field.number);
          w.string(1, key);
          if (entry !== undefined || field.type !== 'bytes') encodeValue(field.type, 2, entry, w);
          w.endMessage(at);
        }
      } else if (field.repeated) {
        if (value === undefined) continue;
        if (!Array.isArray(value)) fail('expected a list');
        for (const item of value) encodeValue(field.type, field.number, item ?? undefined, w);
      } else if (value !== undefined || !(field.pointer || field.type === 'bytes')) {
        encodeValue(field.type, field.number, value, w);
      }
    } catch (err) {
      if (err instanceof EncodeError) err.path.unshift(field.json);
      throw err;
    }
  }
}

/**
 * RawExtension {1 raw}: raw is written only when set. Go keeps the bytes it was given (the
 * JSON of a ControllerRevision's data), so an embedded value goes as JSON; only a watch
 * event embeds a whole Protobuf object (writeWatchEvent).
 */
function encodeRawExtension(value: unknown, w: ProtoWriter): void {
  if (value !== undefined) w.bytes(1, new TextEncoder().encode(JSON.stringify(value)));
}

/** The prefix and runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType}. */
/** `rawLength`, when the caller knows it, writes raw's length first instead of moving raw after it. */
function writeEnvelope(apiVersion: string, kind: string, raw: Uint8Array | ((w: ProtoWriter) => void), w: ProtoWriter, rawLength?: number): void {
  w.raw(magic);
  const typeMeta = w.beginMessage(1);
  w.string(1, apiVersion);
  w.string(2, kind);
  w.endMessage(typeMeta);
  if (raw instanceof Uint8Array) w.bytes(2, raw);
  else if (rawLength !== undefined) {
    w.header(2, rawLength);
    raw(w);
  } else {
    const at = w.beginMessage(2);
    raw(w);
    w.endMessage(at);
  }
  // Upstream writes the empty contentEncoding and contentType too.
  w.string(3, '');
  w.string(4, '');
}

/** meta/v1 WatchEvent {1 type, 2 object RawExtension {1 raw: the object's envelope}}. */
function writeWatchEvent(type: string, envelope: Uint8Array | ((w: ProtoWriter) => void), w: ProtoWriter): void {
  w.string(1, type);
  const object = w.beginMessage(2);
  if (envelope instanceof Uint8Array) w.bytes(1, envelope);
  else {
    const raw = w.beginMessage(1);
    envelope(w);
    w.endMessage(raw);
  }
  w.endMessage(object);
}

function encodeFailure(what: string, err: unknown): never {
  if (err instanceof EncodeError) {
    const at = err.path.length > 0 ? ` at ${err.path.join('.')}` : '';
    throw internalError(`${what} could not be encoded as Protobuf${at}: ${err.message}`);
  }
  throw err;
}

/** The apiVersion, kind and message of an object, list or Status; 406 for a kind without a descriptor. */
function typeOf(obj: KubeObject | KubeList | Status): { json: Json; apiVersion: string; kind: string; message: Message } {
  const json = obj as unknown as Json;
  const apiVersion = typeof json.apiVersion === 'string' ? json.apiVersion : '';
  const kind = typeof json.kind === 'string' ? json.kind : '';
  const name = messageFor(apiVersion, kind);
  if (name === undefined) {
    throw notAcceptable(`object ${apiVersion}, Kind=${kind} cannot be encoded as ${protobufMediaType}`);
  }
  return { json, apiVersion, kind, message: messageNamed(name) };
}

function encoding(what: string, write: (w: ProtoWriter) => void): Uint8Array {
  const w = new ProtoWriter();
  try {
    write(w);
  } catch (err) {
    if (isStatusError(err)) throw err;
    encodeFailure(what, err);
  }
  return w.finish();
}

/**
 * An object, list or Status as Protobuf bytes, prefix and runtime.Unknown envelope
 * included. A kind without a descriptor (a custom resource) is 406, as upstream answers.
 */
export function encodeProtobufObject(obj: KubeObject | KubeList | Status): Uint8Array {
  const { json, apiVersion, kind, message } = typeOf(obj);
  return encoding(`${kind} ${apiVersion}`, (w) => writeEnvelope(apiVersion, kind, (inner) => encodeMessage(message, json, inner), w));
}

/**
 * The message of an object alone, without prefix or envelope: the envelope's raw, and what
 * a list's items hold. A cache can keep it and build envelopes, lists and watch events
 * from it without encoding the object again.
 */
export function encodeProtobufRaw(obj: KubeObject | KubeList | Status): Uint8Array {
  const { json, apiVersion, kind, message } = typeOf(obj);
  return encoding(`${kind} ${apiVersion}`, (w) => encodeMessage(message, json, w));
}

/** The prefixed envelope around a message `encodeProtobufRaw` made: equal to `encodeProtobufObject` of the object. */
export function protobufEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const w = new ProtoWriter();
  writeEnvelope(apiVersion, kind, raw, w);
  return w.finish();
}

/**
 * A list (`ConfigMapList`: {1 metadata ListMeta, 2 items}) in its envelope, from its
 * metadata as JSON and its items' messages as `encodeProtobufRaw` made them.
 */
export function protobufList(apiVersion: string, kind: string, listMeta: unknown, itemRaws: readonly Uint8Array[]): Uint8Array {
  const { message } = typeOf({ apiVersion, kind } as KubeList);
  const metadata = message.byNumber.get(1);
  const items = message.byNumber.get(2);
  if (metadata?.json !== 'metadata' || items?.json !== 'items' || !items.repeated) {
    throw new Error(`${kind} ${apiVersion} is not a list`);
  }
  const head = encoding(`${kind} ${apiVersion}`, (w) => encodeValue(metadata.type, 1, listMeta ?? undefined, w));
  // The list's length is known from its parts: the whole answer is written once, into one
  // buffer of the right size, rather than grown and moved as its length prefix widens.
  let length = head.length;
  for (const raw of itemRaws) length += 1 + varintSize(raw.length) + raw.length;
  const w = new ProtoWriter(length + 3 * (apiVersion.length + kind.length) + 32);
  writeEnvelope(apiVersion, kind, (inner) => {
    inner.raw(head);
    for (const raw of itemRaws) inner.bytes(2, raw);
  }, w, length);
  return w.finish();
}

/** Bytes of a varint of a non-negative integer. */
function varintSize(n: number): number {
  let size = 1;
  for (; n >= 0x80; n = Math.floor(n / 0x80)) size++;
  return size;
}

/** A watch event around an object's envelope (`protobufEnvelope`, `encodeProtobufObject`): equal to `encodeProtobufWatchEvent`. */
export function protobufWatchEvent(type: WatchEventType, envelope: Uint8Array): Uint8Array {
  const w = new ProtoWriter();
  writeWatchEvent(type, envelope, w);
  return w.finish();
}

/**
 * A meta/v1 WatchEvent {1 type, 2 object} whose object is a full Protobuf envelope. A
 * Protobuf watch stream sends each as a frame: four bytes of big-endian length, then this.
 */
export function encodeProtobufWatchEvent(event: WatchEvent): Uint8Array {
  const { json, apiVersion, kind, message } = typeOf(event.object);
  return encoding(`watch event ${event.type}`, (w) => writeWatchEvent(event.type, (inner) => {
    writeEnvelope(apiVersion, kind, (raw) => encodeMessage(message, json, raw), inner);
  }, w));
}
