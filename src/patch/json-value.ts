// Plain JSON values as JSON.parse gives them, and the few operations the patch
// algorithms need on them. Every walk is iterative: a patch body may nest far deeper
// than the JavaScript stack allows recursion.

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own member, also for the key `__proto__` (plain assignment would change the prototype). */
export function setMember(object: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

export function hasMember(object: JsonObject, key: string): boolean {
  return Object.hasOwn(object, key);
}

/** A deep copy sharing nothing mutable with `value`. */
export function cloneJson(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const root: unknown = Array.isArray(value) ? new Array<unknown>(value.length) : {};
  const pending: [unknown, unknown][] = [[value, root]];
  while (pending.length > 0) {
    const [source, target] = pending.pop()!;
    if (Array.isArray(source)) {
      const out = target as unknown[];
      for (let i = 0; i < source.length; i++) out[i] = copyShallow(source[i], pending);
    } else {
      const out = target as JsonObject;
      for (const key of Object.keys(source as JsonObject)) setMember(out, key, copyShallow((source as JsonObject)[key], pending));
    }
  }
  return root;
}

function copyShallow(value: unknown, pending: [unknown, unknown][]): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const copy: unknown = Array.isArray(value) ? new Array<unknown>(value.length) : {};
  pending.push([value, copy]);
  return copy;
}

/** Structural equality: object members in any order, arrays in order, numbers by value. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const pending: [unknown, unknown][] = [[a, b]];
  while (pending.length > 0) {
    const [x, y] = pending.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push([x[i], y[i]]);
    } else {
      if (Array.isArray(y)) return false;
      const xKeys = Object.keys(x);
      if (xKeys.length !== Object.keys(y).length) return false;
      for (const key of xKeys) {
        if (!Object.hasOwn(y, key)) return false;
        pending.push([(x as JsonObject)[key], (y as JsonObject)[key]]);
      }
    }
  }
  return true;
}

/**
 * The length in bytes of `value` encoded as JSON, counted up to `limit`: past it the
 * walk stops and answers a number greater than `limit`.
 */
export function encodedSizeUpTo(value: unknown, limit: number): number {
  let size = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && size <= limit) {
    const item = pending.pop();
    if (typeof item === 'string') size += Buffer.byteLength(JSON.stringify(item));
    else if (typeof item !== 'object' || item === null) size += String(item).length;
    else if (Array.isArray(item)) {
      size += 2 + Math.max(0, item.length - 1);
      for (const element of item) pending.push(element);
    } else {
      const keys = Object.keys(item);
      size += 2 + Math.max(0, keys.length - 1);
      for (const key of keys) {
        size += Buffer.byteLength(JSON.stringify(key)) + 1;
        pending.push((item as JsonObject)[key]);
      }
    }
  }
  return size;
}

/**
 * Deletes the null members of every map inside `value`, in place (arrays keep their null
 * items), as upstream's merge and strategic patchers do with values taken from a patch.
 * Iterative, so deep input cannot exhaust the stack. Answers `value`.
 */
export function pruneNulls(value: unknown): unknown {
  const pending = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (Array.isArray(item)) {
      for (const element of item) if (typeof element === 'object' && element !== null) pending.push(element);
    } else if (isJsonObject(item)) {
      for (const key of Object.keys(item)) {
        const member = item[key];
        if (member === null) delete item[key];
        else if (typeof member === 'object') pending.push(member);
      }
    }
  }
  return value;
}
