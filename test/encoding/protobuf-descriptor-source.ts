// Where src/encoding/protobuf/messages.ts comes from, so that it can be checked and
// regenerated rather than trusted.
//
// A kubectl binary carries, gzipped, the FileDescriptorProto of every generated.proto it
// was built with (gogo-protobuf registers them), plus the Go struct tags of every API
// type (reflection keeps them). From those this module derives, for each message Plinth
// needs: field numbers, proto types, repeated/map, and from the gogo options and the
// `json:` tags: which scalars are Go pointers, which fields are inlined in JSON and which
// value fields keep their zero value in JSON (no `omitempty`). Where one Go field name
// and tag belong to several types with different `omitempty`, the OpenAPI `required` list
// (as @kubernetes/client-node's models show it) decides.
//
// Run directly to print the module:
//   npx node test/encoding/protobuf-descriptor-source.ts [path/to/kubectl] > src/encoding/protobuf/messages.ts

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { ProtoReader } from '../../src/encoding/protobuf/wire.ts';

export const defaultKubectl = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

/** The types Plinth serves or reads; everything they contain follows. */
export const rootMessages = [
  'core.v1.Namespace', 'core.v1.NamespaceList',
  'core.v1.ConfigMap', 'core.v1.ConfigMapList',
  'core.v1.Secret', 'core.v1.SecretList',
  'core.v1.ServiceAccount', 'core.v1.ServiceAccountList',
  'core.v1.Event', 'core.v1.EventList',
  'core.v1.Service', 'core.v1.ServiceList',
  'core.v1.Pod', 'core.v1.PodList', 'core.v1.Binding',
  'core.v1.PodTemplate', 'core.v1.PodTemplateList', 'core.v1.PodTemplateSpec',
  'core.v1.Node', 'core.v1.NodeList',
  'core.v1.Endpoints', 'core.v1.EndpointsList',
  'apps.v1.Deployment', 'apps.v1.DeploymentList',
  'coordination.v1.Lease', 'coordination.v1.LeaseList',
  'policy.v1.Eviction', 'policy.v1.PodDisruptionBudget', 'policy.v1.PodDisruptionBudgetList',
  'admissionregistration.v1.MutatingWebhookConfiguration', 'admissionregistration.v1.MutatingWebhookConfigurationList',
  'admissionregistration.v1.ValidatingWebhookConfiguration', 'admissionregistration.v1.ValidatingWebhookConfigurationList',
  'autoscaling.v1.Scale',
  'meta.v1.ObjectMeta', 'meta.v1.ListMeta', 'meta.v1.Status', 'meta.v1.List', 'meta.v1.DeleteOptions',
  'meta.v1.WatchEvent', 'meta.v1.Condition', 'meta.v1.LabelSelector',
];

/** Messages with a JSON form of their own (see special-types.ts); their fields are not listed. */
export const specialMessages = [
  'meta.v1.Time', 'meta.v1.MicroTime', 'meta.v1.Duration', 'meta.v1.FieldsV1',
  'resource.Quantity', 'intstr.IntOrString', 'runtime.RawExtension',
];

// descriptor.proto's FieldDescriptorProto.Type numbers.
const protoTypes: Record<number, string> = {
  1: 'double', 2: 'float', 3: 'int64', 4: 'uint64', 5: 'int32', 8: 'bool', 9: 'string', 11: 'message',
  12: 'bytes', 13: 'uint32', 14: 'enum',
};

interface RawField {
  name: string;
  number: number;
  repeated: boolean;
  type: string;
  typeName: string;
  nullable: boolean;
  goName: string;
}

interface RawMessage {
  name: string;
  fields: RawField[];
  mapEntry: boolean;
  nested: RawMessage[];
}

/** A field as messages.ts lists it: [number, JSON name, type, flags]. */
export type GeneratedField = [number, string, string, string];

function parseField(r: ProtoReader): RawField {
  const f: RawField = { name: '', number: 0, repeated: false, type: '', typeName: '', nullable: true, goName: '' };
  while (!r.done()) {
    const [field, wire] = r.tag();
    if (field === 1) f.name = r.string();
    else if (field === 3) f.number = r.uint32();
    else if (field === 4) f.repeated = r.uint32() === 3;
    else if (field === 5) f.type = protoTypes[r.uint32()] ?? 'unsupported';
    else if (field === 6) f.typeName = r.string();
    else if (field === 8) {
      // FieldOptions with gogoproto extensions: 65001 nullable, 65004 customname.
      const o = r.message();
      while (!o.done()) {
        const [of, ow] = o.tag();
        if (of === 65001) f.nullable = o.bool();
        else if (of === 65004) f.goName = o.string();
        else o.skip(ow);
      }
    } else r.skip(wire);
  }
  if (f.goName === '') f.goName = f.name.charAt(0).toUpperCase() + f.name.slice(1);
  return f;
}

