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
