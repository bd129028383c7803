// Defaulting from a structural schema's `default`s, as apiextensions-apiserver defaults
// custom resources (pkg/apiserver/schema/defaulting/algorithm.go): a missing field, or a
// null one that allows no null, gets a copy of its default; defaults are themselves
// defaulted further down.

import { clone } from '../api/json.ts';
import { compileSchema, type SchemaNode } from './compiled.ts';
import type { Definitions, Schema } from './types.ts';

/** Fills in `value` (in place) the defaults `schema` specifies. */
export function applyDefaults(defs: Definitions, schema: Schema, value: unknown): void {
  defaultValue(compileSchema(defs, schema), value);
}

function defaultValue(node: SchemaNode, value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    const items = node.items;
    if (items === undefined) return;
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null && !items.nullable && items.defaultValue !== undefined) value[i] = clone(items.defaultValue);
      defaultValue(items, value[i]);
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  const hasProperties = node.schema.properties !== undefined;
  if (hasProperties) {
    for (const [key, property] of node.defaulted) {
      const current = obj[key];
      if (current === undefined || (current === null && !property.nullable)) obj[key] = clone(property.defaultValue);
    }
  }
  const additional = node.additional;
  if (!hasProperties && additional === undefined) return;
  for (const key in obj) {
    const item = obj[key];
    const property = hasProperties ? node.property(key) : undefined;
    if (property !== undefined) {
      if (typeof item === 'object' && item !== null) defaultValue(property, item);
    } else if (additional !== undefined) {
      if (item === null && !additional.nullable && additional.defaultValue !== undefined) obj[key] = clone(additional.defaultValue);
      else if (typeof item === 'object') defaultValue(additional, item);
    }
  }
}
