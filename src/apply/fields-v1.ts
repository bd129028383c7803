// FieldsV1, the wire form of a FieldSet in managedFields: a trie of objects keyed by
// serialized path elements, where "." inside a child marks that child as a member too:
// `{"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`. Written in structured-merge-diff's
// order (fieldpath/serialize.go): elements sorted, "." last.

import { FieldSet, FieldsV1Error } from './field-set.ts';
import { sortPathElements } from './field-path.ts';

export type FieldsV1 = Record<string, unknown>;

/**
 * The FieldsV1 of `set`. Parts of a set read from FieldsV1 and left unchanged come back as
 * the objects they were read from, so the result may share objects with earlier entries:
 * treat FieldsV1 objects as immutable. What is encoded here is frozen (a cache that takes
 * the object then need not walk it again), and every leaf is one shared empty object.
 */
export function encodeFieldsV1(set: FieldSet): FieldsV1 {
  return encodeLevel(set, false);
}

const leaf: FieldsV1 = Object.freeze({});

function encodeLevel(set: FieldSet, includeSelf: boolean): FieldsV1 {
  const slot = includeSelf ? 1 : 0;
  const memo = set.encodedAs(slot);
  if (memo !== undefined) return memo as FieldsV1;
  const source = set.sourceFieldsV1();
  if (source !== undefined && ('.' in source) === includeSelf) return source;
  const out: FieldsV1 = {};
  let keys = set.levelElements();
  if (keys.length > 1) keys = sortPathElements(keys);
  for (const pe of keys) {
    const child = set.child(pe);
    if (child === undefined || child.isEmpty()) out[pe] = leaf;
    else out[pe] = encodeLevel(child, set.hasMember(pe));
  }
  if (includeSelf && keys.length > 0) out['.'] = leaf;
  Object.freeze(out);
  set.rememberEncoding(slot, out);
  return out;
}

/**
 * Reads FieldsV1 into a set that decodes each level when first used. Elements of unknown
 * kinds are dropped (a future version may know them), as structured-merge-diff does; a
 * malformed element throws then, or right away with `validate`.
 */
export function decodeFieldsV1(fields: unknown, opts: { validate?: boolean } = {}): FieldSet {
  if (fields === undefined || fields === null) return new FieldSet();
  if (typeof fields !== 'object' || Array.isArray(fields)) throw new FieldsV1Error('fieldsV1 must be an object');
  const set = FieldSet.fromFieldsV1(fields as FieldsV1);
  if (opts.validate) set.size();
  return set;
}
