// JSON Patch (RFC 6902) with JSON Pointers (RFC 6901), as a pure function.
//
// Semantics are the RFC's, as the public conformance suite checks them: array indices
// without leading zeros and within bounds, `-` only to append, a `value` required for
// add/replace/test, `from` not a proper prefix of `path` for move. Upstream's library
// (evanphx/json-patch v4) is laxer in places (negative indices, a missing value adds
// null); where the RFC and it differ, the RFC wins and the request fails, but for what
// clients rely on: a `replace` of a member its object lacks sets it, as upstream's does.
//
// Failures are classified as kube-apiserver classifies them (PatchError codes):
// - 400: the body is not a JSON array of operation objects (upstream's DecodePatch);
// - 413: more than maxJSONPatchOperations operations;
// - 422: any operation that cannot be applied, malformed operations included (unknown
//   op, missing path or value), because upstream only finds those while applying.
// `null` decodes as an empty patch, as Go's json.Unmarshal makes it one.

import { PatchError } from './patch-error.ts';
import { clone, deepEqual, isObject, setMember, type JsonObject } from '../api/json.ts';
import { encodedSizeUpTo, hasMember } from './json-value.ts';
import { NumberForms, type WrittenNumber } from '../api/number-forms.ts';

/** kube-apiserver's maxJSONPatchOperations (apiserver/pkg/endpoints/handlers/patch.go). */
export const maxJSONPatchOperations = 10_000;

/**
 * kube-apiserver's default JSONPatchMaxCopyBytes (3 MiB): how much `copy` operations
 * may grow a document, so that a few copies of the root cannot blow it up exponentially.
 */
const defaultMaxCopyBytes = 3 * 1024 * 1024;

export interface JsonPatchOptions {
  maxOperations?: number;
  maxCopyBytes?: number;
}

/** One operation as decoded: an object, or null (which fails when applied, as upstream). */
export type JsonPatchOperation = JsonObject | null;

/** Checks the shape of a decoded JSON Patch body: an array of objects (or null). */
export function decodeJsonPatch(patch: unknown): JsonPatchOperation[] {
  if (patch === null) return [];
  if (!Array.isArray(patch)) throw new PatchError(400, `json: cannot unmarshal ${goJsonKind(patch)} into Go value of type jsonpatch.Patch`);
  for (const op of patch) {
    if (op !== null && !isObject(op)) throw new PatchError(400, `json: cannot unmarshal ${goJsonKind(op)} into Go value of type jsonpatch.Operation`);
  }
  return patch as JsonPatchOperation[];
}

/**
 * Applies `patch` (a decoded JSON value) to `document` and answers the new document.
 * Neither argument is modified, and the result shares nothing mutable with them.
 */
export function applyJsonPatch(document: unknown, patch: unknown, opts: JsonPatchOptions = {}): unknown {
  const ops = decodeJsonPatch(patch);
  const maxOperations = opts.maxOperations ?? maxJSONPatchOperations;
  if (ops.length > maxOperations) {
    throw new PatchError(413, `The allowed maximum operations in a JSON patch is ${maxOperations}, got ${ops.length}`);
  }
  const state: ApplyState = { copiedBytes: 0, maxCopyBytes: opts.maxCopyBytes ?? defaultMaxCopyBytes };
  let doc = clone(document);
  for (const op of ops) doc = applyOperation(doc, op, state);
  return doc;
}

/**
 * Where the numbers a JSON Patch's values write with a fraction or an exponent (`forms`, by
 * their places in the patch) land in the patched document: at the path of the `add` or
 * `replace` carrying them, as upstream's patch library keeps each value's text. A number a
 * later operation moves or replaces no longer counts (NumberForms looks each up).
 */
