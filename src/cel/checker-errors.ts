// cel-js's checker errors in cel-go's words and places, as upstream's messages print them
// (`found no matching overload for '_==_' applied to '(int, string)'`, `undeclared
// reference to 'x' (in container '')`), for the checks of CRD rules, admission policies
// and the other expressions Kubernetes compiles.

import type { Environment } from '@marcbachmann/cel-js';
import { checkerError } from './errors.ts';

// The object types' names within an environment (schema-types.ts declares them); shown as `object`.
export const objectPrefix = 'k8s_object_';

export interface AstNode { op?: string; args?: unknown; start?: number; end?: number }

/** cel-js's type text in cel-go's notation: list(T), map(K, V), object types as `object`. */
export function typeName(type: string): string {
  let out = type;
  // Innermost first: list<…> and map<…> without nested angle brackets.
  for (let previous = ''; previous !== out;) {
    previous = out;
    out = out.replace(/\b(list|map|optional)<([^<>]*)>/g, (_, kind: string, inner: string) => (kind === 'optional' ? `optional_type(${inner})` : `${kind}(${inner})`));
  }
  return out.replace(new RegExp(`\\b${objectPrefix}\\d+\\b`, 'g'), 'object');
}

const functionNames = new WeakMap<Environment, Set<string>>();

/** The names of the functions an environment declares (its own and its libraries'). */
export function declaredFunctions(env: Environment | undefined): Set<string> {
  if (env === undefined) return new Set();
  let names = functionNames.get(env);
  if (names === undefined) functionNames.set(env, (names = new Set(env.getDefinitions().functions.map((f) => f.name))));
  return names;
}

/** cel-js's checker message as cel-go's, and where cel-go places it. */
export function celGoError(message: string, source: string, start: number, node: AstNode | undefined, declared: (fn: string) => boolean): { text: string; offset: number } {
  const variable = /^Unknown variable: (.+)$/.exec(message);
  if (variable !== null) return { text: undeclared(variable[1]!), offset: start };
  if (message === 'has() invalid argument') return { text: 'invalid argument to has() macro', offset: start };
  const binary = /^no such overload: (.+?) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (.+)$/.exec(message);
  if (binary !== null) {
    const [, left, op, right] = binary;
    const fn = op === 'in' ? '@in' : `_${op}_`;
    return { text: `found no matching overload for '${fn}' applied to '(${typeName(left!)}, ${typeName(right!)})'`, offset: operatorOffset(source, node, op!, start) };
  }
  const unary = /^no such overload: ([-!])(.+)$/.exec(message);
  if (unary !== null) return { text: `found no matching overload for '${unary[1]}_' applied to '(${typeName(unary[2]!)})'`, offset: start };
  const call = /^found no matching overload for '(.+)\((.*)\)'$/.exec(message);
  if (call !== null) {
    const [, callee, args] = call;
    const dot = callee!.lastIndexOf('.');
    const receiver = dot < 0 ? undefined : callee!.slice(0, dot);
    const name = dot < 0 ? callee! : callee!.slice(dot + 1);
    const at = source.indexOf('(', source.indexOf(name, start));
    // A library's namespace (`sets.contains`) is a constant of a type of its own here, a qualified function in cel-go.
    if (!declared(name)) return { text: undeclared(name), offset: at < 0 ? start : at };
    const namespace = receiver === undefined ? undefined : /^(\w+)Namespace$/.exec(receiver)?.[1]?.toLowerCase();
    const shown = namespace !== undefined ? `'${namespace}.${name}' applied to '(${typeName(args!)})'`
      : receiver === undefined ? `'${name}' applied to '(${typeName(args!)})'` : `'${name}' applied to '${typeName(receiver)}.(${typeName(args!)})'`;
    return { text: `found no matching overload for ${shown}`, offset: at < 0 ? start : at };
  }
  const logical = /^Logical operator requires bool operands, got '(.+)'$/.exec(message);
  if (logical !== null) return { text: `expected type 'bool' but found '${typeName(logical[1]!)}'`, offset: operatorOffset(source, node, node?.op === '||' ? '||' : '&&', start) };
  const ternary = /^Ternary branches must have the same type, got '(.+)' and '(.+)'$/.exec(message);
  if (ternary !== null) {
    return { text: `found no matching overload for '_?_:_' applied to '(bool, ${typeName(ternary[1]!)}, ${typeName(ternary[2]!)})'`, offset: operatorOffset(source, node, '?', start) };
  }
  const field = /^No such key: (.+)$/.exec(message);
  if (field !== null) return { text: `undefined field '${field[1]}'`, offset: dotBefore(source, start) };
  const selection = /^Cannot index type '(.+)'$/.exec(message);
  if (selection !== null && (node?.op === '.' || source[dotBefore(source, start)] === '.')) {
    return { text: `type '${typeName(selection[1]!)}' does not support field selection`, offset: dotBefore(source, start) };
  }
  return { text: typeName(message), offset: start };
}

/** cel-go's words for a name nothing declares (Kubernetes' environments have no container). */
function undeclared(name: string): string {
  return `undeclared reference to '${name}' (in container '')`;
}

