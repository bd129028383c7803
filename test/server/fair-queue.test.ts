// Fair queuing of the in-flight limits: past the limit requests wait by flow (user), and
// freed slots go to the flows in turn; a full queue or a long wait is a refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairLimiter } from '../../src/server/fair-queue.ts';

test('freed slots go to the waiting flows in turn: a greedy flow does not starve another', async () => {
  const limiter = new FairLimiter({ limit: 1, queueLength: 50, maxWaitMs: 10_000 });
  const first = (await limiter.acquire('greedy'))!;
  const order: string[] = [];
  const waiting = [
    ...Array.from({ length: 10 }, (_, i) => limiter.acquire('greedy').then((release) => {
      order.push(`greedy${i}`);
      return release;
    })),
    limiter.acquire('polite').then((release) => {
      order.push('polite');
      return release;
    }),
  ];
  // Each holder frees its slot as soon as it has it.
  first();
  for (const w of waiting) void w.then((release) => setImmediate(() => release!()));
  await Promise.all(waiting);
  assert.equal(order.indexOf('polite'), 1, `the polite flow is served second, not last: ${order.join(' ')}`);
  assert.equal(limiter.inUse <= 1, true);
});

test('a full queue, or a wait past maxWaitMs, is a refusal', async () => {
  const limiter = new FairLimiter({ limit: 1, queueLength: 2, maxWaitMs: 50 });
  const held = (await limiter.acquire('a'))!;
  const queued = [limiter.acquire('a'), limiter.acquire('a')];
  assert.equal(await limiter.acquire('a'), undefined, 'the third waiter of a full queue');
  assert.deepEqual(await Promise.all(queued), [undefined, undefined], 'both waited too long');
  held();
  const next = await limiter.acquire('a');
  assert.equal(typeof next, 'function', 'the slot is free again');
  next!();
});
