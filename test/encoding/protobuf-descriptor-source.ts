// Where src/encoding/protobuf/messages.ts comes from, so that it can be checked and
// regenerated rather than trusted.
//
// A Go binary built with k8s.io/api (kube-controller-manager, kubectl) carries the reflect
// descriptors of every API type: its fields, their Go types and their struct tags
// (go-types.ts reads them). The `protobuf:"bytes,3,rep,name=items"` tag gives the field
// number and wire type, the Go type gives the message or scalar, repeated/map and whether
// a scalar is a Go pointer, and the `json:` tag the JSON name, inlining, and whether a
// value field keeps its zero value in JSON (no omitempty or omitzero). v1.36 binaries no
// longer embed the gzipped FileDescriptorProtos kubectl 1.33 has, so the struct types are
// the source; kubectl 1.33 read this way gives the same table for the types both have.
//
// Run directly to print the module:
//   node test/encoding/protobuf-descriptor-source.ts [path/to/binary] > src/encoding/protobuf/messages.ts

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { servedMessages } from '../../src/encoding/protobuf/roots.ts';
import { type GoType, goNamedTypes, type NamedType } from './go-types.ts';

/** Upstream's kube-controller-manager v1.36.2, as /work/shared/bin/unpack.sh unpacks it into the repository. */
export const defaultBinary = fileURLToPath(new URL('../../.cache/upstream-bin/kube-controller-manager', import.meta.url));

/** Messages Plinth reads or writes beyond the served kinds (roots.ts); everything they contain follows. */
export const otherRoots = [
  'core.v1.PodTemplateSpec',
  'meta.v1.ObjectMeta', 'meta.v1.ListMeta', 'meta.v1.Status', 'meta.v1.List', 'meta.v1.DeleteOptions',
  'meta.v1.WatchEvent', 'meta.v1.Condition', 'meta.v1.LabelSelector',
  'meta.v1.PartialObjectMetadata', 'meta.v1.PartialObjectMetadataList', 'meta.v1beta1.PartialObjectMetadataList',
  'meta.v1.APIVersions', 'meta.v1.APIGroupList', 'meta.v1.APIGroup', 'meta.v1.APIResourceList',
  'apidiscovery.v2.APIGroupDiscoveryList', 'apidiscovery.v2beta1.APIGroupDiscoveryList',
];

export const rootMessages = [...new Set([...servedMessages, ...otherRoots])];

/** Messages with a JSON form of their own (see special-types.ts); their fields are not listed. */
export const specialMessages = [
  'meta.v1.Time', 'meta.v1.MicroTime', 'meta.v1.Duration', 'meta.v1.FieldsV1',
  'resource.Quantity', 'intstr.IntOrString', 'runtime.RawExtension', 'apiextensions.v1.JSON',
];

/** A field as messages.ts lists it: [number, JSON name, type, flags], then its Go name where goFieldName does not give it. */
export type GeneratedField = [number, string, string, string] | [number, string, string, string, string];

/**
 * The Go name of a field as upstream's decoding errors name it ("proto: wrong wireType = 0
 * for field ObjectMeta") when messages.ts does not list it: its JSON name capitalised, an
 * embedded `metadata` its type's name, and a named slice's one field (ExtraValue's) Items.
 * Must agree with the codec's own rule (codec.ts).
 */
export function goFieldName(json: string, type: string): string {
  if (json === 'metadata') return type.slice(type.lastIndexOf('.') + 1);
  if (json === '') return 'Items';
  return json.charAt(0).toUpperCase() + json.slice(1);
}