/** The operator token between a binary node's operands (cel-go places the error there). */
function operatorOffset(source: string, node: AstNode | undefined, op: string, fallback: number): number {
  const args = Array.isArray(node?.args) ? (node!.args as AstNode[]) : [];
  const from = typeof args[0]?.end === 'number' ? args[0].end : fallback;
  const at = source.indexOf(op, from);
  return at < 0 ? fallback : at;
}

function dotBefore(source: string, offset: number): number {
  let at = offset;
  while (at > 0 && source[at] !== '.') at--;
  return source[at] === '.' ? at : offset;
}

/**
 * A failed check's first error as cel-go prints it (`ERROR: <input>:L:C: …`, the line and a
 * caret), found in `checked` (the text cel-js checked) and shown on `shown` (the same
 * length, or the same text); undefined for a syntax error, which is the parser's to word.
 */
export function checkFailure(error: unknown, checked: string, env: Environment | undefined, shown = checked): string | undefined {
  const e = error as { name?: string; message?: unknown; range?: { start: number }; node?: AstNode } | undefined;
  if (e?.name === 'ParseError') return undefined;
  const message = String(e?.message ?? 'invalid expression').split('\n')[0]!;
  const index = e?.node?.op === '[]' && /^(Cannot index type|List index must be int)/.test(message) ? indexError(checked, e.node, env) : undefined;
  if (index !== undefined) return checkerError(shown, index.offset, index.text);
  const { text, offset } = celGoError(message, checked, e?.range?.start ?? 0, e?.node, (name) => declaredFunctions(env).has(name));
  return checkerError(shown, offset, text);
}

/**
 * An index cel-js will not type (`'abc'[0]`, `[1]['a']`) as cel-go words it, with both
 * operands' types (cel-js's message names one at most).
 */
function indexError(source: string, node: AstNode, env: Environment | undefined): { text: string; offset: number } | undefined {
  const types = indexTypes(source, node, env);
  return types === undefined ? undefined : { text: indexOverloadError(types), offset: types.bracket };
}

function indexOverloadError(types: { operand: string; index: string }): string {
  return `found no matching overload for '_[_]' applied to '(${typeName(types.operand)}, ${typeName(types.index)})'`;
}

/**
 * The types of an index's operand and index as cel-js gives them, found by checking the
 * index again as a call of a function nobody declares (`__index__('abc', 0)`), whose error
 * names both; as a method (`('abc').__index__(0)`, whose receiver a list's loses its item
 * type) where the operand stands in parentheses the call cannot take apart.
 */
function indexTypes(source: string, node: AstNode, env: Environment | undefined): { operand: string; index: string; bracket: number } | undefined {
  const [operand, index] = Array.isArray(node.args) ? node.args as AstNode[] : [];
  if (env === undefined || typeof operand?.start !== 'number' || typeof operand.end !== 'number' || typeof index?.start !== 'number'
    || typeof index.end !== 'number' || typeof node.end !== 'number') return undefined;
  const bracket = source.indexOf('[', operand.end);
  if (bracket < 0 || bracket > index.start) return undefined;
  const indexText = source.slice(index.start, index.end);
  const after = source.slice(node.end);
  const probes = [
    ...(bracket === operand.end ? [`${source.slice(0, operand.start)}__index__(${source.slice(operand.start, operand.end)}, ${indexText})${after}`] : []),
    `${source.slice(0, bracket)}.__index__(${indexText})${after}`,
  ];
  for (const probe of probes) {
    let message = '';
    try {
      const result = env.check(probe);
      if (result.valid) continue;
      message = String((result.error as { message?: unknown } | undefined)?.message ?? '').split('\n')[0]!;
    } catch {
      continue;
    }
    const types = /^found no matching overload for '__index__\((.+)\)'$/.exec(message)?.[1]?.match(/^(.+), ([^,]+)$/)
      ?? /^found no matching overload for '(.+)\.__index__\((.+)\)'$/.exec(message);
    if (types) return { operand: types[1]!, index: types[2]!, bracket };
  }
  return undefined;
}

/**
 * A map indexed by a key of another type (`self.labels[1]` on a map of strings), which
 * cel-js lets pass and cel-go's checker refuses (index_map takes the map's own key type);
 * cel-go's error, as checkFailure gives one, or undefined. For an expression that checked.
 */
export function mapIndexError(checked: string, env: Environment, shown = checked): string | undefined {
  if (!checked.includes('[')) return undefined;
  let ast: unknown;
  try {
    ast = (env.parse(checked) as unknown as { ast: unknown }).ast;
  } catch {
    return undefined;
  }
  const indexes: AstNode[] = [];
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach(visit);
    const node = value as AstNode;
    if (typeof node.op !== 'string') return;
    if (node.op === '[]') indexes.push(node);
    visit(node.args);
  };
  visit(ast);
  for (const node of indexes.sort((a, b) => (a.start ?? 0) - (b.start ?? 0))) {
    const types = indexTypes(checked, node, env);
    const key = types === undefined ? undefined : /^map<(.+?), /.exec(types.operand)?.[1];
    if (types === undefined || key === undefined || key === 'dyn' || types.index === 'dyn' || types.index === key) continue;
    return checkerError(shown, types.bracket, indexOverloadError(types));
  }
  return undefined;
}
