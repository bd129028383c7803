// The CEL libraries kube-apiserver adds to the standard ones, registered on a cel-js
// Environment: cel-go's strings extension, Kubernetes' lists, regex, URL and Quantity
// libraries and the sets extension. Names, overloads and error texts are upstream's
// (k8s.io/apiserver/pkg/cel/library); regular expressions are RE2, as Go's.

import type { Environment, Optional } from '@marcbachmann/cel-js';
import { registerAuthzLibrary } from './authz.ts';
import { registerTwoVariableComprehensions } from './comprehensions.ts';
import { CelEvalError } from './errors.ts';
import { construct } from './objects.ts';
import { registerFormatLibrary } from './format-library.ts';
import { listConcat, listEquals } from './list-types.ts';
import { durationText, formatString, timestampText } from './format.ts';
import { CelCidr, CelIp, cidrContainsCidr, cidrContainsIp, ipChecks, maskedCidr, parseCidr, parseIp, sameIp } from './network.ts';
import { CelSemver, compareSemver, parseSemver } from './semver.ts';
import { RE2JS } from 're2js';
import { WeighedCache } from '../api/weighed-cache.ts';
import {
  addQuantity, compareQuantity, formatQuantity, isNegative, isPositive, parseQuantity, quantityFormatError, quantityOf, subtractQuantity, type Quantity,
} from '../api/quantity.ts';


const regexCache = new WeighedCache<RE2JS>(1000, 1 << 20);

/** Compiles a pattern as Go's regexp does (RE2), cached: rules use a few constant patterns. */
function re2(pattern: string): RE2JS {
  let compiled = regexCache.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = RE2JS.compile(pattern);
    } catch (err) {
      throw new CelEvalError(`error parsing regexp: ${(err as Error).message}`);
    }
    regexCache.set(pattern, compiled);
  }
  return compiled;
}

/** Code points, as CEL indexes strings. */
function codePoints(s: string): string[] {
  return Array.from(s);
}

function checkIndex(i: bigint, size: number): number {
  if (i < 0n || i > BigInt(size)) throw new CelEvalError(`index out of range: ${i}`);
  return Number(i);
}

function replaceN(s: string, from: string, to: string, n: bigint): string {
  if (n === 0n) return s;
  const limit = n < 0n ? Infinity : Number(n);
  if (from === '') {
    // Go's strings.Replace with an empty old string inserts before every code point and at the end.
    const points = codePoints(s);
    let out = '';
    let done = 0;
    for (const p of points) {
      if (done < limit) {
        out += to;
        done++;
      }
      out += p;
    }
    return done < limit ? out + to : out;
  }
  let out = '';
  let rest = s;
  let done = 0;
  for (;;) {
    const at = rest.indexOf(from);
    if (at < 0 || done >= limit) return out + rest;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
    done++;
  }
}

/** The comparable value of a list element for sorting and min/max: numbers, strings, bools, bytes. */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof CelQuantity && b instanceof CelQuantity) return compareQuantity(a.q, b.q);
  throw new CelEvalError('no such overload');
}

/** Kubernetes' Quantity type: quantity('1Gi'). */
export class CelQuantity {
  readonly q: Quantity;
  constructor(q: Quantity) {
    this.q = q;
  }
}

function quantity(s: string): CelQuantity {
  const q = parseQuantity(s);
  if (q === undefined) throw new CelEvalError(quantityFormatError);
  return new CelQuantity(q);
}

/** Kubernetes' URL type: url('https://example.com/path'). */
export class CelUrl {
  readonly url: URL;
  readonly raw: string;
  constructor(raw: string, url: URL) {
    this.raw = raw;
    this.url = url;
  }
}

/** As upstream's url(): Go's url.ParseRequestURI, which wants an absolute URL or an absolute path. */
function parseUrl(s: string): CelUrl | undefined {
  if (s.startsWith('/')) {
    try {
      return new CelUrl(s, new URL(s, 'http://placeholder'));
    } catch {
      return undefined;
    }
  }
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s) || /\s/.test(s)) return undefined;
  try {
    return new CelUrl(s, new URL(s));
  } catch {
    return undefined;
  }
}