/** Go package paths of the API types and the Protobuf package names messages.ts uses for them. */
export function shortPackage(pkg: string): string | undefined {
  const m = /^k8s\.io\/api\/([a-z0-9]+)\/(v[a-z0-9]+)$/.exec(pkg)
    ?? /^k8s\.io\/apimachinery\/pkg\/apis\/(meta)\/(v1|v1beta1)$/.exec(pkg)
    ?? /^k8s\.io\/apiextensions-apiserver\/pkg\/apis\/(apiextensions)\/(v1)$/.exec(pkg)
    ?? /^k8s\.io\/kube-aggregator\/pkg\/apis\/(apiregistration)\/(v1)$/.exec(pkg);
  if (m !== null) return `${m[1]}.${m[2]}`;
  return { 'k8s.io/apimachinery/pkg/api/resource': 'resource', 'k8s.io/apimachinery/pkg/util/intstr': 'intstr',
    'k8s.io/apimachinery/pkg/runtime': 'runtime' }[pkg];
}

const scalarKinds: Record<string, string> = {
  bool: 'bool', int32: 'int32', int64: 'int64', uint32: 'uint32', uint64: 'uint64', float64: 'double', string: 'string',
};

export interface Generated {
  messages: Map<string, GeneratedField[]>;
}

/** The message table for the roots and everything they contain. */
export function generateMessages(binary: Uint8Array, roots: readonly string[] = rootMessages): Generated {
  const structs = new Map<string, NamedType>();
  for (const t of goNamedTypes(binary).values()) {
    const pkg = shortPackage(t.pkg);
    if (pkg !== undefined) structs.set(`${pkg}.${t.name}`, t);
  }
  const messageOf = (t: GoType, where: string): string => {
    const pkg = shortPackage(t.pkg);
    if ((t.kind !== 'struct' && t.kind !== 'slice') || t.name === '' || pkg === undefined) throw new Error(`${where}: ${t.pkg}.${t.name} (${t.kind}) is not a message`);
    return `${pkg}.${t.name}`;
  };

  const out = new Map<string, GeneratedField[]>();
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (out.has(name) || specialMessages.includes(name)) continue;
    const struct = structs.get(name);
    if (struct === undefined) throw new Error(`message ${name} is not in the binary`);
    if (struct.kind === 'slice') {
      // A named slice as a map value (authentication/v1 ExtraValue) or an `opt` field (meta/v1
      // Verbs) is a message {1 items}, whose JSON is the list itself; the codec knows it by
      // its one field without a JSON name.
      const type = scalarKinds[struct.elem.kind] ?? messageOf(struct.elem, name);
      if (type.includes('.') && !specialMessages.includes(type)) queue.push(type);
      out.set(name, [[1, '', type, 'r']]);
      continue;
    }
    const fields: GeneratedField[] = [];
    for (const f of struct.fields) {
      const ptag = /(?:^| )protobuf:"([^"]*)"/.exec(f.tag)?.[1];
      if (ptag === undefined || ptag === '-') continue;
      const where = `${name}.${f.name}`;
      const parts = ptag.split(',');
      const number = Number(parts[1]);
      const protoName = parts.find((p) => p.startsWith('name='))?.slice(5) ?? f.name.charAt(0).toLowerCase() + f.name.slice(1);
      const json = (/(?:^| )json:"([^"]*)"/.exec(f.tag)?.[1] ?? '').split(',');
      const jsonName = json[0] === '' || json[0] === '-' ? protoName : json[0]!;
      const omitempty = json.includes('omitempty') || json.includes('omitzero');

      let t = f.type;
      let type: string;
      let flags = '';
      const pointer = t.kind === 'ptr';
      if (t.kind === 'ptr') t = t.elem;
      const scalar = (s: GoType): string | undefined => scalarKinds[s.kind];
      const bytes = (s: GoType): boolean => s.kind === 'slice' && s.elem.kind === 'uint8';
      if (bytes(t)) type = 'bytes';
      else if (t.kind === 'slice' && (t.name === '' || parts.includes('rep'))) {
        flags = omitempty ? 're' : 'r';
        const e = t.elem.kind === 'ptr' ? t.elem.elem : t.elem;
        type = bytes(e) ? 'bytes' : scalar(e) ?? messageOf(e, where);
      } else if (t.kind === 'map') {
        if (t.key.kind !== 'string') throw new Error(`${where}: map key ${t.key.kind}`);
        flags = omitempty ? 'me' : 'm';
        type = bytes(t.elem) ? 'bytes' : scalar(t.elem) ?? messageOf(t.elem, where);
      } else if (t.kind === 'slice') {
        // A named slice is nil until set, like a pointer: gogo writes it only when non-nil.
        type = messageOf(t, where);
        flags = 'p';
      } else if (scalar(t) !== undefined) {
        type = scalar(t)!;
        if (pointer) flags = 'p';
        else if (!omitempty) flags = 'z';
      } else {
        type = messageOf(t, where);
        if (pointer) flags = 'p';
        // omitempty does not leave a struct out, omitzero does (creationTimestamp).
        else if (json.includes('omitzero')) flags = 'e';
      }
      if (json.includes('inline')) flags += 'i';
      if (type.includes('.') && !specialMessages.includes(type) && !out.has(type)) queue.push(type);
      fields.push(f.name === goFieldName(jsonName, type) ? [number, jsonName, type, flags] : [number, jsonName, type, flags, f.name]);
    }
    out.set(name, fields.sort((a, b) => a[0] - b[0]));
  }
  return { messages: new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
}

