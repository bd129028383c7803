// Validating a value against a structural schema, with the causes apiextensions-apiserver
// reports: kube-openapi's validators (pkg/validation/validate: type, allOf/oneOf/anyOf/not,
// string, format, number, slice, enum, object, in that order per node) turned into field
// errors the way apiextensions' kubeOpenAPIResultToFieldErrors does, then the list-type
// uniqueness rules (pkg/apiserver/schema/listtype). Paths read like upstream's:
// `spec.containers[0].name`, map entries `spec.selector.app`.

import {
  appendAll,
  goQuote, goUnstructured, invalid, notSupported, required, tooLong, tooMany, typeInvalid,
} from '../api/field-errors.ts';
import { deepEqual } from '../api/json.ts';
import type { StatusCause } from '../api/types.ts';
import { compileSchema, type SchemaNode } from './compiled.ts';
import { checkStringFormat } from './formats.ts';
import { checkListMap, checkListSet, firstRepeats } from './list-types.ts';
import { requiredDecidedElsewhere } from './builtin/index.ts';
import { addedZerosIn, hasAddedZeros, isStillAddedZero } from './go-zero.ts';
import type { Definitions, Schema } from './types.ts';

export interface ValidateOptions {
  /**
   * Enforce `enum`. Off for built-in types: their schemas list upstream's `+enum` values
   * as documentation, and their hand-written validation decides (with its own messages).
   */
  enums?: boolean;
  /** Check string formats (date-time, byte, uuid, ...) and integer/number formats in type errors, as CRDs are checked. */
  formats?: boolean;
  /** Report duplicate items of `x-kubernetes-list-type` set and map lists (built-ins report those by hand). */
  listTypes?: boolean;
  /**
   * The value is a whole object: its `metadata` is left to ObjectMeta validation
   * (registry/validation), as upstream validates it apart from the schema.
   */
  isResourceRoot?: boolean;
  /**
   * A null where the schema allows none is a type error, as for custom resources (their
   * decoding drops such nulls, but server-side apply keeps them). Off for built-in types:
   * a null is the zero value of their Go field (`lastProbeTime: null`), so it counts as absent.
   */
  nullsAreValues?: boolean;
}

/**
 * The stored value an update's value is compared with, for CRD validation ratcheting:
 * what fails at a value equal to its old one does not fail the update (dropped, as upstream
 * drops the errors its ratchetingValueValidator turns into warnings). Built by
 * registry/crd/ratcheting.ts after upstream's CorrelatedObject.
 */
export interface CorrelatedOld {
  /** The old value of the value's property or map entry `key`, when one correlates. */
  key(key: string): CorrelatedOld | undefined;
  /** The old value of the value's item `i`, when one correlates. */
  index(i: number): CorrelatedOld | undefined;
  /** Whether the value is unchanged from its old one. */
  unchanged(): boolean;
}

/** What a custom resource's schema enforces: everything. */
export const customResourceValidation: ValidateOptions = { enums: true, formats: true, listTypes: true, isResourceRoot: true, nullsAreValues: true };

/** What a built-in type's schema enforces: types and required fields only. */
export const builtinValidation: ValidateOptions = { isResourceRoot: true };

type JsonType = 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'object' | 'null';

/** The definition of an embedded object, whose schema says `type: object`. */
const rawExtension = 'io.k8s.apimachinery.pkg.runtime.RawExtension';

/** 2^63: int64's bounds as doubles (its largest, 2^63 - 1, rounds to it). */
const maxInt64Double = 2 ** 63;

/**
 * The causes why `value` does not satisfy `schema` (empty when it does). `defs` resolves
 * `$ref`s. A null where the schema allows none is a type error with `nullsAreValues`
 * (custom resources), else it counts as absent. With `old` (an update of a custom
 * resource), what fails at a value the update left unchanged is ratcheted.
 */
export function validate(defs: Definitions, schema: Schema, value: unknown, opts: ValidateOptions = {}, old?: CorrelatedOld): StatusCause[] {
  const ctx: Context = { opts, skipRootMetadata: opts.isResourceRoot ?? false, skipAddedZeros: hasAddedZeros(value), segments: [], out: [] };
  if (old !== undefined) ctx.unratcheted = new Set();
  validateValue(ctx, compileSchema(defs, schema), value, old);
  return ctx.out;
}

