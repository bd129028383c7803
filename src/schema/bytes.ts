// Where a built-in type holds []byte values (`format: byte` in its schema: a Secret's data,
// a ConfigMap's binaryData, webhooks' and APIServices' caBundle, a CSR's request),
// compiled once per schema. Go's decoding reads them as base64 and fails on text it cannot
// decode; what it stores and serves is the canonical encoding of the bytes.

import { canonicalGoBase64 } from '../api/go-base64.ts';
import { canonicalizeStrings, compileSites, type SiteKind, type Sites } from './go-sites.ts';
import type { Definitions, Schema } from './types.ts';

const bytesKind: SiteKind = { name: 'bytes', is: (schema) => schema.type === 'string' && schema.format === 'byte' };

/** The []byte sites of a schema, or undefined when it has none. */
export function bytesSites(defs: Definitions, schema: Schema): Sites | undefined {
  return compileSites(defs, schema, bytesKind);
}

/** Rewrites each value at the sites in canonical base64; answers Go's error for the first it cannot decode. */
export function canonicalizeBytes(sites: Sites, value: unknown): string | undefined {
  return canonicalizeStrings(sites, value, canonicalGoBase64);
}
