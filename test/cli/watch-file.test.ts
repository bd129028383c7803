// watchFile: a reload runs when the file changes, one at a time, and a reload that throws
// leaves the server running (no unhandled rejection) and the file still followed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { watchFile } from '../../src/cli/watch-file.ts';
import { eventually } from '../helpers/eventually.ts';
import { tempDir } from '../helpers/server.ts';

test('a reload that throws is contained, and later changes are still followed', async (t) => {
  const file = path.join(tempDir('plinth-watch-'), 'config.yaml');
  writeFileSync(file, 'a');
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  t.after(() => process.off('unhandledRejection', onUnhandled));
  let calls = 0;
  const watching = watchFile(file, async () => {
    calls++;
    if (calls === 1) throw new Error('reload failed');
  }, 50);
  t.after(() => watching.close());
  writeFileSync(file, 'b');
  await eventually(() => assert.ok(calls >= 2, `calls ${calls}`));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(unhandled, []);
});