/** How messages.ts names the binary it comes from. */
export function sourceName(path: string): string {
  const base = path.split('/').pop()!;
  return base === 'kube-controller-manager' ? 'kube-controller-manager v1.36.2' : base;
}

/** The TypeScript module src/encoding/protobuf/messages.ts. */
export function renderMessagesModule(generated: Generated, source: string): string {
  const lines = [
    '// Message descriptors for the built-in types Plinth serves (roots.ts) and the meta/v1 types',
    "// it reads and writes, with the field numbers of upstream's generated.proto files.",
    '//',
    `// Generated by test/encoding/protobuf-descriptor-source.ts from the Go types in upstream's`,
    `// ${source}; test/encoding/protobuf-messages.test.ts checks it still matches.`,
    '// Do not edit by hand.',
    '//',
    '// A field is [number, JSON name, type, flags], then its Go name, which decoding errors name,',
    "// when it is not the JSON name capitalised (an embedded metadata: its type's name; a named",
    "// slice's one field: Items).",
    '// The type is a scalar (string, bytes, bool, int32, int64, double) or a message name;',
    '// special-types.ts and one-of-types.ts give some messages their JSON form.',
    '// Flags: r repeated; m map from string keys (entries {1 key, 2 value}) to the type;',
    '// e with r or m: omitempty, so an empty list or map is absent in JSON; e on a message:',
    '// omitzero, so its zero value is absent in JSON (other Go value messages are always written);',
    '// p a Go pointer (or named slice): written only when set, and a zero scalar on the wire',
    '// is kept in JSON; z a Go value scalar without omitempty (its zero value is kept in JSON);',
    '// i inlined in the JSON of the parent. Fields without p are Go values: gogo writes them',
    '// always, zero or not (bytes, repeated fields and maps have nothing to write when empty).',
    "// A message whose one field has no JSON name (ExtraValue) is a list in JSON.",
    '// Other scalars are Go value fields with omitempty: their zero value is absent in JSON.',
    '',
    'export type FieldRow = readonly [number: number, jsonName: string, type: string, flags: string, goName?: string];',
    '',
    'export const messages: Readonly<Record<string, readonly FieldRow[]>> = {',
  ];
  for (const [name, fields] of generated.messages) {
    lines.push(`  '${name}': [`);
    for (const [n, json, type, flags, goName] of fields) lines.push(`    [${n}, '${json}', '${type}', '${flags}'${goName === undefined ? '' : `, '${goName}'`}],`);
    lines.push('  ],');
  }
  lines.push('};', '');
  return lines.join('\n');
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const path = process.argv[2] ?? defaultBinary;
  process.stdout.write(renderMessagesModule(generateMessages(readFileSync(path)), sourceName(path)));
}

