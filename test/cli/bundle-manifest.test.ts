import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileStamp, freshManifest } from '../../src/cli/bundle-manifest.ts';

test('the start-up bundle is used only while every file it was built from is unchanged', (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'plinth-bundle-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'src'));
  mkdirSync(path.join(root, '.cache/bundle'), { recursive: true });
  const files = ['src/a.ts', 'src/b.ts', 'package-lock.json'];
  for (const file of files) writeFileSync(path.join(root, file), `// ${file}\n`);
  const writeManifest = (body: unknown) => writeFileSync(path.join(root, '.cache/bundle/manifest.json'), JSON.stringify(body));
  const stamped = () => files.map((file) => [file, ...fileStamp(path.join(root, file))!]);

  assert.equal(freshManifest(root), undefined, 'no manifest: no bundle');
  writeManifest({ dir: 'b1', inputs: stamped() });
  assert.deepEqual(freshManifest(root)?.dir, 'b1');

  // A touched source (same bytes, newer time) makes it stale, as does an edit of the same size.
  const later = new Date(Date.now() + 5_000);
  utimesSync(path.join(root, 'src/a.ts'), later, later);
  assert.equal(freshManifest(root), undefined);
  writeManifest({ dir: 'b2', inputs: stamped() });
  assert.equal(freshManifest(root)?.dir, 'b2');
  writeFileSync(path.join(root, 'package-lock.json'), '// package-lock.jsoN\n');
  utimesSync(path.join(root, 'package-lock.json'), later, later);
  writeManifest({ dir: 'b3', inputs: stamped() });
  assert.equal(freshManifest(root)?.dir, 'b3');
  rmSync(path.join(root, 'src/b.ts'));
  assert.equal(freshManifest(root), undefined, 'a file it was built from is gone');

  for (const broken of ['{', JSON.stringify({ dir: 'b4' }), JSON.stringify({ dir: 'b4', inputs: [] }), 'null']) {
    writeFileSync(path.join(root, '.cache/bundle/manifest.json'), broken);
    assert.equal(freshManifest(root), undefined, `manifest ${broken}`);
  }
});
