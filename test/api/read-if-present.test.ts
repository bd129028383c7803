import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readIfPresent } from '../../src/api/read-if-present.ts';

const cases: { name: string; path: (dir: string) => string; expected: string | undefined | 'throws' }[] = [
  { name: 'a file answers its text', path: (dir) => join(dir, 'present.txt'), expected: 'héllo\n' },
  { name: 'an empty file answers the empty string', path: (dir) => join(dir, 'empty.txt'), expected: '' },
  { name: 'a missing file answers undefined', path: (dir) => join(dir, 'missing.txt'), expected: undefined },
  { name: 'a file in a missing folder answers undefined', path: (dir) => join(dir, 'no-such-dir', 'x.txt'), expected: undefined },
  { name: 'a folder is an error, not an absence', path: (dir) => join(dir, 'folder'), expected: 'throws' },
  { name: 'a path through a file is an error, not an absence', path: (dir) => join(dir, 'present.txt', 'x'), expected: 'throws' },
];

for (const c of cases) {
  test(`readIfPresent: ${c.name}`, (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'plinth-read-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'present.txt'), 'héllo\n');
    writeFileSync(join(dir, 'empty.txt'), '');
    mkdirSync(join(dir, 'folder'));
    if (c.expected === 'throws') assert.throws(() => readIfPresent(c.path(dir)));
    else assert.equal(readIfPresent(c.path(dir)), c.expected);
  });
}
