// Where the WAL's sync runs: on the event loop while it is fast, on the thread pool for
// a while once it is slow on average or stalls (wal-sync.ts says why).

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WalSync } from '../../src/storage/wal-sync.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'plinth-wal-sync-test-'));
after(() => rmSync(root, { recursive: true, force: true }));

let files = 0;
function walFile(): string {
  const file = path.join(root, `db-${++files}.db-wal`);
  writeFileSync(file, 'log');
  return file;
}

/** A WalSync on a clock the test moves; each sync on the loop takes `took` ms of it, each on the thread pool `tookLater`. */
function scripted(opts: { inlineLimitMs?: number; stallLimitMs?: number; backoffMs?: number; later?: () => boolean } = {}) {
  let clock = 0;
  const log: string[] = [];
  const observed: Array<[seconds: number, onLoop: boolean]> = [];
  const state = { took: 0.3, tookLater: 0 };
  const wal = new WalSync(walFile(), {
    ...opts,
    now: () => clock,
    syncNow: () => {
      log.push('now');
      clock += state.took;
    },
    syncLater: async () => {
      log.push('later');
      clock += state.tookLater;
    },
    observe: (seconds, onLoop) => void observed.push([seconds, onLoop]),
  });
  return { wal, log, observed, state, advance: (ms: number) => (clock += ms) };
}

describe('WalSync', () => {
  test('each sync is observed: how long it took, in seconds, and whether on the loop', async () => {
    const { wal, observed, state } = scripted({ inlineLimitMs: 2, backoffMs: 100 });
    state.took = 0.5;
    wal.sync();
    state.took = 30; // a stall: the next syncs go to the thread pool
    wal.sync();
    state.tookLater = 4;
    await wal.sync();
    assert.deepEqual(observed, [[0.0005, true], [0.03, true], [0.004, false]]);
  });

  test('fast syncs go to the thread pool while another thread\'s work waits on the loop, and come back after', async () => {
    let waiting = false;
    const { wal, log } = scripted({ later: () => waiting });
    assert.equal(wal.sync(), undefined);
    waiting = true;
    assert.equal(wal.inline, false);
    await wal.sync();
    await wal.sync();
    waiting = false;
    assert.equal(wal.inline, true);
    assert.equal(wal.sync(), undefined);
    assert.deepEqual(log, ['now', 'later', 'later', 'now']);
  });

  test('fast syncs run on the loop and return at once; a slow one now and then leaves them there', () => {
    const { wal, log, state } = scripted({ inlineLimitMs: 2 });
    for (let i = 0; i < 50; i++) {
      state.took = i % 10 === 9 ? 10 : 0.4;
      assert.equal(wal.sync(), undefined);
    }
    assert.equal(log.length, 50);
    assert.ok(log.every((where) => where === 'now'));
  });

  test('syncs averaging over the limit go to the thread pool for the backoff, then the loop tries again', async () => {
    const { wal, log, state, advance } = scripted({ inlineLimitMs: 2, backoffMs: 100 });
    state.took = 5;
    // The average (the newest sync weighing a twentieth) passes 2 ms at the tenth sync of 5 ms.
    for (let i = 0; i < 10; i++) {
      assert.equal(wal.inline, true);
      assert.equal(wal.sync(), undefined);
    }
    assert.equal(wal.inline, false);
    const later = wal.sync();
    assert.ok(later instanceof Promise);
    await later;
    advance(99);
    assert.ok(wal.sync() instanceof Promise, 'still within the backoff');
    advance(1);
    state.took = 0.5;
    assert.equal(wal.sync(), undefined, 'back on the loop once the backoff is over');
    assert.deepEqual(log, [...Array(10).fill('now'), 'later', 'later', 'now']);
  });

  test('one sync over the stall limit moves them at once, and the average starts afresh on the way back', () => {
    const { wal, log, state, advance } = scripted({ inlineLimitMs: 2, stallLimitMs: 20, backoffMs: 100 });
    state.took = 30;
    wal.sync();
    assert.equal(wal.inline, false);
    advance(100);
    // A fresh average: one sync of 5 ms after the backoff does not send them away again.
    state.took = 5;
    assert.equal(wal.sync(), undefined);
    assert.equal(wal.inline, true);
    assert.deepEqual(log, ['now', 'now']);
  });

  test('a failed sync on the loop throws; one on the thread pool rejects', async () => {
    const failing = new WalSync(walFile(), { syncNow: () => { throw new Error('EIO: i/o error, fdatasync'); } });
    assert.throws(() => failing.sync(), /EIO/);
    let clock = 0;
    const slowThenFailing = new WalSync(walFile(), {
      stallLimitMs: 20,
      now: () => clock,
      syncNow: () => void (clock += 50),
      syncLater: async () => { throw new Error('EIO: i/o error, fdatasync'); },
    });
    slowThenFailing.sync();
    await assert.rejects(Promise.resolve(slowThenFailing.sync()), /EIO/);
  });

  test('the real sync: a log that is not there fails, one that is syncs on the loop', async () => {
    assert.throws(() => new WalSync(path.join(root, 'missing.db-wal')).sync(), /ENOENT/);
    const wal = new WalSync(walFile(), { inlineLimitMs: 60_000 });
    assert.equal(wal.sync(), undefined);
    assert.equal(wal.sync(), undefined);
    await wal.close();
  });
});
