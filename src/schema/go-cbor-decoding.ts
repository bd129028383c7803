// A CBOR body decoded into a built-in type's Go struct as upstream's CBOR serializer does it
// (fxamacker/cbor in apimachinery's decode modes): the error it fails with, in its words.
//
// fxamacker/cbor keeps decoding after a failure and answers the first in the body's order,
// whatever its kind (Go's encoding/json stops at a type's own decoding error but goes on
// after a value of the wrong kind): a value of the wrong CBOR type, an integer out of the
// field's range (`cbor: cannot unmarshal positive integer into Go struct field
// v1.Deployment.spec of type int32 (3000000000 overflows int32)`), a float for an integer,
// and the errors of the types that decode themselves. IntOrString, Quantity, Time and
// MicroTime decode their item alone, as an int32 or a string (intstr.go, quantity.go,
// time.go, micro_time.go: UnmarshalCBOR): their type errors are named again by each struct
// on the way out, like any other (`... into Go struct field v1.Service.spec of type int32`);
// a string they cannot parse fails in the parser's words. ObjectMeta is one more struct.
//
// Strict decoding (fieldValidation Strict or Warn) fails on the first map key a struct does
// not have, named only by its place in its map (`cbor: found unknown field at map element
// index 2`); a map's own unknown key wins over one found deeper in it, and the body's first
// such map decides. Duplicate keys are refused outright when the body is read.
//
// Only a write some check found faulty walks the value with the items' CBOR types (the
// decoded value does not tell a byte string from a text string, nor 2.0 from 2); the
// unknown field needs the keys' order as the body gave it, before pruning drops any, so
// a CBOR write that asks for field validation walks its keys once (no CBOR types).

import { canonicalGoBase64 } from '../api/go-base64.ts';
import { canonicalGoMicroTime, canonicalGoTime } from '../api/go-time.ts';
import { isObject } from '../api/json.ts';
import { parseQuantity, quantityFormatError } from '../api/quantity.ts';
import { goFieldTypes } from './go-field-types.ts';
import {
  anything, arrayToStruct, cborTypeOfValue, cborUnmarshalTypeError, elementOf, goType, goTypeOfDefinition, shapeOf, type CborTypeAt,
} from './go-type-errors.ts';
import { schemaRef } from './builtin/index.ts';
import type { Definitions, Schema } from './types.ts';

const quantity = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const time = 'io.k8s.apimachinery.pkg.apis.meta.v1.Time';
const microTime = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';
const intOrString = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

const int32Min = -(2 ** 31);
const int32Above = 2 ** 31;

/** What fails decoding: a value of a type its Go type cannot take (named again by the structs it is in), or another error as it is. */
type Failure =
  | { cborType: string; goType: string; detail?: string; at: readonly (string | number)[]; text?: undefined }
  | { text: string };

interface Walk {
  defs: Definitions;
  typeAt: CborTypeAt;
  /** Keys and indexes from the root to the value being decoded. */
  path: (string | number)[];
}

function isTextOrBytes(cborType: string): boolean {
  return cborType === 'byte string' || cborType === 'UTF-8 text string';
}

function isInteger(cborType: string): boolean {
  return cborType === 'positive integer' || cborType === 'negative integer';
}

/**
 * fxamacker/cbor's error decoding the first item of a CBOR body that a built-in type's Go
 * struct cannot take, in the body's order, or undefined. `value` is the body as decoded
 * (canonical forms written by the Store's checks change nothing here), `typeAt` the body's
 * items' CBOR types. `rootStruct`: the Go type the body decodes into, when the schema is
 * not its definition's (`v1.Deployment`).
 */
export function cborDecodeError(defs: Definitions, schema: Schema, value: unknown, typeAt: CborTypeAt, rootStruct?: string): string | undefined {
  const root = rootStruct ?? definitionType(defs, schema);
  if (root === undefined) return undefined;
  const failure = failureAt({ defs, typeAt, path: [] }, schema, undefined, value, 0);
  if (failure === undefined) return undefined;
  if (failure.text !== undefined) return failure.text;
  // A type error is named by the outermost struct's field: the root's, as nothing decodes a body but into a struct.
  return cborUnmarshalTypeError(failure.cborType, `${root}.${String(failure.at[0])}`, failure.goType, failure.detail);
}

