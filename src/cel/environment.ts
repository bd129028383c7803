// Kubernetes' CEL environment on cel-js: the standard library with optional types, the
// libraries of library.ts, and programs compiled once and kept per expression and
// variable set. Values reach CEL as upstream's unstructured-to-CEL conversion gives them:
// integers as int, other numbers as double, objects of a schema with properties with
// their names escaped. Variables may be declared with object types, to check expressions
// as upstream types them (admission's request, a policy's variables).

import { Environment, serialize, type ASTNode } from '@marcbachmann/cel-js';
import { admissionTypes } from './admission-types.ts';
import { checkFailure } from './checker-errors.ts';
import { comparableWithNull, registerKubernetesLibraries } from './library.ts';
import { rewriteObjectConstruction } from './objects.ts';
import { WeighedCache } from '../api/weighed-cache.ts';

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

/** Object types by name, each with its fields' types (which may name object types declared before it). */
export type ObjectTypes = Readonly<Record<string, Readonly<Record<string, string>>>>;

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

// Keyed by what clients write (expressions, policies' variables): bounded by size too.
const environments = new WeighedCache<Environment>(1000, 1 << 20);
const compiled = new WeighedCache<Compiled>(10_000, 4 << 20);

function environmentFor(variables: Variables, types: ObjectTypes | undefined, id: string): Environment {
  let env = environments.get(id);
  if (env === undefined) {
    env = baseEnvironment().clone();
    // Upstream's admission types where a variable has one (not in every environment: each adds overloads of ==).
    if (Object.values(variables).some((type) => Object.hasOwn(admissionTypes, type))) declareObjectTypes(env, admissionTypes);
    if (types !== undefined) declareObjectTypes(env, types);
    for (const [name, type] of Object.entries(variables)) env.registerVariable(name, type);
    environments.set(id, env);
  }
  return env;
}

/** Declares object types (in order): each compares with its own type and with null, as cel-go's objects do. */
function declareObjectTypes(env: Environment, types: ObjectTypes): void {
  for (const [name, fields] of Object.entries(types)) {
    env.registerType(name, { fields: { ...fields } });
    env.registerOperator(`${name} == ${name}`, () => false);
    comparableWithNull(env, name);
  }
}

/**
 * Parses and type-checks an expression for the variables (kept: rules are compiled once
 * per schema). `objects`: the expression may construct `Object{…}` and `JSONPatch{…}`
 * values (mutating admission policies). `types`: object types the variables' types may
 * name besides upstream's admission types (admission-types.ts), which are declared where
 * a variable has one. Such types are for checking what upstream refuses: Plinth runs its
 * programs with dyn variables, where no value is of them.
 */
