// The audit webhook sink's batching: full batches at once, a partial one after the wait, the
// throttle, a full buffer dropping events, a failed batch logged, what is queued sent on close.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuditWebhookSink } from '../../src/server/audit-webhook.ts';
import { eventually } from '../helpers/eventually.ts';

function sink(opts: Partial<ConstructorParameters<typeof AuditWebhookSink>[0]> = {}) {
  const sent: number[][] = [];
  const times: number[] = [];
  const logged: string[] = [];
  const s = new AuditWebhookSink({
    send: async (list) => {
      sent.push((list.items as { n: number }[]).map((e) => e.n));
      times.push(performance.now());
    },
    version: 'audit.k8s.io/v1', bufferSize: 100, maxBatchSize: 3, maxWaitMs: 30, log: (m) => logged.push(m), ...opts,
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
  const { s, logged } = sink({ bufferSize: 2, maxBatchSize: 10, send: async () => {
    throw new Error('Post "https://audit/": connection refused');
  } });
  for (let n = 1; n <= 3; n++) s.write({ n });
  assert.deepEqual(logged, ["Error in audit plugin 'buffered' affecting 1 audit events: audit buffer queue blocked"]);
  await s.close();
  assert.equal(logged[1], `Error in audit plugin 'webhook' affecting 2 audit events: Post "https://audit/": connection refused`);
});
