// Label selectors and the label key/value rules, as k8s.io/apimachinery/pkg/labels and
// pkg/util/validation define them. The watch cache and the registry both match with them.

import { badRequest } from './errors.ts';
import { goJson, invalid, required, type GoValue } from './field-errors.ts';
import type { StatusCause } from './types.ts';
import { isObject } from './json.ts';

type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted and without duplicates, like upstream's sets.String. */
  values: string[];
}

/**
 * A parsed label selector: every requirement must match. `matchesNothing` is upstream's
 * labels.Nothing() (a nil metav1.LabelSelector), which no object matches.
 */
export interface LabelSelector {
  requirements: LabelRequirement[];
  matchesNothing?: boolean;
}

/** metav1.LabelSelector, the object form used by Deployments and others. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

const everything: LabelSelector = Object.freeze({ requirements: [] }) as LabelSelector;
const nothing: LabelSelector = Object.freeze({ requirements: [], matchesNothing: true }) as LabelSelector;

// ---- name rules shared with the registry (apimachinery/pkg/util/validation) ----

const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);
const dns1123SubdomainErrorMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/**
 * Upstream's RegexError: the message, examples, and the regex used. Each example ends in
 * "', " and they are joined with " or ", so upstream's text has a double space there.
 */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** Byte length, as Go's len() counts a string. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRegexp.test(value)) errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

const labelKeyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelKeyRegexp = new RegExp(`^${labelKeyFmt}$`);
const labelKeyErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** A label key ("qualified name"): optional DNS subdomain prefix and '/', then a name of at most 63 characters. */
const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1123LabelRegexp.test(value)) {
    // A valid subdomain that is not a valid label (length already checked) has dots.
    if (dns1123SubdomainRegexp.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, 'my-name', '123-abc'));
  }
  return errs;
}

/**
 * Go's IsFullyQualifiedDomainName (a trailing dot allowed, at least two labels): undefined,
 * `required` for an empty name, or the bad value (the name, or its first bad label) and detail.
 */
export function fullyQualifiedDomainNameError(name: string): 'required' | { value: string; detail: string } | undefined {
  if (name === '') return 'required';
  const trimmed = name.endsWith('.') ? name.slice(0, -1) : name;
  const errs = isDNS1123Subdomain(trimmed);
  if (errs.length > 0) return { value: trimmed, detail: errs.join(',') };
  const labels = trimmed.split('.');
  if (labels.length < 2) return { value: trimmed, detail: 'should be a domain with at least two segments separated by dots' };
  for (const label of labels) {
    const labelErrs = isDNS1123Label(label);
    if (labelErrs.length > 0) return { value: label, detail: labelErrs.join(',') };
  }
  return undefined;
}

const dns1035LabelFmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035LabelRegexp = new RegExp(`^${dns1035LabelFmt}$`);
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!dns1035LabelRegexp.test(value)) errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, 'my-name', 'abc-123'));
  return errs;
}

export function isLabelKey(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a valid label key ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!labelKeyRegexp.test(name)) errs.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!labelValueRegexp.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

// ---- requirements ----

/** Go's %q for the strings in selector error messages. */
function quote(s: string): string {
  return JSON.stringify(s);
}

/**
 * A requirement's values as a bad value: JSON, and `null` when there are none (only a
 * metav1.LabelSelector gets these errors, and LabelSelectorAsSelector hands its values
 * over as a copy appended to a nil slice).
 */
function goStringSlice(values: string[]): string {
  return values.length === 0 ? 'null' : goJson(values).text;
}

