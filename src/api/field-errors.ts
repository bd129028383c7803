// Field errors as k8s.io/apimachinery/pkg/util/validation/field builds them, turned into
// the StatusCause a 422 carries: `reason` is the error type, `field` the path and
// `message` the error body ("Invalid value: \"x\": detail").

import type { StatusCause } from './types.ts';

/** Go's strconv.Quote, close enough for the values that appear in error messages. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

function goTypeOf(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return v.length > 0 ? `[]${goTypeOf(v[0])}` : '[]interface {}';
  if (v !== null && typeof v === 'object') {
    const values = Object.values(v);
    return values.length > 0 ? `map[string]${goTypeOf(values[0])}` : 'map[string]string';
  }
  return 'interface {}';
}

/** Go's %#v for plain JSON data: strings quoted, slices and maps with their type. */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `${goTypeOf(v)}{${v.map(goSyntax).join(', ')}}`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `${goTypeOf(v)}{${entries.map(([k, val]) => `${goQuote(k)}:${goSyntax(val)}`).join(', ')}}`;
  }
  return String(v);
}

/**
 * A value rendered as upstream's ErrorBody renders a bad value: simple types plainly,
 * strings quoted, anything else with %#v. A `GoValue` passes its text through unchanged
 * (for values upstream prints with a String() method or a Go type name).
 */
export class GoValue {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

function formatBadValue(value: unknown): string {
  if (value instanceof GoValue) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return goSyntax(value);
}

/** A field path: `spec.containers[0].name`, `metadata.labels`, `data[key]`. */
export type FieldPath = string;

/** `path` and `names` joined by dots, empty parts left out. (Validation makes one per field it visits.) */
export function child(path: FieldPath, ...names: string[]): FieldPath {
  let joined = path;
  for (const name of names) {
    if (name === '') continue;
    joined = joined === '' ? name : `${joined}.${name}`;
  }
  return joined;
}

export function index(path: FieldPath, i: number): FieldPath {
  return `${path}[${i}]`;
}

export function key(path: FieldPath, k: string): FieldPath {
  return `${path}[${k}]`;
}

function cause(reason: string, field: FieldPath, body: string, detail: string): StatusCause {
  return { reason, message: detail === '' ? body : `${body}: ${detail}`, field };
}

export function required(field: FieldPath, detail = ''): StatusCause {
  return cause('FieldValueRequired', field, 'Required value', detail);
}

export function forbidden(field: FieldPath, detail: string): StatusCause {
  return cause('FieldValueForbidden', field, 'Forbidden', detail);
}

export function invalid(field: FieldPath, value: unknown, detail: string): StatusCause {
  return cause('FieldValueInvalid', field, `Invalid value: ${formatBadValue(value)}`, detail);
}

/** field.Invalid with field.OmitValueType: the body names no value (upstream's choice for objects and lists). */
export function invalidOmittingValue(field: FieldPath, detail: string): StatusCause {
  return cause('FieldValueInvalid', field, 'Invalid value', detail);
}

export function duplicate(field: FieldPath, value: unknown): StatusCause {
  return cause('FieldValueDuplicate', field, `Duplicate value: ${formatBadValue(value)}`, '');
}

export function notFound(field: FieldPath, value: unknown): StatusCause {
  return cause('FieldValueNotFound', field, `Not found: ${formatBadValue(value)}`, '');
}

export function notSupported(field: FieldPath, value: unknown, validValues: readonly string[]): StatusCause {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map(goQuote).join(', ')}` : '';
  return cause('FieldValueNotSupported', field, `Unsupported value: ${formatBadValue(value)}`, detail);
}

/** field.TooLong as current apimachinery words it: "may not be more than N bytes". */
export function tooLong(field: FieldPath, maxLength: number): StatusCause {
  return cause('FieldValueTooLong', field, 'Too long', `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}`);
}

export function tooMany(field: FieldPath, actual: number, max: number): StatusCause {
  return cause('FieldValueTooMany', field, `Too many: ${actual}`, `must have at most ${max} items`);
}

/** Upstream's FieldImmutableErrorMsg. */
export const fieldImmutable = 'field is immutable';

/** Upstream's IsNegativeErrorMsg. */
const isNegative = 'must be greater than or equal to 0';

export function validateNonnegative(value: number, field: FieldPath): StatusCause[] {
  return value < 0 ? [invalid(field, value, isNegative)] : [];
}

/** Upstream's TypeInvalid: a value of the wrong type, e.g. a string where an integer belongs. */
export function typeInvalid(field: FieldPath, value: unknown, detail: string): StatusCause {
  return cause('FieldValueTypeInvalid', field, `Invalid value: ${formatBadValue(value)}`, detail);
}

/**
 * Go's %#v of a value decoded from JSON into interface{} (how apiextensions prints list
 * keys and set items): `map[string]interface {}{"name":"a"}`, `[]interface {}{1, "x"}`.
 */
export function goUnstructured(v: unknown): GoValue {
  const render = (x: unknown): string => {
    if (x === null || x === undefined) return 'interface {}(nil)';
    if (typeof x === 'string') return goQuote(x);
    if (typeof x === 'number' || typeof x === 'boolean') return String(x);
    if (Array.isArray(x)) return `[]interface {}{${x.map(render).join(', ')}}`;
    const entries = Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[string]interface {}{${entries.map(([k, val]) => `${goQuote(k)}:${render(val)}`).join(', ')}}`;
  };
  return new GoValue(render(v));
}
