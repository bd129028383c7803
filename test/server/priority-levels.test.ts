// Priority levels' dispatching: each level's share of the server's seats, Reject and Queue
// levels past it, shuffle-sharded queues served in turn, and upstream's Retry-After.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dealHand, flowHash, PriorityLevels, type Abandoned, type Admitted, type LevelConfig, type Refusal } from '../../src/server/priority-levels.ts';

const queuing = (queues: number, handSize: number, queueLengthLimit = 50) => ({ queues, handSize, queueLengthLimit });
/** The bootstrap levels' shares and queues. */
const bootstrap: LevelConfig[] = [
  { name: 'exempt', exempt: true, shares: 0 },
  { name: 'catch-all', exempt: false, shares: 5 },
  { name: 'system', exempt: false, shares: 30, queuing: queuing(64, 6) },
  { name: 'node-high', exempt: false, shares: 40, queuing: queuing(64, 6) },
  { name: 'leader-election', exempt: false, shares: 10, queuing: queuing(16, 4) },
  { name: 'workload-high', exempt: false, shares: 40, queuing: queuing(128, 6) },
  { name: 'workload-low', exempt: false, shares: 100, queuing: queuing(128, 6) },
  { name: 'global-default', exempt: false, shares: 20, queuing: queuing(128, 6) },
];

const seated = (a: Admitted | Refusal | Abandoned): Admitted => {
  assert.equal(typeof a, 'object', `refused: ${String(a)}`);
  return a as Admitted;
};

test('each level serves its share of the server\'s seats, rounded up (upstream\'s nominal limits with 400 + 200)', () => {
  const levels = new PriorityLevels({ serverLimit: 600, maxWaitMs: 1000 });
  levels.configure(bootstrap);
  assert.deepEqual(bootstrap.map((l) => [l.name, levels.limitOf(l.name)]), [
    ['exempt', undefined], ['catch-all', 13], ['system', 74], ['node-high', 98], ['leader-election', 25], ['workload-high', 98], ['workload-low', 245], ['global-default', 49],
  ]);
  // What apiserver_flowcontrol_nominal_limit_seats shows, the exempt level's none.
  assert.deepEqual(Object.fromEntries(levels.seats()), {
    'exempt': 0, 'catch-all': 13, 'system': 74, 'node-high': 98, 'leader-election': 25, 'workload-high': 98, 'workload-low': 245, 'global-default': 49,
  });
});

test('a Reject level refuses at once past its limit; a freed seat serves the next', () => {
  const levels = new PriorityLevels({ serverLimit: 2, maxWaitMs: 1000 });
  levels.configure([{ name: 'catch-all', exempt: false, shares: 1 }, { name: 'other', exempt: false, shares: 1, queuing: queuing(1, 1) }]);
  const first = seated(levels.acquire('catch-all', 'catch-all', 'a') as Admitted);
  assert.equal(levels.acquire('catch-all', 'catch-all', 'b'), 'concurrency-limit');
  first.release();
  first.release(); // once only
  seated(levels.acquire('catch-all', 'catch-all', 'b') as Admitted);
  assert.equal(levels.acquire('catch-all', 'catch-all', 'c'), 'concurrency-limit');
  // The other level's seat is its own.
  seated(levels.acquire('other', 'other', 'a') as Admitted);
});

test('a Queue level holds requests past its limit in order, refuses them past the queue\'s length, and after the wait limit', async () => {
  const levels = new PriorityLevels({ serverLimit: 1, maxWaitMs: 200 });
  levels.configure([{ name: 'q', exempt: false, shares: 1, queuing: queuing(1, 1, 2) }]);
  const first = seated(levels.acquire('q', 's', 'a') as Admitted);
  const order: string[] = [];
  const second = Promise.resolve(levels.acquire('q', 's', 'a')).then((a) => (order.push('second'), a));
  const third = Promise.resolve(levels.acquire('q', 's', 'a')).then((a) => (order.push('third'), a));
  assert.equal(levels.acquire('q', 's', 'a'), 'queue-full');
  first.release();
  seated(await second).release();
  const last = seated(await third);
  assert.deepEqual(order, ['second', 'third']);
  // Nobody frees the seat: a waiting request is refused after the wait limit.
  const started = performance.now();
  assert.equal(await levels.acquire('q', 's', 'a'), 'time-out');
  assert.ok(performance.now() - started >= 190);
  last.release();
  seated(levels.acquire('q', 's', 'a') as Admitted);
});

