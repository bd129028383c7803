// Generates what upstream publishes as data about the built-in API (DESIGN.md, "Generated
// from upstream's data"): the structural schemas of every served type, the ResourceType
// skeletons (names, scope, verbs, short names, categories, subresources) and the list of
// Protobuf messages the served kinds need. It reads kube-apiserver's published OpenAPI v3
// documents and discovery documents (../shared/upstream) and our own field descriptions
// (tools/api-descriptions.json); its output is committed, so a clone works without the
// upstream data, and test/tools/generate-api.test.ts checks the committed files equal a
// fresh generation.
//
//   npm run generate            # writes the files
//   npm run generate -- --check # exits 1 when a committed file differs

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FieldRow, messages } from '../src/encoding/protobuf/messages.ts';
import { oneOfTypes } from '../src/encoding/protobuf/one-of-types.ts';
import { specialTypes } from '../src/encoding/protobuf/special-types.ts';
import type { ResourceSkeleton } from '../src/registry/builtin/skeleton.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const defaultUpstreamDir = process.env.PLINTH_UPSTREAM ?? path.resolve(repoRoot, '../shared/upstream');

/** The committed files, relative to the repository. */
export const outputs = {
  definitions: 'src/schema/builtin/generated/definitions.json',
  resources: 'src/registry/builtin/generated/resources.ts',
  protobufRoots: 'src/encoding/protobuf/roots.ts',
  goEncoding: 'src/schema/builtin/generated/go-encoding.json',
} as const;

const descriptionsFile = 'tools/api-descriptions.json';

interface DiscoveryResource {
  resource: string;
  responseKind: { group: string; version: string; kind: string };
  scope: 'Cluster' | 'Namespaced';
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; responseKind?: { group: string; version: string; kind: string }; verbs: string[] }[];
}

interface DiscoveryList {
  items: { metadata: { name?: string }; versions: { version: string; resources: DiscoveryResource[] }[] }[];
}


function readJson(file: string): Json {
  return JSON.parse(readFileSync(file, 'utf8')) as Json;
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The openapi-v3 file of a group-version: `apis__apps__v1_openapi.json`, `api__v1_openapi.json`. */
function openapiFile(group: string, version: string): string {
  return group === '' ? `api__${version}_openapi.json` : `apis__${group}__${version}_openapi.json`;
}

/** The served resources, in upstream's discovery order (core first). */
export function readSkeletons(upstreamDir: string): ResourceSkeleton[] {
  const out: ResourceSkeleton[] = [];
  for (const file of ['aggregated-api.json', 'aggregated-apis.json']) {
    const list = readJson(path.join(upstreamDir, 'discovery', file)) as unknown as DiscoveryList;
    for (const group of list.items) {
      const groupName = group.metadata.name ?? '';
      for (const version of group.versions) {
        for (const r of version.resources) {
          out.push({
            group: groupName,
            version: version.version,
            resource: r.resource,
            singular: r.singularResource,
            kind: r.responseKind.kind,
            namespaced: r.scope === 'Namespaced',
            shortNames: r.shortNames ?? [],
            categories: r.categories ?? [],
            verbs: r.verbs,
            subresources: (r.subresources ?? []).map((s) => ({
              name: s.subresource,
              // Another group's kind (autoscaling/v1 Scale, policy/v1 Eviction) names its group and version.
              ...(s.responseKind?.version ? { group: s.responseKind.group, version: s.responseKind.version } : {}),
              kind: s.responseKind?.kind ?? r.responseKind.kind,
              verbs: s.verbs,
            })),
          });
        }
      }
    }
  }
  return out;
}

/**
 * A zero value as openapi-gen writes it for every non-pointer field ("", 0, false, {}).
 * Upstream's Go types omit most of those fields when empty, so they are not defaults a
 * server applies; the others (+default markers: "TCP", 1, "Equal") are.
 */
function isZeroDefault(value: Json): boolean {
  return value === '' || value === 0 || value === false || (isObject(value) && Object.keys(value).length === 0);
}

/**
 * Zero-value defaults upstream does apply: pointer fields with a `+default` of their zero
 * value, which the defaulter sets and the JSON then shows.
 */
const keptZeroDefaults = new Set(['io.k8s.api.core.v1.GRPCAction.service']);

/**
 * Upstream's OpenAPI form to ours: `allOf: [{$ref}]` becomes `$ref` with the siblings
 * kept beside it (a field's patch strategy, its description), zero-value defaults go.
 */
function normalize(schema: Json, at: string): Json {
  if (Array.isArray(schema)) return schema.map((s) => normalize(s, at));
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'allOf' && Array.isArray(value) && value.length === 1 && isObject(value[0]) && typeof value[0].$ref === 'string' && Object.keys(value[0]).length === 1) {
      out.$ref = value[0].$ref;
    } else if (key === 'default' && isZeroDefault(value) && !keptZeroDefaults.has(at)) {
      continue;
    } else if (key === 'properties' && isObject(value)) {
      const props: JsonObject = {};
      for (const [name, prop] of Object.entries(value)) props[name] = normalize(prop, `${at}.${name}`);
      out.properties = props;
    } else if (key === 'default' || key === 'enum' || key === 'x-kubernetes-group-version-kind') {
      out[key] = value;
    } else {
      out[key] = normalize(value, at);
    }
  }
  return out;
}

