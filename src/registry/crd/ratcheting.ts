// CRD validation ratcheting (feature CRDValidationRatcheting, GA): an update of a custom
// resource is not refused for what its schema says of a value the update left as it was,
// so that tightening a schema does not block writes of objects stored under the looser
// one; its x-kubernetes-validations rules ratchet on the same correlation, as upstream
// gives both the one CorrelatedObject. The old object is correlated with the new one as
// upstream's CorrelatedObject (apiserver/pkg/cel/common/equality.go) does: properties and
// map entries by name when both have them and the schema describes them, items of map
// lists by their keys (the first old item with the same keys), items of other lists not
// at all; scalars are equal when they are the same JSON value, but for an integer the body
// wrote `1.0`: a float64 to upstream's reflect.DeepEqual, where the stored `1` is an int64.

import { deepEqual, isObject } from '../../api/json.ts';
import { holdsFloatMember, isFloatMember } from '../../api/number-forms.ts';
import { compileSchema, type SchemaNode } from '../../schema/compiled.ts';
import type { CorrelatedOld } from '../../schema/validate.ts';
import type { Definitions, Schema } from '../../schema/types.ts';

/**
 * A resource's fields that never correlate: apiVersion and kind, as upstream's
 * ratchetingValueValidator leaves them (isTypeMetaField), and metadata, which a CRD's
 * schema never describes whole (upstream finds no schema for its other fields), so that a
 * resource itself is never unchanged.
 */
const typeAndObjectMeta = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * `value` correlated with `old` under `schema`, for validate(): `resourceRoot` when they
 * are whole objects rather than a part of one.
 */
export function correlate(defs: Definitions, schema: Schema, value: unknown, old: unknown, resourceRoot: boolean): CorrelatedOld {
  return correlated(compileSchema(defs, schema), value, old, resourceRoot);
}

/** `floatForm`: `value` is an integer the body wrote with a fraction or an exponent (api/number-forms.ts). */
function correlated(node: SchemaNode, value: unknown, old: unknown, resourceRoot: boolean, floatForm = false): CorrelatedOld {
  const children = new Map<string | number, CorrelatedOld | undefined>();
  const mapKeys = node.schema['x-kubernetes-list-type'] === 'map' ? node.schema['x-kubernetes-list-map-keys'] ?? [] : undefined;
  let oldItems: Map<string, unknown> | undefined;
  let unchanged: boolean | undefined;

  const self: CorrelatedOld = {
    key(key) {
      if (children.has(key)) return children.get(key);
      let child: CorrelatedOld | undefined;
      if (isObject(value) && isObject(old) && Object.hasOwn(value, key) && Object.hasOwn(old, key) && !(resourceRoot && typeAndObjectMeta.has(key))) {
        const schema = node.property(key) ?? node.additional;
        if (schema !== undefined) child = correlated(schema, value[key], old[key], false, isFloatMember(value, key));
      }
      children.set(key, child);
      return child;
    },
    index(i) {
      if (children.has(i)) return children.get(i);
      let child: CorrelatedOld | undefined;
      if (mapKeys !== undefined && mapKeys.length > 0 && Array.isArray(value) && Array.isArray(old) && i < value.length && node.items !== undefined) {
        oldItems ??= itemsByKey(mapKeys, old);
        const key = itemKey(mapKeys, value[i]);
        const oldItem = key === undefined ? undefined : oldItems.get(key);
        if (oldItem !== undefined) child = correlated(node.items, value[i], oldItem, false, isFloatMember(value, i));
      }
      children.set(i, child);
      return child;
    },
    unchanged() {
      unchanged ??= compare();
      return unchanged;
    },
  };

  // Upstream's CachedDeepEqual: compounds compared child by child through the correlation,
  // so a map list's items may move; a child that does not correlate makes a difference,
  // but a list whose items never correlate is compared whole.
  function compare(): boolean {
    if (value === null || old === null) return value === old;
    if (Array.isArray(value) || Array.isArray(old)) {
      if (!Array.isArray(value) || !Array.isArray(old) || value.length !== old.length) return false;
      for (let i = 0; i < value.length; i++) {
        const child = self.index(i);
        if (child === undefined) return mapKeys === undefined && deepEqual(value, old) && !holdsFloatMember(value);
        if (!child.unchanged()) return false;
      }
      return true;
    }
    if (isObject(value) || isObject(old)) {
      if (!isObject(value) || !isObject(old)) return false;
      const keys = Object.keys(value);
      if (keys.length !== Object.keys(old).length) return false;
      return keys.every((key) => self.key(key)?.unchanged() === true);
    }
    // A stored integer reads back as an int64.
    return value === old && !(floatForm && Number.isInteger(old));
  }

  return self;
}

/**
 * A map list item's key (upstream's MapList): its key fields' values, each there and a
 * scalar; undefined for an item without one.
 */
function itemKey(keys: readonly string[], item: unknown): string | undefined {
  if (!isObject(item)) return undefined;
  const values: unknown[] = [];
  for (const key of keys) {
    const v = item[key];
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return undefined;
    values.push(v);
  }
  return JSON.stringify(values);
}

/** The old list's items by key, the first of each key kept. */
function itemsByKey(keys: readonly string[], items: readonly unknown[]): Map<string, unknown> {
  const byKey = new Map<string, unknown>();
  for (const item of items) {
    const key = itemKey(keys, item);
    if (key !== undefined && !byKey.has(key)) byKey.set(key, item);
  }
  return byKey;
}
