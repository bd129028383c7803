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
  badRequest, internalError, isStatusError, notAcceptable, parseGroupVersion,
  type KubeList, type KubeObject, type Status, type WatchEvent, type WatchEventType,
} from '../../api/index.ts';
import { goQuote } from '../../api/field-errors.ts';
import { isObject, setMember } from '../../api/json.ts';
import { apiVersionServing, messageFor } from './kinds.ts';
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
  /** The Go field's name, as decoding errors name it ("proto: wrong wireType = 0 for field ObjectMeta"). */
  goName: string;
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
  /** The Go type's name, as decoding errors name it ("proto: ConfigMap: illegal tag 0"). */
  goName: string;
  fields: Field[];
  byNumber: Map<number, Field>;
  /** A named Go slice (ExtraValue): one repeated field without a JSON name; its JSON is that list. */
  bareList: boolean;
  /** Its JSON is one of its fields (one-of-types.ts). */
  oneOf: OneOfForm | undefined;
  /** Its slices and maps without omitempty: nil when not on the wire, which Go's JSON writes as null (a Role's rules). */
  nilAsNull: readonly string[];
}

const scalarTypes = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'double']);

const compiled: ReadonlyMap<string, Message> = new Map(
  Object.entries(messages).map(([name, rows]) => {
    const fields = rows
      .map(([number, json, type, flags, goName]): Field => ({
        number,
        json,
        type,
        goName: goName ?? goFieldName(json, type),
        repeated: flags.includes('r'),
        map: flags.includes('m'),
        inline: flags.includes('i'),
        keepZero: flags.includes('p') || flags.includes('z'),
        pointer: flags.includes('p'),
        nullWhenZero: flags === '' && !scalarTypes.has(type),
      }))
      .sort((a, b) => a.number - b.number);
    const bareList = fields.length === 1 && fields[0]!.json === '';
    const goName = name.slice(name.lastIndexOf('.') + 1);
    const oneOf = oneOfTypes.get(name);
    // A one-of type's JSON is not its fields.
    const nilAsNull = oneOf !== undefined ? [] : rows.filter(([, json, , flags]) => json !== '' && (flags === 'r' || flags === 'm')).map(([, json]) => json);
    return [name, { name, goName, fields, byNumber: new Map(fields.map((f) => [f.number, f])), bareList, oneOf, nilAsNull }];
  }),
);

/**
 * The Go name of a field messages.ts gives no name for: its JSON name capitalised, an
 * embedded metadata its type's, a named slice's one field Items (as the generator's
 * goFieldName, test/encoding/protobuf-descriptor-source.ts).
 */
function goFieldName(json: string, type: string): string {
  if (json === 'metadata') return type.slice(type.lastIndexOf('.') + 1);
  if (json === '') return 'Items';
  return json.charAt(0).toUpperCase() + json.slice(1);
}

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
//
// As gogo's generated Unmarshal methods decode, and failing as they fail, in their words:
// the envelope (runtime.Unknown) first, then the object's message
// (k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go, Decode).

/**
 * A Protobuf body that does not decode, in the words of upstream's decoding. `kind` and
 * `version` once the envelope named them: upstream's create and update handlers word the 400
 * after them (transformDecodeError), decode.ts.
 */
export class ProtobufDecodeError extends Error {
  readonly kind: string | undefined;
  readonly version: string | undefined;

  constructor(message: string, gvk?: { kind: string; version: string }) {
    super(message);
    this.name = 'ProtobufDecodeError';
    this.kind = gvk?.kind;
    this.version = gvk?.version;
  }
}

/** What a body of a request is decoded as when its envelope leaves it out (copyKindDefaults): the URL's kind and apiVersion. */
export interface ProtobufDefaults {
  kind: string;
  apiVersion?: string;
  /**
   * The URL serves a custom resource: upstream's handler decodes into an empty Unstructured,
   * which its typer cannot type, so that any Protobuf body fails once its envelope is read.
   */
  unstructured?: boolean;
}

