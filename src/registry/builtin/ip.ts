// IPv4 and IPv6 addresses and CIDRs as integers, for Service ClusterIP ranges.

export type IPFamily = 'IPv4' | 'IPv6';

export interface IP {
  family: IPFamily;
  value: bigint;
}

export interface CIDR {
  family: IPFamily;
  /** The network address. */
  base: bigint;
  prefix: number;
  /** Number of addresses in the CIDR. */
  size: bigint;
  text: string;
}

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    // Go's ParseIPSloppy accepts leading zeros as decimal.
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const n = Number(part);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseIPv6(s: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  let head: string[];
  let tail: string[];
  const doubleColon = s.indexOf('::');
  if (doubleColon >= 0) {
    if (s.indexOf('::', doubleColon + 1) >= 0) return undefined;
    head = s.slice(0, doubleColon) === '' ? [] : s.slice(0, doubleColon).split(':');
    tail = s.slice(doubleColon + 2) === '' ? [] : s.slice(doubleColon + 2).split(':');
  } else {
    head = s.split(':');
    tail = [];
  }
  const groups: number[] = [];
  const toGroups = (parts: string[], isLast: boolean): number[] | undefined => {
    const out: number[] = [];
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (isLast && i === parts.length - 1 && part.includes('.')) {
        const v4 = parseIPv4(part);
        if (v4 === undefined) return undefined;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(part)) return undefined;
      out.push(parseInt(part, 16));
    }
    return out;
  };
  const h = toGroups(head, tail.length === 0 && doubleColon < 0);
  const t = toGroups(tail, true);
  if (h === undefined || t === undefined) return undefined;
  if (doubleColon >= 0) {
    if (h.length + t.length > 7) return undefined;
    groups.push(...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t);
  } else {
    if (h.length !== 8) return undefined;
    groups.push(...h);
  }
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

const v4MappedPrefix = 0xffffn << 32n;

/** Parses an IP address; IPv4-mapped IPv6 addresses count as IPv4, as in Go. */
/** Upstream's IsValidIP message for a value that is not an IP address. */
export const invalidIPMessage = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

export function parseIP(s: string): IP | undefined {
  if (s.includes(':')) {
    const value = parseIPv6(s);
    if (value === undefined) return undefined;
    if (value >> 32n === 0xffffn) return { family: 'IPv4', value: value - v4MappedPrefix };
    return { family: 'IPv6', value };
  }
  const value = parseIPv4(s);
  return value === undefined ? undefined : { family: 'IPv4', value };
}

export function formatIP(ip: IP): string {
  if (ip.family === 'IPv4') {
    return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join('.');
  }
  const groups = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((ip.value >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: compress the longest run (of at least two) of zero groups.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

/** Parses "10.96.0.0/12"; the address is masked to the network. */
export function parseCIDR(s: string): CIDR | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIP(s.slice(0, slash));
  const prefixText = s.slice(slash + 1);
  if (ip === undefined || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const bits = ip.family === 'IPv4' ? 32 : 128;
  const prefix = Number(prefixText);
  if (prefix > bits) return undefined;
  const hostBits = BigInt(bits - prefix);
  const base = (ip.value >> hostBits) << hostBits;
  return { family: ip.family, base, prefix, size: 1n << hostBits, text: `${formatIP({ family: ip.family, value: base })}/${prefix}` };
}

export function ipFamilyOf(s: string): IPFamily | undefined {
  return parseIP(s)?.family;
}

/**
 * Upstream's IsValidIPForLegacyField with StrictIPCIDRValidation on (its v1.36 default):
 * what Go's sloppy parser reads, except IPv4 parts with leading zeros and IPv4-mapped IPv6
 * addresses; a value among `validOldIPs` (what the object held before) is kept as it is.
 */
export function ipForLegacyFieldErrors(value: string, validOldIPs: readonly string[] = []): string[] {
  if (validOldIPs.includes(value)) return [];
  const ip = parseIP(value);
  if (ip === undefined) return [invalidIPMessage];
  const errs: string[] = [];
  const v4Part = value.slice(value.lastIndexOf(':') + 1);
  if (v4Part.includes('.') && v4Part.split('.').some((part) => part.length > 1 && part.startsWith('0'))) errs.push('must not have leading 0s');
  if (value.includes(':') && ip.family === 'IPv4') errs.push('must not be an IPv4-mapped IPv6 address');
  return errs;
}

/** netutils.IsDualStackIPStrings: at least one address of each family; undefined when one does not parse. */
export function isDualStackIPs(ips: readonly string[]): boolean | undefined {
  const families = new Set<IPFamily>();
  for (const s of ips) {
    const family = ipFamilyOf(s);
    if (family === undefined) return undefined;
    families.add(family);
  }
  return families.size === 2;
}
