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
