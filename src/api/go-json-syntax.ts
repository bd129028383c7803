// Go's encoding/json syntax errors, word for word: what json.Unmarshal says of text that is
// not JSON (`invalid character 'o' looking for beginning of object key string`,
// `unexpected end of JSON input`). Upstream's messages carry them wherever it decodes JSON
// it was sent: a request body's kind sniffing, a webhook's answer, a kubelet's error stream.
// JavaScript's parser finds the same faults but words them its own way; this scanner walks
// the bytes as Go's does (its states and their names for where it was) only once a parse
// has failed.

/** Go's limit on nesting (encoding/json's maxNestingDepth). */
const maxNestingDepth = 10_000;

/** What an open object or array expects next (Go's parse states). */
const Expect = { ObjectKey: 0, ObjectValue: 1, ArrayValue: 2 } as const;
type Expect = (typeof Expect)[keyof typeof Expect];

/**
 * Go's syntax error for `bytes` (UTF-8), or undefined when Go's scanner accepts them. Go
 * checks the whole text before decoding, so this is the error json.Unmarshal returns first.
 */
export function goJsonSyntaxError(bytes: Uint8Array): string | undefined {
  const stack: Expect[] = [];
  let step: (c: number) => string | undefined;
  let endTop = false;
  let error: string | undefined;
  const fail = (c: number, context: string): string => `invalid character ${quoteChar(c)} ${context}`;
  const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
  const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
  const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

  const push = (c: number, expect: Expect): string | undefined => {
    stack.push(expect);
    return stack.length > maxNestingDepth ? fail(c, 'exceeded max depth') : undefined;
  };
  const endValue = (c: number): string | undefined => {
    if (stack.length === 0) {
      endTop = true;
      step = endTopStep;
      return endTopStep(c);
    }
    if (isSpace(c)) {
      step = endValue;
      return undefined;
    }
    const top = stack[stack.length - 1]!;
    if (top === Expect.ObjectKey) {
      if (c !== 0x3a /* : */) return fail(c, 'after object key');
      stack[stack.length - 1] = Expect.ObjectValue;
      step = beginValue;
      return undefined;
    }
    if (top === Expect.ObjectValue) {
      if (c === 0x2c /* , */) {
        stack[stack.length - 1] = Expect.ObjectKey;
        step = beginString;
        return undefined;
      }
      if (c === 0x7d /* } */) {
        stack.pop();
        step = endValue;
        return undefined;
      }
      return fail(c, 'after object key:value pair');
    }
    if (c === 0x2c) {
      step = beginValue;
      return undefined;
    }
    if (c === 0x5d /* ] */) {
      stack.pop();
      step = endValue;
      return undefined;
    }
    return fail(c, 'after array element');
  };
  const endTopStep = (c: number): string | undefined => (isSpace(c) ? undefined : fail(c, 'after top-level value'));
  const beginValue = (c: number): string | undefined => {
    if (isSpace(c)) return undefined;
    switch (c) {
      case 0x7b: // {
        step = beginStringOrEmpty;
        return push(c, Expect.ObjectKey);
      case 0x5b: // [
        step = beginValueOrEmpty;
        return push(c, Expect.ArrayValue);
      case 0x22: // "
        step = inString;
        return undefined;
      case 0x2d: // -
        step = neg;
        return undefined;
      case 0x30: // 0
        step = zero;
        return undefined;
      case 0x74: // t
        step = literal('true', 1);
        return undefined;
      case 0x66: // f
        step = literal('false', 1);
        return undefined;
      case 0x6e: // n
        step = literal('null', 1);
        return undefined;
    }
    if (c >= 0x31 && c <= 0x39) {
      step = digits;
      return undefined;
    }
    return fail(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty = (c: number): string | undefined => {
    if (isSpace(c)) return undefined;
    if (c === 0x5d) return endValue(c);
    return beginValue(c);
  };
  const beginStringOrEmpty = (c: number): string | undefined => {
    if (isSpace(c)) return undefined;
    if (c === 0x7d) {
      stack[stack.length - 1] = Expect.ObjectValue;
      return endValue(c);
    }
    return beginString(c);
  };
  const beginString = (c: number): string | undefined => {
    if (isSpace(c)) return undefined;
    if (c === 0x22) {
      step = inString;
      return undefined;
    }
    return fail(c, 'looking for beginning of object key string');
  };
  const inString = (c: number): string | undefined => {
    if (c === 0x22) {
      step = endValue;
      return undefined;
    }
    if (c === 0x5c /* \ */) {
      step = inStringEscape;
      return undefined;
    }
    return c < 0x20 ? fail(c, 'in string literal') : undefined;
  };
  const inStringEscape = (c: number): string | undefined => {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) {
      step = inString;
      return undefined;
    }
    if (c === 0x75 /* u */) {
      step = hexDigits(4);
      return undefined;
    }
    return fail(c, 'in string escape code');
  };
  const hexDigits = (left: number) => (c: number): string | undefined => {
    if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
    step = left === 1 ? inString : hexDigits(left - 1);
    return undefined;
  };
  const neg = (c: number): string | undefined => {
    if (c === 0x30) {
      step = zero;
      return undefined;
    }
    if (c >= 0x31 && c <= 0x39) {
      step = digits;
      return undefined;
    }
    return fail(c, 'in numeric literal');
  };
  const digits = (c: number): string | undefined => (isDigit(c) ? undefined : zero(c));
  const zero = (c: number): string | undefined => {
    if (c === 0x2e /* . */) {
      step = dot;
      return undefined;
    }
    if (c === 0x65 || c === 0x45) {
      step = exponent;
      return undefined;
    }
    return endValue(c);
  };
  const dot = (c: number): string | undefined => {
    if (!isDigit(c)) return fail(c, 'after decimal point in numeric literal');
    step = fraction;
    return undefined;
  };
  const fraction = (c: number): string | undefined => {
    if (isDigit(c)) return undefined;
    if (c === 0x65 || c === 0x45) {
      step = exponent;
      return undefined;
    }
    return endValue(c);
  };
  const exponent = (c: number): string | undefined => {
    if (c === 0x2b || c === 0x2d) {
      step = exponentSign;
      return undefined;
    }
    return exponentSign(c);
  };
  const exponentSign = (c: number): string | undefined => {
    if (!isDigit(c)) return fail(c, 'in exponent of numeric literal');
    step = exponentDigits;
    return undefined;
  };
  const exponentDigits = (c: number): string | undefined => (isDigit(c) ? undefined : endValue(c));
  /** The rest of `true`, `false` or `null`, from its `at`th letter. */
  const literal = (word: string, at: number) => (c: number): string | undefined => {
    if (c !== word.charCodeAt(at)) return fail(c, `in literal ${word} (expecting ${quoteChar(word.charCodeAt(at))})`);
    step = at + 1 === word.length ? endValue : literal(word, at + 1);
    return undefined;
  };

  step = beginValue;
  for (let i = 0; i < bytes.length; i++) {
    error = step(bytes[i]!);
    if (error !== undefined) return error;
  }
  // The end: Go feeds its scanner a space, which ends a number or a literal's fault, then
  // calls any other unfinished value an unexpected end.
  if (endTop) return undefined;
  error = step(0x20);
  if (error !== undefined) return error;
  return endTop ? undefined : 'unexpected end of JSON input';
}

/**
 * Go's quoteChar: a byte in single quotes, escaped as strconv.Quote escapes the rune of the
 * same number (a byte of a multi-byte character reads as Latin-1), but `'` and `"` bare.
 */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const named: Record<number, string> = { 0x07: '\\a', 0x08: '\\b', 0x0c: '\\f', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x0b: '\\v', 0x5c: '\\\\' };
  if (named[c] !== undefined) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // Not printable to Go: the C1 controls, the no-break space (a space, but not ASCII's), the soft hyphen.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u00${c.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}
