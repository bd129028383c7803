// The configured Service ranges (--service-cluster-ip-range, --service-node-port-range)
// and what the ClusterIP and NodePort allocators share.

import { parseCIDR } from '../validation/ip.ts';
import type { CIDR } from '../validation/ip.ts';
import { rfc3339Seconds } from '../../api/time.ts';

export const defaultServiceClusterIPRange = '10.96.0.0/12';
export const defaultServiceNodePortRange = '30000-32767';

export interface ServiceRanges {
  /** One CIDR, or two of different families separated by a comma (dual-stack); the first is primary. */
  serviceClusterIPRange?: string;
  /** "30000-32767" (also "30000+2768", as upstream's PortRange accepts). */
  serviceNodePortRange?: string;
}

/** What an allocator refuses with: the caller words it as upstream's 422 or 500. */
export class AllocationError extends Error {}

/** The configured ClusterIP CIDRs, primary first. Throws on a malformed range (a configuration error). */
export function parseServiceCIDRs(range: string): CIDR[] {
  const cidrs = range.split(',').map((s) => s.trim()).filter((s) => s !== '').map((s) => {
    const cidr = parseCIDR(s);
    if (cidr === undefined) throw new Error(`invalid service cluster IP range ${JSON.stringify(s)}`);
    return cidr;
  });
  if (cidrs.length === 0 || cidrs.length > 2 || (cidrs.length === 2 && cidrs[0]!.family === cidrs[1]!.family)) {
    throw new Error(`invalid service cluster IP range ${JSON.stringify(range)}: want one CIDR, or two of different IP families`);
  }
  return cidrs;
}

export interface PortRange {
  base: number;
  size: number;
  /** "30000-32767": the form upstream's RangeAllocation records and its errors show. */
  text: string;
}

export function parsePortRange(range: string): PortRange {
  const dash = /^(\d+)-(\d+)$/.exec(range.trim());
  const plus = /^(\d+)\+(\d+)$/.exec(range.trim());
  let base: number;
  let size: number;
  if (dash) {
    base = Number(dash[1]);
    size = Number(dash[2]) - base + 1;
  } else if (plus) {
    base = Number(plus[1]);
    size = Number(plus[2]) + 1;
  } else {
    throw new Error(`invalid service node port range ${JSON.stringify(range)}`);
  }
  if (base < 1 || size < 1 || base + size - 1 > 65535) throw new Error(`invalid service node port range ${JSON.stringify(range)}`);
  return { base, size, text: `${base}-${base + size - 1}` };
}

/** Upstream's calculateRangeOffset: min(max(lo, size/step), hi), 0 for small ranges. */
export function rangeOffset(size: bigint, lo: bigint, hi: bigint, step: bigint): bigint {
  if (size <= lo) return 0n;
  const offset = size / step;
  return offset < lo ? lo : offset > hi ? hi : offset;
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function nowTimestamp(): string {
  return rfc3339Seconds();
}
