// cel-go's two-variable comprehensions (ext.TwoVarComprehensions, in Kubernetes' CEL
// since 1.33), as cel-js macros: `all`, `exists`, `existsOne` with an index (or key) and
// a value, `transformList`, `transformMap` and `transformMapEntry`. Over a list the first
// variable is the index (int), over a map the key. Errors follow CEL's logic: `all` and
// `exists` are decided by any decisive element even when others fail; the rest stop at
// the first error.

import type { Environment } from '@marcbachmann/cel-js';

/* eslint-disable @typescript-eslint/no-explicit-any -- cel-js's macro API is untyped */
type Ast = any;
type Checker = any;
type Evaluator = any;
type Context = any;

interface Macro {
  first: string;
  second: string;
  receiver: Ast;
  filter?: Ast;
  body: Ast;
  firstType?: unknown;
  secondType?: unknown;
  innerContext?: Context;
  typeCheck(checker: Checker, macro: Macro, ctx: Context): unknown;
  evaluate(evaluator: Evaluator, macro: Macro, ctx: Context): unknown;
}

function identifier(node: Ast, what: string): string {
  if (node?.op === 'id') return node.args as string;
  throw new Error(`${what}: the iteration variables must be simple identifiers`);
}

/** The (index or key, value) pairs of a list or map. */
function pairs(value: unknown): Array<[unknown, unknown]> {
  if (Array.isArray(value)) return value.map((v, i) => [BigInt(i), v]);
  if (value instanceof Map) return [...value.entries()];
  if (value !== null && typeof value === 'object') return Object.entries(value);
  throw new Error(`expression of type '${typeof value}' cannot be range of a comprehension (must be list or map)`);
}

type Kind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

function run(kind: Kind, evaluator: Evaluator, m: Macro, ctx: Context): unknown {
  const range = evaluator.run(m.receiver, ctx);
  const step = (first: unknown, second: unknown, node: Ast) => {
    const outer = ctx.forkWithVariable(m.first, m.firstType).setIterValue(first, evaluator);
    const inner = outer.forkWithVariable(m.second, m.secondType).setIterValue(second, evaluator);
    return evaluator.run(node, inner);
  };
  const entries = pairs(range);
  switch (kind) {
    case 'all':
    case 'exists': {
      const decisive = kind === 'exists';
      let failure: unknown;
      for (const [a, b] of entries) {
        try {
          const r = step(a, b, m.body);
          if (typeof r !== 'boolean') throw new Error(`${kind}: the predicate must return bool`);
          if (r === decisive) return decisive;
        } catch (err) {
          failure ??= err;
        }
      }
      if (failure !== undefined) throw failure;
      return !decisive;
    }
    case 'existsOne': {
      let count = 0;
      for (const [a, b] of entries) if (step(a, b, m.body) === true) count++;
      return count === 1;
    }
    case 'transformList': {
      const out: unknown[] = [];
      for (const [a, b] of entries) if (m.filter === undefined || step(a, b, m.filter) === true) out.push(step(a, b, m.body));
      return out;
    }
    case 'transformMap': {
      const out = new Map<unknown, unknown>();
      for (const [a, b] of entries) if (m.filter === undefined || step(a, b, m.filter) === true) out.set(a, step(a, b, m.body));
      return out;
    }
    case 'transformMapEntry': {
      const out = new Map<unknown, unknown>();
      for (const [a, b] of entries) {
        if (m.filter !== undefined && step(a, b, m.filter) !== true) continue;
        const entry = step(a, b, m.body);
        const items = entry instanceof Map ? [...entry.entries()] : Object.entries(entry as object);
        for (const [k, v] of items) {
          if (out.has(k)) throw new Error(`insert failed: key ${String(k)} already exists`);
          out.set(k, v);
        }
      }
      return out;
    }
  }
}

function macro(kind: Kind, withFilter: boolean) {
  return ({ args, receiver }: { args: Ast[]; receiver: Ast }): Macro => ({
    first: identifier(args[0], kind),
    second: identifier(args[1], kind),
    receiver,
    ...(withFilter ? { filter: args[2] } : {}),
    body: args[withFilter ? 3 : 2],
    typeCheck(checker, m, ctx) {
      const rangeType = checker.check(m.receiver, ctx);
      const dyn = checker.getType('dyn');
      m.firstType = rangeType.kind === 'list' ? checker.getType('int') : rangeType.kind === 'map' ? rangeType.keyType : dyn;
      m.secondType = rangeType.kind === 'list' || rangeType.kind === 'map' ? rangeType.valueType : dyn;
      m.innerContext = ctx.forkWithVariable(m.first, m.firstType).forkWithVariable(m.second, m.secondType);
      if (m.filter !== undefined) checker.check(m.filter, m.innerContext);
      checker.check(m.body, m.innerContext);
      if (kind === 'all' || kind === 'exists' || kind === 'existsOne') return checker.getType('bool');
      if (kind === 'transformList') return checker.getType('list');
      return checker.getType('map');
    },
    evaluate: (evaluator, m, ctx) => run(kind, evaluator, m, ctx),
  });
}

export function registerTwoVariableComprehensions(env: Environment): void {
  for (const range of ['list', 'map']) {
    env.registerFunction(`${range}.all(ast, ast, ast): bool`, macro('all', false));
    env.registerFunction(`${range}.exists(ast, ast, ast): bool`, macro('exists', false));
    env.registerFunction(`${range}.existsOne(ast, ast, ast): bool`, macro('existsOne', false));
    env.registerFunction(`${range}.transformList(ast, ast, ast): list`, macro('transformList', false));
    env.registerFunction(`${range}.transformList(ast, ast, ast, ast): list`, macro('transformList', true));
    env.registerFunction(`${range}.transformMap(ast, ast, ast): map`, macro('transformMap', false));
    env.registerFunction(`${range}.transformMap(ast, ast, ast, ast): map`, macro('transformMap', true));
    env.registerFunction(`${range}.transformMapEntry(ast, ast, ast): map`, macro('transformMapEntry', false));
    env.registerFunction(`${range}.transformMapEntry(ast, ast, ast, ast): map`, macro('transformMapEntry', true));
  }
}
