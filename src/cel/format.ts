// cel-go's string.format (strings extension): `%s`, `%d`, `%f`, `%e`, `%x`, `%X`, `%o`,
// `%b` and `%%`, with an optional precision for `%f` and `%e`, formatted as cel-go
// formats them (Go's strconv rounding: exact halves to even; lists, maps, timestamps and
// durations in their CEL text form).

class FormatError extends Error {}

function isUint(v: unknown): v is { valueOf(): bigint } {
  return v !== null && typeof v === 'object' && v.constructor?.name === 'UnsignedInt';
}

function isDuration(v: unknown): boolean {
  return v !== null && typeof v === 'object' && v.constructor?.name === 'Duration';
}

function isType(v: unknown): boolean {
  return v !== null && typeof v === 'object' && v.constructor?.name === 'Type';
}

function nonFinite(n: number): string | undefined {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  return undefined;
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64) for the values CEL prints. */
function shortestDouble(n: number): string {
  return nonFinite(n) ?? String(n);
}

/** RFC 3339 with nanoseconds trimmed, as Go's time.Time prints in CEL. */
export function timestampText(d: Date): string {
  return d.toISOString().replace(/\.000Z$/, 'Z').replace(/(\.\d*?)0+Z$/, '$1Z');
}

/** A duration as cel-go prints it: its seconds, with the fraction needed, and `s` ("-60.25s"). */
export function durationText(d: { seconds: bigint; nanos: number }): string {
  const total = d.seconds * 1_000_000_000n + BigInt(d.nanos);
  const abs = total < 0n ? -total : total;
  const fraction = String(abs % 1_000_000_000n).padStart(9, '0').replace(/0+$/, '');
  return `${total < 0n ? '-' : ''}${abs / 1_000_000_000n}${fraction === '' ? '' : `.${fraction}`}s`;
}

/** `%s`: any value as CEL's string conversion gives it. */
function asString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (isUint(v)) return String(v.valueOf());
  if (typeof v === 'number') return shortestDouble(v);
  if (v === null) return 'null';
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (v instanceof Date) return timestampText(v);
  if (isDuration(v)) return durationText(v as { seconds: bigint; nanos: number });
  if (isType(v)) return String(v).replace(/^Type<(.*)>$/, '$1');
  if (Array.isArray(v)) return `[${v.map(asString).join(', ')}]`;
  if (v instanceof Map || (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)) {
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as object);
    const shown = entries.map(([k, x]) => [asString(k), asString(x)] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${shown.map(([k, x]) => `${k}: ${x}`).join(', ')}}`;
  }
  throw new FormatError('string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps');
}

function integer(v: unknown, clause: string): bigint {
  if (typeof v === 'bigint') return v;
  if (isUint(v)) return v.valueOf();
  throw new FormatError(`${clause} clause can only be used on integers, was given ${describe(v)}`);
}

function describe(v: unknown): string {
  if (v === null) return 'null_type';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (isDuration(v)) return 'google.protobuf.Duration';
  return typeof v;
}

/** Go's %.Nf: the value rounded to N places, an exact half to even. */
function fixed(n: number, precision: number): string {
  const special = nonFinite(n);
  if (special !== undefined) return special;
  let text = n.toFixed(precision);
  // toFixed rounds exact halves away from zero; Go rounds them to even.
  const wide = Math.abs(n).toFixed(Math.min(100, precision + 30));
  const rest = wide.slice(wide.indexOf('.') + 1 + precision);
  if (/^50*$/.test(rest)) {
    const truncated = Math.abs(n).toFixed(Math.min(100, precision + 30)).slice(0, wide.indexOf('.') + (precision === 0 ? 0 : 1 + precision));
    const lastDigit = Number(truncated.replace('.', '').slice(-1));
    if (lastDigit % 2 === 0) text = `${n < 0 ? '-' : ''}${truncated}`;
  }
  return text;
}

function scientific(n: number, precision: number): string {
  const special = nonFinite(n);
  if (special !== undefined) return special;
  return n.toExponential(precision).replace(/e([+-])(\d)$/, 'e$10$2');
}

function double(v: unknown, clause: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (isUint(v)) return Number(v.valueOf());
  throw new FormatError(`${clause} clause can only be used on doubles, was given ${describe(v)}`);
}

function hex(v: unknown, upper: boolean): string {
  let out: string;
  if (typeof v === 'string') out = Buffer.from(v, 'utf8').toString('hex');
  else if (v instanceof Uint8Array) out = Buffer.from(v).toString('hex');
  else out = integer(v, 'hex').toString(16);
  return upper ? out.toUpperCase() : out;
}

function radix(v: unknown, base: 2 | 8): string {
  if (typeof v === 'boolean' && base === 2) return v ? '1' : '0';
  return integer(v, base === 2 ? 'binary' : 'octal').toString(base);
}

/** `text.format(args)`. */
export function formatString(text: string, args: readonly unknown[]): string {
  let out = '';
  let next = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '%') {
      out += c;
      continue;
    }
    if (text[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    let j = i + 1;
    let precision: number | undefined;
    const digits = /^\.(\d+)/.exec(text.slice(j));
    if (digits !== null) {
      precision = Number(digits[1]);
      j += digits[0].length;
    }
    const verb = text[j];
    if (verb === undefined) throw new FormatError('could not parse formatting clause: unexpected end of string');
    if (next >= args.length) throw new FormatError(`index ${next} out of range`);
    const arg = args[next++];
    switch (verb) {
      case 's': out += asString(arg); break;
      case 'd': out += typeof arg === 'number' && nonFinite(arg) !== undefined ? nonFinite(arg)! : String(integer(arg, 'decimal')); break;
      case 'f': out += fixed(double(arg, 'fixed-point'), precision ?? 6); break;
      case 'e': out += scientific(double(arg, 'scientific'), precision ?? 6); break;
      case 'x': out += hex(arg, false); break;
      case 'X': out += hex(arg, true); break;
      case 'o': out += radix(arg, 8); break;
      case 'b': out += radix(arg, 2); break;
      default: throw new FormatError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    }
    i = j;
  }
  return out;
}
