// A built-in type's int32 and int64 fields (`format: int32`, `format: int64` in its schema)
// and IntOrString values: decoding into the Go type fails on an integer out of the field's
// range, which the schema's validation does not check (a Deployment with replicas:
// 3000000000 was stored, and no Go client could read it back).

import { goFieldTypeError, goJsonKind, goNumberKind } from '../api/json.ts';
import type { NumberTexts } from '../api/number-forms.ts';
import { compileKinds, compileSites, type SiteKind, type Sites } from './go-sites.ts';
import { refName } from './resolve.ts';
import type { Definitions, Schema } from './types.ts';

const int32Kind: SiteKind = { name: 'int32', is: (schema) => schema.type === 'integer' && schema.format === 'int32', named: true };
const int64Kind: SiteKind = { name: 'int64', is: (schema) => schema.type === 'integer' && schema.format === 'int64', named: true };

/** A type's integer sites, each walk with its Go type and range. */
export type IntegerSites = readonly (readonly [Sites, GoInteger])[];
interface GoInteger {
  type: string;
  min: number;
  /** The first integer above the range: int64's largest, 2^63 - 1, is no double (it rounds to 2^63). */
  above: number;
}

const int32: GoInteger = { type: 'int32', min: -(2 ** 31), above: 2 ** 31 };
const int64: GoInteger = { type: 'int64', min: -(2 ** 63), above: 2 ** 63 };

/** The integer sites of a schema, or undefined when it has none. */
export function integerSites(defs: Definitions, schema: Schema): IntegerSites | undefined {
  return compileKinds(defs, schema, [[int32Kind, int32], [int64Kind, int64]]);
}

/**
 * Go's decoding error for the first integer at a site out of its type's range, or number
 * written with a fraction or an exponent (`texts`: `1.0` and `1.5`, which Go's integers
 * refuse, named as written), as Go's UnmarshalTypeError; undefined when there is none.
 */
export function integerDecodeError(sites: IntegerSites, value: unknown, texts?: NumberTexts): string | undefined {
  let error: string | undefined;
  for (const [walk, { type, min, above }] of sites) {
    walk(value, (holder, key, v, where) => {
      if (error !== undefined || typeof v !== 'number') return;
      // Of a number not an integer, the type error's walk says the same without its text.
      const text = texts?.(holder, key);
      if (text === undefined && (!Number.isInteger(v) || (v < above && v >= min))) return;
      error = goFieldTypeError(v, where.struct, where.path.join('.'), type, text);
    });
    if (error !== undefined) return error;
  }
  return undefined;
}

const intOrStringKind: SiteKind = {
  name: 'int-or-string',
  is: (schema) => schema.$ref !== undefined && refName(schema.$ref) === 'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
};

/** Where a type holds IntOrString values, or undefined when it has none. */
export function intOrStringSites(defs: Definitions, schema: Schema): Sites | undefined {
  return compileSites(defs, schema, intOrStringKind);
}

/**
 * IntOrString's own decoding of the first value it refuses: what is not a string is
 * decoded alone as an int32, so Go's error names no field ("… into Go value of type
 * int32") and decoding stops there. `texts`: numbers written with a fraction or an exponent.
 */
export function intOrStringDecodeError(sites: Sites, value: unknown, texts?: NumberTexts): string | undefined {
  let error: string | undefined;
  sites(value, (holder, key, v) => {
    if (error !== undefined || typeof v === 'string') return;
    const text = typeof v === 'number' ? texts?.(holder, key) : undefined;
    if (text === undefined && typeof v === 'number' && Number.isInteger(v) && v >= int32.min && v < int32.above) return;
    error = `json: cannot unmarshal ${text !== undefined ? `number ${text}` : typeof v === 'number' ? goNumberKind(v) : goJsonKind(v)} into Go value of type int32`;
  });
  return error;
}