/** Upstream's NewRequirement checks; returns error strings formatted like field errors with a nil path. */
function requirementErrors(key: string, operator: LabelOperator, values: string[]): string[] {
  const errs: string[] = [];
  const keyErrs = isLabelKey(key);
  if (keyErrs.length > 0) errs.push(`key: Invalid value: ${quote(key)}: ${keyErrs.join('; ')}`);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(`values: Invalid value: ${goStringSlice(values)}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(`values: Invalid value: ${goStringSlice(values)}: exact-match compatibility requires one single value`);
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(`values: Invalid value: ${goStringSlice(values)}: values set must be empty for exists and does not exist`);
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(`values: Invalid value: ${goStringSlice(values)}: for 'Gt', 'Lt' operators, exactly one value is required`);
      values.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v)) errs.push(`values[${i}]: Invalid value: ${quote(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isLabelValue(v);
    if (valueErrs.length > 0) errs.push(`values[${i}][${key}]: Invalid value: ${quote(v)}: ${valueErrs.join('; ')}`);
  });
  return errs;
}

/** An aggregate of errors, printed like upstream's utilerrors.Aggregate. */
function aggregate(errs: string[]): string {
  const unique = [...new Set(errs)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

function sortedUnique(values: string[]): string[] {
  return [...new Set(values)].sort(compareStrings);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortRequirements(reqs: LabelRequirement[]): LabelRequirement[] {
  // Stable sort by key, like sort.Sort(ByKey) for distinct keys.
  return reqs.map((r, i) => [r, i] as const).sort((a, b) => compareStrings(a[0].key, b[0].key) || a[1] - b[1]).map(([r]) => r);
}

// ---- lexer and parser (apimachinery/pkg/labels/selector.go) ----

type Token =
  | 'error' | 'end' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';

const literalTokens: Record<string, Token> = {
  ')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', in: 'in', '<': '<', '!=': '!=', notin: 'notin', '(': '(',
};

interface Scanned {
  tok: Token;
  lit: string;
}

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function isSpecialSymbol(ch: string): boolean {
  return ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<';
}

function lex(s: string): Scanned[] {
  const items: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'end', lit: '' });
      return items;
    }
    if (isSpecialSymbol(s[pos]!)) {
      let buffer = '';
      let last: Scanned | undefined;
      while (pos < s.length && isSpecialSymbol(s[pos]!)) {
        buffer += s[pos]!;
        const tok = literalTokens[buffer];
        if (tok !== undefined) {
          last = { tok, lit: buffer };
          pos++;
        } else if (last !== undefined) {
          break;
        } else {
          pos++;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
    } else {
      let buffer = '';
      while (pos < s.length && !isSpecialSymbol(s[pos]!) && !isWhitespace(s[pos]!)) buffer += s[pos++]!;
      const tok = literalTokens[buffer];
      items.push({ tok: tok ?? 'identifier', lit: buffer });
    }
  }
}

class SelectorParseError extends Error {}

class Parser {
  private readonly items: Scanned[];
  private position = 0;

  constructor(input: string) {
    this.items = lex(input);
  }

  /** In a values context the keywords 'in' and 'notin' are plain identifiers. */
  private lookahead(values: boolean): Scanned {
    return this.asContext(this.items[this.position]!, values);
  }

  private consume(values: boolean): Scanned {
    return this.asContext(this.items[this.position++]!, values);
  }

  private asContext(item: Scanned, values: boolean): Scanned {
    if (values && (item.tok === 'in' || item.tok === 'notin')) return { tok: 'identifier', lit: item.lit };
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      switch (tok) {
        case 'identifier':
        case '!': {
          let req: LabelRequirement;
          try {
            req = this.parseRequirement();
          } catch (err) {
            if (err instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${err.message}`);
            throw err;
          }
          requirements.push(req);
          const next = this.consume(true);
          if (next.tok === 'end') return requirements;
          if (next.tok === ',') {
            const after = this.lookahead(true);
            if (after.tok !== 'identifier' && after.tok !== '!') {
              throw new SelectorParseError(`found '${after.lit}', expected: identifier after ','`);
            }
            break;
          }
          throw new SelectorParseError(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
        case 'end':
          return requirements;
        default:
          throw new SelectorParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let operator: LabelOperator | undefined;
    let { tok, lit } = this.consume(true);
    if (tok === '!') {
      operator = '!';
      ({ tok, lit } = this.consume(true));
    }
    if (tok !== 'identifier') throw new SelectorParseError(`found '${lit}', expected: identifier`);
    const key = lit;
    const keyErrs = isLabelKey(key);
    if (keyErrs.length > 0) throw new SelectorParseError(`<nil>: Invalid value: ${quote(key)}: ${keyErrs.join('; ')}`);
    const after = this.lookahead(true).tok;
    if (after === 'end' || after === ',') {
      return newRequirement(key, operator ?? 'exists', []);
    }
    if (operator === '!') return newRequirement(key, '!', []);
    const op = this.parseOperator();
    let values: string[];
    if (op === 'in' || op === 'notin') values = this.parseValues();
    else values = this.parseExactValue();
    // Upstream hands over the parsed set as a sorted list.
    return newRequirement(key, op, sortedUnique(values));
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case 'in': return 'in';
      case '=': return '=';
      case '==': return '==';
      case '>': return 'gt';
      case '<': return 'lt';
      case 'notin': return 'notin';
      case '!=': return '!=';
      default:
        throw new SelectorParseError(`found '${lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private parseValues(): string[] {
    let { tok, lit } = this.consume(true);
    if (tok !== '(') throw new SelectorParseError(`found '${lit}' expected: '('`);
    ({ tok, lit } = this.lookahead(true));
    switch (tok) {
      case 'identifier':
      case ',': {
        const values = this.parseIdentifiersList();
        if (this.consume(true).tok !== ')') throw new SelectorParseError(`found '${lit}', expected: ')'`);
        return values;
      }
      case ')':
        this.consume(true);
        return [''];
      default:
        throw new SelectorParseError(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): string[] {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      switch (tok) {
        case 'identifier': {
          values.add(lit);
          const next = this.lookahead(true);
          if (next.tok === ',') continue;
          if (next.tok === ')') return [...values];
          throw new SelectorParseError(`found '${next.lit}', expected: ',' or ')'`);
        }
        case ',': {
          if (values.size === 0) values.add('');
          const next = this.lookahead(true).tok;
          if (next === ')') {
            values.add('');
            return [...values];
          }
          if (next === ',') values.add('');
          break;
        }
        default:
          throw new SelectorParseError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): string[] {
    const next = this.lookahead(true).tok;
    if (next === 'end' || next === ',') return [''];
    const { tok, lit } = this.consume(true);
    if (tok === 'identifier') return [lit];
    throw new SelectorParseError(`found '${lit}', expected: identifier`);
  }
}

/** Upstream's NewRequirement: the values are checked in the order given. */
function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs = requirementErrors(key, operator, values);
  if (errs.length > 0) throw new SelectorParseError(aggregate(errs));
  return { key, operator, values: sortedUnique(values) };
}

/**
 * Parses a label selector string (`a=b,c!=d,e in (f,g),!h,i`). Unparsable input throws a
 * 400 BadRequest with upstream's message.
 */
export function parseLabelSelector(selector: string): LabelSelector {
  try {
    return { requirements: sortRequirements(new Parser(selector).parse()) };
  } catch (err) {
    if (err instanceof SelectorParseError) throw badRequest(err.message);
    throw err;
  }
}

/**
 * Converts a metav1.LabelSelector to the parsed form, like upstream's
 * LabelSelectorAsSelector: undefined/null matches nothing, an empty selector everything.
 * Throws a 400 BadRequest for an invalid selector.
 */
export function labelSelectorFromObject(ls: LabelSelectorObject | null | undefined): LabelSelector {
  if (ls === undefined || ls === null) return nothing;
  // The object comes from user data, so any field may have the wrong JSON type. Read it the
  // way upstream's typed struct would hold it (a missing key is "", a missing list is empty)
  // so that a malformed selector fails its requirement checks instead of throwing a TypeError.
  const matchLabels = isObject(ls.matchLabels) ? ls.matchLabels : {};
  const matchExpressions: unknown[] = Array.isArray(ls.matchExpressions) ? ls.matchExpressions : [];
  if (Object.keys(matchLabels).length + matchExpressions.length === 0) return everything;
  const requirements: LabelRequirement[] = [];
  try {
    for (const [key, value] of Object.entries(matchLabels)) requirements.push(newRequirement(key, '=', [String(value)]));
    for (const raw of matchExpressions) {
      const expr = isObject(raw) ? raw : {};
      let op: LabelOperator;
      switch (expr.operator) {
        case 'In': op = 'in'; break;
        case 'NotIn': op = 'notin'; break;
        case 'Exists': op = 'exists'; break;
        case 'DoesNotExist': op = '!'; break;
        default:
          throw new SelectorParseError(`${quote(typeof expr.operator === 'string' ? expr.operator : '')} is not a valid label selector operator`);
      }
      const key = typeof expr.key === 'string' ? expr.key : '';
      const values = Array.isArray(expr.values) ? expr.values.map((v) => String(v)) : [];
      requirements.push(newRequirement(key, op, values));
    }
  } catch (err) {
    if (err instanceof SelectorParseError) throw badRequest(err.message);
    throw err;
  }
  return { requirements: sortRequirements(requirements) };
}

/**
 * A metav1.LabelSelector as json.Marshal writes it when it is a field error's bad value:
 * json names, empty parts left out (omitempty), `null` for none.
 */
export function labelSelectorJson(ls: unknown): GoValue {
  if (!isObject(ls)) return goJson(null);
  const out: Record<string, unknown> = {};
  if (isObject(ls.matchLabels) && Object.keys(ls.matchLabels).length > 0) {
    out.matchLabels = goJson(ls.matchLabels, true);
  }
  if (Array.isArray(ls.matchExpressions) && ls.matchExpressions.length > 0) {
    out.matchExpressions = ls.matchExpressions.map((raw) => {
      const expr = isObject(raw) ? raw : {};
      const values = Array.isArray(expr.values) && expr.values.length > 0 ? { values: expr.values } : {};
      return { key: expr.key ?? '', operator: expr.operator ?? '', ...values };
    });
  }
  return goJson(out);
}

/** A selector matching exactly the given labels (upstream's SelectorFromSet). */
export function labelSelectorFromSet(set: Record<string, string>): LabelSelector {
  return {
    requirements: sortRequirements(Object.entries(set).map(([key, value]) => ({ key, operator: '=' as const, values: [value] }))),
  };
}

export function isEverything(selector: LabelSelector): boolean {
  return !selector.matchesNothing && selector.requirements.length === 0;
}

function hasValue(req: LabelRequirement, value: string): boolean {
  return req.values.includes(value);
}

function parseInteger(s: string): bigint | undefined {
  return /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined;
}

function requirementMatches(req: LabelRequirement, labels: Record<string, string>): boolean {
  const exists = Object.hasOwn(labels, req.key);
  switch (req.operator) {
    case 'in':
    case '=':
    case '==':
      return exists && hasValue(req, labels[req.key]!);
    case 'notin':
    case '!=':
      return !exists || !hasValue(req, labels[req.key]!);
    case 'exists':
      return exists;
    case '!':
      return !exists;
    case 'gt':
    case 'lt': {
      if (!exists || req.values.length !== 1) return false;
      const actual = parseInteger(labels[req.key]!);
      const bound = parseInteger(req.values[0]!);
      if (actual === undefined || bound === undefined) return false;
      return req.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** True when every requirement matches the labels (absent labels count as none). */
export function matchLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  if (selector.matchesNothing) return false;
  const set = labels ?? {};
  return selector.requirements.every((r) => requirementMatches(r, set));
}

/** The value a selector requires for `key`, when it pins one exactly (upstream's RequiresExactMatch). */
export function labelRequiresExactMatch(selector: LabelSelector, key: string): string | undefined {
  for (const r of selector.requirements) {
    if (r.key !== key) continue;
    if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
    return undefined;
  }
  return undefined;
}

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists': return r.key;
    case '!': return `!${r.key}`;
    case 'in': return `${r.key} in (${r.values.join(',')})`;
    case 'notin': return `${r.key} notin (${r.values.join(',')})`;
    case 'gt': return `${r.key}>${r.values.join(',')}`;
    case 'lt': return `${r.key}<${r.values.join(',')}`;
    default: return `${r.key}${r.operator}${r.values.join(',')}`;
  }
}

/** The canonical string form, as upstream's Selector.String() (used for Scale's status.selector). */
export function labelSelectorString(selector: LabelSelector): string {
  if (selector.matchesNothing) return '';
  return selector.requirements.map(requirementString).join(',');
}

const httpPathFmt = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRegexp = new RegExp(`^${httpPathFmt}$`);

/** validation.IsDomainPrefixedPath: `<DNS subdomain>/<path>` (an IngressClass's controller, an extra key). */
export function isDomainPrefixedPath(value: string, path: string): StatusCause[] {
  if (value === '') return [required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') return [invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const causes = isDNS1123Subdomain(host).map((msg) => invalid(path, host, msg));
  if (!httpPathRegexp.test(rest)) causes.push(invalid(path, rest, regexError('Invalid path', httpPathFmt)));
  return causes;
}
