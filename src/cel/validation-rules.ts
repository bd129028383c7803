// x-kubernetes-validations: CEL rules in a CRD's structural schema, compiled when the
// CRD is written (a rule that does not compile refuses the CRD) and evaluated on every
// write of its custom resources, as apiextensions-apiserver's schema/cel validator does:
// each rule sees its node as `self` (and, for transition rules, the stored value as
// `oldSelf` where one correlates), rules of absent or null values do not run, failures
// are field errors with the rule's message, messageExpression, reason and fieldPath, and
// with validation ratcheting a rule that fails on a value left unchanged only warns
// (unchanged as the update's correlation of old and new values says).

import { Optional } from '@marcbachmann/cel-js';
import { child, forbidden, goJson, GoValue, index, invalid, invalidOmittingValue, key, required, duplicate } from '../api/field-errors.ts';
import type { StatusCause } from '../api/index.ts';
import {
  cardinality, costErrorMessage, crdCostLimit, estimateRuleCost, observeRuleCost, perCallLimit, staticCostLimit, totalCostContribution, type RuleCost,
} from './cost.ts';
import { compile, escapePropertyName, type Compiled } from './environment.ts';
import { rewriteListSemantics } from './list-types.ts';
import { isObject } from '../api/json.ts';
import { isFloatMember } from '../api/number-forms.ts';
import { rulesOf as rulesIn } from './rules-present.ts';
import { formattedString } from './schema-formats.ts';
import { typeCheckRule } from './schema-types.ts';
import { CelEvalError, evaluationErrorText } from './errors.ts';

type Raw = Record<string, unknown>;

