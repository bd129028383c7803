// What structured-merge-diff refuses in an apply configuration before merging it
// (typed/validate.go, run when kube-apiserver makes the configuration a typed value): a
// key a struct does not declare. List items without an identity or repeating one are
// reported by the merge (merge.ts), scalar types by the type's validation (a 422).

import type { PathElement } from './field-path.ts';
import { fieldElement, indexElement } from './field-path.ts';
import type { Topology } from './topology.ts';
import { isObject } from '../api/json.ts';
import { describeError, itemElement } from './typed.ts';

/**
 * The undeclared keys of the configuration `value`, worded as structured-merge-diff's
 * validation errors, in the order of a walk; within one struct only the first one
 * (upstream stops looking at that struct there).
 */
export function configurationErrors(value: unknown, topology: Topology): string[] {
  const walk: Walk = { names: [], containers: [], types: [], errors: [] };
  check(walk, value, topology);
  return walk.errors;
}

/** Where the walk is: map keys and list indices, with the lists and their types; paths are made only for an error. */
interface Walk {
  names: (string | number)[];
  containers: unknown[][];
  types: Topology[];
  errors: string[];
}

function check(walk: Walk, v: unknown, t: Topology): void {
  // Untyped data and scalars refuse nothing here.
  if (t.kind === 'any' || t.kind === 'scalar') return;
  if (Array.isArray(v)) {
    if (t.kind !== 'list') return;
    const { names, containers, types } = walk;
    for (let i = 0; i < v.length; i++) {
      names.push(i);
      containers.push(v);
      types.push(t);
      check(walk, v[i], t.item);
      names.pop();
      containers.pop();
      types.pop();
    }
    return;
  }
  if (!isObject(v) || t.kind !== 'map') return;
  const fields = t.fields;
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
    check(walk, child, declared ?? t.elem);
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