function parseMessage(r: ProtoReader): RawMessage {
  const m: RawMessage = { name: '', fields: [], mapEntry: false, nested: [] };
  while (!r.done()) {
    const [field, wire] = r.tag();
    if (field === 1) m.name = r.string();
    else if (field === 2) m.fields.push(parseField(r.message()));
    else if (field === 3) m.nested.push(parseMessage(r.message()));
    else if (field === 7) {
      const o = r.message();
      while (!o.done()) {
        const [of, ow] = o.tag();
        if (of === 7) m.mapEntry = o.bool();
        else o.skip(ow);
      }
    } else r.skip(wire);
  }
  return m;
}

/** 'k8s.io.api.core.v1' → 'core.v1'; 'k8s.io.apimachinery.pkg.apis.meta.v1' → 'meta.v1'. */
export function shortPackage(pkg: string): string {
  return pkg.replace(/^k8s\.io\.api\./, '').replace(/^k8s\.io\.apimachinery\.pkg\.(apis\.|api\.|util\.)?/, '');
}

/** Every message of every generated.proto embedded in the binary, by '.full.name'. */
export function embeddedMessages(binary: Uint8Array): Map<string, RawMessage> {
  const data = Buffer.from(binary.buffer, binary.byteOffset, binary.byteLength);
  const magic = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]);
  const messages = new Map<string, RawMessage>();
  for (let at = data.indexOf(magic); at >= 0; at = data.indexOf(magic, at + 1)) {
    let file: Buffer;
    try {
      file = gunzipSync(data.subarray(at, at + 1_000_000));
    } catch {
      continue;
    }
    if (!file.subarray(0, 100).includes('generated.proto')) continue;
    const r = new ProtoReader(file);
    let pkg = '';
    const found: RawMessage[] = [];
    while (!r.done()) {
      const [field, wire] = r.tag();
      if (field === 2) pkg = r.string();
      else if (field === 4) found.push(parseMessage(r.message()));
      else r.skip(wire);
    }
    const add = (prefix: string, m: RawMessage): void => {
      messages.set(`${prefix}.${m.name}`, m);
      for (const n of m.nested) add(`${prefix}.${m.name}`, n);
    };
    for (const m of found) add(`.${pkg}`, m);
  }
  return messages;
}

/**
 * Go struct tags by Go field name, field number and proto name. Go's abi.Name lays out
 * a field as: flags byte, length, name, length, tag.
 */
export function goTags(binary: Uint8Array): Map<string, Set<string>> {
  const data = Buffer.from(binary.buffer, binary.byteOffset, binary.byteLength);
  const text = data.toString('latin1');
  const tags = new Map<string, Set<string>>();
  // Other tags (patchStrategy, patchMergeKey) may stand between json and protobuf.
  const re = /json:"([^"]*)"(?: [A-Za-z]+:"[^"]*")* protobuf:"([^"]*)"/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const tagStart = m.index;
    for (const lengthBytes of [1, 2]) {
      const lb = data.subarray(tagStart - lengthBytes, tagStart);
      const length = lengthBytes === 1 ? (lb[0]! < 0x80 ? lb[0]! : -1)
        : (lb[0]! >= 0x80 && lb[1]! < 0x80 ? (lb[0]! & 0x7f) | (lb[1]! << 7) : -1);
      if (length < m[0].length) continue;
      const nameEnd = tagStart - lengthBytes;
      let goName = '';
      for (let n = 1; n < 64 && nameEnd - n - 1 >= 0; n++) {
        const c = data[nameEnd - n]!;
        if (!((c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f)) break;
        if (data[nameEnd - n - 1] === n && c >= 0x41 && c <= 0x5a) goName = text.slice(nameEnd - n, nameEnd);
      }
      if (goName === '') continue;
      const ptag = m[2]!.split(',');
      const number = ptag[1];
      const name = ptag.find((p) => p.startsWith('name='))?.slice(5) ?? '';
      const key = `${goName}|${number}|${name}`;
      let set = tags.get(key);
      if (set === undefined) tags.set(key, (set = new Set()));
      set.add(m[1]!);
      break;
    }
  }
  return tags;
}

/** OpenAPI `required` fields per message, read from @kubernetes/client-node's model declarations. */
export function openapiRequired(message: string): Set<string> | undefined {
  const models = join(dirname(fileURLToPath(import.meta.url)), '../../node_modules/@kubernetes/client-node/dist/gen/models');
  const [group = '', version = '', name = ''] = message.split('.');
  // The OpenAPI schema inlines EphemeralContainerCommon into EphemeralContainer.
  const kind = name === 'EphemeralContainerCommon' ? 'EphemeralContainer' : name;
  const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
  for (const model of [`${cap(group)}${cap(version)}${kind}`, `${cap(version)}${kind}`]) {
    const file = join(models, `${model}.d.ts`);
    if (!existsSync(file)) continue;
    const required = new Set<string>();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const m = /^ {4}'([^']+)'(\??):/.exec(line);
      if (m && m[2] === '') required.add(m[1]!);
    }
    return required;
  }
  return undefined;
}

export interface Generated {
  messages: Map<string, GeneratedField[]>;
  /** Decisions that fell back to a default, for the maintainer to look at. */
  notes: string[];
}

