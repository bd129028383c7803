// The uniqueness of x-kubernetes-list-type set and map lists in a custom resource, after
// apiextensions-apiserver's schema/listtype validation: a set's items are unique, a map's
// items are objects unique by their key fields. It runs over the whole object apart from
// the schema validation, so that an update may ratchet it: when the object before already
// had a repeated item, none is reported (strategy.go, status_strategy.go).

import { duplicate, goUnstructured, invalid } from '../../api/field-errors.ts';
import { isObject } from '../../api/json.ts';
import type { StatusCause } from '../../api/index.ts';

type Raw = Record<string, unknown>;

/** Whether a schema types any list as a set or a map, so objects need the walk at all. */
export function hasListTypes(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(hasListTypes);
  if (!isObject(schema)) return false;
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set' || listType === 'map') return true;
  return Object.values(schema).some(hasListTypes);
}

/** Upstream's ValidateListSetsAndMaps of a custom resource, paths as field.Path writes them. */
export function listTypeCauses(schema: Raw, obj: unknown): StatusCause[] {
  const causes: StatusCause[] = [];
  walk(schema, obj, '', causes);
  return causes;
}

function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

function walk(schema: Raw, value: unknown, path: string, causes: StatusCause[]): void {
  if (Array.isArray(value)) {
    const listType = schema['x-kubernetes-list-type'];
    if (listType === 'set') {
      for (const i of firstRepeats(value)) causes.push(duplicate(`${path}[${i}]`, goUnstructured(value[i])));
    } else if (listType === 'map') {
      const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? schema['x-kubernetes-list-map-keys'].map(String) : [];
      checkListMap(keys, value, path, causes);
    }
    if (isObject(schema.items)) for (let i = 0; i < value.length; i++) walk(schema.items, value[i], `${path}[${i}]`, causes);
    return;
  }
  if (!isObject(value)) return;
  if (isObject(schema.additionalProperties)) {
    for (const [key, item] of Object.entries(value)) walk(schema.additionalProperties, item, `${path}[${key}]`, causes);
  }
  if (isObject(schema.properties)) {
    const properties = schema.properties;
    for (const [key, item] of Object.entries(value)) {
      const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
      if (isObject(property)) walk(property, item, child(path, key), causes);
    }
  }
}

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
function firstRepeats(items: readonly unknown[]): number[] {
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
function checkListMap(keys: readonly string[], items: readonly unknown[], path: string, causes: StatusCause[]): void {
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