interface Context {
  opts: ValidateOptions;
  /** The root is a resource: its metadata is validated elsewhere. */
  skipRootMetadata: boolean;
  /** Go's zero values were added to the value: they count as absent (go-zero.ts). */
  skipAddedZeros: boolean;
  /** Where the walk is: property names and item indices, made a path only for an error. */
  segments: (string | number)[];
  /** Where causes go (composition collects each branch's apart). */
  out: StatusCause[];
  /**
   * Causes an update's ratcheting keeps (set when it ratchets): an embedded resource's
   * apiVersion and kind, which upstream checks apart from the schema (schemaobjectmeta).
   */
  unratcheted?: Set<StatusCause>;
}

/** The current path as upstream writes it: `spec.containers[0].name`. */
function pathOf(segments: readonly (string | number)[], extra?: string): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  if (extra !== undefined) path += path === '' ? extra : `.${extra}`;
  return path;
}

function jsonType(value: unknown): JsonType {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      // Go decodes an integer past int64 as a float64, which kube-openapi takes for an
      // integer only up to 2^53: such a value is a number (2^63 itself is int64's largest
      // too, rounded, and stays an integer).
      return Number.isInteger(value) && Math.abs(value) <= maxInt64Double ? 'integer' : 'number';
    default:
      if (value === null) return 'null';
      return Array.isArray(value) ? 'array' : 'object';
  }
}

function admits(types: readonly string[], actual: JsonType): boolean {
  return types.includes(actual) || (actual === 'integer' && types.includes('number'));
}

/** Go's data format of a decoded JSON number (kube-openapi names it in some type errors). */
function dataFormat(actual: JsonType): string {
  return actual === 'integer' ? 'int64' : actual === 'number' ? 'float64' : '';
}

function typeError(path: string, expected: string, actual: string): StatusCause {
  return typeInvalid(path, actual, `${path} in body must be of type ${expected}: ${goQuote(actual)}`);
}

/** Errors of oneOf/anyOf/allOf/not carry no field: upstream reports them at a nil path. */
function compositeError(message: string): StatusCause {
  return { reason: 'FieldValueInvalid', field: '<nil>', message: `Invalid value: "": ${message}` };
}

function validateValue(ctx: Context, node: SchemaNode, value: unknown, old: CorrelatedOld | undefined): void {
  const mark = ctx.out.length;
  validateNode(ctx, node, value, old);
  // Ratcheting (upstream's ratchetingValueValidator.Validate): a value unchanged from its
  // old one fails nothing, whatever it and its children fail.
  if (old !== undefined && ctx.out.length > mark && old.unchanged()) {
    const found = ctx.out.splice(mark);
    for (const cause of found) if (ctx.unratcheted?.has(cause) === true) ctx.out.push(cause);
  }
}

/** One value's checks, its children's included (each ratcheted on its own). */
function validateNode(ctx: Context, node: SchemaNode, value: unknown, old: CorrelatedOld | undefined): void {
  const types = node.types;
  if (value === null) {
    if (types !== undefined && !node.nullable) ctx.out.push(typeError(pathOf(ctx.segments), node.typeLabel, 'null'));
    return;
  }
  const actual = jsonType(value);
  if (types !== undefined && !admits(types, actual)) {
    // A built-in runtime.RawExtension decodes any JSON value (its UnmarshalJSON keeps the
    // bytes): what it may hold is for the type's own validation to say.
    if (node.schema === node.defs[rawExtension]) return;
    const path = pathOf(ctx.segments);
    // kube-openapi names an integer or number format instead when a non-string value misses it.
    const s = node.schema;
    const format = s.format;
    if (ctx.opts.formats && format !== undefined && actual !== 'string' && actual !== 'array'
      && ((s.type === 'integer' && (format === 'int32' || format === 'int64')) || (s.type === 'number' && (format === 'float' || format === 'double')))
      && dataFormat(actual) !== format) {
      ctx.out.push(typeInvalid(path, dataFormat(actual), `${path} in body must be of type ${format}: ${goQuote(dataFormat(actual))}`));
    } else {
      ctx.out.push(typeError(path, node.typeLabel, actual));
    }
    return;
  }

  if (node.hasComposition) validateComposition(ctx, node, value);
  switch (actual) {
    case 'string':
      if (node.hasStringChecks) validateString(ctx, node, value as string);
      break;
    case 'integer':
    case 'number':
      if (node.hasNumberChecks) validateNumber(ctx, node.schema, value as number);
      break;
    case 'array':
      validateArray(ctx, node, value as unknown[], old);
      break;
    default:
      break;
  }
  if (ctx.opts.enums && node.schema.enum !== undefined) validateEnum(ctx, node.schema.enum, value);
  if (actual === 'object') validateObject(ctx, node, value as Record<string, unknown>, old);
}

