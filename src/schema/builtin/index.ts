// The schemas of the built-in kinds, generated from upstream's published OpenAPI v3
// (tools/generate-api.ts writes generated/definitions.json; our descriptions come from
// tools/api-descriptions.json).

import { readFileSync } from 'node:fs';
import type { Definitions } from '../types.ts';

/** `#/components/schemas/<name>`, the form `$ref`s take inside Definitions. */
export function schemaRef(name: string): string {
  return `#/components/schemas/${name}`;
}

/**
 * Built-in definitions, keyed by upstream's names ("io.k8s.api.core.v1.Pod"), with
 * `$ref: '#/components/schemas/<name>'` between them. Shared: treat as read-only.
 */
export const builtinDefinitions: Definitions = JSON.parse(readFileSync(new URL('./generated/definitions.json', import.meta.url), 'utf8')) as Definitions;