/**
 * cborDecodeError for an object's metadata alone (ObjectMeta, in the object `rootStruct`
 * names, `v1.Deployment`), where the type's schema is not at hand (a body before its Store
 * decodes it).
 */
export function cborObjectMetaDecodeError(defs: Definitions, metadata: unknown, typeAt: CborTypeAt, rootStruct: string): string | undefined {
  const holder: Schema = { type: 'object', properties: { metadata: { $ref: schemaRef('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta') } } };
  return cborDecodeError(defs, holder, { metadata }, typeAt, rootStruct);
}

/**
 * Strict decoding's error for the first map key, as fxamacker/cbor meets it, that no field
 * of its struct has (`cbor: found unknown field at map element index 1`), or undefined.
 * Reads the value only (key order is the body's): to be asked before anything drops keys.
 */
export function cborUnknownField(defs: Definitions, schema: Schema, value: unknown): string | undefined {
  const index = unknownFieldIndex(defs, schema, value, 0);
  return index === undefined ? undefined : `cbor: found unknown field at map element index ${index}`;
}

function definitionType(defs: Definitions, schema: Schema): string | undefined {
  const definition = shapeOf(defs, schema).definition;
  return definition === undefined ? undefined : goTypeOfDefinition(definition);
}

/** The CBOR type of the item being decoded: the body's, else (a value the server set) the one its encoder would give it. */
function cborTypeOf(walk: Walk, value: unknown): string {
  return walk.typeAt(walk.path) ?? cborTypeOfValue(value);
}

function typeFailure(walk: Walk, cborType: string, goTypeName: string, detail?: string): Failure {
  return { cborType, goType: goTypeName, detail, at: [...walk.path] };
}

/** An integer into an int32: out of range, `N overflows int32`, as fillPositiveInt and fillNegativeInt say. */
function int32Failure(walk: Walk, cborType: string, value: number, goTypeName: string): Failure | undefined {
  if (value >= int32Min && value < int32Above) return undefined;
  return typeFailure(walk, cborType, goTypeName, `${BigInt(value)} overflows ${goTypeName}`);
}

/** A string for the types that decode themselves from one: another item fails as decoding into a Go string does. */
function stringFailure(walk: Walk, value: unknown): { failure: Failure } | { text: string } {
  const cborType = cborTypeOf(walk, value);
  if (!isTextOrBytes(cborType) || typeof value !== 'string') return { failure: typeFailure(walk, cborType, 'string') };
  return { text: value };
}

function failureAt(walk: Walk, schema: Schema, declared: string | undefined, value: unknown, depth: number): Failure | undefined {
  // Null leaves a Go value as it is; deeper than this the body was refused when read.
  if (value === null || value === undefined || depth > 512) return undefined;
  const shape = shapeOf(walk.defs, schema);
  switch (shape.definition) {
    case quantity: {
      // Quantity.UnmarshalCBOR reads a string (a number is no quantity in CBOR) and parses it trimmed.
      const read = stringFailure(walk, value);
      if ('failure' in read) return read.failure;
      return parseQuantity(read.text.trim()) === undefined ? { text: quantityFormatError } : undefined;
    }
    case time:
    case microTime: {
      const read = stringFailure(walk, value);
      if ('failure' in read) return read.failure;
      const parsed = shape.definition === time ? canonicalGoTime(read.text) : canonicalGoMicroTime(read.text);
      return parsed.error === undefined ? undefined : { text: parsed.error };
    }
    case intOrString:
      // A string, else an int32 (IntOrString.UnmarshalCBOR tries both).
      if (typeof value === 'string') return undefined;
      return integerFailure(walk, value, 'int32');
    default:
      break;
  }
  if (anything(shape)) return undefined;
  const s = shape.schema;
  const goTypeName = () => goType(walk.defs, schema, declared);
  if (s.properties !== undefined && (s.type === undefined || s.type === 'object')) {
    if (!isObject(value)) {
      const cborType = cborTypeOf(walk, value);
      return typeFailure(walk, cborType, goTypeName(), cborType === 'array' ? arrayToStruct : undefined);
    }
    const fieldTypes = shape.definition === undefined ? undefined : goFieldTypes[shape.definition];
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(s.properties, key)) continue;
      const property = s.properties[key]!;
      walk.path.push(key);
      const failure = failureAt(walk, property, fieldTypes?.[key], value[key], depth + 1);
      walk.path.pop();
      if (failure !== undefined) return failure;
    }
    return undefined;
  }
  switch (s.type) {
    case 'array': {
      if (!Array.isArray(value)) return typeFailure(walk, cborTypeOf(walk, value), goTypeName());
      if (s.items === undefined) return undefined;
      const item = elementOf(declared, false);
      for (let i = 0; i < value.length; i++) {
        walk.path.push(i);
        const failure = failureAt(walk, s.items, item, value[i], depth + 1);
        walk.path.pop();
        if (failure !== undefined) return failure;
      }
      return undefined;
    }
    case 'object': {
      if (!isObject(value)) return typeFailure(walk, cborTypeOf(walk, value), goTypeName());
      if (!isObject(s.additionalProperties)) return undefined;
      const element = elementOf(declared, true);
      for (const key of Object.keys(value)) {
        walk.path.push(key);
        const failure = failureAt(walk, s.additionalProperties, element, value[key], depth + 1);
        walk.path.pop();
        if (failure !== undefined) return failure;
      }
      return undefined;
    }
    case 'string':
      if (s.format === 'byte') return bytesFailure(walk, value, goTypeName());
      return typeof value === 'string' ? undefined : typeFailure(walk, cborTypeOf(walk, value), goTypeName());
    case 'integer':
      return integerFailure(walk, value, goTypeName());
    case 'number':
      return typeof value === 'number' ? undefined : typeFailure(walk, cborTypeOf(walk, value), goTypeName());
    case 'boolean':
      return typeof value === 'boolean' ? undefined : typeFailure(walk, cborTypeOf(walk, value), goTypeName());
    default:
      return undefined;
  }
}

