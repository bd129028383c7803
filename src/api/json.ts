// Plain JSON data as JSON.parse gives it: objects, arrays, strings, numbers, booleans and
// null. The one place for telling objects apart, copying and comparing such data.
//
// Copying and comparing recurse, several times faster than JSON's round trip, structured
// cloning or util.isDeepStrictEqual (bench/json.ts). Data nested deeper than the stack
// allows (a patch may nest 100,000 levels) exhausts it at no cost to the common case: the
// RangeError is caught and the same walk is made again iteratively. A member whose value
// is `undefined` counts as absent, as in JSON.

export type JsonObject = Record<string, unknown>;

/** A JSON value's kind as Go's encoding/json names it in its errors ("cannot unmarshal array into ..."). */
export function goJsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/**
 * Go's encoding/json error for a value its struct field cannot hold (UnmarshalTypeError):
 * `struct` is the Go struct holding the field, `path` the field's JSON path from the
 * document's root. A number refused by an integer field is named with its text ("number
 * 1.5"), which is gone by now: JSON writes it back alike but for one past a double's
 * range (1e400 parsed as Infinity), named "number" alone; `numberText`, where the body's
 * text is known (a number written with a fraction or an exponent, api/number-forms.ts).
 */
export function goFieldTypeError(value: unknown, struct: string, path: string, goType: string, numberText?: string): string {
  const kind = numberText !== undefined ? `number ${numberText}`
    : typeof value === 'number' && (goType === 'int64' || goType === 'int32') ? goNumberKind(value) : goJsonKind(value);
  return `json: cannot unmarshal ${kind} into Go struct field ${struct}.${path} of type ${goType}`;
}

/**
 * Go names a number its numeric field cannot hold by the body's text (`number 1e400`), which
 * a value read as Infinity no longer has: put back from the body (`numberText`) where the
 * error has none.
 */
export function withNumberText(error: string, numberText: string | undefined): string {
  if (numberText === undefined) return error;
  return error.replace(/^json: cannot unmarshal number (into .* of type (?:float(?:32|64)|u?int(?:8|16|32|64)?))$/, `json: cannot unmarshal number ${numberText} $1`);
}

/**
 * How Go's decoder names a number an integer refuses: with the body's text, as the body
 * most likely wrote it (the exact integer below 1e21, JSON's exponent form above); only
 * "number" for one past a double's range (1e400, parsed as Infinity).
 */
export function goNumberKind(value: number): string {
  if (!Number.isFinite(value)) return 'number';
  return `number ${Number.isInteger(value) && Math.abs(value) < 1e21 ? BigInt(value).toString() : String(value).replace('e+', 'e')}`;
}

/** True for a JSON number Go decodes into an int64: an integer in its range (2^63 - 1 is 2^63 as a double). */
export function isGoInt64(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63;
}

/** True for a JSON object: not null, not an array. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy sharing nothing mutable with `value`: the same data JSON's round trip
 * gives (members holding `undefined` dropped, a `__proto__` member kept as a member).
 */
export function clone<T>(value: T): T {
  try {
    return cloneRecursively(value) as T;
  } catch (err) {
    if (err instanceof RangeError) return cloneIteratively(value) as T;
    throw err;
  }
}

function cloneRecursively(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneRecursively(value[i]);
    return out;
  }
  const out: JsonObject = {};
  for (const key in value) {
    const member = (value as JsonObject)[key];
    if (member !== undefined) setMember(out, key, cloneRecursively(member));
  }
  return out;
}

function cloneIteratively(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const root = emptyLike(value);
  const pending: [object, object][] = [[value, root]];
  const copy = (member: unknown): unknown => {
    if (typeof member !== 'object' || member === null) return member;
    const target = emptyLike(member);
    pending.push([member, target]);
    return target;
  };
  while (pending.length > 0) {
    const [source, target] = pending.pop()!;
    if (Array.isArray(source)) {
      for (let i = 0; i < source.length; i++) (target as unknown[])[i] = copy(source[i]);
    } else {
      for (const key in source) {
        const member = (source as JsonObject)[key];
        if (member !== undefined) setMember(target as JsonObject, key, copy(member));
      }
    }
  }
  return root;
}

function emptyLike(value: object): object {
  return Array.isArray(value) ? new Array<unknown>(value.length) : {};
}

/** Sets a member, also one named `__proto__` (plain assignment would set the prototype). */
export function setMember(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

/**
 * Equality of JSON data: objects with the same members in any order, arrays with equal
 * items in the same order, numbers by value (1 and 1.0 are one number). A member holding
 * null differs from an absent one.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  return equal(a, b, false);
}

/**
 * deepEqual, except that an object member holding null equals an absent one, as Go sees
 * a null JSON field decoded into a struct (array items keep their nulls).
 */
export function deepEqualNullAsAbsent(a: unknown, b: unknown): boolean {
  return equal(a, b, true);
}

function equal(a: unknown, b: unknown, nullIsAbsent: boolean): boolean {
  try {
    return equalRecursively(a, b, nullIsAbsent);
  } catch (err) {
    if (err instanceof RangeError) return equalIteratively(a, b, nullIsAbsent);
    throw err;
  }
}

function equalRecursively(a: unknown, b: unknown, nullIsAbsent: boolean): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equalRecursively(a[i], b[i], nullIsAbsent)) return false;
    return true;
  }
  // Object.prototype is what reading a `__proto__` member gives from an object without one.
  if (Array.isArray(b) || b === Object.prototype) return false;
  const x = a as JsonObject;
  const y = b as JsonObject;
  let unmatched = 0;
  for (const key in x) {
    const member = x[key];
    if (member === undefined || (nullIsAbsent && member === null)) continue;
    unmatched++;
    if (!equalRecursively(member, y[key], nullIsAbsent)) return false;
  }
  for (const key in y) {
    const member = y[key];
    if (member !== undefined && !(nullIsAbsent && member === null)) unmatched--;
  }
  return unmatched === 0;
}

function equalIteratively(a: unknown, b: unknown, nullIsAbsent: boolean): boolean {
  const pending: [unknown, unknown][] = [[a, b]];
  while (pending.length > 0) {
    const [x, y] = pending.pop()!;
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push([x[i], y[i]]);
      continue;
    }
    if (Array.isArray(y) || y === Object.prototype) return false;
    let unmatched = 0;
    for (const key in x) {
      const member = (x as JsonObject)[key];
      if (member === undefined || (nullIsAbsent && member === null)) continue;
      unmatched++;
      pending.push([member, (y as JsonObject)[key]]);
    }
    for (const key in y) {
      const member = (y as JsonObject)[key];
      if (member !== undefined && !(nullIsAbsent && member === null)) unmatched--;
    }
    if (unmatched !== 0) return false;
  }
  return true;
}
