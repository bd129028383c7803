import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError, type KubeObject } from '../../src/api/index.ts';
import { LeaderElector, leaderElectionTimingsProblem, type LeaderElectorOptions, type LeaseStore } from '../../src/controllers/runtime/index.ts';
import type { Store } from '../../src/registry/store.ts';
import { builtinType, memoryStore } from '../helpers/store.ts';
import { FakeClock } from './fake-clock.ts';

const namespace = 'kube-system';
const name = 'plinth-controllers';
/** kube-controller-manager's defaults. */
const leaseDurationMs = 15_000;
const renewDeadlineMs = 10_000;
const retryPeriodMs = 2_000;

/**
 * The leases Store, seen by each candidate through its own view, whose calls can be
 * made to fail (as an unreachable storage answers) or hang; settled() waits until no
 * call of any view is in flight.
 */
class Leases {
  readonly store: Store = memoryStore(builtinType('leases')).store;
  inFlight = 0;

  view(): LeaseView {
    return new LeaseView(this);
  }

  /** Resolves once no call is in flight (hung ones aside) and the callers have had their turns. */
  async settled(): Promise<void> {
    for (let quiet = 0; quiet < 3;) {
      await new Promise((resolve) => setImmediate(resolve));
      quiet = this.inFlight === 0 ? quiet + 1 : 0;
    }
  }

  lease(): Promise<KubeObject | undefined> {
    return this.store.find(namespace, name);
  }
}

class LeaseView implements LeaseStore {
  readonly #leases: Leases;
  failing: 'no' | 'error' | 'hang' = 'no';
  readonly #hung: (() => void)[] = [];

  constructor(leases: Leases) {
    this.#leases = leases;
  }

  find(ns: string, n: string) {
    return this.#call(() => this.#leases.store.find(ns, n));
  }

  create(ns: string, object: KubeObject) {
    return this.#call(() => this.#leases.store.create(ns, object));
  }

  update(ns: string, n: string, object: KubeObject) {
    return this.#call(() => this.#leases.store.update(ns, n, object));
  }

