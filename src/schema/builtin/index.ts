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
 * Per built-in definition, what Go's JSON leaves out (generated/omit-empty.json, from the
 * Go types' Protobuf descriptors): the zero value ("", 0, false) of an `omitempty` value
 * scalar, and an empty `omitempty` list or map. A write's object drops them, as decoding
 * into the Go type and encoding it again does: `minReadySeconds: 0` and `nodeSelector: {}`
 * are not stored, `spec.replicas: 0` (a pointer) is. Custom resources' schemas are not
 * built-in definitions: nothing for them.
 */
export interface OmittedWhenEmpty {
  readonly zero: ReadonlySet<string>;
  readonly emptyList: ReadonlySet<string>;
  readonly emptyMap: ReadonlySet<string>;
}

const omittedBySchema = new WeakMap<Schema, OmittedWhenEmpty>();
const none: ReadonlySet<string> = new Set();
type OmittedEntry = { zero?: string[]; emptyList?: string[]; emptyMap?: string[] };
for (const [name, entry] of Object.entries(JSON.parse(readFileSync(new URL('./generated/omit-empty.json', import.meta.url), 'utf8')) as Record<string, OmittedEntry>)) {
  const definition = builtinDefinitions[name];
  if (definition === undefined) continue;
  const set = (names: string[] | undefined) => (names === undefined ? none : new Set(names));
  omittedBySchema.set(definition, { zero: set(entry.zero), emptyList: set(entry.emptyList), emptyMap: set(entry.emptyMap) });
}

/** What a built-in definition's properties leave out when empty, if anything. */
export function omittedWhenEmptyOf(schema: Schema): OmittedWhenEmpty | undefined {
  return omittedBySchema.get(schema);
}
