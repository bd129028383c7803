// Field errors as k8s.io/apimachinery/pkg/util/validation/field builds them, turned into
// the StatusCause a 422 carries: `reason` is the error type, `field` the path and
// `message` the error body ("Invalid value: \"x\": detail").

import { goIsPrint } from './go-print.ts';
import type { StatusCause } from './types.ts';

/**
 * Go's strconv.Quote: `"` and `\\` escaped; printable runes (strconv.IsPrint, Unicode 15)
 * as they are; `\a \b \f \n \r \t \v`; other control characters as `\xNN`; other
 * runes as `\uNNNN` or `\UNNNNNNNN`. A lone surrogate, which no Go string holds, is
 * quoted as the U+FFFD Go reads in its place. One replace over the runes that may need a
 * look: a string grown a character at a time held some 30 times its length until flattened,
 * ~90 MB for a client's 3 MB value.
 */
export function goQuote(s: string): string {
  return `"${s.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e\xa1-\xac\xae-\xff]/gu, goEscape)}"`;
}

/** Go's %q of a []string: `["a" "b"]`. */
export function goQuoteList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

function goEscape(ch: string): string {
  const r = ch.codePointAt(0)!;
  if (goIsPrint(r)) return ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  switch (r) {
    case 0x07: return '\\a';
    case 0x08: return '\\b';
    case 0x0c: return '\\f';
    case 0x0a: return '\\n';
    case 0x0d: return '\\r';
    case 0x09: return '\\t';
    case 0x0b: return '\\v';
  }
  if (r < 0x20 || r === 0x7f) return `\\x${r.toString(16).padStart(2, '0')}`;
  if (r >= 0xd800 && r <= 0xdfff) return '\\ufffd';
  return r < 0x10000 ? `\\u${r.toString(16).padStart(4, '0')}` : `\\U${r.toString(16).padStart(8, '0')}`;
}

/**
 * Appends each part's items to `list` one at a time. `list.push(...items)` passes every
 * item as an argument, and a part of some 100k (one cause per entry of a long list in a
 * request) overflowed the stack: a 500 where upstream answers 422.
 */
export function appendAll<T>(list: T[], ...parts: Iterable<T>[]): void {
  for (const part of parts) for (const item of part) list.push(item);
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
 * A bad value's text given as upstream renders it, passed through unchanged: for values
 * whose Go type the JSON data does not tell (a struct's fields in declaration order, an
 * internal type's Go field names, a quantity's canonical form).
 */
export class GoValue {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

const goHtmlEscapes: Readonly<Record<string, string>> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * JSON text with what Go's encoder escapes besides JSON.stringify: `<`, `>`, `&`, U+2028,
 * U+2029 (which occur in JSON text only inside strings).
 */
export function goEscaped(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => goHtmlEscapes[c]!);
}

/**
 * Go's json.Marshal: compact, with Go's escapes. Objects keep their key order (a Go
 * struct's fields in declaration order) unless `sortKeys`, as a Go map's are (written
 * out here: a JavaScript object would put integer-like keys first). A `GoValue` inside
 * is taken as already rendered (a map within a struct).
 */
export function goJson(value: unknown, sortKeys = false): GoValue {
  const render = (v: unknown): string => {
    if (v instanceof GoValue) return v.text;
    if (v === null || v === undefined) return 'null';
    if (Array.isArray(v)) return `[${v.map(render).join(',')}]`;
    if (typeof v !== 'object') return goEscaped(JSON.stringify(v));
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined);
    if (sortKeys) keys.sort();
    return `{${keys.map((k) => `${goEscaped(JSON.stringify(k))}:${render(o[k])}`).join(',')}}`;
  };
  return new GoValue(render(value));
}

/**
 * A value rendered as upstream's ErrorBody renders a bad value (apimachinery since
 * Kubernetes 1.34): booleans and numbers plainly, strings quoted, anything else as
 * json.Marshal writes it. Plain objects are taken for Go maps (keys sorted); a struct's
 * rendering is given as a `GoValue`.
 */
function formatBadValue(value: unknown): string {
  if (value instanceof GoValue) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return goJson(value, true).text;
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

/** field.NotFound, or with a detail the error a caller builds itself (a *field.Error of type NotFound). */
export function notFound(field: FieldPath, value: unknown, detail = ''): StatusCause {
  return cause('FieldValueNotFound', field, `Not found: ${formatBadValue(value)}`, detail);
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

/** A value decoded from JSON into interface{} (apiextensions' list keys, set items, defaults): JSON, map keys sorted. */
export function goUnstructured(v: unknown): GoValue {
  return goJson(v, true);
}
