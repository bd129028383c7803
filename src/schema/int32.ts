// A built-in type's int32 fields (`format: int32` in its schema): decoding into the Go type
// fails on an integer out of int32's range, which the schema's validation does not check
// (a Deployment with replicas: 3000000000 was stored, and no Go client could read it).

import { compileSites, type SiteKind, type Sites } from './go-sites.ts';
import type { Definitions, Schema } from './types.ts';

const int32Kind: SiteKind = { name: 'int32', is: (schema) => schema.type === 'integer' && schema.format === 'int32', named: true };

/** Where a type holds int32 values (see go-sites.ts). */
export type Int32Sites = Sites;

/** The int32 sites of a schema, or undefined when it has none. */
export function int32Sites(defs: Definitions, schema: Schema): Int32Sites | undefined {
  return compileSites(defs, schema, int32Kind);
}

/** Go's decoding error for the first integer at a site out of int32's range (Go's UnmarshalTypeError), or undefined. */
export function int32DecodeError(sites: Int32Sites, value: unknown): string | undefined {
  let error: string | undefined;
  sites(value, (_holder, _key, v, where) => {
    if (error !== undefined || typeof v !== 'number' || !Number.isInteger(v) || (v <= 2147483647 && v >= -2147483648)) return;
    // The literal as JSON writes it (the body's own text is gone by now: 1e21 for 1e+21).
    error = `json: cannot unmarshal number ${String(v).replace('e+', 'e')} into Go struct field ${where.struct}.${where.path.join('.')} of type int32`;
  });
  return error;
}
