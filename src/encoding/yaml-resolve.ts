// YAML scalars resolved as go-yaml v2 resolves them (YAML 1.1: yes/no/on/off, 0755 octal, 1_000), which is what kube-apiserver reads in YAML bodies and quotes in YAML answers.
//
// Upstream reads and writes YAML with sigs.k8s.io/yaml v1.4.0, whose goyaml.v2 is go-yaml
// v2.4: its resolve() decides what a plain scalar is, first from the scalar's first
// character, then from a table of words, Go's integer and float parsers and a few
// timestamp layouts. Sexagesimal numbers (1:20) are not resolved (they stay strings) but
// are quoted when written. Checked against kubectl 1.32, which uses the same library.

/** What a scalar resolves to: the tags go-yaml's resolve() answers for scalars it resolves. */
export type ResolvedScalar =
  | { tag: 'str' | 'timestamp'; value: string }
  | { tag: 'null'; value: null }
  | { tag: 'bool'; value: boolean }
  /** An int64, or a uint64 above int64's range (Go's ParseInt, then ParseUint). */
  | { tag: 'int'; value: bigint }
  | { tag: 'float'; value: number };

/** The tags resolve() takes besides none (''): the others leave the scalar a string. */
export type ResolvableTag = 'str' | 'bool' | 'int' | 'float' | 'null' | 'timestamp';

export const maxInt64 = (1n << 63n) - 1n;
const maxUint64 = (1n << 64n) - 1n;

