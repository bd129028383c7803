// The OpenAPI-level checks of a CRD's schema, after apiextensions-apiserver's
// pkg/apis/apiextensions/validation (specStandardValidatorV3,
// ValidateCustomResourceDefinitionOpenAPISchema, validateMapListKeysMapSet and the static
// checks of x-kubernetes-validations rules): which JSON-Schema keywords exist in
// Kubernetes, list and map types, defaults and rules' own fields. Structural checks are
// schema/structural.ts'; upstream reports both (structural first).

import { child, forbidden, index, invalid, key, notSupported, required } from '../../api/field-errors.ts';
import type { StatusCause } from '../../api/index.ts';
import { isObject } from '../../api/json.ts';
import { unsupportedStructuralField } from '../../schema/structural.ts';
import { validFieldPath } from './field-path.ts';
import { goSchemaProps } from './internal-json.ts';

type Raw = Record<string, unknown>;

function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

const openapiV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/** The fields of a resource's root (and of an embedded resource) that apply to its metadata. */
const metaFields = new Set(['metadata', 'kind', 'apiVersion']);

/** The reasons a rule may give (sets.NewString(...).List(): sorted). */
const validationReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** What upstream relaxes on an update whose old CRD already broke a rule (validationOptions). */
export interface SchemaCheckOptions {
  /** Items of a `set` list must be atomic (requireAtomicSetType). */
  requireAtomicSetType: boolean;
  /** Map-list keys required or defaulted, set and map items not nullable (requireMapListKeysMapSetValidation). */
  requireMapListKeysMapSetValidation: boolean;
}

const strictChecks: SchemaCheckOptions = { requireAtomicSetType: true, requireMapListKeysMapSetValidation: true };

interface SchemaContext {
  /** Inside the schema of metadata, kind or apiVersion of a resource. */
  insideResourceMeta: boolean;
  /** Why defaults are refused here ("in top-level metadata"), or "". */
  disallowDefaultsReason: string;
  /** Defaults are refused here. */
  forbidDefaults: boolean;
}

