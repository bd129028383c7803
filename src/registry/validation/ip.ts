// IPv4 and IPv6 addresses and CIDRs as integers (Service ClusterIP ranges), and their validation as apimachinery's IP and CIDR checks.

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

/** Upstream's IsValidIP message for a value that is not an IP address. */
export const invalidIPMessage = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

/** Parses an IP address; IPv4-mapped IPv6 addresses count as IPv4, as in Go. */
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

/** "address/length" split and parsed as Go's sloppy parsers read it (the length in at most three digits). */
function splitCIDR(s: string): { address: string; ip: IP; prefix: number } | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const address = s.slice(0, slash);
  const ip = parseIP(address);
  const prefixText = s.slice(slash + 1);
  if (ip === undefined || !/^\d{1,3}$/.test(prefixText)) return undefined;
  return { address, ip, prefix: Number(prefixText) };
}

/** Parses "10.96.0.0/12"; the address is masked to the network. */
export function parseCIDR(s: string): CIDR | undefined {
  const split = splitCIDR(s);
  if (split === undefined) return undefined;
  const { ip, prefix } = split;
  const bits = ip.family === 'IPv4' ? 32 : 128;
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
  if (hasLeadingZeros(value)) errs.push('must not have leading 0s');
  if (value.includes(':') && ip.family === 'IPv4') errs.push('must not be an IPv4-mapped IPv6 address');
  return errs;
}

/**
 * Upstream's IsValidIP as current apimachinery has it (for fields without legacy values: an
 * IPAddress's name): what a legacy field refuses, then any form but the canonical one.
 */
export function ipErrors(value: string): string[] {
  const errs = ipForLegacyFieldErrors(value);
  if (errs.length > 0) return errs;
  const canonical = formatIP(parseIP(value)!);
  return canonical === value ? [] : [`must be in canonical form (${JSON.stringify(canonical)})`];
}

/** Whether Go's netip.ParseAddr would refuse what the sloppy parser read: IPv4 parts with leading zeros. */
function hasLeadingZeros(value: string): boolean {
  const v4Part = value.slice(value.lastIndexOf(':') + 1);
  return v4Part.includes('.') && v4Part.split('.').some((part) => part.length > 1 && part.startsWith('0'));
}

/**
 * Upstream's GetWarningsForIP, for a value a legacy field accepted: a form a later release
 * will refuse (leading zeros, IPv4-mapped IPv6), or IPv6 not in RFC 5952's canonical form.
 */
export function ipWarnings(path: string, value: string): string[] {
  const ip = parseIP(value);
  if (ip === undefined) return [];
  const canonical = formatIP(ip);
  if (hasLeadingZeros(value) || (value.includes(':') && ip.family === 'IPv4')) {
    return [`${path}: non-standard IP address ${JSON.stringify(value)} will be considered invalid in a future Kubernetes release: use ${JSON.stringify(canonical)}`];
  }
  if (ip.family === 'IPv6' && canonical !== value) {
    return [`${path}: IPv6 address ${JSON.stringify(value)} should be in RFC 5952 canonical format (${JSON.stringify(canonical)})`];
  }
  return [];
}

/** A CIDR as Go's ParseCIDRSloppy reads it: the address as written, the prefix, and the network. */
interface SloppyCIDR {
  ip: IP;
  /** Written in IPv6 form (an IPv4-mapped address counts its prefix of 128 bits). */
  mapped: boolean;
  prefix: number;
  network: IP;
}

function parseSloppyCIDR(value: string): SloppyCIDR | undefined {
  const split = splitCIDR(value);
  if (split === undefined) return undefined;
  const { address, ip, prefix } = split;
  const mapped = address.includes(':') && ip.family === 'IPv4';
  const bits = mapped || ip.family === 'IPv6' ? 128 : 32;
  if (prefix > bits) return undefined;
  const hostBits = BigInt(Math.min(bits - prefix, ip.family === 'IPv4' ? 32 : 128));
  return { ip, mapped, prefix, network: { family: ip.family, value: (ip.value >> hostBits) << hostBits } };
}

/** Upstream's IsValidCIDR message for a value that is not a CIDR. */
export const invalidCIDRMessage = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/**
 * Upstream's IsValidCIDRForLegacyField with StrictIPCIDRValidation on (its v1.36 default):
 * what Go's sloppy parser reads, except leading zeros (in the address or the prefix
 * length), IPv4-mapped IPv6 addresses and bits set beyond the prefix length; a value among
 * `validOldCIDRs` (what the object held before) is kept as it is.
 */
