// What decoding into a Go type and encoding it again adds to a built-in object: every Go
// value field the object did not hold, at its zero value. kube-apiserver stores and
// answers its Go objects, so a Service it created has `status: {loadBalancer: {}}`, a new
// CRD `status.acceptedNames: {kind: "", plural: ""}`, a Pod's condition `lastProbeTime:
// null`, an Event `reportingComponent: ""`, a Role without rules `rules: null` (a nil slice
// or map without omitempty), whatever the client sent. Pruning (prune.ts) does the other
// half: what Go's omitempty leaves out is dropped. And what upstream's Protobuf storage
// reads back: an empty slice or map without omitempty is nil there (`rules: []` is stored
// and answered as `rules: null`).

import { goEncodingOf } from './builtin/index.ts';
import { compileSchema, type SchemaNode } from './compiled.ts';
import type { Definitions, Schema } from './types.ts';

/** What to do at one schema node: the zero values to write, and the children to look into. */
interface Plan {
  written: readonly (readonly [string, unknown])[];
  /** Of `written`, the slices and maps (not a Time's or a RawExtension's null): empty, they are nil once stored as Protobuf. */
  containers: readonly string[];
  properties: Map<string, Plan>;
  items: Plan | undefined;
  additional: Plan | undefined;
}

/** Per node: its plan, or null when nothing under it is ever written (most of a ConfigMap). */
const plans = new WeakMap<SchemaNode, Plan | null>();

function planOf(node: SchemaNode): Plan | null {
  const known = plans.get(node);
  if (known !== undefined) return known;
  const encoding = goEncodingOf(node.schema);
  const plan: Plan = { written: encoding?.written ?? [], containers: encoding?.nilWhenEmpty ?? [], properties: new Map(), items: undefined, additional: undefined };
  // Known before its children are planned: a recursive schema (a CRD's JSONSchemaProps)
  // finds it there. Should it turn out empty, what holds it finds nothing to do.
  plans.set(node, plan);
  for (const key of Object.keys(node.schema.properties ?? {})) {
    const child = node.property(key);
    const childPlan = child === undefined ? null : planOf(child);
    if (childPlan !== null) plan.properties.set(key, childPlan);
  }
  plan.items = (node.items === undefined ? null : planOf(node.items)) ?? undefined;
  plan.additional = (node.additional === undefined ? null : planOf(node.additional)) ?? undefined;
  if (plan.written.length === 0 && plan.properties.size === 0 && plan.items === undefined && plan.additional === undefined) {
    plans.set(node, null);
    return null;
  }
  return plan;
}

/**
 * What was added where, by the object holding it: the schema's validation does not see
 * these (schema/validate.ts), so that its `required`, which for a built-in type names every
 * field without omitempty, still says `Required value` for what the client left out where
 * the type's own validation says nothing of it.
 */
const addedIn = new WeakMap<object, Map<string, unknown>>();
/** The objects given to addGoZeroValues that something was added to (one lookup per validation). */
const completed = new WeakSet<object>();

/**
 * Writes into `value` (in place) the zero value of every Go value field it does not hold,
 * for a built-in type's schema, as Go's JSON encoding writes them: value scalars without
 * omitempty ("", 0, false), value structs (`{}`, themselves completed), types with a
 * JSON form of their own (a zero Time `null`), and slices and maps without omitempty
 * (`null`). `stored` (a write about to be stored as Protobuf): also its empty slices and
 * maps without omitempty as `null`, as upstream's storage reads them back. Nothing for
 * custom resources' schemas.
 */
export function addGoZeroValues(defs: Definitions, schema: Schema, value: unknown, stored = false): void {
  const plan = planOf(compileSchema(defs, schema));
  if (plan !== null && addAt(plan, value, stored)) completed.add(value as object);
}

/** What addGoZeroValues added to `obj` (one object of a value with `hasAddedZeros`), by key. */
export function addedZerosIn(obj: object): ReadonlyMap<string, unknown> | undefined {
  return addedIn.get(obj);
}

/**
 * Whether `item`, at `key` of an object to which `added` was added, is still only what was
 * added: the same value, and for a struct nothing in it but added zeros (a strategy's
 * defaulting may have filled the struct in since; a webhook replaces values).
 */
export function isStillAddedZero(added: ReadonlyMap<string, unknown>, key: string, item: unknown): boolean {
  if (added.get(key) !== item || !added.has(key)) return false;
  if (typeof item !== 'object' || item === null) return true;
  const inside = addedIn.get(item);
  for (const member in item) {
    if (inside === undefined || !isStillAddedZero(inside, member, (item as Record<string, unknown>)[member])) return false;
  }
  return true;
}

/** Whether addGoZeroValues added anything to `value`. */
export function hasAddedZeros(value: unknown): boolean {
  return typeof value === 'object' && value !== null && completed.has(value);
}

function addAt(plan: Plan, value: unknown, stored: boolean): boolean {
  if (typeof value !== 'object' || value === null) return false;
  let any = false;
  if (Array.isArray(value)) {
    if (plan.items !== undefined) for (const item of value) any = addAt(plan.items, item, stored) || any;
    return any;
  }
  const obj = value as Record<string, unknown>;
  if (stored && plan.containers.length > 0) nilEmptyContainers(obj, plan.containers);
  let added: Map<string, unknown> | undefined;
  for (const [key, zero] of plan.written) {
    if (Object.hasOwn(obj, key)) continue;
    const item = typeof zero === 'object' && zero !== null ? {} : zero;
    obj[key] = item;
    added ??= addedIn.get(obj) ?? new Map();
    added.set(key, item);
  }
  if (added !== undefined) {
    addedIn.set(obj, added);
    any = true;
  }
  const { properties, additional } = plan;
  for (const key in obj) {
    const item = obj[key];
    if (typeof item !== 'object' || item === null) continue;
    const child = properties.get(key) ?? additional;
    if (child !== undefined) any = addAt(child, item, stored) || any;
  }
  return any;
}

/**
 * Its own function: in addAt, which sees every plan's names, the keyed reads of these names
 * (made only for a write about to be stored) were deoptimized at every new name.
 */
function nilEmptyContainers(obj: Record<string, unknown>, keys: readonly string[]): void {
  for (const key of keys) {
    const item = obj[key];
    if (typeof item === 'object' && item !== null && isEmpty(item)) obj[key] = null;
  }
}

function isEmpty(item: object): boolean {
  if (Array.isArray(item)) return item.length === 0;
  for (const _ in item) return false;
  return true;
}