/**
 * What our schema engine needs beyond upstream's published form: upstream's Go decoding
 * keeps these values whole, so pruning must too, and IntOrString is named as the
 * structural schema marker so validation and apply treat it as one value.
 */
const overrides: Record<string, JsonObject> = {
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': { 'x-kubernetes-preserve-unknown-fields': true },
  'io.k8s.apimachinery.pkg.runtime.RawExtension': { 'x-kubernetes-preserve-unknown-fields': true },
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { 'x-kubernetes-int-or-string': true },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON': { 'x-kubernetes-preserve-unknown-fields': true },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray': { 'x-kubernetes-preserve-unknown-fields': true },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool': { 'x-kubernetes-preserve-unknown-fields': true },
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray': { 'x-kubernetes-preserve-unknown-fields': true },
};

/**
 * Fields named `description` that the published data lost when descriptions were removed
 * from it (the Go types have them: PriorityClass, CRD schemas and printer columns).
 */
const descriptionFields = [
  'io.k8s.api.scheduling.v1.PriorityClass',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps',
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceColumnDefinition',
];

/** Objects sorted by key at every level, so that the output does not depend on input order. */
function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]!);
  return out;
}

function gvkKey(g: Json): string {
  const o = g as JsonObject;
  return `${o.group as string}/${o.version as string}/${o.kind as string}`;
}

/** Adds `descriptions` ("Def" and "Def.field" → text) to the definitions they name. */
function describe(defs: Record<string, JsonObject>, descriptions: Record<string, string>): void {
  for (const [key, text] of Object.entries(descriptions)) {
    const dot = key.indexOf('#');
    const name = dot < 0 ? key : key.slice(0, dot);
    const def = defs[name];
    if (def === undefined) continue;
    if (dot < 0) {
      def.description = text;
      continue;
    }
    const props = def.properties;
    const field = key.slice(dot + 1);
    if (isObject(props) && isObject(props[field])) (props[field] as JsonObject).description = text;
  }
}

