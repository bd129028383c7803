// Pruning: dropping the fields a structural schema does not specify, as
// apiextensions-apiserver prunes custom resources (pkg/apiserver/schema/pruning) and as
// decoding into Go types drops what a built-in type does not have. The paths of what was
// dropped are the "unknown fields" of field validation. For built-in types, also what Go's
// encoding leaves out: the zero value of an `omitempty` scalar (`minReadySeconds: 0`), an
// empty `omitempty` list or map (`nodeSelector: {}`).

import { isObject } from '../api/json.ts';
import { builtinDefinitions, goEncodingOf, type GoEncoding } from './builtin/index.ts';
import { compileSchema, type SchemaNode } from './compiled.ts';
import { goScalarZero } from './go-type-errors.ts';
import type { Definitions, Schema } from './types.ts';

export interface PruneOptions {
  /**
   * The value is a whole object (a resource): apiVersion and kind are kept as they are and
   * metadata loses only keys ObjectMeta does not have, as for embedded resources.
   */
  isResourceRoot?: boolean;
  /**
   * Report unknown fields without removing them (Strict field validation refuses the
   * object as it came, so it need not be pruned). Nulls are dropped all the same.
   */
  keepUnknown?: boolean;
  /**
   * Leave the nulls the schema allows no null for (server-side apply of a custom resource:
   * its merged object is validated as it is, so such a null is refused). Nulls in metadata
   * go all the same: ObjectMeta is a Go value upstream, for custom resources too.
   */
  keepNulls?: boolean;
  /**
   * A built-in type's value: a null map entry is its value's zero, as Go decodes it into the
   * map (`nodeSelector: {a: null}` is `{a: ""}`), where its type has a plain zero.
   */
  goValue?: boolean;
}

const objectMeta = builtinDefinitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']!;
/** The fields of ObjectMeta; everything else under a resource's metadata is unknown. */
const objectMetaFields: ReadonlySet<string> = new Set(Object.keys(objectMeta.properties!));
/**
 * ObjectMeta's omitempty lists and maps a resource drops when empty (labels: {} after the
 * last label went), but managedFields: an empty list there asks the field manager to reset
 * them. Its zero scalars (name: "") stay, for the Store's own checks of name and namespace.
 */
const objectMetaOmitted: GoEncoding | undefined = (() => {
  const omitted = goEncodingOf(objectMeta);
  if (omitted === undefined) return undefined;
  return { zero: new Set(), emptyList: new Set([...omitted.emptyList].filter((f) => f !== 'managedFields')), emptyMap: omitted.emptyMap, written: [], nilWhenEmpty: [] };
})();

/**
 * Removes from `value` (in place) every object field `schema` does not specify, unless an
 * enclosing schema has `x-kubernetes-preserve-unknown-fields`, and answers their paths in
 * document order (`spec.template.spec.containers[0].foo`, `metadata.bogus`). A null where
 * the schema allows no null and gives no default, for a property or a map entry, is dropped
 * too, unreported, as upstream drops it before validation (apiextensions'
 * PruneNonNullableNullsWithoutDefaults when decoding a custom resource; a Go value has no
 * such null; kubectl sends `creationTimestamp: null`).
 */
export function prune(defs: Definitions, schema: Schema, value: unknown, opts: PruneOptions = {}): string[] {
  const ctx: Context = { remove: !(opts.keepUnknown ?? false), dropNulls: !(opts.keepNulls ?? false), goValue: opts.goValue ?? false, pruned: [], segments: [] };
  pruneValue(ctx, compileSchema(defs, schema), value, opts.isResourceRoot ?? false);
  return ctx.pruned;
}

interface Context {
  remove: boolean;
  dropNulls: boolean;
  goValue: boolean;
  pruned: string[];
  /** Where the walk is: property names and item indices, made a path only for what is dropped. */
  segments: (string | number)[];
}

