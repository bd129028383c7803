// Static cost estimation of CRD validation rules, after cel-go's checker cost estimator as
// apiextensions uses it: a rule's worst-case cost from the sizes its schema allows
// (maxItems, maxProperties, maxLength; unbounded values sized by the 3 MiB request limit),
// comprehensions costing their range's size times their body, string functions a tenth
// of a unit per character. A rule over the per-call limit, or a schema whose rules (each
// times how often it can run) exceed the per-CRD limit, refuses the CRD, with upstream's
// messages. The estimate follows cel-go's model, not its every constant: it is meant to
// refuse what upstream refuses (rules over unbounded data) and pass what fits.

import { isObject } from '../api/json.ts';

type Raw = Record<string, unknown>;
type Ast = { op: string; args: any };

/** Upstream's PerCallLimit (one evaluation), StaticEstimatedCostLimit (one rule's estimate) and StaticEstimatedCRDCostLimit. */
export const perCallLimit = 1_000_000;
export const staticCostLimit = 10_000_000;
export const crdCostLimit = 100_000_000;
const maxRequestSizeBytes = 3 * 1024 * 1024;


/**
 * The least bytes a value of this schema takes in JSON, as upstream's declared types count
 * them: a string its quotes (a date, date-time or duration its shortest form), a boolean
 * `true`, a number one digit, an object its braces and each required property without a
 * default (its name, quotes, colon and comma and its value), a list or map its brackets.
 */
function minSerializedSize(schema: Raw | undefined): number {
  if (schema === undefined || schema['x-kubernetes-int-or-string'] === true) return 1;
  switch (schema.type) {
    case 'string':
      return schema.format === 'date' ? 12 : schema.format === 'date-time' ? 22 : schema.format === 'duration' ? 4 : 2;
    case 'boolean': return 4;
    case 'integer':
    case 'number': return 1;
    case 'object': {
      if (!isObject(schema.properties)) return 2;
      const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
      let size = 2;
      for (const [name, sub] of Object.entries(schema.properties)) {
        if (required.has(name) && isObject(sub) && sub.default === undefined) size += name.length + minSerializedSize(sub) + 4;
      }
      return size;
    }
    default: return 2;
  }
}

/**
 * How many elements a list or map of this schema can hold: its maxItems or maxProperties,
 * else as many of its smallest elements as fit in a request (a list's with a comma, a
 * map's with a key of at least one character, quotes, colon and comma).
 */
export function cardinality(schema: Raw | undefined): number {
  if (schema === undefined) return Math.floor((maxRequestSizeBytes - 2) / 2);
  if (typeof schema.maxItems === 'number') return Math.max(0, schema.maxItems);
  if (typeof schema.maxProperties === 'number') return Math.max(0, schema.maxProperties);
  if (isObject(schema.additionalProperties)) return Math.floor((maxRequestSizeBytes - 2) / (minSerializedSize(schema.additionalProperties) + 6));
  return Math.floor((maxRequestSizeBytes - 2) / (minSerializedSize(isObject(schema.items) ? schema.items : undefined) + 1));
}

/** The longest a string of this schema can be. */
function stringLength(schema: Raw | undefined): number {
  if (schema !== undefined && typeof schema.maxLength === 'number') return schema.maxLength;
  if (schema?.format === 'date-time' || schema?.format === 'date' || schema?.format === 'duration') return 64;
  return maxRequestSizeBytes - 2;
}

/** cel-go's cost factors: a tenth of a unit per character traversed, a quarter per character of a regex. */
const traversal = (size: number) => Math.ceil(size * 0.1);
const regexFactor = (size: number) => Math.ceil(size * 0.25);

const stringFunctions = new Set([
  'matches', 'contains', 'startsWith', 'endsWith', 'find', 'findAll', 'split', 'replace', 'lowerAscii', 'upperAscii', 'trim', 'indexOf', 'lastIndexOf',
  'substring', 'charAt', 'reverse', 'format', 'join', 'quote',
]);
const listFunctions = new Set(['isSorted', 'sum', 'min', 'max', 'indexOf', 'lastIndexOf', 'join']);
const macros = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry']);

