// Stored bytes to objects and back; the resourceVersion is the key's revision, never stored.
import { internalError, type KubeObject } from '../api/index.ts';
import type { KeyValue } from '../storage/backend.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Stored bytes never carry the resourceVersion: it is the key's modRevision, as with etcd. */
export function encodeForStorage(obj: KubeObject): Uint8Array {
  const { resourceVersion: _rv, selfLink: _selfLink, ...meta } = obj.metadata;
  // kind, apiVersion and metadata first, as Kubernetes serialises objects.
  const { kind, apiVersion, metadata: _metadata, ...rest } = obj;
  return encoder.encode(JSON.stringify({ kind, apiVersion, metadata: meta, ...rest }));
}

export function decodeFromStorage(kv: KeyValue): KubeObject {
  let obj: KubeObject;
  try {
    obj = JSON.parse(decoder.decode(kv.value)) as KubeObject;
  } catch (err) {
    throw internalError(`object stored at ${kv.key} could not be decoded: ${(err as Error).message}`);
  }
  if (obj === null || typeof obj !== 'object' || typeof obj.metadata !== 'object' || obj.metadata === null) {
    throw internalError(`object stored at ${kv.key} could not be decoded: no metadata`);
  }
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}

const metadataOpen = Buffer.from('"metadata":{');
const closingBrace = 0x7d;

/**
 * The JSON the API shows for a stored value, made from the stored bytes by inserting the
 * resourceVersion (the key's modRevision) into metadata, instead of decoding and encoding
 * again. encodeForStorage writes kind, apiVersion and metadata first, so the first
 * `"metadata":{` is the object's own. Undefined when the bytes are not of that form.
 */
export function storedJsonWithResourceVersion(kv: KeyValue): Uint8Array | undefined {
  const stored = Buffer.from(kv.value.buffer, kv.value.byteOffset, kv.value.byteLength);
  const at = stored.indexOf(metadataOpen);
  if (at < 0 || at > 256) return undefined;
  const insertAt = at + metadataOpen.length;
  const field = Buffer.from(`"resourceVersion":"${kv.modRevision}"${stored[insertAt] === closingBrace ? '' : ','}`);
  // An array of its own, not a slice of Buffer's shared pool that would keep 8 KiB alive per object.
  const json = new Uint8Array(stored.length + field.length);
  json.set(stored.subarray(0, insertAt), 0);
  json.set(field, insertAt);
  json.set(stored.subarray(insertAt), insertAt + field.length);
  return json;
}