export function compile(expression: string, variables: Variables, opts: { objects?: boolean; types?: ObjectTypes } = {}): Compiled {
  const environmentId = opts.types === undefined ? JSON.stringify(variables) : JSON.stringify([variables, opts.types]);
  const id = `${environmentId}\u0000${opts.objects === true ? 'objects\u0000' : ''}${expression}`;
  const known = compiled.get(id);
  if (known !== undefined) return known;
  const env = environmentFor(variables, opts.types, environmentId);
  const source = rewriteHasOperands(opts.objects === true ? rewriteObjectConstruction(expression) : expression);
  let result: Compiled;
  try {
    // The program runs a null branch beside a nullable one as dyn, which cel-js joins with anything.
    let running = source;
    let checked = env.check(running);
    for (let round = 0, join = nullBranchJoin(checked, running); join !== undefined && round < maxJoins; round++, join = nullBranchJoin(checked, running)) {
      running = `${running.slice(0, join.start)}dyn(${running.slice(join.start, join.end)})${running.slice(join.end)}`;
      checked = env.check(running);
    }
    // Its type and errors are cel-go's, such conditionals typed as cel-go's checker types them.
    const typed = running === source ? { result: checked, checking: source, checker: env } : checkJoiningNull(env, source);
    if (!typed.result.valid) result = { error: checkFailure(typed.result.error, typed.checking, typed.checker, source) ?? `ERROR: <input>: ${firstLine(errorMessage(typed.result.error))}` };
    else if (!checked.valid) result = { error: checkFailure(checked.error, running, env) ?? `ERROR: <input>: ${firstLine(errorMessage(checked.error))}` };
    else {
      const parsed = env.parse(running);
      result = { program: (vars) => parsed(vars), type: String(typed.result.type), ast: (parsed as unknown as { ast: unknown }).ast };
    }
  } catch (err) {
    result = { error: `ERROR: <input>: ${firstLine((err as Error).message)}` };
  }
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

/** A stretch of an expression's text. */
export interface Span { start: number; end: number }

/**
 * A conditional whose branches cel-js could not join, one of type null and the other of
 * `otherType`, one cel-go's checker joins: each branch's text (its own parentheses with it).
 */
export interface NullBranch extends Span {
  other: Span;
  otherType: string;
  /** The null branch comes first: cel-go types the conditional null, else `otherType`. */
  nullFirst: boolean;
}

/** Conditionals with a null branch joined in one expression, at most (each is checked again). */
export const maxJoins = 32;

// cel-go's checker joins a null branch with one of a type its legacy checker called
// nullable (objects, library types, timestamps, durations, optionals; dyn joins anything);
// beside a scalar, a list or a map it finds no overload for '_?_:_'. cel-js joins null with
// null and dyn only, and says so in this message.
const unjoinable = /^Ternary branches must have the same type, got '(.+)' and '(.+)'$/;
const notNullable = /^(?:bool|int|uint|double|string|bytes|type|list<.*>|map<.*>)$/;

/**
 * The conditional a failed check could not join, when cel-go's checker joins its branches
 * (one of type null, the other nullable); undefined for any other error.
 */
export function nullBranchJoin(checked: { valid: boolean; error?: unknown }, source: string): NullBranch | undefined {
  if (checked.valid) return undefined;
  const error = checked.error as { message?: unknown; node?: { op?: unknown; args?: unknown } } | undefined;
  const types = unjoinable.exec(firstLine(String(error?.message ?? '')));
  const args = error?.node?.op === '?:' && Array.isArray(error.node.args) ? error.node.args as Array<{ start?: unknown; end?: unknown }> : undefined;
  if (types === null || args === undefined || args.length !== 3) return undefined;
  const [, left, right] = types as unknown as [string, string, string];
  const nullFirst = left === 'null';
  const otherType = nullFirst ? right : left;
  if ((!nullFirst && right !== 'null') || notNullable.test(otherType)) return undefined;
  const branch = (i: number) => {
    const { start, end } = args[i]!;
    return typeof start === 'number' && typeof end === 'number' ? withParentheses(source, start, end) : undefined;
  };
  const [nullBranch, other] = nullFirst ? [branch(1), branch(2)] : [branch(2), branch(1)];
  if (nullBranch === undefined || other === undefined) return undefined;
  return { ...nullBranch, other, otherType, nullFirst };
}

/** The result of cel-js's check. */
export type CheckResult = ReturnType<Environment['check']>;

export interface JoinedCheck {
  result: CheckResult;
  /** The text checked: the source with branches stood in for by variables, as long as it, line for line (positions hold). */
  checking: string;
  /** The environment the stand-ins are declared in. */
  checker: Environment;
}

/**
 * `source` checked with each conditional of a null and a nullable branch typed as cel-go's
 * checker types it. `_?_:_` takes (bool, A, A) and returns A, A bound by the first branch:
 * null second, the conditional has the other branch's type (the null branch is checked as a
 * variable of that type); null first, it has type null (the other branch is checked as a
 * variable of type null), so `(c ? null : self.a).b` selects a field of null. cel-go passes
 * a null for any nullable parameter (`(c ? null : self.ts).getSeconds()` compiles), cel-js
 * for none: a call or operator it refuses such a conditional is checked again with the
 * conditional of its other branch's type, and refused for the null if that fails there too.
 */
export function checkJoiningNull(env: Environment, source: string): JoinedCheck {
  let checked: JoinedCheck = { result: env.check(source), checking: source, checker: env };
  // The stand-ins of type null, by name, with the type of the branch each stands for.
  const nulls = new Map<string, string>();
  for (let round = 0; round < maxJoins && !checked.result.valid; round++) {
    const join = nullBranchJoin(checked.result, checked.checking);
    if (join !== undefined) {
      const next = standIn(checked, [{ ...(join.nullFirst ? join.other : join), type: join.nullFirst ? 'null' : join.otherType }]);
      if (next === undefined) break;
      if (join.nullFirst) nulls.set(next.names[0]!, join.otherType);
      checked = next.checked;
      continue;
    }
    const call = nullOperand(checked.result.error, checked.checking, nulls);
    const next = call === undefined ? undefined : standIn(checked, call);
    // The call refuses the other branch's type too: it refuses the null (its error is cel-go's).
    if (next === undefined || sameNode(next.checked.result.error, checked.result.error)) break;
    checked = next.checked;
  }
  return checked;
}

/** The check again, with variables of these types standing for the text at these places. */
function standIn(checked: JoinedCheck, at: ReadonlyArray<Span & { type: string }>): { checked: JoinedCheck; names: string[] } | undefined {
  let { checking, checker } = checked;
  const names: string[] = [];
  for (const { start, end, type } of at) {
    const name = standInName(checking, { start, end }, checker);
    if (name === undefined) return undefined;
    checker = checker.clone().registerVariable(name, type);
    checking = checking.slice(0, start) + name + checking.slice(start + name.length, end).replace(/[^\r\n]/g, ' ') + checking.slice(end);
    names.push(name);
  }
  return { checked: { result: checker.check(checking), checking, checker }, names };
}

/**
 * The branches of a null-first conditional a call or operator refused as its operand, each
 * to stand in for with the type of the conditional's other branch.
 */
function nullOperand(error: unknown, source: string, nulls: ReadonlyMap<string, string>): Array<Span & { type: string }> | undefined {
  const node = (error as { node?: { op?: unknown; args?: unknown } } | undefined)?.node;
  // A null has no fields (cel-go: type 'null' does not support field selection); no call is retried for it.
  if (nulls.size === 0 || typeof node?.op !== 'string' || ['.', '.?', '[]', '[?]', '?:'].includes(node.op) || !Array.isArray(node.args)) return undefined;
  type Branch = { op?: unknown; args?: unknown; start?: unknown; end?: unknown };
  for (const operand of (node.args as unknown[]).flat() as Branch[]) {
    const [, first, second] = operand?.op === '?:' && Array.isArray(operand.args) ? operand.args as Branch[] : [];
    const type = second?.op === 'id' && typeof second.args === 'string' ? nulls.get(second.args) : undefined;
    if (type === undefined || typeof first?.start !== 'number' || typeof first.end !== 'number' || typeof second!.start !== 'number' || typeof second!.end !== 'number') continue;
    const firstText = withParentheses(source, first.start, first.end);
    if (firstText === undefined) return undefined;
    return [{ ...firstText, type }, { start: second!.start, end: second!.end, type }];
  }
  return undefined;
}

function sameNode(a: unknown, b: unknown): boolean {
  const [x, y] = [a, b].map((e) => (e as { node?: { op?: unknown; start?: unknown; end?: unknown } } | undefined)?.node);
  return x !== undefined && y !== undefined && x.op === y.op && x.start === y.start && x.end === y.end;
}

/** A name for a variable to stand for the text at `span`: as long as its first line, up to four. */
function standInName(source: string, span: Span, env: Environment): string | undefined {
  const length = Math.min(4, /^[^\r\n]*/.exec(source.slice(span.start, span.end))![0].length);
  const declared = new Set(env.getDefinitions().variables.map((v) => v.name));
  for (const name of namesOfLength(length)) if (!declared.has(name) && !new RegExp(`\\b${name}\\b`).test(source)) return name;
  return undefined;
}

/** Identifiers of a length (at most 4): `_00_`… (four), `_00`…, `_0`…, `_`, then letters (one). */
function* namesOfLength(length: number): Generator<string> {
  if (length === 1) {
    yield* '_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
    return;
  }
  if (length < 1) return;
  const digits = length === 4 ? 2 : length - 1;
  for (let i = 0; i < 36 ** digits; i++) yield `_${i.toString(36).padStart(digits, '0')}${length === 4 ? '_' : ''}`;
}

/**
 * A node's text with the parentheses of its own first and last operands: cel-js places a
 * node from its first operand's start to its last operand's end, each without its
 * parentheses (`(a).b` from `a`, `-(x)` to `x`). Undefined if they are not there.
 */
function withParentheses(source: string, start: number, end: number): Span | undefined {
  let [open, depth] = [0, 0];
  for (let i = start; i < end; i++) {
    const c = source[i]!;
    if (c === '(') depth++;
    else if (c === ')') open = Math.max(open, -(--depth));
    else if (c === "'" || c === '"') i = stringEnd(source, i, end) - 1;
    else if (c === '/' && source[i + 1] === '/') while (i + 1 < end && source[i + 1] !== '\n') i++;
  }
  let [from, to] = [start, end];
  for (let n = 0; n < open; n++) {
    while (from > 0 && /\s/.test(source[from - 1]!)) from--;
    if (source[from - 1] !== '(') return undefined;
    from--;
  }
  for (let n = depth + open; n > 0; n--) {
    while (to < source.length && /\s/.test(source[to]!)) to++;
    if (source[to] !== ')') return undefined;
    to++;
  }
  return { start: from, end: to };
}

/** Where the string literal opening at `i` ends (its prefix, r or b, does not matter here but for escapes). */
function stringEnd(source: string, i: number, limit: number): number {
  const quote = source[i]!;
  const raw = /[rR]/.test(source[i - 1] ?? '') || /[rR]/.test(source[i - 2] ?? '') && /[bB]/.test(source[i - 1] ?? '');
  const close = source.startsWith(quote.repeat(3), i) ? quote.repeat(3) : quote;
  for (let j = i + close.length; j < limit; j++) {
    if (!raw && source[j] === '\\') j++;
    else if (source.startsWith(close, j)) return j + close.length;
  }
  return limit;
}

function errorMessage(error: unknown): string {
  return String((error as { message?: unknown } | undefined)?.message ?? 'invalid expression');
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
