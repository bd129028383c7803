// Plain JSON values as JSON.parse gives them, and the few operations the patch
// algorithms need on them. Every walk is iterative: a patch body may nest far deeper
// than the JavaScript stack allows recursion.

import { isObject, type JsonObject } from '../api/json.ts';

export function hasMember(object: JsonObject, key: string): boolean {
  return Object.hasOwn(object, key);
}

/**
 * The length in bytes of `value` encoded as JSON, counted up to `limit`: past it the
 * walk stops and answers a number greater than `limit`.
 */
export function encodedSizeUpTo(value: unknown, limit: number): number {
  let size = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && size <= limit) {
    const item = pending.pop();
    if (typeof item === 'string') size += Buffer.byteLength(JSON.stringify(item));
    else if (typeof item !== 'object' || item === null) size += String(item).length;
    else if (Array.isArray(item)) {
      size += 2 + Math.max(0, item.length - 1);
      for (const element of item) pending.push(element);
    } else {
      const keys = Object.keys(item);
      size += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        size += Buffer.byteLength(JSON.stringify(key)) + 1;
        pending.push((item as JsonObject)[key]);
      }
    }
  }
  return size;
}

/**
 * Deletes the null members of every map inside `value`, in place (arrays keep their null
 * items), as upstream's merge and strategic patchers do with values taken from a patch.
 * Iterative, so deep input cannot exhaust the stack. Answers `value`.
 */
export function pruneNulls(value: unknown): unknown {
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      for (const element of item) if (typeof element === 'object' && element !== null) pending.push(element);
    } else if (isObject(item)) {
      for (const key of Object.keys(item)) {
        const member = item[key];
        if (member === null) delete item[key];
        else if (typeof member === 'object') pending.push(member);
      }
    }
  }
  return value;
}