interface Rule {
  rule?: unknown;
  message?: unknown;
  messageExpression?: unknown;
  reason?: unknown;
  fieldPath?: unknown;
  optionalOldSelf?: unknown;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function rulesOf(schema: Raw): Rule[] {
  return rulesIn(schema) as Rule[];
}

/** Whether a rule refers to oldSelf (a transition rule). */
function usesOldSelf(rule: string): boolean {
  return /(^|[^A-Za-z0-9_.])oldSelf\b/.test(rule);
}

function variablesFor(rule: Rule): Record<string, string> {
  return { self: 'dyn', oldSelf: rule.optionalOldSelf === true ? 'optional<dyn>' : 'dyn' };
}

const compiledRules = new WeakMap<Rule, { schema: Raw; compiled: Compiled }>();

/**
 * A rule compiled for its node: `==`, `!=` and `+` on the node's set and map lists made
 * list-type aware. Kept per rule object (a CRD's schema is compiled once, not per write).
 */
function compileRule(rule: Rule, schema: Raw): Compiled {
  const known = compiledRules.get(rule);
  if (known !== undefined && known.schema === schema) return known.compiled;
  const source = rewriteListSemantics(text(rule.rule), variablesFor(rule), { self: schema, oldSelf: schema });
  const compiled = compile(source, variablesFor(rule));
  compiledRules.set(rule, { schema, compiled });
  return compiled;
}

function compileMessage(rule: Rule): Compiled {
  return compile(text(rule.messageExpression), variablesFor(rule));
}

/** An x-kubernetes-validations rule as the internal apiextensions.ValidationRule: Go field names, unset pointers `null`. */
export function internalValidationRule(rule: unknown): Record<string, unknown> {
  const r: Rule = isObject(rule) ? rule : {};
  return {
    Rule: text(r.rule), Message: text(r.message), MessageExpression: text(r.messageExpression),
    Reason: typeof r.reason === 'string' ? r.reason : null, FieldPath: text(r.fieldPath),
    OptionalOldSelf: typeof r.optionalOldSelf === 'boolean' ? r.optionalOldSelf : null,
  };
}

/** A rule as upstream's compile errors show it (the internal struct, json.Marshal'd). */
function goRule(rule: Rule): GoValue {
  return goJson(internalValidationRule(rule));
}

/**
 * The compile errors of every rule in a CRD schema, at `path` (the schema's own field
 * path, e.g. `spec.versions[0].schema.openAPIV3Schema`). A rule's estimated cost counts
 * each time it can run (upstream's getExpressionCost), against one rule's limit and, summed,
 * against the schema's: over that, the dearest rules are named, then the total.
 */
export function validationRuleErrors(schema: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let total = 0;
  const mostExpensive: RuleCost[] = [];
  // `times`: how often a rule at this node can run in one object (the product of the cardinalities of its lists and maps).
  const walk = (s: unknown, at: string, times: number, resourceRoot: boolean) => {
    if (!isObject(s)) return;
    rulesOf(s).forEach((rule, i) => {
      const rulePath = index(child(at, 'x-kubernetes-validations'), i);
      const compiled = compileRule(rule, s);
      // The schema's types decide (their errors are cel-go's); a syntax error is the parser's.
      const typed = typeCheckRule(text(rule.rule), s, { resourceRoot, optionalOldSelf: rule.optionalOldSelf === true });
      const error = typed.error ?? compiled.error;
      if (error !== undefined) causes.push(invalid(child(rulePath, 'rule'), goRule(rule), `compilation failed: ${error}`));
      else if (![compiled.type, typed.type].every((t) => t === 'bool' || t === 'dyn')) {
        causes.push(invalid(child(rulePath, 'rule'), goRule(rule), 'compilation failed: cel expression must evaluate to a bool'));
      } else {
        const cost = estimateRuleCost(compiled.ast, s) * times;
        if (cost > staticCostLimit) causes.push(forbidden(child(rulePath, 'rule'), costErrorMessage('estimated rule cost', staticCostLimit, cost)));
        total += cost;
        observeRuleCost(mostExpensive, { path: child(rulePath, 'rule'), cost });
      }
      if (rule.optionalOldSelf === true && !usesOldSelf(text(rule.rule))) {
        causes.push(invalid(child(rulePath, 'optionalOldSelf'), true, 'may not be set if oldSelf is not used in rule'));
      }
      if (text(rule.messageExpression) !== '') {
        const message = compileMessage(rule);
        const typedMessage = typeCheckRule(text(rule.messageExpression), s, { resourceRoot, optionalOldSelf: rule.optionalOldSelf === true });
        const error = typedMessage.error ?? message.error;
        if (error !== undefined) causes.push(invalid(child(rulePath, 'messageExpression'), goRule(rule), `messageExpression compilation failed: ${error}`));
        else if (![message.type, typedMessage.type].every((t) => t === 'string' || t === 'dyn')) {
          causes.push(invalid(child(rulePath, 'messageExpression'), goRule(rule), 'must evaluate to a string'));
        }
      }
    });
    const embedded = (sub: unknown) => isObject(sub) && sub['x-kubernetes-embedded-resource'] === true;
    if (isObject(s.properties)) for (const [name, sub] of Object.entries(s.properties)) walk(sub, key(child(at, 'properties'), name), times, embedded(sub));
    if (isObject(s.items)) walk(s.items, child(at, 'items'), times * cardinality(s), embedded(s.items));
    if (isObject(s.additionalProperties)) walk(s.additionalProperties, child(at, 'additionalProperties'), times * cardinality(s), embedded(s.additionalProperties));
  };
  walk(schema, path, 1, true);
  if (total > crdCostLimit) {
    for (const rule of mostExpensive) causes.push(forbidden(rule.path, totalCostContribution));
    causes.push(forbidden(path, costErrorMessage('x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema', crdCostLimit, total)));
  }
  return causes;
}

/**
 * A JSON value as CEL sees it under its schema: integers as int (BigInt), other numbers
 * as double, strings of the date, date-time, duration and byte formats as timestamps,
 * durations and bytes, properties under their escaped names (unescapable ones left out),
 * a resource root with apiVersion, kind and metadata.name/generateName only. An integer the
 * body wrote `1.0` under an integer schema is upstream's conversion error, met where a
 * rule reads it (floatMemberError).
 */
export function celValue(value: unknown, schema: unknown, resourceRoot = false): unknown {
  const s = isObject(schema) ? schema : {};
  if (typeof value === 'number') return s.type === 'number' || !Number.isInteger(value) ? value : BigInt(value);
  if (typeof value === 'string') return s.type === 'string' && s.format !== undefined ? formattedString(value, s.format) : value;
  if (Array.isArray(value)) {
    const out = value.map((item) => celValue(item, s.items));
    for (let i = 0; i < value.length; i++) if (isFloatMember(value, i)) failOnRead(out, i, s.items);
    return out;
  }
  if (!isObject(value)) return value;
  const out: Raw = {};
  const properties = isObject(s.properties) ? s.properties : undefined;
  const embedded = resourceRoot || s['x-kubernetes-embedded-resource'] === true;
  for (const [name, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (embedded && name === 'metadata' && isObject(v)) {
      const meta: Raw = {};
      if (typeof v.name === 'string') meta.name = v.name;
      if (typeof v.generateName === 'string') meta.generateName = v.generateName;
      out.metadata = meta;
      continue;
    }
    if (properties !== undefined) {
      const escaped = escapePropertyName(name);
      if (escaped === undefined) continue;
      out[escaped] = celValue(v, properties[name]);
      if (isFloatMember(value, name)) failOnRead(out, escaped, properties[name]);
    } else {
      out[name] = celValue(v, s.additionalProperties);
      if (isFloatMember(value, name)) failOnRead(out, name, s.additionalProperties);
    }
  }
  return out;
}

/**
 * What upstream's conversion of a float64 (an integer the body wrote `1.0`) gives under
 * an integer or int-or-string schema: an error value (UnstructuredToVal); undefined under others.
 */
function floatMemberError(schema: unknown): string | undefined {
  if (!isObject(schema)) return undefined;
  if (schema['x-kubernetes-int-or-string'] === true) return 'invalid data, expected XIntOrString value to be either a string or integer';
  return schema.type === 'integer' ? 'invalid data, expected int, got float64' : undefined;
}

/** Makes reading `holder[key]` fail with floatMemberError when the schema has one: upstream's error value fails whatever reads it. */
function failOnRead(holder: object, key: string | number, schema: unknown): void {
  const error = floatMemberError(schema);
  if (error === undefined) return;
  Object.defineProperty(holder, key, { enumerable: true, configurable: true, get: () => { throw new CelEvalError(error); } });
}

/** Upstream's RuntimeCELCostBudget: what one write's rules may cost in all. */
export const runtimeCostBudget = 10_000_000;
/** Rules estimated cheaper than this are charged their static estimate; dearer ones what the value's actual sizes allow. */
const exactChargeAbove = 100;

/**
 * An update's old value correlated with the new one (upstream's CorrelatedObject): what
 * registry/crd/ratcheting.ts's correlate() builds for the schema's checks too. Its type
 * (CorrelatedOld) lives in schema/, which cel/ may not import, so this says what the rules need.
 */
export interface Correlation {
  /** The correlation of the value's property or map entry `key`, when its old value correlates. */
  key(key: string): Correlation | undefined;
  /** The correlation of the value's item `i`, when its old value correlates. */
  index(i: number): Correlation | undefined;
  /** Whether the value is unchanged from its old one. */
  unchanged(): boolean;
}

/**
 * Where the walk is, for ratcheting (upstream's ratchetingOptions): the value's own
 * correlation, else that of its nearest ancestor which has one.
 */
interface Ratcheting {
  current?: Correlation;
  nearest?: Correlation;
}

function ratchetingAtKey(r: Ratcheting, name: string): Ratcheting {
  return r.current === undefined ? r : { current: r.current.key(name), nearest: r.current };
}

function ratchetingAtIndex(r: Ratcheting, i: number): Ratcheting {
  return r.current === undefined ? r : { current: r.current.index(i), nearest: r.current };
}

/**
 * Whether a failure at the value only warns (upstream's shouldRatchetError): its value is
 * unchanged, or, when its old value does not correlate (an item of a list other than a map
 * list), its nearest correlated ancestor is.
 */
function ratchets(r: Ratcheting): boolean {
  return (r.current ?? r.nearest)?.unchanged() === true;
}

export interface RuleResult {
  causes: StatusCause[];
  /** Failures of rules on values the update left unchanged (ratcheting): warnings, not errors. */
  warnings: string[];
}

/**
 * Evaluates the schema's rules on `value` (a custom resource, or its status) and, on an
 * update, its stored form `old`. `path` is the field path of `value` ('' for the root).
 * With `correlation` (of `value` with `old`), failures on unchanged values are ratcheted.
 */
export function evaluateValidationRules(schema: unknown, value: unknown, old: unknown, path = '', correlation?: Correlation): RuleResult {
  const result: Evaluation = { causes: [], warnings: [], remaining: runtimeCostBudget };
  walk(schema, value, old, { current: correlation }, path, true, result);
  return { causes: result.causes, warnings: result.warnings };
}

const staticCosts = new WeakMap<Rule, { schema: Raw; cost: number }>();

/** A rule's static estimate over its schema node, computed once. */
function staticCost(rule: Rule, compiled: Compiled, schema: Raw): number {
  const known = staticCosts.get(rule);
  if (known !== undefined && known.schema === schema) return known.cost;
  const cost = estimateRuleCost(compiled.ast, schema);
  staticCosts.set(rule, { schema, cost });
  return cost;
}

interface Evaluation extends RuleResult {
  /** The cost budget left; below zero, no further rule runs. */
  remaining: number;
}

/**
 * The schema narrowed to the sizes a value has (maxItems, maxProperties, maxLength set to
 * its own), so that a cost estimate over it bounds what evaluating over the value costs.
 */
function shapeOf(value: unknown, schema: Raw | undefined): Raw {
  const s: Raw = { ...(schema ?? {}) };
  if (typeof value === 'string') return { ...s, type: 'string', maxLength: value.length };
  if (Array.isArray(value)) {
    const items = isObject(s.items) ? s.items : undefined;
    // Every element's shape is bounded by the largest: take the widest sizes the elements have.
    return { ...s, type: 'array', maxItems: value.length, items: value.length === 0 ? items ?? {} : widest(value.map((v) => shapeOf(v, items))) };
  }
  if (isObject(value)) {
    const properties = isObject(s.properties) ? s.properties : undefined;
    if (properties !== undefined) {
      return { ...s, type: 'object', properties: Object.fromEntries(Object.entries(properties).map(([k, sub]) => [k, k in value ? shapeOf(value[k], isObject(sub) ? sub : undefined) : sub])) };
    }
    const additional = isObject(s.additionalProperties) ? s.additionalProperties : undefined;
    const entries = Object.values(value);
    return { ...s, type: 'object', maxProperties: entries.length, additionalProperties: entries.length === 0 ? additional ?? {} : widest(entries.map((v) => shapeOf(v, additional))) };
  }
  return s;
}

function widest(shapes: Raw[]): Raw {
  return shapes.reduce((a, b) => {
    const out: Raw = { ...a };
    for (const k of ['maxLength', 'maxItems', 'maxProperties'] as const) {
      if (typeof b[k] === 'number') out[k] = Math.max(typeof a[k] === 'number' ? a[k] as number : 0, b[k] as number);
    }
    if (isObject(a.items) && isObject(b.items)) out.items = widest([a.items, b.items]);
    if (isObject(a.additionalProperties) && isObject(b.additionalProperties)) out.additionalProperties = widest([a.additionalProperties, b.additionalProperties]);
    if (isObject(a.properties) && isObject(b.properties)) {
      out.properties = Object.fromEntries(Object.keys({ ...a.properties, ...b.properties }).map((k) => {
        const [x, y] = [(a.properties as Raw)[k], (b.properties as Raw)[k]];
        return [k, isObject(x) && isObject(y) ? widest([x, y]) : x ?? y];
      }));
    }
    return out;
  });
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return false;
}

/**
 * The rules of the value and its children. `old` is what their oldSelf sees: properties and
 * map entries by name (atomic maps too, upstream's MapIsCorrelatable), map list items by
 * their keys, items of other lists nothing.
 */
function walk(schema: unknown, value: unknown, old: unknown, ratcheting: Ratcheting, path: string, resourceRoot: boolean, result: Evaluation, floatForm = false): void {
  if (!isObject(schema) || value === undefined || value === null || result.remaining < 0) return;
  runRules(schema, value, old, ratcheting, path, resourceRoot, result, floatForm);
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!isObject(items)) return;
    const oldItems = Array.isArray(old) ? old : [];
    const keys = schema['x-kubernetes-list-type'] === 'map' && Array.isArray(schema['x-kubernetes-list-map-keys']) ? schema['x-kubernetes-list-map-keys'].map(String) : undefined;
    value.forEach((item, i) => {
      const oldItem = keys === undefined || !isObject(item) ? undefined : oldItems.find((o) => isObject(o) && keys.every((k) => sameJson(o[k], item[k])));
      walk(items, item, oldItem, ratchetingAtIndex(ratcheting, i), index(path, i), items['x-kubernetes-embedded-resource'] === true, result, isFloatMember(value, i));
    });
    return;
  }
  if (!isObject(value)) return;
  const oldObject = isObject(old) ? old : undefined;
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  for (const [name, v] of Object.entries(value)) {
    const sub = properties?.[name];
    const floatForm = isFloatMember(value, name);
    if (isObject(sub)) walk(sub, v, oldObject?.[name], ratchetingAtKey(ratcheting, name), child(path, name), sub['x-kubernetes-embedded-resource'] === true, result, floatForm);
    else if (additional !== undefined) walk(additional, v, oldObject?.[name], ratchetingAtKey(ratcheting, name), key(path, name), additional['x-kubernetes-embedded-resource'] === true, result, floatForm);
  }
}

