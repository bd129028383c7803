// Field paths and their elements, held in their FieldsV1 serialized form so that a set's
// keys are its wire form: `f:name` (a struct field or map key), `k:{"name":"nginx"}` (an
// item of a list map, keys in sorted order), `v:"value"` (an item of a set), `i:3` (an
// item of a list by position; structured-merge-diff keeps it for granular lists without
// keys, which Kubernetes schemas never declare, so it only appears in foreign data).
// Ordering and display follow sigs.k8s.io/structured-merge-diff fieldpath/element.go.

import { goEscaped } from '../api/field-errors.ts';
import { isObject } from '../api/json.ts';

export type PathElement = string;

/** A path from the object's root, one serialized element per step. */
export type Path = readonly PathElement[];

export function fieldElement(name: string): PathElement {
  return 'f:' + name;
}

export function indexElement(index: number): PathElement {
  return 'i:' + index;
}

export function valueElement(value: unknown): PathElement {
  return 'v:' + goJSON(value);
}

/**
 * A list-map item's element; `names` must be sorted, `values` in the same order.
 * `quotedNames`, when given, are the names already as JSON strings.
 */
export function keyElement(names: readonly string[], values: readonly unknown[], quotedNames?: readonly string[]): PathElement {
  let out = 'k:{';
  for (let i = 0; i < names.length; i++) {
    if (i > 0) out += ',';
    out += (quotedNames?.[i] ?? goString(names[i]!)) + ':' + goJSON(values[i]);
  }
  return out + '}';
}

/** Characters JSON or Go's encoder escapes in strings. */
const needsEscape = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;
const htmlUnsafe = /[<>&\u2028\u2029]/;

/** A JSON string as Go's encoding/json writes it (HTML-sensitive characters escaped). */
export function goString(s: string): string {
  if (!needsEscape.test(s)) return '"' + s + '"';
  const json = JSON.stringify(s);
  return htmlUnsafe.test(json) ? goEscaped(json) : json;
}

/** JSON as Go's encoding/json writes it: map keys sorted, HTML-sensitive characters escaped. */
function goJSON(value: unknown): string {
  if (typeof value === 'string') return goString(value);
  if (value === null || typeof value !== 'object') return value === undefined ? 'null' : JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map(goJSON).join(',') + ']';
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort(compareStrings);
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) out += ',';
    out += goString(keys[i]!) + ':' + goJSON(obj[keys[i]!]);
  }
  return out + '}';
}

/**
 * Go's string order (bytes of UTF-8, that is code points). JavaScript's `<` compares
 * UTF-16 units, which differs only between astral characters and U+E000..U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 || y >= 0xd800) {
      const cx = a.codePointAt(i)!;
      const cy = b.codePointAt(i)!;
      if (cx !== cy) return cx < cy ? -1 : 1;
      continue;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** 0 field, 1 key, 2 value, 3 index, 4 unknown. */
function category(pe: PathElement): number {
  switch (pe.charCodeAt(0)) {
    case 102: return 0; // f
    case 107: return 1; // k
    case 118: return 2; // v
    case 105: return 3; // i
    default: return 4;
  }
}

interface Decorated {
  pe: PathElement;
  category: number;
  /** Key fields (k:), value (v:) or index (i:). */
  parsed: unknown;
}

function decorate(pe: PathElement): Decorated {
  let decorated = decoratedBefore.get(pe);
  if (decorated !== undefined) return decorated;
  const c = category(pe);
  let parsed: unknown;
  if (c === 1) parsed = keyFieldsOf(pe);
  else if (c === 2) parsed = JSON.parse(pe.slice(2));
  else if (c === 3) parsed = Number(pe.slice(2));
  decorated = { pe, category: c, parsed };
  if (decoratedBefore.size >= decoratedBeforeLimit) decoratedBefore.clear();
  decoratedBefore.set(pe, decorated);
  return decorated;
}

