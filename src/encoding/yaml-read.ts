// YAML request bodies read as kube-apiserver reads them: go-yaml v2's decoding (YAML 1.1 scalars, merge keys, aliases) and sigs.k8s.io/yaml's conversion to JSON.
//
// Upstream converts a YAML body with sigs.k8s.io/yaml's YAMLToJSON: go-yaml v2 decodes its
// first document into Go values (plain scalars resolved as yaml-resolve.ts does), keys
// that are not strings become strings (true, 1, 1.5), and encoding/json writes the result.
// Here the yaml package parses the text, every scalar left as written (its failsafe
// schema, no known tags), and this walk gives the nodes go-yaml's meaning.
import { isUtf8 } from 'node:buffer';
import type { Alias, Document, Node, Scalar, YAMLMap } from 'yaml';
import { badRequest, maxNestingDepth, tooDeepMessage, type StatusError } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';
import { requireYaml } from '../api/yaml.ts';
import { formatGoFloat, maxInt64, resolveScalar, type ResolvableTag, type ResolvedScalar } from './yaml-resolve.ts';

const tagPrefix = 'tag:yaml.org,2002:';
const resolvableTags = new Set<string>(['str', 'bool', 'int', 'float', 'null', 'timestamp']);

export interface YamlBody {
  value: unknown;
  /** Paths of keys given twice in one mapping (merged keys included, as go-yaml's strict decoding counts them), when asked for. */
  duplicateFields: string[];
}

/** 400 for a YAML body upstream cannot convert to JSON, in the words of the Go code that refuses it. */
function cannotDecode(message: string): StatusError {
  return badRequest(`the body of the request could not be decoded as YAML: ${message}`);
}

/**
 * The first document of `text` (go-yaml reads no further; undefined for an empty stream),
 * parsed with duplicate keys allowed (field validation reports them).
 */
export function parseYamlBody(text: string): Document | undefined {
  let docs: Document[];
  try {
    docs = requireYaml().parseAllDocuments(text, { schema: 'failsafe', resolveKnownTags: false, uniqueKeys: false }) as Document[];
  } catch (err) {
    throw cannotDecode((err as Error).message);
  }
  const doc = docs[0];
  if (doc !== undefined && doc.errors.length > 0) throw cannotDecode(doc.errors[0]!.message);
  return doc;
}

/** A node as the walk meets it: an empty value (`a:`, `? b`) is null or undefined. */
type YamlNode = Node | null | undefined;

interface ReadState {
  /** Each alias's anchored node: the last one of its name before it, as go-yaml's parser sees anchors. */
  targets: Map<Alias, Node>;
  /** Aliases being expanded, to refuse one inside its own anchor. */
  expanding: Set<Alias>;
  /** go-yaml's counts for refusing excessive aliasing (billion laughs): nodes decoded, and of those, decoded through an alias. */
  decodeCount: number;
  aliasCount: number;
  aliasDepth: number;
  /** Where duplicate keys go, when they are looked for. */
  duplicates: string[] | undefined;
}

/**
 * A parsed YAML body as the JSON value upstream converts it to, and its duplicate keys
 * when `findDuplicates`. Refused (400) as upstream refuses them: a mapping or a sequence
 * as a key, a null key, an alias without its anchor or inside it, excessive aliasing, a
 * merge of something other than mappings, an explicit tag its scalar does not fit, `!!binary`
 * that is not base64, infinities and NaN (JSON has none); and nesting deeper than
 * `maxNestingDepth`, as every body.
 */
export function readYamlBody(doc: Document | undefined, findDuplicates: boolean): YamlBody {
  if (doc === undefined) return { value: null, duplicateFields: [] };
  const state: ReadState = {
    targets: aliasTargets(doc.contents),
    expanding: new Set(),
    decodeCount: 0,
    aliasCount: 0,
    aliasDepth: 0,
    duplicates: findDuplicates ? [] : undefined,
  };
  count(state); // the document node
  const value = read(state, doc.contents, findDuplicates ? '' : undefined, 1);
  return { value, duplicateFields: state.duplicates ?? [] };
}

