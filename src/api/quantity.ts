// Resource quantities ("100m", "1Gi", "1e3"), exactly as rationals, for comparisons
// (requests vs limits, QoS class, quota usage) and formatted back in upstream's canonical
// form (resource.Quantity's String()) where a message or a computed status shows one.
// Stored objects keep quantities as the client wrote them.

/** How a quantity is written: decimal suffixes (k, M, m), binary ones (Ki, Mi) or an exponent (1e3). */
import { deepEqualNullAsAbsent, isObject } from './json.ts';

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** value = num / den, den > 0 */
  num: bigint;
  den: bigint;
  /** The format it was written in, which its canonical form keeps (DecimalSI when absent). */
  format?: QuantityFormat;
}

const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

// Exponents past this are refused rather than turned into enormous integers.
const maxExponent = 400;

/**
 * Quantities parsed before, by their text (frozen): a pod template's containers repeat a
 * few ("100m", "128Mi"), and validating a 10-container Deployment parsed ~60 of them,
 * ~50 µs. Only short texts are kept, and the map starts over when it is full.
 */
const parsed = new Map<string, Quantity | undefined>();
const parsedMax = 4096;
const parsedTextMax = 64;

/** resource.ErrFormatWrong: what decoding a malformed quantity answers. */
export const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** Parses a quantity; undefined when it is not one (upstream's ParseQuantity). The result is frozen. */
export function parseQuantity(input: unknown): Quantity | undefined {
  if (typeof input === 'number') input = String(input);
  if (typeof input !== 'string') return undefined;
  if (input.length > parsedTextMax) return parseText(input);
  const known = parsed.get(input);
  if (known !== undefined || parsed.has(input)) return known;
  const quantity = parseText(input);
  if (parsed.size >= parsedMax) parsed.clear();
  parsed.set(input, quantity);
  return quantity;
}

function parseText(input: string): Quantity | undefined {
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(.*)$/.exec(input);
  if (m === null) return undefined;
  const [, sign, number, suffix] = m as unknown as [string, string, string, string];
  const [whole, frac = ''] = number.split('.') as [string, string?];
  let mantissa = BigInt(`${whole || '0'}${frac}`);
  if (sign === '-') mantissa = -mantissa;
  let exp10 = -frac.length;
  let exp2 = 0;
  let format: QuantityFormat = 'DecimalSI';
  if (suffix in binarySuffixes) {
    exp2 = binarySuffixes[suffix]!;
    format = 'BinarySI';
  } else if (suffix in decimalSuffixes) exp10 += decimalSuffixes[suffix]!;
  else {
    const e = /^[eE]([+-]?\d+)$/.exec(suffix);
    if (e === null) return undefined;
    const exponent = Number(e[1]);
    if (Math.abs(exponent) > maxExponent) return undefined;
    exp10 += exponent;
    format = 'DecimalExponent';
  }
  let num = mantissa * 2n ** BigInt(exp2);
  let den = 1n;
  if (exp10 >= 0) num *= 10n ** BigInt(exp10);
  else den = 10n ** BigInt(-exp10);
  return Object.freeze({ num, den, format });
}

/** An integer quantity (upstream's NewQuantity(n, DecimalSI)). */
export function quantityOf(n: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { num: BigInt(n), den: 1n, format };
}

export const zeroQuantity: Quantity = Object.freeze({ num: 0n, den: 1n, format: 'DecimalSI' });

export function compareQuantity(a: Quantity, b: Quantity): number {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

/** a + b, in a's format unless a is zero (resource.Quantity's Add). */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const format = a.num === 0n ? b.format : a.format;
  return { num: a.num * b.den + b.num * a.den, den: a.den * b.den, ...(format ? { format } : {}) };
}

/** a - b, in a's format unless a is zero. */
export function subtractQuantity(a: Quantity, b: Quantity): Quantity {
  return addQuantity(a, { ...b, num: -b.num });
}

export function isPositive(q: Quantity): boolean {
  return q.num > 0n;
}

export function isNegative(q: Quantity): boolean {
  return q.num < 0n;
}

export function isZero(q: Quantity): boolean {
  return q.num === 0n;
}

/** The value in thousandths, rounded up (upstream's MilliValue). */
export function milliValue(q: Quantity): bigint {
  return ceilDiv(q.num * 1000n, q.den);
}

/** The value rounded up to an integer (upstream's Value). */
export function integerValue(q: Quantity): bigint {
  return ceilDiv(q.num, q.den);
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n === b > 0n ? q + 1n : q;
}

const decimalSuffixOf = new Map<number, string>(Object.entries(decimalSuffixes).map(([s, e]) => [e, s]));
const binarySuffixOf = new Map<number, string>(Object.entries(binarySuffixes).map(([s, e]) => [e, s]));

/**
 * The canonical form upstream's Quantity.String() prints: the smallest exact mantissa
 * with an exponent that is a multiple of 3 (DecimalSI, DecimalExponent), or of 1024
 * (BinarySI, when the value is a whole number of at least 1024 in size). Values finer
 * than a nano unit are rounded up to one, as upstream stores them.
 */
export function formatQuantity(q: Quantity): string {
  // Upstream keeps at most nano precision, rounding up.
  const nanos = ceilDiv(q.num * 1_000_000_000n, q.den);
  if (nanos === 0n) return '0';
  let format = q.format ?? 'DecimalSI';
  const abs = nanos < 0n ? -nanos : nanos;
  if (format === 'BinarySI' && (abs < 1024n * 1_000_000_000n || abs % 1_000_000_000n !== 0n)) format = 'DecimalSI';
  if (format === 'BinarySI') {
    let mantissa = nanos / 1_000_000_000n;
    let exponent = 0;
    while (exponent < 60 && mantissa % 1024n === 0n) {
      mantissa /= 1024n;
      exponent += 10;
    }
    return `${mantissa}${binarySuffixOf.get(exponent) ?? ''}`;
  }
  // The trailing zeros are counted in the digits: dividing by ten once per zero took
  // quadratic time, seconds of blocked event loop for a quantity of 100k digits.
  const digits = abs.toString();
  const significant = digits.replace(/0+$/, '');
  let exponent = -9 + digits.length - significant.length;
  const rest = ((exponent % 3) + 3) % 3;
  const mantissa = `${nanos < 0n ? '-' : ''}${significant}${'0'.repeat(rest)}`;
  exponent -= rest;
  if (format === 'DecimalSI') {
    const suffix = decimalSuffixOf.get(exponent);
    if (suffix !== undefined) return `${mantissa}${suffix}`;
  }
  return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
}

/** A quantity written canonically, or the input unchanged when it is not one. */
export function canonicalQuantity(input: unknown): string {
  const q = parseQuantity(input);
  return q === undefined ? String(input) : formatQuantity(q);
}

/** Resource maps equal as upstream's semantic equality has them: quantities by value ("1000m" is "1"), an empty map as none. */
function sameResourceLists(a: unknown, b: unknown): boolean {
  const x = isObject(a) ? a : {};
  const y = isObject(b) ? b : {};
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((key) => {
    if (!Object.hasOwn(y, key)) return false;
    const [p, q] = [parseQuantity(x[key]), parseQuantity(y[key])];
    return p !== undefined && q !== undefined ? compareQuantity(p, q) === 0 : deepEqualNullAsAbsent(x[key], y[key]);
  });
}

/** Resource requirements (limits, requests, claims) compared as upstream's apiequality.Semantic.DeepEqual compares them. */
export function sameResourceRequirements(a: unknown, b: unknown): boolean {
  const x = isObject(a) ? a : {};
  const y = isObject(b) ? b : {};
  const claims = (value: unknown) => (Array.isArray(value) ? value : []);
  return sameResourceLists(x.limits, y.limits) && sameResourceLists(x.requests, y.requests) && deepEqualNullAsAbsent(claims(x.claims), claims(y.claims));
}
