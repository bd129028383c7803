// The kind, apiVersion and metadata of an object, read from its JSON without decoding
// the rest: what metadata-only readers need (the garbage collector's graph, quota's
// object counts), for a fraction of a full decode. The JSON is scanned for the three
// members' extents, and only those bytes are parsed. Duplicate members resolve as
// JSON.parse resolves them (the last wins), so the view never disagrees with a decode.

import type { KubeObject } from '../api/index.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

const decoder = new TextDecoder();

/** A member of a JSON object: where its key (quotes included) starts and its value ends. */
interface Member {
  key: string;
  start: number;
  valueStart: number;
  end: number;
}

/**
 * `{kind, apiVersion, metadata}` of the object whose JSON is `json`, metadata without its
 * managedFields; undefined when the bytes are not a JSON object with an object as metadata
 * (a full decode then says what is wrong with them).
 */
export function metadataViewOf(json: Uint8Array): KubeObject | undefined {
  const top = membersOf(json, skipSpace(json, 0));
  if (top === undefined || skipSpace(json, top.end) !== json.length) return undefined;
  const pick = new Map<string, Member>();
  for (const member of top.members) if (member.key === 'kind' || member.key === 'apiVersion' || member.key === 'metadata') pick.set(member.key, member);
  const metadata = pick.get('metadata');
  if (metadata === undefined || json[metadata.valueStart] !== OPEN_BRACE) return undefined;
  const inner = membersOf(json, metadata.valueStart);
  if (inner === undefined) return undefined;
  const parts: string[] = [];
  for (const name of ['kind', 'apiVersion']) {
    const member = pick.get(name);
    if (member !== undefined) parts.push(text(json, member.start, member.end));
  }
  const kept = inner.members.filter((member) => member.key !== 'managedFields').map((member) => text(json, member.start, member.end));
  parts.push(`"metadata":{${kept.join(',')}}`);
  try {
    return JSON.parse(`{${parts.join(',')}}`) as KubeObject;
  } catch {
    return undefined;
  }
}

function text(json: Uint8Array, start: number, end: number): string {
  return decoder.decode(json.subarray(start, end));
}

/** The members of the object opening at `at`, and where it ends; undefined when it is not well formed. */
function membersOf(json: Uint8Array, at: number): { members: Member[]; end: number } | undefined {
  if (json[at] !== OPEN_BRACE) return undefined;
  const members: Member[] = [];
  let i = skipSpace(json, at + 1);
  if (json[i] === CLOSE_BRACE) return { members, end: i + 1 };
  for (;;) {
    if (json[i] !== QUOTE) return undefined;
    const start = i;
    const keyEnd = skipString(json, i);
    if (keyEnd < 0) return undefined;
    const key = keyOf(json, start, keyEnd);
    if (key === undefined) return undefined;
    i = skipSpace(json, keyEnd);
    if (json[i] !== COLON) return undefined;
    const valueStart = skipSpace(json, i + 1);
    const end = skipValue(json, valueStart);
    if (end < 0) return undefined;
    members.push({ key, start, valueStart, end });
    i = skipSpace(json, end);
    if (json[i] === CLOSE_BRACE) return { members, end: i + 1 };
    if (json[i] !== COMMA) return undefined;
    i = skipSpace(json, i + 1);
  }
}

/** A key's text; one with escapes is decoded as JSON would. */
function keyOf(json: Uint8Array, start: number, end: number): string | undefined {
  for (let i = start + 1; i < end - 1; i++) {
    if (json[i] === BACKSLASH) {
      try {
        return JSON.parse(text(json, start, end)) as string;
      } catch {
        return undefined;
      }
    }
  }
  return text(json, start + 1, end - 1);
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
