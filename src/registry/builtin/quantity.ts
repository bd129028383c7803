// Resource quantities ("100m", "1Gi", "1e3"), exactly as rationals, for comparisons
// (requests vs limits, QoS class). Formatting back to upstream's canonical form is not
// done: quantities are stored as the client wrote them.

export interface Quantity {
  /** value = num / den, den > 0 */
  num: bigint;
  den: bigint;
}

const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

// Exponents past this are refused rather than turned into enormous integers.
const maxExponent = 400;

/** Parses a quantity; undefined when it is not one (upstream's ParseQuantity). */
export function parseQuantity(input: unknown): Quantity | undefined {
  if (typeof input === 'number') input = String(input);
  if (typeof input !== 'string') return undefined;
  const m = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(.*)$/.exec(input);
  if (m === null) return undefined;
  const [, sign, number, suffix] = m as unknown as [string, string, string, string];
  const [whole, frac = ''] = number.split('.') as [string, string?];
  let mantissa = BigInt(`${whole || '0'}${frac}`);
  if (sign === '-') mantissa = -mantissa;
  let exp10 = -frac.length;
  let exp2 = 0;
  if (suffix in binarySuffixes) exp2 = binarySuffixes[suffix]!;
  else if (suffix in decimalSuffixes) exp10 += decimalSuffixes[suffix]!;
  else {
    const e = /^[eE]([+-]?\d+)$/.exec(suffix);
    if (e === null) return undefined;
    const exponent = Number(e[1]);
    if (Math.abs(exponent) > maxExponent) return undefined;
    exp10 += exponent;
  }
  let num = mantissa * 2n ** BigInt(exp2);
  let den = 1n;
  if (exp10 >= 0) num *= 10n ** BigInt(exp10);
  else den = 10n ** BigInt(-exp10);
  return { num, den };
}

export function compareQuantity(a: Quantity, b: Quantity): number {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

export function addQuantity(a: Quantity, b: Quantity): Quantity {
  return { num: a.num * b.den + b.num * a.den, den: a.den * b.den };
}

export function isPositive(q: Quantity): boolean {
  return q.num > 0n;
}

export function isNegative(q: Quantity): boolean {
  return q.num < 0n;
}