/**
 * An item for a Go integer: a float (2.0 too) is a primitive no integer takes; an integer
 * beyond an int32's range overflows it (an int64's was checked when the body was read).
 */
function integerFailure(walk: Walk, value: unknown, goTypeName: string): Failure | undefined {
  const cborType = cborTypeOf(walk, value);
  if (typeof value !== 'number' || !isInteger(cborType)) return typeFailure(walk, cborType, goTypeName);
  return goTypeName === 'int32' ? int32Failure(walk, cborType, value, goTypeName) : undefined;
}

/**
 * An item for a Go []byte: a byte string holds base64 unless a tag says how it reads
 * (ByteStringExpectedBase64; a tagged one decoded to valid base64 already); a text string
 * is no []byte.
 */
function bytesFailure(walk: Walk, value: unknown, goTypeName: string): Failure | undefined {
  const cborType = cborTypeOf(walk, value);
  if (typeof value !== 'string' || cborType !== 'byte string') return typeFailure(walk, cborType, goTypeName);
  const decoded = canonicalGoBase64(value);
  return decoded.error === undefined ? undefined : { text: `cbor: failed to decode base64 from byte string: ${decoded.error}` };
}

/**
 * The index, in its map, of the key strict decoding fails on: a struct's first unknown key
 * (fxamacker/cbor stops that map there, whatever failed before in it), else the first
 * found in its fields' values in order; lists and Go maps answer their first item's.
 */
function unknownFieldIndex(defs: Definitions, schema: Schema, value: unknown, depth: number): number | undefined {
  if (typeof value !== 'object' || value === null || depth > 512) return undefined;
  const shape = shapeOf(defs, schema);
  if (anything(shape)) return undefined;
  const s = shape.schema;
  if (Array.isArray(value)) {
    if (s.items === undefined) return undefined;
    for (const item of value) {
      const index = unknownFieldIndex(defs, s.items, item, depth + 1);
      if (index !== undefined) return index;
    }
    return undefined;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (s.properties !== undefined) {
    const properties = s.properties;
    const own = keys.findIndex((key) => !Object.hasOwn(properties, key));
    if (own >= 0) return own;
    for (const key of keys) {
      const index = unknownFieldIndex(defs, properties[key]!, obj[key], depth + 1);
      if (index !== undefined) return index;
    }
    return undefined;
  }
  if (!isObject(s.additionalProperties)) return undefined;
  for (const key of keys) {
    const index = unknownFieldIndex(defs, s.additionalProperties, obj[key], depth + 1);
    if (index !== undefined) return index;
  }
  return undefined;
}
