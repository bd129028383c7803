// Small constructors for writing the built-in schemas compactly. Every helper returns
// a fresh plain Schema object; none is shared between two places in the tree.

import type { Schema } from '../types.ts';

export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
export const CORE = 'io.k8s.api.core.v1.';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';

/** `#/components/schemas/<name>`, the form `$ref`s take inside Definitions. */
export function schemaRef(name: string): string {
  return `#/components/schemas/${name}`;
}

function described(schema: Schema, description: string | undefined): Schema {
  if (description !== undefined) schema.description = description;
  return schema;
}

export function str(description?: string): Schema {
  return described({ type: 'string' }, description);
}

/** A string restricted to the values upstream lists for the field (its `+enum` type). */
export function strEnum(values: string[], description?: string): Schema {
  return described({ type: 'string', enum: [...values] }, description);
}

export function int32(description?: string): Schema {
  return described({ type: 'integer', format: 'int32' }, description);
}

export function int64(description?: string): Schema {
  return described({ type: 'integer', format: 'int64' }, description);
}

export function bool(description?: string): Schema {
  return described({ type: 'boolean' }, description);
}

/** Base64 of arbitrary bytes (Go `[]byte`). */
export function bytes(description?: string): Schema {
  return described({ type: 'string', format: 'byte' }, description);
}

/** A reference to another definition; a description here documents the field, not the type. */
export function ref(name: string, description?: string): Schema {
  return described({ $ref: schemaRef(name) }, description);
}

export function time(description?: string): Schema {
  return ref(META + 'Time', description);
}

export function microTime(description?: string): Schema {
  return ref(META + 'MicroTime', description);
}

export function quantity(description?: string): Schema {
  return ref(QUANTITY, description);
}

export function intOrString(description?: string): Schema {
  return ref(INT_OR_STRING, description);
}

export function objectMeta(description = 'Standard object metadata.'): Schema {
  return ref(META + 'ObjectMeta', description);
}

export function labelSelector(description?: string): Schema {
  return ref(META + 'LabelSelector', description);
}

/** map[string]string. */
export function stringMap(description?: string, mapType?: 'atomic' | 'granular'): Schema {
  const schema: Schema = described({ type: 'object', additionalProperties: { type: 'string' } }, description);
  if (mapType !== undefined) schema['x-kubernetes-map-type'] = mapType;
  return schema;
}

/** map[string]V for any value schema. */
export function mapOf(values: Schema, description?: string): Schema {
  return described({ type: 'object', additionalProperties: values }, description);
}

/** A ResourceList: resource name → Quantity. */
export function resourceList(description?: string): Schema {
  return mapOf(quantity(), description);
}

/** A list without topology markers (unstructured merge semantics). */
function array(items: Schema, description?: string): Schema {
  return described({ type: 'array', items }, description);
}

/** `+listType=atomic`: replaced as a whole by apply and strategic merge patch. */
export function atomic(items: Schema, description?: string): Schema {
  return described({ type: 'array', items, 'x-kubernetes-list-type': 'atomic' }, description);
}

/** `+listType=set`: a set of scalars. */
export function set(items: Schema, description?: string, patchStrategy?: string): Schema {
  const schema = described({ type: 'array', items, 'x-kubernetes-list-type': 'set' }, description);
  if (patchStrategy !== undefined) schema['x-kubernetes-patch-strategy'] = patchStrategy;
  return schema;
}

/** `+listType=map` with its keys, and no strategic-merge markers. */
export function mapList(items: Schema, keys: string[], description?: string): Schema {
  return described(
    { type: 'array', items, 'x-kubernetes-list-map-keys': [...keys], 'x-kubernetes-list-type': 'map' },
    description,
  );
}

export interface MergeListOptions {
  /** `+listMapKey`s when they differ from the merge key (container ports: containerPort and protocol). */
  mapKeys?: string[];
  /** `+listType` when it is not "map" (pod hostIPs merge on ip but are atomic for apply). */
  listType?: 'atomic' | 'set' | 'map';
  /** `+patchStrategy`, "merge" unless told ("merge,retainKeys" for volumes). */
  strategy?: string;
}

/**
 * A list strategic merge patch merges by `mergeKey` (`+patchMergeKey`), normally also a
 * `+listType=map` keyed on the same field for apply.
 */
export function mergeList(items: Schema, mergeKey: string, description?: string, opts: MergeListOptions = {}): Schema {
  const listType = opts.listType ?? 'map';
  const schema: Schema = { type: 'array', items };
  described(schema, description);
  if (listType === 'map') schema['x-kubernetes-list-map-keys'] = [...(opts.mapKeys ?? [mergeKey])];
  schema['x-kubernetes-list-type'] = listType;
  schema['x-kubernetes-patch-merge-key'] = mergeKey;
  schema['x-kubernetes-patch-strategy'] = opts.strategy ?? 'merge';
  return schema;
}

export interface ObjectOptions {
  required?: string[];
  /** `+structType=atomic` becomes `x-kubernetes-map-type: atomic`. */
  mapType?: 'atomic' | 'granular';
}

export function object(description: string | undefined, properties: Record<string, Schema>, opts: ObjectOptions = {}): Schema {
  const schema: Schema = { type: 'object' };
  described(schema, description);
  schema.properties = properties;
  if (opts.required !== undefined && opts.required.length > 0) schema.required = [...opts.required];
  if (opts.mapType !== undefined) schema['x-kubernetes-map-type'] = opts.mapType;
  return schema;
}

export interface GroupVersion {
  group: string;
  version: string;
}

function apiVersionField(): Schema {
  return str('The versioned schema of this object: "group/version", or only the version for the core group. Servers may reject versions they do not recognise.');
}

function kindField(): Schema {
  return str('The kind of object, in CamelCase. Servers may infer it from the endpoint the object was sent to; it cannot be updated.');
}

/**
 * A top-level kind: apiVersion, kind and metadata first, then its own fields, with
 * `x-kubernetes-group-version-kind` so clients can find it by GVK.
 */
export function topLevel(
  gv: GroupVersion,
  kind: string,
  description: string,
  properties: Record<string, Schema>,
  opts: ObjectOptions & { metadata?: Schema } = {},
): Schema {
  const schema = object(
    description,
    { apiVersion: apiVersionField(), kind: kindField(), metadata: opts.metadata ?? objectMeta(), ...properties },
    opts,
  );
  schema['x-kubernetes-group-version-kind'] = [{ group: gv.group, kind, version: gv.version }];
  return schema;
}

/** A `<Kind>List` with `items` of the named definition. */
export function listOf(gv: GroupVersion, kind: string, itemsDefinition: string, itemsDescription: string): Schema {
  const schema = object(
    `${kind}List is a list of ${kind} objects.`,
    {
      apiVersion: apiVersionField(),
      items: array(ref(itemsDefinition), itemsDescription),
      kind: kindField(),
      metadata: ref(META + 'ListMeta', 'Standard list metadata.'),
    },
    { required: ['items'] },
  );
  schema['x-kubernetes-group-version-kind'] = [{ group: gv.group, kind: `${kind}List`, version: gv.version }];
  return schema;
}

/** Fields shared by the apiVersion/kind pair of non-top-level objects that still carry TypeMeta. */
export function typeMetaFields(): Record<string, Schema> {
  return { apiVersion: apiVersionField(), kind: kindField() };
}
