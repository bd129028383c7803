// CBOR answers for objects, lists and watch events: base64 fields of built-in types that are Go []byte become byte strings.
//
// Upstream encodes a built-in object from its Go struct, where Secret.data, ConfigMap.binaryData,
// webhook caBundles and CSR request/certificate are []byte: CBOR carries those as tag 22
// byte strings, not as the base64 text JSON shows. Which fields they are comes from the
// Protobuf descriptors (a `bytes` field is a Go []byte); custom resources have none.
import type { KubeList, KubeObject, Status, WatchEvent } from '../api/index.ts';
import { type CborDecodeOptions, decodeCborSequence, EncodedCbor, encodeCbor } from './cbor.ts';
import { messages } from './protobuf/messages.ts';
import { messageFor } from './protobuf/kinds.ts';

/** How a field's value is read: a scalar or message, a list of them, or a map of string to them. */
interface ByteField {
  type: string;
  repeated: boolean;
  map: boolean;
}

/**
 * Messages whose `bytes` field is not a Go []byte of the JSON: they marshal themselves
 * (RawExtension and FieldsV1 hold JSON, which upstream transcodes into CBOR data).
 */
const selfMarshaling = new Set(['runtime.RawExtension', 'meta.v1.FieldsV1', 'runtime.Unknown']);

/** Fields of each message, inlined members flattened into their parent as JSON shows them. */
function rowsOf(name: string): (readonly [string, string, string])[] {
  if (!Object.hasOwn(messages, name) || selfMarshaling.has(name)) return [];
  const rows: (readonly [string, string, string])[] = [];
  for (const [, json, type, flags] of messages[name]!) {
    if (flags.includes('i')) rows.push(...rowsOf(type));
    else if (json !== '') rows.push([json, type, flags]);
  }
  return rows;
}

/** For each message that reaches a []byte, the fields that lead to one; computed once. */
let byteTables: Map<string, Map<string, ByteField>> | undefined;

function tables(): Map<string, Map<string, ByteField>> {
  if (byteTables !== undefined) return byteTables;
  const names = Object.keys(messages);
  const rows = new Map(names.map((name) => [name, rowsOf(name)]));
  // Fixed point: a message reaches bytes if one of its fields is bytes or a message that does.
  const reaches = new Set<string>();
  for (let changed = true; changed;) {
    changed = false;
    for (const [name, fields] of rows) {
      if (reaches.has(name)) continue;
      if (fields.some(([, type]) => type === 'bytes' || reaches.has(type))) {
        reaches.add(name);
        changed = true;
      }
    }
  }
  byteTables = new Map();
  for (const name of reaches) {
    const fields = new Map<string, ByteField>();
    for (const [json, type, flags] of rows.get(name)!) {
      if (type === 'bytes' || reaches.has(type)) fields.set(json, { type, repeated: flags.includes('r'), map: flags.includes('m') });
    }
    byteTables.set(name, fields);
  }
  return byteTables;
}

function base64Bytes(value: string): Uint8Array {
  return new Uint8Array(Buffer.from(value, 'base64'));
}

/** One value of a field's type: a base64 string becomes bytes, a message is walked. */
function convertOne(value: unknown, type: string): unknown {
  if (type === 'bytes') return typeof value === 'string' ? base64Bytes(value) : value;
  return withBytes(value, type);
}

function convertField(value: unknown, field: ByteField): unknown {
  if (field.repeated && Array.isArray(value)) return value.map((item) => convertOne(item, field.type));
  if (field.map && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = convertOne(item, field.type);
    return out;
  }
  return convertOne(value, field.type);
}

/** A copy of `value` (a message's JSON) with its []byte fields as Uint8Array; untouched parts are shared. */
function withBytes(value: unknown, message: string): unknown {
  const fields = tables().get(message);
  if (fields === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const [json, field] of fields) {
    const current = (value as Record<string, unknown>)[json];
    if (current === undefined || current === null) continue;
    out ??= { ...(value as Record<string, unknown>) };
    out[json] = convertField(current, field);
  }
  return out ?? value;
}

/** The message a built-in kind is encoded from, or undefined (custom resources, unknown kinds). */
function messageOf(obj: { apiVersion?: unknown; kind?: unknown }): string | undefined {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  return messageFor(apiVersion, kind);
}

/** The JSON-shaped value upstream's CBOR encoder sees for this object: []byte fields as bytes. */
export function cborValueOf(obj: KubeObject | KubeList | Status): unknown {
  const message = messageOf(obj);
  return message === undefined ? obj : withBytes(obj, message);
}

/** An object, list or Status as an application/cbor answer: one data item after the self-described tag. */
export function encodeCborObject(obj: KubeObject | KubeList | Status): Uint8Array {
  return encodeCbor(cborValueOf(obj));
}

/**
 * One watch event of an application/cbor-seq stream: a meta/v1 WatchEvent {type, object}
 * whose object is the object's own encoding, 55799 tag included, as upstream copies its
 * embedded encoding into the event (RawExtension.MarshalCBOR); the event has its own tag.
 * `encodedObject` lets a caller pass the object's bytes when it has them already.
 */
export function encodeCborWatchEvent(event: WatchEvent, encodedObject?: Uint8Array): Uint8Array {
  const object = encodedObject ?? encodeCborObject(event.object);
  return encodeCbor({ type: event.type, object: new EncodedCbor(object) });
}

/** The watch events of an application/cbor-seq stream, as JSON-shaped data. */
export function decodeCborWatchEvents(data: Uint8Array, opts: CborDecodeOptions = {}): WatchEvent[] {
  return decodeCborSequence(data, opts) as WatchEvent[];
}
