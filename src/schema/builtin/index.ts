// The schemas of the built-in kinds, generated from upstream's published OpenAPI v3
// (tools/generate-api.ts writes generated/definitions.json; our descriptions come from
// tools/api-descriptions.json).

import { readFileSync } from 'node:fs';
import type { Definitions, Schema } from '../types.ts';

/** `#/components/schemas/<name>`, the form `$ref`s take inside Definitions. */
export function schemaRef(name: string): string {
  return `#/components/schemas/${name}`;
}

/**
 * Built-in definitions, keyed by upstream's names ("io.k8s.api.core.v1.Pod"), with
 * `$ref: '#/components/schemas/<name>'` between them. Shared: treat as read-only.
 */
export const builtinDefinitions: Definitions = JSON.parse(readFileSync(new URL('./generated/definitions.json', import.meta.url), 'utf8')) as Definitions;

/**
 * Per built-in definition, the properties whose zero value ("", 0, false) Go's JSON leaves
 * out: value scalars with `omitempty` (generated/omit-zero.json, from the Go types'
 * Protobuf descriptors). A write's object drops them, as decoding into the Go type and
 * encoding it again does: `minReadySeconds: 0` is not stored, `spec.replicas: 0` (a
 * pointer) is. Custom resources' schemas are not built-in definitions: nothing for them.
 */
const omitZeroBySchema = new WeakMap<Schema, ReadonlySet<string>>();
for (const [name, fields] of Object.entries(JSON.parse(readFileSync(new URL('./generated/omit-zero.json', import.meta.url), 'utf8')) as Record<string, string[]>)) {
  const definition = builtinDefinitions[name];
  if (definition !== undefined) omitZeroBySchema.set(definition, new Set(fields));
}

/** The properties of a built-in definition whose zero value is left out, if any. */
export function omitZeroOf(schema: Schema): ReadonlySet<string> | undefined {
  return omitZeroBySchema.get(schema);
}
