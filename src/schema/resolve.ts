// Following `$ref`s between named definitions.

import type { Definitions, Schema } from './types.ts';

const prefixes = ['#/components/schemas/', '#/definitions/'];

/** The definition name a `$ref` points at (`#/components/schemas/X` or `#/definitions/X` → X). */
export function refName(ref: string): string {
  for (const prefix of prefixes) {
    if (ref.startsWith(prefix)) return ref.slice(prefix.length);
  }
  throw new Error(`unsupported schema reference ${JSON.stringify(ref)}`);
}

/** The single reference a schema stands for: `$ref`, or OpenAPI v3's `allOf: [{$ref}]` wrapper. */
function referenceOf(schema: Schema): string | undefined {
  if (schema.$ref !== undefined) return schema.$ref;
  const allOf = schema.allOf;
  if (allOf !== undefined && allOf.length === 1 && allOf[0]!.$ref !== undefined) return allOf[0]!.$ref;
  return undefined;
}

/** Longer chains of references than this are cycles. */
const maxReferenceChain = 64;

/**
 * The schema a reference stands for, following chains of references; a schema without
 * one is returned as is. Siblings of `$ref` (a field's description, its patch strategy)
 * stay on the referring schema: read them there before resolving.
 */
export function resolve(defs: Definitions, schema: Schema): Schema {
  // Hot path of validation, pruning and defaulting: no allocation when there is nothing to follow.
  let ref = referenceOf(schema);
  if (ref === undefined) return schema;
  let current = schema;
  for (let hops = 0; ref !== undefined; ref = referenceOf(current), hops++) {
    const name = ref.startsWith(prefixes[0]!) ? ref.slice(prefixes[0]!.length) : refName(ref);
    if (hops === maxReferenceChain) throw new Error(`schema reference cycle through ${name}`);
    const target = defs[name];
    if (target === undefined) throw new Error(`schema reference to unknown definition ${name}`);
    current = target;
  }
  return current;
}

/** Calls `visit` with every schema nested in `schema` (itself included), depth first. */
export function walkSchema(schema: Schema, visit: (s: Schema) => void): void {
  visit(schema);
  if (schema.properties !== undefined) for (const key of Object.keys(schema.properties)) walkSchema(schema.properties[key]!, visit);
  if (typeof schema.additionalProperties === 'object') walkSchema(schema.additionalProperties, visit);
  if (schema.items !== undefined) walkSchema(schema.items, visit);
  for (const list of [schema.allOf, schema.anyOf, schema.oneOf]) if (list !== undefined) for (const s of list) walkSchema(s, visit);
  if (schema.not !== undefined) walkSchema(schema.not, visit);
}

/** Names of the definitions reachable from `roots` through `$ref`s, roots included, sorted. */
export function reachableDefinitions(defs: Definitions, roots: Iterable<string>): string[] {
  const found = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (found.has(name)) continue;
    const schema = defs[name];
    if (schema === undefined) throw new Error(`schema reference to unknown definition ${name}`);
    found.add(name);
    walkSchema(schema, (s) => {
      if (s.$ref !== undefined) {
        const target = refName(s.$ref);
        if (!found.has(target)) pending.push(target);
      }
    });
  }
  return [...found].sort();
}
