// JSON merge patch (RFC 7386): objects merge key by key, null deletes, anything else
// replaces. Where upstream's library (evanphx/json-patch MergePatch, which
// kube-apiserver uses) goes further, it is followed: a value that does not merge into an
// existing object comes in without its null members, also inside arrays; an array patch
// replaces the whole document. Iterative, and neither argument is modified.

import { clone, isObject, setMember, type JsonObject } from '../api/json.ts';
import { pruneNulls } from './json-value.ts';

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (Array.isArray(patch)) return pruneNulls(clone(patch));
  if (!isObject(patch)) return patch;
  const result = isObject(target) ? (clone(target) as JsonObject) : {};
  const pending: [JsonObject, JsonObject][] = [[result, clone(patch) as JsonObject]];
  while (pending.length > 0) {
    const [doc, changes] = pending.pop()!;
    for (const key of Object.keys(changes)) {
      const value = changes[key];
      if (value === null) {
        delete doc[key];
        continue;
      }
      const current = doc[key];
      if (Object.hasOwn(doc, key) && isObject(current) && isObject(value)) pending.push([current, value]);
      else if (Object.hasOwn(doc, key) && isObject(current)) setMember(doc, key, value);
      else setMember(doc, key, pruneNulls(value));
    }
  }
  return result;
}
