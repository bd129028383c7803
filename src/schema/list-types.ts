// The uniqueness of x-kubernetes-list-type set and map lists, as apiextensions-apiserver's
// schema/listtype validation checks it: a set's items are unique, a map's items are objects
// unique by their key fields, compared as Go's json.Marshal writes them. Custom resources'
// objects (registry/crd/list-types.ts) and a CRD's defaults (validate.ts) use it.

import { duplicate, goUnstructured, invalid } from '../api/field-errors.ts';
import { isObject } from '../api/json.ts';
import type { StatusCause } from '../api/types.ts';

type Raw = Record<string, unknown>;

/** Go's json.Marshal of a decoded value: map keys sorted, so key order does not tell items apart. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(value[k])}`).join(',')}}`;
  return JSON.stringify(value ?? null);
}

/** Absent, as a key field missing from a map list's item: apart from every value, null too. */
const unspecified = Symbol('unspecified');

/** A comparable form of an item: scalars by type and value, compounds by their JSON. */
function identity(value: unknown): string {
  if (value === unspecified) return 'unspecified';
  if (typeof value === 'object' && value !== null) return `j${sortedJson(value)}`;
  return `${value === null ? 'null' : typeof value}:${String(value)}`;
}

/** Indices of the second occurrence of each repeated item, as upstream's validateListSet reports them. */
export function firstRepeats(items: readonly unknown[]): number[] {
  if (items.length <= 1) return [];
  const seen = new Map<string, number>();
  const repeats: number[] = [];
  for (let i = 0; i < items.length; i++) {
    const id = identity(items[i]);
    const times = seen.get(id) ?? 0;
    if (times === 1) repeats.push(i);
    seen.set(id, times + 1);
  }
  return repeats;
}

/** Upstream's validateListMap: items objects (or null), unique by their key fields. */
export function checkListMap(keys: readonly string[], items: readonly unknown[], path: string, causes: StatusCause[]): void {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item !== null && !isObject(item)) {
      causes.push(invalid(`${path}[${i}]`, goUnstructured(item), 'must be an object for an array of list-type map'));
      return;
    }
  }
  if (items.length <= 1) return;
  if (keys.length === 1) {
    // One key: items compare by its value; a null item or one without the key has none.
    const key = keys[0]!;
    const values = items.map((item) => (isObject(item) && Object.hasOwn(item, key) ? item[key] : unspecified));
    for (const i of firstRepeats(values)) {
      const value = values[i];
      causes.push(duplicate(`${path}[${i}]`, goUnstructured(value === unspecified ? {} : { [key]: value })));
    }
    return;
  }
  const keyed = items.map((item) => {
    const fields: Raw = {};
    if (isObject(item)) for (const k of keys) if (Object.hasOwn(item, k)) fields[k] = item[k];
    return fields;
  });
  for (const i of firstRepeats(keyed)) causes.push(duplicate(`${path}[${i}]`, goUnstructured(keyed[i])));
}

/** Upstream's validateListSet: each repeated item a Duplicate at its index. */
export function checkListSet(items: readonly unknown[], path: string, causes: StatusCause[]): void {
  for (const i of firstRepeats(items)) causes.push(duplicate(`${path}[${i}]`, goUnstructured(items[i])));
}
