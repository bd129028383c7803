// Seat borrowing's arithmetic: the demand's integral over time, its smoothing, and the
// sharing out of the server's seats between bounds, as upstream's allocation problem.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocateSeats, Integrator, updateDemand, type DemandStats } from '../../src/server/seat-borrowing.ts';

test('the integrator gives the time-weighted average, deviation and high watermark since its last reset', () => {
  let now = 0;
  const demand = new Integrator(() => now);
  demand.set(4);
  now = 1_000;
  demand.set(8); // 4 for 1 s, then 8 for 3 s
  now = 4_000;
  const period = demand.reset();
  assert.equal(period.seconds, 4);
  assert.equal(period.average, 7);
  assert.equal(period.deviation, Math.sqrt((16 * 1 + 64 * 3) / 4 - 49));
  assert.equal(period.max, 8);
  // A new period starts from the value held: its high watermark is that, not the old one.
  demand.set(2);
  now = 6_000;
  assert.deepEqual(demand.reset(), { seconds: 2, average: 2, deviation: 0, max: 8 });
  now = 6_000;
  const empty = demand.reset();
  assert.equal(empty.seconds, 0);
  assert.ok(Number.isNaN(empty.average) && Number.isNaN(empty.deviation));
  assert.equal(empty.max, 2);
});

test('the smoothed demand follows a rise at once and decays with a half-life of about five minutes', () => {
  const stats: DemandStats = { average: 0, deviation: 0, highWatermark: 0, smoothed: 0 };
  updateDemand(stats, { seconds: 10, average: 100, deviation: 10, max: 120 });
  assert.deepEqual(stats, { average: 100, deviation: 10, highWatermark: 120, smoothed: 110 });
  // Thirty idle periods of 10 s: about half is left.
  for (let i = 0; i < 30; i++) updateDemand(stats, { seconds: 10, average: 0, deviation: 0, max: 0 });
  assert.ok(stats.smoothed > 54 && stats.smoothed < 56, String(stats.smoothed));
  assert.equal(stats.highWatermark, 0);
  // A period of no length changes only the high watermark; a NaN deviation counts as none.
  updateDemand(stats, { seconds: 0, average: NaN, deviation: NaN, max: 3 });
  assert.equal(stats.highWatermark, 3);
  assert.equal(stats.average, 0);
  updateDemand(stats, { seconds: 1, average: 5, deviation: NaN, max: 5 });
  assert.equal(stats.deviation, 0);
});

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const close = (a: number, b: number) => Math.abs(a - b) < 1e-6;

test('seats are shared in proportion to the targets when no bound is met', () => {
  const { shares, fairFraction } = allocateSeats(100, [
    { target: 10, lower: 0, upper: 100 },
    { target: 30, lower: 0, upper: 100 },
    { target: 10, lower: 5, upper: 100 },
  ]);
  assert.ok(close(fairFraction, 2));
  assert.deepEqual(shares.map(Math.round), [20, 60, 20]);
});

test('a share held at a bound leaves the rest to the others, each share either proportional or at a bound', () => {
  const items = [
    { target: 100, lower: 0, upper: 15 }, // capped
    { target: 150, lower: 0, upper: 1000 },
    { target: 60, lower: 58, upper: 1000 }, // floored
    { target: 0, lower: 0, upper: 1000 }, // counts as a tiny target
  ];
  const { shares, fairFraction } = allocateSeats(200, items);
  assert.ok(close(sum(shares), 200));
  assert.equal(shares[0], 15);
  assert.equal(shares[2], 58);
  for (const [i, item] of items.entries()) {
    const proportional = fairFraction * Math.max(item.target, 0.001);
    assert.ok(close(shares[i]!, proportional) || (shares[i] === item.lower && item.lower > proportional) || (shares[i] === item.upper && item.upper < proportional), `item ${i}`);
  }
  assert.ok(fairFraction < 1 && shares[3]! > 0 && shares[3]! < 0.001);
});

test('with no room to spare every share is at its bound; impossible bounds are refused', () => {
  assert.deepEqual(allocateSeats(30, [{ target: 20, lower: 10, upper: 50 }, { target: 20, lower: 20, upper: 50 }]).shares, [10, 20]);
  assert.deepEqual(allocateSeats(100, [{ target: 20, lower: 10, upper: 50 }, { target: 20, lower: 20, upper: 50 }]).shares, [50, 50]);
  assert.deepEqual(allocateSeats(0, [{ target: 0, lower: 0, upper: 50 }]).shares, [0]);
  assert.throws(() => allocateSeats(20, [{ target: 20, lower: 10, upper: 50 }, { target: 20, lower: 20, upper: 50 }]), /lower bounds sum to 30/);
  assert.throws(() => allocateSeats(200, [{ target: 20, lower: 10, upper: 50 }]), /upper bounds sum to 50/);
  assert.throws(() => allocateSeats(20, [{ target: 5, lower: 10, upper: 50 }]), /below its lower bound/);
  assert.throws(() => allocateSeats(20, [{ target: 20, lower: 10, upper: 5 }]), /should not be less than the lower bound/);
});