/** One node decoded, counted as go-yaml counts them: past 100 aliased decodes and 1,000 in all, at most 99% (10% in huge documents) may come from aliases. */
function count(state: ReadState): void {
  state.decodeCount++;
  if (state.aliasDepth > 0) state.aliasCount++;
  if (state.aliasCount > 100 && state.decodeCount > 1000 && state.aliasCount / state.decodeCount > allowedAliasRatio(state.decodeCount)) {
    throw cannotDecode('yaml: document contains excessive aliasing');
  }
}

function allowedAliasRatio(decodeCount: number): number {
  const low = 400_000;
  const high = 4_000_000;
  if (decodeCount <= low) return 0.99;
  if (decodeCount >= high) return 0.1;
  return 0.99 - 0.89 * ((decodeCount - low) / (high - low));
}

/** A node's JSON value; `path` names it for duplicate keys (undefined when they are not looked for); the top level is `depth` 1. */
function read(state: ReadState, node: YamlNode, path: string | undefined, depth: number): unknown {
  const yaml = requireYaml();
  count(state);
  if (yaml.isAlias(node)) return expandAlias(state, node, (target) => read(state, target, path, depth));
  if (yaml.isMap(node)) {
    if (depth > maxNestingDepth) throw tooDeep('{');
    const out: Record<string, unknown> = {};
    readPairs(state, node, out, path, depth);
    return out;
  }
  if (yaml.isSeq(node)) {
    if (depth > maxNestingDepth) throw tooDeep('[');
    return node.items.map((item, i) => read(state, item as YamlNode, path === undefined ? undefined : `${path}[${i}]`, depth + 1));
  }
  return jsonValue(readScalar(node as Scalar | null | undefined));
}

/** The refusal of a body nested too deep that decode.ts gives every body (refuseDeepNesting). */
function tooDeep(opener: '{' | '['): StatusError {
  return badRequest(`couldn't get version/kind; json parse error: ${tooDeepMessage(opener)}`);
}

/** The node `alias` names, read by `readTarget` (which counts it) under go-yaml's guards. */
function expandAlias<T>(state: ReadState, alias: Alias, readTarget: (target: Node) => T): T {
  const target = state.targets.get(alias);
  if (target === undefined) throw cannotDecode(`yaml: unknown anchor '${alias.source}' referenced`);
  if (state.expanding.has(alias)) throw cannotDecode(`yaml: anchor '${alias.source}' value contains itself`);
  state.expanding.add(alias);
  state.aliasDepth++;
  try {
    return readTarget(target);
  } finally {
    state.aliasDepth--;
    state.expanding.delete(alias);
  }
}

/**
 * A mapping's pairs into `out`. A merge key (`<<`) sets the merged mappings' keys where it
 * stands, over keys set before it, as go-yaml v2 does; keys after it override them. A key
 * already set is a duplicate, as go-yaml's strict decoding finds them (keys compare as the
 * JSON names they become: `on` and `true` are one key).
 */
function readPairs(state: ReadState, map: YAMLMap, out: Record<string, unknown>, path: string | undefined, depth: number): void {
  for (const pair of map.items) {
    const keyNode = pair.key as YamlNode;
    if (isMergeKey(keyNode)) {
      merge(state, pair.value as YamlNode, out, path, depth);
      continue;
    }
    const key = readKey(state, keyNode);
    const name = typeof key === 'string' ? key : keyName(key);
    const valuePath = path === undefined || name === undefined ? undefined : path === '' ? name : `${path}.${name}`;
    const value = read(state, pair.value as YamlNode, valuePath, depth + 1);
    if (name === undefined) throw unsupportedKey(key as ResolvedScalar, value);
    if (valuePath !== undefined && Object.hasOwn(out, name)) state.duplicates?.push(valuePath);
    setMember(out, name, value);
  }
}

/** go-yaml's merge key: `<<` written plain (or with the non-specific tag `!`), or tagged `!!merge`. */
function isMergeKey(node: YamlNode): boolean {
  if (!requireYaml().isScalar(node) || node.source !== '<<') return false;
  return node.tag === undefined ? node.type === 'PLAIN' : node.tag === '!' || node.tag === `${tagPrefix}merge`;
}

