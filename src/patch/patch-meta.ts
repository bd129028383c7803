// Strategic-merge patch metadata from our structural schemas: what upstream reads from
// the Go struct tags `patchStrategy` and `patchMergeKey` (forkedjson.LookupPatchMetadata),
// we read from `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key` on the
// field's schema (beside its `$ref`, so before resolving it).

import { resolve } from '../schema/resolve.ts';
import type { Definitions, Schema } from '../schema/types.ts';

export interface PatchMeta {
  /**
   * The field's schema, references resolved; undefined where there is none (a field the
   * schema does not declare, preserved unknown fields), which merges as unstructured
   * data: maps key by key, lists replaced.
   */
  schema: Schema | undefined;
  /** `x-kubernetes-patch-strategy` split at commas ("merge", "retainKeys", "replace"); empty when none. */
  strategies: string[];
  /** `x-kubernetes-patch-merge-key`; '' when none. */
  mergeKey: string;
}

const noMeta: PatchMeta = { schema: undefined, strategies: [], mergeKey: '' };

/**
 * The patch metadata of `field` in an object described by `parent` (resolved or not).
 * A map's values (additionalProperties) have their schema and no strategy, as a Go map
 * has no struct tags. A field the schema does not declare answers `schema: undefined`
 * (upstream fails on it, but an object pruned to our schemas never holds one, and a
 * schema that lags upstream's types should not turn a valid patch into an error).
 */
export function fieldPatchMeta(defs: Definitions, parent: Schema | undefined, field: string): PatchMeta {
  if (parent === undefined) return noMeta;
  const object = resolve(defs, parent);
  const property = object.properties !== undefined && Object.hasOwn(object.properties, field) ? object.properties[field] : undefined;
  if (property !== undefined) {
    const strategy = property['x-kubernetes-patch-strategy'];
    return {
      schema: resolve(defs, property),
      strategies: strategy === undefined || strategy === '' ? [] : strategy.split(','),
      mergeKey: property['x-kubernetes-patch-merge-key'] ?? '',
    };
  }
  if (typeof object.additionalProperties === 'object') {
    return { schema: resolve(defs, object.additionalProperties), strategies: [], mergeKey: '' };
  }
  return noMeta;
}

/** The schema of a list's items, resolved; undefined when unknown. */
export function listItemSchema(defs: Definitions, list: Schema | undefined): Schema | undefined {
  if (list === undefined) return undefined;
  const items = resolve(defs, list).items;
  return items === undefined ? undefined : resolve(defs, items);
}

/**
 * The patch metadata of the field at `path` (field names from `schema`, the top-level
 * kind's schema). Lists are stepped through to their items, as upstream steps from a
 * slice to its element type: ["spec", "template", "spec", "containers", "ports"] gives
 * the metadata of a container's ports.
 */
export function patchMetaAt(defs: Definitions, schema: Schema, path: string[]): PatchMeta {
  let meta: PatchMeta = { schema: resolve(defs, schema), strategies: [], mergeKey: '' };
  for (const field of path) {
    let parent = meta.schema;
    if (parent?.type === 'array' || parent?.items !== undefined) parent = listItemSchema(defs, parent);
    meta = fieldPatchMeta(defs, parent, field);
  }
  return meta;
}

/**
 * Splits strategies into the retainKeys flag and the one other strategy, as upstream's
 * extractRetainKeysPatchStrategy; anything else is an error upstream reports as is.
 */
export function splitRetainKeys(strategies: string[]): { retainKeys: boolean; strategy: string } | { error: string } {
  if (strategies.length === 0) return { retainKeys: false, strategy: '' };
  if (strategies.length === 1) {
    return strategies[0] === 'retainKeys' ? { retainKeys: true, strategy: '' } : { retainKeys: false, strategy: strategies[0]! };
  }
  if (strategies.length === 2) {
    if (strategies[0] === 'retainKeys') return { retainKeys: true, strategy: strategies[1]! };
    if (strategies[1] === 'retainKeys') return { retainKeys: true, strategy: strategies[0]! };
  }
  return { error: `unexpected patch strategy: [${strategies.join(' ')}]` };
}
