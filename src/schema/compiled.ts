// Schemas prepared for walking values: references resolved, the facts validation,
// pruning and defaulting ask of every node computed once. Validation of every write
// walks the object against its schema, so this is on the hot path.
//
// Nodes are cached per definitions object and per schema object (weakly): treat both as
// immutable once used, as the built-in definitions are.

import { compileGoRegexp, type GoRegexp } from './regexp.ts';
import { resolve } from './resolve.ts';
import type { Definitions, Schema } from './types.ts';

export interface SchemaNode {
  readonly defs: Definitions;
  /** The schema with its reference followed. */
  readonly schema: Schema;
  /** Null is a value here (`nullable` on the referring schema or its target). */
  readonly nullable: boolean;
  /** The default, from the referring schema or its target. */
  readonly defaultValue: unknown;
  /** Types admitted; undefined when the schema says nothing about the type. */
  readonly types: readonly string[] | undefined;
  /** `types` as kube-openapi names them in messages: "integer,string". */
  readonly typeLabel: string;
  /** oneOf/anyOf of bare types, which `types` stands for (built-in Quantity, int-or-string). */
  readonly unionOf: 'oneOf' | 'anyOf' | undefined;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  /** additionalProperties: true (anything goes, unpruned). */
  readonly anyAdditional: boolean;
  readonly hasComposition: boolean;
  readonly hasStringChecks: boolean;
  readonly hasNumberChecks: boolean;
  readonly hasArrayChecks: boolean;
  readonly hasObjectCounts: boolean;
  /** `pattern` compiled (RE2, as Go's regexp); null when there is none or it does not compile (then it is not enforced). */
  readonly pattern: GoRegexp | null;
  /** Properties with a default, with their nodes. */
  readonly defaulted: readonly (readonly [string, SchemaNode])[];
  property(key: string): SchemaNode | undefined;
  readonly additional: SchemaNode | undefined;
  readonly items: SchemaNode | undefined;
}

const cache = new WeakMap<Definitions, WeakMap<Schema, SchemaNode>>();

/** The prepared node of `schema` (resolving `$ref`s in `defs`). */
export function compileSchema(defs: Definitions, schema: Schema): SchemaNode {
  let perDefs = cache.get(defs);
  if (perDefs === undefined) {
    perDefs = new WeakMap();
    cache.set(defs, perDefs);
  }
  let node = perDefs.get(schema);
  if (node === undefined) {
    node = build(defs, schema);
    perDefs.set(schema, node);
  }
  return node;
}

const intOrStringTypes: readonly string[] = ['integer', 'string'];

/** Branch keys that keep a oneOf/anyOf a plain union of types. */
const bareTypeKeys = new Set(['type', 'description', 'format']);

function isBareUnion(branches: readonly Schema[] | undefined): boolean {
  if (branches === undefined || branches.length === 0) return false;
  for (const branch of branches) {
    if (branch.type === undefined) return false;
    for (const key in branch) if (!bareTypeKeys.has(key)) return false;
  }
  return true;
}

function compilePattern(pattern: string | undefined): GoRegexp | null {
  if (pattern === undefined) return null;
  return compileGoRegexp(pattern).regexp ?? null;
}

function build(defs: Definitions, referring: Schema): SchemaNode {
  const s = resolve(defs, referring);
  let types: readonly string[] | undefined;
  let unionOf: 'oneOf' | 'anyOf' | undefined;
  if (s['x-kubernetes-int-or-string'] === true) {
    types = intOrStringTypes;
    if (isBareUnion(s.anyOf)) unionOf = 'anyOf';
    else if (isBareUnion(s.oneOf)) unionOf = 'oneOf';
  } else if (s.type !== undefined) {
    types = [s.type];
  } else if (s.oneOf === undefined && isBareUnion(s.anyOf)) {
    types = s.anyOf!.map((b) => b.type!);
    unionOf = 'anyOf';
  } else if (s.anyOf === undefined && isBareUnion(s.oneOf)) {
    types = s.oneOf!.map((b) => b.type!);
    unionOf = 'oneOf';
  }
  const properties = s.properties;
  const propertyNodes = new Map<string, SchemaNode>();
  let additional: SchemaNode | undefined | null = null;
  let items: SchemaNode | undefined | null = null;
  let defaulted: (readonly [string, SchemaNode])[] | undefined;
  const composition = (s.allOf !== undefined && s.allOf.length > 0) || (s.not !== undefined)
    || (s.oneOf !== undefined && s.oneOf.length > 0 && unionOf !== 'oneOf')
    || (s.anyOf !== undefined && s.anyOf.length > 0 && unionOf !== 'anyOf');
  const node: SchemaNode = {
    defs,
    schema: s,
    nullable: referring.nullable === true || s.nullable === true,
    defaultValue: referring.default !== undefined ? referring.default : s.default,
    types,
    typeLabel: types?.join(',') ?? '',
    unionOf,
    preserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: s['x-kubernetes-embedded-resource'] === true,
    anyAdditional: s.additionalProperties === true,
    hasComposition: composition,
    hasStringChecks: s.maxLength !== undefined || s.minLength !== undefined || s.pattern !== undefined || s.format !== undefined,
    hasNumberChecks: s.maximum !== undefined || s.minimum !== undefined || s.multipleOf !== undefined,
    hasArrayChecks: s.minItems !== undefined || s.maxItems !== undefined || s.uniqueItems === true || s['x-kubernetes-list-type'] === 'set' || s['x-kubernetes-list-type'] === 'map',
    hasObjectCounts: s.minProperties !== undefined || s.maxProperties !== undefined,
    pattern: compilePattern(s.pattern),
    get defaulted() {
      if (defaulted === undefined) {
        defaulted = [];
        for (const key in properties) {
          const child = compileSchema(defs, properties[key]!);
          if (child.defaultValue !== undefined) defaulted.push([key, child]);
        }
      }
      return defaulted;
    },
    property(key: string): SchemaNode | undefined {
      if (properties === undefined) return undefined;
      let child = propertyNodes.get(key);
      // Only the schema's own keys are remembered: unknown keys come from clients, without bound.
      if (child === undefined && Object.hasOwn(properties, key)) {
        child = compileSchema(defs, properties[key]!);
        propertyNodes.set(key, child);
      }
      return child;
    },
    get additional() {
      if (additional === null) additional = typeof s.additionalProperties === 'object' ? compileSchema(defs, s.additionalProperties) : undefined;
      return additional;
    },
    get items() {
      if (items === null) items = s.items === undefined ? undefined : compileSchema(defs, s.items);
      return items;
    },
  };
  return node;
}
