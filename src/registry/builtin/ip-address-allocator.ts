// ClusterIP allocation that every replica sharing the storage agrees on: each allocated
// address is a networking.k8s.io/v1 IPAddress object named for it, whose parentRef is the
// Service, created only if absent. Two replicas taking one address at the same moment
// cannot both create it: the loser moves on to another (a dynamic address) or answers
// that it is taken (a requested one). Releasing deletes the object. (kubernetes
// pkg/registry/core/service/ipallocator/ipallocator.go, on by default since 1.33.)

import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/index.ts';
import { isStorageError, type Backend, type KeyValue } from '../../storage/backend.ts';
import { decodeFromStorage, encodeForStorage } from '../codec.ts';
import { resourcePrefix } from '../keys.ts';
import { formatIP, parseIP } from '../validation/ip.ts';
import type { CIDR, IP } from '../validation/ip.ts';
import { objectAt, stringAt } from './object.ts';
import { AllocationError, nowTimestamp, rangeOffset } from './service-ranges.ts';

/** Upstream's ipallocator.ControllerName: the managed-by label of the IPAddresses it makes. */
export const ipAllocatorName = 'ipallocator.k8s.io';
export const managedByLabel = 'ipaddress.kubernetes.io/managed-by';
export const ipFamilyLabel = 'ipaddress.kubernetes.io/ip-family';

/** Where IPAddress objects are stored: the ipaddresses Store reads (and watches) them there. */
export const ipAddressesPrefix = resourcePrefix({ group: 'networking.k8s.io', resource: 'ipaddresses' });

/**
 * upstream's ErrMismatchedNetwork: what its allocator answers for a requested address no
 * served range holds (the network address and, for IPv4, the broadcast address count as
 * outside, as servicecidr's PrefixContainsIP has them).
 */
export const mismatchedNetwork = 'the provided network does not match the current range';

/** The Service an address is for. */
export interface ServiceRef {
  namespace: string;
  name: string;
}

/** The IPAddress upstream's allocator creates for a Service's address. */
export function ipAddressObject(ip: IP, parent: ServiceRef): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: {
      name: formatIP(ip),
      uid: randomUUID(),
      creationTimestamp: nowTimestamp(),
      labels: { [ipFamilyLabel]: ip.family, [managedByLabel]: ipAllocatorName },
    },
    // The core group's empty name is not written: ParentReference.group is omitempty.
    spec: { parentRef: { resource: 'services', namespace: parent.namespace, name: parent.name } },
  };
}

/** Whether a stored IPAddress names the Service as its parent. */
export function isParent(ipAddress: KubeObject, parent: ServiceRef): boolean {
  const ref = objectAt(objectAt(ipAddress, 'spec'), 'parentRef');
  return stringAt(ref, 'group') === '' && stringAt(ref, 'resource') === 'services'
    && stringAt(ref, 'namespace') === parent.namespace && stringAt(ref, 'name') === parent.name;
}

/** The stored IPAddress, or undefined when absent or unreadable (a corrupt value holds its address all the same). */
function decodeIPAddress(kv: KeyValue): KubeObject | undefined {
  try {
    return decodeFromStorage(kv);
  } catch {
    return undefined;
  }
}

/**
 * The usable addresses of one CIDR (less the network and, for IPv4, broadcast addresses).
 * Which addresses are taken is what storage holds; the pool remembers the ones it has
 * seen taken only to skip them when looking for a free one.
 */
export class IPAddressPool {
  readonly cidr: CIDR;
  readonly first: bigint;
  readonly count: bigint;
  private readonly offset: bigint;
  private readonly backend: Backend;
  /** The first address, kept for this Service (the primary range's, for default/kubernetes, as upstream). */
  private readonly firstFor: ServiceRef | undefined;
  /** Addresses known to be taken: a hint, refreshed from storage when it says the range is full. */
  private readonly known = new Set<bigint>();

  constructor(cidr: CIDR, backend: Backend, opts: { firstFor?: ServiceRef } = {}) {
    this.cidr = cidr;
    this.first = cidr.base + 1n;
    const count = cidr.size - (cidr.family === 'IPv4' ? 2n : 1n);
    this.count = count < 0n ? 0n : count;
    this.offset = rangeOffset(cidr.size, 16n, 256n, 16n);
    this.backend = backend;
    this.firstFor = this.count > 0n ? opts.firstFor : undefined;
  }

  contains(value: bigint): boolean {
    return value >= this.first && value < this.first + this.count;
  }

  text(value: bigint): string {
    return formatIP({ family: this.cidr.family, value });
  }

  private key(value: bigint): string {
    return ipAddressesPrefix + this.text(value);
  }

