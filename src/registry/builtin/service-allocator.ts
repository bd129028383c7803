// ClusterIP and NodePort allocation for Services, decided by the storage every replica
// shares (kubernetes pkg/registry/core/service/storage/alloc.go over ipallocator's
// IPAddress objects and portallocator's RangeAllocation record): an address is taken by
// creating its IPAddress (ip-address-allocator.ts), node ports by a compare-and-swap of the
// record (node-port-allocator.ts). What this replica remembers is a hint for finding free
// values; storage alone says what is taken.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { internalError, invalid, isStatusError } from '../../api/index.ts';
import type { JsonObject } from '../../api/json.ts';
import { isStorageError, type Backend } from '../../storage/backend.ts';
import { decodeFromStorage, encodeForStorage } from '../codec.ts';
import type { Allocation, Allocator } from '../resource-type.ts';
import { appendAll, invalid as invalidField } from '../validation/field.ts';
import { formatIP, parseIP } from '../validation/ip.ts';
import type { IP, IPFamily } from '../validation/ip.ts';
import {
  IPAddressPool, ipAddressObject, ipAddressesPrefix, ipAllocatorName, isParent, managedByLabel, mismatchedNetwork, type ServiceRef,
} from './ip-address-allocator.ts';
import { NodePortAllocator, type PortDraft } from './node-port-allocator.ts';
import { ensureObject, numberAt, stringAt } from './object.ts';
import {
  clusterIPsOf, isHeadless, needsClusterIP, needsHealthCheckNodePort, needsNodePort, nodePortOf, servicePorts, serviceSpec, usesNodePorts,
} from './service-spec.ts';
import {
  AllocationError, defaultServiceClusterIPRange, defaultServiceNodePortRange, parsePortRange, parseServiceCIDRs, type ServiceRanges,
} from './service-ranges.ts';

export type { ServiceRanges } from './service-ranges.ts';

/** What one service holds: addresses per family and node ports. */
interface Holdings {
  ips: IP[];
  ports: number[];
}

/** What one allocation took, for a revert: addresses at the revision their IPAddress was created, and node ports. */
interface Taken {
  ips: (IP & { revision: number })[];
  ports: number[];
}

function parentOf(svc: KubeObject): ServiceRef {
  return { namespace: svc.metadata.namespace ?? '', name: svc.metadata.name ?? '' };
}

const kubernetesService: ServiceRef = { namespace: 'default', name: 'kubernetes' };

/**
 * Upstream's repair loop deletes an IPAddress without its Service once it is older than
 * this: a Service being created has its IPAddress some moments before it is stored.
 */
const leakGracePeriodMs = 60_000;

const nothingToDo: Allocation = { commit: async () => {}, revert: async () => {} };

/**
 * The Service allocator of one Store: cluster IPs from the configured CIDR(s) (the first
 * address is kept for the default/kubernetes service, as upstream) and node ports from the
 * node port range, over the Store's storage. Requested values are honoured or refused
 * with upstream's 422; none is handed out twice, whichever replica asks; everything is
 * released on delete.
 */
export class ServiceAllocator implements Allocator {
  private readonly pools = new Map<IPFamily, IPAddressPool>();
  private readonly nodePorts: NodePortAllocator;
  private readonly backend: Backend;