/** Every definition of the served group-versions, normalized, merged across documents. */
export function generateDefinitions(upstreamDir: string, skeletons: ResourceSkeleton[]): Record<string, JsonObject> {
  const groupVersions = [...new Set(skeletons.map((s) => `${s.group}/${s.version}`))];
  // The discovery documents' own types (APIGroup, APIVersions) come from /api and /apis.
  const files = [...groupVersions.map((gv) => openapiFile(...(gv.split('/') as [string, string]))), 'api_openapi.json', 'apis_openapi.json'];
  const defs: Record<string, JsonObject> = {};
  for (const [i, file] of files.entries()) {
    const gv = groupVersions[i] ?? file;
    const doc = readJson(path.join(upstreamDir, 'openapi-v3', file)) as JsonObject;
    const schemas = ((doc.components as JsonObject).schemas ?? {}) as JsonObject;
    for (const [name, raw] of Object.entries(schemas)) {
      const schema = normalize(raw, name) as JsonObject;
      Object.assign(schema, overrides[name] ?? {});
      if (descriptionFields.includes(name) && isObject(schema.properties)) schema.properties.description = { type: 'string' };
      const seen = defs[name];
      if (seen === undefined) {
        defs[name] = schema;
        continue;
      }
      // Shared meta types list the group-versions of each document; the union is every served one.
      const gvks = new Map<string, Json>();
      for (const g of [...((seen['x-kubernetes-group-version-kind'] as Json[] | undefined) ?? []), ...((schema['x-kubernetes-group-version-kind'] as Json[] | undefined) ?? [])]) {
        gvks.set(gvkKey(g), g);
      }
      if (gvks.size > 0) {
        seen['x-kubernetes-group-version-kind'] = [...gvks.values()];
        schema['x-kubernetes-group-version-kind'] = seen['x-kubernetes-group-version-kind'];
      }
      if (JSON.stringify(sortKeys(seen)) !== JSON.stringify(sortKeys(schema))) throw new Error(`definition ${name} differs between group-versions (${gv})`);
    }
  }
  // A kind's status is written by controllers, and upstream checks no presence there: its
  // `required` names the Go fields without omitempty (always written, as 0 when unset).
  for (const def of Object.values(defs)) {
    const gvks = def['x-kubernetes-group-version-kind'];
    const status = isObject(def.properties) ? def.properties.status : undefined;
    if (!Array.isArray(gvks) || gvks.length !== 1 || !isObject(status) || typeof status.$ref !== 'string') continue;
    const statusDef = defs[status.$ref.slice('#/components/schemas/'.length)];
    if (statusDef !== undefined) delete statusDef.required;
  }
  for (const def of Object.values(defs)) {
    const gvks = def['x-kubernetes-group-version-kind'];
    if (Array.isArray(gvks)) def['x-kubernetes-group-version-kind'] = [...gvks].sort((a, b) => gvkKey(a).localeCompare(gvkKey(b)));
  }
  return defs;
}

/** The definition of a group-version-kind: the one listing exactly it in `x-kubernetes-group-version-kind`. */
function definitionOf(defs: Record<string, JsonObject>, group: string, version: string, kind: string): string | undefined {
  for (const [name, def] of Object.entries(defs)) {
    const gvks = def['x-kubernetes-group-version-kind'];
    if (!Array.isArray(gvks) || gvks.length !== 1) continue;
    const g = gvks[0] as JsonObject;
    if (g.group === group && g.version === version && g.kind === kind) return name;
  }
  return undefined;
}

/** The Protobuf message of a definition: `io.k8s.api.apps.v1.Deployment` → `apps.v1.Deployment`. */
export function protobufMessageOf(definition: string): string {
  for (const [prefix, replacement] of [
    ['io.k8s.api.', ''],
    ['io.k8s.apimachinery.pkg.apis.meta.v1.', 'meta.v1.'],
    ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.', 'apiextensions.v1.'],
    ['io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.', 'apiregistration.v1.'],
  ] as const) {
    if (definition.startsWith(prefix)) return replacement + definition.slice(prefix.length);
  }
  throw new Error(`no Protobuf package known for ${definition}`);
}

/** Scalar types on the wire (bytes aside: an empty []byte is not a zero scalar in JSON). */
const zeroableScalars = new Set(['string', 'int32', 'int64', 'bool', 'double']);

/**
 * How Go's JSON encoding treats a definition's properties when they are zero or absent:
 * what it leaves out (an omitempty scalar's zero, an empty omitempty list or map) and what
 * it writes though the object did not hold it (`written`: a value scalar without
 * omitempty as "", 0 or false; a value struct as `{}`, or its type's zero JSON: a Time
 * null, a Quantity "0"; a list or map without omitempty as null).
 */
export interface GoEncoding {
  zero?: string[];
  emptyList?: string[];
  emptyMap?: string[];
  written?: Record<string, Json>;
  /** Lists and maps without omitempty: empty, they are nil once read back from Protobuf (JSON null). */
  nilWhenEmpty?: string[];
}

