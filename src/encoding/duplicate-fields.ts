// Duplicate object keys in request bodies. JSON.parse and the YAML reading keep the last
// of two equal keys silently; upstream's strict decoding reports them as
// `duplicate field "spec.replicas"` (sigs.k8s.io/json), so we look for them ourselves.

import type YAML from 'yaml';
import { readYamlBody } from './yaml-read.ts';
import { goQuote } from '../api/field-errors.ts';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE, stringEnd } from '../api/json-chars.ts';

/** Objects with more keys than this look keys up in a Set rather than the key list. */
const linearLimit = 12;

/**
 * One open object or array. Keys are kept as their extents in the text (between the
 * quotes) and compared there: a body's few hundred keys were as many strings and an
 * array per object (a fifth of a Deployment apply's decoding garbage). Frames, and their
 * extent arrays, are reused by the containers opened at the same depth.
 */
interface Frame {
  array: boolean;
  /** Where this container sits in its parent: the key's extent, or the index for an array element. */
  keyStart: number;
  keyEnd: number;
  index: number;
  /** Arrays: the current element's index. Objects: how many keys `starts`/`ends` hold. */
  count: number;
  starts: number[];
  ends: number[];
  /** Objects with an escaped key: the keys so far, decoded (the first `count`). */
  texts: string[];
  decoded: boolean;
  /** Objects with many keys: every key so far, decoded. */
  keySet: Set<string> | undefined;
  /** Objects: whether the next string is a key. */
  expectKey: boolean;
  /** Objects: the extent of the key whose value comes next. */
  currentStart: number;
  currentEnd: number;
}

/** A key's value from its extent (between the quotes). */
function keyText(text: string, start: number, end: number): string {
  const raw = text.slice(start, end);
  return raw.includes('\\') ? (JSON.parse(text.slice(start - 1, end + 1)) as string) : raw;
}

function hasEscape(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === BACKSLASH) return true;
  return false;
}

function sameText(text: string, start: number, end: number, otherStart: number, otherEnd: number): boolean {
  if (end - start !== otherEnd - otherStart) return false;
  for (let i = 0; i < end - start; i++) if (text.charCodeAt(start + i) !== text.charCodeAt(otherStart + i)) return false;
  return true;
}

function pathOf(text: string, stack: Frame[], depth: number, last: string): string {
  let path = '';
  for (let i = 1; i <= depth; i++) {
    const frame = stack[i]!;
    const parent = stack[i - 1]!;
    if (parent.array) path += `[${frame.index}]`;
    else {
      const key = keyText(text, frame.keyStart, frame.keyEnd);
      path += path === '' ? key : `.${key}`;
    }
  }
  return path === '' ? last : `${path}.${last}`;
}

/**
 * Notes the key at [start, end) in `frame`; false when the object already has it. Keys
 * compare as text until one has an escape (then as decoded strings), and past
 * `linearLimit` keys a Set takes over.
 */
function remember(text: string, frame: Frame, start: number, end: number): boolean {
  if (frame.keySet === undefined && frame.count >= linearLimit) {
    frame.keySet = new Set();
    for (let k = 0; k < frame.count; k++) frame.keySet.add(frame.decoded ? frame.texts[k]! : text.slice(frame.starts[k]!, frame.ends[k]!));
  }
  if (frame.keySet !== undefined) {
    const key = keyText(text, start, end);
    if (frame.keySet.has(key)) return false;
    frame.keySet.add(key);
    return true;
  }
  if (!frame.decoded && hasEscape(text, start, end)) {
    frame.decoded = true;
    for (let k = 0; k < frame.count; k++) frame.texts[k] = text.slice(frame.starts[k]!, frame.ends[k]!);
  }
  if (frame.decoded) {
    const key = keyText(text, start, end);
    for (let k = 0; k < frame.count; k++) if (frame.texts[k] === key) return false;
    frame.texts[frame.count++] = key;
    return true;
  }
  for (let k = 0; k < frame.count; k++) if (sameText(text, start, end, frame.starts[k]!, frame.ends[k]!)) return false;
  frame.starts[frame.count] = start;
  frame.ends[frame.count] = end;
  frame.count++;
  return true;
}

