// Fair queuing of the in-flight limits: past the limit requests wait by flow (user), and
// freed slots go to the flows in turn; a full queue or a long wait is a refusal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairLimiter } from '../../src/server/fair-queue.ts';

/** The release of a slot that was granted. */
function granted(release: (() => void) | undefined | 'abandoned'): () => void {
  assert.equal(typeof release, 'function', `not granted: ${String(release)}`);
  return release as () => void;
}

test('freed slots go to the waiting flows in turn: a greedy flow does not starve another', async () => {
  const limiter = new FairLimiter({ limit: 1, queueLength: 50, maxWaitMs: 10_000 });
  const first = granted(await limiter.acquire('greedy'));
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
  for (const w of waiting) void w.then((release) => setImmediate(() => granted(release)()));
  await Promise.all(waiting);
  assert.equal(order.indexOf('polite'), 1, `the polite flow is served second, not last: ${order.join(' ')}`);
  assert.equal(limiter.inUse <= 1, true);
});

test('a full queue, or a wait past maxWaitMs, is a refusal', async () => {
  const limiter = new FairLimiter({ limit: 1, queueLength: 2, maxWaitMs: 50 });
  const held = granted(await limiter.acquire('a'));
  const queued = [limiter.acquire('a'), limiter.acquire('a')];
  assert.equal(await limiter.acquire('a'), undefined, 'the third waiter of a full queue');
  assert.deepEqual(await Promise.all(queued), [undefined, undefined], 'both waited too long');
  held();
  granted(await limiter.acquire('a'))();
});

test('a waiting request its client abandons leaves its queue: the freed slot is not given to it', async () => {
  const limiter = new FairLimiter({ limit: 1, queueLength: 1, maxWaitMs: 10_000 });
  const held = granted(await limiter.acquire('a'));
  let abandon = () => {};
  const waiting = limiter.acquire('a', (a) => (abandon = a));
  assert.equal(await limiter.acquire('a'), undefined, 'the queue of one is full');
  abandon();
  assert.equal(await waiting, 'abandoned');
  held();
  // The slot is free: a new request has it at once (given to the abandoned one, nobody would release it).
  const next = granted(await limiter.acquire('b', (a) => (abandon = a)));
  abandon(); // too late: it has its slot
  assert.equal(limiter.inUse, 1);
  next();
  assert.equal(limiter.inUse, 0);
});
