// YAML answers written as kube-apiserver writes them: sigs.k8s.io/yaml's JSONToYAML, that is go-yaml v2's emitter over the JSON value.
//
// What that gives, and what this writer reproduces (checked against kubectl 1.32's `-o yaml`,
// which writes with the same library): keys sorted by go-yaml's key order (runs of digits
// compared as numbers, other characters before letters); a sequence in a mapping written
// at its key's indentation; strings YAML 1.1 would read as something else double-quoted
// ("yes", "0755", "1:20", "2024-01-02", ""); strings with a line break as literal blocks
// (`|`, `|-`, `|+`); plain, single- and double-quoted scalars folded at 80 columns; tabs,
// control characters and characters outside the Basic Multilingual Plane escaped in
// double quotes; numbers as Go writes them after reading the JSON text (1e+21, 1.5e-07).
// This is a port of the emitter's states for the events a JSON value produces, written
// as a loop with its own stack so that no nesting is too deep for it.
import { formatGoFloat, isBase60Float, resolveScalar } from './yaml-resolve.ts';

/** go-yaml's defaults: two spaces of indentation, lines folded past 80 columns. */
const bestIndent = 2;
const bestWidth = 80;
/** The longest key (in UTF-8 bytes) written as a simple key; longer ones are written `? key`. */
const maxSimpleKeyBytes = 128;

/** Scalar styles, as go-yaml asks for them and the emitter settles them. */
type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

/** Where a node is written, as the emitter's contexts say it. */
interface NodeContext {
  mapping: boolean;
  simpleKey: boolean;
}

interface EmitterState {
  out: string[];
  /** Characters written on the current line. */
  column: number;
  indent: number;
  indents: number[];
  /** Whether the last character written was whitespace (no space needed before an indicator). */
  whitespace: boolean;
  /** Whether only indentation was written on the current line since its break. */
  indention: boolean;
}

/** A mapping or a sequence whose entries are being written. */
type Frame =
  | { kind: 'mapping'; value: Record<string, unknown>; keys: string[]; next: number }
  | { kind: 'sequence'; value: unknown[]; next: number };

/** `value` (JSON data) as YAML text, as upstream's YAML serializer writes it. */
export function encodeYaml(value: unknown): string {
  const e: EmitterState = { out: [], column: 0, indent: -1, indents: [], whitespace: true, indention: true };
  const stack: Frame[] = [];
  startNode(e, stack, jsonForm(value, ''), { mapping: false, simpleKey: false });
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.kind === 'sequence') {
      if (frame.next === frame.value.length) {
        endBlock(e, stack);
        continue;
      }
      writeIndent(e);
      writeIndicator(e, '-', true, false, true);
      startNode(e, stack, jsonForm(frame.value[frame.next], String(frame.next++)) ?? null, { mapping: false, simpleKey: false });
      continue;
    }
    if (frame.next === frame.keys.length) {
      endBlock(e, stack);
      continue;
    }
    const key = frame.keys[frame.next++]!;
    const keyScalar = stringScalar(key, false);
    writeIndent(e);
    if (!keyScalar.multiline && Buffer.byteLength(key) <= maxSimpleKeyBytes) {
      writeScalar(e, keyScalar, { mapping: true, simpleKey: true });
      writeIndicator(e, ':', false, false, false);
    } else {
      writeIndicator(e, '?', true, false, true);
      writeScalar(e, keyScalar, { mapping: true, simpleKey: false });
      writeIndent(e);
      writeIndicator(e, ':', true, false, true);
    }
    startNode(e, stack, jsonForm(frame.value[key], key), { mapping: true, simpleKey: false });
  }
  // The implicit document end: a final line break.
  writeIndent(e);
  return e.out.join('');
}

/** A member as JSON.stringify sees it: after its toJSON; undefined when it writes none. */
function jsonForm(value: unknown, key: string): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  return typeof value === 'function' || typeof value === 'symbol' ? undefined : value;
}

