// A built-in type's body decoded as Go's encoding/json decodes it into the type, for what
// the schema calls a wrong type: a JSON value of another kind than the field's Go type
// fails decoding (kube-apiserver answers 400: `Deployment in version "v1" cannot be
// handled as a Deployment: json: cannot unmarshal number into Go struct field
// EnvVar.spec.template.spec.containers.env.value of type string`), while a null in a
// list or a map is the element's zero value (`args: [null]` is `args: [""]`). Only a
// write the schema found ill-typed pays for this walk.
//
// Go names a named type by its name (`v1.Protocol`, `[]v1.PersistentVolumeAccessMode`),
// which the schema does not keep: go-field-types.ts has them, from the Go types.
//
// A CBOR body is decoded by fxamacker/cbor, which words the error its own way: the CBOR
// type of the item, and the field of the outermost struct, each enclosing struct naming
// the error again on its way out (`cbor: cannot unmarshal UTF-8 text string into Go struct
// field v1.Deployment.spec of type int32`).

import { goFieldTypeError, isObject } from '../api/json.ts';
import { goFieldTypes } from './go-field-types.ts';
import { refName } from './resolve.ts';
import type { Definitions, Schema } from './types.ts';

/** Definitions that decode themselves (their own UnmarshalJSON): what they accept is theirs to say. */
const selfDecoding: Record<string, string> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'resource.Quantity',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'v1.MicroTime',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': 'v1.FieldsV1',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'intstr.IntOrString',
  'io.k8s.apimachinery.pkg.runtime.RawExtension': 'runtime.RawExtension',
};

/** A schema's definition name when it stands for one (`$ref`, or v3's `allOf: [{$ref}]`). */
function definitionOf(schema: Schema): string | undefined {
  const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0]!.$ref : undefined);
  return ref === undefined ? undefined : refName(ref);
}

/** Go's name of a definition's type, package and name (io.k8s.api.apps.v1.DeploymentSpec → v1.DeploymentSpec). */
export function goTypeOfDefinition(name: string): string {
  const parts = name.split('.');
  return `${parts.at(-2)}.${parts.at(-1)}`;
}

export interface Shape {
  /** The definition the schema stands for, if any. */
  definition?: string;
  schema: Schema;
}

/** What a schema stands for once its references are followed: the definition named last, and its schema. */
export function shapeOf(defs: Definitions, schema: Schema): Shape {
  let current = schema;
  let definition: string | undefined;
  for (let hops = 0; hops < 64; hops++) {
    const name = definitionOf(current);
    if (name === undefined || defs[name] === undefined) break;
    definition = name;
    current = defs[name]!;
  }
  return definition === undefined ? { schema: current } : { definition, schema: current };
}

/** Whether Go decodes what is there without asking the JSON's kind (self-decoding types, any-JSON fields). */
export function anything(shape: Shape): boolean {
  if (shape.definition !== undefined && shape.definition in selfDecoding) return true;
  const s = shape.schema;
  return s['x-kubernetes-preserve-unknown-fields'] === true || s['x-kubernetes-int-or-string'] === true || (s.type === undefined && s.properties === undefined);
}

/**
 * The Go type a field of this schema holds, as reflect names it in decoding errors:
 * `declared` when the Go types tell it (go-field-types.ts), else from the schema.
 */
export function goType(defs: Definitions, schema: Schema, declared?: string, depth = 0): string {
  if (declared !== undefined) return declared;
  const shape = shapeOf(defs, schema);
  if (shape.definition !== undefined) return selfDecoding[shape.definition] ?? goTypeOfDefinition(shape.definition);
  const s = shape.schema;
  if (depth > 32) return 'interface {}';
  switch (s.type) {
    case 'array':
      return `[]${s.items === undefined ? 'interface {}' : goType(defs, s.items, undefined, depth + 1)}`;
    case 'object': {
      const values = isObject(s.additionalProperties) ? s.additionalProperties : undefined;
      if (values === undefined) return 'map[string]interface {}';
      // core/v1's quantities by resource name are all its named map type.
      if (definitionOf(values) === 'io.k8s.apimachinery.pkg.api.resource.Quantity') return 'v1.ResourceList';
      return `map[string]${goType(defs, values, undefined, depth + 1)}`;
    }
    case 'string':
      return s.format === 'byte' ? '[]uint8' : 'string';
    case 'integer':
      return s.format === 'int32' ? 'int32' : s.format === 'int64' ? 'int64' : 'int';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    default:
      return 'interface {}';
  }
}