export function patchedNumberForms(patch: unknown, forms: NumberForms): NumberForms | undefined {
  if (!Array.isArray(patch)) return undefined;
  const written: WrittenNumber[] = [];
  for (const { path, text } of forms.written) {
    const op: unknown = patch[path[0] as number];
    if (path[1] !== 'value' || !isObject(op) || (op.op !== 'add' && op.op !== 'replace') || typeof op.path !== 'string') continue;
    let tokens: string[];
    try {
      tokens = parsePointer(op.path).tokens;
    } catch {
      continue; // Applying the patch fails on it.
    }
    written.push({ path: [...tokens, ...path.slice(2)], text });
  }
  return written.length === 0 ? undefined : new NumberForms(written);
}

interface ApplyState {
  copiedBytes: number;
  maxCopyBytes: number;
}

function fail(message: string): never {
  throw new PatchError(422, message);
}

function applyOperation(doc: unknown, op: JsonPatchOperation, state: ApplyState): unknown {
  const kind = op !== null && typeof op.op === 'string' ? op.op : 'unknown';
  if (op === null) fail(`Unexpected kind: ${kind}`);
  switch (kind) {
    case 'add': {
      const path = pointerMember(op, 'path', kind);
      return add(doc, path, clone(valueMember(op, kind)));
    }
    case 'remove': {
      const path = pointerMember(op, 'path', kind);
      return remove(doc, path).doc;
    }
    case 'replace': {
      const path = pointerMember(op, 'path', kind);
      return replace(doc, path, clone(valueMember(op, kind)));
    }
    case 'move': {
      const from = pointerMember(op, 'from', kind);
      const path = pointerMember(op, 'path', kind);
      if (isProperPrefix(from.tokens, path.tokens)) fail(`move operation does not apply: "from" ${from.text} is a proper prefix of "path" ${path.text}`);
      if (sameTokens(from.tokens, path.tokens)) {
        get(doc, from);
        return doc;
      }
      const removed = remove(doc, from);
      return add(removed.doc, path, removed.value);
    }
    case 'copy': {
      const from = pointerMember(op, 'from', kind);
      const path = pointerMember(op, 'path', kind);
      const value = get(doc, from);
      const budget = state.maxCopyBytes - state.copiedBytes;
      const size = encodedSizeUpTo(value, budget);
      state.copiedBytes += size;
      if (state.maxCopyBytes > 0 && size > budget) {
        fail(`Unable to complete the copy, the accumulated size increase of copy is ${state.copiedBytes}, exceeding the limit ${state.maxCopyBytes}`);
      }
      return add(doc, path, clone(value));
    }
    case 'test': {
      const path = pointerMember(op, 'path', kind);
      const expected = valueMember(op, kind);
      if (!deepEqual(get(doc, path), expected)) fail(`testing value ${path.text} failed: test failed`);
      return doc;
    }
    default:
      return fail(`Unexpected kind: ${kind}`);
  }
}

interface Pointer {
  text: string;
  tokens: string[];
}

function pointerMember(op: JsonObject, member: 'path' | 'from', kind: string): Pointer {
  const text = op[member];
  if (!hasMember(op, member) || text === null) fail(`${kind} operation missing ${member} field`);
  if (typeof text !== 'string') fail(`${kind} operation has a ${member} that is not a string`);
  return parsePointer(text);
}

function valueMember(op: JsonObject, kind: string): unknown {
  if (!hasMember(op, 'value')) fail(`${kind} operation missing value field`);
  return op.value;
}

/** RFC 6901: "" is the whole document; otherwise "/"-separated tokens with ~1 for "/" and ~0 for "~". */
function parsePointer(text: string): Pointer {
  if (text === '') return { text, tokens: [] };
  if (!text.startsWith('/')) fail(`JSON pointer ${JSON.stringify(text)} does not start with "/"`);
  const tokens = text.slice(1).split('/').map((raw) => {
    if (/~(?![01])/.test(raw)) fail(`JSON pointer ${JSON.stringify(text)} has an invalid escape`);
    return raw.replaceAll('~1', '/').replaceAll('~0', '~');
  });
  return { text, tokens };
}

function isProperPrefix(prefix: string[], tokens: string[]): boolean {
  return prefix.length < tokens.length && prefix.every((token, i) => token === tokens[i]);
}