/** Writes a scalar, or an empty collection (in flow style: `{}`, `[]`), or opens a block collection. */
function startNode(e: EmitterState, stack: Frame[], value: unknown, ctx: NodeContext): void {
  if (Array.isArray(value)) {
    if (value.length === 0) return writeEmpty(e, '[]');
    // A sequence that is a mapping's value goes at its key's indentation.
    increaseIndent(e, false, ctx.mapping && !e.indention);
    stack.push({ kind: 'sequence', value, next: 0 });
    return;
  }
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object).filter((k) => jsonForm(object[k], k) !== undefined).sort(compareKeys);
    if (keys.length === 0) return writeEmpty(e, '{}');
    increaseIndent(e, false, false);
    stack.push({ kind: 'mapping', value: object, keys, next: 0 });
    return;
  }
  writeScalar(e, scalarOf(value), ctx);
}

function endBlock(e: EmitterState, stack: Frame[]): void {
  e.indent = e.indents.pop()!;
  stack.pop();
}

/** An empty flow collection: its opening indicator (after a space), then its closing one. */
function writeEmpty(e: EmitterState, brackets: '[]' | '{}'): void {
  writeIndicator(e, brackets[0]!, true, true, false);
  writeIndicator(e, brackets[1]!, false, false, false);
}

function increaseIndent(e: EmitterState, flow: boolean, indentless: boolean): void {
  e.indents.push(e.indent);
  if (e.indent < 0) e.indent = flow ? bestIndent : 0;
  else if (!indentless) e.indent += bestIndent;
}

function putBreak(e: EmitterState): void {
  e.out.push('\n');
  e.column = 0;
}

function put(e: EmitterState, text: string): void {
  e.out.push(text);
  e.column++;
}

function writeIndent(e: EmitterState): void {
  const indent = Math.max(e.indent, 0);
  if (!e.indention || e.column > indent || (e.column === indent && !e.whitespace)) putBreak(e);
  if (e.column < indent) {
    e.out.push(' '.repeat(indent - e.column));
    e.column = indent;
  }
  e.whitespace = true;
  e.indention = true;
}

function writeIndicator(e: EmitterState, indicator: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
  if (needWhitespace && !e.whitespace) put(e, ' ');
  e.out.push(indicator);
  e.column += indicator.length;
  e.whitespace = isWhitespace;
  e.indention = e.indention && isIndention;
}

