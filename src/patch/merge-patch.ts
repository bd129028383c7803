// JSON merge patch (RFC 7386): objects merge key by key, null deletes, anything else
// replaces. Where upstream's library (evanphx/json-patch MergePatch, which
// kube-apiserver uses) goes further, it is followed: a value that does not merge into an
// existing object comes in without its null members, also inside arrays; an array patch
// replaces the whole document. Iterative, and neither argument is modified.

import { cloneJson, isJsonObject, setMember, type JsonObject } from './json-value.ts';

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (Array.isArray(patch)) return pruneNulls(cloneJson(patch));
  if (!isJsonObject(patch)) return patch;
  const result = isJsonObject(target) ? (cloneJson(target) as JsonObject) : {};
  const pending: [JsonObject, JsonObject][] = [[result, cloneJson(patch) as JsonObject]];
  while (pending.length > 0) {
    const [doc, changes] = pending.pop()!;
    for (const key of Object.keys(changes)) {
      const value = changes[key];
      if (value === null) {
        delete doc[key];
        continue;
      }
      const current = doc[key];
      if (Object.hasOwn(doc, key) && isJsonObject(current) && isJsonObject(value)) pending.push([current, value]);
      else if (Object.hasOwn(doc, key) && isJsonObject(current)) setMember(doc, key, value);
      else setMember(doc, key, pruneNulls(value));
    }
  }
  return result;
}

/** Deletes null members of every object inside `value` (arrays keep null items). */
function pruneNulls(value: unknown): unknown {
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