/** `floatForm`: `value` is an integer the body wrote with a fraction or an exponent (api/number-forms.ts). */
function runRules(schema: Raw, value: unknown, old: unknown, ratcheting: Ratcheting, path: string, resourceRoot: boolean, result: Evaluation, floatForm: boolean): void {
  const rules = rulesOf(schema);
  if (rules.length === 0) return;
  const type = text(schema.type);
  const self = celValue(value, schema, resourceRoot);
  let oldSelf: unknown;
  let shape: Raw | undefined;
  const ruleText = (rule: Rule) => text(rule.message).trim() || text(rule.rule).trim();
  for (const rule of rules) {
    const source = text(rule.rule);
    const transition = usesOldSelf(source);
    const optional = rule.optionalOldSelf === true;
    if (transition && old === undefined && !optional) continue;
    const compiled = compileRule(rule, schema);
    if (compiled.program === undefined) {
      result.causes.push(invalid(path, type, `rule compile error: ${compiled.error}`));
      continue;
    }
    // The runtime budget: each rule is charged (at most) what it can cost over this value.
    let charge = staticCost(rule, compiled, schema);
    if (charge > exactChargeAbove) charge = estimateRuleCost(compiled.ast, shape ??= shapeOf(value, schema));
    if (charge > perCallLimit) {
      result.causes.push(invalid(path, type, `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleText(rule)}`));
      result.remaining = -1;
      return;
    }
    result.remaining -= charge;
    if (result.remaining < 0) {
      result.causes.push(invalid(path, type, 'validation failed due to running out of cost budget, no further validation rules will be run'));
      return;
    }
    if (transition && old !== undefined && oldSelf === undefined) oldSelf = celValue(old, schema, resourceRoot);
    const variables = { self, oldSelf: optional ? (old === undefined ? Optional.none() : Optional.of(oldSelf)) : oldSelf };
    if (floatForm) failOnRead(variables, 'self', schema);
    let outcome: unknown;
    try {
      outcome = compiled.program(variables);
    } catch (err) {
      // Upstream names the schema's type as the bad value of errors that are not the rule's verdict.
      result.causes.push(invalid(path, type, `${evaluationErrorText(err)} evaluating rule: ${ruleText(rule)}`));
      continue;
    }
    if (outcome === true) continue;
    const fieldPath = text(rule.fieldPath);
    const at = fieldPath === '' ? path : joinFieldPath(path, fieldPath, schema);
    const detail = messageFromExpression(rule, variables) ?? (text(rule.message) === '' ? `failed rule: ${ruleText(rule)}` : text(rule.message).trim());
    const cause = causeForReason(text(rule.reason), at, type, value, detail);
    // Ratcheting (upstream's validateExpressions): a value the update left as it was does not
    // fail the update, but warns as its field error reads; transition rules are never ratcheted.
    if (!transition && ratchets(ratcheting)) result.warnings.push(`${at}: ${cause.message}`);
    else result.causes.push(cause);
  }
}

