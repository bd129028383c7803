// Kubernetes' CEL environment on cel-js: the standard library with optional types, the
// libraries of library.ts, and programs compiled once and kept per expression and
// variable set. Values reach CEL as upstream's unstructured-to-CEL conversion gives them:
// integers as int, other numbers as double, objects of a schema with properties with
// their names escaped.

import { Environment, serialize, type ASTNode } from '@marcbachmann/cel-js';
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
  const source = rewriteHasOperands(opts.objects === true ? rewriteObjectConstruction(expression) : expression);
  let result: Compiled;
  try {
    const checked = env.check(source);
    if (!checked.valid) result = { error: `ERROR: <input>: ${firstLine(checked.error?.message ?? 'invalid expression')}` };
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