function validateComposition(ctx: Context, node: SchemaNode, value: unknown): void {
  const s = node.schema;
  const defs = node.defs;
  const outer = ctx.out;
  // A branch's failures, its properties' and items' included, ratchet only with the value's:
  // kube-openapi builds branches as plain validators (SchemaValidatorOptions.Options() hands
  // them no ratcheting NewValidatorForField), so nothing in a branch is correlated.
  const run = (branch: Schema): StatusCause[] => {
    ctx.out = [];
    validateNode(ctx, compileSchema(defs, branch), value, undefined);
    const causes = ctx.out;
    ctx.out = outer;
    return causes;
  };
  const fewest = (results: StatusCause[][]): StatusCause[] =>
    results.reduce((best, r) => (r.length < best.length ? r : best), results[0] ?? []);
  const path = (): string => goQuote(pathOf(ctx.segments));

  // A oneOf/anyOf of bare types is the type union already checked (Quantity, int-or-string).
  if (s.anyOf !== undefined && s.anyOf.length > 0 && node.unionOf !== 'anyOf') {
    const failures: StatusCause[][] = [];
    let matched = false;
    for (const branch of s.anyOf) {
      const causes = run(branch);
      if (causes.length === 0) {
        matched = true;
        break;
      }
      failures.push(causes);
    }
    if (!matched) {
      outer.push(compositeError(`${path()} must validate at least one schema (anyOf)`));
      appendAll(outer, fewest(failures));
    }
  }
  if (s.oneOf !== undefined && s.oneOf.length > 0 && node.unionOf !== 'oneOf') {
    const failures: StatusCause[][] = [];
    let valid = 0;
    for (const branch of s.oneOf) {
      const causes = run(branch);
      if (causes.length === 0) valid++;
      else failures.push(causes);
    }
    if (valid !== 1) {
      const detail = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
      outer.push(compositeError(`${path()} must validate one and only one schema (oneOf). ${detail}`));
      if (valid === 0) appendAll(outer, fewest(failures));
    }
  }
  if (s.allOf !== undefined && s.allOf.length > 0) {
    let valid = 0;
    for (const branch of s.allOf) {
      const causes = run(branch);
      if (causes.length === 0) valid++;
      appendAll(outer, causes);
    }
    if (valid !== s.allOf.length) {
      outer.push(compositeError(`${path()} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`));
    }
  }
  if (s.not !== undefined && run(s.not).length === 0) {
    outer.push(compositeError(`${path()} must not validate the schema (not)`));
  }
}

function validateString(ctx: Context, node: SchemaNode, value: string): void {
  const s = node.schema;
  if (s.maxLength !== undefined || s.minLength !== undefined) {
    // Lengths count characters (Go's utf8.RuneCountInString), not UTF-16 units.
    let length = 0;
    for (const _ of value) length++;
    const path = pathOf(ctx.segments);
    if (s.maxLength !== undefined && length > s.maxLength) ctx.out.push(tooLong(path, s.maxLength));
    if (s.minLength !== undefined && length < s.minLength) {
      ctx.out.push(invalid(path, value, `${path} in body should be at least ${s.minLength} chars long`));
    }
  }
  if (node.pattern !== null) {
    if (!node.pattern.test(value)) {
      const path = pathOf(ctx.segments);
      ctx.out.push(invalid(path, value, `${path} in body should match '${s.pattern}'`));
    }
  }
  if (ctx.opts.formats && s.format !== undefined && checkStringFormat(s.format, value) === false) {
    const path = pathOf(ctx.segments);
    ctx.out.push(typeInvalid(path, value, `${path} in body must be of type ${s.format}: ${goQuote(value)}`));
  }
}

function validateNumber(ctx: Context, s: Schema, value: number): void {
  const out = ctx.out;
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const quotient = value / s.multipleOf;
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9) {
      const path = pathOf(ctx.segments);
      out.push(invalid(path, value, `${path} in body should be a multiple of ${s.multipleOf}`));
    }
  }
  if (s.maximum !== undefined && (s.exclusiveMaximum === true ? value >= s.maximum : value > s.maximum)) {
    const path = pathOf(ctx.segments);
    out.push(invalid(path, value, `${path} in body should be less than ${s.exclusiveMaximum === true ? '' : 'or equal to '}${s.maximum}`));
  }
  if (s.minimum !== undefined && (s.exclusiveMinimum === true ? value <= s.minimum : value < s.minimum)) {
    const path = pathOf(ctx.segments);
    out.push(invalid(path, value, `${path} in body should be greater than ${s.exclusiveMinimum === true ? '' : 'or equal to '}${s.minimum}`));
  }
}

