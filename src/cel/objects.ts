// Object construction in mutating admission policies: `Object{spec: Object.spec{replicas: 3}}`
// (an apply configuration) and `JSONPatch{op: "add", path: "/x", value: 1}`. cel-js has
// no message literals, so expressions are rewritten before compiling: `Name{f: v}` becomes
// `__construct('Name', {'f': v})`, which builds a plain object. And CEL values back to JSON.

const typeName = /^(Object(\.[A-Za-z_][A-Za-z0-9_]*)*|JSONPatch)$/;

interface Frame {
  construct: boolean;
  /** Inside a construct's braces: the next identifier before ':' is a field name. */
  expectField: boolean;
}

/** The expression with `Type{field: value}` literals turned into __construct calls (strings left alone). */
export function rewriteObjectConstruction(expression: string): string {
  let out = '';
  const stack: Frame[] = [];
  let i = 0;
  const top = () => stack[stack.length - 1];
  while (i < expression.length) {
    const c = expression[i]!;
    // String and bytes literals, raw or not, single, double or triple quoted: copied as they are.
    const literal = /^(?:[rRbB]{0,2})('''|"""|'|")/.exec(expression.slice(i));
    if (literal !== null && (i === 0 || !/[A-Za-z0-9_]/.test(expression[i - 1]!) || /^[rRbB]/.test(literal[0]) === false)) {
      const quote = literal[1]!;
      const raw = /[rR]/.test(literal[0].slice(0, -quote.length));
      let j = i + literal[0].length;
      while (j < expression.length && !expression.startsWith(quote, j)) j += !raw && expression[j] === '\\' ? 2 : 1;
      j = Math.min(expression.length, j + quote.length);
      out += expression.slice(i, j);
      if (top()?.construct) top()!.expectField = false;
      i = j;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*(\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*/.exec(expression.slice(i));
    if (word !== null) {
      const name = word[0].replace(/\s+/g, '');
      const after = expression.slice(i + word[0].length);
      const brace = /^\s*\{/.exec(after);
      const frame = top();
      if (frame?.construct && frame.expectField && /^\s*:/.test(after) && !name.includes('.')) {
        out += `'${name}'`;
        frame.expectField = false;
        i += word[0].length;
        continue;
      }
      if (brace !== null && typeName.test(name) && (i === 0 || expression[i - 1] !== '.')) {
        out += `__construct('${name}', {`;
        stack.push({ construct: true, expectField: true });
        i += word[0].length + brace[0].length;
        continue;
      }
      out += word[0];
      if (frame?.construct) frame.expectField = false;
      i += word[0].length;
      continue;
    }
    if (c === '{' || c === '(' || c === '[') stack.push({ construct: false, expectField: false });
    else if (c === '}' || c === ')' || c === ']') {
      const frame = stack.pop();
      if (frame?.construct && c === '}') {
        out += '})';
        i++;
        continue;
      }
    } else if (c === ',' && top()?.construct) top()!.expectField = true;
    else if (!/\s/.test(c) && top()?.construct) top()!.expectField = false;
    out += c;
    i++;
  }
  return out;
}

/** What __construct builds: the fields as a plain object (apply configurations and JSONPatch alike). */
export function construct(_type: string, fields: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const entries = fields instanceof Map ? [...fields.entries()] : Object.entries(fields as object);
  for (const [k, v] of entries) out[String(k)] = v;
  return out;
}

/** A CEL value as JSON: ints as numbers, maps as objects, optionals unwrapped. */
export function celToJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value === null || typeof value !== 'object') return value;
  if (value.constructor?.name === 'UnsignedInt') return Number((value as { valueOf(): bigint }).valueOf());
  if (value.constructor?.name === 'Optional') {
    const o = value as { hasValue(): boolean; value(): unknown };
    return o.hasValue() ? celToJson(o.value()) : undefined;
  }
  if (Array.isArray(value)) return value.map(celToJson);
  if (value instanceof Map) return Object.fromEntries([...value.entries()].map(([k, v]) => [String(k), celToJson(v)]));
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString().replace(/\.000Z$/, 'Z');
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, celToJson(v)]).filter(([, v]) => v !== undefined));
}
