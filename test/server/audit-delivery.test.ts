// The buffered audit sink (batch mode): full batches at once, a partial one after the wait,
// the throttle, a full buffer dropping events, a failed batch logged, what is queued sent on
// close; and the blocking sink (blocking modes): one event a delivery, its failure answered
// only when strict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockingAuditSink, BufferedAuditSink } from '../../src/server/audit-delivery.ts';
import { eventually } from '../helpers/eventually.ts';

function sink(opts: Partial<ConstructorParameters<typeof BufferedAuditSink>[0]> = {}) {
  const sent: number[][] = [];
  const times: number[] = [];
  const logged: string[] = [];
  const s = new BufferedAuditSink({
    name: 'webhook',
    deliver: async (items) => {
      sent.push((items as { n: number }[]).map((e) => e.n));
      times.push(performance.now());
    },
    bufferSize: 100, maxBatchSize: 3, maxWaitMs: 30, log: (m) => logged.push(m), ...opts,
  });
  return { s, sent, times, logged };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('full batches leave at once, a partial one once its oldest event waited', async () => {
  const { s, sent } = sink();
  for (let n = 1; n <= 7; n++) s.write({ n });
  assert.deepEqual(sent, [[1, 2, 3], [4, 5, 6]]);
  await pause(60);
  assert.deepEqual(sent, [[1, 2, 3], [4, 5, 6], [7]]);
});

test('the throttle spaces batches out; close sends the rest at once', async () => {
  const { s, sent, times } = sink({ throttle: { qps: 20, burst: 1 } });
  for (let n = 1; n <= 9; n++) s.write({ n });
  assert.deepEqual(sent, [[1, 2, 3]]);
  await eventually(() => assert.equal(sent.length, 3));
  // 20 batches a second, one at a time: ~50 ms apart.
  assert.ok(times[1]! - times[0]! >= 40 && times[2]! - times[1]! >= 40, JSON.stringify(times));
  for (let n = 10; n <= 14; n++) s.write({ n });
  await s.close();
  assert.deepEqual(sent.flat(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
});

test('a full buffer drops events; a batch that fails is logged', async () => {
  const { s, logged } = sink({ bufferSize: 2, maxBatchSize: 10, deliver: async () => {
    throw new Error('Post "https://audit/": connection refused');
  } });
  for (let n = 1; n <= 3; n++) s.write({ n });
  assert.deepEqual(logged, ["Error in audit plugin 'buffered' affecting 1 audit events: audit buffer queue blocked"]);
  await s.close();
  assert.equal(logged[1], `Error in audit plugin 'webhook' affecting 2 audit events: Post "https://audit/": connection refused`);
});

test('a delivery that throws at once (the log) is logged as one that rejects', async () => {
  const { s, logged } = sink({ maxBatchSize: 1, deliver: () => {
    throw new Error('EISDIR: illegal operation on a directory');
  } });
  assert.equal(s.write({ n: 1 }), true, 'buffered: stored as far as the request is concerned');
  await s.close();
  assert.deepEqual(logged, ["Error in audit plugin 'webhook' affecting 1 audit events: EISDIR: illegal operation on a directory"]);
});

test('blocking: one event a delivery; a failure is logged and answered only when strict', async () => {
  const delivered: number[][] = [];
  let fail = false;
  const logged: string[] = [];
  const make = (strict: boolean) => new BlockingAuditSink({
    name: 'webhook', strict, log: (m) => logged.push(m),
    deliver: async (events) => {
      if (fail) throw new Error('connection refused');
      delivered.push((events as { n: number }[]).map((e) => e.n));
    },
  });
  const blocking = make(false);
  const strict = make(true);
  assert.equal(await blocking.write({ n: 1 }), true);
  assert.equal(await strict.write({ n: 2 }), true);
  assert.deepEqual(delivered, [[1], [2]]);
  fail = true;
  assert.equal(await blocking.write({ n: 3 }), true, 'blocking ignores the failure');
  assert.equal(await strict.write({ n: 4 }), false, 'strict answers it');
  assert.deepEqual(logged, ["Error in audit plugin 'webhook' affecting 1 audit events: connection refused", "Error in audit plugin 'webhook' affecting 1 audit events: connection refused"]);
  await Promise.all([blocking.close(), strict.close()]);
});
