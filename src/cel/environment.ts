// Kubernetes' CEL environment on cel-js: the standard library with optional types, the
// libraries of library.ts, and programs compiled once and kept per expression and
// variable set. Values reach CEL as upstream's unstructured-to-CEL conversion gives them:
// integers as int, other numbers as double, objects of a schema with properties with
// their names escaped.

import { Environment, serialize, type ASTNode } from '@marcbachmann/cel-js';
import { checkFailure } from './checker-errors.ts';
import { registerKubernetesLibraries } from './library.ts';
import { rewriteObjectConstruction } from './objects.ts';

/** A compiled expression: call it with the variables' values. */
export type CelProgram = (variables: Record<string, unknown>) => unknown;

export interface Compiled {
  program?: CelProgram;
  /** The parsed expression (cel-js's AST), for cost estimation. */
  ast?: unknown;
  /** The type the checker gave the expression (`bool`, `string`, `dyn`…). */
  type?: string;
  /** Why it does not compile, as upstream's "compilation failed" detail. */
  error?: string;
}

/** Names and types of the variables an expression sees. */
export type Variables = Readonly<Record<string, string>>;

// Built on first use: a server without CEL rules or policies does not pay for it at start-up.
let base: Environment | undefined;
function baseEnvironment(): Environment {
  base ??= registerKubernetesLibraries(new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    limits: { maxAstNodes: 100_000, maxDepth: 250, maxListElements: 100_000, maxMapEntries: 100_000, maxCallArguments: 32 },
  }));
  return base;
}

/** A fresh copy of Kubernetes' environment, to declare typed variables on (CRD rules' static types). */
export function typedEnvironment(): Environment {
  return baseEnvironment().clone();
}

const environments = new Map<string, Environment>();
const compiled = new Map<string, Compiled>();

function environmentFor(variables: Variables): Environment {
  const id = JSON.stringify(variables);
  let env = environments.get(id);
  if (env === undefined) {
    env = baseEnvironment().clone();
    for (const [name, type] of Object.entries(variables)) env.registerVariable(name, type);
    environments.set(id, env);
  }
  return env;
}

/**
 * Parses and type-checks an expression for the variables (kept: rules are compiled once
 * per schema). `objects`: the expression may construct `Object{…}` and `JSONPatch{…}`
 * values (mutating admission policies).
 */
export function compile(expression: string, variables: Variables, opts: { objects?: boolean } = {}): Compiled {
  const id = `${JSON.stringify(variables)}\u0000${opts.objects === true ? 'objects\u0000' : ''}${expression}`;
  const known = compiled.get(id);
  if (known !== undefined) return known;
  const env = environmentFor(variables);
  let source = rewriteHasOperands(opts.objects === true ? rewriteObjectConstruction(expression) : expression);
  let result: Compiled;
  try {
    let checked = env.check(source);
    // A null branch beside a nullable one is run as dyn, which cel-js joins with anything.
    for (let round = 0, join = nullBranchJoin(checked, source); join !== undefined && round < maxJoins; round++, join = nullBranchJoin(checked, source)) {
      source = `${source.slice(0, join.start)}dyn(${source.slice(join.start, join.end)})${source.slice(join.end)}`;
      checked = env.check(source);
    }
    if (!checked.valid) result = { error: checkFailure(checked.error, source, env) ?? `ERROR: <input>: ${firstLine(checked.error?.message ?? 'invalid expression')}` };
    else {
      const parsed = env.parse(source);
      result = { program: (vars) => parsed(vars), type: String(checked.type), ast: (parsed as unknown as { ast: unknown }).ast };
    }
  } catch (err) {
    result = { error: `ERROR: <input>: ${firstLine((err as Error).message)}` };
  }
  if (compiled.size > 10_000) compiled.clear();
  compiled.set(id, result);
  return result;
}

type Node = { op: string; args: unknown; start: number; end: number };

/**
 * cel-go's has() tests a field of any expression (`has(self[0].matches)`, as Gateway API's
 * CRDs write), cel-js's only of a chain of selections from a variable. Such a has() is
 * rewritten to select from a bound variable, which means the same:
 * `cel.bind(__has0__, self[0], has(__has0__.matches))`. Other expressions are returned as
 * they are (one that does not parse too: its error is the checker's).
 */
