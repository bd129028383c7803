// The server's identity lease, as upstream's APIServerIdentity controllers keep it: a Lease in
// kube-system named after the host (`apiserver-<hash>`, the same across restarts), labelled
// `apiserver.kubernetes.io/identity: kube-apiserver` and with the host's name, renewed every
// 10 s under a holder identity new at each start; and the collector of the identity leases
// that expired (a server gone for good), at start and every hour.

import { createHash, randomUUID } from 'node:crypto';
import { isStatusError, type KubeObject } from '../api/index.ts';
import type { ResourceRegistry } from './registry.ts';

const namespace = 'kube-system';
const identityLabel = 'apiserver.kubernetes.io/identity';
const identity = 'kube-apiserver';
const hostnameLabel = 'kubernetes.io/hostname';

/** RFC 4648 base32 without padding, as Go's StdEncoding.WithPadding(NoPadding). */
function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/**
 * The server's identity as upstream derives it from the host's name: `apiserver-` and the
 * lower-case base32 of the first 16 bytes of SHA-256 over the length-prefixed host name and
 * `kube-apiserver`.
 */
export function apiServerIdentity(hostname: string): string {
  const part = (text: string) => {
    const bytes = Buffer.from(text);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(bytes.length);
    return [length, bytes];
  };
  const hash = createHash('sha256').update(Buffer.concat([...part(hostname), ...part(identity)])).digest();
  return `apiserver-${base32(hash.subarray(0, 16)).toLowerCase()}`;
}

/** MicroTime as a Lease's renewTime carries it. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export interface IdentityLeaseOptions {
  registry: ResourceRegistry;
  hostname: string;
  /** `--identity-lease-duration-seconds` (3600) and `--identity-lease-renew-interval-seconds` (10). */
  durationSeconds: number;
  renewIntervalSeconds: number;
  /** How often expired identity leases are collected (upstream's hour). */
  gcPeriodMs?: number;
  now?: () => number;
  log: (message: string) => void;
}

export class IdentityLeaseController {
  readonly name: string;
  readonly holderIdentity: string;
  readonly #opts: IdentityLeaseOptions;
  readonly #now: () => number;
  #timers: NodeJS.Timeout[] = [];
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(opts: IdentityLeaseOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.name = apiServerIdentity(opts.hostname);
    this.holderIdentity = `${this.name}_${randomUUID()}`;
  }

  /** Renews the lease now and every interval; collects expired identity leases now and every period. */
  start(): void {
    const every = (work: () => Promise<void>, what: string, ms: number) => {
      const tick = () => {
        if (this.#stopped) return;
        this.#running = this.#running.then(work).catch((err: unknown) => this.#opts.log(`${what}: ${(err as Error).message}`));
        void this.#running.then(() => {
          if (!this.#stopped) this.#timers.push(setTimeout(tick, ms).unref());
        });
      };
      tick();
    };
    every(() => this.#renew(), 'renewing the apiserver identity lease', this.#opts.renewIntervalSeconds * 1000);
    every(() => this.#collect(), 'collecting expired apiserver identity leases', this.#opts.gcPeriodMs ?? 3_600_000);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
    await this.#running;
  }

  #store() {
    return this.#opts.registry.lookup('coordination.k8s.io', 'v1', 'leases')?.store;
  }

  /** The lease as this server holds it now: its labels, holder, duration and renew time set. */
  #hold(lease: KubeObject): KubeObject {
    lease.metadata.labels = { ...lease.metadata.labels, [identityLabel]: identity, [hostnameLabel]: this.#opts.hostname };
    const spec = (lease.spec ?? {}) as Record<string, unknown>;
    lease.spec = { ...spec, holderIdentity: this.holderIdentity, leaseDurationSeconds: this.#opts.durationSeconds, renewTime: microTime(this.#now()) };
    return lease;
  }

  async #renew(): Promise<void> {
    const store = this.#store();
    if (store === undefined) return;
    if ((await store.find(namespace, this.name)) === undefined) {
      try {
        await store.create(namespace, this.#hold({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.name, namespace } }));
        return;
      } catch (err) {
        // Made meanwhile (another replica on the same host): renewed below.
        if (!(isStatusError(err) && err.reason === 'AlreadyExists')) throw err;
      }
    }
    await store.guaranteedUpdate(namespace, this.name, undefined, {}, (current) => this.#hold(current!), { createIfMissing: false });
  }

  /** Deletes the identity leases whose renew time is more than their duration ago, as upstream's collector. */
  async #collect(): Promise<void> {
    const store = this.#store();
    if (store === undefined) return;
    const now = this.#now();
    // kube-system holds a handful of leases: listed whole, the identity ones picked here.
    const leases = (await store.list(namespace)).items.map((item) => item.object).filter((lease) => lease.metadata.labels?.[identityLabel] === identity);
    for (const lease of leases) {
      const spec = (lease.spec ?? {}) as { renewTime?: string; leaseDurationSeconds?: number };
      const renewed = spec.renewTime === undefined ? Number.NaN : Date.parse(spec.renewTime);
      const expired = Number.isNaN(renewed) || spec.leaseDurationSeconds === undefined || renewed + spec.leaseDurationSeconds * 1000 < now;
      if (!expired) continue;
      await store.delete(namespace, lease.metadata.name!, { preconditions: { resourceVersion: lease.metadata.resourceVersion } }).catch((err: unknown) => {
        // Renewed or deleted meanwhile: left alone.
        if (!(isStatusError(err) && (err.code === 409 || err.code === 404))) throw err;
      });
    }
  }
}
