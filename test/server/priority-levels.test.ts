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
  assert.deepEqual(Object.fromEntries(levels.seats().map((s) => [s.level, s.nominal])), {
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

test('flows are dealt hands of queues and served fairly in virtual time: a greedy flow cannot starve a polite one', async () => {
  let now = 0;
  const levels = new PriorityLevels({ serverLimit: 1, maxWaitMs: 5000, now: () => now });
  levels.configure([{ name: 'global-default', exempt: false, shares: 20, queuing: queuing(128, 6) }]);
  const holder = seated(levels.acquire('global-default', 'global-default', 'greedy') as Admitted);
  const served: string[] = [];
  // Each request runs 5 ms.
  const serve = (who: string) => (a: Admitted | Refusal | Abandoned) => {
    served.push(who);
    now += 5;
    seated(a).release();
  };
  const greedy = Array.from({ length: 30 }, () => Promise.resolve(levels.acquire('global-default', 'global-default', 'greedy')).then(serve('greedy')));
  const polite = Promise.resolve(levels.acquire('global-default', 'global-default', 'polite')).then(serve('polite'));
  now += 5;
  holder.release();
  await Promise.all([...greedy, polite]);
  // The greedy flow's requests fill at most the six queues of its hand; the polite one, in a
  // seventh, is as early in virtual time as theirs: it goes within the first round.
  assert.ok(served.indexOf('polite') <= 6, served.join(' '));
});

test('a queue whose requests run longer is served less often: fairness is in seat-seconds', async () => {
  let now = 0;
  const levels = new PriorityLevels({ serverLimit: 1, maxWaitMs: 60_000, now: () => now });
  levels.configure([{ name: 'l', exempt: false, shares: 1, queuing: queuing(2, 1) }]);
  const holder = seated(levels.acquire('l', 's', 'x') as Admitted);
  // Two flows, each with its own queue (a hand of one out of two), ten requests each: slow's run 20 ms, quick's 2 ms.
  const hands = new Map<string, number>();
  for (const flow of ['a', 'b', 'c', 'd', 'e', 'f']) hands.set(flow, dealHand(flowHash('s', flow), 2, 1)[0]!);
  const [slowFlow, quickFlow] = [[...hands].find(([, q]) => q === 0)![0], [...hands].find(([, q]) => q === 1)![0]];
  const served: string[] = [];
  const run = (who: string, ms: number) => (a: Admitted | Refusal | Abandoned) => {
    served.push(who);
    now += ms;
    seated(a).release();
  };
  const all = [
    ...Array.from({ length: 10 }, () => Promise.resolve(levels.acquire('l', 's', slowFlow)).then(run('slow', 20))),
    ...Array.from({ length: 10 }, () => Promise.resolve(levels.acquire('l', 's', quickFlow)).then(run('quick', 2))),
  ];
  holder.release();
  await Promise.all(all);
  // In the time the slow flow's first few run, the quick one gets through most of its ten.
  const firstFive = served.slice(0, 5);
  assert.ok(served.slice(0, 12).filter((w) => w === 'quick').length >= 9, served.join(' '));
  assert.ok(firstFive.includes('slow') && firstFive.includes('quick'), served.join(' '));
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
  const waiting = levels.acquire('q', 's', 'a', { whenAbandoned: (a) => (abandon = a) });
  // The queue (length 1) is full...
  assert.equal(levels.acquire('q', 's', 'a'), 'queue-full');
  abandon();
  assert.equal(await waiting, 'abandoned');
  // ...and free again; the seat is still the first's.
  const next = levels.acquire('q', 's', 'a', { whenAbandoned: (a) => (abandon = a) });
  first.release();
  const granted = seated(await next);
  abandon(); // too late: it has its seat, which stays taken until released
  assert.equal(levels.acquire('q', 's', 'b') instanceof Promise, true);
  granted.release();
});

/** Holds `demand` seats of a level: those it can serve at once, and the rest waiting over many flows. */
function demand(levels: PriorityLevels, level: string, count: number) {
  const seats: Admitted[] = [];
  const abandons: Array<() => void> = [];
  for (let i = 0; i < count; i++) {
    const acquired = levels.acquire(level, level, `flow-${i % 300}`, { whenAbandoned: (abandon) => abandons.push(abandon) });
    if (acquired instanceof Promise) void acquired.then((a) => typeof a === 'object' && seats.push(a));
    else seats.push(seated(acquired));
  }
  return {
    /** Gives up everything but `keep` seats (waiting ones first). */
    shrinkTo(keep: number) {
      for (const abandon of abandons.splice(0)) abandon();
      for (const seat of seats.splice(keep)) seat.release();
    },
  };
}

test('levels lend and borrow seats by their demand, the exempt level taking what it used first (upstream\'s three scenarios)', async () => {
  let now = 0;
  // Upstream's test: exempt, workload-high, workload-low and a small level that lends nothing; 145 shares × 6 seats.
  const levels = new PriorityLevels({ serverLimit: 870, maxWaitMs: 600_000, now: () => now });
  levels.configure([
    { name: 'exempt', exempt: true, shares: 0 },
    { name: 'high', exempt: false, shares: 40, lendablePercent: 50, queuing: queuing(128, 6) },
    { name: 'mid', exempt: false, shares: 100, lendablePercent: 90, queuing: queuing(128, 6) },
    { name: 'low', exempt: false, shares: 5, queuing: queuing(64, 6) },
  ]);
  const seatsOf = () => Object.fromEntries(levels.seats().map((s) => [s.level, { nominal: s.nominal, lower: s.lower, upper: s.upper, current: s.current }]));
  assert.deepEqual(seatsOf(), {
    // Nothing used yet: the seats go in proportion to what each does not lend.
    exempt: { nominal: 0, lower: 0, upper: 870, current: 0 },
    high: { nominal: 240, lower: 120, upper: 1110, current: Math.round(870 * 120 / 210) },
    mid: { nominal: 600, lower: 60, upper: 1470, current: Math.round(870 * 60 / 210) },
    low: { nominal: 30, lower: 30, upper: 900, current: Math.round(870 * 30 / 210) },
  });
  // 1. Everyone wants more than the server has, the exempt level most: the others keep what they do not lend.
  const exempt = demand(levels, 'exempt', 970);
  const high = demand(levels, 'high', 970);
  const mid = demand(levels, 'mid', 970);
  const low = demand(levels, 'low', 970);
  now += 10_000;
  levels.adjust();
  assert.deepEqual(Object.fromEntries(levels.seats().map((s) => [s.level, s.current])), { exempt: 970, high: 120, mid: 60, low: 30 });
  assert.equal(levels.fairFraction, 0);
  // 2. The exempt level uses less: the others share what is left halfway to their nominal limits.
  exempt.shrinkTo(330);
  now += 10_000;
  levels.adjust();
  now += 10_000;
  levels.adjust();
  assert.deepEqual(Object.fromEntries(levels.seats().map((s) => [s.level, s.current])), { exempt: 330, high: 180, mid: 330, low: 30 });
  await new Promise((resolve) => setImmediate(resolve));
  // Waiting requests took the seats the limits grew by.
  assert.equal(levels.seats().find((s) => s.level === 'high')!.demand.highWatermark, 970);
  // 3. Only mid lends (it uses one seat), and the exempt level borrows all of it.
  mid.shrinkTo(1);
  const moreExempt = demand(levels, 'exempt', 210);
  now += 10_000;
  levels.adjust();
  now += 10_000;
  levels.adjust();
  assert.deepEqual(Object.fromEntries(levels.seats().map((s) => [s.level, s.current])), { exempt: 540, high: 240, mid: 60, low: 30 });
  for (const held of [exempt, moreExempt, high, mid, low]) held.shrinkTo(0);
});

test('a busy level borrows what idle ones lend, up to its borrowing limit, and its waiting requests take the seats at once', async () => {
  let now = 0;
  const levels = new PriorityLevels({ serverLimit: 100, maxWaitMs: 600_000, now: () => now });
  levels.configure([
    { name: 'a', exempt: false, shares: 50, lendablePercent: 50, queuing: queuing(64, 6) },
    { name: 'b', exempt: false, shares: 50, lendablePercent: 50, borrowingLimitPercent: 20, queuing: queuing(64, 6) },
  ]);
  const current = () => Object.fromEntries(levels.seats().map((s) => [s.level, s.current]));
  assert.deepEqual(Object.fromEntries(levels.seats().map((s) => [s.level, [s.lower, s.upper]])), { a: [25, 150], b: [25, 60] });
  const a = demand(levels, 'a', 90);
  now += 10_000;
  levels.adjust();
  // a's target (90) against b's floor (25): a borrows 25 of b's seats.
  assert.deepEqual(current(), { a: 75, b: 25 });
  await new Promise((resolve) => setImmediate(resolve));
  const aSeats = levels.seats().find((s) => s.level === 'a')!;
  assert.equal(aSeats.target, 90);
  assert.ok(levels.fairFraction > 0.83 && levels.fairFraction < 0.84, String(levels.fairFraction));
  // Idle for long, the smoothed demand decays and the seats go back to what each does not lend and its share of the rest.
  a.shrinkTo(0);
  for (let i = 0; i < 200; i++) {
    now += 10_000;
    levels.adjust();
  }
  assert.deepEqual(current(), { a: 50, b: 50 });
  // b may borrow only 20% of its 50 seats: a gets the rest.
  const b = demand(levels, 'b', 90);
  now += 10_000;
  levels.adjust();
  assert.deepEqual(current(), { a: 40, b: 60 });
  b.shrinkTo(0);
});

test('a level\'s seat demand counts the seats its requests hold and wait for, over time', () => {
  let now = 0;
  const levels = new PriorityLevels({ serverLimit: 2, maxWaitMs: 600_000, now: () => now });
  levels.configure([{ name: 'q', exempt: false, shares: 1, queuing: queuing(8, 2) }]);
  const held = demand(levels, 'q', 4); // 2 served, 2 waiting, for 5 s
  now += 5_000;
  held.shrinkTo(0); // none for 5 s
  now += 5_000;
  levels.adjust();
  const { demand: stats } = levels.seats()[0]!;
  assert.deepEqual({ ...stats }, { average: 2, deviation: 2, highWatermark: 4, smoothed: 4 });
});

test('a request takes the seats its work is estimated at: a wide one waits for them, one wider than the level runs alone', async () => {
  const levels = new PriorityLevels({ serverLimit: 4, maxWaitMs: 5000 });
  levels.configure([{ name: 'q', exempt: false, shares: 1, queuing: queuing(4, 1) }]);
  const work = (seats: number) => ({ initialSeats: seats, finalSeats: 0, additionalLatencyMs: 0 });
  const one = seated(levels.acquire('q', 'q', 'a') as Admitted);
  const two = seated(levels.acquire('q', 'q', 'a') as Admitted);
  const wide = levels.acquire('q', 'q', 'a', { work: work(3) });
  assert.ok(wide instanceof Promise, 'three seats do not fit beside two');
  one.release();
  const widely = seated(await wide);
  // Four seats in use: even one more waits.
  const next = levels.acquire('q', 'q', 'b');
  assert.ok(next instanceof Promise);
  widely.release();
  seated(await next).release();
  // Wider than the level: only once nothing runs.
  const huge = levels.acquire('q', 'q', 'c', { work: work(10) });
  assert.ok(huge instanceof Promise);
  two.release();
  const alone = seated(await huge);
  assert.ok(levels.acquire('q', 'q', 'd') instanceof Promise, 'nothing beside it');
  alone.release();
  // The server's bootstrap levels: at most 15% of a level's seats, and a hand's share, for one request.
  const server = new PriorityLevels({ serverLimit: 600, maxWaitMs: 5000 });
  server.configure(bootstrap);
  assert.deepEqual(Object.fromEntries(bootstrap.map((l) => [l.name, server.levelMaxSeats(l.name)])), {
    'exempt': 0, 'catch-all': 0, 'system': 12, 'node-high': 15, 'leader-election': 4, 'workload-high': 15, 'workload-low': 37, 'global-default': 8,
  });
});

test('a write fanning its event out holds its final seats a while after it answered', async () => {
  let now = 0;
  const levels = new PriorityLevels({ serverLimit: 3, maxWaitMs: 5000, now: () => now });
  levels.configure([{ name: 'q', exempt: false, shares: 1, queuing: queuing(4, 1) }]);
  const write = seated(levels.acquire('q', 'q', 'a', { work: { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 40 } }) as Admitted);
  const waiting = levels.acquire('q', 'q', 'b');
  assert.ok(waiting instanceof Promise, 'it takes its most seats from the start');
  const started = performance.now();
  write.release();
  const after = levels.acquire('q', 'q', 'b');
  assert.ok(after instanceof Promise, 'the seats are still held');
  seated(await waiting).release();
  seated(await after).release();
  assert.ok(performance.now() - started >= 35, 'the seats came back after the fan-out');
  now += 10_000;
  levels.adjust();
  assert.equal(levels.seats()[0]!.demand.highWatermark, 5); // three held, two waiting
});

test('a level whose seats all went to others still serves one request at a time, its queue in turn', async () => {
  const levels = new PriorityLevels({ serverLimit: 1, maxWaitMs: 5000 });
  levels.configure([
    { name: 'lends-all', exempt: false, shares: 1, lendablePercent: 100, queuing: queuing(4, 1) },
    { name: 'keeps', exempt: false, shares: 1 },
  ]);
  assert.equal(levels.limitOf('lends-all'), 0);
  const first = seated(levels.acquire('lends-all', 's', 'a') as Admitted);
  const second = levels.acquire('lends-all', 's', 'a');
  assert.ok(second instanceof Promise);
  first.release();
  seated(await second).release();
});

test('a dispatch that finds no seats for the head it chose says so, with the head\'s schema', async () => {
  const missed: string[] = [];
  const levels = new PriorityLevels({ serverLimit: 4, maxWaitMs: 5000, noAccommodation: (level, schema) => missed.push(`${level}/${schema}`) });
  levels.configure([{ name: 'q', exempt: false, shares: 1, queuing: queuing(4, 1) }]);
  const held = [0, 1, 2].map(() => seated(levels.acquire('q', 's', 'a') as Admitted));
  const wide = levels.acquire('q', 'wide-schema', 'b', { work: { initialSeats: 3, finalSeats: 0, additionalLatencyMs: 0 } });
  held[0]!.release();
  assert.deepEqual(missed, ['q/wide-schema']);
  held[1]!.release();
  seated(await wide).release();
  held[2]!.release();
});

test('a level\'s virtual clock as upstream\'s metrics show it: R, and at each dispatch R, S and the queues\' next S', () => {
  let now = 0;
  const levels = new PriorityLevels({ serverLimit: 2, maxWaitMs: 60_000, now: () => now });
  levels.configure([{ name: 'exempt', exempt: true, shares: 0 }, { name: 'l', exempt: false, shares: 1, queuing: queuing(2, 1) }]);
  const flowAt = (queue: number) => ['a', 'b', 'c', 'd', 'e', 'f'].find((flow) => dealHand(flowHash('s', flow), 2, 1)[0] === queue)!;
  const [qa, qb] = [flowAt(0), flowAt(1)];
  const clock = () => levels.seats().find((s) => s.level === 'l')!.clock;
  assert.deepEqual(clock(), { currentR: 0 }, 'configured, nothing dispatched yet');
  seated(levels.acquire('exempt', 'exempt', 'x') as Admitted);
  assert.deepEqual(levels.seats().find((s) => s.level === 'exempt')!.clock, { currentR: 0 }, 'the exempt level\'s clock, without queues, stays at 0');

  // Two requests run at once, each dispatched from its idle queue at R = 0 (3 ms of a seat each).
  const a1 = seated(levels.acquire('l', 's', qa) as Admitted);
  seated(levels.acquire('l', 's', qb) as Admitted);
  assert.deepEqual(clock(), { currentR: 0, dispatch: { r: 0, s: 0, sMin: 0, sMax: 0, dsMin: 0, dsMax: 0 } });
  // One more of each waits; after 10 ms qa's first ends: R moved at 2 seats over 2 active queues.
  const a2 = levels.acquire('l', 's', qa);
  const b2 = levels.acquire('l', 's', qb);
  assert.ok(a2 instanceof Promise && b2 instanceof Promise);
  now = 10;
  a1.release();
  // qa ran 7 ms longer than estimated: its next S is 3 + 7 ms; qb's is 3 ms with one request (3 ms) in progress.
  const c = clock()!;
  assert.ok(Math.abs(c.currentR - 0.01) < 1e-9, String(c.currentR));
  const d = c.dispatch!;
  assert.ok(Math.abs(d.r - 0.01) < 1e-9 && Math.abs(d.s - 0.003) < 1e-9, JSON.stringify(d));
  assert.ok(Math.abs(d.sMin - 0.003) < 1e-9 && Math.abs(d.sMax - 0.01) < 1e-9, JSON.stringify(d));
  assert.ok(Math.abs(d.dsMin - 0) < 1e-9 && Math.abs(d.dsMax - 0.01) < 1e-9, JSON.stringify(d));
});

test('a request that runs at once starts no earlier in virtual time than it arrived, as upstream\'s anti-windup bounds it', () => {
  let now = 0;
  const levels = new PriorityLevels({ serverLimit: 3, maxWaitMs: 60_000, now: () => now });
  levels.configure([{ name: 'l', exempt: false, shares: 1, queuing: queuing(2, 1) }]);
  const flowAt = (queue: number) => ['a', 'b', 'c', 'd', 'e', 'f'].find((flow) => dealHand(flowHash('s', flow), 2, 1)[0] === queue)!;
  seated(levels.acquire('l', 's', flowAt(0)) as Admitted);
  seated(levels.acquire('l', 's', flowAt(1)) as Admitted);
  // 100 ms later R is 0.1 (two seats over two busy queues); the first queue's next S is still 3 ms.
  now = 100;
  seated(levels.acquire('l', 's', flowAt(0)) as Admitted);
  const d = levels.seats()[0]!.clock!.dispatch!;
  assert.ok(Math.abs(d.r - 0.1) < 1e-9 && Math.abs(d.s - 0.1) < 1e-9, JSON.stringify(d));
});

test('a level\'s utilization over time, as upstream\'s timing ratio histograms count it', async () => {
  let now = 0;
  const levels = new PriorityLevels({ serverLimit: 2, maxWaitMs: 60_000, now: () => now });
  levels.configure([{ name: 'l', exempt: false, shares: 1, queuing: queuing(1, 1, 4) }]);
  const a = seated(levels.acquire('l', 's', 'x') as Admitted);
  now = 10;
  seated(levels.acquire('l', 's', 'x') as Admitted);
  const c = levels.acquire('l', 's', 'x');
  assert.ok(c instanceof Promise);
  now = 30;
  a.release();
  seated(await c);
  now = 40;
  const u = levels.seats()[0]!.utilization!;
  const ms = (n: number) => n * 1e6;
  // Seats in use of the level's 2: 1 for 10 ms (the 0.5 bucket), then 2 for 30 ms (the 1 bucket).
  assert.deepEqual(u.seats.nanos, [0, 0, 0, 0, 0, ms(10), 0, 0, 0, 0, 0, 0, ms(30), 0]);
  assert.equal(u.seats.sum, 0.5 * ms(10) + 1 * ms(30));
  // One request waited 20 ms of its queue's room of 4 (the 0.25 bucket).
  assert.deepEqual(u.waiting.nanos, [ms(20), 0, 0, 0, 0, 0, ms(20), 0, 0, 0, 0]);
  // Demand (seats held and waited for) over the level's seats: 0.5, then 1.5 while one waited, then 1.
  assert.deepEqual(u.demand.nanos, [0, 0, ms(10), 0, ms(10), 0, 0, ms(20), 0, 0, 0, 0, 0]);
  assert.equal(u.executing.count, ms(40));
});
