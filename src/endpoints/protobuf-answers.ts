// Protobuf answers built from the watch cache's encodings: an object's message is encoded
// once, kept beside its JSON (EncodingMemo), and reused for gets, lists and watch frames.
import type { KubeObject, ListMeta, WatchEventType } from '../api/index.ts';
import type { ProtobufCodec } from '../encoding/protobuf-loader.ts';

/** What has an object and, when it comes from the cache, its kept encodings. */
interface Encodable {
  readonly object: KubeObject;
  encoded?(name: string, encode: (object: KubeObject) => Uint8Array): Uint8Array;
}

/** The object's message (the envelope's raw, a list item), from the cache when it has it. */
function rawOf(codec: ProtobufCodec, item: Encodable): Uint8Array {
  return item.encoded?.('protobuf', codec.encodeProtobufRaw) ?? codec.encodeProtobufRaw(item.object);
}

/** One object in its envelope. */
export function protobufObject(codec: ProtobufCodec, item: Encodable): Uint8Array {
  const { apiVersion = '', kind = '' } = item.object;
  return codec.protobufEnvelope(apiVersion, kind, rawOf(codec, item));
}

/** A list in its envelope, its items' messages taken from the cache. */
export function protobufListOf(codec: ProtobufCodec, list: { kind: string; apiVersion: string; metadata: ListMeta }, items: readonly Encodable[]): Uint8Array {
  return codec.protobufList(list.apiVersion, list.kind, list.metadata, items.map((item) => rawOf(codec, item)));
}

/** A WatchEvent message (without its length) of an event's object. */
export function protobufEvent(codec: ProtobufCodec, type: WatchEventType, item: Encodable): Uint8Array {
  return codec.protobufWatchEvent(type, protobufObject(codec, item));
}
