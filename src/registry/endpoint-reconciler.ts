// The `kubernetes` Service's endpoints with several replicas, as upstream's lease endpoint
// reconciler keeps them (`--endpoint-reconciler-type lease`, the default): every replica
// holds a lease on its address in storage (`/registry/masterleases/<ip>`, written with a time
// to live and renewed well before it lapses), and the Endpoints and EndpointSlice name the
// addresses of every live lease. A replica that stops removes its lease at once; one that
// dies is dropped when its lease expires.

import { isStatusError, type KubeObject } from '../api/index.ts';
import { isStorageError, type Backend } from '../storage/backend.ts';
import type { ResourceRegistry } from './registry.ts';
import { semanticEqual } from './builtin/object.ts';

const leasePrefix = '/registry/masterleases/';

export interface LeaseEndpointReconcilerOptions {
  registry: ResourceRegistry;
  backend: Backend;
  /** This replica's advertised address and port. */
  address: string;
  port: number;
  /** Upstream's 15 s lease and 10 s reconcile interval; tests shorten them. */
  leaseTtlSeconds?: number;
  intervalMs?: number;
  log: (message: string) => void;
}

/** The kubernetes Endpoints' subsets and EndpointSlice's endpoints for these addresses. */
export function kubernetesEndpoints(addresses: readonly string[], port: number): { endpoints: KubeObject; slice: KubeObject } {
  const ports = [{ name: 'https', port, protocol: 'TCP' }];
  return {
    endpoints: {
      apiVersion: 'v1', kind: 'Endpoints',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: [{ addresses: addresses.map((ip) => ({ ip })), ports }],
    },
    slice: {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
      addressType: addresses[0]?.includes(':') === true ? 'IPv6' : 'IPv4',
      endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports,
    },
  };
}

export class LeaseEndpointReconciler {
  readonly #opts: LeaseEndpointReconcilerOptions;
  readonly #key: string;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(opts: LeaseEndpointReconcilerOptions) {
    this.#opts = opts;
    this.#key = `${leasePrefix}${opts.address}`;
  }

  /** Reconciles now and then every interval. */
  start(): void {
    if (this.#stopped) return;
    const tick = () => {
      this.#running = this.#reconcile(true).catch((err: unknown) => this.#opts.log(`reconciling the kubernetes endpoints: ${(err as Error).message}`));
      void this.#running.then(() => {
        if (!this.#stopped) this.#timer = setTimeout(tick, this.#opts.intervalMs ?? 10_000).unref();
      });
    };
    tick();
  }

  /** Stops, removes this replica's lease and reconciles once without it: the others' addresses remain. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    try {
      await this.#opts.backend.delete(this.#key).catch((err: unknown) => {
        if (!isStorageError(err, 'KeyNotFound')) throw err;
      });
      await this.#reconcile(false);
    } catch (err) {
      this.#opts.log(`removing this server from the kubernetes endpoints: ${(err as Error).message}`);
    }
  }

  async #reconcile(holdLease: boolean): Promise<void> {
    const { backend, registry, port } = this.#opts;
    if (holdLease) await this.#renewLease();
    const leases = await backend.list(leasePrefix);
    const addresses = leases.items.map((kv) => kv.key.slice(leasePrefix.length)).sort();
    // With no lease left (the last replica stopping), the endpoints are left as they are.
    if (addresses.length === 0) return;
    const { endpoints, slice } = kubernetesEndpoints(addresses, port);
    await ensureField(registry, '', 'v1', 'endpoints', endpoints, 'subsets');
    await ensureField(registry, 'discovery.k8s.io', 'v1', 'endpointslices', slice, 'endpoints', 'ports', 'addressType');
  }

  async #renewLease(): Promise<void> {
    const { backend, address } = this.#opts;
    const ttlSeconds = this.#opts.leaseTtlSeconds ?? 15;
    // An Endpoints naming the address, as upstream's lease holds.
    const value = Buffer.from(JSON.stringify({ kind: 'Endpoints', apiVersion: 'v1', metadata: { name: address }, subsets: [{ addresses: [{ ip: address }] }] }));
    const current = await backend.get(this.#key);
    try {
      if (current === undefined) await backend.create(this.#key, value, { ttlSeconds });
      else await backend.update(this.#key, value, current.modRevision, { ttlSeconds });
    } catch (err) {
      // Another write came between: the next round renews it.
      if (!isStorageError(err, 'KeyExists') && !isStorageError(err, 'RevisionMismatch') && !isStorageError(err, 'KeyNotFound')) throw err;
    }
  }
}

/** Creates `desired`, or brings the named fields of the stored object to it. */
async function ensureField(registry: ResourceRegistry, group: string, version: string, resource: string, desired: KubeObject, ...fields: string[]): Promise<void> {
  const store = registry.lookup(group, version, resource)?.store;
  if (store === undefined) return;
  const current = await store.find('default', 'kubernetes');
  if (current === undefined) {
    await store.create('default', structuredClone(desired)).catch((err: unknown) => {
      if (!(isStatusError(err) && err.reason === 'AlreadyExists')) throw err;
    });
    return;
  }
  if (fields.every((f) => semanticEqual(current[f], desired[f]))) return;
  await store.guaranteedUpdate('default', 'kubernetes', undefined, {}, (obj) => {
    const next = obj!;
    for (const f of fields) next[f] = structuredClone(desired[f]);
    return next;
  }, { createIfMissing: false });
}
