// The in-flight filter's counts of executing and waiting requests by kind, as upstream keeps
// them: the most each reached in the last whole second, and the count over time as a
// fraction of its limit (timing ratio histograms).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readWriteBounds, RequestConcurrency, Watermark } from '../../src/server/request-concurrency.ts';

test('a watermark reads the most of the last whole second, and 0 after a second without a change', () => {
  const mark = new Watermark(0);
  mark.record(1, 100);
  mark.record(3, 200);
  mark.record(2, 300);
  assert.equal(mark.read(900), 0, 'no second has ended yet');
  assert.equal(mark.read(1000), 3);
  mark.record(1, 1500);
  assert.equal(mark.read(1999), 3);
  assert.equal(mark.read(2000), 1);
  // Nothing changed in [2000, 3000): upstream's reset watermark stays 0, whatever is still running.
  assert.equal(mark.read(3000), 0);
  assert.equal(mark.read(7500), 0);
  mark.record(4, 7600);
  assert.equal(mark.read(8000), 4);
});

test('executing counts are fractions of the in-flight limits without queues; with them, counts, waiting included', () => {
  let now = 0;
  const limited = new RequestConcurrency({ waiting: false, limits: { readOnly: 4, mutating: 2 }, now: () => now });
  limited.note('executing', true, 1);
  now = 10; // 10 ms at 1 of 2 writes' seats
  limited.note('executing', true, -1);
  limited.note('waiting', true, 1); // nothing waits without queues
  now = 20;
  const readings = limited.readings();
  assert.deepEqual(readings.map((r) => `${r.phase}/${r.kind}`), ['executing/readOnly', 'executing/mutating']);
  const writes = readings.find((r) => r.kind === 'mutating')!.reading;
  assert.equal(writes.count, 20e6);
  assert.equal(writes.sum, 10e6 * 0.5);
  assert.equal(writes.nanos[readWriteBounds.indexOf(0.5)], 10e6);
  assert.equal(writes.nanos[0], 10e6, 'the rest at 0');
  assert.deepEqual(limited.watermarks('waiting'), []);
  now = 1000;
  assert.deepEqual(limited.watermarks('executing'), [{ kind: 'readOnly', value: 0 }, { kind: 'mutating', value: 1 }]);

  now = 0;
  const fair = new RequestConcurrency({ waiting: true, now: () => now });
  for (let i = 0; i < 3; i++) fair.note('waiting', false, 1);
  now = 5;
  const waiting = fair.readings().find((r) => r.phase === 'waiting' && r.kind === 'readOnly')!.reading;
  assert.equal(waiting.sum, 5e6 * 3, 'three requests for 5 ms: the ratio is the count');
  assert.equal(waiting.nanos.at(-1), 5e6, 'above the last bound (1)');
  now = 1000;
  assert.deepEqual(fair.watermarks('waiting'), [{ kind: 'readOnly', value: 3 }, { kind: 'mutating', value: 0 }]);
});
