// Lease reuse on etcd for keys with a time to live, as kube-apiserver's lease manager:
// one lease for the writes of a reuse window, granted for the time to live and the window.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LeaseReuse } from '../../src/storage/etcd-leases.ts';

function leases() {
  const granted: number[] = [];
  const clock = { now: 0 };
  const reuse = new LeaseReuse(async (ttl) => {
    granted.push(ttl);
    return `lease-${granted.length}`;
  }, () => clock.now);
  return { reuse, granted, clock };
}

test('an hour\'s time to live: a lease of 3,660 s serves the writes of the next minute', async () => {
  const { reuse, granted, clock } = leases();
  assert.equal(await reuse.leaseFor(3600), 'lease-1');
  clock.now = 59_000;
  assert.equal(await reuse.leaseFor(3600), 'lease-1', 'it still outlives the time to live');
  clock.now = 60_000;
  assert.equal(await reuse.leaseFor(3600), 'lease-2', 'it would not outlive a write now by the time to live');
  assert.deepEqual(granted, [3660, 3660]);
});

test('the window is a tenth of the time to live, at most 60 s; under 10 s none', async () => {
  const { reuse, granted } = leases();
  await reuse.leaseFor(100);
  await reuse.leaseFor(9);
  await reuse.leaseFor(9);
  assert.deepEqual(granted, [110, 9, 9]);
});

test('another time to live gets its own lease; a lease takes at most 1,000 keys', async () => {
  const { reuse, granted } = leases();
  await reuse.leaseFor(600);
  await reuse.leaseFor(300);
  assert.deepEqual(granted, [660, 330]);
  const ids = await Promise.all(Array.from({ length: 1001 }, () => reuse.leaseFor(300)));
  assert.equal(ids.filter((id) => id === 'lease-2').length, 999);
  assert.equal(ids[1000], 'lease-3');
});

test('writes asking together share one grant; a failed grant fails its write alone', async () => {
  let calls = 0;
  const reuse = new LeaseReuse(async () => {
    calls++;
    if (calls === 1) throw new Error('etcdserver: request timed out');
    return 'lease';
  }, () => 0);
  const [first, second, third] = await Promise.allSettled([reuse.leaseFor(3600), reuse.leaseFor(3600), reuse.leaseFor(3600)]);
  assert.equal(first.status, 'rejected');
  assert.deepEqual([second, third].map((r) => r.status === 'fulfilled' && r.value), ['lease', 'lease']);
  assert.equal(calls, 2);
});

test('--lease-reuse-duration-seconds caps the window', async () => {
  const granted: number[] = [];
  const reuse = new LeaseReuse(async (ttl) => {
    granted.push(ttl);
    return 'lease';
  }, () => 0, 5);
  await reuse.leaseFor(3600);
  await reuse.leaseFor(30);
  assert.deepEqual(granted, [3605, 33]);
});
