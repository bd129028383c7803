// Where src/schema/go-field-types.ts comes from, so that it can be checked and regenerated
// rather than trusted.
//
// Go's decoders name a field's Go type in their type errors as reflect prints it
// (`v1.Protocol`, `[]v1.PersistentVolumeAccessMode`, `map[v1.ResourceName]resource.Quantity`);
// the published schemas keep only the JSON kind (`string`). The Go type descriptors of a
// binary built with k8s.io/api (test/encoding/go-types.ts reads them) have every field's Go
// type: this lists, per built-in definition, the JSON fields whose Go type names a named
// type that is not a struct (a named string, integer, slice or map), the ones a schema
// cannot tell. Fields of an embedded (inline) struct are listed under the struct embedding
// them, as Go's decoders see them.
//
// Run directly to print the module:
//   node test/schema/go-field-types-source.ts [path/to/binary] > src/schema/go-field-types.ts

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { builtinDefinitions } from '../../src/schema/builtin/index.ts';
import { defaultBinary, sourceName } from '../encoding/protobuf-descriptor-source.ts';
import { type GoType, goNamedTypes } from '../encoding/go-types.ts';

export { defaultBinary, sourceName };

/** The Go package path and type name of a definition (io.k8s.api.core.v1.Pod → k8s.io/api/core/v1, Pod). */
export function goTypeOfDefinitionName(name: string): { pkg: string; name: string } | undefined {
  const m = /^io\.k8s\.(.+)\.([^.]+)$/.exec(name);
  if (m === null) return undefined;
  return { pkg: `k8s.io/${m[1]!.replaceAll('.', '/')}`, name: m[2]! };
}

const unnamedKinds: Record<string, string> = { interface: 'interface {}' };

const predeclared = new Set(['bool', 'int', 'int8', 'int16', 'int32', 'int64', 'uint', 'uint8', 'uint16', 'uint32', 'uint64', 'float32', 'float64', 'string']);

/** Whether a type has a name of its own: not a predeclared one (string, int32), which the descriptors name too. */
function isNamed(t: GoType): boolean {
  return t.name !== '' && !(t.pkg === '' && predeclared.has(t.name));
}

/**
 * A Go type as reflect.Type's String() prints it: a named type by its package's name and
 * its own (a named map, whose package the descriptor reader leaves out, by `home`'s package).
 */
export function reflectString(t: GoType, home: string): string {
  if (isNamed(t)) return `${(t.pkg === '' ? home : t.pkg).split('/').pop()}.${t.name}`;
  switch (t.kind) {
    case 'ptr':
      return `*${reflectString(t.elem, home)}`;
    case 'slice':
      return `[]${reflectString(t.elem, home)}`;
    case 'map':
      return `map[${reflectString(t.key, home)}]${reflectString(t.elem, home)}`;
    case 'struct':
    case 'array':
    case 'other':
      throw new Error(`unnamed ${t.kind} type`);
    default:
      return unnamedKinds[t.kind] ?? t.kind;
  }
}

/** Whether a type is, or holds, a named type that is not a struct: what a schema cannot name. */
function namesScalarType(t: GoType): boolean {
  if (isNamed(t)) return t.kind !== 'struct';
  if (t.kind === 'ptr' || t.kind === 'slice' || t.kind === 'array') return namesScalarType(t.elem);
  if (t.kind === 'map') return namesScalarType(t.key) || namesScalarType(t.elem);
  return false;
}

/** The JSON fields of a struct with their Go types, an inline or untagged embedded struct's among them. */
function jsonFields(struct: Extract<GoType, { kind: 'struct' }>, out: Map<string, GoType>): Map<string, GoType> {
  for (const f of struct.fields) {
    const json = (/(?:^| )json:"([^"]*)"/.exec(f.tag)?.[1] ?? '').split(',');
    if (json[0] === '-') continue;
    const type = f.type.kind === 'ptr' ? f.type.elem : f.type;
    if (f.embedded && json[0] === '' && type.kind === 'struct') {
      jsonFields(type, out);
      continue;
    }
    // Unexported fields are not decoded.
    if (json[0] === '' && !/^[A-Z]/.test(f.name)) continue;
    out.set(json[0] === '' ? f.name : json[0]!, type);
  }
  return out;
}

/** Definitions that decode themselves (their own UnmarshalJSON and UnmarshalCBOR): their fields are not the decoders'. */
const selfDecoding = new Set([
  'io.k8s.apimachinery.pkg.api.resource.Quantity', 'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime', 'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString', 'io.k8s.apimachinery.pkg.runtime.RawExtension',
]);

export type GoFieldTypes = Map<string, Map<string, string>>;

/** Per definition of `definitionNames` whose Go struct is in the binary, its fields of named non-struct Go types. */
export function generateGoFieldTypes(binary: Uint8Array, definitionNames: readonly string[] = Object.keys(builtinDefinitions)): GoFieldTypes {
  const types = goNamedTypes(binary);
  const out: GoFieldTypes = new Map();
  for (const definition of [...definitionNames].sort()) {
    if (selfDecoding.has(definition)) continue;
    const go = goTypeOfDefinitionName(definition);
    const struct = go === undefined ? undefined : types.get(`${go.pkg}.${go.name}`);
    if (struct === undefined || struct.kind !== 'struct') continue;
    const fields = new Map<string, string>();
    for (const [json, type] of [...jsonFields(struct, new Map())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (namesScalarType(type)) fields.set(json, reflectString(type, go!.pkg));
    }
    if (fields.size > 0) out.set(definition, fields);
  }
  return out;
}

/** Definitions of the built-in types whose Go struct the binary lacks. */
export function missingDefinitions(binary: Uint8Array, definitionNames: readonly string[] = Object.keys(builtinDefinitions)): string[] {
  const types = goNamedTypes(binary);
  return definitionNames.filter((d) => {
    const go = goTypeOfDefinitionName(d);
    return go !== undefined && !types.has(`${go.pkg}.${go.name}`);
  }).sort();
}

/** The TypeScript module src/schema/go-field-types.ts. */
export function renderGoFieldTypesModule(generated: GoFieldTypes, source: string): string {
  const lines = [
    "// The Go types of the built-in definitions' fields that a schema cannot tell: named",
    '// strings, integers, slices and maps (`v1.Protocol`, `[]v1.PersistentVolumeAccessMode`,',
    "// `v1.ResourceList`), as reflect prints them in Go's decoding errors, by definition and",
    '// JSON field (fields of an inline struct under the struct embedding it).',
    '//',
    `// Generated by test/schema/go-field-types-source.ts from the Go types in upstream's`,
    `// ${source}; test/schema/go-field-types.test.ts checks it still matches.`,
    '// Do not edit by hand.',
    '',
    'export const goFieldTypes: Readonly<Record<string, Readonly<Record<string, string>>>> = {',
  ];
  for (const [definition, fields] of generated) {
    lines.push(`  '${definition}': {`);
    for (const [json, type] of fields) lines.push(`    ${/^[A-Za-z_$][\w$]*$/.test(json) ? json : `'${json}'`}: '${type}',`);
    lines.push('  },');
  }
  lines.push('};', '');
  return lines.join('\n');
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const path = process.argv[2] ?? defaultBinary;
  process.stdout.write(renderGoFieldTypesModule(generateGoFieldTypes(readFileSync(path)), sourceName(path)));
}