/**
 * A rule's fieldPath (`.spec.name`, `['dash-name']`, `.labels.app`) appended to `path` as
 * upstream's normalised field.Path: properties as children, map entries as keys.
 */
function joinFieldPath(path: string, fieldPath: string, schema: Raw): string {
  const tokens = fieldPath.match(/\.[^.[\]]+|\['(?:[^'\\]|\\.)*'\]/g) ?? [];
  let out = path;
  let at: Raw | undefined = schema;
  for (const token of tokens) {
    const name = token.startsWith('.') ? token.slice(1) : token.slice(2, -2).replace(/\\(.)/g, '$1');
    const properties: Raw | undefined = at !== undefined && isObject(at.properties) ? at.properties : undefined;
    if (properties !== undefined) {
      out = child(out, name);
      at = isObject(properties[name]) ? properties[name] as Raw : undefined;
    } else {
      out = key(out, name);
      at = at !== undefined && isObject(at.additionalProperties) ? at.additionalProperties : undefined;
    }
  }
  return out;
}

function messageFromExpression(rule: Rule, variables: Record<string, unknown>): string | undefined {
  if (text(rule.messageExpression) === '') return undefined;
  const compiled = compileMessage(rule);
  if (compiled.program === undefined) return undefined;
  try {
    const message = compiled.program(variables);
    if (typeof message !== 'string') return undefined;
    const trimmed = message.trim();
    if (trimmed === '' || /\n/.test(trimmed) || trimmed.length > 5000) return undefined;
    return trimmed;
  } catch {
    return undefined;
  }
}


/** The field error a failed value gets: objects and lists name no value, scalars their own. */
function badValue(path: string, type: string, value: unknown, detail: string): StatusCause {
  return type === 'object' || type === 'array' || typeof value === 'object' ? invalidOmittingValue(path, detail) : invalid(path, value, detail);
}

function causeForReason(reason: string, path: string, type: string, value: unknown, detail: string): StatusCause {
  switch (reason) {
    case 'FieldValueForbidden': return forbidden(path, detail);
    case 'FieldValueRequired': return required(path, detail);
    case 'FieldValueDuplicate': return duplicate(path, type === 'object' || type === 'array' ? new GoValue(type) : value);
    default: return badValue(path, type, value, detail);
  }
}