/**
 * Paths of keys that occur more than once in one object of `text`, in document order
 * (`metadata.name`, `spec.containers[0].image`). `text` must be valid JSON: call it after
 * JSON.parse accepted the text.
 */
export function duplicateJsonFields(text: string): string[] {
  const duplicates: string[] = [];
  scanKeys(text, (path) => duplicates.push(path));
  return duplicates;
}

/** The members of a JSON Patch operation as upstream's patcher decodes it (its jsonPatchOp), matched case-sensitively. */
const jsonPatchOpFields = new Set(['op', 'path', 'from', 'value']);

/** How many strict errors one decoding keeps (sigs.k8s.io/json). */
const strictErrorLimit = 100;

/**
 * A JSON patch's strict decoding errors, as upstream's patcher finds them when it decodes the
 * patch into its []jsonPatchOp under Warn or Strict (sigs.k8s.io/json's UnmarshalStrict): an
 * operation's member other than op, path, from and value is an unknown field; one of those
 * four given twice, or a key given twice in an object of a value, a duplicate. In document
 * order, each message once and at most 100, as `unknown field "[0].foo"` (the patcher adds
 * its `json patch ` before each). `text` must be valid JSON.
 */
export function jsonPatchStrictErrors(text: string): string[] {
  const errors = new Set<string>();
  scanKeys(text, (path) => {
    if (errors.size < strictErrorLimit) errors.add(`duplicate field ${goQuote(path)}`);
  }, (key, path) => {
    if (jsonPatchOpFields.has(key)) return true;
    if (errors.size < strictErrorLimit) errors.add(`unknown field ${goQuote(path())}`);
    return false;
  });
  return [...errors];
}

/**
 * Walks the keys of `text`'s objects, telling `duplicate` the path of each key its object
 * already had. `known`, when given, first sees each key of an object that is an element of
 * the top-level array: one it answers false for is not looked at further (an unknown
 * member of a struct, which the decoder does not check for duplicates).
 */
function scanKeys(text: string, duplicate: (path: string) => void, known?: (key: string, path: () => string) => boolean): void {
  const stack: Frame[] = [];
  let depth = -1;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const frame = depth >= 0 ? stack[depth]! : undefined;
      if (frame !== undefined && !frame.array && frame.expectKey) {
        const checked = known === undefined || depth !== 1 || !stack[0]!.array
          || known(keyText(text, i + 1, end), () => pathOf(text, stack, depth, keyText(text, i + 1, end)));
        if (checked && !remember(text, frame, i + 1, end)) duplicate(pathOf(text, stack, depth, keyText(text, i + 1, end)));
        frame.currentStart = i + 1;
        frame.currentEnd = end;
        frame.expectKey = false;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const parent = depth >= 0 ? stack[depth]! : undefined;
      depth++;
      let frame = stack[depth];
      if (frame === undefined) {
        frame = { array: false, keyStart: 0, keyEnd: 0, index: 0, count: 0, starts: [], ends: [], texts: [], decoded: false, keySet: undefined, expectKey: false, currentStart: 0, currentEnd: 0 };
        stack[depth] = frame;
      }
      frame.array = c === OPEN_BRACKET;
      const inObject = parent !== undefined && !parent.array;
      frame.keyStart = inObject ? parent.currentStart : 0;
      frame.keyEnd = inObject ? parent.currentEnd : 0;
      frame.index = parent?.array ? parent.count : 0;
      frame.count = 0;
      frame.decoded = false;
      frame.keySet = undefined;
      frame.expectKey = c === OPEN_BRACE;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (c === COMMA) {
      const frame = stack[depth]!;
      if (frame.array) frame.count++;
      else frame.expectKey = true;
    }
  }
}

/**
 * The same for a YAML document parsed with `uniqueKeys: false`, as kube-apiserver's strict
 * YAML decoding finds them: keys compare as the JSON names go-yaml's values become (`on`
 * and `true` are one key), and keys a merge (`<<`) sets count too (yaml-read.ts).
 */
export function duplicateYamlFields(doc: YAML.Document): string[] {
  return readYamlBody(doc, true).duplicateFields;
}