function wrongWireType(wireType: number, goField: string): WireError {
  return new WireError(`proto: wrong wireType = ${wireType} for field ${goField}`);
}

function expectWire(field: Field, actual: number, expected: number): void {
  if (actual !== expected) throw wrongWireType(actual, field.goName);
}

/**
 * The next tag of a message named `goName` in Go, refused as gogo refuses an end of group
 * and a field number that is not positive (`wire` printed as the whole tag, as gogo does).
 */
function readTag(r: ProtoReader, goName: string): [field: number, wireType: number] {
  const at = r.pos;
  const tag = r.tag();
  if (tag[1] === 4) throw new WireError(`proto: ${goName}: wiretype end group for non-group`);
  if (tag[0] <= 0) throw new WireError(`proto: ${goName}: illegal tag ${tag[0]} (wire type ${r.tagText(at)})`);
  return tag;
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

/** Numbers that a repeated field may also hold packed (gogo reads both forms of those). */
function isPackable(type: string): boolean {
  return type === 'int32' || type === 'int64' || type === 'bool' || type === 'double';
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
  return decodeEmbedded(type, r.message(), depth);
}

/** An embedded message of `type` as its JSON value; undefined when it marshals to null. */
function decodeEmbedded(type: string, sub: ProtoReader, depth: number): unknown {
  if (type === rawExtension) return decodeRawExtension(sub, depth + 1);
  const special = specialTypes.get(type);
  if (special !== undefined) return special.decode(sub);
  const message = messageNamed(type);
  const out = decodeMessage(message, sub, {}, depth + 1);
  if (message.oneOf !== undefined) return message.oneOf.toJson(out);
  return message.bareList ? out[''] ?? [] : out;
}

/**
 * A map entry {1 key, 2 value}, its length next in `r`, as gogo reads one: by field number
 * alone (no wire type checked, no tag refused), its key and value bounded by the map's
 * message rather than the entry, and a missing key or value the zero value.
 */
function decodeMapEntry(field: Field, r: ProtoReader, depth: number): [string, unknown] {
  const [start, end] = r.delimited();
  const e = new ProtoReader(r.buf, r.start, r.end);
  e.pos = start;
  let key = '';
  let value: unknown;
  let seen = false;
  while (e.pos < end) {
    const at = e.pos;
    const [number] = e.tag();
    if (number === 1) key = e.string();
    else if (number === 2) {
      value = scalarTypes.has(field.type) ? decodeScalar(field.type, e) : decodeEmbedded(field.type, e.message(), depth);
      seen = true;
    } else e.skipFrom(at, end);
  }
  r.pos = end;
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
    const at = r.pos;
    const [number, wireType] = readTag(r, message.goName);
    const field = message.byNumber.get(number);
    if (field === undefined) {
      r.skipFrom(at);
      continue;
    }
    if (field.map) {
      expectWire(field, wireType, WIRE_BYTES);
      const [key, value] = decodeMapEntry(field, r, depth + 1);
      const existing = out[field.json];
      const map: Json = isObject(existing) ? existing : {};
      if (map !== existing) setMember(out, field.json, map);
      setMember(map, key, value);
    } else if (field.repeated) {
      const existing = out[field.json];
      const list: unknown[] = Array.isArray(existing) ? existing : [];
      if (list !== existing) setMember(out, field.json, list);
      if (wireType === WIRE_BYTES && isPackable(field.type)) {
        // Packed numbers: gogo's proto2 output never packs, but a proto3-minded client may.
        // gogo reads them bounded by the message, not the packed run, and goes on where they end.
        const [start, end] = r.delimited();
        const packed = new ProtoReader(r.buf, r.start, r.end);
        packed.pos = start;
        while (packed.pos < end) list.push(decodeScalar(field.type, packed));
        r.pos = packed.pos;
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
  for (const json of message.nilAsNull) if (!(json in out)) setMember(out, json, null);
  return out;
}

/** RawExtension {1 raw}: an embedded object, itself Protobuf (with the prefix) or JSON. */
function decodeRawExtension(r: ProtoReader, depth: number): unknown {
  let raw: Uint8Array | undefined;
  while (!r.done()) {
    const at = r.pos;
    const [number, wireType] = readTag(r, 'RawExtension');
    if (number === 1) {
      if (wireType !== WIRE_BYTES) throw wrongWireType(wireType, 'Raw');
      const [start, end] = r.delimited();
      raw = r.buf.subarray(start, end);
    } else r.skipFrom(at);
  }
  if (raw === undefined || raw.length === 0) return undefined;
  if (!hasMagic(raw)) return parseJsonBytes(raw, 'RawExtension');
  const envelope = readEnvelope(raw);
  const type = resolveType(envelope, undefined);
  return decodeObject(raw, envelope, type, depth);
}

/** runtime.Unknown's fields: TypeMeta's apiVersion and kind, and where raw is. */
interface Envelope {
  apiVersion: string;
  kind: string;
  raw: [start: number, end: number] | undefined;
}

/**
 * The prefix and runtime.Unknown, as upstream's Decode reads them: contentEncoding and
 * contentType are read and not looked at (raw is taken as Protobuf whatever they say).
 */
function readEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length === 0) throw new WireError('empty data');
  if (!hasMagic(bytes)) throw new WireError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  if (bytes.length === magic.length) throw new WireError('empty body');
  const r = new ProtoReader(bytes, magic.length);
  const envelope: Envelope = { apiVersion: '', kind: '', raw: undefined };
  while (!r.done()) {
    const at = r.pos;
    const [number, wireType] = readTag(r, 'Unknown');
    if (number > 4) {
      r.skipFrom(at);
      continue;
    }
    if (wireType !== WIRE_BYTES) throw wrongWireType(wireType, unknownFields[number - 1]!);
    if (number === 1) readTypeMeta(r.message(), envelope);
    else if (number === 2) envelope.raw = r.delimited();
    else r.delimited();
  }
  return envelope;
}

const unknownFields = ['TypeMeta', 'Raw', 'ContentEncoding', 'ContentType'];

/** runtime.TypeMeta {1 apiVersion, 2 kind}; seen twice, what the second holds wins. */
function readTypeMeta(r: ProtoReader, envelope: Envelope): void {
  while (!r.done()) {
    const at = r.pos;
    const [number, wireType] = readTag(r, 'TypeMeta');
    if (number > 2) {
      r.skipFrom(at);
      continue;
    }
    if (wireType !== WIRE_BYTES) throw wrongWireType(wireType, number === 1 ? 'APIVersion' : 'Kind');
    if (number === 1) envelope.apiVersion = r.string();
    else envelope.kind = r.string();
  }
}

/** The group version and kind an envelope decodes as, and its message. */
interface ResolvedType {
  apiVersion: string;
  kind: string;
  /** As transformDecodeError names the version: without the group. */
  version: string;
  message: string | undefined;
}

/**
 * The kind and group version of an envelope, what it leaves out taken from the request's
 * (upstream's copyKindDefaults, with the URL's kind as default); its message, or undefined
 * when upstream's scheme has no such kind.
 */
function resolveType(envelope: Envelope, defaults: ProtobufDefaults | undefined): ResolvedType {
  let { group, version } = parseGroupVersion(envelope.apiVersion) ?? { group: '', version: '' };
  let kind = envelope.kind;
  if (defaults !== undefined) {
    if (kind === '') kind = defaults.kind;
    if (version === '') {
      const fallback = parseGroupVersion(apiVersionServing(defaults.apiVersion, defaults.kind));
      if (fallback !== undefined && fallback.version !== '') ({ group, version } = fallback);
    }
  }
  const typeMeta = `runtime.TypeMeta{APIVersion:${goQuote(envelope.apiVersion)}, Kind:${goQuote(envelope.kind)}}`;
  if (kind === '') throw new WireError(`Object 'Kind' is missing in '${typeMeta}'`);
  if (version === '') throw new WireError(`Object 'apiVersion' is missing in '${typeMeta}'`);
  const apiVersion = group === '' ? version : `${group}/${version}`;
  return { apiVersion, kind, version, message: messageFor(apiVersion, kind) };
}

/**
 * The name kube-apiserver's scheme has in runtime's not-registered errors: the file and line
 * that made it (naming.GetNameFromCallsite), by the server that serves the request's group.
 */
function schemeName(defaults: ProtobufDefaults | undefined): string {
  const group = parseGroupVersion(defaults?.apiVersion ?? '')?.group;
  return group === 'apiregistration.k8s.io' ? 'k8s.io/kube-aggregator/pkg/apiserver/scheme/scheme.go:32' : legacyScheme;
}

const legacyScheme = 'pkg/api/legacyscheme/scheme.go:30';

/**
 * The object of an envelope as the kind it resolved to: 400 when upstream's scheme (its
 * name, `scheme`) has no such kind, as runtime's NotRegisteredErr words it.
 */
function decodeObject(bytes: Uint8Array, envelope: Envelope, type: ResolvedType, depth: number, scheme = legacyScheme): Json {
  if (type.message === undefined) {
    throw new WireError(`no kind ${goQuote(type.kind)} is registered for version ${goQuote(type.apiVersion)} in scheme ${goQuote(scheme)}`);
  }
  const message = messageNamed(type.message);
  const out: Json = { apiVersion: type.apiVersion, kind: type.kind };
  if (envelope.raw !== undefined) decodeMessage(message, new ProtoReader(bytes, envelope.raw[0], envelope.raw[1]), out, depth + 1);
  if (out.metadata === undefined && message.fields.some((f) => f.json === 'metadata')) out.metadata = {};
  return out;
}

/**
 * A Protobuf request body (prefix and envelope) as JSON-shaped data with apiVersion and
 * kind, decoded as kube-apiserver decodes it for a request whose URL serves `defaults`:
 * what its envelope leaves out is the URL's. Malformed bytes, and kinds upstream's scheme
 * does not have, throw a ProtobufDecodeError in upstream's words.
 */
export function decodeProtobufBody(bytes: Uint8Array, defaults?: ProtobufDefaults): KubeObject {
  let envelope: Envelope;
  let type: ResolvedType;
  try {
    envelope = readEnvelope(bytes);
    type = resolveType(envelope, defaults);
  } catch (err) {
    if (err instanceof WireError) throw new ProtobufDecodeError(err.message);
    throw err;
  }
  try {
    // The versioning decoder hands the Protobuf one a fresh Unstructured (so that conversion
    // runs), whose kind crdserverscheme's typer asks for first (protobuf.go, Decode).
    if (defaults?.unstructured === true) throw new WireError("Object 'Kind' is missing in 'object has no kind field '");
    return decodeObject(bytes, envelope, type, 0, schemeName(defaults)) as KubeObject;
  } catch (err) {
    if (err instanceof WireError) throw new ProtobufDecodeError(err.message, type);
    throw err;
  }
}

/**
 * A Protobuf-encoded object (an answer, a fixture) as JSON-shaped data with apiVersion and
 * kind. Malformed or truncated bytes and kinds without a descriptor are a 400 in the words
 * of upstream's decoding.
 */
export function decodeProtobufObject(bytes: Uint8Array): KubeObject {
  try {
    return decodeProtobufBody(bytes);
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw badRequest(err.message);
    throw err;
  }
}

/** A meta/v1 WatchEvent message {1 type, 2 object} (one frame of a Protobuf watch, without its length). */
export function decodeProtobufWatchEvent(bytes: Uint8Array): WatchEvent {
  try {
    const event = decodeMessage(messageNamed('meta.v1.WatchEvent'), new ProtoReader(bytes), {}, 0);
    if (!isObject(event.object)) throw new WireError('watch event without an object');
    return { type: (event.type ?? '') as WatchEventType, object: event.object as KubeObject };
  } catch (err) {
    if (err instanceof WireError) throw badRequest(err.message);
    throw err;
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