/**
 * Elements parsed before: the same keys (`k:{"name":"app"}`) come back on every write
 * of an object and of its kind, and sorting them parsed each once per sort. Only read.
 */
const decoratedBefore = new Map<PathElement, Decorated>();
const decoratedBeforeLimit = 4096;

function compareDecorated(a: Decorated, b: Decorated): number {
  if (a.category !== b.category) return a.category - b.category;
  switch (a.category) {
    case 1: return compareKeyFields(a.parsed as [string, unknown][], b.parsed as [string, unknown][]);
    case 2: return compareValues(a.parsed, b.parsed);
    case 3: return (a.parsed as number) - (b.parsed as number);
    default: return compareStrings(a.pe, b.pe);
  }
}

/** Elements in the order of structured-merge-diff's PathElement.Compare (fields, keys, values, indices), parsing each key or value once. */
export function sortPathElements(pes: PathElement[]): PathElement[] {
  let simple = true;
  for (const pe of pes) {
    if (pe.charCodeAt(0) !== 102 /* f */) {
      simple = false;
      break;
    }
  }
  if (simple) return pes.length <= 16 ? insertionSort(pes, compareStrings) : pes.sort(compareStrings);
  if (pes.length <= 16) return insertionSort(pes, compareElements);
  return pes.map(decorate).sort(compareDecorated).map((d) => d.pe);
}

function compareElements(a: PathElement, b: PathElement): number {
  return compareDecorated(decorate(a), decorate(b));
}

/**
 * In place, for the short lists most levels hold: Array.prototype.sort copies the array
 * into a work array of its own each time (and decorating makes two arrays more), and
 * FieldsV1 encoding sorts once per level (~100 KB of an apply's allocation before).
 */
function insertionSort(pes: PathElement[], compare: (a: PathElement, b: PathElement) => number): PathElement[] {
  for (let i = 1; i < pes.length; i++) {
    const pe = pes[i]!;
    let j = i - 1;
    while (j >= 0 && compare(pes[j]!, pe) > 0) {
      pes[j + 1] = pes[j]!;
      j--;
    }
    pes[j + 1] = pe;
  }
  return pes;
}

function keyFieldsOf(pe: PathElement): [string, unknown][] {
  const obj = JSON.parse(pe.slice(2)) as Record<string, unknown>;
  return Object.keys(obj).sort(compareStrings).map((k) => [k, obj[k]]);
}

function compareKeyFields(a: [string, unknown][], b: [string, unknown][]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length) return i >= b.length ? 0 : -1;
    if (i >= b.length) return 1;
    const byName = compareStrings(a[i]![0], b[i]![0]);
    if (byName !== 0) return byName;
    const byValue = compareValues(a[i]![1], b[i]![1]);
    if (byValue !== 0) return byValue;
  }
}

/** structured-merge-diff's value order: numbers, strings, booleans, lists, maps, null. */
function rank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0: return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1: return compareStrings(a as string, b as string);
    case 2: return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= x.length) return i >= y.length ? 0 : -1;
        if (i >= y.length) return 1;
        const c = compareValues(x[i], y[i]);
        if (c !== 0) return c;
      }
    }
    case 4: {
      const x = a as Record<string, unknown>;
      const y = b as Record<string, unknown>;
      const kx = Object.keys(x).sort(compareStrings);
      const ky = Object.keys(y).sort(compareStrings);
      if (kx.length !== ky.length) return kx.length - ky.length;
      return compareKeyFields(kx.map((k) => [k, x[k]]), ky.map((k) => [k, y[k]]));
    }
    default: return 0;
  }
}

/**
 * A serialized element in canonical form (key fields sorted, values as Go writes them), so
 * that elements written by other encoders (Go escapes `<` as `\u003c`; other clients may
 * not) compare equal. Throws on a malformed element; returns undefined for an unknown kind,
 * which readers drop like structured-merge-diff does.
 */