function sameTokens(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((token, i) => token === b[i]);
}

const missing = Symbol('missing');

/** An array index token: "0", or digits without a leading zero; -1 when it is not one. */
function arrayIndex(token: string): number {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : -1;
}

function child(node: unknown, token: string): unknown {
  if (Array.isArray(node)) {
    const index = arrayIndex(token);
    return index >= 0 && index < node.length ? node[index] : missing;
  }
  if (isObject(node)) return hasMember(node, token) ? node[token] : missing;
  return missing;
}

/** The container holding the last token of `pointer` (which has at least one token). */
function parentOf(doc: unknown, pointer: Pointer): unknown {
  let node = doc;
  for (let i = 0; i < pointer.tokens.length - 1; i++) {
    node = child(node, pointer.tokens[i]!);
    if (node === missing) fail(`doc is missing path: ${JSON.stringify(pointer.text)}: missing value`);
  }
  return node;
}

function get(doc: unknown, pointer: Pointer): unknown {
  if (pointer.tokens.length === 0) return doc;
  const value = child(parentOf(doc, pointer), pointer.tokens.at(-1)!);
  if (value === missing) fail(`doc is missing path: ${JSON.stringify(pointer.text)}: missing value`);
  return value;
}

function add(doc: unknown, pointer: Pointer, value: unknown): unknown {
  if (pointer.tokens.length === 0) return value;
  const parent = parentOf(doc, pointer);
  const key = pointer.tokens.at(-1)!;
  if (Array.isArray(parent)) {
    if (key === '-') {
      parent.push(value);
      return doc;
    }
    const index = arrayIndex(key);
    if (index < 0 || index > parent.length) fail(`add operation does not apply: invalid index ${JSON.stringify(key)} for an array of ${parent.length} in ${pointer.text}`);
    parent.splice(index, 0, value);
    return doc;
  }
  if (isObject(parent)) {
    setMember(parent, key, value);
    return doc;
  }
  return fail(`add operation does not apply: doc is missing path: ${JSON.stringify(pointer.text)}`);
}

function remove(doc: unknown, pointer: Pointer): { doc: unknown; value: unknown } {
  if (pointer.tokens.length === 0) fail('remove operation does not apply: the whole document cannot be removed');
  const parent = parentOf(doc, pointer);
  const key = pointer.tokens.at(-1)!;
  if (Array.isArray(parent)) {
    const index = arrayIndex(key);
    if (index < 0 || index >= parent.length) fail(`remove operation does not apply: invalid index ${JSON.stringify(key)} for an array of ${parent.length} in ${pointer.text}`);
    const [value] = parent.splice(index, 1);
    return { doc, value };
  }
  if (isObject(parent) && hasMember(parent, key)) {
    const value = parent[key];
    delete parent[key];
    return { doc, value };
  }
  return fail(`Unable to remove nonexistent key: ${key}: missing value`);
}

function replace(doc: unknown, pointer: Pointer, value: unknown): unknown {
  if (pointer.tokens.length === 0) return value;
  const parent = parentOf(doc, pointer);
  const key = pointer.tokens.at(-1)!;
  if (Array.isArray(parent)) {
    const index = arrayIndex(key);
    if (index < 0 || index >= parent.length) fail(`replace operation does not apply: invalid index ${JSON.stringify(key)} for an array of ${parent.length} in ${pointer.text}`);
    parent[index] = value;
    return doc;
  }
  // A member an object lacks is set, as upstream's library (evanphx/json-patch v4) replaces it:
  // kubectl's rollout undo replaces a Deployment's annotations whether it has any or not. The
  // RFC would refuse it; no conformance case asks that.
  if (isObject(parent)) {
    setMember(parent, key, value);
    return doc;
  }
  return fail(`replace operation does not apply: doc is missing key: ${pointer.text}: missing value`);
}

/** The JSON type name Go's encoding/json uses in an UnmarshalTypeError. */
function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}
