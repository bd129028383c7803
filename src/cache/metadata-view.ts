// The kind, apiVersion and metadata of an object, read from its JSON without decoding
// the rest: what metadata-only readers need (the garbage collector's graph, quota's
// object counts), for a fraction of a full decode. The JSON is scanned for the three
// members' extents, and only those bytes are parsed. Duplicate members resolve as
// JSON.parse resolves them (the last wins), so the view never disagrees with a decode.

import type { KubeObject } from '../api/index.ts';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../api/json-chars.ts';

const decoder = new TextDecoder();

/** A member of a JSON object: where its key (quotes included) starts and ends, and its value ends. */
interface Member {
  start: number;
  keyEnd: number;
  valueStart: number;
  end: number;
}

const encoder = new TextEncoder();
const names = { kind: encoder.encode('"kind"'), apiVersion: encoder.encode('"apiVersion"'), metadata: encoder.encode('"metadata"'), managedFields: encoder.encode('"managedFields"') };
const metadataOpen = encoder.encode('"metadata":{');

/**
 * `{kind, apiVersion, metadata}` of the object whose JSON is `json`, metadata without its
 * managedFields; undefined when the bytes are not a JSON object with an object as metadata
 * (a full decode then says what is wrong with them). `uniqueKeys`: the JSON is
 * JSON.stringify's, whose keys never repeat, so the scan stops once it has the three
 * members rather than reading on for later duplicates.
 */
export function metadataViewOf(json: Uint8Array, opts: { uniqueKeys?: boolean } = {}): KubeObject | undefined {
  let kind: Member | undefined;
  let apiVersion: Member | undefined;
  let metadata: Member | undefined;
  const top = membersOf(json, skipSpace(json, 0), (member) => {
    if (keyIs(json, member, names.kind)) kind = member;
    else if (keyIs(json, member, names.apiVersion)) apiVersion = member;
    else if (keyIs(json, member, names.metadata)) metadata = member;
    return opts.uniqueKeys === true && kind !== undefined && apiVersion !== undefined && metadata !== undefined;
  });
  if (top === undefined || (top >= 0 && skipSpace(json, top) !== json.length)) return undefined;
  if (metadata === undefined || json[metadata.valueStart] !== OPEN_BRACE) return undefined;
  const kept: Member[] = [];
  const inner = membersOf(json, metadata.valueStart, (member) => {
    if (!keyIs(json, member, names.managedFields)) kept.push(member);
    return false;
  });
  if (inner === undefined) return undefined;
  // The view's JSON, copied together from the members' bytes, then parsed at once.
  const outer = [kind, apiVersion].filter((member) => member !== undefined);
  let length = 2 + metadataOpen.length + 1;
  for (const member of [...outer, ...kept]) length += member.end - member.start + 1;
  const view = new Uint8Array(length);
  let at = 0;
  view[at++] = OPEN_BRACE;
  for (const member of outer) {
    view.set(json.subarray(member.start, member.end), at);
    at += member.end - member.start;
    view[at++] = COMMA;
  }
  view.set(metadataOpen, at);
  at += metadataOpen.length;
  kept.forEach((member, i) => {
    if (i > 0) view[at++] = COMMA;
    view.set(json.subarray(member.start, member.end), at);
    at += member.end - member.start;
  });
  view[at++] = CLOSE_BRACE;
  view[at++] = CLOSE_BRACE;
  try {
    return JSON.parse(decoder.decode(view.subarray(0, at))) as KubeObject;
  } catch {
    return undefined;
  }
}

/** The metadata view of a decoded object: it shares the object's parts (frozen with it). */
export function metadataViewOfObject(object: KubeObject): KubeObject {
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return {
    ...(object.kind !== undefined ? { kind: object.kind } : {}),
    ...(object.apiVersion !== undefined ? { apiVersion: object.apiVersion } : {}),
    metadata,
  };
}

/**
 * The JSON of an object's metadata view as metadataViewOf reads it from the object's
 * stored JSON, which has no resourceVersion (the reader sets the state's) nor selfLink:
 * made by a thread that has the object, for one that has only its bytes (codec
 * offerWrittenView).
 */
export function metadataViewJson(object: KubeObject): string {
  const view = metadataViewOfObject(object);
  const { resourceVersion: _resourceVersion, selfLink: _selfLink, ...metadata } = view.metadata;
  return JSON.stringify({ ...view, metadata });
}

/** Whether the member's key is `quoted` (a key with escapes is decoded first). */
function keyIs(json: Uint8Array, member: Member, quoted: Uint8Array): boolean {
  const length = member.keyEnd - member.start;
  let escaped = false;
  for (let i = member.start + 1; i < member.keyEnd - 1; i++) if (json[i] === BACKSLASH) escaped = true;
  if (escaped) {
    try {
      return JSON.parse(decoder.decode(json.subarray(member.start, member.keyEnd))) === decoder.decode(quoted.subarray(1, quoted.length - 1));
    } catch {
      return false;
    }
  }
  if (length !== quoted.length) return false;
  for (let i = 0; i < length; i++) if (json[member.start + i] !== quoted[i]) return false;
  return true;
}

/**
 * Reads the members of the object opening at `at`, telling `each` of them; stops early
 * when `each` answers true. Answers where the object ends (-1 when stopped early), or
 * undefined when it is not well formed.
 */
function membersOf(json: Uint8Array, at: number, each: (member: Member) => boolean): number | undefined {
  if (json[at] !== OPEN_BRACE) return undefined;
  let i = skipSpace(json, at + 1);
  if (json[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (json[i] !== QUOTE) return undefined;
    const start = i;
    const keyEnd = skipString(json, i);
    if (keyEnd < 0) return undefined;
    i = skipSpace(json, keyEnd);
    if (json[i] !== COLON) return undefined;
    const valueStart = skipSpace(json, i + 1);
    const end = skipValue(json, valueStart);
    if (end < 0) return undefined;
    if (each({ start, keyEnd, valueStart, end })) return -1;
    i = skipSpace(json, end);
    if (json[i] === CLOSE_BRACE) return i + 1;
    if (json[i] !== COMMA) return undefined;
    i = skipSpace(json, i + 1);
  }
}

function skipSpace(json: Uint8Array, at: number): number {
  let i = at;
  while (i < json.length) {
    const c = json[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Past the closing quote of the string opening at `at`; -1 when it does not end. */
function skipString(json: Uint8Array, at: number): number {
  for (let i = at + 1; i < json.length; i++) {
    const c = json[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i + 1;
  }
  return -1;
}

/** Past the value starting at `at` (a string, object, array or scalar); -1 when it does not end. */
function skipValue(json: Uint8Array, at: number): number {
  const first = json[at];
  if (first === QUOTE) return skipString(json, at);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let i = at; i < json.length; i++) {
      const c = json[i];
      if (c === QUOTE) {
        const end = skipString(json, i);
        if (end < 0) return -1;
        i = end - 1;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  let i = at;
  while (i < json.length) {
    const c = json[i];
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break;
    i++;
  }
  return i === at ? -1 : i;
}
