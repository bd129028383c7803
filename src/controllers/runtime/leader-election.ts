// Leader election over a coordination.k8s.io/v1 Lease, after client-go's
// tools/leaderelection (leaderelection.go, resourcelock/leaselock.go): candidates read
// the Lease and write it with resourceVersion preconditions through the same Store API
// clients use, so that of two writers of one version only one succeeds.
//
// As upstream, a candidate trusts no timestamp in the Lease: it only notes when it last
// saw the record change (its observed time), and holds the lease expired once
// leaseDurationSeconds have passed on its own clock since then without a change. The
// holder renews every retry period; when renewing keeps failing for the renew
// deadline it stops leading (onStoppedLeading) and, unlike kube-controller-manager
// (which exits), goes back to trying to acquire. close() stops leading first, then
// releases the lease (upstream's ReleaseOnCancel) so that another candidate takes
// it at its next try instead of waiting for it to expire.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { isStatusError, type KubeObject } from '../../api/index.ts';
import type { Store } from '../../registry/store.ts';
import { sleep, systemClock, type Clock } from './clock.ts';

/** What an elector needs of the leases Store. */
export type LeaseStore = Pick<Store, 'find' | 'create' | 'update'>;

/** Upstream's LeaderElectionRecord: the election's part of a Lease's spec. */
export interface LeaderElectionRecord {
  /** Empty: nobody holds the lease, anyone may take it at once. */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** MicroTime strings, as the Lease holds them. */
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

/** kube-controller-manager's defaults (--leader-elect-lease-duration, -renew-deadline, -retry-period). */
export const defaultLeaderElectionTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** Waits between acquire attempts are retryPeriod × [1, 1 + JitterFactor), as upstream's wait.JitterUntil. */
const jitterFactor = 1.2;

export interface LeaderElectorOptions {
  leases: LeaseStore;
  /** Where the Lease lives, e.g. kube-system/plinth-controllers. */
  namespace: string;
  name: string;
  /** This candidate's holderIdentity (default `<hostname>_<uuid>`, as kube-controller-manager). */
  identity?: string;
  /** How long others wait, from when they last saw the lease change, before taking it over (default 15 s). */
  leaseDurationMs?: number;
  /** How long the leader keeps trying to renew before it stops leading (default 10 s). */
  renewDeadlineMs?: number;
  /** Between attempts to acquire or renew (default 2 s). */
  retryPeriodMs?: number;
  /**
   * The lease's storage is this process's alone (sqlite, which it locks, or memory): no
   * other candidate can be alive on it, so a holder found there is left from an
   * earlier run that did not release it, and is not waited for.
   */
  privateStorage?: boolean;
  clock?: Clock;
  /** For the acquire jitter (tests make it 0). */
  random?: () => number;
  /** Called when this candidate becomes the leader; what it starts runs beside the renewals. */
  onStartedLeading(): void;
  /** Called when it stops leading; awaited before it tries to acquire again or releases the lease. */
  onStoppedLeading(): void | Promise<void>;
  log: (message: string) => void;
}

/** Upstream's default identity for kube-controller-manager: the host name, an underscore and a UUID. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** Upstream's NewLeaderElector checks: answers what is wrong with the timings, if anything. */
export function leaderElectionTimingsProblem(t: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number }): string | undefined {
  if (!(t.leaseDurationMs > 0) || !(t.renewDeadlineMs > 0) || !(t.retryPeriodMs > 0)) return 'lease duration, renew deadline and retry period must be greater than zero';
  if (t.leaseDurationMs <= t.renewDeadlineMs) return 'the lease duration must be greater than the renew deadline';
  if (t.renewDeadlineMs <= jitterFactor * t.retryPeriodMs) return `the renew deadline must be greater than the retry period × ${jitterFactor}`;
  return undefined;
}

