// Where a built-in type holds resource.Quantity values, from its schema's references to the
// Quantity definition, compiled once per schema. Upstream decodes a body into the Go type
// before anything else looks at it: a string there that is not a quantity fails that
// decoding (400), and every quantity is written back in its canonical form ("0.5" and
// 0.5 as "500m", "1024Mi" as "1Gi"); the schema alone (a string or a number) does neither.

import { canonicalQuantity, parseQuantity } from '../api/quantity.ts';
import { compileSites, type SiteKind, type Sites } from './go-sites.ts';
import { refName } from './resolve.ts';
import type { Definitions, Schema } from './types.ts';

const quantityDefinition = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

const quantityKind: SiteKind = { name: 'quantity', is: (schema) => schema.$ref !== undefined && refName(schema.$ref) === quantityDefinition };

/** Where a type holds quantities (see go-sites.ts). */
export type QuantitySites = Sites;

/** The quantity sites of a schema, or undefined when nothing under it is a Quantity (most types: nothing to walk). */
export function quantitySites(defs: Definitions, schema: Schema): QuantitySites | undefined {
  return compileSites(defs, schema, quantityKind);
}

/** Canonical forms of the strings met lately (null: not a quantity): a type's quantities repeat ("100m", "64Mi"), and parsing one is ~1 µs. */
const canonicalForms = new Map<string, string | null>();
const canonicalFormsKept = 1024;
/** Longest text kept: a client's megabyte strings, 1024 of them, would fill the heap. */
const canonicalTextMax = 64;

function canonicalString(text: string): string | null {
  if (text.length > canonicalTextMax) return canonicalOf(text);
  let canonical = canonicalForms.get(text);
  if (canonical === undefined) {
    canonical = canonicalOf(text);
    if (canonicalForms.size >= canonicalFormsKept) canonicalForms.clear();
    canonicalForms.set(text, canonical);
  }
  return canonical;
}

function canonicalOf(text: string): string | null {
  const trimmed = text.trim();
  return parseQuantity(trimmed) === undefined ? null : canonicalQuantity(trimmed);
}

/**
 * Writes every quantity at a site in its canonical form, as decoding into the Go type and
 * encoding it again does. False when a value there is not a quantity (surrounding space
 * is trimmed, as upstream's decoding does; "" is none): the value is refused, whatever
 * was rewritten.
 */
export function canonicalizeQuantities(sites: QuantitySites, value: unknown): boolean {
  let wellFormed = true;
  sites(value, (holder, key, v) => {
    let canonical: string | null | undefined;
    if (typeof v === 'string') canonical = canonicalString(v);
    else if (typeof v === 'number' && Number.isFinite(v)) canonical = canonicalQuantity(v);
    // Quantity's UnmarshalJSON parses any other JSON text (true, {}, [1]) as a quantity, and fails.
    else if (typeof v === 'boolean' || (typeof v === 'object' && v !== null)) canonical = null;
    if (canonical === null) wellFormed = false;
    else if (canonical !== undefined && canonical !== v) (holder as Record<string | number, unknown>)[key] = canonical;
  });
  return wellFormed;
}