/** The message table for the roots and everything they contain. */
export function generateMessages(binary: Uint8Array): Generated {
  const all = embeddedMessages(binary);
  const tags = goTags(binary);
  const byShort = new Map<string, [string, RawMessage]>();
  for (const [full, m] of all) {
    const pkg = full.slice(1, full.lastIndexOf('.'));
    byShort.set(`${shortPackage(pkg)}.${m.name}`, [full, m]);
  }
  const shortOf = (full: string): string => {
    const dot = full.lastIndexOf('.');
    return `${shortPackage(full.slice(1, dot))}.${full.slice(dot + 1)}`;
  };

  const out = new Map<string, GeneratedField[]>();
  const notes: string[] = [];
  const queue = [...rootMessages];
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (out.has(name) || specialMessages.includes(name)) continue;
    const entry = byShort.get(name);
    if (entry === undefined) throw new Error(`message ${name} is not in the binary`);
    const [full, message] = entry;
    const required = openapiRequired(name);
    const fields: GeneratedField[] = [];
    for (const f of [...message.fields].sort((a, b) => a.number - b.number)) {
      let type = f.type;
      let flags = '';
      if (f.type === 'message') {
        const target = all.get(f.typeName);
        if (target?.mapEntry) {
          const [key, value] = target.fields.sort((a, b) => a.number - b.number);
          if (key?.type !== 'string' || value === undefined) throw new Error(`${full}.${f.name}: unsupported map`);
          type = value.type === 'message' ? shortOf(value.typeName) : value.type;
          flags += 'm';
        } else {
          type = shortOf(f.typeName);
          if (f.repeated) flags += 'r';
        }
        if (type.includes('.') && !specialMessages.includes(type) && !out.has(type)) queue.push(type);
      } else {
        if (f.repeated) flags += 'r';
        else if (f.nullable && f.type !== 'bytes') flags += 'p';
      }
      if (type === 'unsupported' || type === 'enum') throw new Error(`${full}.${f.name}: unsupported type`);

      const json = tags.get(`${f.goName}|${f.number}|${f.name}`) ?? tags.get(`${f.goName}|${f.number}|`);
      let jsonName = f.name;
      let omitempty: boolean | undefined;
      if (json !== undefined) {
        const names = new Set([...json].map((j) => j.split(',')[0]));
        const inline = [...json].every((j) => j.split(',').includes('inline'));
        if (inline) flags += 'i';
        else if (names.size === 1 && [...names][0] !== '-' && [...names][0] !== '') jsonName = [...names][0]!;
        const omit = new Set([...json].map((j) => j.split(',').includes('omitempty')));
        if (omit.size === 1) omitempty = [...omit][0];
      }
      const scalarValue = f.type !== 'message' && !f.repeated && !f.nullable;
      if (scalarValue) {
        if (omitempty === undefined && required !== undefined) omitempty = !required.has(jsonName);
        if (omitempty === undefined) {
          notes.push(`${name}.${jsonName}: omitempty unknown, assumed`);
          omitempty = true;
        }
        if (!omitempty) flags += 'z';
      }
      fields.push([f.number, jsonName, type, flags]);
    }
    out.set(name, fields);
  }
  return { messages: new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), notes };
}

/** The TypeScript module src/encoding/protobuf/messages.ts. */
export function renderMessagesModule(generated: Generated, source: string): string {
  const lines = [
    '// Message descriptors for the built-in types Plinth serves, with the field numbers of',
    "// upstream's generated.proto files (k8s.io/api core/v1, apps/v1, coordination/v1,",
    '// policy/v1, autoscaling/v1; k8s.io/apimachinery meta/v1, runtime).',
    '//',
    `// Generated by test/encoding/protobuf-descriptor-source.ts from the descriptors embedded in`,
    `// ${source}; test/encoding/protobuf-messages.test.ts checks it still matches. Do not edit by hand.`,
    '//',
    '// A field is [number, JSON name, type, flags]. The type is a scalar (string, bytes, bool,',
    '// int32, int64) or a message name; special-types.ts gives some messages their JSON form.',
    '// Flags: r repeated; m map from string keys (entries {1 key, 2 value}) to the type;',
    '// p a Go pointer (a zero value on the wire is kept in JSON); z a Go value field without',
    '// omitempty (its zero value is kept in JSON); i inlined in the JSON of the parent.',
    '// Other scalars are Go value fields with omitempty: their zero value is absent in JSON.',
    '',
    'export type FieldRow = readonly [number: number, jsonName: string, type: string, flags: string];',
    '',
    'export const messages: Readonly<Record<string, readonly FieldRow[]>> = {',
  ];
  for (const [name, fields] of generated.messages) {
    lines.push(`  '${name}': [`);
    for (const [n, json, type, flags] of fields) lines.push(`    [${n}, '${json}', '${type}', '${flags}'],`);
    lines.push('  ],');
  }
  lines.push('};', '');
  return lines.join('\n');
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const path = process.argv[2] ?? defaultKubectl;
  const generated = generateMessages(readFileSync(path));
  for (const note of generated.notes) process.stderr.write(`note: ${note}\n`);
  process.stdout.write(renderMessagesModule(generated, path.split('/').pop()!));
}