interface Estimate {
  cost: number;
  /** The schema of the value, when known. */
  schema?: Raw;
  /** A string literal's length. */
  length?: number;
}

/** The most characters a string argument can have (unknown: the request limit). */
function sizeOf(e: Estimate | undefined): number {
  if (e?.length !== undefined) return e.length;
  return stringLength(e?.schema?.type === 'string' ? e.schema : undefined);
}

type Scope = ReadonlyMap<string, Raw | undefined>;

function childSchema(schema: Raw | undefined, field: string): Raw | undefined {
  if (schema === undefined) return undefined;
  if (isObject(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) if (name === field || escapedEquals(name, field)) return isObject(sub) ? sub : undefined;
  }
  return isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

function escapedEquals(name: string, escaped: string): boolean {
  return escaped.replaceAll('__dash__', '-').replaceAll('__dot__', '.').replaceAll('__slash__', '/').replaceAll('__underscores__', '__').replace(/^__(.*)__$/, '$1') === name;
}

function elementSchema(schema: Raw | undefined): Raw | undefined {
  if (schema === undefined) return undefined;
  if (isObject(schema.items)) return schema.items;
  if (isObject(schema.additionalProperties)) return schema.additionalProperties;
  return undefined;
}

function estimate(node: Ast, scope: Scope): Estimate {
  if (node === null || typeof node !== 'object') return { cost: 0 };
  const sum = (nodes: Ast[]) => nodes.reduce((total, n) => total + estimate(n, scope).cost, 0);
  switch (node.op) {
    case 'value': return typeof node.args === 'string' ? { cost: 0, length: node.args.length } : { cost: 0 };
    case 'id': return scope.has(node.args) ? { cost: 1, schema: scope.get(node.args) } : { cost: 1 };
    case '.':
    case '.?': {
      const [operand, field] = node.args as [Ast, string];
      const inner = estimate(operand, scope);
      return { cost: inner.cost + 1, schema: childSchema(inner.schema, field) };
    }
    case '[]':
    case '[?]': {
      const [operand, index] = node.args as [Ast, Ast];
      const inner = estimate(operand, scope);
      return { cost: inner.cost + estimate(index, scope).cost + 1, schema: elementSchema(inner.schema) };
    }
    case 'call': {
      const [name, args] = node.args as [string, Ast[]];
      if (name === 'has') return { cost: 1 + sum(args) };
      const argEstimates = args.map((a) => estimate(a, scope));
      let cost = 1 + argEstimates.reduce((t, e) => t + e.cost, 0);
      // matches(s, re): the string's length (plus one) times the regex's, as cel-go's.
      if (name === 'matches' && argEstimates.length === 2) cost += traversal(sizeOf(argEstimates[0]) + 1) * regexFactor(sizeOf(argEstimates[1])) - 1;
      // Other functions over a string argument walk it (size, string and int do not).
      else if (!['size', 'string', 'int'].includes(name) && argEstimates[0]?.schema?.type === 'string') cost += traversal(stringLength(argEstimates[0].schema));
      return { cost };
    }
    case 'rcall': {
      const [name, receiver, args] = node.args as [string, Ast, Ast[]];
      const range = estimate(receiver, scope);
      const variables = args.filter((a) => a?.op === 'id');
      if (macros.has(name) && variables.length >= 1 && args.length >= 2) {
        // One or two iteration variables (index or key, then value), then the body (and filter).
        const twoVariables = args.length >= 3 && args[1]?.op === 'id' && name !== 'map' && name !== 'filter';
        const inner = new Map(scope);
        const element = elementSchema(range.schema);
        // A map's keys are sized as upstream's declared string type is, with no maximum: 0.
        const mapKey = isObject(range.schema?.additionalProperties) ? { type: 'string', maxLength: 0 } : undefined;
        if (twoVariables) {
          inner.set(args[0]!.args as string, mapKey);
          inner.set(args[1]!.args as string, element);
        } else inner.set(args[0]!.args as string, mapKey ?? element);
        const body = args.slice(twoVariables ? 2 : 1).reduce((t, a) => t + estimate(a, inner).cost, 0);
        const n = cardinality(range.schema);
        // What map, filter and transformList give is no longer than their range, as cel-go's estimator tracks.
        const result: Raw | undefined = ['map', 'filter', 'transformList'].includes(name) ? { type: 'array', maxItems: n, items: name === 'filter' ? element ?? {} : {} } : undefined;
        return { cost: range.cost + n * (body + 1) + 1, ...(result === undefined ? {} : { schema: result }) };
      }
      let cost = range.cost + 1 + sum(args);
      const argument = args[0] === undefined ? undefined : estimate(args[0], scope);
      // As cel-go's: a prefix or suffix test walks the prefix, matches the string (plus one)
      // times the regex, contains the string times the substring; the rest the string.
      if (name === 'startsWith' || name === 'endsWith') cost += traversal(sizeOf(argument)) - 1;
      else if (name === 'matches' && range.schema?.type === 'string') cost += traversal(stringLength(range.schema) + 1) * regexFactor(sizeOf(argument)) - 1;
      else if (name === 'contains' && range.schema?.type === 'string') cost += traversal(stringLength(range.schema)) * traversal(sizeOf(argument)) - 1;
      else if (range.schema?.type === 'string' && stringFunctions.has(name)) cost += traversal(stringLength(range.schema));
      else if (range.schema?.type === 'array' && listFunctions.has(name)) cost += cardinality(range.schema);
      // Lists made from a string hold at most as many strings as it has characters.
      if ((name === 'split' || name === 'findAll') && range.schema?.type === 'string') {
        const length = stringLength(range.schema);
        return { cost, schema: { type: 'array', maxItems: length, items: { type: 'string', maxLength: length } } };
      }
      return { cost };
    }
    default: {
      const args = Array.isArray(node.args) ? (node.args as unknown[]).flatMap((a) => (Array.isArray(a) ? a : [a])) : [node.args];
      return { cost: 1 + args.reduce((t: number, a) => t + (isObject(a) && 'op' in a ? estimate(a as Ast, scope).cost : 0), 0) };
    }
  }
}

/** The estimated worst-case cost of a rule's parsed expression, `self` (and `oldSelf`) being of `schema`. */
export function estimateRuleCost(ast: unknown, schema: Raw): number {
  return estimate(ast as Ast, new Map([['self', schema], ['oldSelf', schema]])).cost;
}

/** The exceeds-budget wording of apiextensions' CRD validation (getCostErrorMessage): "try simplifying the rule". */
export function costErrorMessage(costName: string, limit: number, actual: number): string {
  const factor = actual / limit;
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** What each of the dearest rules is told when a schema's rules together cost more than crdCostLimit. */
export const totalCostContribution = 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema';

/** A rule's estimated cost times how often it can run, at its field path (upstream's RuleCost). */
export interface RuleCost {
  path: string;
  cost: number;
}

/**
 * Upstream's TotalCost.ObserveExpressionCost: the dearest rules, dearest first, at most 4,
 * of those costing at least 1% of crdCostLimit (equal costs in the order observed).
 */
export function observeRuleCost(mostExpensive: RuleCost[], observed: RuleCost): void {
  if (observed.cost < crdCostLimit / 100) return;
  let at = mostExpensive.length;
  while (at > 0 && mostExpensive[at - 1]!.cost < observed.cost) at--;
  mostExpensive.splice(at, 0, observed);
  if (mostExpensive.length > 4) mostExpensive.length = 4;
}
