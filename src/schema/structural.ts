// Structural schemas: the checks apiextensions-apiserver makes before it accepts a CRD's
// schema (pkg/apiserver/schema: convert.go's NewStructural, validation.go's
// ValidateStructural, complete.go's completeness). A schema is structural when every
// field and item has a type outside of allOf/anyOf/oneOf/not, those junctors only add
// value validations, and metadata at the root says no more than name and generateName.
// Input is the JSON the client sent (a JSONSchemaProps), so nothing here trusts a
// field's type; OpenAPI-level checks (allowed types, list types) are CRD validation's.

import { appendAll, child, forbidden, index, invalid, key, required } from '../api/field-errors.ts';
import { isObject } from '../api/json.ts';
import type { StatusCause } from '../api/types.ts';
import { compileGoRegexp } from './regexp.ts';

type Raw = Record<string, unknown>;

type Level = 'root' | 'item' | 'field';

function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function rawList(v: unknown): Raw[] {
  return Array.isArray(v) ? v.map((x) => (isObject(x) ? x : {})) : [];
}

function rawProperties(v: unknown): [string, Raw][] {
  return isObject(v) ? Object.entries(v).map(([k, x]) => [k, isObject(x) ? x : {}]) : [];
}

/** Present as Go sees a decoded pointer or slice: JSON null is absent. */
function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function isTrue(v: unknown): boolean {
  return v === true;
}

/**
 * NewStructural's refusals, as one message (upstream wraps it as an Invalid value "" at
 * the schema's path, and only when the schema had no other error). CRD validation
 * forbids most of these first; `$schema` is only caught here.
 */
export function unsupportedStructuralField(schema: unknown): string | undefined {
  if (!isObject(schema)) return undefined;
  const unsupported: [string, string, (v: unknown) => boolean][] = [
    ['id', 'id', (v) => stringOf(v) !== ''],
    ['$schema', 'schema', (v) => stringOf(v) !== ''],
    ['$ref', '$ref', (v) => stringOf(v) !== ''],
    ['patternProperties', 'patternProperties', (v) => isObject(v) && Object.keys(v).length > 0],
    ['dependencies', 'dependencies', (v) => isObject(v) && Object.keys(v).length > 0],
    ['additionalItems', 'additionalItems', present],
    ['definitions', 'definitions', (v) => isObject(v) && Object.keys(v).length > 0],
  ];
  for (const [field, name, isSet] of unsupported) {
    if (isSet(schema[field])) return `OpenAPIV3Schema '${name}' is not supported`;
  }
  if (Array.isArray(schema.items)) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  if (schema['x-kubernetes-preserve-unknown-fields'] === false) {
    return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  }
  const nested: unknown[] = [schema.items, schema.not, ...(Array.isArray(schema.allOf) ? schema.allOf : []),
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []), ...(Array.isArray(schema.oneOf) ? schema.oneOf : [])];
  if (isObject(schema.properties)) appendAll(nested, Object.values(schema.properties));
  if (isObject(schema.additionalProperties)) nested.push(schema.additionalProperties);
  for (const sub of nested) {
    const found = unsupportedStructuralField(sub);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Upstream's ValidateStructural: the reasons `schema` (at `path`, e.g.
 * `spec.validation.openAPIV3Schema`) is not structural, sorted as upstream sorts them
 * (by their text), so that the answer does not depend on map order.
 */
