// Managed fields brought in line with the schema they are read against, as
// structured-merge-diff's Updater does at the start of every apply and update
// (reconcileManagedFieldsWithSchemaChanges, typed/reconcile_schema.go): a set holding
// fields below a node the schema makes atomic (a CRD's list or map made atomic since the
// set was written) owns the node itself instead. The other way, a node made granular, is
// left as upstream leaves it now (as if it had always been granular), and so are untyped
// maps (preserved unknown fields) and fields the schema does not declare.
//
// Upstream walks every manager's whole set on every write. Here a set read from
// managedFields is looked at as its FieldsV1 object, once per object and topology: one
// with nothing below an atomic node (nearly all) is remembered and passed over from then
// on, as are the objects this process's writes encode (rememberInLine), so that the lazily
// decoded sets stay undecoded.

import { FieldSet } from './field-set.ts';
import type { PathElement } from './field-path.ts';
import type { Topology } from './topology.ts';

/** FieldsV1 objects found to need nothing, with the topology they were read against. */
const alreadyInLine = new WeakMap<object, Topology>();

/** Whether the schema makes the node one field (its insides are not owned apart). */
function isAtomicNode(t: Topology): boolean {
  return (t.kind === 'map' && t.atomic) || (t.kind === 'list' && t.listType === 'atomic');
}

/** A struct's declared fields by their FieldsV1 keys (`f:name`), made once per struct. */
const fieldsByKey = new WeakMap<Topology, ReadonlyMap<string, Topology>>();

/** The topology below a FieldsV1 key or path element: a list's item, a struct's field, a map's entry. */
function childTopology(t: Topology, pe: string): Topology {
  if (t.kind === 'list') return t.item;
  if (t.fields === undefined) return t.elem;
  let byKey = fieldsByKey.get(t);
  if (byKey === undefined) {
    byKey = new Map([...t.fields].map(([name, field]) => [`f:${name}`, field]));
    fieldsByKey.set(t, byKey);
  }
  return byKey.get(pe) ?? t.elem;
}

/** Whether an atomic node lies anywhere below `t` (untyped data aside), made once per node. */
const atomicBelow = new WeakMap<Topology, boolean>();

function hasAtomicBelow(t: Topology): boolean {
  let known = atomicBelow.get(t);
  if (known !== undefined) return known;
  atomicBelow.set(t, false); // while looking: a schema that reaches itself adds nothing new
  known = false;
  const children = t.kind === 'list' ? [t.item] : t.kind === 'map' ? [...(t.fields?.values() ?? []), t.elem] : [];
  for (const child of children) {
    if (child.kind !== 'scalar' && child.kind !== 'any' && (isAtomicNode(child) || hasAtomicBelow(child))) {
      known = true;
      break;
    }
  }
  atomicBelow.set(t, known);
  return known;
}

/** Whether a FieldsV1 level holds something below a node `t` makes atomic. */
function holdsBelowAtomic(raw: Record<string, unknown>, t: Topology): boolean {
  if (!hasAtomicBelow(t)) return false;
  for (const key in raw) {
    if (key === '.') continue;
    const value = raw[key];
    if (typeof value !== 'object' || value === null) continue;
    const child = childTopology(t, key);
    if (child.kind === 'scalar' || child.kind === 'any') continue;
    let nested = false;
    for (const k in value) {
      if (k !== '.') {
        nested = true;
        break;
      }
    }
    if (nested && (isAtomicNode(child) || holdsBelowAtomic(value as Record<string, unknown>, child))) return true;
  }
  return false;
}

/**
 * Records that a FieldsV1 object a write just encoded fits `topology`, the schema of its
 * manager's version: what a write makes of sets reconciled with the schema it writes under
 * (their unions, differences, the fields of a value) holds nothing below an atomic node.
 */
export function rememberInLine(fieldsV1: unknown, topology: Topology): void {
  if (typeof fieldsV1 === 'object' && fieldsV1 !== null) alreadyInLine.set(fieldsV1, topology);
}

/**
 * `set` reconciled with `topology` (the schema of the version it was written through), or
 * undefined when nothing changes.
 */
export function reconcileWithSchema(set: FieldSet, topology: Topology): FieldSet | undefined {
  if (topology.kind !== 'map') return undefined;
  const source = set.sourceFieldsV1();
  if (source !== undefined) {
    if (alreadyInLine.get(source) === topology) return undefined;
    if (!holdsBelowAtomic(source, topology)) {
      alreadyInLine.set(source, topology);
      return undefined;
    }
  }
  const atomic = new FieldSet();
  collect(set, topology, [], atomic);
  if (atomic.isEmpty()) return undefined;
  // What lies below each atomic node goes; the node itself is owned instead.
  return set.recursiveDifference(atomic).union(atomic);
}

/** The atomic nodes `set` (what a manager holds at the node `t`) holds something below, into `out`. */
function collect(set: FieldSet, t: Topology, path: PathElement[], out: FieldSet): void {
  if (!hasAtomicBelow(t)) return;
  for (const pe of set.levelElements()) {
    const child = set.child(pe);
    if (child === undefined || child.isEmpty()) continue;
    const below = childTopology(t, pe);
    if (below.kind === 'scalar' || below.kind === 'any') continue;
    path.push(pe);
    if (isAtomicNode(below)) out.insert(path);
    else collect(child, below, path, out);
    path.pop();
  }
}
