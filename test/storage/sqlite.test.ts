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
