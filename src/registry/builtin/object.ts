// Small helpers for reading and defaulting plain JSON objects whose shape the client
// controls: nothing here trusts a field to have the expected type.

import { goQuote } from '../../api/field-errors.ts';
import { isObject, type JsonObject } from '../../api/json.ts';

/** The object at `parent[key]`, created (or replaced, if not an object) when missing. */
export function ensureObject(parent: JsonObject, key: string): JsonObject {
  const v = parent[key];
  if (isObject(v)) return v;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

/** A field a decoded Go value would hold: neither absent nor null. */
export function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export function objectAt(parent: unknown, key: string): JsonObject | undefined {
  if (!isObject(parent)) return undefined;
  const v = parent[key];
  return isObject(v) ? v : undefined;
}

/** The array at `parent[key]`, or an empty one (not attached) when missing or not an array. */
export function arrayAt(parent: unknown, key: string): unknown[] {
  if (!isObject(parent)) return [];
  const v = parent[key];
  return Array.isArray(v) ? v : [];
}

/** The objects of the array at `parent[key]`, skipping entries that are not objects. */
export function objectsAt(parent: unknown, key: string): JsonObject[] {
  return arrayAt(parent, key).filter(isObject);
}

/** Every item of the list at `key`, one that is not an object as {}: the indices stay the list's, for field paths. */
export function itemsAt(parent: unknown, key: string): JsonObject[] {
  return arrayAt(parent, key).map((item) => (isObject(item) ? item : {}));
}

export function stringAt(parent: unknown, key: string): string {
  if (!isObject(parent)) return '';
  const v = parent[key];
  return typeof v === 'string' ? v : '';
}

/** A list of strings at `key` (anything else in it read as ""), [] when absent. */
export function stringsAt(parent: unknown, key: string): string[] {
  return arrayAt(parent, key).map((v) => (typeof v === 'string' ? v : ''));
}

export function numberAt(parent: unknown, key: string): number | undefined {
  if (!isObject(parent)) return undefined;
  const v = parent[key];
  return typeof v === 'number' ? v : undefined;
}

/** Sets `parent[key] = value` when the key is absent, null or "". */
export function setDefault(parent: JsonObject, key: string, value: unknown): void {
  const v = parent[key];
  if (v === undefined || v === null || v === '') parent[key] = value;
}

/** Sets `parent[key] = {}` when absent or null (Go emits empty structs that are not pointers). */
export function defaultEmptyObject(parent: JsonObject, key: string): void {
  if (parent[key] === undefined || parent[key] === null) parent[key] = {};
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

/**
 * Semantic equality as upstream's apiequality.Semantic.DeepEqual sees decoded Go structs:
 * absent, null and zero values ("", 0, false, empty list, empty map) are alike;
 * otherwise structural equality.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => semanticEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/**
 * Equality of two string maps (ConfigMap and Secret data) as Go's reflect.DeepEqual sees
 * decoded maps: a key present with an empty value differs from an absent key; a missing
 * map equals an empty one.
 */
export function mapsEqual(a: unknown, b: unknown): boolean {
  const left = isObject(a) ? a : {};
  const right = isObject(b) ? b : {};
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((k) => Object.hasOwn(right, k) && left[k] === right[k]);
}

/**
 * Go's strconv.ParseInt(text, 10, 64): the value, or its error's text
 * (`strconv.ParseInt: parsing "x": invalid syntax`, `… value out of range`).
 */
export function goParseInt64(text: string): { value: bigint } | { error: string } {
  const fail = (why: string) => ({ error: `strconv.ParseInt: parsing ${goQuote(text)}: ${why}` });
  if (!/^[+-]?[0-9]+$/.test(text)) return fail('invalid syntax');
  const value = BigInt(text);
  if (value > 2n ** 63n - 1n || value < -(2n ** 63n)) return fail('value out of range');
  return { value };
}
