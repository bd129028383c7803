// CBOR answers built from the watch cache's encodings: an object's CBOR is encoded once,
// kept beside its JSON (EncodingMemo), and reused for gets, lists and watch events.
import type { KubeObject, ListMeta, WatchEventType } from '../api/index.ts';
import { EncodedCbor, encodeCbor, selfDescribedCbor } from '../encoding/cbor.ts';
import type { CborObjectCodec } from '../encoding/cbor-loader.ts';

/** What has an object and, when it comes from the cache, its kept encodings. */
interface Encodable {
  readonly object: KubeObject;
  encoded?(name: string, encode: (object: KubeObject) => Uint8Array): Uint8Array;
}

/** The object as an application/cbor answer (the self-described tag first), from the cache when it has it. */
export function cborObject(codec: CborObjectCodec, item: Encodable): Uint8Array {
  return item.encoded?.('cbor', codec.encodeCborObject) ?? codec.encodeCborObject(item.object);
}

/** An object's data item without the self-described tag: what a list holds in its items. */
function untagged(bytes: Uint8Array): Uint8Array {
  const tagged = bytes.length >= selfDescribedCbor.length && selfDescribedCbor.every((b, i) => bytes[i] === b);
  return tagged ? bytes.subarray(selfDescribedCbor.length) : bytes;
}

/**
 * A list as one data item, its items' encodings taken from the cache: upstream encodes a
 * list as a whole, so only the list itself carries the self-described tag.
 */
export function cborListOf(codec: CborObjectCodec, list: { kind: string; apiVersion: string; metadata: ListMeta }, items: readonly Encodable[]): Uint8Array {
  return encodeCbor({ ...list, items: items.map((item) => new EncodedCbor(untagged(cborObject(codec, item)))) });
}

/** One event of an application/cbor-seq watch, its object's encoding from the cache. */
export function cborEvent(codec: CborObjectCodec, type: WatchEventType, item: Encodable): Uint8Array {
  return codec.encodeCborWatchEvent({ type, object: item.object }, cborObject(codec, item));
}