/** A scalar's text, the style go-yaml asks for, and the emitter's analysis of the text. */
interface ScalarData {
  chars: string[];
  requested: ScalarStyle;
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

function scalarOf(value: unknown): ScalarData {
  if (typeof value === 'string') return stringScalar(value);
  if (typeof value === 'number') return analyze(numberText(value), 'plain');
  if (typeof value === 'boolean') return analyze(String(value), 'plain');
  if (typeof value === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
  return analyze('null', 'plain');
}

/**
 * A string as go-yaml's encoder asks for it: a literal block when it has a line feed,
 * else plain when it would read back as the same string (not a YAML 1.1 bool, null,
 * number or timestamp, nor sexagesimal), else double-quoted. Lone surrogates are U+FFFD,
 * as encoding/json writes them; a value's NELs are folded (foldNextLines), a key's not.
 */
function stringScalar(value: string, isValue = true): ScalarData {
  const well = value.toWellFormed();
  const text = isValue ? foldNextLines(well) : well;
  const plain = resolveScalar(text).tag === 'str' && !isBase60Float(text);
  return analyze(text, text.includes('\n') ? 'literal' : plain ? 'plain' : 'double');
}

/**
 * A string value as go-yaml reads it back from the JSON text JSONToYAML starts from:
 * encoding/json leaves U+0085 (NEL) unescaped, and in a double-quoted YAML 1.1 scalar it is
 * a line break, folded with the spaces around it: one into a space, more into one line feed
 * fewer. (In a key it makes a multi-line key, which go-yaml refuses: upstream's answer
 * fails; here such a key is written escaped.)
 */
function foldNextLines(text: string): string {
  if (!text.includes('\u0085')) return text;
  return text.replace(/ *\u0085[ \u0085]*/g, (run) => {
    const breaks = run.split('\u0085').length - 1;
    return breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
  });
}

/**
 * A number as go-yaml writes what it reads of the number's JSON text: an integer in
 * int64 or uint64 range as its digits; anything else as a float64 in Go's shortest form
 * (1e+21, 1.2345675e+06, 1e-06).
 */
function numberText(value: number): string {
  if (!Number.isFinite(value)) return 'null'; // JSON's null, as JSON.stringify writes it
  const json = String(value);
  if (/^-?[0-9]+$/.test(json)) {
    const integer = BigInt(json);
    if (integer >= -(1n << 63n) && integer < 1n << 64n) return integer.toString();
  }
  return formatGoFloat(value);
}

/** Characters YAML may carry unescaped, as the emitter's is_printable has them (no tab, nothing past U+FFFF). */
function isPrintable(c: number): boolean {
  return c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
}

function isBreak(c: string | undefined): boolean {
  return c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
}

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

/** The emitter's analysis of a scalar: which styles may write it. */
function analyze(text: string, requested: ScalarStyle): ScalarData {
  const chars = Array.from(text);
  if (chars.length === 0) {
    return { chars, requested, multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  let blockIndicators = text.startsWith('---') || text.startsWith('...');
  let lineBreaks = false;
  let specialCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const followedByWhitespace = i + 1 >= chars.length || isBlank(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      else if ((c === '?' || c === ':' || c === '-') && followedByWhitespace) blockIndicators = true;
    } else if ((c === ':' && followedByWhitespace) || (c === '#' && precededByWhitespace)) {
      blockIndicators = true;
    }
    if (!isPrintable(c.codePointAt(0)!)) specialCharacters = true;
    if (c === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(c) || isBreak(c) || c === '\0';
  }
  const blockPlainAllowed = !(leadingSpace || leadingBreak || trailingSpace || trailingBreak || breakSpace || spaceBreak || specialCharacters || lineBreaks || blockIndicators);
  const singleQuotedAllowed = !(breakSpace || spaceBreak || specialCharacters);
  const blockAllowed = !(trailingSpace || spaceBreak || specialCharacters);
  return { chars, requested, multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

/** The style the emitter settles on for a scalar in its context (yaml_emitter_select_scalar_style, block context). */
function selectStyle(s: ScalarData, ctx: NodeContext): ScalarStyle {
  let style = s.requested;
  if (ctx.simpleKey && s.multiline) style = 'double';
  if (style === 'plain' && (!s.blockPlainAllowed || (s.chars.length === 0 && ctx.simpleKey))) style = 'single';
  if (style === 'single' && !s.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!s.blockAllowed || ctx.simpleKey)) style = 'double';
  return style;
}

function writeScalar(e: EmitterState, s: ScalarData, ctx: NodeContext): void {
  const style = selectStyle(s, ctx);
  increaseIndent(e, true, false);
  const allowBreaks = !ctx.simpleKey;
  if (style === 'plain') writePlain(e, s.chars, allowBreaks);
  else if (style === 'single') writeSingleQuoted(e, s.chars, allowBreaks);
  else if (style === 'double') writeDoubleQuoted(e, s.chars, allowBreaks);
  else writeLiteral(e, s.chars);
  e.indent = e.indents.pop()!;
}

/** A line break inside a scalar: a line feed as the output's break, others written as they are. */
function writeBreak(e: EmitterState, c: string): void {
  if (c === '\n') putBreak(e);
  else {
    e.out.push(c);
    e.column = 0;
  }
}

function writePlain(e: EmitterState, chars: string[], allowBreaks: boolean): void {
  if (!e.whitespace) put(e, ' ');
  let spaces = false;
  let breaks = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === ' ') {
      // Folded at the first space of a run past the width, unless another space follows.
      if (allowBreaks && !spaces && e.column > bestWidth && chars[i + 1] !== ' ') writeIndent(e);
      else put(e, c);
      spaces = true;
    } else if (isBreak(c)) {
      if (!breaks && c === '\n') putBreak(e);
      writeBreak(e, c);
      e.indention = true;
      breaks = true;
    } else {
      if (breaks) writeIndent(e);
      put(e, c);
      e.indention = false;
      spaces = false;
      breaks = false;
    }
  }
  e.whitespace = false;
  e.indention = false;
}

function writeSingleQuoted(e: EmitterState, chars: string[], allowBreaks: boolean): void {
  writeIndicator(e, "'", true, false, false);
  let spaces = false;
  let breaks = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === ' ') {
      if (allowBreaks && !spaces && e.column > bestWidth && i > 0 && i < chars.length - 1 && chars[i + 1] !== ' ') writeIndent(e);
      else put(e, c);
      spaces = true;
    } else if (isBreak(c)) {
      if (!breaks && c === '\n') putBreak(e);
      writeBreak(e, c);
      e.indention = true;
      breaks = true;
    } else {
      if (breaks) writeIndent(e);
      if (c === "'") put(e, "'");
      put(e, c);
      e.indention = false;
      spaces = false;
      breaks = false;
    }
  }
  writeIndicator(e, "'", false, false, false);
  e.whitespace = false;
  e.indention = false;
}

/** Escapes go-yaml writes by name; other characters that need one are \xXX, \uXXXX or \UXXXXXXXX (upper-case hex). */
const namedEscapes = new Map<number, string>([
  [0x00, '0'], [0x07, 'a'], [0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0b, 'v'], [0x0c, 'f'], [0x0d, 'r'], [0x1b, 'e'],
  [0x22, '"'], [0x5c, '\\'], [0x85, 'N'], [0xa0, '_'], [0x2028, 'L'], [0x2029, 'P'],
]);

function escapeOf(code: number): string {
  const named = namedEscapes.get(code);
  if (named !== undefined) return `\\${named}`;
  const hex = code.toString(16).toUpperCase();
  if (code <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}

function writeDoubleQuoted(e: EmitterState, chars: string[], allowBreaks: boolean): void {
  writeIndicator(e, '"', true, false, false);
  let spaces = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const code = c.codePointAt(0)!;
    if (!isPrintable(code) || code === 0xfeff || isBreak(c) || c === '"' || c === '\\') {
      const escape = escapeOf(code);
      e.out.push(escape);
      e.column += escape.length;
      spaces = false;
    } else if (c === ' ') {
      if (allowBreaks && !spaces && e.column > bestWidth && i > 0 && i < chars.length - 1) {
        writeIndent(e);
        // A space that starts the next line would fold away: escaped.
        if (chars[i + 1] === ' ') put(e, '\\');
      } else {
        put(e, c);
      }
      spaces = true;
    } else {
      put(e, c);
      spaces = false;
    }
  }
  writeIndicator(e, '"', false, false, false);
  e.whitespace = false;
  e.indention = false;
}

function writeLiteral(e: EmitterState, chars: string[]): void {
  writeIndicator(e, '|', true, false, false);
  // An indentation indicator when the text starts with a space or a break; chomping by its trailing breaks.
  if (chars[0] === ' ' || isBreak(chars[0])) writeIndicator(e, String(bestIndent), false, false, false);
  const last = chars.length - 1;
  const chomp = !isBreak(chars[last]) ? '-' : last === 0 || isBreak(chars[last - 1]) ? '+' : '';
  if (chomp !== '') writeIndicator(e, chomp, false, false, false);
  putBreak(e);
  e.indention = true;
  e.whitespace = true;
  let breaks = true;
  for (const c of chars) {
    if (isBreak(c)) {
      writeBreak(e, c);
      e.indention = true;
      breaks = true;
    } else {
      if (breaks) writeIndent(e);
      put(e, c);
      e.indention = false;
      breaks = false;
    }
  }
}

/**
 * go-yaml's order of map keys (its keyList.Less over strings): compared character by
 * character; letters after other characters; where neither is a letter, the runs of
 * digits starting there compare as numbers (shorter first when equal).
 */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  return keyLess(a, b) ? -1 : keyLess(b, a) ? 1 : 0;
}

const letter = /^\p{L}$/u;
const digit = /^\p{Nd}$/u;

function keyLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = letter.test(ar[i]!);
    const bl = letter.test(br[i]!);
    if (al && bl) return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
    if (al || bl) return bl;
    // Numbers: a run that follows non-zero digits counts its leading zeros.
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && digit.test(ar[j]!); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && digit.test(ar[ai]!); ai++) an = BigInt.asIntN(64, an * 10n + BigInt(ar[ai]!.codePointAt(0)! - 0x30));
    let bi = i;
    for (; bi < br.length && digit.test(br[bi]!); bi++) bn = BigInt.asIntN(64, bn * 10n + BigInt(br[bi]!.codePointAt(0)! - 0x30));
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i]!.codePointAt(0)! < br[i]!.codePointAt(0)!;
  }
  return ar.length < br.length;
}