/** Words resolved whole: go-yaml's resolveMap (its "<<" entry is unreachable for a plain scalar: '<' gives no hint). */
const words = new Map<string, ResolvedScalar>();
for (const w of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) words.set(w, { tag: 'bool', value: true });
for (const w of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) words.set(w, { tag: 'bool', value: false });
for (const w of ['', '~', 'null', 'Null', 'NULL']) words.set(w, { tag: 'null', value: null });
for (const w of ['.nan', '.NaN', '.NAN']) words.set(w, { tag: 'float', value: Number.NaN });
for (const w of ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']) words.set(w, { tag: 'float', value: Number.POSITIVE_INFINITY });
for (const w of ['-.inf', '-.Inf', '-.INF']) words.set(w, { tag: 'float', value: Number.NEGATIVE_INFINITY });

/** go-yaml's hint from a scalar's first character: only these may resolve to anything but a string. */
function hintOf(text: string): 'N' | 'S' | 'D' | 'M' | '.' | undefined {
  if (text === '') return 'N';
  const c = text[0]!;
  if (c === '+' || c === '-') return 'S';
  if (c >= '0' && c <= '9') return 'D';
  if ('yYnNtTfFoO~'.includes(c)) return 'M';
  if (c === '.') return '.';
  return undefined;
}

/** The YAML 1.1 float syntax go-yaml accepts before Go's ParseFloat (after underscores are removed). */
const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** What Go's ParseFloat accepts of a scalar that starts with '.': digits, underscores only between digits, an exponent. */
const goDotFloat = /^\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?$/;

/**
 * The scalar `text` resolved as go-yaml's resolve(tag, text): a plain scalar without a tag
 * (`tag` ''), or one with an explicit tag go-yaml resolves. Whether the result suits the
 * explicit tag is the caller's check (resolve's deferred one).
 */
export function resolveScalar(text: string, tag: ResolvableTag | '' = ''): ResolvedScalar {
  const hint = hintOf(text);
  if (hint === undefined || tag === 'str') return { tag: 'str', value: text };
  const word = words.get(text);
  if (word !== undefined) return word;
  if (hint === '.') {
    if (goDotFloat.test(text)) {
      const f = Number(text.replaceAll('_', ''));
      if (Number.isFinite(f)) return { tag: 'float', value: f };
    }
  } else if (hint === 'D' || hint === 'S') {
    if ((tag === '' || tag === 'timestamp') && isGoYamlTimestamp(text)) return { tag: 'timestamp', value: text };
    const plain = text.replaceAll('_', '');
    const int = parseGoInt(plain, 0) ?? parseGoUint(plain, 0);
    if (int !== undefined) return { tag: 'int', value: int };
    if (yamlStyleFloat.test(plain)) {
      const f = Number(plain);
      // Go's ParseFloat refuses what overflows float64.
      if (Number.isFinite(f)) return { tag: 'float', value: f };
    }
    // go-yaml's own binary forms, where Go's parser in base 2 also takes a sign after the prefix.
    const binary = plain.startsWith('0b') ? parseGoInt(plain.slice(2), 2) ?? parseGoUint(plain.slice(2), 2)
      : plain.startsWith('-0b') ? parseGoInt(`-${plain.slice(3)}`, 2) : undefined;
    if (binary !== undefined) return { tag: 'int', value: binary };
  }
  return { tag: 'str', value: text };
}

/** Go's strconv.ParseUint(s, base, 64), base 0 (with 0b, 0o, 0x and 0 prefixes; underscores already removed) or 2. */
function parseGoUint(s: string, base: 0 | 2): bigint | undefined {
  let digits = s;
  let radix = base === 0 ? 10 : 2;
  if (base === 0 && s[0] === '0') {
    const prefix = s.length >= 3 ? s[1]!.toLowerCase() : '';
    if (prefix === 'b' || prefix === 'o' || prefix === 'x') {
      radix = prefix === 'b' ? 2 : prefix === 'o' ? 8 : 16;
      digits = s.slice(2);
    } else {
      radix = 8;
      digits = s.slice(1);
    }
  } else if (s === '') {
    return undefined;
  }
  const bigRadix = BigInt(radix);
  let n = 0n;
  for (const c of digits) {
    const d = Number.parseInt(c, 36);
    if (Number.isNaN(d) || d >= radix) return undefined;
    n = n * bigRadix + BigInt(d);
    if (n > maxUint64) return undefined;
  }
  return n;
}

/** Go's strconv.ParseInt(s, base, 64): an optional sign, then ParseUint's digits within int64's range. */
function parseGoInt(s: string, base: 0 | 2): bigint | undefined {
  const negative = s[0] === '-';
  const magnitude = parseGoUint(negative || s[0] === '+' ? s.slice(1) : s, base);
  if (magnitude === undefined) return undefined;
  if (negative) return magnitude <= maxInt64 + 1n ? -magnitude : undefined;
  return magnitude <= maxInt64 ? magnitude : undefined;
}

/**
 * Whether go-yaml takes `text` for a timestamp: four digits and '-' first, then one of the
 * layouts it tries with Go's time.Parse (date and time with 'T' or 't' and a zone, date and
 * time with a space and no zone, date alone), with Go's range checks: month, day of that
 * month, hour, minute, second, and a zone offset of at most 24:60.
 */
export function isGoYamlTimestamp(text: string): boolean {
  if (text.length < 5 || text[4] !== '-' || !/^[0-9]{4}/.test(text)) return false;
  const m = /^([0-9]{4})-([0-9][0-9]?)-([0-9][0-9]?)(?:(?:([Tt])|( ))([0-9][0-9]?):([0-9][0-9]?):([0-9][0-9]?)(?:[.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.exec(text);
  if (m === null) return false;
  const [, year, month, day, t, space, hour, minute, second, zone] = m;
  if (t !== undefined && zone === undefined) return false;
  if (space !== undefined && zone !== undefined) return false;
  const mo = Number(month);
  if (mo < 1 || mo > 12) return false;
  const y = Number(year);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  const d = Number(day);
  if (d < 1 || d > daysInMonth) return false;
  if (hour !== undefined && (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59)) return false;
  if (zone !== undefined && zone !== 'Z' && (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4, 6)) > 60)) return false;
  return true;
}

const base60Float = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** Whether `text` is a YAML 1.1 sexagesimal number (1:20): go-yaml reads it as a string but quotes it when writing, for other YAML 1.1 readers. */
export function isBase60Float(text: string): boolean {
  return text.includes(':') && base60Float.test(text);
}

/**
 * A float as Go's strconv.FormatFloat(f, 'g', -1, bitSize) writes it (go-yaml's form for
 * floats, 64 bits; sigs.k8s.io/yaml's for float keys, 32): the shortest digits that read
 * back as the same float of that size, with an exponent (e+06, e-05) below 1e-4 and from
 * 1e6 on; infinities and NaN in YAML's words.
 */
export function formatGoFloat(f: number, bitSize: 32 | 64 = 64): string {
  const value = bitSize === 32 ? Math.fround(f) : f;
  if (Number.isNaN(value)) return '.nan';
  if (!Number.isFinite(value)) return value > 0 ? '.inf' : '-.inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const sign = value < 0 ? '-' : '';
  const [mantissa, exponentText] = shortestExponential(Math.abs(value), bitSize).split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const magnitude = Math.abs(exponent);
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? '-' : '+'}${magnitude < 10 ? '0' : ''}${magnitude}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** A positive float in exponential notation with the fewest digits that read back as the same float64, or float32. */
function shortestExponential(value: number, bitSize: 32 | 64): string {
  if (bitSize === 64) return value.toExponential();
  for (let digits = 1; digits < 9; digits++) {
    const text = value.toExponential(digits - 1);
    if (Math.fround(Number(text)) === value) return text;
  }
  return value.toExponential(8);
}
