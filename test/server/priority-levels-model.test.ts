// Priority levels under random traffic: requests of every width and fan-out arriving,
// ending, timing out and leaving, the limits moving and the queues reconfigured, checked
// after every step against what the test holds, and empty again once everything ended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PriorityLevels, type Admitted, type LevelConfig } from '../../src/server/priority-levels.ts';
import { random } from '../helpers/random.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function configs(queues: number): LevelConfig[] {
  return [
    { name: 'exempt', exempt: true, shares: 0 },
    { name: 'reject', exempt: false, shares: 1 },
    { name: 'a', exempt: false, shares: 2, lendablePercent: 50, queuing: { queues, handSize: 2, queueLengthLimit: 5 } },
    { name: 'b', exempt: false, shares: 3, lendablePercent: 50, borrowingLimitPercent: 100, queuing: { queues: 8, handSize: 3, queueLengthLimit: 5 } },
  ];
}

for (const seed of [1, 2, 3, 4, 5]) {
  test(`priority levels keep their counts under random traffic (seed ${seed})`, async () => {
    const rand = random(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    let now = 0;
    const levels = new PriorityLevels({ serverLimit: 10, maxWaitMs: 20, now: () => now });
    let config = configs(4);
    levels.configure(config);
    const held = new Map<string, Admitted[]>();
    const waiting: Array<{ level: string; abandon: () => void }> = [];
    const running = (level: string) => held.get(level) ?? [];
    const check = (step: number) => {
      for (const dump of levels.dump()) {
        const where = `seed ${seed}, step ${step}, level ${dump.name}`;
        assert.equal(dump.executing, running(dump.name).length, where);
        assert.equal(dump.waiting, dump.queues.reduce((sum, q) => sum + q.waiting.length, 0), where);
        assert.ok(dump.seatsInUse >= dump.executing && dump.waitingSeats >= dump.waiting, where);
        for (const q of dump.queues) assert.ok(q.executing >= 0 && q.seatsInUse >= 0 && q.waitingWork >= -1e-9 && q.nextDispatchR >= -1e-9, where);
      }
    };
    for (let step = 0; step < 400; step++) {
      const r = rand();
      if (r < 0.45) {
        const level = pick(config).name;
        const work = { initialSeats: 1 + Math.floor(rand() * 4), finalSeats: rand() < 0.3 ? 1 + Math.floor(rand() * 3) : 0, additionalLatencyMs: 0 };
        if (work.finalSeats > 0) work.additionalLatencyMs = 1 + Math.floor(rand() * 4);
        let abandon = () => {};
        const got = levels.acquire(level, pick(['s1', 's2']), pick(['x', 'y', 'z', 'w']), { work, whenAbandoned: (a) => (abandon = a) });
        if (got instanceof Promise) {
          const entry = { level, abandon: () => abandon() };
          waiting.push(entry);
          void got.then((outcome) => {
            waiting.splice(waiting.indexOf(entry), 1);
            if (typeof outcome === 'object') held.set(level, [...running(level), outcome]);
          });
        } else if (typeof got === 'object') {
          held.set(level, [...running(level), got]);
        }
      } else if (r < 0.8) {
        const level = pick([...held.keys()].filter((l) => running(l).length > 0).concat(['none']));
        const list = running(level);
        if (list.length > 0) {
          const [seat] = list.splice(Math.floor(rand() * list.length), 1);
          seat!.release();
          seat!.release(); // once only
        }
      } else if (r < 0.88) {
        if (waiting.length > 0) pick(waiting).abandon();
      } else if (r < 0.95) {
        now += Math.floor(rand() * 3000);
        levels.adjust();
      } else if (r < 0.98) {
        config = configs(pick([2, 4, 6]));
        levels.configure(config);
      } else {
        await sleep(25); // waits run out
      }
      await Promise.resolve();
      await Promise.resolve();
      check(step);
    }
    // Everything ends: what runs, what waits; the fan-outs' seats come back.
    while (waiting.length > 0 || [...held.values()].some((l) => l.length > 0)) {
      for (const w of [...waiting]) w.abandon();
      for (const list of held.values()) for (const seat of list.splice(0)) seat.release();
      await sleep(10);
    }
    await sleep(10);
    now += 10_000;
    levels.adjust();
    now += 10_000;
    levels.adjust();
    for (const dump of levels.dump()) {
      assert.deepEqual([dump.executing, dump.waiting, dump.seatsInUse, dump.waitingSeats], [0, 0, 0, 0], `seed ${seed}: ${dump.name}`);
    }
    for (const seats of levels.seats()) assert.equal(seats.demand.highWatermark, 0, `seed ${seed}: ${seats.level}`);
  });
}