  constructor(ranges: ServiceRanges, backend: Backend) {
    this.backend = backend;
    parseServiceCIDRs(ranges.serviceClusterIPRange ?? defaultServiceClusterIPRange).forEach((cidr, i) => {
      this.pools.set(cidr.family, new IPAddressPool(cidr, backend, i === 0 ? { firstFor: kubernetesService } : {}));
    });
    this.nodePorts = new NodePortAllocator(parsePortRange(ranges.serviceNodePortRange ?? defaultServiceNodePortRange), backend);
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

  /** Whether storage holds the address's IPAddress. */
  async isIPAllocated(ip: string): Promise<boolean> {
    const parsed = parseIP(ip);
    const pool = parsed === undefined ? undefined : this.pools.get(parsed.family);
    return pool !== undefined && (await pool.isAllocated(parsed!.value));
  }

  /** Whether storage's record holds the node port. */
  isNodePortAllocated(port: number): Promise<boolean> {
    return this.nodePorts.isAllocated(port);
  }

  async allocate(obj: KubeObject, opts: { dryRun?: boolean } = {}): Promise<Allocation> {
    const taken: Taken = { ips: [], ports: [] };
    try {
      await this.assign(obj, undefined, taken, opts.dryRun === true);
    } catch (err) {
      await this.giveBack(taken);
      throw err;
    }
    if (opts.dryRun) return nothingToDo;
    return { commit: async () => {}, revert: () => this.giveBack(taken) };
  }

  /**
   * What the updated object needs and the old one did not hold is taken now; what the old
   * one held and the updated one does not is released on commit, once the update is
   * stored, so that no other Service takes it while the update may still fail. With
   * `dryRun` the values are filled in and checked, and nothing is taken or released.
   */
  async reallocate(obj: KubeObject, old: KubeObject, opts: { dryRun?: boolean } = {}): Promise<Allocation> {
    const held = this.holdingsOf(old);
    const taken: Taken = { ips: [], ports: [] };
    try {
      await this.assign(obj, old, taken, opts.dryRun === true);
    } catch (err) {
      await this.giveBack(taken);
      throw err;
    }
    if (opts.dryRun) return nothingToDo;
    const dropped = difference(held, this.holdingsOf(obj));
    return { commit: () => this.releaseHoldings(dropped, parentOf(old)), revert: () => this.giveBack(taken) };
  }

  release(obj: KubeObject): Promise<void> {
    return this.releaseHoldings(this.holdingsOf(obj), parentOf(obj));
  }

  /**
   * At start, from the stored Services, repairs what upstream's repair loops repair: an
   * address a Service holds without its IPAddress (data from before IPAddress objects) gets
   * one; an IPAddress this allocator made whose Service does not hold its address (a replica
   * stopped between taking it and storing the Service) is deleted once older than the grace
   * period; node ports Services hold are set in the record, which is started afresh when it
   * is of another range (the flag changed). A node port the record holds for no Service is
   * left taken: which of them an allocation in flight on another replica holds cannot be
   * told from the record (upstream releases them after three repair passes).
   */
  async restore(services: KubeObject[]): Promise<void> {
    const holders = new Map<string, ServiceRef[]>();
    for (const svc of services) {
      for (const ip of this.holdingsOf(svc).ips) {
        if (!this.pools.get(ip.family)?.contains(ip.value)) continue;
        const name = formatIP(ip);
        holders.set(name, [...(holders.get(name) ?? []), parentOf(svc)]);
      }
    }
    const { items } = await this.backend.list(ipAddressesPrefix, { countRemaining: false });
    const names = new Set(items.map((kv) => kv.key.slice(ipAddressesPrefix.length)));
    for (const [name, parents] of holders) {
      if (names.has(name)) continue;
      try {
        await this.backend.create(ipAddressesPrefix + name, encodeForStorage(ipAddressObject(parseIP(name)!, parents[0]!)));
      } catch (err) {
        if (!isStorageError(err, 'KeyExists')) throw err;
      }
      names.add(name);
    }
    const now = Date.now();
    for (const kv of items) {
      let stored: KubeObject;
      try {
        stored = decodeFromStorage(kv);
      } catch {
        continue;
      }
      const name = kv.key.slice(ipAddressesPrefix.length);
      if (stored.metadata.labels?.[managedByLabel] !== ipAllocatorName) continue;
      if ((holders.get(name) ?? []).some((parent) => isParent(stored, parent))) continue;
      const created = Date.parse(stored.metadata.creationTimestamp ?? '');
      if (Number.isFinite(created) && now - created <= leakGracePeriodMs) continue;
      try {
        await this.backend.delete(kv.key, kv.modRevision);
        names.delete(name);
      } catch (err) {
        if (!isStorageError(err, 'KeyNotFound') && !isStorageError(err, 'RevisionMismatch')) throw err;
      }
    }
    for (const pool of this.pools.values()) pool.adopt(names);

    const ports = services.flatMap((svc) => this.holdingsOf(svc).ports);
    await this.nodePorts.transact((draft) => {
      for (const port of ports) draft.adopt(port);
    }, { rebuild: true });
  }

  // ---- internals ----

  private primaryPool(): IPAddressPool {
    return this.pools.values().next().value!;
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

  /** Releases what a Service held. Failures leave the values taken: a leak (repaired at start for addresses), never a double allocation. */
  private async releaseHoldings(h: Holdings, parent: ServiceRef): Promise<void> {
    for (const ip of h.ips) await this.pools.get(ip.family)?.release(ip.value, parent);
    if (h.ports.length > 0) await this.releasePorts(h.ports);
  }

  /** Gives back what a failed allocation or write took. */
  private async giveBack(taken: Taken): Promise<void> {
    for (const ip of taken.ips) await this.pools.get(ip.family)?.revert(ip.value, ip.revision);
    if (taken.ports.length > 0) await this.releasePorts(taken.ports);
  }

  private async releasePorts(ports: number[]): Promise<void> {
    try {
      await this.nodePorts.transact((draft) => {
        for (const port of ports) draft.release(port);
      });
    } catch (err) {
      // Unreachable storage, or a record of another range: the ports stay taken (a leak).
      if (!isStorageError(err) && !isStatusError(err)) throw err;
    }
  }

  /**
   * Fills in and takes what `obj` needs: on create (no `old`) as upstream's allocateCreate,
   * on update as its allocateUpdate, where what `old` holds is kept without taking it again.
   * Each value taken is recorded in `taken`. With `dryRun` the values are filled in and
   * checked, and nothing is taken.
   */
  private async assign(obj: KubeObject, old: KubeObject | undefined, taken: Taken, dryRun: boolean): Promise<void> {
    const spec = ensureObject(obj as JsonObject, 'spec');
    const parent = parentOf(obj);
    const held = old === undefined ? undefined : this.holdingsOf(old);
    if (needsClusterIP(spec) && !isHeadless(spec)) await this.assignClusterIPs(spec, parent, held, taken, dryRun);
    if (usesNodePorts(spec) || needsHealthCheckNodePort(spec)) {
      await this.assignNodePorts(spec, parent.name, old === undefined ? undefined : serviceSpec(old), taken, dryRun);
    }
  }

  private async assignClusterIPs(spec: JsonObject, parent: ServiceRef, held: Holdings | undefined, taken: Taken, dryRun: boolean): Promise<void> {
    const name = parent.name;
    const heldIP = (ip: IP) => held?.ips.some((x) => x.family === ip.family && x.value === ip.value) ?? false;
    const requested = clusterIPsOf(spec);
    if (requested.length === 0 && stringAt(spec, 'clusterIP') !== '') requested.push(stringAt(spec, 'clusterIP'));
    const families = this.familiesFor(spec, requested);
    const result: string[] = [];
    for (const [i, family] of families.entries()) {
      const pool = this.pools.get(family);
      const want = requested[i];
      if (pool === undefined) {
        throw invalid('Service', name, [invalidField(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster')]);
      }
      if (want !== undefined && want !== '') {
        const ip = parseIP(want);
        if (ip === undefined) throw internalError(`failed to parse service IP ${JSON.stringify(want)}`);
        if (!heldIP(ip)) {
          try {
            // Upstream's allocator for an address no served range holds (ErrMismatchedNetwork).
            if (ip.family !== family) throw new AllocationError(mismatchedNetwork);
            if (dryRun) await pool.check(ip.value, parent);
            else taken.ips.push({ ...ip, revision: await pool.reserve(ip.value, parent) });
          } catch (err) {
            if (!(err instanceof AllocationError)) throw err;
            const cause: StatusCause = invalidField('spec.clusterIPs', requested, `failed to allocate IP ${want}: ${err.message}`);
            throw invalid('Service', name, [cause]);
          }
        }
        result.push(formatIP(ip));
      } else {
        try {
          if (dryRun) {
            result.push(pool.text(pool.peek()));
          } else {
            const { value, revision } = await pool.next(parent);
            taken.ips.push({ family, value, revision });
            result.push(pool.text(value));
          }
        } catch (err) {
          if (!(err instanceof AllocationError)) throw err;
          throw internalError(`failed to allocate a serviceIP: ${err.message}`);
        }
      }
    }
    if (result.length > 0) {
      spec.clusterIPs = result;
      spec.clusterIP = result[0];
    }
  }

  /**
   * Node ports and the health check node port, in one transaction over the stored record.
   * The transaction may run more than once: each run works on its own copy of the ports.
   */
  private async assignNodePorts(spec: JsonObject, name: string, oldSpec: JsonObject | undefined, taken: Taken, dryRun: boolean): Promise<void> {
    const outcome = await this.nodePorts.transact((draft) => {
      const draftSpec: JsonObject = { ...spec, ports: structuredClone(spec.ports) };
      const newlyTaken: number[] = [];
      const ops = portOps(draft, newlyTaken, name);
      if (usesNodePorts(draftSpec)) {
        if (oldSpec === undefined) createNodePorts(draftSpec, ops);
        else updateNodePorts(draftSpec, oldSpec, ops);
      }
      // A health check node port the old service needed is its already (validation keeps it).
      if (needsHealthCheckNodePort(draftSpec) && (oldSpec === undefined || !needsHealthCheckNodePort(oldSpec))) {
        draftSpec.healthCheckNodePort = ops.healthCheck(numberAt(draftSpec, 'healthCheckNodePort') ?? 0);
      }
      return { ports: draftSpec.ports, healthCheckNodePort: draftSpec.healthCheckNodePort, newlyTaken };
    }, { dryRun });
    if (spec.ports !== undefined) spec.ports = outcome.ports;
    if (outcome.healthCheckNodePort !== undefined) spec.healthCheckNodePort = outcome.healthCheckNodePort;
    if (!dryRun) appendAll(taken.ports, outcome.newlyTaken);
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

function difference(a: Holdings, b: Holdings): Holdings {
  return {
    ips: a.ips.filter((ip) => !b.ips.some((x) => x.family === ip.family && x.value === ip.value)),
    ports: a.ports.filter((p) => !b.ports.includes(p)),
  };
}

/** What upstream's port allocation operation does, over one draft of the record, worded as its errors are. */
interface PortOps {
  /** Takes a requested node port of `spec.ports[i]`; 422 when out of range or taken, by this service too. */
  reserve(port: number, i: number): void;
  /** Takes the next free node port; 500 when the range is full. */
  next(): number;
  /** Takes the requested health check node port, or the next free one when 0; 500 when it cannot. */
  healthCheck(port: number): number;
}

function portOps(draft: PortDraft, newlyTaken: number[], name: string): PortOps {
  return {
    reserve(port, i) {
      try {
        draft.reserve(port);
        newlyTaken.push(port);
      } catch (err) {
        if (!(err instanceof AllocationError)) throw err;
        throw invalid('Service', name, [invalidField(`spec.ports[${i}].nodePort`, port, err.message)]);
      }
    },
    next() {
      try {
        const port = draft.next();
        newlyTaken.push(port);
        return port;
      } catch (err) {
        if (!(err instanceof AllocationError)) throw err;
        throw internalError(`failed to allocate a nodePort: ${err.message}`);
      }
    },
    // allocHealthCheckNodePort: its failures are 500s, the requested value in the message.
    healthCheck(port) {
      try {
        if (port === 0) {
          const next = draft.next();
          newlyTaken.push(next);
          return next;
        }
        draft.reserve(port);
        newlyTaken.push(port);
        return port;
      } catch (err) {
        if (!(err instanceof AllocationError)) throw err;
        const what = port === 0 ? 'a HealthCheck NodePort 0' : `requested HealthCheck NodePort ${port}`;
        throw internalError(`failed to allocate ${what}: ${err.message}`);
      }
    },
  };
}

const servicePortOf = (port: JsonObject) => (typeof port.port === 'number' ? port.port : 0);

/**
 * upstream's initNodePorts, on create: ports with the same port number (e.g. TCP and UDP 53)
 * share one node port, the one any of them asks for; requested values are honoured even when
 * the type allocates none itself. A node port asked for twice under different port numbers
 * is refused as taken, as upstream's second Allocate of it is.
 */
function createNodePorts(spec: JsonObject, ops: PortOps): void {
  const allocateMissing = needsNodePort(spec);
  const ports = servicePorts(spec);
  const byServicePort = new Map<number, number>();
  ports.forEach((port, i) => {
    const want = nodePortOf(port);
    if (want === 0 && !allocateMissing) return;
    const servicePort = servicePortOf(port);
    const already = byServicePort.get(servicePort);
    if (already === undefined) {
      const requested = nodePortOf(ports.find((p) => servicePortOf(p) === servicePort && nodePortOf(p) !== 0));
      if (requested !== 0) ops.reserve(requested, i);
      port.nodePort = requested !== 0 ? requested : ops.next();
      byServicePort.set(servicePort, port.nodePort as number);
    } else if (want !== already) {
      if (want === 0) port.nodePort = already;
      else ops.reserve(want, i);
    }
  });
}

/**
 * upstream's updateNodePorts: a requested node port the old service's ports did not hold is
 * taken (once, however many ports ask for it); a port lacking one gets a new one, not shared
 * with its namesakes as on create. What is no longer held is released on commit.
 */
function updateNodePorts(spec: JsonObject, oldSpec: JsonObject, ops: PortOps): void {
  const allocateMissing = needsNodePort(spec);
  const oldNodePorts = new Set(servicePorts(oldSpec).map(nodePortOf).filter((port) => port !== 0));
  const requestedHere = new Set<number>();
  servicePorts(spec).forEach((port, i) => {
    const want = nodePortOf(port);
    if (want === 0 && !allocateMissing) return;
    if (want === 0) {
      port.nodePort = ops.next();
    } else if (!oldNodePorts.has(want) && !requestedHere.has(want)) {
      ops.reserve(want, i);
      requestedHere.add(want);
    }
  });
}
