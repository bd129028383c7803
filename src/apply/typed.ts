// Plain JSON values seen through a Topology: which values are leaves, how list items are
// identified, and the errors structured-merge-diff reports for values that do not fit
// (typed/helpers.go, typed/validate.go).

import type { Path, PathElement } from './field-path.ts';
import { displayPath, displayElement, keyElement, valueElement } from './field-path.ts';
import type { Topology } from './topology.ts';
import { isObject, type JsonObject } from '../api/json.ts';

/**
 * How a value is walked: LEAF (scalars, atomic maps and lists, values whose kind the
 * schema does not expect), MAP (granular maps and structs) or LIST (sets and list maps).
 */
export type Shape = 0 | 1 | 2;
export const LEAF = 0;
export const MAP = 1;
export const LIST = 2;

/**
 * How a present value is walked. Null for a granular map or list is a container with
 * nothing in it; where both sides of a merge or comparison are empty containers (or null),
 * the walkers treat the pair as a leaf, as structured-merge-diff does to keep the
 * difference between empty and null.
 */
export function shapeOf(v: unknown, t: Topology): Shape {
  if (Array.isArray(v)) {
    if (t.kind === 'list') return t.listType === 'atomic' ? LEAF : LIST;
    return LEAF; // untyped lists are atomic; a list where the schema wants something else is a leaf
  }
  if (v !== null && typeof v === 'object') {
    if (t.kind === 'map') return t.atomic ? LEAF : MAP;
    if (t.kind === 'any') return MAP;
    return LEAF;
  }
  if (v === null) {
    if (t.kind === 'map') return t.atomic ? LEAF : MAP;
    if (t.kind === 'list') return t.listType === 'atomic' ? LEAF : LIST;
  }
  return LEAF;
}

/** The declared type of a struct field or map entry. */
export function fieldType(t: Topology, name: string): Topology {
  if (t.fields !== undefined) {
    const declared = t.fields.get(name);
    if (declared !== undefined) return declared;
  }
  return t.elem;
}

/** Whether `name` is a declared field of the struct (its element is then not a member by itself). */
export function isDeclared(t: Topology, name: string): boolean {
  return t.fields !== undefined && t.fields.has(name);
}

/** Null, or a list or map with nothing in it. */
export function isEmptyContainer(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') {
    for (const _ in v as JsonObject) return false;
    return true;
  }
  return false;
}

/** An error of a value against its type, worded like structured-merge-diff's ValidationError. */
export class TypedError extends Error {
  readonly errors: string[];
  /** Whether the value at fault is the live object (else the applied configuration). */
  readonly live: boolean;
  constructor(errors: string[], live = false) {
    super(errors.length === 1 ? errors[0]! : ['errors:', ...errors.map((e) => '  ' + e)].join('\n'));
    this.name = 'TypedError';
    this.errors = errors;
    this.live = live;
  }
}

export function describeError(path: Path, message: string): string {
  return path.length === 0 ? message : `${displayPath(path)}: ${message}`;
}

/**
 * The element identifying a list item, or a string describing why it has none. List maps
 * use their key fields (a missing key takes the schema's default); sets use the value.
 */
export function itemElement(t: Topology, item: unknown, index: number): PathElement | { error: string } {
  if (t.listType === 'map') {
    if (!isObject(item)) {
      return { error: `element ${index}: ${item === null ? 'associative list with keys may not have a null element' : 'associative list with keys may not have non-map elements'}` };
    }
    const keys = t.keys;
    const values: unknown[] = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      let v = item[keys[i]!];
      if (v === undefined) {
        v = t.keyDefaults[i];
        if (v === undefined) {
          return { error: `element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(keys[i])} (and doesn't have default value)` };
        }
      }
      values[i] = v;
    }
    return keyElement(keys, values, t.quotedKeys);
  }
  if (item === null) return { error: `element ${index}: associative list without keys has an element that's an explicit null` };
  if (Array.isArray(item)) return { error: `element ${index}: not supported: associative list with lists as elements` };
  if (typeof item === 'object') return { error: `element ${index}: associative list without keys has an element that's a map type` };
  return valueElement(item);
}

export function duplicateError(pe: PathElement): string {
  return `duplicate entries for key ${displayElement(pe)}`;
}
