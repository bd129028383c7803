// Removing what an applier stopped applying, as structured-merge-diff's Updater.prune
// with addBackOwnedItems and addBackDanglingItems (merge/update.go): a field, map entry
// or list item goes when the applier owned it last time and no manager (the applier's
// new configuration included) owns it now. Declared struct fields count as owned by whoever
// owns something below them ("EnsureNamedFieldsAreMembers"), so `.spec` stays while anyone
// owns a field of it; a list item or map entry must be owned itself, so an item the applier
// dropped goes with everything in it even when another manager owns one of its fields.

import type { FieldSet } from './field-set.ts';
import type { PathElement } from './field-path.ts';
import { fieldElement } from './field-path.ts';
import type { Topology } from './topology.ts';
import type { JSONObject } from './typed.ts';
import { LEAF, MAP, fieldType, isDeclared, isObject, itemElement, shapeOf } from './typed.ts';

/**
 * `merged` without the fields of `lastApplied` (the applier's previous set) that none of the
 * `owned` sets (every manager's set after this apply) holds. Returns `merged` itself when
 * nothing goes; never modifies it. A map or list left empty by removals goes too.
 */
export function prune(merged: unknown, topology: Topology, lastApplied: FieldSet, owned: readonly FieldSet[]): unknown {
  if (lastApplied.isEmpty()) return merged;
  const pruned = pruneValue(merged, topology, lastApplied, owned);
  return pruned === REMOVED ? {} : pruned;
}

function ownsNamed(set: FieldSet, pe: PathElement, named: boolean): boolean {
  if (set.hasMember(pe)) return true;
  if (!named) return false;
  const below = set.child(pe);
  return below !== undefined && !below.isEmpty();
}

function anyOwns(sets: readonly FieldSet[], pe: PathElement, named: boolean): boolean {
  for (const set of sets) if (ownsNamed(set, pe, named)) return true;
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
    let out: JSONObject | undefined;
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
    return removedAny && Object.keys(out).length === 0 ? REMOVED : out;
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
  return removedAny && out.length === 0 ? REMOVED : out;
}

function pruneChild(child: unknown, pe: PathElement, named: boolean, t: Topology, last: FieldSet, owned: readonly FieldSet[]): unknown {
  if (ownsNamed(last, pe, named) && !anyOwns(owned, pe, named)) return REMOVED;
  const lastBelow = last.child(pe);
  if (lastBelow === undefined || lastBelow.isEmpty()) return child;
  return pruneValue(child, t, lastBelow, below(owned, pe));
}
