// The SQLite backend: the shared contract, plus what only a file can show:
// reopening it, exclusive use, compaction freeing rows, and answered writes
// surviving kill -9.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { isStorageError, openBackend, SqliteBackend } from '../../src/storage/index.ts';
import { bytes, storageContract, text } from './contract.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'plinth-sqlite-test-'));
after(() => rmSync(root, { recursive: true, force: true }));

let databases = 0;
function newDatabasePath(): string {
  return path.join(root, `db-${++databases}.db`);
}

storageContract('sqlite', async (opts) => new SqliteBackend(newDatabasePath(), opts));

describe('sqlite backend: the file', () => {
  test('reopening the file finds the data, the revision and the compaction point', async () => {
    const file = newDatabasePath();
    const first = new SqliteBackend(file);
    const a1 = await first.create('/registry/x/a', bytes('a1'));
    const a2 = await first.update('/registry/x/a', bytes('a2'), a1);
    await first.create('/registry/x/b', bytes('b1'));
    const deleted = await first.delete('/registry/x/b');
    await first.compact(a2);
    await first.close();

    const second = new SqliteBackend(file);
    try {
      assert.equal(await second.currentRevision(), deleted, 'the revision continues, even when the last write was a compacted-away delete');
      assert.equal(text((await second.get('/registry/x/a'))!.value), 'a2');
      assert.equal(await second.get('/registry/x/b'), undefined);
      await assert.rejects(second.get('/registry/x/a', { revision: a1 }), (err) => isStorageError(err, 'Compacted'));
      assert.equal(text((await second.get('/registry/x/a', { revision: a2 }))!.value), 'a2');
      assert.equal(await second.create('/registry/x/c', bytes('c1')), deleted + 1);
    } finally {
      await second.close();
    }
  });

  test('the revision survives compaction of a trailing delete', async () => {
    const file = newDatabasePath();
    const first = new SqliteBackend(file);
    await first.create('/registry/x/a', bytes('a1'));
    const deleted = await first.delete('/registry/x/a');
    await first.compact(deleted);
    await first.close();
    const second = new SqliteBackend(file);
    try {
      assert.equal(await second.create('/registry/x/a', bytes('a2')), deleted + 1);
    } finally {
      await second.close();
    }
  });

  test('a time to live outlasts a restart: a key that fell due while the file was closed is deleted once it is open again', async () => {
    const file = newDatabasePath();
    const first = new SqliteBackend(file);
    await first.create('/registry/events/default/a', bytes('a'), { ttlSeconds: 1 });
    await first.create('/registry/events/default/b', bytes('b'), { ttlSeconds: 3600 });
    const last = await first.create('/registry/events/default/c', bytes('c'));
    await first.close();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const second = new SqliteBackend(file);
    try {
      const watch = second.watch('/registry/events/', last);
      const { value: event } = await watch[Symbol.asyncIterator]().next();
      watch.close();
      assert.deepEqual([event?.type, event?.kv.key, event?.revision], ['delete', '/registry/events/default/a', last + 1]);
      assert.deepEqual((await second.list('/registry/events/')).items.map((kv) => kv.key), ['/registry/events/default/b', '/registry/events/default/c']);
    } finally {
      await second.close();
    }
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      assert.deepEqual(db.prepare('SELECT key FROM expiry').all().map((row) => row.key), ['/registry/events/default/b']);
    } finally {
      db.close();
    }
  });

  test('a file of the first schema opens: its keys have no time to live, and it gains the table for them', async () => {
    const file = newDatabasePath();
    const first = new SqliteBackend(file);
    await first.create('/registry/x/a', bytes('a'));
    await first.close();
    const db = new DatabaseSync(file);
    db.exec('DROP TABLE expiry; PRAGMA user_version = 1');
    db.close();
    const second = new SqliteBackend(file);
    try {
      const revision = await second.create('/registry/events/default/e', bytes('e'), { ttlSeconds: 60 });
      assert.equal(text((await second.get('/registry/x/a'))!.value), 'a');
      assert.equal((await second.get('/registry/events/default/e'))!.modRevision, revision);
    } finally {
      await second.close();
    }
  });

  test('a file of a newer schema is refused', async () => {
    const file = newDatabasePath();
    await new SqliteBackend(file).close();
    const db = new DatabaseSync(file);
    db.exec('PRAGMA user_version = 99');
    db.close();
    assert.throws(() => new SqliteBackend(file), /written by a newer Plinth \(schema 99, this one knows 2\)/);
  });

  test('a second backend on a file in use fails with Unavailable', async () => {
    const file = newDatabasePath();
    const first = new SqliteBackend(file);
    try {
      assert.throws(() => new SqliteBackend(file), (err) => isStorageError(err, 'Unavailable') && /in use/.test((err as Error).message));
    } finally {
      await first.close();
    }
  });

  test('compaction deletes the superseded versions and deletions from the file', async () => {
    const file = newDatabasePath();
    const backend = new SqliteBackend(file);
    let revision = await backend.create('/registry/x/a', bytes('0'));
    for (let i = 1; i < 100; i++) revision = await backend.update('/registry/x/a', bytes(String(i)), revision);
    await backend.create('/registry/x/b', bytes('b'));
    await backend.delete('/registry/x/b');
    const tail = await backend.update('/registry/x/a', bytes('tail'), revision);
    await backend.compact(tail - 1);
    await backend.close();
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const rows = db.prepare('SELECT key, revision FROM history ORDER BY revision').all();
      // a's version at the compacted revision (needed as the prev of the tail) and the tail.
      assert.deepEqual(rows.map((r) => [r.key, r.revision]), [['/registry/x/a', revision], ['/registry/x/a', tail]]);
    } finally {
      db.close();
    }
  });

  test('openBackend keeps the sqlite file at <dataDir>/plinth.db', async () => {
    const dataDir = path.join(root, 'data-dir', 'nested');
    const backend = await openBackend('sqlite', { dataDir });
    await backend.create('/registry/x/a', bytes('1'));
    await backend.close();
    const reopened = new SqliteBackend(path.join(dataDir, 'plinth.db'));
    try {
      assert.equal(text((await reopened.get('/registry/x/a'))!.value), '1');
    } finally {
      await reopened.close();
    }
  });

  test('every write answered before kill -9 is in the file afterwards', async () => {
    const file = newDatabasePath();
    const fixture = path.join(import.meta.dirname, 'fixtures', 'create-many.ts');
    const child = spawn(process.execPath, [fixture, file, '1000000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const answered: string[] = [];
    let partial = '';
    let killed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      answered.push(...lines);
      // Kill mid-stream, while writes are queued and in flight.
      if (!killed && answered.length >= 3000) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
    assert.equal(signal, 'SIGKILL', `the writer should have been killed mid-stream (exit code ${code}): ${stderr}`);
    assert.ok(answered.length >= 3000);

    const backend = new SqliteBackend(file);
    try {
      const missing: string[] = [];
      for (const key of answered) if ((await backend.get(key)) === undefined) missing.push(key);
      assert.deepEqual(missing, [], `${missing.length} of ${answered.length} answered writes were lost`);
      const { items } = await backend.list('/registry/things/');
      assert.ok(items.length >= answered.length);
      assert.ok((await backend.currentRevision()) >= answered.length + 1);
    } finally {
      await backend.close();
    }
  });
});

