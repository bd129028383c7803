// Merging an applied configuration into the live object, as structured-merge-diff's
// TypedValue.Merge (typed/merge.go): the configuration's leaves win; granular maps merge
// key by key; sets and list maps merge item by item, in an order that keeps the live
// order for items the configuration does not mention and the configuration's order for
// those it does; atomic maps and lists are replaced whole.
//
// mergeApplied does in the same walk what apply needs besides: the configuration's field
// set (fieldsOf) and what the merge changed (compare of live and merged).

import type { Comparison } from './compare.ts';
import { DiffRecorder } from './compare.ts';
import { FieldSet } from './field-set.ts';
import { fill, ownsItself } from './fields-of.ts';
import type { PathElement } from './field-path.ts';
import { fieldElement } from './field-path.ts';
import type { Topology } from './topology.ts';
import { clone, deepEqual, isObject, type JsonObject } from '../api/json.ts';
import {
  LEAF, MAP, TypedError, describeError, duplicateError, fieldType, isDeclared, isEmptyContainer, itemElement, shapeOf,
} from './typed.ts';

/**
 * The result of merging `rhs` (the applied configuration) into `lhs` (the live object).
 * The result shares no objects with `lhs`; it may share objects with `rhs`. An explicit
 * null in `rhs` is a value like any other: it replaces a leaf (the applier owns it), and
 * leaves what a granular map or list holds as it is. Whether it then stays is the type's
 * business: a built-in type's Go value drops it, a custom resource keeps it for validation.
 */
export function merge(lhs: unknown, rhs: unknown, topology: Topology): unknown {
  const w = new MergeWalker(false);
  const out = w.top(lhs, rhs, topology);
  w.check();
  return out;
}

export interface AppliedMerge {
  merged: unknown;
  /** fieldsOf(rhs). */
  applied: FieldSet;
  /** compare(lhs, merged), when `exact`. */
  diff: Comparison;
  /** False when live list items repeat an identity: then compute the diff with compare. */
  exact: boolean;
  /** Whether merged differs from lhs by more than `diff` says: live list items moved or collapsed. */
  reordered: boolean;
}

/** merge, fieldsOf(rhs) and compare(lhs, merged) in one walk. Throws a TypedError listing the configuration's faults. */
export function mergeApplied(lhs: unknown, rhs: unknown, topology: Topology): AppliedMerge {
  const w = new MergeWalker(true);
  const merged = w.top(lhs, rhs, topology);
  w.check();
  return { merged, applied: w.applied, diff: w.result(), exact: w.exact, reordered: w.reordered };
}

const NOTHING: JsonObject = Object.freeze({}) as JsonObject;

class MergeWalker extends DiffRecorder {
  readonly record: boolean;
  readonly applied = new FieldSet();
  readonly errors: string[] = [];
  exact = true;
  reordered = false;

  constructor(record: boolean) {
    super();
    this.record = record;
  }

  check(): void {
    if (this.errors.length > 0) throw new TypedError(this.errors);
  }

  top(lhs: unknown, rhs: unknown, t: Topology): unknown {
    if (rhs === undefined) return clone(lhs);
    if (lhs === undefined && this.record) {
      this.markAdded(rhs, t);
      fill(this.applied, rhs, t, this.path, this.errors);
      return rhs;
    }
    if (isObject(rhs) && (lhs === undefined || isObject(lhs)) && shapeOf(rhs, t) === MAP) return this.maps(lhs, rhs, t, this.applied);
    return this.value(lhs, rhs, t, this.applied, '', false);
  }

  /** The applied fields of `r`, at element `pe` of `parent` (the path already ends with `pe`). */
  private collect(parent: FieldSet, pe: PathElement, r: unknown, t: Topology, memberItself: boolean): void {
    const shape = shapeOf(r, t);
    if (shape === LEAF) {
      parent.addMember(pe);
      return;
    }
    const child = new FieldSet();
    fill(child, r, t, this.path, this.errors);
    parent.attach(pe, child);
    if (memberItself || ownsItself(shape, r)) parent.addMember(pe);
  }

  /** Merges `r` (defined) into `l` at `path` (ending with `pe`, a child of `applied`'s level). */
  private value(l: unknown, r: unknown, t: Topology, applied: FieldSet, pe: PathElement, memberItself: boolean): unknown {
    const record = this.record;
    const sr = shapeOf(r, t);
    if (l === undefined) {
      if (record) {
        this.collect(applied, pe, r, t, memberItself);
        this.markAdded(r, t);
      }
      return r;
    }
    const sl = shapeOf(l, t);
    if (sr === LEAF || sl !== sr) {
      if (record) {
        this.collect(applied, pe, r, t, memberItself);
        if (sl === LEAF && sr === LEAF) {
          if (!deepEqual(l, r)) this.modified.insert(this.path);
        } else {
          this.modified.insert(this.path);
          if (sl !== LEAF) this.markChildren(l, t, sl, false);
          if (sr !== LEAF) this.markChildren(r, t, sr, true);
        }
      }
      return r;
    }
    if (isEmptyContainer(l) && isEmptyContainer(r)) {
      if (record) {
        if (memberItself || ownsItself(sr, r)) applied.addMember(pe);
        if (!deepEqual(l, r)) this.modified.insert(this.path);
      }
      return r;
    }
    const below = record ? new FieldSet() : applied;
    const out = sr === MAP ? this.maps(l, r, t, below) : this.lists(l, r, t, below);
    if (record) {
      applied.attach(pe, below);
      if (memberItself || ownsItself(sr, r)) applied.addMember(pe);
    }
    return out;
  }