export function canonicalElement(pe: string): PathElement | undefined {
  if (pe.length < 2 || pe.charCodeAt(1) !== 58 /* : */) throw new Error(`invalid path element ${JSON.stringify(pe)}`);
  switch (pe.charCodeAt(0)) {
    case 102: // f
      return pe;
    case 107: { // k
      if (isCanonicalKey(pe)) return pe;
      const obj: unknown = JSON.parse(pe.slice(2));
      if (!isObject(obj)) throw new Error(`invalid key ${JSON.stringify(pe)}`);
      const fields = obj;
      const names = Object.keys(fields).sort(compareStrings);
      return keyElement(names, names.map((n) => fields[n]));
    }
    case 118: { // v
      const end = scanSimpleValue(pe, 2);
      if (end === pe.length) return pe;
      return valueElement(JSON.parse(pe.slice(2)));
    }
    case 105: { // i
      const index = Number(pe.slice(2));
      if (!Number.isInteger(index) || pe.length === 2) throw new Error(`invalid index ${JSON.stringify(pe)}`);
      return indexElement(index);
    }
    default:
      return undefined;
  }
}

/**
 * The end of a string without escapes or an integer starting at `i` in `s`, or -1: the
 * values whose JSON is already canonical.
 */
function scanSimpleValue(s: string, i: number): number {
  const n = s.length;
  if (s.charCodeAt(i) === 34 /* " */) {
    const end = s.indexOf('"', i + 1);
    if (end < 0 || needsEscape.test(s.slice(i + 1, end))) return -1;
    return end + 1;
  }
  let j = i;
  if (s.charCodeAt(j) === 45 /* - */) j++;
  const start = j;
  while (j < n && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
  if (j === start || (s.charCodeAt(start) === 48 && j - start > 1)) return -1;
  return j;
}

/** Whether a `k:` element is already canonical: plain names in order, plain values. */
function isCanonicalKey(pe: string): boolean {
  const n = pe.length;
  if (pe.charCodeAt(2) !== 123 /* { */ || pe.charCodeAt(n - 1) !== 125 /* } */) return false;
  let i = 3;
  let previous: string | undefined;
  for (;;) {
    if (pe.charCodeAt(i) !== 34) return false;
    const end = pe.indexOf('"', i + 1);
    if (end < 0) return false;
    const name = pe.slice(i + 1, end);
    if (needsEscape.test(name) || (previous !== undefined && compareStrings(previous, name) >= 0)) return false;
    previous = name;
    if (pe.charCodeAt(end + 1) !== 58 /* : */) return false;
    i = scanSimpleValue(pe, end + 2);
    if (i < 0) return false;
    const sep = pe.charCodeAt(i);
    if (sep === 44 /* , */) {
      i++;
      continue;
    }
    return sep === 125 && i === n - 1;
  }
}

/** A value as structured-merge-diff's value.ToString shows it in messages. */
function displayValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return '[' + v.map(displayValue).join(',') + ']';
  const obj = v as Record<string, unknown>;
  return Object.keys(obj).sort(compareStrings).map((k) => `${k}=${displayValue(obj[k])}`).join('');
}

/** `.name`, `[name="nginx"]`, `[="value"]`, `[3]`, as in conflict messages. */
export function displayElement(pe: PathElement): string {
  switch (category(pe)) {
    case 0: return '.' + pe.slice(2);
    case 1: return '[' + keyFieldsOf(pe).map(([k, v]) => `${k}=${displayValue(v)}`).join(',') + ']';
    case 2: return '[=' + displayValue(JSON.parse(pe.slice(2))) + ']';
    case 3: return '[' + pe.slice(2) + ']';
    default: return '{{invalid path element}}';
  }
}

/** `.spec.template.spec.containers[name="nginx"].image`. */
export function displayPath(path: Path): string {
  let out = '';
  for (const pe of path) out += displayElement(pe);
  return out;
}
