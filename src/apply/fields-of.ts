// The fields a value sets, as structured-merge-diff's TypedValue.ToFieldSet
// (typed/tofieldset.go): every leaf; every list item and every map entry that is not a
// declared struct field (so `.metadata.labels.app` and `.spec.containers[name="a"]` are
// members, `.spec` is not); an atomic map or list as one field.

import { FieldSet } from './field-set.ts';
import type { PathElement } from './field-path.ts';
import { fieldElement } from './field-path.ts';
import type { Topology } from './topology.ts';
import type { JsonObject } from '../api/json.ts';
import type { Shape } from './typed.ts';
import { LEAF, LIST, MAP, TypedError, describeError, duplicateError, fieldType, isDeclared, isEmptyContainer, itemElement, shapeOf } from './typed.ts';

/**
 * The field set of `value` (an object, or an applied configuration). Throws a TypedError
 * listing every list item that has no identity (a missing key field without a default, a
 * map in a set) and every duplicate item, as upstream refuses such an apply.
 */
export function fieldsOf(value: unknown, topology: Topology): FieldSet {
  const errors: string[] = [];
  const set = new FieldSet();
  fill(set, value, topology, [], errors);
  if (errors.length > 0) throw new TypedError(errors);
  return set;
}

/** Adds the fields below `v` (found at `path`) to `node`, the set at that path. */
export function fill(node: FieldSet, v: unknown, t: Topology, path: PathElement[], errors: string[]): void {
  const shape = shapeOf(v, t);
  if (shape === MAP) {
    if (v === null) return;
    const obj = v as JsonObject;
    for (const k in obj) {
      const child = obj[k];
      if (child === undefined) continue;
      visit(node, fieldElement(k), child, fieldType(t, k), !isDeclared(t, k), path, errors);
    }
  } else if (shape === LIST) {
    if (v === null) return;
    const list = v as unknown[];
    let seen: Set<PathElement> | undefined;
    for (let i = 0; i < list.length; i++) {
      const pe = itemElement(t, list[i], i);
      if (typeof pe !== 'string') {
        errors.push(describeError(path, pe.error));
        continue;
      }
      seen ??= new Set();
      if (seen.has(pe)) {
        errors.push(describeError(path, duplicateError(pe)));
        continue;
      }
      seen.add(pe);
      visit(node, pe, list[i], t.item, true, path, errors);
    }
  }
}

function visit(parent: FieldSet, pe: PathElement, v: unknown, t: Topology, memberItself: boolean, path: PathElement[], errors: string[]): void {
  const shape = shapeOf(v, t);
  if (shape === LEAF) {
    parent.addMember(pe);
    return;
  }
  const child = new FieldSet();
  path.push(pe);
  fill(child, v, t, path, errors);
  path.pop();
  parent.attach(pe, child);
  if (memberItself || ownsItself(shape, v)) parent.addMember(pe);
}

/**
 * An empty (or null) map or struct is a field of its own, so that whoever sets it owns it
 * and it is not lost as nobody's; an empty list is not (structured-merge-diff).
 */
export function ownsItself(shape: Shape, v: unknown): boolean {
  return shape === MAP && isEmptyContainer(v);
}
