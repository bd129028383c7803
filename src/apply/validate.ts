// What structured-merge-diff refuses in an apply configuration before merging it
// (typed/validate.go, run when kube-apiserver makes the configuration a typed value): a
// key a struct does not declare, and a value of another kind than its schema's (a string
// where a number goes, a map where a list goes). List items without an identity or
// repeating one are reported by the merge (merge.ts).

import type { PathElement } from './field-path.ts';
import { fieldElement, indexElement } from './field-path.ts';
import type { Topology } from './topology.ts';
import { isObject } from '../api/json.ts';
import { describeError, itemElement } from './typed.ts';

/**
 * What the configuration `value` holds that structured-merge-diff's validation refuses,
 * worded as its errors, in the order of a walk; within one struct nothing after an
 * undeclared key (upstream stops looking at that struct there). The top-level metadata's
 * kinds are not looked at (the field manager words those itself).
 */
export function configurationErrors(value: unknown, topology: Topology): string[] {
  const walk: Walk = { names: [], containers: [], types: [], errors: [] };
  check(walk, value, topology);
  return walk.errors;
}

/** Go's `%v` of a structured-merge-diff value holding decoded JSON: `&{...}` around fmt's form. */
export function goValueOf(v: unknown): string {
  const plain = (x: unknown): string => {
    if (x === null || x === undefined) return '<nil>';
    if (Array.isArray(x)) return `[${x.map(plain).join(' ')}]`;
    if (isObject(x)) return `map[${Object.keys(x).sort().map((k) => `${k}:${plain(x[k])}`).join(' ')}]`;
    return String(x);
  };
  return `&{${plain(v)}}`;
}

/** Go's `%#v` of decoded JSON inside an interface (numbers are float64s, printed as `%v` prints them). */
function goSyntaxOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntaxOf).join(', ')}}`;
  if (isObject(v)) return `map[string]interface {}{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${goSyntaxOf(v[k])}`).join(', ')}}`;
  return String(v);
}

/** Go's `%T` of decoded JSON. */
function goTypeOf(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return isObject(v) ? 'map[string]interface {}' : 'float64';
}

/** structured-merge-diff's validateScalar: undefined when the value fits. */
function scalarError(t: Topology, v: unknown): string | undefined {
  if (v === null) return undefined;
  switch (t.scalar) {
    case 'numeric':
      return typeof v === 'number' ? undefined : `expected numeric (int or float), got ${goTypeOf(v)}`;
    case 'string':
      return typeof v === 'string' ? undefined : `expected string, got &value.valueUnstructured{Value:${goSyntaxOf(v)}}`;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `expected boolean, got ${goValueOf(v)}`;
    case 'untyped':
      return typeof v !== 'object' ? undefined : `expected any scalar, got ${goValueOf(v)}`;
    default:
      return undefined;
  }
}

/** Where the walk is: map keys and list indices, with the lists and their types; paths are made only for an error. */
interface Walk {
  names: (string | number)[];
  containers: unknown[][];
  types: Topology[];
  errors: string[];
}

function check(walk: Walk, v: unknown, t: Topology, kinds = true): void {
  // Untyped data refuses nothing; null is every kind's.
  if (t.kind === 'any' || v === null) return;
  if (t.kind === 'scalar') {
    const error = kinds ? scalarError(t, v) : undefined;
    if (error !== undefined) walk.errors.push(describeError(pathOf(walk), error));
    return;
  }
  if (t.kind === 'list' && !Array.isArray(v)) {
    if (kinds) walk.errors.push(describeError(pathOf(walk), `expected list, got ${goValueOf(v)}`));
    return;
  }
  if (Array.isArray(v)) {
    if (t.kind !== 'list') {
      if (kinds) walk.errors.push(describeError(pathOf(walk), `expected map, got ${goValueOf(v)}`));
      return;
    }
    const { names, containers, types } = walk;
    for (let i = 0; i < v.length; i++) {
      // An item that cannot have an identity is the merge's to report; nothing in it is looked at (as upstream).
      const item = v[i];
      if (t.listType === 'map' ? !isObject(item) : t.listType === 'set' && (item === null || typeof item === 'object')) continue;
      names.push(i);
      containers.push(v);
      types.push(t);
      check(walk, v[i], t.item, kinds);
      names.pop();
      containers.pop();
      types.pop();
    }
    return;
  }
  if (!isObject(v)) {
    if (kinds) walk.errors.push(describeError(pathOf(walk), `expected map, got ${goValueOf(v)}`));
    return;
  }
  const fields = t.fields;
  // The top-level metadata's kinds are the field manager's to word.
  const root = walk.names.length === 0;
  for (const k in v) {
    const child = v[k];
    if (child === undefined) continue;
    const declared = fields?.get(k);
    walk.names.push(k);
    if (declared === undefined && t.declaredOnly) {
      walk.errors.push(describeError(pathOf(walk), 'field not declared in schema'));
      walk.names.pop();
      return;
    }
    check(walk, child, declared ?? t.elem, kinds && !(root && k === 'metadata'));
    walk.names.pop();
  }
}

function pathOf(walk: Walk): PathElement[] {
  const path: PathElement[] = [];
  let list = 0;
  for (const name of walk.names) {
    if (typeof name === 'string') {
      path.push(fieldElement(name));
      continue;
    }
    const t = walk.types[list]!;
    const item = walk.containers[list]![name];
    list++;
    const identity = t.listType === 'atomic' ? undefined : itemElement(t, item, name);
    path.push(typeof identity === 'string' ? identity : indexElement(name));
  }
  return path;
}