  /** Lets the hung calls fail now. */
  releaseHung(): void {
    for (const fail of this.#hung.splice(0)) fail();
  }

  async #call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.failing === 'error') throw new StatusError(500, 'InternalError', 'storage unavailable');
    if (this.failing === 'hang') {
      await new Promise<void>((resolve) => this.#hung.push(resolve));
      throw new StatusError(504, 'Timeout', 'storage did not answer');
    }
    this.#leases.inFlight++;
    try {
      return await fn();
    } finally {
      this.#leases.inFlight--;
    }
  }
}

interface Candidate {
  elector: LeaderElector;
  /** Its own view of the leases Store. */
  view: LeaseView;
  /** "started" and "stopped", in the order the callbacks were called. */
  events: string[];
}

function candidate(leases: Leases, clock: FakeClock, identity: string, opts: Partial<LeaderElectorOptions> = {}): Candidate {
  const events: string[] = [];
  const view = leases.view();
  const elector = new LeaderElector({
    leases: view, namespace, name, identity, leaseDurationMs, renewDeadlineMs, retryPeriodMs, clock, random: () => 0,
    onStartedLeading: () => void events.push('started'),
    onStoppedLeading: () => void events.push('stopped'),
    log: () => {},
    ...opts,
  });
  return { elector, view, events };
}

function specOf(lease: KubeObject | undefined): Record<string, unknown> {
  return (lease?.spec ?? {}) as Record<string, unknown>;
}

/** Moves the fake clock on in steps, letting the electors' storage calls finish in between, until `check` holds; answers the time it took. */
async function advanceUntil(clock: FakeClock, leases: Leases, check: () => boolean, what: string, maxMs = 120_000, stepMs = 100): Promise<number> {
  const start = clock.now();
  for (;;) {
    await leases.settled();
    if (check()) return clock.now() - start;
    if (clock.now() - start >= maxMs) throw new Error(`not within ${maxMs} ms of fake time: ${what}`);
    clock.advance(stepMs);
  }
}

/** Moves the fake clock on by `ms` in steps, letting storage calls finish in between. */
async function advanceBy(clock: FakeClock, leases: Leases, ms: number, stepMs = 100): Promise<void> {
  const until = clock.now() + ms;
  await advanceUntil(clock, leases, () => clock.now() >= until, `${ms} ms to pass`, ms, stepMs);
}

describe('tryAcquireOrRenew', () => {
  test('acquires when no lease exists: creates it with its identity, duration and equal acquire and renew times', async () => {
    const clock = new FakeClock();
    clock.advance(1_700_000_000_000);
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    assert.equal(await a.elector.tryAcquireOrRenew(), true);
    const spec = specOf(await leases.lease());
    assert.deepEqual(spec, {
      holderIdentity: 'a', leaseDurationSeconds: 15, acquireTime: '2023-11-14T22:13:20.000000Z', renewTime: '2023-11-14T22:13:20.000000Z', leaseTransitions: 0,
    });
    assert.equal(a.elector.isLeader, true);
  });

  test('does not acquire a lease another holder keeps renewing', async () => {
    const clock = new FakeClock();
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    const b = candidate(leases, clock, 'b');
    assert.equal(await a.elector.tryAcquireOrRenew(), true);
    for (let i = 0; i < 20; i++) {
      assert.equal(await b.elector.tryAcquireOrRenew(), false, `try ${i}`);
      clock.advance(retryPeriodMs);
      assert.equal(await a.elector.tryAcquireOrRenew(), true, `renewal ${i}`);
    }
    assert.equal(b.elector.leader, 'a');
    assert.equal(b.elector.isLeader, false);
    assert.equal(specOf(await leases.lease()).holderIdentity, 'a');
  });

  test('takes over a lease unchanged for its duration since first observed, whatever its renewTime says', async () => {
    const clock = new FakeClock();
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    const b = candidate(leases, clock, 'b');
    assert.equal(await a.elector.tryAcquireOrRenew(), true);
    // The renewTime is a minute old, but b has only just seen the record: it waits the duration from now.
    clock.advance(60_000);
    assert.equal(await b.elector.tryAcquireOrRenew(), false);
    clock.advance(leaseDurationMs - 1);
    assert.equal(await b.elector.tryAcquireOrRenew(), false);
    clock.advance(1);
    assert.equal(await b.elector.tryAcquireOrRenew(), true);
    const spec = specOf(await leases.lease());
    assert.equal(spec.holderIdentity, 'b');
    assert.equal(spec.leaseTransitions, 1);
    assert.equal(spec.acquireTime, spec.renewTime);
  });

  test('a renewal by the holder starts the others\' wait again', async () => {
    const clock = new FakeClock();
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    const b = candidate(leases, clock, 'b');
    await a.elector.tryAcquireOrRenew();
    assert.equal(await b.elector.tryAcquireOrRenew(), false);
    clock.advance(10_000);
    assert.equal(await a.elector.tryAcquireOrRenew(), true);
    clock.advance(6_000);
    // 16 s since b first saw the lease, but only 6 s since it changed.
    assert.equal(await b.elector.tryAcquireOrRenew(), false);
    clock.advance(leaseDurationMs);
    assert.equal(await b.elector.tryAcquireOrRenew(), true);
  });

  test('renewing keeps acquireTime and leaseTransitions and moves renewTime', async () => {
    const clock = new FakeClock();
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    await a.elector.tryAcquireOrRenew();
    const acquired = specOf(await leases.lease());
    clock.advance(retryPeriodMs);
    assert.equal(await a.elector.tryAcquireOrRenew(), true);
    const renewed = specOf(await leases.lease());
    assert.equal(renewed.acquireTime, acquired.acquireTime);
    assert.equal(renewed.leaseTransitions, 0);
    assert.equal(renewed.renewTime, '1970-01-01T00:00:02.000000Z');
  });

  test('leaseTransitions counts changes of holder, not renewals nor a holder acquiring its own lease again', async () => {
    const clock = new FakeClock();
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    const b = candidate(leases, clock, 'b');
    const transitions = async () => specOf(await leases.lease()).leaseTransitions;
    const rows: [string, () => Promise<boolean>, number][] = [
      ['a creates the lease', () => a.elector.tryAcquireOrRenew(), 0],
      ['a renews', () => a.elector.tryAcquireOrRenew(), 0],
      ['b observes it', async () => !(await b.elector.tryAcquireOrRenew()), 0],
      ['b takes it over after the duration', () => (clock.advance(leaseDurationMs), b.elector.tryAcquireOrRenew()), 1],
      ['a observes it', async () => !(await a.elector.tryAcquireOrRenew()), 1],
      ['a takes it back after the duration', () => (clock.advance(leaseDurationMs), a.elector.tryAcquireOrRenew()), 2],
      // A new elector with a's identity (a restart with the same name) finds the lease its own.
      ['a again, as a new elector', () => candidate(leases, clock, 'a').elector.tryAcquireOrRenew(), 2],
    ];
    for (const [row, step, expected] of rows) {
      assert.equal(await step(), true, row);
      assert.equal(await transitions(), expected, row);
    }
  });

  test('of two candidates taking over one expired lease, one wins (the other\'s write is refused by its resourceVersion)', async () => {
    const clock = new FakeClock();
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    const b = candidate(leases, clock, 'b');
    const c = candidate(leases, clock, 'c');
    await a.elector.tryAcquireOrRenew();
    await Promise.all([b.elector.tryAcquireOrRenew(), c.elector.tryAcquireOrRenew()]);
    clock.advance(leaseDurationMs);
    const won = await Promise.all([b.elector.tryAcquireOrRenew(), c.elector.tryAcquireOrRenew()]);
    assert.deepEqual(won.sort(), [false, true]);
    assert.equal(specOf(await leases.lease()).leaseTransitions, 1);
  });

  test('a failed read or write answers false and leaves the lease as it was', async () => {
    const clock = new FakeClock();
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    await a.elector.tryAcquireOrRenew();
    const before = specOf(await leases.lease());
    a.view.failing = 'error';
    clock.advance(retryPeriodMs);
    assert.equal(await a.elector.tryAcquireOrRenew(), false);
    assert.deepEqual(specOf(await leases.lease()), before);
  });

  test('on private storage, a holder left from an earlier run is not waited for', async () => {
    const clock = new FakeClock();
    const leases = new Leases();
    await candidate(leases, clock, 'earlier-run').elector.tryAcquireOrRenew();
    const shared = candidate(leases, clock, 'b');
    assert.equal(await shared.elector.tryAcquireOrRenew(), false);
    const alone = candidate(leases, clock, 'c', { privateStorage: true });
    assert.equal(await alone.elector.tryAcquireOrRenew(), true);
    assert.equal(specOf(await leases.lease()).holderIdentity, 'c');
  });
});

describe('LeaderElector', () => {
  test('start() resolves leading when nobody holds the lease, and not leading when another does', async (t) => {
    const clock = new FakeClock();
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    const b = candidate(leases, clock, 'b');
    t.after(async () => {
      await a.elector.close();
      await b.elector.close();
    });
    await a.elector.start();
    assert.deepEqual(a.events, ['started']);
    assert.equal(a.elector.leading, true);
    await b.elector.start();
    assert.deepEqual(b.events, []);
    assert.equal(b.elector.leading, false);
    assert.equal(b.elector.leader, 'a');
    // The leader renews every retry period; the other keeps waiting.
    await advanceBy(clock, leases, 60_000);
    assert.deepEqual(a.events, ['started']);
    assert.deepEqual(b.events, []);
    assert.equal(specOf(await leases.lease()).renewTime, '1970-01-01T00:01:00.000000Z');
  });

  test('close() stops leading, then releases the lease: no holder, times of the release, transitions kept; the next candidate takes it at its next try', async (t) => {
    const clock = new FakeClock();
    const leases = new Leases();
    const order: string[] = [];
    const a = candidate(leases, clock, 'a', {
      onStartedLeading: () => {},
      onStoppedLeading: async () => {
        order.push(`stopped with holder ${String(specOf(await leases.lease()).holderIdentity)}`);
      },
    });
    const b = candidate(leases, clock, 'b');
    t.after(() => b.elector.close());
    await a.elector.start();
    await b.elector.start();
    clock.advance(5_000);
    await a.elector.close();
    const released = specOf(await leases.lease());
    assert.deepEqual(order, ['stopped with holder a']);
    assert.deepEqual(released, {
      holderIdentity: '', leaseDurationSeconds: 1, acquireTime: '1970-01-01T00:00:05.000000Z', renewTime: '1970-01-01T00:00:05.000000Z', leaseTransitions: 0,
    });
    assert.equal(a.elector.leading, false);
    const waited = await advanceUntil(clock, leases, () => b.elector.leading, 'b to lead');
    assert.ok(waited <= retryPeriodMs, `b took ${waited} ms`);
    assert.equal(specOf(await leases.lease()).holderIdentity, 'b');
    assert.equal(specOf(await leases.lease()).leaseTransitions, 1);
  });

  test('a leader that stops renewing without releasing is succeeded within the lease duration and a retry period', async (t) => {
    const clock = new FakeClock();
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    const b = candidate(leases, clock, 'b');
    t.after(async () => {
      a.view.failing = 'no';
      a.view.releaseHung();
      await a.elector.close();
      await b.elector.close();
    });
    await a.elector.start();
    await b.elector.start();
    await advanceBy(clock, leases, 7_000);
    // a's storage calls no longer answer, as for a process that hangs or lost its network.
    a.view.failing = 'hang';
    const waited = await advanceUntil(clock, leases, () => b.elector.leading, 'b to take over');
    // Its last renewal was at most a retry period ago; b then looks every retry period (no jitter here).
    assert.ok(waited <= leaseDurationMs + retryPeriodMs, `b took ${waited} ms`);
    assert.equal(specOf(await leases.lease()).holderIdentity, 'b');
    assert.deepEqual(b.events, ['started']);
  });

  test('a leader whose renewals keep failing stops leading at the renew deadline, before the lease runs out for others, and tries to acquire again', async (t) => {
    for (const failing of ['error', 'hang'] as const) {
      await t.test(`storage calls ${failing === 'error' ? 'fail' : 'hang'}`, async () => {
        const clock = new FakeClock();
        const leases = new Leases();
        const a = candidate(leases, clock, 'a');
        await a.elector.start();
        // Renewals at 2 s, 4 s, 6 s succeed; from 6.5 s on they fail.
        await advanceBy(clock, leases, 6_500);
        a.view.failing = failing;
        const lastRenewal = 6_000;
        await advanceUntil(clock, leases, () => a.events.includes('stopped'), 'a to stop leading');
        // Upstream's renew loop: the attempt after the last success, then retries until the renew deadline.
        const stoppedAt = clock.now();
        assert.ok(stoppedAt >= lastRenewal + retryPeriodMs + renewDeadlineMs - 100 && stoppedAt <= lastRenewal + retryPeriodMs + renewDeadlineMs + 100, `stopped at ${stoppedAt}`);
        assert.ok(stoppedAt < lastRenewal + leaseDurationMs + retryPeriodMs + renewDeadlineMs);
        assert.equal(a.elector.leading, false);
        // Storage answers again: a acquires the lease again and starts leading once more.
        a.view.failing = 'no';
        a.view.releaseHung();
        await advanceUntil(clock, leases, () => a.elector.leading, 'a to lead again');
        assert.deepEqual(a.events, ['started', 'stopped', 'started']);
        await a.elector.close();
        assert.deepEqual(a.events, ['started', 'stopped', 'started', 'stopped']);
        assert.equal(specOf(await leases.lease()).holderIdentity, '');
      });
    }
  });

  test('onStoppedLeading is awaited before the lease is released or acquired again', async () => {
    const clock = new FakeClock();
    const leases = new Leases();
    const stopping = Promise.withResolvers<void>();
    const a = candidate(leases, clock, 'a', { onStoppedLeading: () => stopping.promise });
    await a.elector.start();
    const closed = a.elector.close();
    await leases.settled();
    assert.equal(specOf(await leases.lease()).holderIdentity, 'a');
    stopping.resolve();
    await closed;
    assert.equal(specOf(await leases.lease()).holderIdentity, '');
  });

  test('close() does not wait longer than the renew deadline for a storage that does not answer to release the lease', async () => {
    const clock = new FakeClock();
    const leases = new Leases();
    const a = candidate(leases, clock, 'a');
    await a.elector.start();
    a.view.failing = 'hang';
    let closed = false;
    const closing = a.elector.close().then(() => (closed = true));
    const waited = await advanceUntil(clock, leases, () => closed, 'close() to finish');
    await closing;
    assert.equal(waited, renewDeadlineMs);
    assert.deepEqual(a.events, ['started', 'stopped']);
    assert.equal(specOf(await leases.lease()).holderIdentity, 'a');
    a.view.releaseHung();
  });
});

test('timings are checked as upstream\'s NewLeaderElector checks them', () => {
  const rows: [string, { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number }, string | undefined][] = [
    ['the defaults', { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }, undefined],
    ['lease duration not above the renew deadline', { leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }, 'the lease duration must be greater than the renew deadline'],
    ['renew deadline not above 1.2 retry periods', { leaseDurationMs: 15_000, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }, 'the renew deadline must be greater than the retry period × 1.2'],
    ['a zero retry period', { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 0 }, 'lease duration, renew deadline and retry period must be greater than zero'],
  ];
  for (const [row, timings, expected] of rows) assert.equal(leaderElectionTimingsProblem(timings), expected, row);
  assert.throws(() => new LeaderElector({
    leases: new Leases().view(), namespace, name, leaseDurationMs: 1_000, renewDeadlineMs: 2_000, onStartedLeading() {}, onStoppedLeading() {}, log() {},
  }), /lease duration must be greater than the renew deadline/);
});
