// Duplicate object keys in request bodies. JSON.parse and YAML's toJS keep the last of
// two equal keys silently; upstream's strict decoding reports them as
// `duplicate field "spec.replicas"` (sigs.k8s.io/json), so we look for them ourselves.

import type YAML from 'yaml';
import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../api/json-chars.ts';

/** Objects with more keys than this look keys up in a Set rather than the key list. */
const linearLimit = 12;

interface Frame {
  array: boolean;
  /** Where this container sits in its parent: the key, or the index for an array element. */
  key: string;
  index: number;
  /** Arrays: the current element's index. Objects: the keys seen so far. */
  count: number;
  keys: string[] | undefined;
  keySet: Set<string> | undefined;
  /** Objects: whether the next string is a key. */
  expectKey: boolean;
  /** Objects: the key whose value comes next. */
  current: string;
}

/** The end (index of the closing quote) of the string starting at `start` (its opening quote). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    for (let b = end - 1; text.charCodeAt(b) === BACKSLASH; b--) backslashes++;
    if ((backslashes & 1) === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

function pathOf(stack: Frame[], depth: number, last: string): string {
  let path = '';
  for (let i = 1; i <= depth; i++) {
    const frame = stack[i]!;
    const parent = stack[i - 1]!;
    if (parent.array) path += `[${frame.index}]`;
    else path += path === '' ? frame.key : `.${frame.key}`;
  }
  return path === '' ? last : `${path}.${last}`;
}

function remember(frame: Frame, key: string): boolean {
  if (frame.keySet !== undefined) {
    if (frame.keySet.has(key)) return false;
    frame.keySet.add(key);
    return true;
  }
  const keys = frame.keys ?? (frame.keys = []);
  if (keys.includes(key)) return false;
  keys.push(key);
  if (keys.length > linearLimit) frame.keySet = new Set(keys);
  return true;
}

/**
 * Paths of keys that occur more than once in one object of `text`, in document order
 * (`metadata.name`, `spec.containers[0].image`). `text` must be valid JSON: call it after
 * JSON.parse accepted the text.
 */
export function duplicateJsonFields(text: string): string[] {
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  let depth = -1;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const frame = depth >= 0 ? stack[depth]! : undefined;
      if (frame !== undefined && !frame.array && frame.expectKey) {
        let key = text.slice(i + 1, end);
        if (key.includes('\\')) key = JSON.parse(text.slice(i, end + 1)) as string;
        if (!remember(frame, key)) duplicates.push(pathOf(stack, depth, key));
        frame.current = key;
        frame.expectKey = false;
      }
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const parent = depth >= 0 ? stack[depth]! : undefined;
      depth++;
      let frame = stack[depth];
      if (frame === undefined) {
        frame = { array: false, key: '', index: 0, count: 0, keys: undefined, keySet: undefined, expectKey: false, current: '' };
        stack[depth] = frame;
      }
      frame.array = c === OPEN_BRACKET;
      frame.key = parent === undefined || parent.array ? '' : parent.current;
      frame.index = parent?.array ? parent.count : 0;
      frame.count = 0;
      frame.keys = undefined;
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
  return duplicates;
}

/** The same for a YAML document parsed with `uniqueKeys: false`. Keys compare as the strings toJS makes of them. */
export function duplicateYamlFields(doc: YAML.Document): string[] {
  const duplicates: string[] = [];
  walkYaml(doc.contents, '', duplicates);
  return duplicates;
}

function yamlKey(node: unknown): string {
  if (isScalar(node)) return String(node.value);
  return String(node);
}

function walkYaml(node: unknown, path: string, duplicates: string[]): void {
  if (isAlias(node)) return;
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = yamlKey(pair.key);
      const keyPath = path === '' ? key : `${path}.${key}`;
      if (seen.has(key)) duplicates.push(keyPath);
      seen.add(key);
      walkYaml(pair.value, keyPath, duplicates);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => walkYaml(item, `${path}[${i}]`, duplicates));
  }
}
