// Encoding once per object (DESIGN.md "Encode once") and keeping shared objects
// immutable.

import type { KubeObject } from '../api/index.ts';

const encoder = new TextEncoder();

/**
 * JSON bytes of an object, in an ArrayBuffer of its own. (Buffer.from would pack
 * small strings into Node's shared 8 KiB pool, cheaper at first, but one long-lived
 * object then keeps a whole pool chunk alive: a cache whose objects are updated at
 * random would fragment towards 8 KiB per object.)
 */
export function encodeJson(object: KubeObject): Uint8Array {
  return encoder.encode(JSON.stringify(object));
}

/**
 * Make a value built in this process what decoding its JSON would give, and freeze it:
 * object members that are undefined go (JSON.stringify leaves them out), undefined array
 * items and numbers JSON cannot hold become null, -0 becomes 0.
 */
export function freezeAsDecoded(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === undefined || (typeof item === 'number' && !Number.isFinite(item))) value[i] = null;
      else if (Object.is(item, -0)) value[i] = 0;
      else freezeAsDecoded(item);
    }
  } else {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const member = record[key];
      if (member === undefined) delete record[key];
      else if (typeof member === 'number' && !Number.isFinite(member)) record[key] = null;
      else if (Object.is(member, -0)) record[key] = 0;
      else freezeAsDecoded(member);
    }
  }
  Object.freeze(value);
}

/**
 * The object a writer encoded, as decoding its stored JSON at `revision` gives it: a top
 * level and metadata of its own, laid out as the JSON is (kind, apiVersion, metadata with
 * the resourceVersion first, the rest), sharing what is below them, made what decoding
 * would give and frozen (freezeAsDecoded). The writer must not change the object after.
 */
export function decodedForm(object: KubeObject, revision: number): KubeObject {
  const { kind, apiVersion, metadata, ...rest } = object;
  const { resourceVersion: _resourceVersion, selfLink: _selfLink, ...meta } = metadata;
  const laidOut = { kind, apiVersion, metadata: { resourceVersion: String(revision), ...meta }, ...rest } as KubeObject;
  freezeAsDecoded(laidOut);
  return laidOut;
}

/** Freeze a decoded JSON value and everything in it, so that no reader can change what others share. */
export function freezeDeep(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) freezeDeep(item);
  } else {
    for (const key in value) freezeDeep((value as Record<string, unknown>)[key]);
  }
}
