// ClusterIP and NodePort allocation for Services, in memory, rebuilt from storage at
// start (kubernetes pkg/registry/core/service/ipallocator, portallocator and storage/alloc.go).
//
// Dynamic allocation is sequential, starting past a low band left for requested values
// (upstream picks randomly in the same upper band), so results are deterministic.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { internalError, invalid } from '../../api/index.ts';
import type { Allocator } from '../resource-type.ts';
import { invalid as invalidField } from '../validation/field.ts';
import { formatIP, parseCIDR, parseIP } from './ip.ts';
import type { CIDR, IPFamily } from './ip.ts';
import type { JsonObject } from '../../api/json.ts';
import { ensureObject, numberAt, stringAt } from './object.ts';
import {
  clusterIPsOf, isHeadless, needsClusterIP, needsHealthCheckNodePort, needsNodePort, nodePortOf, servicePorts, serviceSpec, usesNodePorts,
} from './service-spec.ts';

const defaultServiceClusterIPRange = '10.96.0.0/12';
const defaultServiceNodePortRange = '30000-32767';

export interface ServiceRanges {
  /** One CIDR, or two of different families separated by a comma (dual-stack); the first is primary. */
  serviceClusterIPRange?: string;
  /** "30000-32767" (also "30000+2768", as upstream's PortRange accepts). */
  serviceNodePortRange?: string;
}

