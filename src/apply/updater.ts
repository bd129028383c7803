// Field ownership across managers, as structured-merge-diff's merge.Updater
// (merge/update.go). Managers are keyed by an opaque identifier; the Kubernetes layer
// (field-manager.ts) builds identifiers from (manager, operation, apiVersion, subresource).

import type { Comparison } from './compare.ts';
import { compare } from './compare.ts';
import { FieldSet } from './field-set.ts';
import { fieldsOf } from './fields-of.ts';
import { mergeApplied } from './merge.ts';
import type { Path } from './field-path.ts';
import { prune } from './prune.ts';
import { reconcileWithSchema } from './reconcile.ts';
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

/**
 * The API versions an object is served at (upstream's merge.Converter): a manager's set
 * names fields as the version it wrote through shows them, so what a write changed is
 * compared, for each manager, in that manager's version.
 */
export interface Versions {
  /** Whether the object is served at `apiVersion`; a manager of a version it is not served at is dropped, as upstream drops one its converter cannot reach. */
  has(apiVersion: string): boolean;
  /** `obj`, as `from` shows it, converted to `to` (both versions `has` knows, different). */
  convert(obj: unknown, from: string, to: string): unknown;
  /** The topology of the type as `apiVersion` shows it. */
  topology(apiVersion: string): Topology;
}

/**
 * Thrown by Versions.convert for a conversion it cannot make at once (a CRD's conversion
 * webhook): the caller makes it, then runs the write's managed fields again, when the
 * conversion is at hand. Nothing in the field manager catches it.
 */
export class ConversionPending extends Error {
  readonly obj: unknown;
  readonly from: string;
  readonly to: string;

  constructor(obj: unknown, from: string, to: string) {
    super(`conversion from ${from} to ${to} pending`);
    this.name = 'ConversionPending';
    this.obj = obj;
    this.from = from;
    this.to = to;
  }
}

export interface UpdaterOptions {
  /** Fields whose changes are never recorded (upstream's reset fields). */
  ignored?: FieldSet;
  /**
   * Fields no manager ever owns (upstream's stripMetaManager: apiVersion, kind,
   * metadata.name...), removed as members from the applier's set once pruning is done.
   */
  stripped?: FieldSet;
  /** The object's API versions; without them every set is read as of the version written. */
  versions?: Versions;
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

/** What a write changed, as one version shows it: values changed or added, and fields gone. */
interface Changes {
  changed: FieldSet;
  removed: FieldSet;
}

function changesOf(c: Comparison): Changes {
  return { changed: c.modified.union(c.added), removed: c.removed };
}

/**
 * What a write that turned `before` into `after` changed, as each manager's version shows
 * it (upstream's update compares the two converted to every version a manager wrote
 * through), computed once a version; undefined for a version the object is not served at.
 */
class ChangesByVersion {
  readonly #byVersion = new Map<string, Changes | undefined>();
  readonly #before: unknown;
  readonly #after: unknown;
  readonly #apiVersion: string;
  readonly #opts: UpdaterOptions;
  readonly #unchanged: boolean;

  constructor(before: unknown, after: unknown, apiVersion: string, comparison: Comparison, opts: UpdaterOptions) {
    this.#before = before;
    this.#after = after;
    this.#apiVersion = apiVersion;
    this.#opts = opts;
    this.#unchanged = isEmptyComparison(comparison);
    this.#byVersion.set(apiVersion, changesOf(comparison));
  }