export function cidrForLegacyFieldErrors(value: string, validOldCIDRs: readonly string[] = []): string[] {
  if (validOldCIDRs.includes(value)) return [];
  const cidr = parseSloppyCIDR(value);
  if (cidr === undefined) return [invalidCIDRMessage];
  const prefixText = value.slice(value.indexOf('/') + 1);
  if (hasLeadingZeros(value.slice(0, value.indexOf('/'))) || (prefixText.length > 1 && prefixText.startsWith('0'))) return ['must not have leading 0s in IP or prefix length'];
  if (cidr.mapped) return ['must not have an IPv4-mapped IPv6 address'];
  if (cidr.network.value !== cidr.ip.value) return ['must not have bits set beyond the prefix length'];
  return [];
}

/** Upstream's IsValidCIDR, as ipErrors for IPs (a ServiceCIDR's ranges). */
export function cidrErrors(value: string): string[] {
  const errs = cidrForLegacyFieldErrors(value);
  if (errs.length > 0) return errs;
  const canonical = parseCIDR(value)!.text;
  return canonical === value ? [] : [`must be in canonical form (${JSON.stringify(canonical)})`];
}

/**
 * Upstream's GetWarningsForCIDR, for a value a legacy field accepted: an address with bits
 * beyond the prefix (ambiguous), a form a later release will refuse, or IPv6 not in RFC
 * 5952's canonical form.
 */
export function cidrWarnings(path: string, value: string): string[] {
  const cidr = parseSloppyCIDR(value);
  if (cidr === undefined) return [];
  // Go prints an IPv4-mapped network in IPv4 form, its prefix less the 96 bits before it.
  const networkText = `${formatIP(cidr.network)}/${cidr.mapped ? Math.max(cidr.prefix - 96, 0) : cidr.prefix}`;
  const warnings: string[] = [];
  if (cidr.network.value !== cidr.ip.value) {
    const bits = cidr.mapped || cidr.ip.family === 'IPv6' ? 128 : 32;
    warnings.push(`${path}: CIDR value ${JSON.stringify(value)} is ambiguous in this context (should be ${JSON.stringify(networkText)} or ${JSON.stringify(`${formatIP(cidr.ip)}/${bits}`)}?)`);
  }
  const address = value.slice(0, value.indexOf('/'));
  const prefixText = value.slice(value.indexOf('/') + 1);
  if (hasLeadingZeros(address) || (prefixText.length > 1 && prefixText.startsWith('0')) || cidr.mapped) {
    warnings.push(`${path}: non-standard CIDR value ${JSON.stringify(value)} will be considered invalid in a future Kubernetes release: use ${JSON.stringify(networkText)}`);
  }
  if (warnings.length === 0 && cidr.ip.family === 'IPv6') {
    const canonical = `${formatIP(cidr.ip)}/${cidr.prefix}`;
    if (canonical !== value) warnings.push(`${path}: IPv6 CIDR value ${JSON.stringify(value)} should be in RFC 5952 canonical format (${JSON.stringify(canonical)})`);
  }
  return warnings;
}

/** The address with the leading zeros of its parts dropped: Go's sloppy parsers read past any number of them. */
function withoutLeadingZeros(address: string): string {
  return address.replace(/(^|[:.])0+(?=[0-9a-fA-F])/g, '$1');
}

/**
 * Upstream's IsValidInterfaceAddress: an address with its prefix length ("192.168.1.5/24"),
 * as ParseCIDRSloppy reads it, must be written as Go writes it back. An IPv4-mapped IPv6
 * address is written in IPv4 form, a prefix length past 32 less the 96 bits before it
 * (which may leave it negative: "::ffff:10.0.0.1/33" is "10.0.0.1/-63").
 */
export function interfaceAddressErrors(value: string): string[] {
  const slash = value.indexOf('/');
  const address = value.slice(0, slash);
  const prefixText = value.slice(slash + 1);
  const ip = slash < 0 ? undefined : parseIP(withoutLeadingZeros(address));
  const prefix = Number(prefixText);
  if (ip === undefined || !/^\d+$/.test(prefixText) || prefix > (address.includes(':') ? 128 : 32)) {
    return ['must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)'];
  }
  const canonical = `${formatIP(ip)}/${ip.family === 'IPv4' && prefix > 32 ? prefix - 96 : prefix}`;
  return value === canonical ? [] : [`must be in canonical form (${JSON.stringify(canonical)})`];
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
