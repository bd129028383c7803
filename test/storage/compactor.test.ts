import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Compactor, isStorageError, MemoryBackend } from '../../src/storage/index.ts';
import { bytes } from './contract.ts';

/** True when reads at `revision` fail with Compacted. */
async function isCompacted(backend: MemoryBackend, revision: number): Promise<boolean> {
  try {
    await backend.list('/registry/', { revision });
    return false;
  } catch (err) {
    if (isStorageError(err, 'Compacted')) return true;
    throw err;
  }
}

test('the compactor compacts to the revision that was current retainMs ago', async () => {
  const backend = new MemoryBackend();
  let now = 0;
  const compactor = new Compactor(backend, { retainMs: 1000, now: () => now });
  const revisions: number[] = [];
  for (let i = 0; i < 4; i++) {
    now = i * 500;
    revisions.push(await backend.create(`/registry/x/${i}`, bytes('v')));
    await compactor.tick();
  }
  // Ticks at 0, 500, 1000, 1500 saw revisions r0..r3; at 1500 the newest sample at
  // least 1000 old is the one from 500, so everything below r1 is gone and r1 is not.
  const [r0, r1] = revisions as [number, number];
  assert.equal(await isCompacted(backend, r0), true);
  assert.equal(await isCompacted(backend, r1), false);
  compactor.close();
  await backend.close();
});

test('before retainMs has passed the compactor keeps everything', async () => {
  const backend = new MemoryBackend();
  let now = 0;
  const compactor = new Compactor(backend, { retainMs: 1000, now: () => now });
  const first = await backend.create('/registry/x/a', bytes('v'));
  await compactor.tick();
  now = 999;
  await backend.create('/registry/x/b', bytes('v'));
  await compactor.tick();
  assert.equal(await isCompacted(backend, first - 1), false);
  compactor.close();
  await backend.close();
});

test('start() compacts on its interval and close() stops it', async (t) => {
  // Mocked intervals and clock: "the interval passed" is a tick, not a wait.
  t.mock.timers.enable({ apis: ['setInterval', 'Date'] });
  const backend = new MemoryBackend();
  const errors: unknown[] = [];
  const compactor = new Compactor(backend, { retainMs: 20, intervalMs: 5, onError: (err) => errors.push(err) });
  const first = await backend.create('/registry/x/a', bytes('v'));
  await backend.create('/registry/x/b', bytes('v'));
  compactor.start();
  // Each round runs the due ticks, then lets their compaction (in memory: promise
  // callbacks only) finish before looking.
  const advance = async (ms: number) => {
    t.mock.timers.tick(ms);
    await new Promise((resolve) => setImmediate(resolve));
  };
  await advance(0);
  assert.equal(await isCompacted(backend, first), false, 'nothing is retainMs old yet');
  for (let elapsed = 0; elapsed < 20; elapsed += 5) await advance(5);
  assert.equal(await isCompacted(backend, first), true, 'compacted once the first sample was retainMs old');
  compactor.close();
  const afterClose = await backend.create('/registry/x/c', bytes('v'));
  await backend.create('/registry/x/d', bytes('v'));
  for (let elapsed = 0; elapsed < 100; elapsed += 5) await advance(5);
  assert.equal(await isCompacted(backend, afterClose), false);
  assert.deepEqual(errors, []);
  await backend.close();
});
