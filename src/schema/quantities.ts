// Where a built-in type holds resource.Quantity values, from its schema's references to the
// Quantity definition, compiled once per schema. Upstream decodes a body into the Go type
// before anything else looks at it, and a string there that is not a quantity fails that
// decoding (400); the schema alone (a string or a number) lets any string through.

import { isObject } from '../api/json.ts';
import { parseQuantity } from '../api/quantity.ts';
import { refName } from './resolve.ts';
import type { Definitions, Schema } from './types.ts';

const quantityDefinition = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** Whether a value holds, where its schema has a Quantity, a string that is not one. */
export type MalformedQuantityCheck = (value: unknown) => boolean;

/** A Quantity's own check: a string must parse (surrounding space is trimmed, as upstream's UnmarshalJSON does). */
const malformed: MalformedQuantityCheck = (value) => typeof value === 'string' && parseQuantity(value.trim()) === undefined;

/** Compiled checks by definition name, per definitions object; null: the definition holds no Quantity. */
const compiled = new WeakMap<Definitions, Map<string, MalformedQuantityCheck | null>>();

/** The check of a schema, or undefined when nothing under it is a Quantity (most types: nothing to walk). */
export function malformedQuantityCheck(defs: Definitions, schema: Schema): MalformedQuantityCheck | undefined {
  let byName = compiled.get(defs);
  if (byName === undefined) {
    byName = new Map();
    compiled.set(defs, byName);
  }
  return compile(defs, schema, byName, new Set());
}

function compile(defs: Definitions, schema: Schema, byName: Map<string, MalformedQuantityCheck | null>, visiting: Set<string>): MalformedQuantityCheck | undefined {
  if (schema.$ref !== undefined) {
    const name = refName(schema.$ref);
    if (name === quantityDefinition) return malformed;
    const known = byName.get(name);
    if (known !== undefined) return known ?? undefined;
    // A definition that refers back to itself (a CRD's JSONSchemaProps) holds no Quantity in the built-in API.
    const target = defs[name];
    if (target === undefined || visiting.has(name)) return undefined;
    visiting.add(name);
    const check = compile(defs, target, byName, visiting);
    visiting.delete(name);
    byName.set(name, check ?? null);
    return check;
  }
  const parts: MalformedQuantityCheck[] = [];
  for (const member of schema.allOf ?? []) {
    const check = compile(defs, member, byName, visiting);
    if (check !== undefined) parts.push(check);
  }
  const properties: Array<[string, MalformedQuantityCheck]> = [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const check = compile(defs, property, byName, visiting);
    if (check !== undefined) properties.push([key, check]);
  }
  if (properties.length > 0) {
    parts.push((value) => {
      if (!isObject(value)) return false;
      for (const [key, check] of properties) if (check(value[key])) return true;
      return false;
    });
  }
  const items = schema.items === undefined ? undefined : compile(defs, schema.items, byName, visiting);
  if (items !== undefined) parts.push((value) => Array.isArray(value) && value.some(items));
  const additional = isObject(schema.additionalProperties) ? compile(defs, schema.additionalProperties, byName, visiting) : undefined;
  if (additional !== undefined) parts.push((value) => isObject(value) && Object.values(value).some(additional));
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : (value) => parts.some((check) => check(value));
}