test('flows are dealt hands of queues and served in turn: a greedy flow cannot starve a polite one', async () => {
  const levels = new PriorityLevels({ serverLimit: 1, maxWaitMs: 5000 });
  levels.configure([{ name: 'global-default', exempt: false, shares: 20, queuing: queuing(128, 6) }]);
  const holder = seated(levels.acquire('global-default', 'global-default', 'greedy') as Admitted);
  const served: string[] = [];
  const greedy = Array.from({ length: 30 }, () => Promise.resolve(levels.acquire('global-default', 'global-default', 'greedy')).then((a) => {
    served.push('greedy');
    seated(a).release();
  }));
  const polite = Promise.resolve(levels.acquire('global-default', 'global-default', 'polite')).then((a) => {
    served.push('polite');
    seated(a).release();
  });
  holder.release();
  await Promise.all([...greedy, polite]);
  // The greedy flow's requests fill at most the six queues of its hand; the polite one waits in a seventh.
  assert.ok(served.indexOf('polite') <= 6, served.join(' '));
});

test('the dealer deals distinct queues of the deck from the hash, the same for the same flow', () => {
  for (const [deck, hand] of [[128, 6], [64, 6], [16, 4], [6, 6], [1, 1]] as const) {
    for (const flow of ['alice', 'bob', 'system:serviceaccount:kube-system:x', '']) {
      const cards = dealHand(flowHash('global-default', flow), deck, hand);
      assert.equal(cards.length, hand);
      assert.equal(new Set(cards).size, hand, `${deck}/${hand} ${flow}: ${cards}`);
      assert.ok(cards.every((c) => Number.isInteger(c) && c >= 0 && c < deck));
      assert.deepEqual(dealHand(flowHash('global-default', flow), deck, hand), cards);
    }
  }
  assert.notEqual(flowHash('global-default', 'alice'), flowHash('global-default', 'bob'));
  assert.notEqual(flowHash('a', 'b'), flowHash('a\0b', ''));
});

test('Retry-After grows while a level keeps refusing and shrinks after, as upstream\'s dropped-requests tracker', () => {
  let now = 1_000;
  const levels = new PriorityLevels({ serverLimit: 1, maxWaitMs: 1000, now: () => now });
  levels.configure([{ name: 'r', exempt: false, shares: 1 }]);
  seated(levels.acquire('r', 'r', 'a') as Admitted);
  const refuse = () => assert.equal(levels.acquire('r', 'r', 'a'), 'concurrency-limit');
  assert.equal(levels.retryAfter('r'), 1);
  for (let i = 0; i < 3; i++) refuse();
  now += 1_000;
  refuse(); // the next second looks back: 3 drops in the last 1 s → doubled
  assert.equal(levels.retryAfter('r'), 2);
  now += 10_000;
  refuse(); // none in the last 2 s → down by one
  assert.equal(levels.retryAfter('r'), 1);
  assert.equal(levels.retryAfter('unknown'), 1);
});

test('a waiting request its client abandons leaves its queue, and is not counted as refused', async () => {
  const levels = new PriorityLevels({ serverLimit: 1, maxWaitMs: 5000 });
  levels.configure([{ name: 'q', exempt: false, shares: 1, queuing: queuing(1, 1, 1) }]);
  const first = seated(levels.acquire('q', 's', 'a') as Admitted);
  let abandon = () => {};
  const waiting = levels.acquire('q', 's', 'a', (a) => (abandon = a));
  // The queue (length 1) is full...
  assert.equal(levels.acquire('q', 's', 'a'), 'queue-full');
  abandon();
  assert.equal(await waiting, 'abandoned');
  // ...and free again; the seat is still the first's.
  const next = levels.acquire('q', 's', 'a', (a) => (abandon = a));
  first.release();
  const granted = seated(await next);
  abandon(); // too late: it has its seat, which stays taken until released
  assert.equal(levels.acquire('q', 's', 'b') instanceof Promise, true);
  granted.release();
});
