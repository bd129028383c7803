// The merge topology of a type, compiled from its structural schema the way
// k8s.io/kube-openapi's schemaconv builds structured-merge-diff schemas:
//
// - lists: `x-kubernetes-list-type` atomic | set | map (keyed by `x-kubernetes-list-map-keys`);
//   without it, built-in types' `x-kubernetes-patch-strategy` merge (or merge,retainKeys)
//   makes a list map keyed by `x-kubernetes-patch-merge-key`, or a set without a merge key;
//   anything else is atomic;
// - maps and structs: `x-kubernetes-map-type` atomic, otherwise granular;
// - untyped data (no schema, `x-kubernetes-preserve-unknown-fields`, an object with neither
//   properties nor additionalProperties): maps granular, lists atomic, as
//   structured-merge-diff's "deduced" type;
// - a struct with properties and no additionalProperties declares all its keys: others are
//   refused in an apply configuration ("field not declared in schema"), unless
//   `x-kubernetes-preserve-unknown-fields` is set on it or on a schema it is written inside
//   (not through a `$ref`: a referenced definition starts afresh, as schemaconv converts it
//   as a named type of its own).
//
// Markers written beside a `$ref` (a field's own `x-kubernetes-map-type`) win over the
// referenced definition's.

import type { Definitions, Schema } from '../schema/types.ts';
import { refName } from '../schema/resolve.ts';
import { compareStrings, goString } from './field-path.ts';

type ListType = 'atomic' | 'set' | 'map';

export interface Topology {
  /** What values of this type are: a scalar leaf, a map or struct, a list, or anything ("deduced"). */
  readonly kind: 'scalar' | 'map' | 'list' | 'any';
  /**
   * Scalars: what structured-merge-diff's typed conversion accepts there (numeric: an int or
   * a float; untyped: any scalar, an IntOrString); undefined where it looks at nothing (a
   * Quantity's string-or-number, which its own decoding judges).
   */
  readonly scalar?: ScalarType;
  /** Maps: the whole map is one field. */
  readonly atomic: boolean;
  /** Structs: the declared fields. Keys not declared here are map entries. */
  readonly fields: ReadonlyMap<string, Topology> | undefined;
  /** Maps: the type of undeclared keys (additionalProperties, or untyped). */
  readonly elem: Topology;
  /**
   * Structs: keys other than `fields` are not declared (upstream's empty element type):
   * an apply configuration holding one is refused. `elem` is then untyped, for values
   * written without apply.
   */
  readonly declaredOnly: boolean;
  /** Lists: how items are identified. */
  readonly listType: ListType;
  /** List maps: the key fields, sorted. */
  readonly keys: readonly string[];
  /** List maps: the key fields as JSON strings. */
  readonly quotedKeys: readonly string[];
  /** List maps: defaults of the key fields, used when an item omits one. */
  readonly keyDefaults: readonly unknown[];
  /** Lists: the items' type. */
  readonly item: Topology;
}

interface MutableTopology {
  kind: Topology['kind'];
  atomic: boolean;
  fields: Map<string, Topology> | undefined;
  elem: Topology;
  declaredOnly: boolean;
  listType: ListType;
  keys: string[];
  quotedKeys: string[];
  keyDefaults: unknown[];
  item: Topology;
}

function makeAny(): Topology {
  const any: MutableTopology = {
    kind: 'any', atomic: false, fields: undefined, elem: undefined as unknown as Topology, declaredOnly: false,
    listType: 'atomic', keys: [], quotedKeys: [], keyDefaults: [], item: undefined as unknown as Topology,
  };
  any.elem = any;
  any.item = any;
  return Object.freeze(any);
}

/** Untyped data: maps granular (with untyped values), lists atomic, scalars leaves. */
const untyped: Topology = makeAny();

export type ScalarType = 'numeric' | 'string' | 'boolean' | 'untyped';

/** A scalar leaf, of a type or (undefined) of any. */
function scalarOf(type: ScalarType | undefined): Topology {
  return Object.freeze({
    kind: 'scalar', scalar: type, atomic: true, fields: undefined, elem: untyped, declaredOnly: false, listType: 'atomic', keys: [], quotedKeys: [], keyDefaults: [], item: untyped,
  });
}

const scalars = {
  integer: scalarOf('numeric'), number: scalarOf('numeric'), string: scalarOf('string'), boolean: scalarOf('boolean'),
  intOrString: scalarOf('untyped'), unchecked: scalarOf(undefined),
} as const;

const markerNames = [
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
] as const;

function referenceOf(schema: Schema): string | undefined {
  if (schema.$ref !== undefined) return schema.$ref;
  if (schema.allOf?.length === 1 && schema.allOf[0]!.$ref !== undefined) return schema.allOf[0]!.$ref;
  return undefined;
}

const primitiveTypes = new Set(['string', 'integer', 'number', 'boolean']);

/**
 * The topology of values described by `schema`, resolving `$ref`s in `defs`. Compile it
 * once per type (a ResourceType's schema never changes) and pass it to every operation.
 */