function urlOf(s: string): CelUrl {
  const url = parseUrl(s);
  if (url === undefined) throw new CelEvalError(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
  return url;
}

function hostOf(u: CelUrl): string {
  return u.raw.startsWith('/') ? '' : u.url.host;
}

const quoteEscapes: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"' };

/** strings.quote: the string in double quotes with cel-go's escapes. */
function quote(s: string): string {
  return `"${s.replace(/[\x07\b\f\n\r\t\v\\"]/g, (c) => quoteEscapes[c]!)}"`;
}

// Namespaced functions (`strings.quote(s)`, `sets.contains(a, b)`) are methods of a
// constant named for the namespace, as cel-js does for `optional.of`.
class StringsNamespace {}
class SetsNamespace {}
class IpNamespace {}
class JsonPatchNamespace {}

function namespace(env: Environment, name: string, type: new () => object): void {
  env.registerType(type.name, type);
  env.registerConstant(name, type.name, new type());
}

/** Registers the libraries on `env` (before it is cloned for a use). */
export function registerKubernetesLibraries(env: Environment): Environment {
  const fn = (signature: string, handler: (...args: any[]) => unknown) => env.registerFunction(signature, handler);
  registerTwoVariableComprehensions(env);
  registerAuthzLibrary(env);

  // Conversions of the standard library cel-js lacks: timestamps and durations to their
  // text (RFC 3339, seconds with an `s`), and a timestamp to its Unix seconds.
  fn('string(google.protobuf.Timestamp): string', (t: Date) => timestampText(t));
  fn('string(google.protobuf.Duration): string', durationText);
  fn('int(google.protobuf.Timestamp): int', (t: Date) => BigInt(Math.floor(t.getTime() / 1000)));

  // cel-go's strings extension: the parts cel-js does not have (it has lowerAscii,
  // upperAscii, split, trim, indexOf, lastIndexOf, substring, join).
  fn('string.charAt(int): string', (s: string, i: bigint) => {
    const points = codePoints(s);
    const at = checkIndex(i, points.length);
    return points[at] ?? '';
  });
  fn('string.replace(string, string): string', (s: string, a: string, b: string) => replaceN(s, a, b, -1n));
  fn('string.replace(string, string, int): string', replaceN);
  fn('string.format(list): string', formatString);
  fn('string.reverse(): string', (s: string) => codePoints(s).reverse().join(''));
  namespace(env, 'strings', StringsNamespace);
  fn('StringsNamespace.quote(string): string', (_: StringsNamespace, s: string) => quote(s));

  // Kubernetes' lists library.
  fn('list.isSorted(): bool', (l: unknown[]) => l.every((v, i) => i === 0 || compareValues(l[i - 1], v) <= 0));
  fn('list.sum(): dyn', (l: unknown[]) => {
    if (l.length === 0) return 0n;
    return l.reduce((a, b) => {
      if (typeof a === 'bigint' && typeof b === 'bigint') return a + b;
      if (typeof a === 'number' && typeof b === 'number') return a + b;
      throw new CelEvalError('no such overload');
    });
  });
  const extreme = (sign: number) => (l: unknown[]) => {
    if (l.length === 0) throw new CelEvalError(`${sign < 0 ? 'min' : 'max'} called on empty list`);
    return l.reduce((a, b) => (compareValues(b, a) * sign > 0 ? b : a));
  };
  fn('list.min(): dyn', extreme(-1));
  fn('list.max(): dyn', extreme(1));
  const equal = (a: unknown, b: unknown) => a === b || (typeof a === typeof b && JSON.stringify(a, bigintJson) === JSON.stringify(b, bigintJson));
  fn('list.indexOf(dyn): int', (l: unknown[], v: unknown) => BigInt(l.findIndex((x) => equal(x, v))));
  fn('list.lastIndexOf(dyn): int', (l: unknown[], v: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (equal(l[i], v)) return BigInt(i);
    return -1n;
  });

  // cel-go's sets extension.
  namespace(env, 'sets', SetsNamespace);
  fn('SetsNamespace.contains(list, list): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) => b.every((x) => a.some((y) => equal(x, y))));
  fn('SetsNamespace.equivalent(list, list): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) => b.every((x) => a.some((y) => equal(x, y))) && a.every((x) => b.some((y) => equal(x, y))));
  fn('SetsNamespace.intersects(list, list): bool', (_: SetsNamespace, a: unknown[], b: unknown[]) => b.some((x) => a.some((y) => equal(x, y))));

  // Kubernetes' regex library.
  fn('string.find(string): string', (s: string, pattern: string) => {
    const m = re2(pattern).matcher(s);
    return m.find() ? m.group() ?? '' : '';
  });
  const findAll = (s: string, pattern: string, n: bigint) => {
    const out: string[] = [];
    if (n === 0n) return out;
    const m = re2(pattern).matcher(s);
    while ((n < 0n || BigInt(out.length) < n) && m.find()) out.push(m.group() ?? '');
    return out;
  };
  fn('string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p, -1n));
  fn('string.findAll(string, int): list<string>', findAll);

  // Kubernetes' Quantity library.
  env.registerType('Quantity', CelQuantity);
  fn('quantity(string): Quantity', quantity);
  fn('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined);
  fn('Quantity.isInteger(): bool', (q: CelQuantity) => q.q.num % q.q.den === 0n && withinInt64(q.q.num / q.q.den));
  fn('Quantity.asInteger(): int', (q: CelQuantity) => {
    const v = q.q.num / q.q.den;
    if (q.q.num % q.q.den !== 0n || !withinInt64(v)) throw new CelEvalError('cannot convert value to integer');
    return v;
  });
  fn('Quantity.asApproximateFloat(): double', (q: CelQuantity) => Number(q.q.num) / Number(q.q.den));
  fn('Quantity.sign(): int', (q: CelQuantity) => (isPositive(q.q) ? 1n : isNegative(q.q) ? -1n : 0n));
  fn('Quantity.add(Quantity): Quantity', (a: CelQuantity, b: CelQuantity) => new CelQuantity(addQuantity(a.q, b.q)));
  fn('Quantity.add(int): Quantity', (a: CelQuantity, b: bigint) => new CelQuantity(addQuantity(a.q, quantityOf(b))));
  fn('Quantity.sub(Quantity): Quantity', (a: CelQuantity, b: CelQuantity) => new CelQuantity(subtractQuantity(a.q, b.q)));
  fn('Quantity.sub(int): Quantity', (a: CelQuantity, b: bigint) => new CelQuantity(subtractQuantity(a.q, quantityOf(b))));
  fn('Quantity.isGreaterThan(Quantity): bool', (a: CelQuantity, b: CelQuantity) => compareQuantity(a.q, b.q) > 0);
  fn('Quantity.isLessThan(Quantity): bool', (a: CelQuantity, b: CelQuantity) => compareQuantity(a.q, b.q) < 0);
  fn('Quantity.compareTo(Quantity): int', (a: CelQuantity, b: CelQuantity) => BigInt(Math.sign(compareQuantity(a.q, b.q))));
  env.registerOperator('Quantity == Quantity', (a: CelQuantity, b: CelQuantity) => compareQuantity(a.q, b.q) === 0);
  fn('string(Quantity): string', (q: CelQuantity) => formatQuantity(q.q));

  // Kubernetes' URL library.
  env.registerType('URL', CelUrl);
  fn('url(string): URL', urlOf);
  fn('isURL(string): bool', (s: string) => parseUrl(s) !== undefined);
  fn('URL.getScheme(): string', (u: CelUrl) => (u.raw.startsWith('/') ? '' : u.url.protocol.slice(0, -1)));
  fn('URL.getHost(): string', hostOf);
  fn('URL.getHostname(): string', (u: CelUrl) => (hostOf(u) === '' ? '' : u.url.hostname.replace(/^\[(.*)\]$/, '$1')));
  fn('URL.getPort(): string', (u: CelUrl) => (hostOf(u) === '' ? '' : u.url.port));
  fn('URL.getEscapedPath(): string', (u: CelUrl) => u.url.pathname);
  fn('URL.getQuery(): map<string, list<string>>', (u: CelUrl) => {
    const query = new Map<string, string[]>();
    for (const [k, v] of u.url.searchParams) query.set(k, [...(query.get(k) ?? []), v]);
    return query;
  });
  // List-type-aware == and + for set and map lists (rewritten into these, cel/list-types.ts).
  fn('__listEq(list, list, string, list): bool', listEquals);
  fn('__listConcat(list, list, string, list): list', listConcat);

  // Object construction (rewritten from `Type{…}` literals, cel/objects.ts) and jsonpatch.escapeKey, for mutating admission policies.
  fn('__construct(string, map): dyn', construct);
  namespace(env, 'jsonpatch', JsonPatchNamespace);
  fn('JsonPatchNamespace.escapeKey(string): string', (_: JsonPatchNamespace, k: string) => k.replaceAll('~', '~0').replaceAll('/', '~1'));

  // Kubernetes' format library.
  registerFormatLibrary(env);

  // Kubernetes' IP and CIDR libraries.
  env.registerType('net.IP', CelIp);
  env.registerType('net.CIDR', CelCidr);
  const ip = (s: string) => {
    const parsed = parseIp(s);
    if (typeof parsed === 'string') throw new CelEvalError(parsed);
    return parsed;
  };
  const cidr = (s: string) => {
    const parsed = parseCidr(s);
    if (typeof parsed === 'string') throw new CelEvalError(parsed);
    return parsed;
  };
  fn('ip(string): net.IP', ip);
  fn('isIP(string): bool', (s: string) => typeof parseIp(s) !== 'string');
  namespace(env, 'ip', IpNamespace);
  fn('IpNamespace.isCanonical(string): bool', (_: IpNamespace, s: string) => String(ip(s)) === s);
  fn('net.IP.family(): int', (a: CelIp) => BigInt(a.family));
  for (const check of Object.keys(ipChecks) as (keyof typeof ipChecks)[]) fn(`net.IP.${check}(): bool`, (a: CelIp) => ipChecks[check](a));
  fn('string(net.IP): string', (a: CelIp) => String(a));
  env.registerOperator('net.IP == net.IP', sameIp);
  fn('cidr(string): net.CIDR', cidr);
  fn('isCIDR(string): bool', (s: string) => typeof parseCidr(s) !== 'string');
  fn('net.CIDR.containsIP(net.IP): bool', cidrContainsIp);
  fn('net.CIDR.containsIP(string): bool', (c: CelCidr, s: string) => cidrContainsIp(c, ip(s)));
  fn('net.CIDR.containsCIDR(net.CIDR): bool', cidrContainsCidr);
  fn('net.CIDR.containsCIDR(string): bool', (c: CelCidr, s: string) => cidrContainsCidr(c, cidr(s)));
  fn('net.CIDR.ip(): net.IP', (c: CelCidr) => c.ip);
  fn('net.CIDR.masked(): net.CIDR', maskedCidr);
  fn('net.CIDR.prefixLength(): int', (c: CelCidr) => BigInt(c.prefixLength));
  fn('string(net.CIDR): string', (c: CelCidr) => String(c));
  env.registerOperator('net.CIDR == net.CIDR', (a: CelCidr, b: CelCidr) => a.prefixLength === b.prefixLength && sameIp(a.ip, b.ip));

  // Kubernetes' semver library.
  env.registerType('Semver', CelSemver);
  const semver = (s: string, normalize = false) => {
    const parsed = parseSemver(s, normalize);
    if (parsed === undefined) throw new CelEvalError(`Invalid semver: ${s}`);
    return parsed;
  };
  fn('semver(string): Semver', (s: string) => semver(s));
  fn('semver(string, bool): Semver', semver);
  fn('isSemver(string): bool', (s: string) => parseSemver(s, false) !== undefined);
  fn('isSemver(string, bool): bool', (s: string, normalize: boolean) => parseSemver(s, normalize) !== undefined);
  fn('Semver.major(): int', (v: CelSemver) => v.major);
  fn('Semver.minor(): int', (v: CelSemver) => v.minor);
  fn('Semver.patch(): int', (v: CelSemver) => v.patch);
  fn('Semver.isLessThan(Semver): bool', (a: CelSemver, b: CelSemver) => compareSemver(a, b) < 0);
  fn('Semver.isGreaterThan(Semver): bool', (a: CelSemver, b: CelSemver) => compareSemver(a, b) > 0);
  fn('Semver.compareTo(Semver): int', (a: CelSemver, b: CelSemver) => BigInt(compareSemver(a, b)));
  env.registerOperator('Semver == Semver', (a: CelSemver, b: CelSemver) => compareSemver(a, b) === 0);

  // cel-go compares null with the types its legacy checker called nullable: messages (the
  // libraries' types are object types there), timestamps, durations and optionals. A value
  // of one is never null (`!=` comes with each).
  const authz = 'kubernetes.authorization.';
  for (const type of [
    'optional<dyn>', 'google.protobuf.Timestamp', 'google.protobuf.Duration', 'Quantity', 'URL', 'net.IP', 'net.CIDR', 'Semver', 'Format',
    `${authz}Authorizer`, `${authz}PathCheck`, `${authz}GroupCheck`, `${authz}ResourceCheck`, `${authz}Decision`,
  ]) comparableWithNull(env, type);

  // Optionals are equal when both are empty or both hold equal values (by CEL's own equality).
  let valuesEqual: ((vars: Record<string, unknown>) => unknown) | undefined;
  env.registerOperator('optional<dyn> == optional<dyn>', (a: Optional, b: Optional) => {
    if (a.hasValue() !== b.hasValue()) return false;
    if (!a.hasValue()) return true;
    if (valuesEqual === undefined) {
      const values = env.clone().registerVariable('a', 'dyn').registerVariable('b', 'dyn');
      valuesEqual = values.parse('a == b');
    }
    return valuesEqual({ a: a.value(), b: b.value() }) === true;
  });
  return env;
}

/** `type == null` (false; cel-js adds `null == type`), as cel-go checks and runs it for a nullable type. */
export function comparableWithNull(env: Environment, type: string): void {
  env.registerOperator(`${type} == null`, () => false);
}

function withinInt64(v: bigint): boolean {
  return v >= -(2n ** 63n) && v < 2n ** 63n;
}

function bigintJson(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}