  private maps(l: unknown, r: unknown, t: Topology, applied: FieldSet): JsonObject {
    const lo = isObject(l) ? l : NOTHING;
    const ro = isObject(r) ? r : NOTHING;
    const record = this.record;
    const path = this.path;
    const out: JsonObject = {};
    for (const k in lo) {
      const lv = lo[k];
      if (lv === undefined) continue;
      const rv = ro[k];
      if (rv === undefined) {
        out[k] = clone(lv);
        continue;
      }
      const ct = fieldType(t, k);
      const pe = fieldElement(k);
      path.push(pe);
      out[k] = this.value(lv, rv, ct, applied, pe, !isDeclared(t, k));
      path.pop();
    }
    for (const k in ro) {
      const rv = ro[k];
      if (rv === undefined || lo[k] !== undefined) continue;
      const ct = fieldType(t, k);
      if (record) {
        const pe = fieldElement(k);
        path.push(pe);
        this.value(undefined, rv, ct, applied, pe, !isDeclared(t, k));
        path.pop();
      }
      out[k] = rv;
    }
    return out;
  }

  /**
   * structured-merge-diff's list merge order: walk both lists; items only in the live list
   * stay where they are, items in the configuration come in its order, and shared items
   * move to where the configuration puts them. A live identity that repeats (possible in
   * objects written without apply) is replaced by the configuration's item when it names
   * it, and kept as is otherwise.
   */
  private lists(l: unknown, r: unknown, t: Topology, applied: FieldSet): unknown[] {
    const lhs = Array.isArray(l) ? l : [];
    const rhs = Array.isArray(r) ? r : [];
    const path = this.path;

    // Configured items: a fault is reported, and the item left out.
    const rOrder: PathElement[] = [];
    const rValues: unknown[] = [];
    let rSeen: Set<PathElement> | undefined;
    for (let i = 0; i < rhs.length; i++) {
      const pe = itemElement(t, rhs[i], i);
      if (typeof pe !== 'string') {
        this.errors.push(describeError(path, pe.error));
        continue;
      }
      if (rOrder.length > 0 && (rSeen !== undefined ? rSeen.has(pe) : rOrder.includes(pe))) {
        this.errors.push(describeError(path, duplicateError(pe)));
        continue;
      }
      rOrder.push(pe);
      rValues.push(rhs[i]);
      if (rSeen !== undefined) rSeen.add(pe);
      else if (rOrder.length >= 16) rSeen = new Set(rOrder);
    }
    // Live items by identity, in order.
    const lOrder: PathElement[] = new Array(lhs.length);
    let same = lhs.length === rOrder.length;
    for (let i = 0; i < lhs.length; i++) {
      const pe = itemElement(t, lhs[i], i);
      if (typeof pe !== 'string') throw new TypedError([describeError(path, pe.error)], true);
      lOrder[i] = pe;
      if (same && pe !== rOrder[i]) same = false;
    }

    const out: unknown[] = [];
    if (same) {
      // The same items in the same order, the usual re-apply: merge them pairwise.
      for (let i = 0; i < lhs.length; i++) {
        const pe = lOrder[i]!;
        path.push(pe);
        out.push(this.value(lhs[i], rValues[i], t.item, applied, pe, true));
        path.pop();
      }
      return out;
    }

    // First index by identity (-1 when it repeats, possible in objects written without apply).
    const lIndex = new Map<PathElement, number>();
    for (let i = 0; i < lOrder.length; i++) {
      const pe = lOrder[i]!;
      if (lIndex.has(pe)) {
        lIndex.set(pe, -1);
        this.exact = false;
        this.reordered = true;
      } else {
        lIndex.set(pe, i);
      }
    }
    const rItems = new Map<PathElement, unknown>();
    for (let i = 0; i < rOrder.length; i++) rItems.set(rOrder[i]!, rValues[i]);
    const shared: PathElement[] = [];
    for (const pe of rOrder) if (lIndex.has(pe)) shared.push(pe);
    let sharedAt = 0;
    let nextShared: PathElement | undefined = shared[sharedAt++];
    const mergedRight = new Set<PathElement>();
    let lastLive = -1;

    const mergeItem = (pe: PathElement): void => {
      const at = lIndex.get(pe);
      const lv = at === undefined || at < 0 ? undefined : lhs[at];
      if (at !== undefined && at >= 0) {
        if (at < lastLive) this.reordered = true;
        lastLive = at;
      }
      path.push(pe);
      out.push(this.value(lv, rItems.get(pe), t.item, applied, pe, true));
      path.pop();
    };

    let li = 0;
    let ri = 0;
    while (li < lOrder.length || ri < rOrder.length) {
      if (li < lOrder.length && ri < rOrder.length) {
        const pe = lOrder[li]!;
        if (pe === rOrder[ri]) {
          mergedRight.add(pe);
          mergeItem(pe);
          li++;
          ri++;
          nextShared = shared[sharedAt++];
          continue;
        }
        if (rItems.has(pe) && nextShared !== undefined && nextShared !== pe) {
          // A shared item, but not the one due now: it comes where the configuration has it.
          li++;
          continue;
        }
      }
      if (li < lOrder.length) {
        const pe = lOrder[li]!;
        if (!rItems.has(pe)) {
          if (li < lastLive) this.reordered = true;
          lastLive = li;
          out.push(clone(lhs[li]));
          li++;
          continue;
        }
        if (mergedRight.has(pe)) {
          li++;
          continue;
        }
      }
      if (ri < rOrder.length) {
        const pe = rOrder[ri]!;
        mergedRight.add(pe);
        mergeItem(pe);
        ri++;
        if (nextShared === pe) nextShared = shared[sharedAt++];
      }
    }
    return out;
  }
}