export function validateStructural(schema: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const s = isObject(schema) ? schema : {};
  invariants(s, 'root', path, out);
  completeness(s, s, path, path, out);
  return out.sort((a, b) => {
    const x = `${a.field}: ${a.message}`;
    const y = `${b.field}: ${b.message}`;
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

function invariants(s: Raw, lvl: Level, path: string, out: StatusCause[]): void {
  const type = stringOf(s.type);
  if (type === 'array' && !present(s.items)) out.push(required(child(path, 'items'), 'must be specified'));
  if (isObject(s.items)) invariants(s.items, 'item', child(path, 'items'), out);
  for (const [name, property] of rawProperties(s.properties)) {
    invariants(property, 'field', key(child(path, 'properties'), name), out);
  }
  if (present(s.additionalProperties)) {
    if (lvl === 'root') out.push(forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (isObject(s.additionalProperties)) invariants(s.additionalProperties, 'field', child(path, 'additionalProperties'), out);
  }

  const intOrString = isTrue(s['x-kubernetes-int-or-string']);
  const preserve = isTrue(s['x-kubernetes-preserve-unknown-fields']);
  const embedded = isTrue(s['x-kubernetes-embedded-resource']);
  if (intOrString && preserve) {
    out.push(invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }
  if (intOrString && embedded) {
    out.push(invalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  }

  valueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAllOf(s.allOf), lvl, path, out);

  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    if (type === '') out.push(required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else out.push(invalid(child(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (type === '' && !intOrString && !preserve) {
    const detail = lvl === 'root' ? 'must not be empty at the root'
      : lvl === 'item' ? 'must not be empty for specified array items'
      : 'must not be empty for specified object fields';
    out.push(required(child(path, 'type'), detail));
  }
  if (embedded && present(s.additionalProperties)) {
    out.push(forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (lvl === 'root' && type !== '' && type !== 'object') out.push(invalid(child(path, 'type'), type, 'must be object at the root'));

  const properties = isObject(s.properties) ? s.properties : {};
  if (checkMetadata) {
    for (const field of ['kind', 'apiVersion']) {
      if (!Object.hasOwn(properties, field)) continue;
      const fieldType = stringOf((properties[field] as Raw | undefined)?.type);
      if (fieldType !== 'string') out.push(invalid(child(key(child(path, 'properties'), field), 'type'), fieldType, 'must be string'));
    }
  }
  if (Object.hasOwn(properties, 'metadata')) {
    const metadata = isObject(properties.metadata) ? properties.metadata : {};
    metadataInvariants(metadata, checkMetadata, lvl, key(child(path, 'properties'), 'metadata'), out);
  }

  if (embedded && !preserve && rawProperties(s.properties).length === 0) {
    out.push(required(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

/** Keys whose value is Go's zero value (absent, null, "", false) do not count. */
function isZero(v: unknown): boolean {
  return v === undefined || v === null || v === '' || v === false;
}

/**
 * Metadata at the root may only restrict name and generateName (upstream then ignores
 * those); its type must be object wherever metadata is checked.
 */
function metadataInvariants(s: Raw, checkMetadata: boolean, lvl: Level, path: string, out: StatusCause[]): void {
  const type = stringOf(s.type);
  if (checkMetadata && type !== 'object') out.push(invalid(child(path, 'type'), type, 'must be object'));
  if (lvl !== 'root') return;
  const names = rawProperties(s.properties).map(([name]) => name);
  const onlyNames = names.every((name) => name === 'name' || name === 'generateName');
  for (const [field, value] of Object.entries(s)) {
    if (field === 'type' || field === 'default' || isZero(value)) continue;
    if (field === 'properties' && (onlyNames || names.length === 0)) continue;
    out.push(forbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    return;
  }
}

/** `anyOf: [{type: integer}, {type: string}]` exactly: the x-kubernetes-int-or-string form. */
function isIntOrStringAnyOf(anyOf: unknown): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false;
  return anyOf.every((branch, i) => isObject(branch)
    && branch.type === (i === 0 ? 'integer' : 'string')
    && Object.entries(branch).every(([field, value]) => field === 'type' || isZero(value)));
}

function isIntOrStringAllOf(allOf: unknown): boolean {
  return Array.isArray(allOf) && allOf.length >= 1 && isObject(allOf[0]) && isIntOrStringAnyOf(allOf[0].anyOf);
}

function valueValidation(v: Raw, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string, out: StatusCause[]): void {
  if (!skipAnyOf) rawList(v.anyOf).forEach((branch, i) => nested(branch, false, false, lvl, index(child(path, 'anyOf'), i), out));
  rawList(v.allOf).forEach((branch, i) => nested(branch, skipFirstAllOfAnyOf && i === 0, false, lvl, index(child(path, 'allOf'), i), out));
  rawList(v.oneOf).forEach((branch, i) => nested(branch, false, false, lvl, index(child(path, 'oneOf'), i), out));
  if (isObject(v.not)) nested(v.not, false, false, lvl, child(path, 'not'), out);
  const pattern = stringOf(v.pattern);
  if (pattern !== '') {
    const { error } = compileGoRegexp(pattern);
    if (error !== undefined) {
      out.push(invalid(child(path, 'pattern'), pattern, `must be a valid regular expression, but isn't: ${error}`));
    }
  }
}

/** A schema under allOf/anyOf/oneOf/not: value validations only. */
function nested(v: Raw, skipAnyOf: boolean, skipAllOfAnyOf: boolean, lvl: Level, path: string, out: StatusCause[]): void {
  valueValidation(v, skipAnyOf, skipAllOfAnyOf, lvl, path, out);
  if (isObject(v.items)) nested(v.items, false, false, lvl, child(path, 'items'), out);
  for (const [name, property] of rawProperties(v.properties)) {
    nested(property, false, false, 'field', key(child(path, 'properties'), name), out);
  }
  const forbid = (field: string, detail: string) => out.push(forbidden(child(path, field), detail));
  if (stringOf(v.type) !== '') forbid('type', 'must be empty to be structural');
  if (present(v.additionalProperties)) forbid('additionalProperties', 'must be undefined to be structural');
  if (present(v.default)) forbid('default', 'must be undefined to be structural');
  if (stringOf(v.title) !== '') forbid('title', 'must be empty to be structural');
  if (stringOf(v.description) !== '') forbid('description', 'must be empty to be structural');
  if (isTrue(v.nullable)) forbid('nullable', 'must be false to be structural');
  if (isTrue(v['x-kubernetes-preserve-unknown-fields'])) forbid('x-kubernetes-preserve-unknown-fields', 'must be false to be structural');
  if (isTrue(v['x-kubernetes-embedded-resource'])) forbid('x-kubernetes-embedded-resource', 'must be false to be structural');
  if (isTrue(v['x-kubernetes-int-or-string'])) forbid('x-kubernetes-int-or-string', 'must be false to be structural');
  if (Array.isArray(v['x-kubernetes-list-map-keys']) && v['x-kubernetes-list-map-keys'].length > 0) {
    forbid('x-kubernetes-list-map-keys', 'must be empty to be structural');
  }
  if (present(v['x-kubernetes-list-type'])) forbid('x-kubernetes-list-type', 'must be undefined to be structural');
  if (present(v['x-kubernetes-map-type'])) forbid('x-kubernetes-map-type', 'must be undefined to be structural');
  if (Array.isArray(v['x-kubernetes-validations']) && v['x-kubernetes-validations'].length > 0) {
    forbid('x-kubernetes-validations', 'must be empty to be structural');
  }
  if (isObject(v.properties) && Object.hasOwn(v.properties, 'metadata')) {
    out.push(forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  }
}

/**
 * Every field or item a junctor (allOf/anyOf/oneOf/not) at the root speaks of must be
 * specified in the structural part too (upstream's validateStructuralCompleteness).
 */
function completeness(v: Raw, s: Raw | undefined, sPath: string, vPath: string, out: StatusCause[]): void {
  if (s === undefined) {
    out.push(required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  if (isObject(v.not)) nestedCompleteness(v.not, s, sPath, child(vPath, 'not'), out);
  for (const junctor of ['allOf', 'anyOf', 'oneOf']) {
    rawList(v[junctor]).forEach((branch, i) => nestedCompleteness(branch, s, sPath, index(child(vPath, junctor), i), out));
  }
}

function nestedCompleteness(v: Raw, s: Raw | undefined, sPath: string, vPath: string, out: StatusCause[]): void {
  if (s === undefined) {
    out.push(required(sPath, `because it is defined in ${vPath}`));
    return;
  }
  completeness(v, s, sPath, vPath, out);
  if (isObject(v.items)) nestedCompleteness(v.items, isObject(s.items) ? s.items : undefined, child(sPath, 'items'), child(vPath, 'items'), out);
  const specified = isObject(s.properties) ? s.properties : {};
  for (const [name, property] of rawProperties(v.properties)) {
    const sField = key(child(sPath, 'properties'), name);
    const vField = key(child(vPath, 'properties'), name);
    if (!Object.hasOwn(specified, name)) out.push(required(sField, `because it is defined in ${vField}`));
    else nestedCompleteness(property, isObject(specified[name]) ? specified[name] as Raw : {}, sField, vField, out);
  }
}
