// What decoding a body into a built-in type's Go struct checks and rewrites beyond its
// schema, in one function per type (undefined for a type with nothing to check): quantities
// and times parsed and written canonically, IntOrStrings and integers in range, []byte fields
// as base64.

import { quantityFormatError } from '../api/quantity.ts';
import { bytesSites, canonicalizeBytes } from './bytes.ts';
import { integerDecodeError, integerSites, intOrStringDecodeError, intOrStringSites } from './integers.ts';
import { canonicalizeQuantities, quantitySites } from './quantities.ts';
import { canonicalizeTimes, timeSites } from './times.ts';
import type { Definitions, Schema } from './types.ts';
import type { NumberTexts } from '../api/number-forms.ts';

/**
 * Rewrites an object as its Go type holds it and answers the decoder's error, if any.
 * `texts`: the body's numbers written with a fraction or an exponent (api/number-forms.ts).
 */
export type GoDecoding = (obj: unknown, texts?: NumberTexts) => string | undefined;

export function goDecoding(defs: Definitions, schema: Schema): GoDecoding | undefined {
  const quantities = quantitySites(defs, schema);
  const times = timeSites(defs, schema);
  const bytes = bytesSites(defs, schema);
  const integers = integerSites(defs, schema);
  const intOrStrings = intOrStringSites(defs, schema);
  if (quantities === undefined && times === undefined && intOrStrings === undefined && bytes === undefined && integers === undefined) return undefined;
  // Go's decoder stops at a value whose own decoding fails (a quantity, a time, an
  // IntOrString), and only notes one of the wrong form (base64, an integer out of range),
  // answering the first noted when nothing stops it: the stopping kinds are looked at first.
  return (obj, texts) => (quantities !== undefined && !canonicalizeQuantities(quantities, obj) ? quantityFormatError : undefined)
    ?? (times === undefined ? undefined : canonicalizeTimes(times, obj))
    ?? (intOrStrings === undefined ? undefined : intOrStringDecodeError(intOrStrings, obj, texts))
    ?? (bytes === undefined ? undefined : canonicalizeBytes(bytes, obj))
    ?? (integers === undefined ? undefined : integerDecodeError(integers, obj, texts));
}
