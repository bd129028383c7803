// x-kubernetes-list-type semantics in CRD rules: two lists of type `set` are equal when
// they hold the same elements in any order, two `map` lists when they hold the same
// items by key, and `+` merges them (a set gains the other's new elements, a map list has
// items with the same keys replaced and new ones appended), as upstream's CEL types for
// structural schemas do. cel-js compares lists in order, so a rule's `==`, `!=` and `+`
// on such lists are rewritten into __listEq and __listConcat calls before compiling.

import { compile } from './environment.ts';
import { isObject } from '../api/json.ts';

type Raw = Record<string, unknown>;
type Ast = { op: string; args: any; start: number; end: number };


interface ListType {
  type: 'set' | 'map';
  keys: string[];
}

function listTypeOf(schema: Raw | undefined): ListType | undefined {
  if (schema?.type !== 'array') return undefined;
  if (schema['x-kubernetes-list-type'] === 'set') return { type: 'set', keys: [] };
  if (schema['x-kubernetes-list-type'] === 'map') {
    return { type: 'map', keys: Array.isArray(schema['x-kubernetes-list-map-keys']) ? schema['x-kubernetes-list-map-keys'].map(String) : [] };
  }
  return undefined;
}

function children(node: Ast): Ast[] {
  const args = Array.isArray(node.args) ? (node.args as unknown[]).flatMap((a) => (Array.isArray(a) ? a : [a])) : [node.args];
  return args.filter((a): a is Ast => isObject(a) && typeof a.op === 'string' && typeof a.start === 'number');
}

function property(schema: Raw | undefined, field: string): Raw | undefined {
  if (schema === undefined) return undefined;
  if (isObject(schema.properties)) {
    const sub = (schema.properties as Raw)[field];
    if (isObject(sub)) return sub;
  }
  return isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

function schemaOf(node: Ast, scope: ReadonlyMap<string, Raw | undefined>): Raw | undefined {
  switch (node.op) {
    case 'id': return scope.get(node.args as string);
    case '.':
    case '.?': return property(schemaOf(node.args[0] as Ast, scope), node.args[1] as string);
    case '[]': {
      const s = schemaOf(node.args[0] as Ast, scope);
      return isObject(s?.items) ? s.items as Raw : isObject(s?.additionalProperties) ? s.additionalProperties as Raw : undefined;
    }
    default: return undefined;
  }
}

const macros = new Set(['all', 'exists', 'exists_one', 'existsOne', 'map', 'filter', 'transformList', 'transformMap', 'transformMapEntry']);

/**
 * The expression with `==`, `!=` and `+` on set and map lists (by the schemas of `roots`,
 * e.g. self and oldSelf) made list-type aware; unchanged when it has none.
 */
export function rewriteListSemantics(expression: string, variables: Readonly<Record<string, string>>, roots: Readonly<Record<string, Raw>>): string {
  const compiled = compile(expression, variables);
  if (compiled.ast === undefined) return expression;
  let changed = false;
  const render = (node: Ast, scope: ReadonlyMap<string, Raw | undefined>): string => {
    if ((node.op === '==' || node.op === '!=' || node.op === '+') && Array.isArray(node.args)) {
      const [left, right] = node.args as [Ast, Ast];
      const type = listTypeOf(schemaOf(left, scope)) ?? listTypeOf(schemaOf(right, scope));
      if (type !== undefined) {
        changed = true;
        const args = `${render(left, scope)}, ${render(right, scope)}, '${type.type}', ${JSON.stringify(type.keys)}`;
        if (node.op === '+') return `__listConcat(${args})`;
        return `${node.op === '!=' ? '!' : ''}__listEq(${args})`;
      }
    }
    // A macro's body sees its iteration variable as the range's elements.
    let inner = scope;
    if (node.op === 'rcall' && macros.has(node.args[0] as string)) {
      const [, receiver, args] = node.args as [string, Ast, Ast[]];
      const range = schemaOf(receiver, scope);
      const element = isObject(range?.items) ? range.items as Raw : undefined;
      const vars = args.filter((a) => a?.op === 'id');
      if (vars.length > 0) {
        const next = new Map(scope);
        if (args.length >= 3 && args[1]?.op === 'id') next.set(args[1].args as string, element);
        else next.set(args[0]!.args as string, element);
        inner = next;
      }
    }
    let out = '';
    let at = node.start;
    for (const child of children(node).sort((a, b) => a.start - b.start)) {
      if (child.start < at || child.end > node.end) continue;
      out += expression.slice(at, child.start) + render(child, child === node.args?.[1] && node.op === 'rcall' ? scope : inner);
      at = child.end;
    }
    return out + expression.slice(at, node.end);
  };
  const rendered = render(compiled.ast as Ast, new Map(Object.entries(roots)));
  if (!changed) return expression;
  const ast = compiled.ast as Ast;
  return expression.slice(0, ast.start) + rendered + expression.slice(ast.end);
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof b === 'bigint') return typeof a === typeof b && a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  const entries = (v: unknown) => (v instanceof Map ? [...v.entries()] : isObject(v) ? Object.entries(v) : undefined);
  const ea = entries(a);
  const eb = entries(b);
  if (ea === undefined || eb === undefined || ea.length !== eb.length) return false;
  const bm = new Map(eb.map(([k, v]) => [String(k), v]));
  return ea.every(([k, v]) => bm.has(String(k)) && same(v, bm.get(String(k))));
}

function keyOf(item: unknown, keys: readonly string[]): unknown[] {
  const get = (k: string) => (item instanceof Map ? item.get(k) : isObject(item) ? item[k] : undefined);
  return keys.map(get);
}

function sameKey(a: unknown, b: unknown, keys: readonly string[]): boolean {
  const [ka, kb] = [keyOf(a, keys), keyOf(b, keys)];
  return ka.every((v, i) => same(v, kb[i]));
}

/** `==` of two set or map lists. */
export function listEquals(a: unknown[], b: unknown[], type: string, keys: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  if (type === 'set') return a.every((x) => b.some((y) => same(x, y))) && b.every((y) => a.some((x) => same(x, y)));
  return a.every((x) => b.some((y) => sameKey(x, y, keys) && same(x, y)));
}

/** `+` of two set or map lists. */
export function listConcat(a: unknown[], b: unknown[], type: string, keys: readonly string[]): unknown[] {
  if (type === 'set') return [...a, ...b.filter((y) => !a.some((x) => same(x, y)))];
  const out = a.map((x) => b.find((y) => sameKey(x, y, keys)) ?? x);
  return [...out, ...b.filter((y) => !a.some((x) => sameKey(x, y, keys)))];
}