describe('sqlite backend: an update\'s prev', () => {
  test('its value is read when first asked for: the bytes it replaced, or Compacted once a compaction swept them', async () => {
    const backend = new SqliteBackend(newDatabasePath());
    try {
      const first = await backend.create('/registry/x/a', bytes('one'));
      // Waiting in next() as each write commits: the events published live, not read back from the history.
      const iterator = backend.watch('/registry/x/', first)[Symbol.asyncIterator]();
      const secondEvent = iterator.next();
      const second = await backend.update('/registry/x/a', bytes('two'), first);
      const read = (await secondEvent).value!;
      const thirdEvent = iterator.next();
      const third = await backend.update('/registry/x/a', bytes('three'), second);
      assert.equal(read.revision, second);
      assert.equal(read.prev!.modRevision, first);
      assert.equal(text(read.prev!.value), 'one');
      const unread = (await thirdEvent).value!;
      assert.equal(unread.prev!.modRevision, second);
      // Revision `second` is superseded by `third`: compacting at `third` sweeps its row.
      await backend.compact(third);
      assert.throws(() => unread.prev!.value, (err: unknown) => isStorageError(err, 'Compacted'));
      await iterator.return?.();
    } finally {
      await backend.close();
    }
  });
});

describe('sqlite backend: a commit counts once it is synced', () => {
  /** A sync the test releases or fails, one call at a time. */
  function heldSync() {
    const calls: { release(): void; fail(err: Error): void }[] = [];
    let arrived: (() => void) | undefined;
    return {
      calls,
      syncLog: () => new Promise<void>((resolve, reject) => {
        calls.push({ release: resolve, fail: reject });
        arrived?.();
      }),
      /** Resolves once `count` syncs have been asked for. */
      async called(count: number): Promise<void> {
        while (calls.length < count) await new Promise<void>((resolve) => (arrived = resolve));
      },
    };
  }

  test('until the sync is done, the write is not answered, not read and not watched; the next batch waits', async () => {
    const sync = heldSync();
    const backend = new SqliteBackend(newDatabasePath(), { syncLog: sync.syncLog });
    try {
      const first = backend.create('/registry/x/a', bytes('1'));
      await sync.called(1);
      const before = await backend.currentRevision();
      const watch = backend.watch('/registry/x/', before);
      let answered = false;
      void first.then(() => (answered = true));
      // Writes submitted meanwhile wait for the commit in flight, then share one batch.
      const later = [backend.create('/registry/x/b', bytes('2')), backend.update('/registry/x/a', bytes('3'), before + 1)];
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(answered, false);
      assert.equal(sync.calls.length, 1, 'a second batch started before the first was synced');
      assert.equal(await backend.get('/registry/x/a'), undefined);
      assert.deepEqual((await backend.list('/registry/x/')).items, []);
      assert.equal(await backend.currentRevision(), before);

      sync.calls[0]!.release();
      assert.equal(await first, before + 1);
      assert.equal(text((await backend.get('/registry/x/a'))!.value), '1');
      const events = watch[Symbol.asyncIterator]();
      assert.equal((await events.next()).value?.kv.key, '/registry/x/a');

      await sync.called(2);
      // The second batch is committed to the file, not yet synced: reads stay at the first.
      assert.equal(text((await backend.get('/registry/x/a'))!.value), '1');
      assert.deepEqual((await backend.list('/registry/x/', { limit: 1 })).items.map((kv) => kv.key), ['/registry/x/a']);
      assert.equal((await backend.list('/registry/x/', { limit: 1 })).more, false);
      sync.calls[1]!.release();
      assert.deepEqual(await Promise.all(later), [before + 2, before + 3]);
      assert.equal(text((await backend.get('/registry/x/a'))!.value), '3');
      assert.deepEqual((await backend.list('/registry/x/')).items.map((kv) => text(kv.value)), ['3', '2']);
      assert.equal(sync.calls.length, 2);
      watch.close();
    } finally {
      await backend.close();
    }
  });

  test('a failed sync fails its writes and every later one, while reads stay at the last synced revision', async () => {
    const sync = heldSync();
    const backend = new SqliteBackend(newDatabasePath(), { syncLog: sync.syncLog });
    try {
      const first = backend.create('/registry/x/a', bytes('1'));
      await sync.called(1);
      sync.calls[0]!.release();
      const revision = await first;
      const second = backend.update('/registry/x/a', bytes('2'), revision);
      await sync.called(2);
      sync.calls[1]!.fail(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
      await assert.rejects(second, (err) => isStorageError(err, 'Unavailable') && /syncing the write-ahead log failed.*EIO/.test((err as Error).message));
      await assert.rejects(backend.create('/registry/x/b', bytes('3')), (err) => isStorageError(err, 'Unavailable'));
      assert.equal(sync.calls.length, 2, 'a write was committed after the failed sync');
      assert.equal(await backend.currentRevision(), revision);
      assert.equal(text((await backend.get('/registry/x/a'))!.value), '1');
      assert.deepEqual((await backend.list('/registry/x/')).items.map((kv) => text(kv.value)), ['1']);
    } finally {
      await backend.close();
    }
  });

  test('a sync that returns at once answers the batch in the same step: the write is read and watched', async () => {
    let syncs = 0;
    const backend = new SqliteBackend(newDatabasePath(), { syncLog: () => void syncs++ });
    try {
      const before = await backend.currentRevision();
      const watch = backend.watch('/registry/x/', before);
      const [a, b] = await Promise.all([backend.create('/registry/x/a', bytes('1')), backend.create('/registry/x/b', bytes('2'))]);
      assert.deepEqual([a, b], [before + 1, before + 2]);
      assert.equal(syncs, 1, 'the two writes share one commit and one sync');
      assert.equal(await backend.currentRevision(), before + 2);
      assert.deepEqual((await backend.list('/registry/x/')).items.map((kv) => text(kv.value)), ['1', '2']);
      const events = watch[Symbol.asyncIterator]();
      assert.equal((await events.next()).value?.kv.key, '/registry/x/a');
      assert.equal((await events.next()).value?.kv.key, '/registry/x/b');
      watch.close();
    } finally {
      await backend.close();
    }
  });

  test('a sync that throws fails its writes and every later one, and reads stay at the last synced revision', async () => {
    let fail = false;
    const backend = new SqliteBackend(newDatabasePath(), {
      syncLog: () => {
        if (fail) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      },
    });
    try {
      const revision = await backend.create('/registry/x/a', bytes('1'));
      fail = true;
      await assert.rejects(backend.update('/registry/x/a', bytes('2'), revision), (err) => isStorageError(err, 'Unavailable') && /syncing the write-ahead log failed.*EIO/.test((err as Error).message));
      fail = false;
      await assert.rejects(backend.create('/registry/x/b', bytes('3')), (err) => isStorageError(err, 'Unavailable'));
      assert.equal(await backend.currentRevision(), revision);
      assert.equal(text((await backend.get('/registry/x/a'))!.value), '1');
      assert.deepEqual((await backend.list('/registry/x/')).items.map((kv) => text(kv.value)), ['1']);
    } finally {
      await backend.close();
    }
  });

  test('close waits for the commit in flight and commits what is queued behind it', async () => {
    const file = newDatabasePath();
    const sync = heldSync();
    const backend = new SqliteBackend(file, { syncLog: sync.syncLog });
    const first = backend.create('/registry/x/a', bytes('1'));
    await sync.called(1);
    const second = backend.create('/registry/x/b', bytes('2'));
    const closed = backend.close();
    sync.calls[0]!.release();
    await sync.called(2);
    sync.calls[1]!.release();
    await closed;
    assert.deepEqual(await Promise.all([first, second]), [2, 3]);
    const reopened = new SqliteBackend(file);
    try {
      assert.deepEqual((await reopened.list('/registry/x/')).items.map((kv) => text(kv.value)), ['1', '2']);
    } finally {
      await reopened.close();
    }
  });
});
