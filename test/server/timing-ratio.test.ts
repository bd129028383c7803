// A ratio observed over time, as upstream's timing ratio histograms count it: nanoseconds per bucket.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TimingRatio } from '../../src/server/timing-ratio.ts';

test('each bucket counts the nanoseconds the ratio spent in it; the sum integrates the ratio', () => {
  const h = new TimingRatio([0, 0.5, 1], 0, 4, 1000);
  // 0 for 2 ms, 1/4 for 1 ms, 2/4 (on the 0.5 bound) for 3 ms, then 2/2 past a new denominator for 1 ms, and 3/2 (over every bound) for 1 ms.
  h.set(1, 1002);
  h.set(2, 1003);
  h.setDenominator(2, 1006);
  h.set(3, 1007);
  const r = h.read(1008);
  assert.deepEqual(r.nanos, [2e6, 4e6, 1e6, 1e6]);
  assert.equal(r.count, 8e6);
  assert.equal(r.sum, 0 * 2e6 + 0.25 * 1e6 + 0.5 * 3e6 + 1 * 1e6 + 1.5 * 1e6);
  // Reading again later adds the time since at the ratio it has.
  assert.deepEqual(h.read(1010).nanos, [2e6, 4e6, 1e6, 3e6]);
});

test('setting the value it has changes nothing; time that did not pass counts nothing', () => {
  const h = new TimingRatio([1], 1, 1, 0);
  h.set(1, 5);
  h.setDenominator(1, 5);
  assert.deepEqual(h.read(5), { nanos: [5e6, 0], sum: 5e6, count: 5e6 });
  assert.deepEqual(h.read(5), { nanos: [5e6, 0], sum: 5e6, count: 5e6 });
});