function validateArray(ctx: Context, node: SchemaNode, value: unknown[], old: CorrelatedOld | undefined): void {
  const items = node.items;
  if (items !== undefined) {
    const segments = ctx.segments;
    for (let i = 0; i < value.length; i++) {
      segments.push(i);
      validateValue(ctx, items, value[i], old?.index(i));
      segments.pop();
    }
  }
  if (!node.hasArrayChecks) return;
  const s = node.schema;
  const out = ctx.out;
  const path = pathOf(ctx.segments);
  if (s.minItems !== undefined && value.length < s.minItems) {
    out.push(invalid(path, value.length, `${path} in body should have at least ${s.minItems} items`));
  }
  if (s.maxItems !== undefined && value.length > s.maxItems) out.push(tooMany(path, value.length, s.maxItems));
  if (s.uniqueItems === true && firstRepeats(value).length > 0) {
    out.push(invalid(path, '', `${path} in body shouldn't contain duplicates`));
  }
  if (ctx.opts.listTypes) {
    const listType = s['x-kubernetes-list-type'];
    if (listType === 'set') {
      checkListSet(value, path, out);
    } else if (listType === 'map') {
      checkListMap(s['x-kubernetes-list-map-keys'] ?? [], value, path, out);
    }
  }
}

function validateEnum(ctx: Context, allowed: readonly unknown[], value: unknown): void {
  if (allowed.some((candidate) => deepEqual(candidate, value))) return;
  // apiextensions lists string values as they are and others as JSON.
  const supported = allowed.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  ctx.out.push(notSupported(pathOf(ctx.segments), typeof value === 'object' ? goUnstructured(value) : value, supported));
}

function validateObject(ctx: Context, node: SchemaNode, value: Record<string, unknown>, old: CorrelatedOld | undefined): void {
  const s = node.schema;
  if (node.hasObjectCounts) {
    const count = Object.keys(value).length;
    const path = pathOf(ctx.segments);
    if (s.minProperties !== undefined && count < s.minProperties) {
      ctx.out.push(invalid(path, count, `${path} in body should have at least ${s.minProperties} properties`));
      return;
    }
    if (s.maxProperties !== undefined && count > s.maxProperties) {
      ctx.out.push(tooMany(path, count, s.maxProperties));
      return;
    }
  }
  const segments = ctx.segments;
  const atRoot = ctx.skipRootMetadata && segments.length === 0;
  const hasProperties = s.properties !== undefined;
  const additional = node.additional;
  const added = ctx.skipAddedZeros ? addedZerosIn(value) : undefined;
  if (hasProperties || additional !== undefined) {
    for (const key in value) {
      if (atRoot && key === 'metadata') continue;
      const item = value[key];
      if (added !== undefined && isStillAddedZero(added, key, item)) continue;
      const property = hasProperties ? node.property(key) : undefined;
      if (property !== undefined) {
        // Decoding dropped the nulls nothing allows; one left (server-side apply of a custom
        // resource keeps them) is refused with its type. A built-in type's null is its zero value.
        if (item === null && !property.nullable && ctx.opts.nullsAreValues !== true) continue;
        segments.push(key);
        validateValue(ctx, property, item, old?.key(key));
        segments.pop();
      } else if (additional !== undefined) {
        segments.push(key);
        validateValue(ctx, additional, item, old?.key(key));
        segments.pop();
      }
    }
  }
  if (s.required !== undefined) {
    const decidedElsewhere = requiredDecidedElsewhere(s);
    for (const key of s.required) {
      if (decidedElsewhere?.has(key) === true) continue;
      const item = value[key];
      // A key that is there, null or not, is there (kube-openapi's required check); for a
      // built-in type a null is its zero value, so not there.
      if (item === undefined || (item === null && ctx.opts.nullsAreValues !== true && node.property(key)?.nullable !== true)
        || (added !== undefined && isStillAddedZero(added, key, item))) {
        ctx.out.push(required(pathOf(segments, key)));
      }
    }
  }
  if (node.embeddedResource && segments.length > 0) validateEmbeddedTypeMeta(ctx, value);
}

/** An embedded resource names its apiVersion and kind (apiextensions' schemaobjectmeta validation). */
function validateEmbeddedTypeMeta(ctx: Context, value: Record<string, unknown>): void {
  for (const field of ['apiVersion', 'kind']) {
    const v = value[field];
    const fieldPath = pathOf(ctx.segments, field);
    let cause: StatusCause | undefined;
    if (v === undefined || v === null) cause = required(fieldPath, 'must not be empty');
    else if (typeof v !== 'string') cause = invalid(fieldPath, goUnstructured(v), 'must be a string');
    else if (v === '') cause = invalid(fieldPath, v, 'must not be empty');
    if (cause === undefined) continue;
    ctx.out.push(cause);
    ctx.unratcheted?.add(cause);
  }
}
