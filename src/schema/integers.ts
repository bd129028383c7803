// A built-in type's int32 and int64 fields (`format: int32`, `format: int64` in its schema):
// decoding into the Go type fails on an integer out of the field's range, which the
// schema's validation does not check (a Deployment with replicas: 3000000000 was stored,
// and no Go client could read it back).

import { compileSites, type SiteKind, type Sites } from './go-sites.ts';
import type { Definitions, Schema } from './types.ts';

const int32Kind: SiteKind = { name: 'int32', is: (schema) => schema.type === 'integer' && schema.format === 'int32', named: true };
const int64Kind: SiteKind = { name: 'int64', is: (schema) => schema.type === 'integer' && schema.format === 'int64', named: true };

/** A type's integer sites, each walk with its Go type and range. */
export type IntegerSites = readonly (readonly [Sites, GoInteger])[];
interface GoInteger {
  type: string;
  min: number;
  max: number;
}

// int64's bounds as doubles: 2^63 is the first double above the largest int64.
const int32: GoInteger = { type: 'int32', min: -2147483648, max: 2147483647 };
const int64: GoInteger = { type: 'int64', min: -(2 ** 63), max: 2 ** 63 - 1 };

/** The integer sites of a schema, or undefined when it has none. */
export function integerSites(defs: Definitions, schema: Schema): IntegerSites | undefined {
  const sites: (readonly [Sites, GoInteger])[] = [];
  const int32s = compileSites(defs, schema, int32Kind);
  if (int32s !== undefined) sites.push([int32s, int32]);
  const int64s = compileSites(defs, schema, int64Kind);
  if (int64s !== undefined) sites.push([int64s, int64]);
  return sites.length === 0 ? undefined : sites;
}

/** Go's decoding error for the first integer at a site out of its type's range (Go's UnmarshalTypeError), or undefined. */
export function integerDecodeError(sites: IntegerSites, value: unknown): string | undefined {
  let error: string | undefined;
  for (const [walk, { type, min, max }] of sites) {
    walk(value, (_holder, _key, v, where) => {
      if (error !== undefined || typeof v !== 'number' || !Number.isInteger(v) || (v <= max && v >= min)) return;
      // The literal as JSON writes it (the body's own text is gone by now: 1e21 for 1e+21).
      error = `json: cannot unmarshal number ${String(v).replace('e+', 'e')} into Go struct field ${where.struct}.${where.path.join('.')} of type ${type}`;
    });
    if (error !== undefined) return error;
  }
  return undefined;
}