/** meta/v1 MicroTime: RFC 3339 with six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function recordOf(lease: KubeObject): LeaderElectionRecord {
  const spec = (lease.spec ?? {}) as Partial<Record<keyof LeaderElectionRecord, unknown>>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const count = (v: unknown) => (typeof v === 'number' ? v : 0);
  return {
    holderIdentity: text(spec.holderIdentity),
    leaseDurationSeconds: count(spec.leaseDurationSeconds),
    acquireTime: text(spec.acquireTime),
    renewTime: text(spec.renewTime),
    leaseTransitions: count(spec.leaseTransitions),
  };
}

export class LeaderElector {
  readonly identity: string;
  readonly #leases: LeaseStore;
  readonly #namespace: string;
  readonly #name: string;
  readonly #leaseDurationMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #privateStorage: boolean;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #onStartedLeading: () => void;
  readonly #onStoppedLeading: () => void | Promise<void>;
  readonly #log: (message: string) => void;
  /** The record as last read or written, and when (on our clock) it was last seen to change. */
  #observed: LeaderElectionRecord | undefined;
  #observedRaw = '';
  #observedTime = 0;
  /** The Lease as last read or written: updates carry its resourceVersion. */
  #lease: KubeObject | undefined;
  #leading = false;
  #closed = false;
  #loop: Promise<void> | undefined;
  #pause: { cancel(): void } | undefined;
  /** An attempt the renew deadline gave up on may still be writing: the next one waits for it. */
  #inFlight: Promise<unknown> = Promise.resolve();

  constructor(opts: LeaderElectorOptions) {
    const timings = { ...defaultLeaderElectionTimings, ...definedOnly(opts) };
    const problem = leaderElectionTimingsProblem(timings);
    if (problem !== undefined) throw new Error(`leader election: ${problem}`);
    this.identity = opts.identity ?? defaultIdentity();
    if (this.identity === '') throw new Error('leader election: the identity is empty');
    this.#leases = opts.leases;
    this.#namespace = opts.namespace;
    this.#name = opts.name;
    this.#leaseDurationMs = timings.leaseDurationMs;
    this.#renewDeadlineMs = timings.renewDeadlineMs;
    this.#retryPeriodMs = timings.retryPeriodMs;
    this.#privateStorage = opts.privateStorage ?? false;
    this.#clock = opts.clock ?? systemClock;
    this.#random = opts.random ?? Math.random;
    this.#onStartedLeading = opts.onStartedLeading;
    this.#onStoppedLeading = opts.onStoppedLeading;
    this.#log = opts.log;
  }

  /** "namespace/name", as upstream's Describe. */
  get description(): string {
    return `${this.#namespace}/${this.#name}`;
  }

  /** The holder last observed ('' when none). */
  get leader(): string {
    return this.#observed?.holderIdentity ?? '';
  }

  /** Whether the record last observed names this candidate (upstream's IsLeader). */
  get isLeader(): boolean {
    return this.#observed !== undefined && this.#observed.holderIdentity === this.identity;
  }

  /** Between onStartedLeading and onStoppedLeading. */
  get leading(): boolean {
    return this.#leading;
  }

  /**
   * Starts campaigning. Resolves after the first attempt to acquire the lease: by then,
   * if it succeeded, onStartedLeading has been called (so that a lone server starts its
   * controllers at once); otherwise the attempts go on in the background.
   */
  start(): Promise<void> {
    if (this.#loop !== undefined) throw new Error('leader election: already started');
    const firstAttempt = Promise.withResolvers<void>();
    this.#loop = this.#run(firstAttempt.resolve);
    return firstAttempt.promise;
  }

  /** Stops campaigning: a leader stops leading (awaiting onStoppedLeading), then releases the lease. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#pause?.cancel();
    await this.#loop;
  }

  async #run(attempted: () => void): Promise<void> {
    try {
      while (!this.#closed) {
        if (!(await this.#acquire(attempted))) break;
        this.#leading = true;
        this.#log(`leader election: acquired lease ${this.description} as ${this.identity}`);
        try {
          this.#onStartedLeading();
        } catch (err) {
          this.#log(`leader election: onStartedLeading failed: ${(err as Error).message}`);
        }
        attempted();
        await this.#renew();
        if (!this.#closed) this.#log(`leader election: failed to renew lease ${this.description} within ${this.#renewDeadlineMs} ms: stopped leading`);
        try {
          await this.#onStoppedLeading();
        } catch (err) {
          this.#log(`leader election: onStoppedLeading failed: ${(err as Error).message}`);
        }
        this.#leading = false;
      }
      await this.#release();
    } finally {
      attempted();
    }
  }

  /** Tries until it holds the lease (true) or is closed (false). */
  async #acquire(attempted: () => void): Promise<boolean> {
    while (!this.#closed) {
      if (await this.#attempt()) return !this.#closed;
      attempted();
      await this.#pauseFor(this.#retryPeriodMs * (1 + this.#random() * jitterFactor));
    }
    return false;
  }

  /** Renews every retry period; returns when closed, or when a renewal did not succeed within the renew deadline. */
  async #renew(): Promise<void> {
    while (!this.#closed) {
      await this.#pauseFor(this.#retryPeriodMs);
      if (this.#closed) return;
      // Upstream's PollImmediateUntil under a renew-deadline context: retried every retry period until the deadline.
      const deadline = this.#clock.now() + this.#renewDeadlineMs;
      const expiry = sleep(this.#clock, this.#renewDeadlineMs);
      const expired = expiry.done.then(() => false);
      let renewed = false;
      try {
        while (!this.#closed && !renewed && this.#clock.now() < deadline) {
          renewed = await Promise.race([this.#attempt(), expired]);
          if (!renewed && !this.#closed && this.#clock.now() < deadline) {
            await Promise.race([this.#pauseFor(Math.min(this.#retryPeriodMs, deadline - this.#clock.now())), expired]);
          }
        }
      } finally {
        expiry.cancel();
      }
      if (!renewed) return;
    }
  }

  /** One tryAcquireOrRenew, after any attempt still in flight. */
  #attempt(): Promise<boolean> {
    const attempt = this.#inFlight.then(() => this.tryAcquireOrRenew()).catch((err: unknown) => {
      this.#log(`leader election: ${(err as Error).message}`);
      return false;
    });
    this.#inFlight = attempt;
    return attempt;
  }

  async #pauseFor(ms: number): Promise<void> {
    if (this.#closed) return;
    const pause = sleep(this.#clock, ms);
    this.#pause = pause;
    await pause.done;
    if (this.#pause === pause) this.#pause = undefined;
  }

  /**
   * Upstream's tryAcquireOrRenew: acquires the lease if nobody holds it, it expired or
   * it is ours, or renews it; answers whether this candidate holds it now. Never throws:
   * a failed read or write is logged and answers false.
   */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = microTime(this.#clock.now());
    const desired: LeaderElectionRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.#leaseDurationMs / 1000)),
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    // 1. The leader's fast path: write over the version it last wrote.
    if (this.isLeader && this.#isLeaseValid()) {
      desired.acquireTime = this.#observed!.acquireTime;
      desired.leaseTransitions = this.#observed!.leaseTransitions;
      try {
        await this.#update(desired);
        this.#setObserved(desired);
        return true;
      } catch (err) {
        if (!(isStatusError(err) && err.reason === 'Conflict')) this.#log(`leader election: failed to update lease ${this.description} optimistically: ${(err as Error).message}; falling back to the slow path`);
      }
    }
    // 2. Read the lease, or create it.
    let lease: KubeObject | undefined;
    try {
      lease = await this.#leases.find(this.#namespace, this.#name);
    } catch (err) {
      this.#log(`leader election: error retrieving lease ${this.description}: ${(err as Error).message}`);
      return false;
    }
    if (lease === undefined) {
      try {
        this.#lease = await this.#leases.create(this.#namespace, {
          apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.#name, namespace: this.#namespace }, spec: { ...desired },
        });
      } catch (err) {
        // Another candidate created it first: it holds it now.
        if (!(isStatusError(err) && err.reason === 'AlreadyExists')) this.#log(`leader election: error creating lease ${this.description}: ${(err as Error).message}`);
        return false;
      }
      this.#setObserved(desired);
      return true;
    }
    // 3. Note when the record last changed; a valid lease of another holder is not ours to take.
    this.#lease = lease;
    const stored = recordOf(lease);
    const raw = JSON.stringify(stored);
    if (raw !== this.#observedRaw) {
      this.#setObserved(stored);
      this.#observedRaw = raw;
    }
    if (stored.holderIdentity !== '' && !this.isLeader && this.#isLeaseValid() && !this.#privateStorage) return false;
    // 4. Take it over (one more transition) or renew it (ours already).
    if (this.isLeader) {
      desired.acquireTime = stored.acquireTime;
      desired.leaseTransitions = stored.leaseTransitions;
    } else {
      desired.leaseTransitions = stored.leaseTransitions + 1;
    }
    try {
      await this.#update(desired);
    } catch (err) {
      if (!(isStatusError(err) && err.reason === 'Conflict')) this.#log(`leader election: failed to update lease ${this.description}: ${(err as Error).message}`);
      return false;
    }
    this.#setObserved(desired);
    return true;
  }

  /**
   * Upstream's release: a holder writes the record with no holder (and a one-second
   * duration), keeping the transition count, so that the next candidate acquires it at
   * its next try.
   */
  async #release(): Promise<void> {
    // A storage that does not answer must not hold up a shutdown: the lease then runs out instead.
    const deadline = sleep(this.#clock, this.#renewDeadlineMs);
    const release = this.#inFlight.then(async () => {
      if (!this.isLeader) return;
      const now = microTime(this.#clock.now());
      const released: LeaderElectionRecord = {
        holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaseTransitions: this.#observed!.leaseTransitions,
      };
      await this.#update(released);
      this.#setObserved(released);
    });
    const outcome = await Promise.race([release.then(() => 'released', (err: unknown) => err as Error), deadline.done.then(() => 'late')]);
    deadline.cancel();
    if (outcome === 'late') this.#log(`leader election: releasing lease ${this.description} took longer than ${this.#renewDeadlineMs} ms; others take it once it expires`);
    else if (outcome instanceof Error) this.#log(`leader election: failed to release lease ${this.description}: ${outcome.message}`);
  }

  /** Writes `record` as the spec of the Lease last seen, at its resourceVersion (409 if it changed since). */
  async #update(record: LeaderElectionRecord): Promise<void> {
    const lease = this.#lease;
    if (lease === undefined) throw new Error('the lease was not read yet');
    const { object } = await this.#leases.update(this.#namespace, this.#name, { ...lease, spec: { ...record } });
    this.#lease = object;
  }

  #setObserved(record: LeaderElectionRecord): void {
    this.#observed = record;
    this.#observedTime = this.#clock.now();
  }

  /** Upstream's isLeaseValid: the observed record has not gone unchanged for its lease duration. */
  #isLeaseValid(): boolean {
    return this.#observed !== undefined && this.#observedTime + this.#observed.leaseDurationSeconds * 1000 > this.#clock.now();
  }
}

function definedOnly(opts: LeaderElectorOptions): Partial<typeof defaultLeaderElectionTimings> {
  const timings: Partial<typeof defaultLeaderElectionTimings> = {};
  if (opts.leaseDurationMs !== undefined) timings.leaseDurationMs = opts.leaseDurationMs;
  if (opts.renewDeadlineMs !== undefined) timings.renewDeadlineMs = opts.renewDeadlineMs;
  if (opts.retryPeriodMs !== undefined) timings.retryPeriodMs = opts.retryPeriodMs;
  return timings;
}