/** A merge key's value into `out`: a mapping, an alias of one, or a sequence of those, the earlier ones winning (merged last). */
function merge(state: ReadState, node: YamlNode, out: Record<string, unknown>, path: string | undefined, depth: number): void {
  const yaml = requireYaml();
  const mergeOne = (item: YamlNode): void => {
    if (yaml.isMap(item)) {
      count(state);
      return readPairs(state, item, out, path, depth);
    }
    if (yaml.isAlias(item)) {
      const target = state.targets.get(item);
      if (target !== undefined && !yaml.isMap(target)) throw notMergeable();
      count(state);
      return expandAlias(state, item, (map) => {
        count(state);
        readPairs(state, map as YAMLMap, out, path, depth);
      });
    }
    throw notMergeable();
  };
  if (yaml.isSeq(node)) {
    for (let i = node.items.length - 1; i >= 0; i--) mergeOne(node.items[i] as YamlNode);
  } else {
    mergeOne(node);
  }
}

function notMergeable(): StatusError {
  return cannotDecode('yaml: map merge requires map or sequence of maps as the value');
}

/** A key read as go-yaml reads it: a mapping or a sequence is refused; a scalar is its resolved value (a string unless the key is a number, a bool or null). */
function readKey(state: ReadState, node: YamlNode): string | ResolvedScalar {
  const yaml = requireYaml();
  count(state);
  if (yaml.isAlias(node)) return expandAlias(state, node, (target) => readKey(state, target));
  // sigs.k8s.io/yaml's conversion to JSON refuses such keys; go-yaml itself calls them invalid.
  if (yaml.isCollection(node)) throw cannotDecode(`unsupported map key: ${String(node)}`);
  const resolved = readScalar(node as Scalar | null | undefined);
  return resolved.tag === 'str' || resolved.tag === 'timestamp' ? resolved.value : resolved;
}

/** A non-string key's JSON name as sigs.k8s.io/yaml's convertToJSONableObject writes it; undefined for the keys it refuses (null, uint64). */
function keyName(key: ResolvedScalar): string | undefined {
  if (key.tag === 'bool') return String(key.value);
  // As strconv.FormatFloat(f, 'g', -1, 32): sigs.k8s.io/yaml v1.4.0 writes float keys as float32s (1.23456789012 is "1.2345679").
  if (key.tag === 'float') return formatGoFloat(key.value, 32);
  if (key.tag === 'int' && key.value <= maxInt64) return key.value.toString();
  return undefined;
}

/** The refusal of a key keyName has no name for, in convertToJSONableObject's words (Go's %+#v of the key and of its value). */
function unsupportedKey(key: ResolvedScalar, value: unknown): StatusError {
  const [type, shown] = key.tag === 'int' ? ['uint64', `0x${key.value.toString(16)}`] : ['%!s(<nil>)', '<nil>'];
  return cannotDecode(`unsupported map key of type: ${type}, key: ${shown}, value: ${goSyntax(value, true)}`);
}

/** A converted value as Go's %+#v prints what go-yaml decoded. */
function goSyntax(value: unknown, top = false): string {
  if (value === null) return top ? '<nil>' : 'interface {}(nil)';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : formatGoFloat(value);
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map((v) => goSyntax(v)).join(', ')}}`;
  const members = Object.keys(value).sort().map((k) => `${goQuote(k)}:${goSyntax((value as Record<string, unknown>)[k])}`);
  return `map[interface {}]interface {}{${members.join(', ')}}`;
}

/** Sets `out[name]`, an own data property even for `__proto__`, as JSON.parse does. */
function setMember(out: Record<string, unknown>, name: string, value: unknown): void {
  if (name === '__proto__') Object.defineProperty(out, name, { value, writable: true, enumerable: true, configurable: true });
  else out[name] = value;
}

/**
 * A scalar as go-yaml decodes it into an interface{}: untagged quoted and block scalars are
 * strings; plain ones resolve (a timestamp stays the string it is); `!!binary` is its
 * decoded bytes; a tag go-yaml resolves must suit the scalar (`!!float` takes integers
 * too); other tags leave it a string.
 */
function readScalar(node: Scalar | null | undefined): ResolvedScalar {
  if (node === null || node === undefined) return { tag: 'null', value: null };
  const text = node.source ?? String(node.value);
  const tag = node.tag;
  if (tag === undefined) return node.type === 'PLAIN' ? resolveScalar(text) : { tag: 'str', value: text };
  const name = tag.startsWith(tagPrefix) ? tag.slice(tagPrefix.length) : undefined;
  if (name === 'binary') return { tag: 'str', value: decodeBinary(text) };
  if (name === undefined || !resolvableTags.has(name)) return { tag: 'str', value: text };
  const resolved = resolveScalar(text, name as ResolvableTag);
  if (resolved.tag === name) return resolved;
  if (name === 'float' && resolved.tag === 'int') return { tag: 'float', value: Number(resolved.value) };
  throw cannotDecode(`yaml: cannot decode !!${resolved.tag} \`${text}\` as a !!${name}`);
}

