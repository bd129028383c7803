// An object's metadata as decoding it into metav1.ObjectMeta checks it: every member of
// the wrong JSON type is Go's UnmarshalTypeError (`json: cannot unmarshal number into Go
// struct field ObjectMeta.metadata.generation of type int64`), and a time that is not a
// string fails Time's own decoding. Kept for every write, custom resources' too (upstream
// decodes their metadata into the same struct): a wrong-typed value in a field the
// server sets anyway was dropped, and one in a field it keeps was stored (an owner
// reference's uid: 7, a managed fields entry's manager: ["x"]), or crashed validation.

import { canonicalGoTime } from './go-time.ts';
import { goFieldTypeError, goJsonKind, isGoInt64, isObject } from './json.ts';
import type { NumberTexts } from './number-forms.ts';

type GoType = 'string' | 'types.UID' | 'int64' | 'bool' | 'time' | 'fieldsV1' | 'v1.ManagedFieldsOperationType';

const objectMetaFields: Record<string, GoType> = {
  name: 'string', generateName: 'string', namespace: 'string', selfLink: 'string', uid: 'types.UID', resourceVersion: 'string',
  generation: 'int64', creationTimestamp: 'time', deletionTimestamp: 'time', deletionGracePeriodSeconds: 'int64',
};
const ownerReferenceFields: Record<string, GoType> = {
  apiVersion: 'string', kind: 'string', name: 'string', uid: 'types.UID', controller: 'bool', blockOwnerDeletion: 'bool',
};
const managedFieldsEntryFields: Record<string, GoType> = {
  manager: 'string', operation: 'v1.ManagedFieldsOperationType', apiVersion: 'string', time: 'time', fieldsType: 'string', fieldsV1: 'fieldsV1', subresource: 'string',
};

/**
 * Go's error for one member of a struct, or undefined when it decodes. `text`: the member's
 * number as the body wrote it, with a fraction or an exponent (which no int64 takes).
 */
function memberError(value: unknown, type: GoType, struct: string, path: string, text?: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  switch (type) {
    case 'string':
    case 'types.UID':
    case 'v1.ManagedFieldsOperationType':
      return typeof value === 'string' ? undefined : goFieldTypeError(value, struct, path, type);
    case 'bool':
      return typeof value === 'boolean' ? undefined : goFieldTypeError(value, struct, path, type);
    case 'int64':
      return isGoInt64(value) && text === undefined ? undefined : goFieldTypeError(value, struct, path, type, text);
    case 'time':
      // Time decodes itself: a value that is not a string fails its decoding of one, out of context.
      return typeof value === 'string' ? undefined : `json: cannot unmarshal ${goJsonKind(value)} into Go value of type string`;
    case 'fieldsV1':
      return undefined;
  }
}

/** The first error of the members of a struct held at `path`. */
function structError(value: Record<string, unknown>, fields: Record<string, GoType>, struct: string, path: string, texts: NumberTexts | undefined): string | undefined {
  for (const key in fields) {
    const error = memberError(value[key], fields[key]!, struct, `${path}.${key}`, texts?.(value, key));
    if (error !== undefined) return error;
  }
  return undefined;
}

/** A list of structs or strings held by ObjectMeta. */
function listError(value: unknown, path: string, element: string, fields?: Record<string, GoType>, elementStruct?: string, texts?: NumberTexts): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return goFieldTypeError(value, 'ObjectMeta', path, `[]${element}`);
  for (const item of value) {
    if (item === null) continue;
    if (fields === undefined) {
      if (typeof item !== 'string') return goFieldTypeError(item, 'ObjectMeta', path, element);
      continue;
    }
    if (!isObject(item)) return goFieldTypeError(item, 'ObjectMeta', path, element);
    const error = structError(item, fields, elementStruct!, path, texts);
    if (error !== undefined) return error;
  }
  return undefined;
}

function stringMapError(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) return goFieldTypeError(value, 'ObjectMeta', path, 'map[string]string');
  for (const key in value) {
    const v = value[key];
    if (v !== null && typeof v !== 'string') return goFieldTypeError(v, 'ObjectMeta', path, 'string');
  }
  return undefined;
}

/** The metadata's times: its own two and each managed fields entry's. */
function timesOf(meta: Record<string, unknown>): unknown[] {
  return [meta.creationTimestamp, meta.deletionTimestamp, ...(Array.isArray(meta.managedFields) ? meta.managedFields.map((e) => (isObject(e) ? e.time : undefined)) : [])];
}

/**
 * Go's decoding error for an object's metadata, or undefined when it decodes. A time that
 * is not a string stops Go's decoder wherever it is, so those come first; of the others,
 * the first in ObjectMeta's order. `texts`: the body's numbers written with a fraction or an
 * exponent, for a built-in type's body (a custom resource's metadata is written back as
 * JSON before it is decoded into ObjectMeta: `1.0` is `1` by then).
 */
export function objectMetaDecodeError(meta: unknown, texts?: NumberTexts): string | undefined {
  if (!isObject(meta)) return undefined;
  const times = timesOf(meta);
  for (const time of times) {
    const error = memberError(time, 'time', '', '');
    if (error !== undefined) return error;
  }
  return structError(meta, objectMetaFields, 'ObjectMeta', 'metadata', texts)
    ?? stringMapError(meta.labels, 'metadata.labels')
    ?? stringMapError(meta.annotations, 'metadata.annotations')
    ?? listError(meta.ownerReferences, 'metadata.ownerReferences', 'v1.OwnerReference', ownerReferenceFields, 'OwnerReference', texts)
    ?? listError(meta.finalizers, 'metadata.finalizers', 'string')
    ?? listError(meta.managedFields, 'metadata.managedFields', 'v1.ManagedFieldsEntry', managedFieldsEntryFields, 'ManagedFieldsEntry');
}

/**
 * Go's parse error for the first of the metadata's times that time.Parse refuses, for
 * bodies no Store decodes (a Store's decoding parses every time of its type, these
 * among them, and writes them back as Go does).
 */
export function objectMetaTimeError(meta: unknown): string | undefined {
  if (!isObject(meta)) return undefined;
  const times = timesOf(meta);
  for (const time of times) {
    if (typeof time !== 'string') continue;
    const parsed = canonicalGoTime(time);
    if (parsed.error !== undefined) return parsed.error;
  }
  return undefined;
}
