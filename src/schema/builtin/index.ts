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
 * Per built-in definition, how Go's JSON encoding treats its properties when zero or absent
 * (generated/go-encoding.json, from the Go types' Protobuf descriptors). Left out: the
 * zero value ("", 0, false) of an `omitempty` value scalar, an empty `omitempty` list or
 * map; a write's object drops them, as decoding into the Go type and encoding it again
 * does: `minReadySeconds: 0` and `nodeSelector: {}` are not stored, `spec.replicas: 0` (a
 * pointer) is. Written though absent: a value scalar without `omitempty` (`restartCount:
 * 0`), a value struct (`status: {}`, whatever omitempty says) or a type with a JSON form of
 * its own (a zero Time is `null`, a zero Quantity "0"). Custom resources' schemas are not
 * built-in definitions: nothing for them.
 */
export interface GoEncoding {
  readonly zero: ReadonlySet<string>;
  readonly emptyList: ReadonlySet<string>;
  readonly emptyMap: ReadonlySet<string>;
  /** Properties written when absent, with the JSON written (shared: copy before changing). */
  readonly written: readonly (readonly [string, unknown])[];
}

const encodingBySchema = new WeakMap<Schema, GoEncoding>();
const none: ReadonlySet<string> = new Set();
type GoEncodingEntry = { zero?: string[]; emptyList?: string[]; emptyMap?: string[]; written?: Record<string, unknown> };
for (const [name, entry] of Object.entries(JSON.parse(readFileSync(new URL('./generated/go-encoding.json', import.meta.url), 'utf8')) as Record<string, GoEncodingEntry>)) {
  const definition = builtinDefinitions[name];
  if (definition === undefined) continue;
  const set = (names: string[] | undefined) => (names === undefined ? none : new Set(names));
  encodingBySchema.set(definition, {
    zero: set(entry.zero), emptyList: set(entry.emptyList), emptyMap: set(entry.emptyMap), written: Object.entries(entry.written ?? {}),
  });
}

/** How Go's JSON encoding treats a built-in definition's properties, if it says anything. */
export function goEncodingOf(schema: Schema): GoEncoding | undefined {
  return encodingBySchema.get(schema);
}
