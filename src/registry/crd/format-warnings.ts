// The warnings a CustomResourceDefinition's write gets for schema formats upstream does not
// recognise (v1.36's CRD strategy, fixed in 1.34.1 to read each format with its type): such
// a format is ignored when custom resources are validated, which the author may not expect.
import { isObject } from '../../api/json.ts';
import { isKnownStringFormat } from '../../schema/formats.ts';

/** The schema keywords holding one schema, and those holding a list or a map of them (upstream's SchemaHas), besides `items`. */
const oneSchema = ['not', 'additionalProperties', 'additionalItems'];
const manySchemas = ['allOf', 'oneOf', 'anyOf', 'properties', 'patternProperties', 'definitions', 'dependencies'];

/** Whether a format means something for a schema of `type`: string formats for strings and untyped schemas. */
function recognized(type: unknown, format: string): boolean {
  switch (type ?? '') {
    case '': case 'string': return isKnownStringFormat(format);
    case 'integer': return format === 'int32' || format === 'int64';
    case 'number': return format === 'float' || format === 'double';
    default: return false;
  }
}

/** The unrecognised formats of one schema and every schema within it, in the order met. */
function collect(schema: unknown, into: string[]): void {
  if (!isObject(schema)) return;
  if (typeof schema.format === 'string' && schema.format !== '' && !recognized(schema.type, schema.format)) into.push(schema.format);
  for (const key of oneSchema) collect(schema[key], into);
  // `items` is one schema, or a list of them.
  for (const inner of Array.isArray(schema.items) ? schema.items : [schema.items]) collect(inner, into);
  for (const key of manySchemas) {
    const value = schema[key];
    for (const inner of Array.isArray(value) ? value : isObject(value) ? Object.values(value) : []) collect(inner, into);
  }
}

/** Every unrecognised format of a CRD's schemas (the legacy top-level one and each version's), repeats kept. */
function unrecognizedFormats(spec: unknown): string[] {
  const found: string[] = [];
  if (!isObject(spec)) return found;
  if (isObject(spec.validation)) collect(spec.validation.openAPIV3Schema, found);
  for (const version of Array.isArray(spec.versions) ? spec.versions : []) {
    if (isObject(version) && isObject(version.schema)) collect(version.schema.openAPIV3Schema, found);
  }
  return found;
}

/** A new CRD's warnings: one per unrecognised format met. */
export function formatWarningsOnCreate(spec: unknown): string[] {
  return unrecognizedFormats(spec).map((format) => `unrecognized format ${JSON.stringify(format)}`);
}

/** An update's: the unrecognised formats the old spec did not have (ratcheting). */
export function formatWarningsOnUpdate(spec: unknown, oldSpec: unknown): string[] {
  const before = new Set(unrecognizedFormats(oldSpec));
  return unrecognizedFormats(spec).filter((f) => !before.has(f)).map((format) => `unrecognized format ${JSON.stringify(format)}`);
}