  /** Whether storage holds an IPAddress for the address. */
  async isAllocated(value: bigint): Promise<boolean> {
    return (await this.backend.get(this.key(value))) !== undefined;
  }

  /** What refuses a requested address before storage is asked: outside the range, or kept for another Service. */
  private checkRequested(value: bigint, parent: ServiceRef): void {
    if (!this.contains(value)) throw new AllocationError(mismatchedNetwork);
    if (value === this.first && this.firstFor !== undefined && (this.firstFor.namespace !== parent.namespace || this.firstFor.name !== parent.name)) {
      throw new AllocationError('provided IP is already allocated');
    }
  }

  /** Takes a requested address for `parent`: the IPAddress's revision. Throws AllocationError when out of range or taken. */
  async reserve(value: bigint, parent: ServiceRef): Promise<number> {
    this.checkRequested(value, parent);
    const revision = await this.create(value, parent);
    if (revision === undefined) throw new AllocationError('provided IP is already allocated');
    return revision;
  }

  /** Refuses as reserve would, taking nothing (a dry run). */
  async check(value: bigint, parent: ServiceRef): Promise<void> {
    this.checkRequested(value, parent);
    if (await this.isAllocated(value)) throw new AllocationError('provided IP is already allocated');
  }

  /**
   * Takes the first free address for `parent`, the upper band from the offset first, then
   * the lower band (upstream starts each band at a random address), so results are
   * deterministic. Addresses known taken are skipped; an address another replica took
   * meanwhile fails to create and the next is tried. When none seems free, what is taken
   * is read from storage again (other replicas may have released some) before the range
   * counts as full.
   */
  async next(parent: ServiceRef): Promise<{ value: bigint; revision: number }> {
    for (let pass = 0; pass < 2; pass++) {
      for (const value of this.candidates()) {
        if (this.known.has(value)) continue;
        const revision = await this.create(value, parent);
        if (revision !== undefined) return { value, revision };
      }
      if (pass === 0) await this.refresh();
    }
    throw new AllocationError('range is full');
  }

  /** The address next() would try first, taking nothing (a dry run). */
  peek(): bigint {
    for (const value of this.candidates()) if (!this.known.has(value)) return value;
    throw new AllocationError('range is full');
  }

  /** Deletes the address's IPAddress if it names `parent`: another Service's stays. Failures are left for restore's repair. */
  async release(value: bigint, parent: ServiceRef): Promise<void> {
    try {
      const kv = await this.backend.get(this.key(value));
      const stored = kv === undefined ? undefined : decodeIPAddress(kv);
      if (kv === undefined) this.known.delete(value);
      if (kv === undefined || stored === undefined || !isParent(stored, parent)) return;
      await this.backend.delete(kv.key, kv.modRevision);
      this.known.delete(value);
    } catch (err) {
      if (!isStorageError(err)) throw err;
    }
  }

  /** Deletes the IPAddress this pool created at `revision` (its Service's write failed). */
  async revert(value: bigint, revision: number): Promise<void> {
    try {
      await this.backend.delete(this.key(value), revision);
      this.known.delete(value);
    } catch (err) {
      if (!isStorageError(err)) throw err;
      if (isStorageError(err, 'KeyNotFound')) this.known.delete(value);
    }
  }

  /** Replaces the hint with the stored addresses (IPAddress names) that fall in this pool. */
  adopt(names: Iterable<string>): void {
    this.known.clear();
    for (const name of names) {
      const ip = parseIP(name);
      if (ip !== undefined && ip.family === this.cidr.family && this.contains(ip.value)) this.known.add(ip.value);
    }
  }

  private async refresh(): Promise<void> {
    const { items } = await this.backend.list(ipAddressesPrefix, { countRemaining: false });
    this.adopt(items.map((kv) => kv.key.slice(ipAddressesPrefix.length)));
  }

  /** The create that decides: the IPAddress's revision, or undefined when the address is held. */
  private async create(value: bigint, parent: ServiceRef): Promise<number | undefined> {
    // Known before the write, so that this replica's concurrent allocations try other addresses.
    this.known.add(value);
    try {
      return await this.backend.create(this.key(value), encodeForStorage(ipAddressObject({ family: this.cidr.family, value }, parent)));
    } catch (err) {
      if (isStorageError(err, 'KeyExists')) return undefined;
      this.known.delete(value);
      throw err;
    }
  }

  private *candidates(): Generator<bigint> {
    const start = this.offset < this.count ? this.offset : 0n;
    for (const [from, to] of [[start, this.count], [0n, start]] as const) {
      for (let i = from; i < to; i++) {
        const value = this.first + i;
        if (value === this.first && this.firstFor !== undefined) continue;
        yield value;
      }
    }
  }
}