/** Whether a JSON value (not null) has the kind Go's decoding of this shape takes. */
function kindFits(shape: Shape, value: unknown): boolean {
  const s = shape.schema;
  switch (s.type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value) || (s.format === 'byte' && typeof value === 'string');
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      // Infinity is a number past a float64's range in the body (1e400), which Go refuses.
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    default:
      // A struct's schema may leave its type out.
      return s.properties === undefined || isObject(value);
  }
}

/** The zero value of a scalar schema (a string's, a number's, a bool's; not a []byte's, which is nil); undefined for others. */
export function goScalarZero(schema: Schema): unknown {
  switch (schema.type) {
    case 'string':
      return schema.format === 'byte' ? undefined : '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}

/** The zero value Go gives a list's or map's element decoded from null; undefined where null stays. */
function zeroOf(shape: Shape): unknown {
  if (anything(shape)) return undefined;
  // A struct's zero value; a null slice or map stays null.
  return goScalarZero(shape.schema) ?? (shape.schema.type !== 'array' && shape.schema.properties !== undefined ? {} : undefined);
}

/**
 * Replaces the nulls in lists and maps with their elements' zero values, as decoding into
 * the Go type leaves them; true when it replaced any.
 */
export function zeroNullElements(defs: Definitions, schema: Schema, value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object' || depth > 512) return false;
  const shape = shapeOf(defs, schema);
  if (anything(shape)) return false;
  const s = shape.schema;
  const holder = value as Record<string | number, unknown>;
  // A list's items or a map's values: each null one zeroed, the others looked into.
  const elements = (keys: readonly (string | number)[], element: Schema): boolean => {
    const elementShape = shapeOf(defs, element);
    let changed = false;
    for (const key of keys) {
      const zero = holder[key] === null ? zeroOf(elementShape) : undefined;
      if (zero !== undefined) holder[key] = zero;
      if (zero !== undefined || zeroNullElements(defs, element, holder[key], depth + 1)) changed = true;
    }
    return changed;
  };
  if (Array.isArray(value)) return s.items !== undefined && elements(value.map((_, i) => i), s.items);
  if (s.properties !== undefined) {
    let changed = false;
    for (const key of Object.keys(holder)) {
      const property = s.properties[key];
      if (property !== undefined && zeroNullElements(defs, property, holder[key], depth + 1)) changed = true;
    }
    return changed;
  }
  return isObject(s.additionalProperties) && elements(Object.keys(holder), s.additionalProperties);
}

/**
 * A CBOR body's data items by path (map keys and list indexes from the root): the CBOR
 * type of the item there as fxamacker/cbor names it (`UTF-8 text string`, `byte string`,
 * `positive integer`, `primitives`...), or undefined where the path leads nowhere.
 */
export type CborTypeAt = (path: readonly (string | number)[]) => string | undefined;

/** A value whose kind the field's Go type cannot take, and where it is. */
interface KindMismatch {
  value: unknown;
  /** The struct holding the field (Go's name without its package) and the field's JSON path from the root, without indexes or map keys. */
  struct: string;
  fieldPath: string;
  /** The full path from the root, keys and indexes. */
  at: (string | number)[];
  goType: string;
  /** The Go type is a struct (fxamacker/cbor says why an array does not decode into one). */
  toStruct: boolean;
}

/**
 * Go's decoding error for the first value, in the body's order, whose kind the field's Go
 * type cannot take, or undefined. From JSON, encoding/json's UnmarshalTypeError: the struct
 * holding the field, the field's JSON path from the root without indexes or map keys, the
 * Go type. From CBOR (`cbor` tells its items' types), fxamacker/cbor's.
 */
export function goTypeError(defs: Definitions, schema: Schema, value: unknown, cbor?: CborTypeAt): string | undefined {
  const root = shapeOf(defs, schema);
  const struct = root.definition === undefined ? '' : root.definition.slice(root.definition.lastIndexOf('.') + 1);
  const found = typeErrorAt(defs, schema, value, { struct, fieldPath: [], at: [] }, undefined, 0);
  if (found === undefined) return undefined;
  if (cbor === undefined || root.definition === undefined) return goFieldTypeError(found.value, found.struct, found.fieldPath, found.goType);
  const cborType = cbor(found.at) ?? cborTypeOfValue(found.value);
  const why = cborType === 'array' && found.toStruct ? arrayToStruct : undefined;
  return cborUnmarshalTypeError(cborType, `${goTypeOfDefinition(root.definition)}.${String(found.at[0])}`, found.goType, why);
}

/** What fxamacker/cbor adds when an array meets a struct (decoding it from an array takes the `toarray` option). */
export const arrayToStruct = 'cannot decode CBOR array to struct without toarray option';

/**
 * fxamacker/cbor's UnmarshalTypeError for a value inside a struct field (`field`: the
 * struct and the field, `v1.Deployment.spec`), with what it adds in parentheses: each
 * struct the value is in names the error again as it returns, so the outermost one's
 * field is what it says.
 */
export function cborUnmarshalTypeError(cborType: string, field: string, goType: string, detail?: string): string {
  return `cbor: cannot unmarshal ${cborType} into Go struct field ${field} of type ${goType}${detail === undefined ? '' : ` (${detail})`}`;
}

/** The CBOR type a value most likely had, for a path the body no longer shows: strings as Kubernetes' encoders write them. */
export function cborTypeOfValue(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return 'byte string';
  if (typeof value === 'number') return Number.isInteger(value) ? (value < 0 ? 'negative integer' : 'positive integer') : 'primitives';
  if (isObject(value)) return 'map';
  return 'primitives';
}

interface Where {
  /** The struct holding the value's field. */
  struct: string;
  /** JSON field names from the root. */
  fieldPath: string[];
  /** Keys and indexes from the root. */
  at: (string | number)[];
}

/** The element type of a declared Go slice or map type (`[]v1.Capability` → `v1.Capability`); undefined for a named one. */
export function elementOf(declared: string | undefined, map: boolean): string | undefined {
  if (declared === undefined) return undefined;
  if (!map) return declared.startsWith('[]') ? declared.slice(2) : undefined;
  return declared.startsWith('map[') ? declared.slice(declared.indexOf(']') + 1) : undefined;
}

function typeErrorAt(defs: Definitions, schema: Schema, value: unknown, where: Where, declared: string | undefined, depth: number): KindMismatch | undefined {
  // Null leaves a field as it is; deeper than this the body was refused before.
  if (value === null || value === undefined || depth > 512) return undefined;
  const shape = shapeOf(defs, schema);
  if (anything(shape)) return undefined;
  const s = shape.schema;
  if (!kindFits(shape, value)) {
    return {
      value, struct: where.struct, fieldPath: where.fieldPath.join('.'), at: [...where.at],
      goType: goType(defs, schema, declared), toStruct: s.properties !== undefined,
    };
  }
  if (Array.isArray(value)) {
    if (s.items === undefined) return undefined;
    const item = elementOf(declared, false);
    for (let i = 0; i < value.length; i++) {
      where.at.push(i);
      const error = typeErrorAt(defs, s.items, value[i], where, item, depth + 1);
      where.at.pop();
      if (error !== undefined) return error;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  if (s.properties !== undefined) {
    // The fields are the definition's struct's; errors inside name it.
    const struct = shape.definition === undefined ? where.struct : shape.definition.slice(shape.definition.lastIndexOf('.') + 1);
    const fieldTypes = shape.definition === undefined ? undefined : goFieldTypes[shape.definition];
    const outer = where.struct;
    where.struct = struct;
    try {
      for (const key of Object.keys(value)) {
        const property = s.properties[key];
        if (property === undefined) continue;
        where.fieldPath.push(key);
        where.at.push(key);
        const error = typeErrorAt(defs, property, value[key], where, fieldTypes?.[key], depth + 1);
        where.fieldPath.pop();
        where.at.pop();
        if (error !== undefined) return error;
      }
    } finally {
      where.struct = outer;
    }
    return undefined;
  }
  if (isObject(s.additionalProperties)) {
    const element = elementOf(declared, true);
    for (const key of Object.keys(value)) {
      where.at.push(key);
      const error = typeErrorAt(defs, s.additionalProperties, value[key], where, element, depth + 1);
      where.at.pop();
      if (error !== undefined) return error;
    }
  }
  return undefined;
}
