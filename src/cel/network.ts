// Kubernetes' CEL IP and CIDR libraries: ip('10.0.0.1'), cidr('10.0.0.0/8') and their
// methods, parsed as Go's net/netip parses (no leading zeros in IPv4, no zones; Kubernetes
// also refuses IPv4-mapped IPv6 addresses) and printed in canonical form (RFC 5952).

export class CelIp {
  /** 4 bytes for IPv4, 16 for IPv6. */
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
  get family(): 4 | 6 {
    return this.bytes.length === 4 ? 4 : 6;
  }
  toString(): string {
    return formatIp(this.bytes);
  }
}

export class CelCidr {
  readonly ip: CelIp;
  readonly prefixLength: number;
  constructor(ip: CelIp, prefixLength: number) {
    this.ip = ip;
    this.prefixLength = prefixLength;
  }
  toString(): string {
    return `${this.ip}/${this.prefixLength}`;
  }
}

function parseIpv4(s: string): Uint8Array | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p.startsWith('0'))) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}

function parseIpv6(s: string): Uint8Array | undefined {
  if (s.includes('%')) return undefined;
  let text = s;
  let tail: Uint8Array | undefined;
  // An embedded IPv4 address in the last 32 bits.
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail = parseIpv4(text.slice(lastColon + 1));
    if (tail === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const total = head.length + rest.length;
  if ((halves.length === 1 && total !== 8) || (halves.length === 2 && total > 7)) return undefined;
  const all = [...head, ...Array(8 - total).fill('0'), ...rest];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const g = all[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    const n = parseInt(g, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 255;
  }
  if (tail !== undefined) out.set(tail, 12);
  return out;
}

function isV4Mapped(b: Uint8Array): boolean {
  return b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}

/** An address as Kubernetes' ip() takes it, or why not. */
export function parseIp(s: string): CelIp | string {
  const bytes = s.includes(':') ? parseIpv6(s) : parseIpv4(s);
  if (bytes === undefined) return `IP Address ${JSON.stringify(s)} parse error during conversion from string: ParseAddr(${JSON.stringify(s)}): unable to parse IP`;
  if (isV4Mapped(bytes)) return `IPv4-mapped IPv6 address ${JSON.stringify(s)} is not allowed`;
  return new CelIp(bytes);
}

export function parseCidr(s: string): CelCidr | string {
  const slash = s.indexOf('/');
  const fail = `network address ${JSON.stringify(s)} parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(s)}): invalid prefix`;
  if (slash < 0) return fail;
  const ip = parseIp(s.slice(0, slash));
  if (typeof ip === 'string') return fail;
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || (bits.length > 1 && bits.startsWith('0'))) return fail;
  const length = Number(bits);
  if (length > ip.bytes.length * 8) return fail;
  return new CelCidr(ip, length);
}

function formatIp(b: Uint8Array): string {
  if (b.length === 4) return [...b].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => (b[i * 2]! << 8) | b[i * 2 + 1]!);
  // The longest run of two or more zero groups (the first on a tie) becomes "::".
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [best, bestLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}

function masked(ip: CelIp, length: number): Uint8Array {
  const out = new Uint8Array(ip.bytes);
  for (let bit = length; bit < out.length * 8; bit++) out[bit >> 3]! &= ~(0x80 >> (bit & 7));
  return out;
}

export function maskedCidr(c: CelCidr): CelCidr {
  return new CelCidr(new CelIp(masked(c.ip, c.prefixLength)), c.prefixLength);
}

export function cidrContainsIp(c: CelCidr, ip: CelIp): boolean {
  if (ip.bytes.length !== c.ip.bytes.length) return false;
  const a = masked(c.ip, c.prefixLength);
  const b = masked(ip, c.prefixLength);
  return a.every((x, i) => x === b[i]);
}

export function cidrContainsCidr(c: CelCidr, other: CelCidr): boolean {
  return other.prefixLength >= c.prefixLength && cidrContainsIp(c, other.ip);
}

export function sameIp(a: CelIp, b: CelIp): boolean {
  return a.bytes.length === b.bytes.length && a.bytes.every((x, i) => x === b.bytes[i]);
}

const allZero = (b: Uint8Array) => b.every((x) => x === 0);

export const ipChecks = {
  isUnspecified: (ip: CelIp) => allZero(ip.bytes),
  isLoopback: (ip: CelIp) => (ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((x) => x === 0) && ip.bytes[15] === 1),
  isLinkLocalMulticast: (ip: CelIp) => (ip.family === 4 ? ip.bytes[0] === 224 && ip.bytes[1] === 0 && ip.bytes[2] === 0 : ip.bytes[0] === 0xff && (ip.bytes[1]! & 0x0f) === 0x02),
  isLinkLocalUnicast: (ip: CelIp) => (ip.family === 4 ? ip.bytes[0] === 169 && ip.bytes[1] === 254 : ip.bytes[0] === 0xfe && (ip.bytes[1]! & 0xc0) === 0x80),
  isGlobalUnicast(ip: CelIp): boolean {
    if (allZero(ip.bytes) || ipChecks.isLoopback(ip) || ipChecks.isLinkLocalUnicast(ip)) return false;
    if (ip.family === 4) return ip.bytes[0]! < 224 && !ip.bytes.every((x) => x === 255);
    return ip.bytes[0] !== 0xff;
  },
};