/** A resolved scalar as JSON data; encoding/json has no form for infinities and NaN. */
function jsonValue(scalar: ResolvedScalar): unknown {
  switch (scalar.tag) {
    case 'int':
      return Number(scalar.value);
    case 'float':
      if (Number.isFinite(scalar.value)) return scalar.value;
      throw cannotDecode(`json: unsupported value: ${Number.isNaN(scalar.value) ? 'NaN' : scalar.value > 0 ? '+Inf' : '-Inf'}`);
    default:
      return scalar.value;
  }
}

const base64Text = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * `!!binary` text as go-yaml decodes it: standard padded base64 (line breaks ignored); its
 * bytes are then a string, which encoding/json writes with U+FFFD for each byte that is
 * not UTF-8.
 */
function decodeBinary(text: string): string {
  const compact = text.replace(/[\r\n]/g, '');
  if (!base64Text.test(compact)) throw cannotDecode('yaml: !!binary value contains invalid base64 data');
  return goUtf8(Buffer.from(compact, 'base64'));
}

/** Bytes as Go's UTF-8 decoding reads them: each byte that does not start a valid sequence is one U+FFFD. */
function goUtf8(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const size = utf8SequenceLength(bytes, i);
    out += size === 0 ? '\uFFFD' : bytes.subarray(i, i + size).toString('utf8');
    i += size === 0 ? 1 : size;
  }
  return out;
}

/** The length of the valid UTF-8 sequence at `i` (Go's accept ranges: no overlong forms, surrogates or code points past U+10FFFF), or 0. */
function utf8SequenceLength(bytes: Buffer, i: number): number {
  const first = bytes[i]!;
  if (first < 0x80) return 1;
  let size = 0;
  let low = 0x80;
  let high = 0xbf;
  if (first >= 0xc2 && first <= 0xdf) {
    size = 2;
  } else if (first >= 0xe0 && first <= 0xef) {
    size = 3;
    if (first === 0xe0) low = 0xa0;
    if (first === 0xed) high = 0x9f;
  } else if (first >= 0xf0 && first <= 0xf4) {
    size = 4;
    if (first === 0xf0) low = 0x90;
    if (first === 0xf4) high = 0x8f;
  }
  if (size === 0 || i + size > bytes.length) return 0;
  if (bytes[i + 1]! < low || bytes[i + 1]! > high) return 0;
  for (let k = 2; k < size; k++) if (bytes[i + k]! < 0x80 || bytes[i + k]! > 0xbf) return 0;
  return size;
}

/**
 * Each alias's target: walking the document in order, as go-yaml's parser meets anchors
 * (a node's anchor before its children, a key before its value), the last node anchored
 * with the alias's name. Iterative, over the parsed tree only (aliases are not followed).
 */
function aliasTargets(root: unknown): Map<Alias, Node> {
  const yaml = requireYaml();
  const targets = new Map<Alias, Node>();
  const anchors = new Map<string, Node>();
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (yaml.isAlias(node)) {
      const target = anchors.get(node.source);
      if (target !== undefined) targets.set(node, target);
      continue;
    }
    if (!yaml.isNode(node)) continue;
    if (node.anchor !== undefined) anchors.set(node.anchor, node);
    if (yaml.isMap(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) pending.push(node.items[i]!.value, node.items[i]!.key);
    } else if (yaml.isSeq(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) pending.push(node.items[i]);
    }
  }
  return targets;
}
