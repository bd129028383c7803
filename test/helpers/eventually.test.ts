import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from './eventually.ts';

test('answers what the check returns once it stops throwing', async () => {
  let tries = 0;
  const value = await eventually(() => {
    tries++;
    assert.ok(tries >= 3, 'not yet');
    return tries;
  });
  assert.equal(value, 3);
});

test('after the deadline, fails with the last error of the check, saying what it waited for', async () => {
  let tries = 0;
  const err = await eventually(async () => assert.equal(++tries, 0), { timeoutMs: 30, what: 'zero' }).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof assert.AssertionError);
  assert.match(err.message, /^not within 30 ms \(zero\): /);
  assert.equal(err.actual, tries, 'the last try');
  assert.ok(tries > 1);
});

test('polls in real time while a test mocks the timers', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let tries = 0;
  assert.equal(await eventually(() => assert.ok(++tries >= 3)), undefined);
});
