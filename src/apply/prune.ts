// Removing what an applier stopped applying, as structured-merge-diff's Updater.prune
// with addBackOwnedItems and addBackDanglingItems (merge/update.go), whose net effect is:
// a member of the applier's previous set that the object still has as a member (a leaf,
// an empty or null map or struct, a map entry, a list item) goes with everything in it
// when no other manager, applier or updater, owns it now (nor the applier's new
// configuration); a struct is never removed for what is below it, only what the applier
// owned in it goes. A map or list that removals leave empty becomes null,
// as RemoveItems leaves it: a custom resource keeps that null (its validation judges it), a
// built-in type's Go value drops it.

import type { FieldSet } from './field-set.ts';
import type { PathElement } from './field-path.ts';
import { fieldElement } from './field-path.ts';
import { ownsItself } from './fields-of.ts';
import type { Topology } from './topology.ts';
import { isObject, type JsonObject } from '../api/json.ts';
import { LEAF, MAP, fieldType, isDeclared, itemElement, shapeOf } from './typed.ts';

/**
 * `merged` without the members of `lastApplied` (the applier's previous set) that none of
 * the `owned` sets (every manager's set after this apply) holds. Returns `merged` itself
 * when nothing goes; never modifies it.
 */
export function prune(merged: unknown, topology: Topology, lastApplied: FieldSet, owned: readonly FieldSet[]): unknown {
  if (lastApplied.isEmpty()) return merged;
  const pruned = pruneValue(merged, topology, lastApplied, owned);
  return pruned === REMOVED || pruned === null ? {} : pruned;
}

function anyOwns(sets: readonly FieldSet[], pe: PathElement): boolean {
  for (const set of sets) if (set.hasMember(pe)) return true;
  return false;
}

function below(sets: readonly FieldSet[], pe: PathElement): FieldSet[] {
  const out: FieldSet[] = [];
  for (const set of sets) {
    const child = set.child(pe);
    if (child !== undefined) out.push(child);
  }
  return out;
}

const REMOVED = Symbol('removed');

function pruneValue(v: unknown, t: Topology, last: FieldSet, owned: readonly FieldSet[]): unknown {
  const shape = shapeOf(v, t);
  if (shape === LEAF) return v;
  if (shape === MAP) {
    if (!isObject(v)) return v;
    let out: JsonObject | undefined;
    let removedAny = false;
    for (const k in v) {
      const child = v[k];
      if (child === undefined) continue;
      const pe = fieldElement(k);
      const result = pruneChild(child, pe, isDeclared(t, k), fieldType(t, k), last, owned);
      if (result === child) {
        if (out !== undefined) out[k] = child;
        continue;
      }
      if (out === undefined) {
        out = {};
        for (const done in v) {
          if (done === k) break;
          if (v[done] !== undefined) out[done] = v[done];
        }
      }
      if (result === REMOVED) removedAny = true;
      else out[k] = result;
    }
    if (out === undefined) return v;
    return removedAny && Object.keys(out).length === 0 ? null : out;
  }
  if (!Array.isArray(v)) return v;
  let out: unknown[] | undefined;
  let removedAny = false;
  for (let i = 0; i < v.length; i++) {
    const item = v[i];
    const pe = itemElement(t, item, i);
    const result = typeof pe === 'string' ? pruneChild(item, pe, false, t.item, last, owned) : item;
    if (result === item) {
      if (out !== undefined) out.push(item);
      continue;
    }
    out ??= v.slice(0, i);
    if (result === REMOVED) removedAny = true;
    else out.push(result);
  }
  if (out === undefined) return v;
  return removedAny && out.length === 0 ? null : out;
}

/**
 * `child` at `pe`: gone when the applier owned it last time, it is a member of the object
 * (a declared struct field is one only as a leaf or when empty) and no applier owns it now.
 */
function pruneChild(child: unknown, pe: PathElement, declared: boolean, t: Topology, last: FieldSet, owned: readonly FieldSet[]): unknown {
  if (last.hasMember(pe) && !anyOwns(owned, pe)) {
    const shape = shapeOf(child, t);
    if (!declared || shape === LEAF || ownsItself(shape, child)) return REMOVED;
  }
  const lastBelow = last.child(pe);
  if (lastBelow === undefined || lastBelow.isEmpty()) return child;
  return pruneValue(child, t, lastBelow, below(owned, pe));
}