/** Upstream's specStandardValidatorV3.validate: keywords Kubernetes does not support. */
function standardChecks(s: Raw, path: string, ctx: SchemaContext, out: StatusCause[]): void {
  const type = stringOf(s.type);
  if (type !== '' && !openapiV3Types.includes(type)) out.push(notSupported(child(path, 'type'), type, openapiV3Types));
  if (ctx.forbidDefaults && present(s.default)) {
    out.push(forbidden(child(path, 'default'), ctx.disallowDefaultsReason === '' ? 'must not be set' : `must not be set ${ctx.disallowDefaultsReason}`));
  }
  if (stringOf(s.id) !== '') out.push(forbidden(child(path, 'id'), 'id is not supported'));
  if (present(s.additionalItems)) out.push(forbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (isObject(s.patternProperties) && Object.keys(s.patternProperties).length > 0) {
    out.push(forbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  }
  if (isObject(s.definitions) && Object.keys(s.definitions).length > 0) out.push(forbidden(child(path, 'definitions'), 'definitions is not supported'));
  if (present(s.dependencies)) out.push(forbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (present(s.$ref)) out.push(forbidden(child(path, '$ref'), '$ref is not supported'));
  if (type === 'null') out.push(forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) out.push(forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    out.push(forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
}

/**
 * Upstream's ValidateCustomResourceDefinitionOpenAPISchema for one schema and what it
 * contains (its SchemaErrors; the CEL compilation is cel/validation-rules.ts'). `isRoot`
 * is true for the openAPIV3Schema itself.
 */
export function openApiSchemaChecks(schema: unknown, path: string, isRoot: boolean, opts: SchemaCheckOptions = strictChecks): StatusCause[] {
  const out: StatusCause[] = [];
  if (isObject(schema)) check(schema, path, isRoot, { insideResourceMeta: false, disallowDefaultsReason: '', forbidDefaults: false }, opts, out);
  return out;
}

function check(s: Raw, path: string, isRoot: boolean, ctx: SchemaContext, opts: SchemaCheckOptions, out: StatusCause[]): void {
  standardChecks(s, path, ctx, out);
  if (s.uniqueItems === true) {
    out.push(forbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  }
  const properties = isObject(s.properties) ? s.properties : {};
  const hasProperties = Object.keys(properties).length > 0;
  if (present(s.additionalProperties)) {
    // properties are for structs, additionalProperties for maps: both would leave unknown fields undecided.
    if (hasProperties && (s.additionalProperties === false || isObject(s.additionalProperties))) {
      out.push(forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (isObject(s.additionalProperties)) {
      // Pruning without a value to go by would be ambiguous: no defaults in metadata's maps.
      const sub = ctx.insideResourceMeta ? { ...ctx, disallowDefaultsReason: 'inside additionalProperties applying to object metadata', forbidDefaults: true } : ctx;
      check(s.additionalProperties, child(path, 'additionalProperties'), false, sub, opts, out);
    }
  }
  for (const [name, property] of Object.entries(properties)) {
    let sub = ctx;
    if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && metaFields.has(name)) {
      sub = isRoot ? { insideResourceMeta: true, disallowDefaultsReason: `in top-level ${name}`, forbidDefaults: true } : { ...ctx, insideResourceMeta: true };
    }
    if (isObject(property)) check(property, key(child(path, 'properties'), name), false, sub, opts, out);
  }
  if (isObject(s.not)) check(s.not, child(path, 'not'), false, ctx, opts, out);
  for (const junctor of ['allOf', 'oneOf', 'anyOf']) {
    const list = s[junctor];
    if (!Array.isArray(list)) continue;
    list.forEach((branch, i) => {
      if (isObject(branch)) check(branch, index(child(path, junctor), i), false, ctx, opts, out);
    });
  }
  if (isObject(s.definitions)) {
    for (const [name, definition] of Object.entries(s.definitions)) {
      if (isObject(definition)) check(definition, key(child(path, 'definitions'), name), false, ctx, opts, out);
    }
  }
  if (isObject(s.items)) check(s.items, child(path, 'items'), false, ctx, opts, out);
  else if (Array.isArray(s.items)) {
    s.items.forEach((item, i) => {
      if (isObject(item)) check(item, index(child(path, 'items'), i), false, ctx, opts, out);
    });
  }
  if (isObject(s.dependencies)) {
    for (const [name, dependency] of Object.entries(s.dependencies)) {
      if (isObject(dependency)) check(dependency, key(child(path, 'dependencies'), name), false, ctx, opts, out);
    }
  }

  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    out.push(invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  listAndMapTypeChecks(s, path, opts, out);
  if (opts.requireMapListKeysMapSetValidation) mapListKeysMapSetChecks(s, path, out);
  ruleChecks(s, path, out);
}

/** x-kubernetes-map-type, x-kubernetes-list-type and x-kubernetes-list-map-keys. */
function listAndMapTypeChecks(s: Raw, path: string, opts: SchemaCheckOptions, out: StatusCause[]): void {
  const type = stringOf(s.type);
  const mapType = s['x-kubernetes-map-type'];
  if (present(mapType) && type !== 'object') {
    if (type === '') out.push(required(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else out.push(invalid(child(path, 'type'), type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (present(mapType) && mapType !== 'atomic' && mapType !== 'granular') {
    out.push(notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }

  const listType = s['x-kubernetes-list-type'];
  const items = isObject(s.items) ? s.items : undefined;
  if (present(listType) && type !== 'array') {
    if (type === '') out.push(required(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else out.push(invalid(child(path, 'type'), type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (opts.requireAtomicSetType && listType === 'set' && items !== undefined) {
    // Items of a set are compared as wholes: nested lists and maps must be atomic.
    const itemType = stringOf(items.type);
    if (itemType === 'array' && present(items['x-kubernetes-list-type']) && items['x-kubernetes-list-type'] !== 'atomic') {
      out.push(invalid(child(path, 'items', 'x-kubernetes-list-type'), items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    } else if (itemType === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // Upstream reports the item's list type here (unset: null), whatever its map type.
      const value = present(items['x-kubernetes-list-type']) ? items['x-kubernetes-list-type'] : null;
      out.push(invalid(child(path, 'items', 'x-kubernetes-map-type'), value, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (present(listType) && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    out.push(notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  }

  const mapKeys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as unknown[]) : [];
  if (mapKeys.length > 0 && listType !== 'map') {
    if (!present(listType)) out.push(required(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else out.push(invalid(child(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) out.push(required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (items === undefined) {
      out.push(required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    } else if (stringOf(items.type) !== 'object') {
      out.push(invalid(child(path, 'items', 'type'), stringOf(items.type), "must be object if parent array's x-kubernetes-list-type is map"));
    } else {
      const itemProperties = isObject(items.properties) ? items.properties : {};
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const name = String(k);
        const property = itemProperties[name];
        if (isObject(property)) {
          const propertyType = stringOf(property.type);
          if (propertyType === 'array' || propertyType === 'object') {
            // Upstream names the item's type ("object") as the bad value, not the key's.
            out.push(invalid(child(key(child(path, 'items', 'properties'), name), 'type'), 'object', "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          }
        } else {
          out.push(invalid(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'entries must all be names of item properties'));
        }
        if (seen.has(name)) out.push(invalid(child(path, 'x-kubernetes-list-map-keys'), mapKeys, 'must not contain duplicate entries'));
        seen.add(name);
      }
    }
  }
}

/**
 * Upstream's validateMapListKeysMapSet: the items of a set or map list are never null, and
 * a map list's keys are always there (required, or defaulted), never null.
 */
function mapListKeysMapSetChecks(s: Raw, path: string, out: StatusCause[]): void {
  const items = s.items;
  const listType = s['x-kubernetes-list-type'];
  if (!isObject(items) || (listType !== 'set' && listType !== 'map')) return;
  if (items.nullable === true) out.push(forbidden(child(path, 'items', 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType !== 'map') return;
  const requiredKeys = new Set(Array.isArray(items.required) ? items.required : []);
  const itemProperties = isObject(items.properties) ? items.properties : {};
  const mapKeys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as unknown[]) : [];
  for (const k of mapKeys) {
    const name = String(k);
    const property = itemProperties[name];
    // A key naming no property is reported above.
    if (!Object.hasOwn(itemProperties, name) || !isObject(property)) continue;
    const propertyPath = key(child(path, 'items', 'properties'), name);
    if (!requiredKeys.has(name) && !present(property.default)) {
      out.push(required(child(propertyPath, 'default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
    }
    if (property.nullable === true) out.push(forbidden(child(propertyPath, 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
  }
}

/**
 * Upstream's SchemaHas: whether `pred` holds for the schema or any schema in it (items,
 * junctors, properties, additionalProperties, patternProperties, additionalItems,
 * definitions, dependencies).
 */
export function schemaHas(schema: unknown, pred: (s: Raw) => boolean): boolean {
  if (!isObject(schema)) return false;
  if (pred(schema)) return true;
  const nested: unknown[] = [schema.items, schema.not, schema.additionalProperties, schema.additionalItems];
  if (Array.isArray(schema.items)) nested.push(...schema.items);
  for (const junctor of ['allOf', 'anyOf', 'oneOf']) if (Array.isArray(schema[junctor])) nested.push(...(schema[junctor] as unknown[]));
  for (const map of ['properties', 'patternProperties', 'definitions', 'dependencies']) if (isObject(schema[map])) nested.push(...Object.values(schema[map] as Raw));
  return nested.some((sub) => schemaHas(sub, pred));
}

/** A `set` list whose items are not atomic (upstream's hasNonAtomicSetType predicate). */
export function hasNonAtomicSetType(s: Raw): boolean {
  if (s['x-kubernetes-list-type'] !== 'set' || !isObject(s.items)) return false;
  const items = s.items;
  if (items.type === 'array') return present(items['x-kubernetes-list-type']) && items['x-kubernetes-list-type'] !== 'atomic';
  if (items.type === 'object') return items['x-kubernetes-map-type'] !== 'atomic';
  return false;
}

/** A set or map list that breaks validateMapListKeysMapSet. */
export function hasInvalidMapListKeysMapSet(s: Raw): boolean {
  const out: StatusCause[] = [];
  mapListKeysMapSetChecks(s, '', out);
  return out.length > 0;
}

/** Go's unicode.IsSpace: JavaScript's \s without U+FEFF, with U+0085. */
const goSpace = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const goSpaceAtEnds = new RegExp(`^${goSpace}+|${goSpace}+$`, 'g');

/** Go's strings.TrimSpace. */
function trimSpace(v: string): string {
  return v.replace(goSpaceAtEnds, '');
}

/** Line breaks as CEL's grammar knows them. */
function hasNewlines(v: string): boolean {
  return /[\n\r]/.test(v);
}

/**
 * The checks of each x-kubernetes-validations rule that need no compiling: a rule, a
 * message of one line, a known reason, a fieldPath naming a field of this schema.
 */
function ruleChecks(s: Raw, path: string, out: StatusCause[]): void {
  const rules = s['x-kubernetes-validations'];
  if (!Array.isArray(rules) || rules.length === 0) return;
  rules.forEach((raw, i) => {
    const rule = isObject(raw) ? raw : {};
    const rulePath = index(child(path, 'x-kubernetes-validations'), i);
    const source = stringOf(rule.rule);
    const message = stringOf(rule.message);
    const messageExpression = stringOf(rule.messageExpression);
    const fieldPath = stringOf(rule.fieldPath);
    const trimmedRule = trimSpace(source);
    const trimmedMessage = trimSpace(message);
    if (trimmedRule === '') out.push(required(child(rulePath, 'rule'), 'rule is not specified'));
    else if (message.length > 0 && trimmedMessage === '') out.push(invalid(child(rulePath, 'message'), message, 'message must be non-empty if specified'));
    else if (hasNewlines(trimmedMessage)) out.push(invalid(child(rulePath, 'message'), message, 'message must not contain line breaks'));
    else if (hasNewlines(trimmedRule) && trimmedMessage === '') out.push(required(child(rulePath, 'message'), 'message must be specified if rule contains line breaks'));
    if (messageExpression.length > 0 && trimSpace(messageExpression) === '') {
      out.push(required(child(rulePath, 'messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    if (present(rule.reason) && !validationReasons.includes(stringOf(rule.reason))) {
      out.push(notSupported(child(rulePath, 'reason'), rule.reason, validationReasons));
    }
    if (fieldPath.length > 0 && trimSpace(fieldPath) === '') out.push(invalid(child(rulePath, 'fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    if (hasNewlines(fieldPath)) out.push(invalid(child(rulePath, 'fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    // A schema NewStructural refuses has its own error; the path is not checked then.
    if (fieldPath.length > 0 && unsupportedStructuralField(s) === undefined && !validFieldPath(fieldPath, s).ok) {
      out.push(invalid(child(rulePath, 'fieldPath'), fieldPath, 'fieldPath must be a valid path'));
    }
  });
}

/**
 * Fields allowed at the root of a schema when the status subresource is enabled (status
 * validation is taken from properties.status, so nothing may apply to the whole object
 * beyond these), in the order of upstream's JSONSchemaProps struct.
 */
const rootFieldOrder: [json: string, allowed: boolean][] = [
  ['id', false], ['$schema', false], ['$ref', false], ['description', true], ['type', true], ['nullable', false], ['format', true], ['title', true],
  ['default', false], ['maximum', true], ['exclusiveMaximum', true], ['minimum', true], ['exclusiveMinimum', true],
  ['maxLength', true], ['minLength', true], ['pattern', true], ['maxItems', true], ['minItems', true], ['uniqueItems', true],
  ['multipleOf', true], ['enum', false], ['maxProperties', false], ['minProperties', false], ['required', true], ['items', true],
  ['allOf', false], ['oneOf', false], ['anyOf', false], ['not', false], ['properties', true], ['additionalProperties', false],
  ['patternProperties', false], ['dependencies', false], ['additionalItems', false], ['definitions', false],
  ['externalDocs', true], ['example', true], ['x-kubernetes-preserve-unknown-fields', true],
  ['x-kubernetes-embedded-resource', false], ['x-kubernetes-int-or-string', false], ['x-kubernetes-list-map-keys', false],
  ['x-kubernetes-list-type', false], ['x-kubernetes-map-type', false], ['x-kubernetes-validations', true],
];

const allowedAtRootNames = '[Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations]';

/** With the status subresource, only some fields may sit at the schema's root (upstream's allowedAtRootSchema). */
export function statusRootChecks(schema: unknown, path: string): StatusCause[] {
  if (!isObject(schema)) return [];
  for (const [field, allowed] of rootFieldOrder) {
    const value = schema[field];
    if (value === undefined || value === null || value === '' || value === false) continue;
    if (field === 'type') {
      if (value !== 'object') {
        return [invalid(`${path}.openAPIV3Schema.type`, value, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
      }
      continue;
    }
    if (!allowed) {
      return [invalid(`${path}.openAPIV3Schema`, goSchemaProps(schema), `only ${allowedAtRootNames} fields are allowed at the root of the schema if the status subresource is enabled`)];
    }
  }
  return [];
}
