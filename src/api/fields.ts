// Field selectors, as k8s.io/apimachinery/pkg/fields defines them: comma-separated terms
// `key=value`, `key==value`, `key!=value`; values escape `\`, `,` and `=` with a backslash.

import { badRequest } from './errors.ts';

interface FieldTerm {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/** A parsed field selector: every term must hold. */
export interface FieldSelector {
  terms: FieldTerm[];
}

/** The field labels every type supports when it declares none of its own (upstream's DefaultMetaV1FieldSelectorConversion). */
const defaultFieldLabels: readonly string[] = Object.freeze(['metadata.name', 'metadata.namespace']);

function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

// '==' is tried before '=' so that it does not leave a '=' on the value.
const termOperators = ['!=', '==', '='] as const;

function splitTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const remaining = term.slice(i);
    for (const op of termOperators) {
      if (remaining.startsWith(op)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

class FieldSelectorError extends Error {}

/** Upstream's UnescapeValue, with its error messages (a rune prints as its code point). */
function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw new FieldSelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new FieldSelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Escapes a value for a field selector string (upstream's EscapeValue). */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Parses a field selector string. Unparsable input throws a 400 BadRequest with
 * upstream's message. Whitespace is significant, as upstream: `a = b` selects field "a ".
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const parts = splitTerms(selector).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const terms: FieldTerm[] = [];
  try {
    for (const part of parts) {
      if (part === '') continue;
      const split = splitTerm(part);
      if (split === undefined) throw new FieldSelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
      const value = unescapeValue(split.rhs);
      terms.push({ field: split.lhs, operator: split.op === '!=' ? '!=' : '=', value });
    }
  } catch (err) {
    if (err instanceof FieldSelectorError) throw badRequest(err.message);
    throw err;
  }
  return { terms };
}

/** A selector requiring each field to equal the given value (upstream's fields.SelectorFromSet). */
export function fieldSelectorFromSet(set: Record<string, string>): FieldSelector {
  return { terms: Object.keys(set).sort().map((field) => ({ field, operator: '=' as const, value: set[field]! })) };
}

/** True when every term holds; a field the object lacks has the value "". */
export function matchFields(selector: FieldSelector, fields: Record<string, string>): boolean {
  return selector.terms.every((t) => {
    const actual = Object.hasOwn(fields, t.field) ? fields[t.field] : '';
    return t.operator === '=' ? actual === t.value : actual !== t.value;
  });
}

/**
 * A type's field label conversion (upstream's AddFieldLabelConversionFunc) where it is more
 * than the list of labels it accepts.
 */
export interface FieldLabelConversion {
  /** Labels accepted under an old name and selected under the new one (pods' `spec.host`). */
  renamed?: Readonly<Record<string, string>>;
  /** The error for a label it does not support, when not `field label not supported: LABEL`. */
  notSupported?(label: string): string;
}

/**
 * Rejects terms on fields the type does not support, with upstream's 400 messages:
 * types with their own field labels answer `field label not supported: KEY` (or their
 * conversion's words); the rest (`supported` undefined) answer like
 * DefaultMetaV1FieldSelectorConversion. Answers the selector with renamed labels replaced,
 * as upstream's Selector.Transform.
 */
export function convertFieldSelector(selector: FieldSelector, supported?: readonly string[], conversion: FieldLabelConversion = {}): FieldSelector {
  const terms = selector.terms.map((term) => {
    if (supported === undefined) {
      if (!defaultFieldLabels.includes(term.field)) {
        throw badRequest(`"${term.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
      }
      return term;
    }
    const renamed = conversion.renamed !== undefined && Object.hasOwn(conversion.renamed, term.field) ? conversion.renamed[term.field] : undefined;
    if (renamed !== undefined) return { ...term, field: renamed };
    if (!supported.includes(term.field)) throw badRequest(conversion.notSupported?.(term.field) ?? `field label not supported: ${term.field}`);
    return term;
  });
  return { terms };
}

/** convertFieldSelector for its errors alone. */
export function checkFieldSelectorKeys(selector: FieldSelector, supported?: readonly string[]): void {
  convertFieldSelector(selector, supported);
}

/** The value a selector pins `field` to, when it has an `=` term for it (upstream's RequiresExactMatch). */
export function fieldRequiresExactMatch(selector: FieldSelector, field: string): string | undefined {
  for (const t of selector.terms) if (t.field === field && t.operator === '=') return t.value;
  return undefined;
}

/** The canonical string form (terms sorted, values escaped). */
export function fieldSelectorString(selector: FieldSelector): string {
  return selector.terms.map((t) => `${t.field}${t.operator}${escapeFieldValue(t.value)}`).join(',');
}