/** A message's fields as its JSON has them: an inlined message's fields in its place. */
function jsonFields(message: string): FieldRow[] {
  return (messages[message] ?? []).flatMap((field) => (field[3].includes('i') ? jsonFields(field[2]) : [field]));
}

/** What the types with a JSON form of their own marshal to when zero (apimachinery's MarshalJSON methods). */
const specialZeroJson: Record<string, Json> = {
  'meta.v1.Time': null,
  'meta.v1.MicroTime': null,
  'meta.v1.Duration': '0s',
  'meta.v1.FieldsV1': null,
  'resource.Quantity': '0',
  'intstr.IntOrString': 0,
  'runtime.RawExtension': null,
  'apiextensions.v1.JSON': null,
};

/** The JSON Go writes for a value field of `type` left at its zero value. */
function goZeroJson(type: string): Json {
  switch (type) {
    case 'string': return '';
    case 'bool': return false;
    case 'int32': case 'int64': case 'double': return 0;
  }
  if (Object.hasOwn(specialZeroJson, type)) return specialZeroJson[type]!;
  if (oneOfTypes.has(type) || specialTypes.has(type)) throw new Error(`${type}: no zero JSON known`);
  return {};
}

/**
 * Per definition, from the Protobuf message table (messages.ts, from the Go types): value
 * scalars with neither p (a pointer: a zero is kept) nor z (no omitempty), whose "", 0 or
 * false is left out; repeated and map fields marked e (omitempty), whose empty list or map
 * is left out; and what is written when absent: value scalars marked z, value messages
 * (neither p, nor e: omitzero), which omitempty does not leave out, and repeated and map
 * fields not marked e, which are also `nilWhenEmpty`.
 */
export function goEncoding(defs: Record<string, JsonObject>): Record<string, GoEncoding> {
  const out: Record<string, GoEncoding> = {};
  for (const name of Object.keys(defs).sort()) {
    let message: string;
    try {
      message = protobufMessageOf(name);
    } catch {
      continue;
    }
    const properties = defs[name]!.properties as JsonObject | undefined;
    if (messages[message] === undefined || properties === undefined) continue;
    const fields = jsonFields(message).filter(([, jsonName]) => jsonName in properties).sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const named = (keep: (type: string, flags: string) => boolean) => fields.filter(([, , type, flags]) => keep(type, flags)).map(([, jsonName]) => jsonName);
    const entry: GoEncoding = {};
    const zero = named((type, flags) => zeroableScalars.has(type) && !/[pzrm]/.test(flags));
    const emptyList = named((_, flags) => flags.includes('r') && flags.includes('e'));
    const emptyMap = named((_, flags) => flags.includes('m') && flags.includes('e'));
    const written: Record<string, Json> = {};
    const nilWhenEmpty: string[] = [];
    for (const [, jsonName, type, flags] of fields) {
      if (flags === 'z' || (flags === '' && !zeroableScalars.has(type) && type !== 'bytes')) written[jsonName] = goZeroJson(type);
      // A nil slice or map without omitempty: encoding/json writes null (a Role without rules).
      else if (flags === 'r' || flags === 'm') {
        written[jsonName] = null;
        nilWhenEmpty.push(jsonName);
      }
    }
    if (zero.length > 0) entry.zero = zero;
    if (emptyList.length > 0) entry.emptyList = emptyList;
    if (emptyMap.length > 0) entry.emptyMap = emptyMap;
    if (Object.keys(written).length > 0) entry.written = written;
    if (nilWhenEmpty.length > 0) entry.nilWhenEmpty = nilWhenEmpty;
    if (Object.keys(entry).length > 0) out[name] = entry;
  }
  return out;
}

/** Records that bodies of a group-version-kind are encoded as a message. */
function addKind(kinds: Map<string, Map<string, string>>, gvk: JsonObject, message: string): void {
  const apiVersion = gvk.group === '' ? String(gvk.version) : `${String(gvk.group)}/${String(gvk.version)}`;
  let byKind = kinds.get(apiVersion);
  if (byKind === undefined) kinds.set(apiVersion, (byKind = new Map()));
  byKind.set(String(gvk.kind), message);
}

