// writeFileAtomic: a file written whole or not at all, synced to disk unless told not to.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../src/server/write-file-atomic.ts';
import { fileSyncsDuring } from '../helpers/file-syncs.ts';
import { tempDir } from '../helpers/server.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

test('replaces a file whole, with its mode, leaving nothing beside it; synced by default', async () => {
  const file = path.join(dir, 'nested', 'secret.key');
  const syncs = await fileSyncsDuring(async () => {
    writeFileAtomic(file, 'first', 0o600);
    writeFileAtomic(file, 'second', 0o600);
  });
  assert.equal(readFileSync(file, 'utf8'), 'second');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(path.dirname(file)), ['secret.key']);
  assert.equal(syncs, 2);
});

test('{ sync: false } writes the same file without syncing it', async () => {
  const file = path.join(dir, 'kubeconfig');
  writeFileSync(file, 'old');
  const syncs = await fileSyncsDuring(async () => writeFileAtomic(file, 'new', 0o644, { sync: false }));
  assert.equal(readFileSync(file, 'utf8'), 'new');
  assert.equal(statSync(file).mode & 0o777, 0o644);
  assert.equal(syncs, 0);
});

test('a write that fails throws and leaves no temporary file', () => {
  // The rename fails: a directory with something in it stands where the file would go.
  const parent = path.join(dir, 'blocked');
  const target = path.join(parent, 'config');
  writeFileAtomic(path.join(target, 'inside'), 'kept', 0o600);
  assert.throws(() => writeFileAtomic(target, 'new', 0o600), (err: NodeJS.ErrnoException) => ['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes(err.code!));
  assert.deepEqual(readdirSync(parent), ['config']);
  assert.equal(readFileSync(path.join(target, 'inside'), 'utf8'), 'kept');
});