export function rewriteHasOperands(source: string): string {
  if (!source.includes('has(')) return source;
  let out = source;
  for (let round = 0; round < 8; round++) {
    let ast: Node;
    try {
      ast = (baseEnvironment().parse(out) as unknown as { ast: Node }).ast;
    } catch {
      return out;
    }
    const edits: Array<{ start: number; end: number; text: string }> = [];
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach(visit);
      const n = node as Node;
      if (typeof n.op !== 'string') return;
      const [name, args] = Array.isArray(n.args) ? n.args as [unknown, unknown] : [];
      if (n.op === 'call' && name === 'has' && Array.isArray(args) && args.length === 1) {
        let base = args[0] as Node;
        let chain = '';
        while (base.op === '.' || base.op === '.?') {
          const [operand, field] = base.args as [Node, string];
          chain = `${base.op}${field}${chain}`;
          base = operand;
        }
        if (chain !== '' && base.op !== 'id') {
          const bound = `__has${edits.length}__`;
          edits.push({ start: n.start, end: n.end, text: `cel.bind(${bound}, ${serialize(base as unknown as ASTNode)}, has(${bound}${chain}))` });
          return;
        }
      }
      visit(n.args);
    };
    visit(ast);
    if (edits.length === 0) return out;
    for (const edit of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  }
  return out;
}

/** A conditional's `null` branch cel-js could not join with its other branch, of `otherType`. */
export interface NullBranch { start: number; end: number; otherType: string }

/** Conditionals with a null branch joined in one expression, at most (each is checked again). */
export const maxJoins = 32;

// cel-go's checker joins a null branch with one of a type its legacy checker called
// nullable (objects, library types, timestamps, durations, optionals; dyn joins anything);
// beside a scalar, a list or a map it finds no overload for '_?_:_'. cel-js joins null with
// null and dyn only, and says so in this message.
const unjoinable = /^Ternary branches must have the same type, got '(.+)' and '(.+)'$/;
const notNullable = /^(?:bool|int|uint|double|string|bytes|type|list<.*>|map<.*>)$/;

/**
 * The `null` literal branch of the conditional a failed check could not join, when cel-go's
 * checker joins it with the other branch's type; undefined for any other error.
 */
export function nullBranchJoin(checked: { valid: boolean; error?: unknown }, source: string): NullBranch | undefined {
  if (checked.valid) return undefined;
  const error = checked.error as { message?: unknown; node?: { op?: unknown; args?: unknown } } | undefined;
  const types = unjoinable.exec(firstLine(String(error?.message ?? '')));
  const args = error?.node?.op === '?:' && Array.isArray(error.node.args) ? error.node.args as Array<{ start?: unknown; end?: unknown }> : undefined;
  if (types === null || args === undefined || args.length !== 3) return undefined;
  const [, left, right] = types as unknown as [string, string, string];
  const nullLeft = left === 'null';
  const otherType = nullLeft ? right : left;
  if ((!nullLeft && right !== 'null') || notNullable.test(otherType)) return undefined;
  const { start, end } = args[nullLeft ? 1 : 2]!;
  if (typeof start !== 'number' || typeof end !== 'number' || source.slice(start, end) !== 'null') return undefined;
  return { start, end, otherType };
}

function firstLine(message: string): string {
  return message.split('\n')[0]!;
}


const reservedWords = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package',
  'namespace', 'return', 'var', 'void', 'while',
]);

/**
 * A property name as CEL sees it (upstream's cel.Escape): reserved words become
 * `__word__`; `__`, `.`, `-` and `/` become `__underscores__`, `__dot__`, `__dash__` and
 * `__slash__`. Undefined when the name cannot be accessed from CEL.
 */
export function escapePropertyName(name: string): string | undefined {
  if (name === '') return undefined;
  if (reservedWords.has(name)) return `__${name}__`;
  if (!/^[_a-zA-Z][_a-zA-Z0-9.\-/]*$/.test(name)) return undefined;
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === '_' && name[i + 1] === '_') {
      out += '__underscores__';
      i++;
    } else if (c === '.') out += '__dot__';
    else if (c === '-') out += '__dash__';
    else if (c === '/') out += '__slash__';
    else out += c;
  }
  return out;
}
