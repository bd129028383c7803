// Configuration files of the apiserver.config.k8s.io group (AuthenticationConfiguration,
// AuthorizationConfiguration) decoded as upstream's strict universal decoder decodes them into
// their Go types: YAML or JSON, a registered version and kind, no unknown field (all named in
// one error), each value of its Go type (encoding/json's words when not), a null leaving the
// zero value, durations as Go's time.ParseDuration reads them.
import type { StatusCause } from '../api/types.ts';
import { loadYaml } from '../api/yaml.ts';
import { goParseDuration } from './flag-parsing.ts';

/** A field's Go type; `*bool` and `*string` stay undefined when left out, the others become their zero. */
export type FieldType = 'string' | '*string' | 'bool' | '*bool' | 'duration' | '[]string' | { struct: string; pointer?: true } | { list: string };

/** Each struct's fields by JSON name. */
export type Structs = Readonly<Record<string, Readonly<Record<string, FieldType>>>>;

export class DecodeError extends Error {}

const group = 'apiserver.config.k8s.io';
const versions = ['v1', 'v1beta1', 'v1alpha1'];

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

function zero(type: FieldType, structs: Structs): unknown {
  if (type === 'string') return '';
  if (type === 'bool') return false;
  if (type === 'duration') return 0;
  if (type === '*bool' || type === '*string') return undefined;
  if (type === '[]string' || 'list' in type) return [];
  if (type.pointer === true) return undefined;
  return decodeStruct(undefined, type.struct, '', '', [], '', structs);
}

/**
 * A struct decoded: unknown fields collected in `unknown` (the strict error names them all),
 * a value of the wrong JSON type refused with encoding/json's words.
 */
function decodeStruct(value: unknown, name: string, at: string, goPath: string, unknown: string[], pkg: string, structs: Structs): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = structs[name]!;
  for (const [field, type] of Object.entries(fields)) {
    const initial = zero(type, structs);
    if (initial !== undefined) out[field] = initial;
  }
  for (const [field, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    const type = fields[field];
    const fieldAt = at === '' ? field : `${at}.${field}`;
    if (type === undefined) {
      unknown.push(fieldAt);
      continue;
    }
    if (v === null) continue;
    const fieldGoPath = goPath === '' ? field : `${goPath}.${field}`;
    const wrong = (goType: string) => new DecodeError(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${name}.${fieldGoPath} of type ${goType}`);
    if (type === 'string' || type === '*string') {
      if (typeof v !== 'string') throw wrong('string');
      out[field] = v;
    } else if (type === 'bool' || type === '*bool') {
      if (typeof v !== 'boolean') throw wrong('bool');
      out[field] = v;
    } else if (type === 'duration') {
      // metav1.Duration: a string Go's time.ParseDuration reads.
      if (typeof v !== 'string') throw wrong('string');
      try {
        out[field] = goParseDuration(v);
      } catch (err) {
        throw new DecodeError((err as Error).message);
      }
    } else if (type === '[]string') {
      if (!Array.isArray(v)) throw wrong('[]string');
      out[field] = v.map((item) => {
        if (typeof item !== 'string' && item !== null) throw wrong('string');
        return item ?? '';
      });
    } else if ('struct' in type) {
      if (typeof v !== 'object' || Array.isArray(v)) throw wrong(`${pkg}.${type.struct}`);
      out[field] = decodeStruct(v, type.struct, fieldAt, fieldGoPath, unknown, pkg, structs);
    } else {
      if (!Array.isArray(v)) throw wrong(`[]${pkg}.${type.list}`);
      out[field] = v.map((item, i) => {
        if (item !== null && (typeof item !== 'object' || Array.isArray(item))) throw wrong(`${pkg}.${type.list}`);
        return decodeStruct(item, type.list, `${fieldAt}[${i}]`, fieldGoPath, unknown, pkg, structs);
      });
    }
  }
  return out;
}

/**
 * The file's text decoded as `kind` of apiserver.config.k8s.io (v1, v1beta1 or v1alpha1),
 * whose struct in `structs` has the kind's name.
 */
export async function decodeConfiguration(text: string, kind: string, structs: Structs): Promise<Record<string, unknown>> {
  if (text.length === 0) throw new DecodeError('empty config data');
  let doc: unknown;
  try {
    doc = (await loadYaml()).parse(text);
  } catch (err) {
    throw new DecodeError((err as Error).message.split('\n')[0]!);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new DecodeError('the file does not hold an object');
  const { apiVersion, kind: found } = doc as { apiVersion?: unknown; kind?: unknown };
  if (typeof found !== 'string' || found === '') throw new DecodeError(`Object 'Kind' is missing in '${JSON.stringify(doc)}'`);
  const version = typeof apiVersion === 'string' && apiVersion.startsWith(`${group}/`) ? apiVersion.slice(group.length + 1) : undefined;
  if (version === undefined || !versions.includes(version) || found !== kind) {
    throw new DecodeError(`no kind ${JSON.stringify(found)} is registered for version ${JSON.stringify(apiVersion ?? '')}: expected ${kind} of ${versions.map((v) => `${group}/${v}`).join(', ')}`);
  }
  const unknown: string[] = [];
  const decoded = decodeStruct(doc, kind, '', '', unknown, version, { ...structs, [kind]: { apiVersion: 'string', kind: 'string', ...structs[kind] } });
  if (unknown.length > 0) throw new DecodeError(`strict decoding error: ${unknown.map((f) => `unknown field ${JSON.stringify(f)}`).join(', ')}`);
  return decoded;
}

/** Field errors as Go's ErrorList.ToAggregate() prints them: one as it is, several as `[a, b]`, each once. */
export function fieldErrorsText(causes: readonly StatusCause[]): string {
  const texts = [...new Set(causes.map((c) => `${c.field}: ${c.message}`))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}
