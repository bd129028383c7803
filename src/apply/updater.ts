// Field ownership across managers, as structured-merge-diff's merge.Updater
// (merge/update.go). Managers are keyed by an opaque identifier; the Kubernetes layer
// (field-manager.ts) builds identifiers from (manager, operation, apiVersion, subresource).

import type { Comparison } from './compare.ts';
import { compare } from './compare.ts';
import { FieldSet } from './field-set.ts';
import { mergeApplied } from './merge.ts';
import type { Path } from './field-path.ts';
import { prune } from './prune.ts';
import type { Topology } from './topology.ts';
import { deepEqual } from '../api/json.ts';

export interface VersionedSet {
  readonly set: FieldSet;
  /** The API version the set was written against. */
  readonly apiVersion: string;
  /** Whether the set comes from an apply (else from an update). */
  readonly applied: boolean;
}

/** Every manager's fields, by manager identifier. */
export type Managers = ReadonlyMap<string, VersionedSet>;

export interface OwnershipConflict {
  /** Identifier of the manager owning the field. */
  manager: string;
  path: Path;
}

export interface UpdaterOptions {
  /** Fields whose changes are never recorded (upstream's reset fields). */
  ignored?: FieldSet;
  /**
   * Fields no manager ever owns (upstream's stripMetaManager: apiVersion, kind,
   * metadata.name...), removed as members from the applier's set once pruning is done.
   */
  stripped?: FieldSet;
}

function excludeIgnored(c: Comparison, ignored: FieldSet | undefined): Comparison {
  if (ignored === undefined || ignored.isEmpty()) return c;
  return {
    added: c.added.recursiveDifference(ignored),
    removed: c.removed.recursiveDifference(ignored),
    modified: c.modified.recursiveDifference(ignored),
  };
}

interface Reassigned {
  managers: Map<string, VersionedSet>;
  conflicts: OwnershipConflict[];
}

function isEmptyComparison(c: Comparison): boolean {
  return c.added.isEmpty() && c.removed.isEmpty() && c.modified.isEmpty();
}

/**
 * Takes what changed (`comparison`, ignored fields excluded) away from every manager but
 * `workflow`: fields others own that changed are conflicts (taken only with `force`),
 * fields that went away leave every set. Managers left with nothing disappear.
 */
function reassign(comparison: Comparison, managers: Managers, workflow: string, force: boolean): Reassigned {
  const changed = comparison.modified.union(comparison.added);
  const removed = comparison.removed;
  const out = new Map<string, VersionedSet>(managers);
  // The managers owning a changed field. Only conflicts name the fields: taking them is
  // taking `changed` away (what a set does not hold, subtracting leaves alone).
  const taken = new Set<string>();
  if (!changed.isEmpty()) {
    for (const [id, vs] of managers) {
      if (id !== workflow && vs.set.intersects(changed)) taken.add(id);
    }
  }
  if (!force && taken.size > 0) {
    const conflicts: OwnershipConflict[] = [];
    for (const id of taken) for (const path of managers.get(id)!.set.intersection(changed).paths()) conflicts.push({ manager: id, path });
    return { managers: out, conflicts };
  }
  if (taken.size === 0 && removed.isEmpty()) return { managers: out, conflicts: [] };
  for (const [id, vs] of managers) {
    if (id === workflow) continue;
    let set = vs.set;
    if (taken.has(id)) set = set.difference(changed);
    if (!removed.isEmpty()) set = set.difference(removed);
    if (set.isEmpty()) out.delete(id);
    else if (set !== vs.set) out.set(id, { set, apiVersion: vs.apiVersion, applied: vs.applied });
  }
  return { managers: out, conflicts: [] };
}

/**
 * Ownership after a non-apply write that turned `live` into `obj` (upstream Updater.Update):
 * the writer takes every field it changed or added, from everyone, without conflicts.
 */
export function updateOwnership(
  live: unknown,
  obj: unknown,
  topology: Topology,
  managers: Managers,
  manager: string,
  apiVersion: string,
  opts: UpdaterOptions = {},
): Map<string, VersionedSet> {
  const comparison = excludeIgnored(compare(live, obj, topology), opts.ignored);
  const { managers: out } = reassign(comparison, managers, manager, true);
  const previous = out.get(manager)?.set ?? new FieldSet();
  let set = previous.union(comparison.modified).union(comparison.added).difference(comparison.removed);
  if (opts.ignored !== undefined) set = set.recursiveDifference(opts.ignored);
  if (set.isEmpty()) out.delete(manager);
  else if (set !== previous || out.get(manager)?.apiVersion !== apiVersion || out.get(manager)?.applied) {
    out.set(manager, { set, apiVersion, applied: false });
  }
  return out;
}

export type ApplyOutcome =
  | { ok: true; object: unknown; managers: Map<string, VersionedSet>; changed: boolean }
  | { ok: false; conflicts: OwnershipConflict[] };

/**
 * Merges the configuration `applied` into `live` and gives `manager` ownership of exactly
 * the fields it applies (upstream Updater.Apply): what it applied before and omits now is
 * removed unless someone else owns it; changing a value another manager owns is a
 * conflict unless `force`, which takes the field from them; applying a value equal to
 * another manager's makes it shared.
 */
export function applyOwnership(
  live: unknown,
  applied: unknown,
  topology: Topology,
  managers: Managers,
  manager: string,
  apiVersion: string,
  force: boolean,
  opts: UpdaterOptions = {},
): ApplyOutcome {
  const m = mergeApplied(live, applied, topology);
  let set = m.applied;
  if (opts.ignored !== undefined) set = set.recursiveDifference(opts.ignored);
  let merged = m.merged;
  let kept = opts.stripped !== undefined ? set.difference(opts.stripped) : set;
  const last = managers.get(manager);
  let pruned = false;
  if (last !== undefined && !last.set.isEmpty()) {
    if (last.set.isSubsetOf(set)) {
      // Applying at least what it applied before: nothing to remove, and when it is the
      // same set keep the one read from managedFields, which encodes back as it came.
      if (kept.isSubsetOf(last.set)) kept = last.set;
    } else {
      // Pruning sees the applier's whole set: owning metadata.name keeps .metadata. What
      // any other manager owns stays, an Update manager's too (addBackOwnedItems).
      const owners = [set];
      for (const [id, vs] of managers) if (id !== manager) owners.push(vs.set);
      const before = merged;
      merged = prune(merged, topology, last.set, owners);
      pruned = merged !== before;
    }
  }
  set = kept;
  const raw = pruned || !m.exact ? compare(live, merged, topology) : m.diff;
  const withApplier = new Map(managers);
  withApplier.set(manager, { set, apiVersion, applied: true });
  const result = reassign(excludeIgnored(raw, opts.ignored), withApplier, manager, force);
  if (result.conflicts.length > 0) return { ok: false, conflicts: result.conflicts };
  if (set.isEmpty()) result.managers.delete(manager);
  const differs = !isEmptyComparison(raw);
  // Moving list items changes the object without changing any field.
  const changed = differs || (pruned || !m.exact ? !deepEqual(live, merged) : m.reordered);
  return { ok: true, object: merged, managers: result.managers, changed };
}