/** The configured ClusterIP CIDRs, primary first. Throws on a malformed range (a configuration error). */
function parseServiceCIDRs(range: string): CIDR[] {
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

interface PortRange {
  base: number;
  size: number;
  text: string;
}

function parsePortRange(range: string): PortRange {
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
function rangeOffset(size: bigint, lo: bigint, hi: bigint, step: bigint): bigint {
  if (size <= lo) return 0n;
  const offset = size / step;
  return offset < lo ? lo : offset > hi ? hi : offset;
}

class AllocationError extends Error {}

/** One pool of addresses: the usable ones of a CIDR, minus the network (and IPv4 broadcast) address. */
class IPPool {
  readonly cidr: CIDR;
  readonly first: bigint;
  readonly count: bigint;
  private readonly offset: bigint;
  readonly owners = new Map<bigint, string>();

  constructor(cidr: CIDR) {
    this.cidr = cidr;
    this.first = cidr.base + 1n;
    this.count = cidr.size - (cidr.family === 'IPv4' ? 2n : 1n);
    if (this.count < 0n) this.count = 0n;
    this.offset = rangeOffset(cidr.size, 16n, 256n, 16n);
  }

  contains(value: bigint): boolean {
    return value >= this.first && value < this.first + this.count;
  }

  text(value: bigint): string {
    return formatIP({ family: this.cidr.family, value });
  }

  /** Reserves a requested address; the owner may already hold it. */
  reserve(value: bigint, owner: string): boolean {
    if (!this.contains(value)) {
      throw new AllocationError(`the provided IP (${this.text(value)}) is not in the valid range. The range of valid IPs is ${this.cidr.text}`);
    }
    const holder = this.owners.get(value);
    if (holder !== undefined && holder !== owner) throw new AllocationError('provided IP is already allocated');
    this.owners.set(value, owner);
    return holder === undefined;
  }

  next(owner: string): bigint {
    if (BigInt(this.owners.size) >= this.count) throw new AllocationError('range is full');
    const start = this.offset < this.count ? this.offset : 0n;
    // Scan the upper band from the offset, then the lower band.
    for (const [from, to] of [[start, this.count], [0n, start]] as const) {
      for (let i = from; i < to; i++) {
        const value = this.first + i;
        if (!this.owners.has(value)) {
          this.owners.set(value, owner);
          return value;
        }
      }
    }
    throw new AllocationError('range is full');
  }

  release(value: bigint, owner: string): void {
    if (this.owners.get(value) === owner) this.owners.delete(value);
  }
}

class PortPool {
  readonly range: PortRange;
  private readonly offset: number;
  readonly owners = new Map<number, string>();

  constructor(range: PortRange) {
    this.range = range;
    this.offset = Number(rangeOffset(BigInt(range.size), 16n, 128n, 32n));
  }

  reserve(port: number, owner: string): boolean {
    if (!Number.isInteger(port) || port < this.range.base || port >= this.range.base + this.range.size) {
      throw new AllocationError(`provided port is not in the valid range. The range of valid ports is ${this.range.text}`);
    }
    const holder = this.owners.get(port);
    if (holder !== undefined && holder !== owner) throw new AllocationError('provided port is already allocated');
    this.owners.set(port, owner);
    return holder === undefined;
  }

  next(owner: string): number {
    if (this.owners.size >= this.range.size) throw new AllocationError('range is full');
    for (const [from, to] of [[this.offset, this.range.size], [0, this.offset]] as const) {
      for (let i = from; i < to; i++) {
        const port = this.range.base + i;
        if (!this.owners.has(port)) {
          this.owners.set(port, owner);
          return port;
        }
      }
    }
    throw new AllocationError('range is full');
  }

  release(port: number, owner: string): void {
    if (this.owners.get(port) === owner) this.owners.delete(port);
  }
}

/** What one service holds: addresses per family and node ports. */
interface Holdings {
  ips: { family: IPFamily; value: bigint }[];
  ports: number[];
}

function ownerOf(svc: KubeObject): string {
  return `${svc.metadata.namespace ?? ''}/${svc.metadata.name ?? ''}`;
}

const kubernetesServiceOwner = 'default/kubernetes';

/**
 * The Service allocator: cluster IPs from the configured CIDR(s) (the first address is
 * kept for the default/kubernetes service, as upstream) and node ports from the node
 * port range. Requested values are honoured or refused with upstream's 422; none is
 * handed out twice; everything is released on delete.
 */
export class ServiceAllocator implements Allocator {
  private readonly pools = new Map<IPFamily, IPPool>();
  private readonly nodePorts: PortPool;

  constructor(ranges: ServiceRanges = {}) {
    for (const cidr of parseServiceCIDRs(ranges.serviceClusterIPRange ?? defaultServiceClusterIPRange)) {
      this.pools.set(cidr.family, new IPPool(cidr));
    }
    this.nodePorts = new PortPool(parsePortRange(ranges.serviceNodePortRange ?? defaultServiceNodePortRange));
    this.reserveKubernetesIPs();
  }

  /** The address the default/kubernetes service gets in the primary range. */
  get kubernetesServiceIP(): string {
    const pool = this.primaryPool();
    return pool.text(pool.first);
  }

  /** The IP families served, primary first. */
  get families(): IPFamily[] {
    return [...this.pools.keys()];
  }

  isIPAllocated(ip: string): boolean {
    const parsed = parseIP(ip);
    return parsed !== undefined && (this.pools.get(parsed.family)?.owners.has(parsed.value) ?? false);
  }

  isNodePortAllocated(port: number): boolean {
    return this.nodePorts.owners.has(port);
  }

  allocate(obj: KubeObject, opts: { dryRun?: boolean } = {}): void {
    const reserved: Holdings = { ips: [], ports: [] };
    try {
      this.assign(obj, undefined, reserved);
    } catch (err) {
      this.releaseHoldings(reserved, ownerOf(obj));
      throw err;
    }
    if (opts.dryRun) this.releaseHoldings(reserved, ownerOf(obj));
  }

  reallocate(obj: KubeObject, old: KubeObject): () => void {
    const owner = ownerOf(obj);
    const reserved: Holdings = { ips: [], ports: [] };
    try {
      this.assign(obj, this.holdingsOf(old), reserved);
    } catch (err) {
      this.releaseHoldings(reserved, owner);
      throw err;
    }
    // What the old object held and the new one does not is released now.
    const kept = this.holdingsOf(obj);
    const dropped = this.difference(this.holdingsOf(old), kept);
    this.releaseHoldings(dropped, owner);
    return () => {
      this.releaseHoldings(reserved, owner);
      this.forceHoldings(dropped, owner);
    };
  }

  release(obj: KubeObject): void {
    this.releaseHoldings(this.holdingsOf(obj), ownerOf(obj));
  }

  restore(objects: KubeObject[]): void {
    for (const pool of this.pools.values()) pool.owners.clear();
    this.nodePorts.owners.clear();
    this.reserveKubernetesIPs();
    for (const obj of objects) {
      const owner = ownerOf(obj);
      const holdings = this.holdingsOf(obj);
      for (const ip of holdings.ips) {
        const pool = this.pools.get(ip.family);
        if (pool?.contains(ip.value) && !pool.owners.has(ip.value)) pool.owners.set(ip.value, owner);
      }
      for (const port of holdings.ports) {
        try {
          this.nodePorts.reserve(port, owner);
        } catch {
          // Out of range or held twice in storage: nothing to restore.
        }
      }
    }
  }

  // ---- internals ----

  private primaryPool(): IPPool {
    return this.pools.values().next().value!;
  }

  private reserveKubernetesIPs(): void {
    const pool = this.primaryPool();
    if (pool.count > 0n) pool.owners.set(pool.first, kubernetesServiceOwner);
  }

  /** The addresses and ports a stored or desired object holds. */
  private holdingsOf(obj: KubeObject): Holdings {
    const spec = serviceSpec(obj);
    const holdings: Holdings = { ips: [], ports: [] };
    if (needsClusterIP(spec) && !isHeadless(spec)) {
      for (const text of clusterIPsOf(spec).length > 0 ? clusterIPsOf(spec) : [stringAt(spec, 'clusterIP')]) {
        const ip = parseIP(text);
        if (ip) holdings.ips.push(ip);
      }
    }
    for (const port of servicePorts(spec)) {
      const np = nodePortOf(port);
      if (np !== 0 && !holdings.ports.includes(np)) holdings.ports.push(np);
    }
    const hc = numberAt(spec, 'healthCheckNodePort') ?? 0;
    if (hc !== 0 && !holdings.ports.includes(hc)) holdings.ports.push(hc);
    return holdings;
  }

  private difference(a: Holdings, b: Holdings): Holdings {
    return {
      ips: a.ips.filter((ip) => !b.ips.some((x) => x.family === ip.family && x.value === ip.value)),
      ports: a.ports.filter((p) => !b.ports.includes(p)),
    };
  }

  private releaseHoldings(h: Holdings, owner: string): void {
    for (const ip of h.ips) this.pools.get(ip.family)?.release(ip.value, owner);
    for (const port of h.ports) this.nodePorts.release(port, owner);
  }

  /** Puts reservations back after an undo; values someone else took meanwhile stay theirs. */
  private forceHoldings(h: Holdings, owner: string): void {
    for (const ip of h.ips) {
      const pool = this.pools.get(ip.family);
      if (pool?.contains(ip.value) && !pool.owners.has(ip.value)) pool.owners.set(ip.value, owner);
    }
    for (const port of h.ports) if (!this.nodePorts.owners.has(port)) this.nodePorts.owners.set(port, owner);
  }

  /**
   * Fills in and reserves what `obj` needs. Values `held` (by the same object before an
   * update) are kept without reserving again. Each new reservation is recorded in `reserved`.
   */
  private assign(obj: KubeObject, held: Holdings | undefined, reserved: Holdings): void {
    const spec = ensureObject(obj as JsonObject, 'spec');
    const owner = ownerOf(obj);
    const name = obj.metadata.name ?? '';
    const heldIP = (family: IPFamily, value: bigint) => held?.ips.some((x) => x.family === family && x.value === value) ?? false;
    const heldPort = (port: number) => held?.ports.includes(port) ?? false;

    if (needsClusterIP(spec) && !isHeadless(spec)) {
      const requested = clusterIPsOf(spec);
      if (requested.length === 0 && stringAt(spec, 'clusterIP') !== '') requested.push(stringAt(spec, 'clusterIP'));
      const families = this.familiesFor(spec, requested);
      const result: string[] = [];
      families.forEach((family, i) => {
        const pool = this.pools.get(family);
        const want = requested[i];
        if (pool === undefined) {
          throw invalid('Service', name, [invalidField(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster')]);
        }
        if (want !== undefined && want !== '') {
          const ip = parseIP(want);
          if (ip === undefined) {
            throw internalError(`failed to parse service IP ${JSON.stringify(want)}`);
          }
          if (!heldIP(ip.family, ip.value)) {
            try {
              if (ip.family !== family) throw new AllocationError(`the provided IP (${want}) is not in the valid range. The range of valid IPs is ${pool.cidr.text}`);
              if (pool.reserve(ip.value, owner)) reserved.ips.push(ip);
            } catch (err) {
              if (!(err instanceof AllocationError)) throw err;
              const cause: StatusCause = invalidField('spec.clusterIPs', requested, `failed to allocate IP ${want}: ${err.message}`);
              throw invalid('Service', name, [cause]);
            }
          }
          result.push(formatIP(ip));
        } else {
          try {
            const value = pool.next(owner);
            reserved.ips.push({ family, value });
            result.push(pool.text(value));
          } catch (err) {
            if (!(err instanceof AllocationError)) throw err;
            throw internalError(`failed to allocate a serviceIP: ${err.message}`);
          }
        }
      });
      if (result.length > 0) {
        spec.clusterIPs = result;
        spec.clusterIP = result[0];
      }
    }

    if (usesNodePorts(spec)) {
      this.assignNodePorts(spec, needsNodePort(spec), name, owner, heldPort, reserved);
    }

    if (needsHealthCheckNodePort(spec)) {
      const want = numberAt(spec, 'healthCheckNodePort') ?? 0;
      if (want !== 0) {
        if (!heldPort(want)) {
          try {
            if (this.nodePorts.reserve(want, owner)) reserved.ports.push(want);
          } catch (err) {
            if (!(err instanceof AllocationError)) throw err;
            throw invalid('Service', name, [invalidField('spec.healthCheckNodePort', want, err.message)]);
          }
        }
      } else {
        spec.healthCheckNodePort = this.nextNodePort(owner, reserved);
      }
    }
  }

  /**
   * Ports with the same port number (e.g. TCP and UDP 53) share one node port; requested
   * values are honoured even when the type allocates none itself (upstream's initNodePorts).
   */
  private assignNodePorts(
    spec: JsonObject, allocateMissing: boolean, name: string, owner: string, heldPort: (p: number) => boolean, reserved: Holdings,
  ): void {
    const ports = servicePorts(spec);
    const byServicePort = new Map<number, number>();
    const servicePortOf = (port: JsonObject) => (typeof port.port === 'number' ? port.port : 0);
    ports.forEach((port, i) => {
      const want = nodePortOf(port);
      if (want === 0 && !allocateMissing) return;
      const servicePort = servicePortOf(port);
      const already = byServicePort.get(servicePort);
      if (already === undefined) {
        // Any port with the same number may carry the requested value.
        const requested = ports.find((p) => servicePortOf(p) === servicePort && nodePortOf(p) !== 0);
        if (requested !== undefined) {
          const requestedPort = nodePortOf(requested);
          this.reserveNodePort(requestedPort, i, name, owner, heldPort, reserved);
          port.nodePort = requestedPort;
          byServicePort.set(servicePort, requestedPort);
        } else {
          port.nodePort = this.nextNodePort(owner, reserved);
          byServicePort.set(servicePort, port.nodePort as number);
        }
      } else if (want !== already) {
        if (want === 0) port.nodePort = already;
        else this.reserveNodePort(want, i, name, owner, heldPort, reserved);
      }
    });
  }

  private reserveNodePort(port: number, i: number, name: string, owner: string, heldPort: (p: number) => boolean, reserved: Holdings): void {
    if (heldPort(port) || reserved.ports.includes(port)) return;
    try {
      if (this.nodePorts.reserve(port, owner)) reserved.ports.push(port);
    } catch (err) {
      if (!(err instanceof AllocationError)) throw err;
      throw invalid('Service', name, [invalidField(`spec.ports[${i}].nodePort`, port, err.message)]);
    }
  }

  private nextNodePort(owner: string, reserved: Holdings): number {
    try {
      const port = this.nodePorts.next(owner);
      reserved.ports.push(port);
      return port;
    } catch (err) {
      if (!(err instanceof AllocationError)) throw err;
      throw internalError(`failed to allocate a nodePort: ${err.message}`);
    }
  }

  /** The families to allocate for, from spec.ipFamilies (the strategy defaults them), else the requested IPs, else the primary. */
  private familiesFor(spec: JsonObject, requested: string[]): IPFamily[] {
    const declared = (Array.isArray(spec.ipFamilies) ? spec.ipFamilies : []).filter((f): f is IPFamily => f === 'IPv4' || f === 'IPv6');
    if (declared.length > 0) return declared.slice(0, 2);
    const fromIPs = requested.map((s) => parseIP(s)?.family).filter((f): f is IPFamily => f !== undefined);
    if (fromIPs.length > 0) return fromIPs.slice(0, 2);
    return [this.families[0]!];
  }
}
