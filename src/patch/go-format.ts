// How Go's fmt prints decoded JSON values, for error messages worded like those of
// k8s.io/apimachinery's strategicpatch (which kube-apiserver returns verbatim).

import { isObject } from '../api/json.ts';

/**
 * `%v` of a value decoded into interface{}: map[k:v ...] with sorted keys, [a b], <nil>.
 * Past 100 levels of nesting it prints "..." (these are error messages; a hostile patch
 * must not make them recurse without bound).
 */
export function goValue(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (depth >= 100) return '...';
  if (Array.isArray(value)) return `[${value.map((item) => goValue(item, depth + 1)).join(' ')}]`;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  return `map[${keys.map((key) => `${key}:${goValue(object[key], depth + 1)}`).join(' ')}]`;
}

/** `%s` of an interface{}: strings as they are, other scalars in Go's %!s(type=value) form. */
export function goString(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return `%!s(${goTypeName(value)}=${value})`;
  return goValue(value);
}

/** `%s` of reflect.TypeOf(value) for a value decoded into interface{}. */
export function goTypeName(value: unknown): string {
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return '[]interface {}';
  if (isObject(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return 'string';
}
