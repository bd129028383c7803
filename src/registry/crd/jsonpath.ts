// The part of client-go's JSONPath (k8s.io/client-go/util/jsonpath) that printer columns
// use: `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`, `.*`, `..name`, `[a,b]` unions of
// names, and filters `[?(@.type=="Ready")]` with ==, !=, <, <=, >, >= or a bare
// existence test. Missing keys give no result rather than an error, as the CRD table
// convertor asks (AllowMissingKeys).

import { isObject } from '../../api/json.ts';
import { appendAll } from '../validation/field.ts';

type Step =
  | { kind: 'field'; names: string[] }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start?: number; end?: number }
  | { kind: 'wildcard' }
  | { kind: 'recursive'; name: string | undefined }
  | { kind: 'filter'; path: Step[]; op?: string; literal?: unknown };

class JsonPathError extends Error {}

/** Parses a path such as `.status.conditions[?(@.type=="Ready")].status` (braces optional). */
function parseJsonPath(text: string): Step[] {
  let source = text.trim();
  if (source.startsWith('{') && source.endsWith('}')) source = source.slice(1, -1).trim();
  if (source.startsWith('$')) source = source.slice(1);
  const steps: Step[] = [];
  let i = 0;
  const nameChar = (c: string | undefined) => c !== undefined && !'.[]()@=!<> \t,\'"'.includes(c);
  const readName = (): string => {
    const start = i;
    while (nameChar(source[i])) i++;
    return source.slice(start, i);
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === '.') {
      if (source[i + 1] === '.') {
        i += 2;
        if (source[i] === '*') {
          i++;
          steps.push({ kind: 'recursive', name: undefined });
        } else {
          const name = readName();
          steps.push({ kind: 'recursive', name: name === '' ? undefined : name });
        }
        continue;
      }
      i++;
      if (source[i] === '*') {
        i++;
        steps.push({ kind: 'wildcard' });
        continue;
      }
      if (source[i] === '[' || i >= source.length) continue;
      const name = readName();
      if (name === '') throw new JsonPathError(`unrecognized character in path at ${i}: ${source.slice(i)}`);
      steps.push({ kind: 'field', names: [name] });
      continue;
    }
    if (c === '[') {
      const close = matchingBracket(source, i);
      const inner = source.slice(i + 1, close).trim();
      i = close + 1;
      steps.push(bracketStep(inner));
      continue;
    }
    if (nameChar(c) && steps.length === 0) {
      // A leading name without a dot, as `kubectl -o jsonpath` tolerates.
      steps.push({ kind: 'field', names: [readName()] });
      continue;
    }
    throw new JsonPathError(`unrecognized character in path at ${i}: ${source.slice(i)}`);
  }
  return steps;
}

function matchingBracket(source: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let j = open; j < source.length; j++) {
    const c = source[j]!;
    if (quote !== undefined) {
      if (c === '\\') j++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return j;
  }
  throw new JsonPathError('unterminated array');
}

function unquote(text: string): string | undefined {
  const t = text.trim();
  if (t.length >= 2 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0]) return t.slice(1, -1).replace(/\\(.)/g, '$1');
  return undefined;
}

function bracketStep(inner: string): Step {
  if (inner === '*') return { kind: 'wildcard' };
  if (inner.startsWith('?')) return filterStep(inner.slice(1).trim());
  if (/^-?\d+$/.test(inner)) return { kind: 'index', index: Number(inner) };
  const slice = /^(-?\d*):(-?\d*)(?::\d*)?$/.exec(inner);
  if (slice !== null) {
    return { kind: 'slice', start: slice[1] === '' ? undefined : Number(slice[1]), end: slice[2] === '' ? undefined : Number(slice[2]) };
  }
  const names = inner.split(',').map((part) => unquote(part) ?? part.trim());
  if (names.some((n) => n === '')) throw new JsonPathError(`invalid array index ${inner}`);
  return { kind: 'field', names };
}

function filterStep(text: string): Step {
  if (!text.startsWith('(') || !text.endsWith(')')) throw new JsonPathError(`unclosed filter ${text}`);
  const body = text.slice(1, -1).trim();
  const match = /^(@[^=!<>\s]*)\s*(==|!=|<=|>=|<|>)\s*(.+)$/.exec(body);
  if (match === null) {
    if (!body.startsWith('@')) throw new JsonPathError(`invalid filter ${body}`);
    return { kind: 'filter', path: parseJsonPath(body.slice(1)) };
  }
  const [, left, op, right] = match;
  const quoted = unquote(right!);
  let literal: unknown = quoted;
  if (quoted === undefined) {
    const r = right!.trim();
    if (r === 'true' || r === 'false') literal = r === 'true';
    else if (r !== '' && !Number.isNaN(Number(r))) literal = Number(r);
    else throw new JsonPathError(`invalid filter literal ${r}`);
  }
  return { kind: 'filter', path: parseJsonPath(left!.slice(1)), op, literal };
}

function children(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isObject(value)) return Object.keys(value).sort().map((k) => value[k]);
  return [];
}

function descendants(value: unknown, out: unknown[]): void {
  for (const child of children(value)) {
    out.push(child);
    descendants(child, out);
  }
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    default:
      if (typeof a !== 'number' || typeof b !== 'number') return false;
      return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
  }
}

function apply(step: Step, values: unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const value of values) {
    switch (step.kind) {
      case 'field':
        if (isObject(value)) for (const name of step.names) if (Object.hasOwn(value, name)) out.push(value[name]);
        break;
      case 'index':
        if (Array.isArray(value)) {
          const i = step.index < 0 ? value.length + step.index : step.index;
          if (i >= 0 && i < value.length) out.push(value[i]);
        }
        break;
      case 'slice':
        if (Array.isArray(value)) appendAll(out, value.slice(step.start, step.end));
        break;
      case 'wildcard':
        appendAll(out, children(value));
        break;
      case 'recursive': {
        const all: unknown[] = [value];
        descendants(value, all);
        if (step.name === undefined) appendAll(out, all.slice(1));
        else for (const v of all) if (isObject(v) && Object.hasOwn(v, step.name)) out.push(v[step.name]);
        break;
      }
      case 'filter':
        for (const item of children(value)) {
          const found = evaluate(step.path, item);
          if (step.op === undefined ? found.length > 0 : found.some((f) => compare(f, step.op!, step.literal))) out.push(item);
        }
        break;
    }
  }
  return out;
}

function evaluate(steps: Step[], root: unknown): unknown[] {
  let values = [root];
  for (const step of steps) values = apply(step, values);
  return values;
}

/** A compiled path: the values it finds in an object, in order. */
export function compileJsonPath(text: string): (obj: unknown) => unknown[] {
  const steps = parseJsonPath(text);
  return (obj) => evaluate(steps, obj);
}

/** The value at a simple dot path (`.spec.replicas`), or undefined. */
export function valueAtSimplePath(obj: unknown, path: string): unknown {
  let current = obj;
  for (const segment of path.replace(/^\./, '').split('.')) {
    if (!isObject(current)) return undefined;
    current = current[segment];
  }
  return current;
}

/** Sets the value at a simple dot path, creating the objects on the way (unstructured.SetNestedField). */
export function setAtSimplePath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.replace(/^\./, '').split('.');
  let current = obj;
  for (const segment of segments.slice(0, -1)) {
    if (!isObject(current[segment])) current[segment] = {};
    current = current[segment] as Record<string, unknown>;
  }
  current[segments[segments.length - 1]!] = value;
}
