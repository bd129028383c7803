import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BoundedQueue } from '../../src/api/bounded-queue.ts';

type Step = { push: number } | { shift: number | undefined } | { pushRefused: number } | 'clear';

interface Case {
  name: string;
  limit?: number;
  steps: Step[];
  /** The queue's items afterwards, oldest first. */
  expected: number[];
}

/** `count` steps pushing from..from+count-1, or shifting them (expecting those values). */
function pushes(from: number, count: number): Step[] {
  return Array.from({ length: count }, (_, i) => ({ push: from + i }));
}
function shifts(from: number, count: number): Step[] {
  return Array.from({ length: count }, (_, i) => ({ shift: from + i }));
}
function range(from: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

const cases: Case[] = [
  { name: 'an empty queue shifts undefined', steps: [{ shift: undefined }], expected: [] },
  { name: 'items come out in the order they went in', steps: [...pushes(1, 3), ...shifts(1, 2)], expected: [3] },
  { name: 'emptied, it takes items again', steps: [...pushes(1, 2), ...shifts(1, 2), { shift: undefined }, { push: 7 }], expected: [7] },
  {
    name: 'pushes after shifts wrap around the array in order',
    steps: [...pushes(0, 8), ...shifts(0, 5), ...pushes(8, 5)],
    expected: range(5, 8),
  },
  {
    name: 'growing while wrapped around keeps the order',
    steps: [...pushes(0, 8), ...shifts(0, 3), ...pushes(8, 20)],
    expected: range(3, 25),
  },
  {
    name: 'alternating shift, push, push while growing keeps the order',
    steps: [...pushes(0, 4), ...Array.from({ length: 50 }, (_, i): Step[] => [{ shift: i }, { push: 4 + 2 * i }, { push: 5 + 2 * i }]).flat()],
    expected: range(50, 54),
  },
  {
    name: 'a long steady stream through a small backlog',
    steps: [...pushes(0, 5), ...Array.from({ length: 1000 }, (_, i): Step[] => [{ push: 5 + i }, { shift: i }]).flat()],
    expected: range(1000, 5),
  },
  {
    name: 'a large burst drained and refilled',
    steps: [...pushes(0, 1000), ...shifts(0, 1000), ...pushes(1000, 10)],
    expected: range(1000, 10),
  },
  { name: 'push refuses past the limit', limit: 3, steps: [...pushes(1, 3), { pushRefused: 4 }], expected: [1, 2, 3] },
  {
    name: 'a shift makes room under the limit again',
    limit: 2,
    steps: [...pushes(1, 2), { pushRefused: 3 }, { shift: 1 }, { push: 3 }, { pushRefused: 4 }],
    expected: [2, 3],
  },
  { name: 'a limit of 0 takes nothing', limit: 0, steps: [{ pushRefused: 1 }, { shift: undefined }], expected: [] },
  { name: 'clear empties it', steps: [...pushes(1, 5), 'clear', { shift: undefined }, { push: 9 }], expected: [9] },
];

for (const c of cases) {
  test(`BoundedQueue: ${c.name}`, () => {
    const queue = new BoundedQueue<number>(c.limit);
    let expectedLength = 0;
    for (const step of c.steps) {
      if (step === 'clear') {
        queue.clear();
        expectedLength = 0;
      } else if ('push' in step) {
        assert.equal(queue.push(step.push), true, `push ${step.push}`);
        expectedLength++;
      } else if ('pushRefused' in step) {
        assert.equal(queue.push(step.pushRefused), false, `push ${step.pushRefused} refused`);
      } else {
        assert.equal(queue.shift(), step.shift);
        if (step.shift !== undefined) expectedLength--;
      }
      assert.equal(queue.length, expectedLength);
    }
    assert.deepEqual(range(0, queue.length).map((i) => queue.at(i)), c.expected);
    assert.equal(queue.at(-1), undefined);
    assert.equal(queue.at(queue.length), undefined);
    const drained: (number | undefined)[] = [];
    while (queue.length > 0) drained.push(queue.shift());
    assert.deepEqual(drained, c.expected);
  });
}

test('BoundedQueue: without a limit it holds any number of items', () => {
  const queue = new BoundedQueue<number>();
  assert.equal(queue.limit, Infinity);
  for (let i = 0; i < 100_000; i++) assert.equal(queue.push(i), true);
  assert.equal(queue.length, 100_000);
  assert.equal(queue.at(99_999), 99_999);
});

test('BoundedQueue: a shifted item is no longer referenced by the queue', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const queue = new BoundedQueue<object>();
  let item: object | undefined = {};
  const ref = new WeakRef(item);
  queue.push(item);
  queue.push({});
  item = undefined;
  queue.shift();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.equal(ref.deref(), undefined);
});