  at(apiVersion: string): Changes | undefined {
    const versions = this.#opts.versions;
    if (versions === undefined) return this.#byVersion.get(this.#apiVersion);
    if (this.#byVersion.has(apiVersion)) return this.#byVersion.get(apiVersion);
    let changes: Changes | undefined;
    if (!versions.has(apiVersion)) changes = undefined;
    // Conversion is a function of the object: what did not change in one version changed in none.
    else if (this.#unchanged) changes = this.#byVersion.get(this.#apiVersion);
    else {
      const before = versions.convert(this.#before, this.#apiVersion, apiVersion);
      const after = versions.convert(this.#after, this.#apiVersion, apiVersion);
      changes = changesOf(excludeIgnored(compare(before, after, versions.topology(apiVersion)), this.#opts.ignored));
    }
    this.#byVersion.set(apiVersion, changes);
    return changes;
  }
}

/**
 * Takes what changed away from every manager but `workflow`, each as its version shows
 * it: fields others own that changed are conflicts (taken only with `force`), fields that
 * went away leave every set. Managers left with nothing disappear, and so do managers of
 * a version the object is no longer served at.
 */
function reassign(changes: ChangesByVersion, managers: Managers, workflow: string, force: boolean): Reassigned {
  const out = new Map<string, VersionedSet>(managers);
  // The managers owning a changed field, with what changed in their version. Only
  // conflicts name the fields: taking them is taking `changed` away (what a set does not
  // hold, subtracting leaves alone).
  const taken = new Map<string, Changes>();
  let removedAny = false;
  for (const [id, vs] of managers) {
    if (id === workflow) continue;
    const c = changes.at(vs.apiVersion);
    if (c === undefined) {
      out.delete(id);
      continue;
    }
    if (!c.changed.isEmpty() && vs.set.intersects(c.changed)) taken.set(id, c);
    if (!c.removed.isEmpty()) removedAny = true;
  }
  if (!force && taken.size > 0) {
    const conflicts: OwnershipConflict[] = [];
    for (const [id, c] of taken) for (const path of managers.get(id)!.set.intersection(c.changed).paths()) conflicts.push({ manager: id, path });
    return { managers: out, conflicts };
  }
  if (taken.size === 0 && !removedAny) return { managers: out, conflicts: [] };
  for (const [id, vs] of out) {
    if (id === workflow) continue;
    const c = changes.at(vs.apiVersion)!;
    let set = vs.set;
    if (taken.has(id)) set = set.difference(c.changed);
    if (!c.removed.isEmpty()) set = set.difference(c.removed);
    if (set.isEmpty()) out.delete(id);
    else if (set !== vs.set) out.set(id, { set, apiVersion: vs.apiVersion, applied: vs.applied });
  }
  return { managers: out, conflicts: [] };
}

/**
 * Every manager's set reconciled with the schema of its version (reconcile.ts), as
 * upstream's Updater does before an apply or update. A manager of a version the object is
 * no longer served at is left as it is (the write drops it).
 */
function inLineWithSchema(topology: Topology, managers: Managers, apiVersion: string, opts: UpdaterOptions): Managers {
  const versions = opts.versions;
  let out: Map<string, VersionedSet> | undefined;
  for (const [id, vs] of managers) {
    const version = versions === undefined ? apiVersion : vs.apiVersion;
    if (version !== apiVersion && !versions!.has(version)) continue;
    const there = version === apiVersion ? topology : versions!.topology(version);
    const reconciled = reconcileWithSchema(vs.set, there);
    if (reconciled !== undefined) (out ??= new Map(managers)).set(id, { set: reconciled, apiVersion: vs.apiVersion, applied: vs.applied });
  }
  return out ?? managers;
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
  managers = inLineWithSchema(topology, managers, apiVersion, opts);
  const comparison = excludeIgnored(compare(live, obj, topology), opts.ignored);
  const { managers: out } = reassign(new ChangesByVersion(live, obj, apiVersion, comparison, opts), managers, manager, true);
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
  managers = inLineWithSchema(topology, managers, apiVersion, opts);
  const m = mergeApplied(live, applied, topology);
  let set = m.applied;
  if (opts.ignored !== undefined) set = set.recursiveDifference(opts.ignored);
  let merged = m.merged;
  let kept = opts.stripped !== undefined ? set.difference(opts.stripped) : set;
  const last = managers.get(manager);
  let pruned = false;
  const versionOf = (vs: VersionedSet): string => (opts.versions === undefined ? apiVersion : vs.apiVersion);
  if (last !== undefined && !last.set.isEmpty()) {
    const lastVersion = versionOf(last);
    if (lastVersion === apiVersion && last.set.isSubsetOf(set)) {
      // Applying at least what it applied before: nothing to remove, and when it is the
      // same set keep the one read from managedFields, which encodes back as it came.
      if (kept.isSubsetOf(last.set)) kept = last.set;
    } else {
      // Pruning sees the applier's whole set: owning metadata.name keeps .metadata. What
      // any other manager owns stays, an Update manager's too (addBackOwnedItems).
      const owners = new Map<string, FieldSet[]>([[apiVersion, [set]]]);
      for (const [id, vs] of managers) {
        if (id === manager) continue;
        const sets = owners.get(versionOf(vs));
        if (sets === undefined) owners.set(versionOf(vs), [vs.set]);
        else sets.push(vs.set);
      }
      const before = merged;
      merged = lastVersion === apiVersion && owners.size === 1
        ? prune(merged, topology, last.set, owners.get(apiVersion)!)
        : pruneAcrossVersions(merged, apiVersion, last, owners, opts.versions!);
      pruned = merged !== before;
    }
  }
  set = kept;
  const raw = excludeIgnored(pruned || !m.exact ? compare(live, merged, topology) : m.diff, opts.ignored);
  const withApplier = new Map(managers);
  withApplier.set(manager, { set, apiVersion, applied: true });
  const result = reassign(new ChangesByVersion(live, merged, apiVersion, raw, opts), withApplier, manager, force);
  if (result.conflicts.length > 0) return { ok: false, conflicts: result.conflicts };
  if (set.isEmpty()) result.managers.delete(manager);
  const differs = !isEmptyComparison(raw);
  // Moving list items changes the object without changing any field.
  const changed = differs || (pruned || !m.exact ? !deepEqual(live, merged) : m.reordered);
  return { ok: true, object: merged, managers: result.managers, changed };
}

/**
 * Pruning when the applier last applied through another version, or managers of other
 * versions own fields (upstream's prune with addBackOwnedItems and addBackDanglingItems):
 * the applier's previous set is taken out of the object as that set's version shows it,
 * keeping what managers of that version own; of what went, what managers of each other
 * version own comes back, as their version shows it; and in the end only what the applier
 * owned last time is gone. `owners` holds every manager's set, the applier's new one
 * included, by version. A previous set of a version the object is no longer served at
 * prunes nothing.
 */
function pruneAcrossVersions(merged: unknown, apiVersion: string, last: VersionedSet, owners: ReadonlyMap<string, FieldSet[]>, versions: Versions): unknown {
  const lastVersion = last.apiVersion;
  if (!versions.has(lastVersion)) return merged;
  const to = (obj: unknown, from: string, version: string): unknown => (from === version ? obj : versions.convert(obj, from, version));
  const lastTopology = versions.topology(lastVersion);
  const mergedLast = to(merged, apiVersion, lastVersion);
  let pruned = prune(mergedLast, lastTopology, last.set, owners.get(lastVersion) ?? []);
  if (pruned === mergedLast) return merged;
  let at = lastVersion;
  for (const [version, sets] of owners) {
    if (version === lastVersion || !versions.has(version)) continue;
    const topology = versions.topology(version);
    const mergedThere = to(mergedLast, lastVersion, version);
    const gone = fieldsOf(mergedThere, topology).difference(fieldsOf(to(pruned, at, version), topology));
    pruned = prune(mergedThere, topology, gone, sets);
    at = version;
  }
  if (at !== lastVersion) {
    const gone = fieldsOf(mergedLast, lastTopology).difference(fieldsOf(to(pruned, at, lastVersion), lastTopology));
    pruned = prune(mergedLast, lastTopology, gone.intersection(last.set), []);
  }
  return to(pruned, lastVersion, apiVersion);
}
