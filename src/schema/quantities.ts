// Where a built-in type holds resource.Quantity values, from its schema's references to the
// Quantity definition, compiled once per schema. Upstream decodes a body into the Go type
// before anything else looks at it: a string there that is not a quantity fails that
// decoding (400), and every quantity is written back in its canonical form ("0.5" and
// 0.5 as "500m", "1024Mi" as "1Gi"); the schema alone (a string or a number) does neither.

import { isObject } from '../api/json.ts';
import { canonicalQuantity, parseQuantity } from '../api/quantity.ts';
import { refName } from './resolve.ts';
import type { Definitions, Schema } from './types.ts';

const quantityDefinition = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** Calls `visit` with each value found where the schema has a Quantity, and what holds it. */
export type QuantitySites = (value: unknown, visit: QuantityVisit) => void;
type QuantityVisit = (holder: Record<string, unknown> | unknown[], key: string | number, value: unknown) => void;
type Site = (holder: Record<string, unknown> | unknown[], key: string | number, value: unknown, visit: QuantityVisit) => void;

const quantity: Site = (holder, key, value, visit) => visit(holder, key, value);

/** Compiled sites by definition name, per definitions object; null: the definition holds no Quantity. */
const compiled = new WeakMap<Definitions, Map<string, Site | null>>();

/** The quantity sites of a schema, or undefined when nothing under it is a Quantity (most types: nothing to walk). */
export function quantitySites(defs: Definitions, schema: Schema): QuantitySites | undefined {
  let byName = compiled.get(defs);
  if (byName === undefined) {
    byName = new Map();
    compiled.set(defs, byName);
  }
  const site = compile(defs, schema, byName, new Set());
  if (site === undefined) return undefined;
  return (value, visit) => site([value], 0, value, visit);
}

/** Canonical forms of the strings met lately (null: not a quantity): a type's quantities repeat ("100m", "64Mi"), and parsing one is ~1 µs. */
const canonicalForms = new Map<string, string | null>();
const canonicalFormsKept = 1024;

function canonicalString(text: string): string | null {
  let canonical = canonicalForms.get(text);
  if (canonical === undefined) {
    const trimmed = text.trim();
    canonical = parseQuantity(trimmed) === undefined ? null : canonicalQuantity(trimmed);
    if (canonicalForms.size >= canonicalFormsKept) canonicalForms.clear();
    canonicalForms.set(text, canonical);
  }
  return canonical;
}

/**
 * Writes every quantity at a site in its canonical form, as decoding into the Go type and
 * encoding it again does. False when a string there is not a quantity (surrounding space
 * is trimmed, as upstream's decoding does; "" is none): the value is refused, whatever
 * was rewritten.
 */
export function canonicalizeQuantities(sites: QuantitySites, value: unknown): boolean {
  let wellFormed = true;
  sites(value, (holder, key, v) => {
    let canonical: string | null | undefined;
    if (typeof v === 'string') canonical = canonicalString(v);
    else if (typeof v === 'number' && Number.isFinite(v)) canonical = canonicalQuantity(v);
    if (canonical === null) wellFormed = false;
    else if (canonical !== undefined && canonical !== v) (holder as Record<string | number, unknown>)[key] = canonical;
  });
  return wellFormed;
}

function compile(defs: Definitions, schema: Schema, byName: Map<string, Site | null>, visiting: Set<string>): Site | undefined {
  if (schema.$ref !== undefined) {
    const name = refName(schema.$ref);
    if (name === quantityDefinition) return quantity;
    const known = byName.get(name);
    if (known !== undefined) return known ?? undefined;
    // A definition that refers back to itself (a CRD's JSONSchemaProps) holds no Quantity in the built-in API.
    const target = defs[name];
    if (target === undefined || visiting.has(name)) return undefined;
    visiting.add(name);
    const site = compile(defs, target, byName, visiting);
    visiting.delete(name);
    byName.set(name, site ?? null);
    return site;
  }
  const parts: Site[] = [];
  for (const member of schema.allOf ?? []) {
    const site = compile(defs, member, byName, visiting);
    if (site !== undefined) parts.push(site);
  }
  const properties: Array<[string, Site]> = [];
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const site = compile(defs, property, byName, visiting);
    if (site !== undefined) properties.push([key, site]);
  }
  if (properties.length > 0) {
    parts.push((_holder, _key, value, visit) => {
      if (!isObject(value)) return;
      for (const [key, site] of properties) if (value[key] !== undefined && value[key] !== null) site(value, key, value[key], visit);
    });
  }
  const items = schema.items === undefined ? undefined : compile(defs, schema.items, byName, visiting);
  if (items !== undefined) {
    parts.push((_holder, _key, value, visit) => {
      if (Array.isArray(value)) value.forEach((item, i) => items(value, i, item, visit));
    });
  }
  const additional = isObject(schema.additionalProperties) ? compile(defs, schema.additionalProperties, byName, visiting) : undefined;
  if (additional !== undefined) {
    parts.push((_holder, _key, value, visit) => {
      if (isObject(value)) for (const key in value) if (value[key] !== undefined && value[key] !== null) additional(value, key, value[key], visit);
    });
  }
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : (holder, key, value, visit) => {
    for (const part of parts) part(holder, key, value, visit);
  };
}