export function compileTopology(schema: Schema | undefined, defs: Definitions = {}): Topology {
  // One cache for schemas compiled as they are, one for those inside preserved unknown fields.
  const byTarget = [new Map<Schema, Topology>(), new Map<Schema, Topology>()] as const;

  /** `preserving`: written inside a schema with x-kubernetes-preserve-unknown-fields. */
  function compile(at: Schema, preserving: boolean): Topology {
    let target = at;
    const seen = new Set<string>();
    for (let ref = referenceOf(target); ref !== undefined; ref = referenceOf(target)) {
      const name = refName(ref);
      if (seen.has(name)) throw new Error(`schema reference cycle through ${name}`);
      seen.add(name);
      const next = defs[name];
      if (next === undefined) throw new Error(`schema reference to unknown definition ${name}`);
      target = next;
    }
    if (target === at) return compileResolved(at, preserving);
    const overrides = markerNames.some((m) => at[m] !== undefined);
    if (!overrides) return compileResolved(target, false);
    // Markers beside the $ref: a schema that is the target with the referring markers on top.
    const merged: Schema = { ...target };
    for (const m of markerNames) if (at[m] !== undefined) (merged as Record<string, unknown>)[m] = at[m];
    return compileResolved(merged, false);
  }

  function compileResolved(s: Schema, inherited: boolean): Topology {
    const preserving = inherited || s['x-kubernetes-preserve-unknown-fields'] === true;
    const cache = byTarget[preserving ? 1 : 0];
    const cached = cache.get(s);
    if (cached !== undefined) return cached;
    if (s['x-kubernetes-int-or-string'] === true) return remember(cache, s, scalars.intOrString);
    const type = s.type ?? inferredType(s);
    if (type === undefined) return remember(cache, s, untyped);
    if (primitiveTypes.has(type)) return remember(cache, s, s.type === undefined ? scalars.unchecked : scalars[type as 'integer' | 'number' | 'string' | 'boolean']);
    if (type === 'array') return compileList(cache, s, preserving);
    return compileObject(cache, s, preserving);
  }

  function remember(cache: Map<Schema, Topology>, s: Schema, t: Topology): Topology {
    cache.set(s, t);
    return t;
  }

  function compileObject(cache: Map<Schema, Topology>, s: Schema, preserving: boolean): Topology {
    const node: MutableTopology = {
      kind: 'map', atomic: s['x-kubernetes-map-type'] === 'atomic', fields: undefined, elem: untyped, declaredOnly: false,
      listType: 'atomic', keys: [], quotedKeys: [], keyDefaults: [], item: untyped,
    };
    cache.set(s, node);
    let properties = s.properties;
    if (s['x-kubernetes-embedded-resource'] === true) {
      // An embedded object carries apiVersion, kind and metadata even when the schema omits them.
      const meta = defs['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
      properties = { apiVersion: { type: 'string' }, kind: { type: 'string' }, ...(meta ? { metadata: meta } : {}), ...properties };
    }
    if (properties !== undefined) {
      node.fields = new Map();
      for (const name of Object.keys(properties)) node.fields.set(name, compile(properties[name]!, preserving));
    }
    // Keys the schema does not declare: additionalProperties' type; untyped for an object
    // that preserves unknown fields or declares no properties (free-form, as OpenAPI has
    // it); refused otherwise, and when additionalProperties is false.
    const additional = s.additionalProperties;
    if (typeof additional === 'object') node.elem = compile(additional, preserving);
    else if (additional === false) node.declaredOnly = true;
    else if (additional === undefined) node.declaredOnly = !preserving && s.properties !== undefined && Object.keys(s.properties).length > 0;
    return Object.freeze(node);
  }

  function compileList(cache: Map<Schema, Topology>, s: Schema, preserving: boolean): Topology {
    const node: MutableTopology = {
      kind: 'list', atomic: false, fields: undefined, elem: untyped, declaredOnly: false,
      listType: 'atomic', keys: [], quotedKeys: [], keyDefaults: [], item: untyped,
    };
    cache.set(s, node);
    const listType = s['x-kubernetes-list-type'];
    let keys: string[] = [];
    if (listType === 'map') {
      node.listType = 'map';
      keys = [...(s['x-kubernetes-list-map-keys'] ?? [])];
    } else if (listType === 'set') {
      node.listType = 'set';
    } else if (listType === undefined) {
      const strategy = s['x-kubernetes-patch-strategy'];
      if (strategy === 'merge' || strategy === 'merge,retainKeys') {
        const mergeKey = s['x-kubernetes-patch-merge-key'];
        if (mergeKey !== undefined) {
          node.listType = 'map';
          keys = [mergeKey];
        } else {
          node.listType = 'set';
        }
      }
    }
    // A list map declared without keys would make every item the same key; keep it atomic.
    if (node.listType === 'map' && keys.length === 0) node.listType = 'atomic';
    node.item = s.items !== undefined ? compile(s.items, preserving) : untyped;
    if (node.listType === 'map') {
      keys.sort(compareStrings);
      node.keys = keys;
      node.quotedKeys = keys.map(goString);
      const itemSchema = s.items !== undefined ? resolveTarget(s.items) : undefined;
      node.keyDefaults = keys.map((k) => itemSchema?.properties?.[k]?.default);
    }
    return Object.freeze(node);
  }

  function resolveTarget(at: Schema): Schema {
    let target = at;
    for (let ref = referenceOf(target), n = 0; ref !== undefined && n < 64; ref = referenceOf(target), n++) {
      target = defs[refName(ref)] ?? target;
    }
    return target;
  }

  return compile(schema ?? {}, false);
}

/** A schema without `type`: objects and arrays by their keywords, scalars by oneOf/anyOf of primitives (Quantity). */
function inferredType(s: Schema): Schema['type'] | undefined {
  if (s.properties !== undefined || s.additionalProperties !== undefined) return 'object';
  if (s.items !== undefined) return 'array';
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives !== undefined && alternatives.length > 0 && alternatives.every((a) => a.type !== undefined && primitiveTypes.has(a.type))) {
    return 'string';
  }
  return undefined;
}
