// What structured-merge-diff refuses in an apply configuration before merging it
// (typed/validate.go, run when kube-apiserver makes the configuration a typed value):
// a key a struct does not declare, and list items without an identity or repeating one.
// Scalar types are left to the type's validation, which answers them with a 422.

import type { PathElement } from './field-path.ts';
import { fieldElement, indexElement } from './field-path.ts';
import type { Topology } from './topology.ts';
import { describeError, duplicateError, isObject, itemElement } from './typed.ts';

/**
 * The faults of the configuration `value`, worded as structured-merge-diff's validation
 * errors, in the order of a walk: within one struct only the first undeclared key is
 * reported (upstream stops looking at that struct there), within one list only the first
 * item without an identity.
 */
export function configurationErrors(value: unknown, topology: Topology): string[] {
  const errors: string[] = [];
  check(value, topology, [], errors);
  return errors;
}

function check(v: unknown, t: Topology, path: PathElement[], errors: string[]): void {
  // Untyped data and scalars refuse nothing here.
  if (t.kind === 'any' || t.kind === 'scalar') return;
  if (Array.isArray(v)) {
    if (t.kind === 'list') checkItems(v, t, path, errors);
    return;
  }
  if (!isObject(v) || t.kind !== 'map') return;
  for (const k in v) {
    const child = v[k];
    if (child === undefined) continue;
    const declared = t.fields?.get(k);
    path.push(fieldElement(k));
    if (declared === undefined && t.declaredOnly) {
      errors.push(describeError(path, 'field not declared in schema'));
      path.pop();
      return;
    }
    check(child, declared ?? t.elem, path, errors);
    path.pop();
  }
}

function checkItems(list: unknown[], t: Topology, path: PathElement[], errors: string[]): void {
  const seen = new Set<PathElement>();
  for (let i = 0; i < list.length; i++) {
    let pe: PathElement;
    if (t.listType === 'atomic') {
      pe = indexElement(i);
    } else {
      const identity = itemElement(t, list[i], i);
      if (typeof identity !== 'string') {
        errors.push(describeError(path, identity.error));
        return;
      }
      pe = identity;
      if (seen.has(pe)) errors.push(describeError(path, duplicateError(pe)));
      seen.add(pe);
    }
    path.push(pe);
    check(list[i], t.item, path, errors);
    path.pop();
  }
}
