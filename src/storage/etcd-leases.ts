// The leases keys with a time to live are written under on etcd, reused as kube-apiserver's
// lease manager reuses them: granting one per write would cost etcd a lease (and a raft
// round) per Event. A lease is granted for the time to live plus a reuse window (a tenth
// of it, at most 60 s) and serves every write asking for the same time to live while it
// still outlives it by no more than the window, up to 1,000 keys.

/** `--lease-reuse-duration-seconds`' default. */
const REUSE_SECONDS_MAX = 60;
const REUSE_FRACTION = 0.1;
const KEYS_PER_LEASE = 1000;

interface Lease {
  id: string;
  /** When etcd lets it expire, in wall-clock milliseconds. */
  expiresAt: number;
  ttlSeconds: number;
  keys: number;
}

export class LeaseReuse {
  readonly #grant: (ttlSeconds: number) => Promise<string>;
  readonly #now: () => number;
  readonly #maxReuseSeconds: number;
  #last: Lease | undefined;
  /** Grants are asked one at a time, so writes arriving together share one. */
  #queue: Promise<unknown> = Promise.resolve();

  /** `grant` asks etcd for a lease of that many seconds and answers its ID; `maxReuseSeconds` caps the reuse window. */
  constructor(grant: (ttlSeconds: number) => Promise<string>, now: () => number = Date.now, maxReuseSeconds = REUSE_SECONDS_MAX) {
    this.#grant = grant;
    this.#now = now;
    this.#maxReuseSeconds = maxReuseSeconds;
  }

  /** A lease that keeps a key written now for at least `ttlSeconds`, and at most a reuse window longer. */
  leaseFor(ttlSeconds: number): Promise<string> {
    const next = this.#queue.then(() => this.#take(ttlSeconds));
    this.#queue = next.catch(() => {});
    return next;
  }

  async #take(ttlSeconds: number): Promise<string> {
    const reuse = Math.min(Math.floor(ttlSeconds * REUSE_FRACTION), this.#maxReuseSeconds);
    const now = this.#now();
    const last = this.#last;
    if (last !== undefined && last.ttlSeconds === ttlSeconds && last.keys < KEYS_PER_LEASE
      && last.expiresAt > now + ttlSeconds * 1000 && last.expiresAt <= now + (ttlSeconds + reuse) * 1000) {
      last.keys++;
      return last.id;
    }
    const id = await this.#grant(ttlSeconds + reuse);
    this.#last = { id, expiresAt: now + (ttlSeconds + reuse) * 1000, ttlSeconds, keys: 1 };
    return id;
  }
}
