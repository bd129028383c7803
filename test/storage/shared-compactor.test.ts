// The shared compactor's turns over a clock kept in memory, as several servers on one
// etcd cluster take them: one compaction per interval for the whole cluster, to the
// revision its winner saw one turn before, and another server takes over when the
// winner stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedCompactor, type CompactionClock } from '../../src/storage/index.ts';

/** etcd's compact_rev_key in miniature: a version, the value last put, and a revision that moves with writes. */
class Clock implements CompactionClock {
  version = 0;
  value = '';
  revision = 1;
  compactions: number[] = [];
  async advanceCompactionClock(time: number, revision: number) {
    if (this.version !== time) return { won: false, time: this.version, currentRevision: this.revision };
    this.version++;
    this.value = String(revision);
    this.revision++;
    return { won: true, time: this.version, currentRevision: this.revision };
  }
  async compact(revision: number) {
    this.compactions.push(revision);
  }
}

test('the first turn only starts the clock; the next compacts to the revision seen then', async () => {
  const clock = new Clock();
  const compactor = new SharedCompactor(clock, { intervalMs: 1000 });
  clock.revision = 10;
  await compactor.turn();
  assert.deepEqual(clock.compactions, []);
  assert.equal(clock.version, 1);
  clock.revision = 50;
  await compactor.turn();
  // The put of the first turn made revision 11: that is what was current then.
  assert.deepEqual(clock.compactions, [11]);
  assert.equal(clock.value, '11');
  compactor.close();
});

test('of servers taking turns in the same interval, one compacts; the others learn the time', async () => {
  const clock = new Clock();
  const servers = [new SharedCompactor(clock), new SharedCompactor(clock), new SharedCompactor(clock)];
  for (let interval = 0; interval < 4; interval++) {
    clock.revision += 100;
    for (const server of servers) await server.turn();
  }
  // Interval 0: the first server starts the clock, the others fail and learn it.
  // Intervals 1..3: the first server to take its turn wins with the time it learned.
  assert.equal(clock.compactions.length, 3);
  assert.equal(clock.version, 4);
  for (const server of servers) server.close();
});

test('when the server that compacts stops, another takes over at its next turn but one', async () => {
  const clock = new Clock();
  const [a, b] = [new SharedCompactor(clock), new SharedCompactor(clock)];
  await a.turn();
  await b.turn();
  await a.turn();
  assert.equal(clock.compactions.length, 1);
  a.close();
  // b last saw the clock at time 1; a moved it to 2, so b's next turn fails and learns it...
  await b.turn();
  assert.equal(clock.compactions.length, 1);
  // ...and the turn after compacts.
  await b.turn();
  assert.equal(clock.compactions.length, 2);
  b.close();
});

test('a failed turn is reported and changes nothing; close() stops the turns', async () => {
  const errors: unknown[] = [];
  const clock = new Clock();
  const failing: CompactionClock = { advanceCompactionClock: () => Promise.reject(new Error('etcd down')), compact: (r) => clock.compact(r) };
  const compactor = new SharedCompactor(failing, { onError: (err) => errors.push(err) });
  await compactor.turn();
  assert.equal(errors.length, 1);
  compactor.close();
  await compactor.turn();
  assert.equal(errors.length, 1);
});