function drop(ctx: Context, obj: Record<string, unknown>, key: string): void {
  let path = '';
  for (const segment of ctx.segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  ctx.pruned.push(path === '' ? key : `${path}.${key}`);
  if (ctx.remove) delete obj[key];
}

function pruneValue(ctx: Context, node: SchemaNode | undefined, value: unknown, resourceRoot: boolean): void {
  const segments = ctx.segments;
  if (Array.isArray(value)) {
    // Inside preserved fields, items without a schema stay as they are.
    if (node?.preserveUnknownFields === true && node.items === undefined) return;
    const items = node?.items;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (typeof item !== 'object' || item === null) continue;
      segments.push(i);
      pruneValue(ctx, items, item, false);
      segments.pop();
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  if (node === undefined) {
    for (const key of Object.keys(obj)) drop(ctx, obj, key);
    return;
  }
  const keepOthers = node.preserveUnknownFields || node.anyAdditional;
  const embedded = resourceRoot || node.embeddedResource;
  const hasProperties = node.schema.properties !== undefined;
  const additional = node.additional;
  const omitted = goEncodingOf(node.schema);
  for (const key in obj) {
    // One read of the member, first: a second read site taken only for metadata never got
    // type feedback, and optimized code deoptimized on it at every resource, for ever.
    const item = obj[key];
    if (embedded) {
      if (key === 'apiVersion' || key === 'kind') continue;
      if (key === 'metadata') {
        segments.push(key);
        pruneObjectMeta(ctx, item, resourceRoot);
        segments.pop();
        continue;
      }
    }
    const property = hasProperties ? node.property(key) : undefined;
    if (property !== undefined) {
      if (item === null) {
        if (ctx.dropNulls && !property.nullable && property.defaultValue === undefined) delete obj[key];
      } else if (omitted !== undefined && leftOutWhenEmpty(omitted, key, item, property.schema.type)) {
        if (Array.isArray(item)) noteEmptyList(obj, key);
        delete obj[key];
      } else if (typeof item === 'object') {
        segments.push(key);
        pruneValue(ctx, property, item, false);
        segments.pop();
      }
    } else if (additional !== undefined) {
      if (item === null) {
        const zero = ctx.goValue && additional.unionOf === undefined ? goScalarZero(additional.schema) : undefined;
        if (zero !== undefined) obj[key] = zero;
        else if (ctx.dropNulls && !additional.nullable && additional.defaultValue === undefined) delete obj[key];
      } else if (typeof item === 'object') {
        segments.push(key);
        pruneValue(ctx, additional, item, false);
        segments.pop();
      }
    } else if (!keepOthers) {
      drop(ctx, obj, key);
    }
  }
}

/**
 * The empty `omitempty` lists pruning left out, by the object that held them. Go decodes `[]`
 * into an empty slice that is not nil: a type's defaulting that fills only a nil one
 * (autoscaling/v2's copyHPAScalingRules) leaves it empty, for validation to judge, though
 * encoding leaves it out like an absent one.
 */
const emptyListsLeftOut = new WeakMap<object, Set<string>>();

function noteEmptyList(obj: object, key: string): void {
  const keys = emptyListsLeftOut.get(obj);
  if (keys === undefined) emptyListsLeftOut.set(obj, new Set([key]));
  else keys.add(key);
}

/** Whether `obj` held an empty list at `key` that pruning left out (the client sent `[]`). */
export function sentEmptyList(obj: object, key: string): boolean {
  return emptyListsLeftOut.get(obj)?.has(key) ?? false;
}

/** The zero value of a scalar schema type. */
const zeroOfType: Record<string, unknown> = { integer: 0, number: 0, string: '', boolean: false };

/**
 * Whether Go's JSON leaves `item` out: a zero `omitempty` scalar, an empty `omitempty` list
 * or map. A zero of another type (`hostPID: ""`) is no zero here: it is a type error.
 */
function leftOutWhenEmpty(omitted: GoEncoding, key: string, item: unknown, type?: unknown): boolean {
  if (item === 0 || item === '' || item === false) return omitted.zero.has(key) && zeroOfType[type as string] === item;
  if (Array.isArray(item)) return item.length === 0 && omitted.emptyList.has(key);
  if (isObject(item)) return omitted.emptyMap.has(key) && Object.keys(item).length === 0;
  return false;
}

/**
 * Metadata keeps the keys ObjectMeta has, but for nulls (none survives a Go value) and, at
 * a resource's root, the empty lists and maps Go's omitempty leaves out (custom resources'
 * metadata too: upstream coerces it through ObjectMeta); what they hold is ObjectMeta
 * validation's business.
 */
function pruneObjectMeta(ctx: Context, meta: unknown, resourceRoot: boolean): void {
  if (!isObject(meta)) return;
  for (const key of Object.keys(meta)) {
    if (!objectMetaFields.has(key)) drop(ctx, meta, key);
    else if (meta[key] === null) delete meta[key];
    else if (resourceRoot && objectMetaOmitted !== undefined && leftOutWhenEmpty(objectMetaOmitted, key, meta[key])) delete meta[key];
  }
}
