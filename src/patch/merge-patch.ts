// JSON merge patch (RFC 7386): objects merge key by key, null deletes, anything else
// replaces. Where upstream's library (evanphx/json-patch MergePatch, which
// kube-apiserver uses) goes further, it is followed: a value that does not merge into an
// existing object comes in without its null members, also inside arrays; an array patch
// replaces the whole document. Iterative, and neither argument is modified.

import { cloneJson, isJsonObject, pruneNulls, setMember, type JsonObject } from './json-value.ts';

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
