// The uniqueness of x-kubernetes-list-type set and map lists in a custom resource
// (schema/list-types.ts), checked over the whole object apart from the schema validation,
// so that an update may ratchet it: when the object before already had a repeated item,
// none is reported (strategy.go, status_strategy.go).

import { isObject } from '../../api/json.ts';
import type { StatusCause } from '../../api/index.ts';
import { checkListMap, checkListSet } from '../../schema/list-types.ts';

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
      checkListSet(value, path, causes);
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
