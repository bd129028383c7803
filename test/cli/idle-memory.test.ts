// Giving a burst's memory back once the server is quiet: the policy's decisions, and one
// real collection that shrinks this process's heap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdleMemoryPolicy, startIdleMemoryRelease, type IdleCollection, type IdleMemoryOptions } from '../../src/cli/idle-memory.ts';

const MiB = 1024 * 1024;
const options: IdleMemoryOptions = { intervalMs: 1_000, quietUtilization: 0.05, quietSamples: 3, growthBytes: 32 * MiB, minGapMs: 30_000 };

/** Feeds samples one second apart from t=1 s; answers the seconds at which it collected (the heap then back to `after`). */
function run(policy: IdleMemoryPolicy, samples: [utilization: number, heapMiB: number][], after = 50): number[] {
  const collectedAt: number[] = [];
  samples.forEach(([utilization, heap], i) => {
    const now = (i + 1) * 1_000;
    if (policy.sample({ utilization, heapBytes: heap * MiB, now })) {
      collectedAt.push(i + 1);
      policy.collected(after * MiB, now);
    }
  });
  return collectedAt;
}

const cases: { name: string; samples: [number, number][]; expected: number[] }[] = [
  { name: 'a grown heap is collected after three quiet samples', samples: [[0.9, 200], [0.01, 200], [0.01, 200], [0.01, 200], [0.01, 200]], expected: [4] },
  { name: 'busy samples start the quiet count over', samples: [[0.01, 200], [0.01, 200], [0.5, 200], [0.01, 200], [0.01, 200], [0.01, 200]], expected: [6] },
  { name: 'a heap grown less than the threshold is left alone', samples: [[0.01, 60], [0.01, 60], [0.01, 60], [0.01, 60]], expected: [] },
  { name: 'a loop busy at the threshold is not quiet', samples: [[0.05, 200], [0.05, 200], [0.05, 200], [0.05, 200]], expected: [] },
  {
    name: 'a second burst is collected only 30 s after the first collection',
    samples: [[0.01, 200], [0.01, 200], [0.01, 200], ...Array.from({ length: 10 }, (): [number, number] => [0.9, 200]), ...Array.from({ length: 30 }, (): [number, number] => [0.01, 200])],
    expected: [3, 33],
  },
  { name: 'a heap that shrank on its own is the floor the growth counts from', samples: [[0.9, 120], [0.9, 45], [0.01, 70], [0.01, 70], [0.01, 70], [0.9, 90], [0.01, 90], [0.01, 90], [0.01, 90]], expected: [9] },
];

for (const { name, samples, expected } of cases) {
  test(name, () => {
    assert.deepEqual(run(new IdleMemoryPolicy(40 * MiB, options), samples), expected);
  });
}

test('quiet after a burst, the process collects and its heap shrinks', async () => {
  const seen: IdleCollection[] = [];
  const release = startIdleMemoryRelease({ intervalMs: 20, quietUtilization: 0.5, quietSamples: 2, growthBytes: 32 * MiB, minGapMs: 0 }, { onCollection: (collection) => seen.push(collection) });
  try {
    // A burst: ~150 MiB of objects that live long enough to reach the old generation, then die.
    let burst: object[] | undefined = [];
    for (let i = 0; i < 1_500_000; i++) burst.push({ index: i, text: `item ${i}` });
    burst = undefined;
    const before = process.memoryUsage().heapTotal;
    for (let i = 0; i < 500 && release.collections === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(release.collections, 1);
    const after = process.memoryUsage().heapTotal;
    assert.ok(after < before / 2, `heap ${Math.round(before / MiB)} MiB before, ${Math.round(after / MiB)} MiB after`);
    assert.equal(seen.length, 1);
    assert.ok(seen[0]!.afterBytes < seen[0]!.beforeBytes, 'the collection reports the heap it left');
    assert.equal((globalThis as { gc?: unknown }).gc, undefined, 'gc() stays hidden');
  } finally {
    release.stop();
  }
});

test('a collector that cannot be had stops the release and is reported, without an exception', async () => {
  const failures: Error[] = [];
  let made = 0;
  const release = startIdleMemoryRelease({ intervalMs: 10, quietUtilization: 1.01, quietSamples: 1, growthBytes: -Infinity, minGapMs: 0 }, {
    collector: () => {
      made++;
      throw new Error('flags are frozen');
    },
    onFailure: (err) => failures.push(err),
  });
  try {
    for (let i = 0; i < 200 && failures.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(failures.map((err) => err.message), ['flags are frozen']);
    assert.equal(made, 1, 'no second attempt after the release stopped');
    assert.equal(release.collections, 0);
  } finally {
    release.stop();
  }
});
