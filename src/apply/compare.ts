// What changed between two values, as structured-merge-diff's TypedValue.Compare: leaves
// whose values differ are modified; fields present on one side only are added or removed,
// together with everything below them. List items are matched by identity, so reordering
// a list map or set changes nothing; an atomic list or map is one leaf.

import { FieldSet } from './field-set.ts';
import type { PathElement } from './field-path.ts';
import { fieldElement } from './field-path.ts';
import type { Topology } from './topology.ts';
import { deepEqual, isObject, type JsonObject } from '../api/json.ts';
import { LEAF, LIST, MAP, TypedError, describeError, fieldType, isEmptyContainer, itemElement, shapeOf } from './typed.ts';

export interface Comparison {
  added: FieldSet;
  removed: FieldSet;
  modified: FieldSet;
}

/** Compares `lhs` (before) with `rhs` (after). Throws a TypedError for a list item without identity. */
export function compare(lhs: unknown, rhs: unknown, topology: Topology): Comparison {
  const w = new CompareWalker();
  if (lhs === undefined && rhs === undefined) return w.result();
  if (lhs === undefined) w.markAdded(rhs, topology);
  else if (rhs === undefined) w.markRemoved(lhs, topology);
  else w.compareValues(lhs, rhs, topology);
  return w.result();
}

const NOTHING: JsonObject = Object.freeze({}) as JsonObject;

/** Records changes at the current `path` into the added, removed and modified sets. */
export class DiffRecorder {
  readonly added = new FieldSet();
  readonly removed = new FieldSet();
  readonly modified = new FieldSet();
  readonly path: PathElement[] = [];

  result(): Comparison {
    return { added: this.added, removed: this.removed, modified: this.modified };
  }

  /**
   * Items by identity; a repeated identity keeps its first item, as upstream compares.
   * `live` says which side `v` is on, for the error naming the object at fault.
   */
  protected index(v: unknown, t: Topology, live: boolean): Map<PathElement, unknown> {
    const out = new Map<PathElement, unknown>();
    if (!Array.isArray(v)) return out;
    for (let i = 0; i < v.length; i++) {
      const pe = itemElement(t, v[i], i);
      if (typeof pe !== 'string') throw new TypedError([describeError(this.path, pe.error)], live);
      if (!out.has(pe)) out.set(pe, v[i]);
    }
    return out;
  }

  markAdded(v: unknown, t: Topology): void {
    this.added.insert(this.path);
    const shape = shapeOf(v, t);
    if (shape !== LEAF) this.markChildren(v, t, shape, true);
  }

  markRemoved(v: unknown, t: Topology): void {
    this.removed.insert(this.path);
    const shape = shapeOf(v, t);
    if (shape !== LEAF) this.markChildren(v, t, shape, false);
  }

  /** Marks everything below a container at `path` added or removed. */
  markChildren(v: unknown, t: Topology, shape: number, added: boolean): void {
    const path = this.path;
    if (shape === MAP) {
      if (!isObject(v)) return;
      for (const k in v) {
        const child = v[k];
        if (child === undefined) continue;
        path.push(fieldElement(k));
        if (added) this.markAdded(child, fieldType(t, k));
        else this.markRemoved(child, fieldType(t, k));
        path.pop();
      }
    } else if (shape === LIST) {
      for (const [pe, item] of this.index(v, t, !added)) {
        path.push(pe);
        if (added) this.markAdded(item, t.item);
        else this.markRemoved(item, t.item);
        path.pop();
      }
    }
  }
}

class CompareWalker extends DiffRecorder {
  compareValues(l: unknown, r: unknown, t: Topology): void {
    if (l === r) return;
    const sl = shapeOf(l, t);
    const sr = shapeOf(r, t);
    if (sl !== sr) {
      // Values of different kinds where the schema allows both (untyped data).
      this.modified.insert(this.path);
      if (sl !== LEAF) this.markChildren(l, t, sl, false);
      if (sr !== LEAF) this.markChildren(r, t, sr, true);
      return;
    }
    if (sl === LEAF || (isEmptyContainer(l) && isEmptyContainer(r))) {
      if (!deepEqual(l, r)) this.modified.insert(this.path);
      return;
    }
    if (sl === MAP) this.compareMaps(l, r, t);
    else this.compareLists(l, r, t);
  }

  private compareMaps(l: unknown, r: unknown, t: Topology): void {
    const lo = isObject(l) ? l : NOTHING;
    const ro = isObject(r) ? r : NOTHING;
    const path = this.path;
    for (const k in lo) {
      const lv = lo[k];
      if (lv === undefined) continue;
      const rv = ro[k];
      path.push(fieldElement(k));
      if (rv === undefined) this.markRemoved(lv, fieldType(t, k));
      else this.compareValues(lv, rv, fieldType(t, k));
      path.pop();
    }
    for (const k in ro) {
      const rv = ro[k];
      if (rv === undefined || lo[k] !== undefined) continue;
      path.push(fieldElement(k));
      this.markAdded(rv, fieldType(t, k));
      path.pop();
    }
  }

  private compareLists(l: unknown, r: unknown, t: Topology): void {
    const left = this.index(l, t, true);
    const right = this.index(r, t, false);
    const path = this.path;
    for (const [pe, lv] of left) {
      const rv = right.get(pe);
      path.push(pe);
      if (rv === undefined) this.markRemoved(lv, t.item);
      else this.compareValues(lv, rv, t.item);
      path.pop();
    }
    for (const [pe, rv] of right) {
      if (left.has(pe)) continue;
      path.push(pe);
      this.markAdded(rv, t.item);
      path.pop();
    }
  }
}