/** The generated files' contents, by path relative to the repository. */
export function generate(upstreamDir: string = defaultUpstreamDir): Map<string, string> {
  const skeletons = readSkeletons(upstreamDir);
  const defs = generateDefinitions(upstreamDir, skeletons);
  const descriptions = readJson(path.join(repoRoot, descriptionsFile)) as Record<string, string>;
  describe(defs, descriptions);
  for (const s of skeletons) {
    const name = definitionOf(defs, s.group, s.version, s.kind);
    if (name !== undefined) s.schemaName = name;
  }

  const files = new Map<string, string>();
  files.set(outputs.definitions, JSON.stringify(sortKeys(defs as Json), null, 1) + '\n');
  files.set(outputs.goEncoding, JSON.stringify(goEncoding(defs), null, 1) + '\n');

  const resourceLines = skeletons.map((s) => `  ${JSON.stringify(s)},`);
  files.set(outputs.resources, [
    '// Generated by tools/generate-api.ts from upstream\'s discovery documents (kube-apiserver',
    '// v1.36.2); do not edit. The built-in resources upstream serves by default, in discovery order.',
    '',
    'import type { ResourceSkeleton } from \'../skeleton.ts\';',
    '',
    'export const upstreamResources: readonly ResourceSkeleton[] = [',
    ...resourceLines,
    '];',
    '',
  ].join('\n'));

  // The served kinds, their lists, and the kinds their subresources take (Scale, Binding...),
  // by the apiVersion a body of that kind carries: a subresource's kind may live in another
  // group (deployments/scale takes autoscaling/v1 Scale), found as the one definition of it.
  const kinds = new Map<string, Map<string, string>>();
  const singleGvk = (name: string): JsonObject => (defs[name]!['x-kubernetes-group-version-kind'] as JsonObject[])[0]!;
  const elsewhere = (kind: string): string | undefined => {
    const found = Object.keys(defs).filter((name) => {
      const gvks = defs[name]!['x-kubernetes-group-version-kind'];
      return Array.isArray(gvks) && gvks.length === 1 && (gvks[0] as JsonObject).kind === kind;
    });
    return found.length === 1 ? found[0] : undefined;
  };
  for (const s of skeletons) {
    for (const kind of [s.kind, `${s.kind}List`]) {
      const name = definitionOf(defs, s.group, s.version, kind);
      if (name !== undefined) addKind(kinds, singleGvk(name), protobufMessageOf(name));
    }
    for (const sub of s.subresources) {
      const name = definitionOf(defs, s.group, s.version, sub.kind) ?? elsewhere(sub.kind);
      if (name !== undefined) addKind(kinds, singleGvk(name), protobufMessageOf(name));
    }
  }
  const roots = new Set([...kinds.values()].flatMap((byKind) => [...byKind.values()]));
  const sortedKinds = [...kinds].sort(([a], [b]) => a.localeCompare(b));
  files.set(outputs.protobufRoots, [
    '// Generated by tools/generate-api.ts; do not edit. The Protobuf messages of the kinds the',
    '// served resources and their subresources take, which messages.ts must describe, and',
    '// the message of each of those kinds by the apiVersion its bodies carry.',
    '',
    'export const servedMessages: readonly string[] = [',
    ...[...roots].sort().map((r) => `  ${JSON.stringify(r)},`),
    '];',
    '',
    'export const servedKinds: Readonly<Record<string, Readonly<Record<string, string>>>> = {',
    ...sortedKinds.flatMap(([apiVersion, byKind]) => [
      `  ${JSON.stringify(apiVersion)}: {`,
      ...[...byKind].sort(([a], [b]) => a.localeCompare(b)).map(([kind, message]) => `    ${kind}: ${JSON.stringify(message)},`),
      '  },',
    ]),
    '};',
    '',
  ].join('\n'));
  return files;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let differs = false;
  for (const [file, content] of generate()) {
    const target = path.join(repoRoot, file);
    let current: string | undefined;
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      current = undefined;
    }
    if (current === content) continue;
    if (check) {
      differs = true;
      console.error(`${file} differs from a fresh generation`);
    } else {
      writeFileSync(target, content);
      console.log(`wrote ${file}`);
    }
  }
  if (differs) process.exit(1);
}
