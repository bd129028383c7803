import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { TurnLimiter } from '../../src/server/turns.ts';

test('a turn starts so many requests; the rest start in the turns after, in the order they came', async () => {
  const turns = new TurnLimiter(3);
  const started: number[] = [];
  for (let i = 0; i < 8; i++) turns.admit(() => started.push(i));
  assert.deepEqual(started, [0, 1, 2]);
  assert.equal(turns.waiting, 5);
  await nextTurn();
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
  // One that comes while others wait goes behind them, though this turn has room.
  turns.admit(() => started.push(8));
  await nextTurn();
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  assert.equal(turns.waiting, 0);
  await nextTurn();
  await nextTurn();
  // A new turn has room again, and nothing waits on an idle limiter.
  turns.admit(() => started.push(9));
  assert.deepEqual(started.at(-1), 9);
});
