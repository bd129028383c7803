// JSON paths into a CRD's structural schema, after apiextensions-apiserver's
// pkg/apiserver/schema/cel ValidFieldPath: what selectableFields and an
// x-kubernetes-validations rule's fieldPath may name, with upstream's error words.

import { isObject } from '../../api/json.ts';

type Raw = Record<string, unknown>;

export type FieldPathResult =
  | { ok: true; path: string; root: string; schema: Raw | undefined }
  | { ok: false; error: string };

/** The scanner's tokens: '.', '[' and ']' alone, single-quoted strings whole, other text between them. */
function tokens(jsonPath: string): string[] {
  const out: string[] = [];
  let rest = jsonPath;
  while (rest.length > 0) {
    let taken = rest.length;
    for (let i = 0; i < rest.length; i++) {
      if (rest[0] === "'") {
        if (i > 0 && rest[i] === "'" && rest[i - 1] !== '\\') {
          taken = i + 1;
          break;
        }
        continue;
      }
      if (rest[i] === '.' || rest[i] === '[' || rest[i] === ']') {
        taken = i === 0 ? 1 : i;
        break;
      }
    }
    out.push(rest.slice(0, taken));
    rest = rest.slice(taken);
  }
  return out;
}

const escapes: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

/** Upstream's unescapeSingleQuote. */
function unescape(s: string): { value: string } | { error: string } {
  let error: string | undefined;
  const value = s.replace(/\\[\s\S]/g, (match) => {
    const replacement = escapes[match[1]!];
    if (replacement === undefined) {
      error ??= `invalid escape char ${match}`;
      return '';
    }
    return replacement;
  });
  return error === undefined ? { value } : { error };
}

/** A structural schema's properties as NewStructural keeps them: absent when empty. */
function propertiesOf(s: Raw): Raw | undefined {
  return isObject(s.properties) && Object.keys(s.properties).length > 0 ? s.properties : undefined;
}

/**
 * Whether `jsonPath` names a field of `schema` (a JSONSchemaProps as the client sent it),
 * and which: the field.Path upstream builds of it, its first element and its schema.
 */
export function validFieldPath(jsonPath: string, schema: Raw, allowArrayNotation = true): FieldPathResult {
  let current: Raw | undefined = schema;
  let path = '';
  let root = '';
  const append = (name: string): string | undefined => {
    // A path past a value without a schema (additionalProperties: true) names nothing.
    if (current === undefined) return 'does not refer to a valid field';
    const properties = propertiesOf(current);
    if (properties !== undefined) {
      path = path === '' ? name : `${path}.${name}`;
      if (root === '') root = name;
      const next = properties[name];
      if (!isObject(next)) return 'does not refer to a valid field';
      current = next;
      return undefined;
    }
    if (current.additionalProperties !== undefined && current.additionalProperties !== null) {
      path = `${path}[${name}]`;
      if (root === '') root = `[${name}]`;
      current = isObject(current.additionalProperties) ? current.additionalProperties : undefined;
      return undefined;
    }
    return 'does not refer to a valid field';
  };
  const toks = tokens(jsonPath);
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i]!;
    if (tok === '[') {
      if (!allowArrayNotation) return { ok: false, error: 'array notation is not allowed' };
      const quoted = toks[++i];
      if (quoted === undefined) return { ok: false, error: 'unexpected end of JSON path' };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return { ok: false, error: `expected single quoted string but got ${quoted}` };
      const unescaped = unescape(quoted.slice(1, -1));
      if ('error' in unescaped) return { ok: false, error: `invalid string literal: ${unescaped.error}` };
      const error = append(unescaped.value);
      if (error !== undefined) return { ok: false, error };
      const close = toks[++i];
      if (close === undefined) return { ok: false, error: 'unexpected end of JSON path' };
      if (close !== ']') return { ok: false, error: `expected ] but got ${close}` };
    } else if (tok === '.') {
      const name = toks[++i];
      if (name === undefined) return { ok: false, error: 'unexpected end of JSON path' };
      const error = append(name);
      if (error !== undefined) return { ok: false, error };
    } else {
      return { ok: false, error: `expected [ or . but got: ${tok}` };
    }
  }
  return { ok: true, path, root, schema: current };
}
