import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileStamp, freshManifest, inputsUnchanged, isPackageFile, manifestFormat, readManifest } from '../../src/cli/bundle-manifest.ts';

test('installed packages\' files are left to the lock files, wherever node_modules resolves', () => {
  assert.equal(isPackageFile('node_modules/yaml/dist/index.js'), true);
  // node_modules linked to another checkout's: esbuild names the files by their real path.
  assert.equal(isPackageFile('../main/node_modules/yaml/dist/index.js'), true);
  assert.equal(isPackageFile('src/cli/serve.ts'), false);
  assert.equal(isPackageFile('src/node_modules_like.ts'), false);
});

test('the start-up bundle is used only while every file it was built from is unchanged', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'plinth-bundle-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'src'));
  mkdirSync(path.join(root, '.cache/bundle'), { recursive: true });
  const files = ['src/a.ts', 'src/b.ts', 'package-lock.json'];
  for (const file of files) writeFileSync(path.join(root, file), `// ${file}\n`);
  const writeManifest = (body: unknown) => writeFileSync(path.join(root, '.cache/bundle/manifest.json'), JSON.stringify(body));
  const stamped = () => files.map((file) => [file, ...fileStamp(path.join(root, file))!]);
  // The entry point's check (stats on the thread pool) answers as freshManifest does.
  const fresh = async () => {
    const manifest = readManifest(root);
    const unchanged = manifest === undefined ? false : await inputsUnchanged(manifest, root);
    const dir = freshManifest(root)?.dir;
    assert.equal(unchanged, dir !== undefined);
    return dir;
  };

  assert.equal(await fresh(), undefined, 'no manifest: no bundle');
  writeManifest({ dir: 'b1', inputs: stamped() });
  assert.equal(await fresh(), undefined, 'a manifest of an older format (an older build)');
  writeManifest({ format: manifestFormat, dir: 'b1', inputs: stamped() });
  assert.equal(await fresh(), 'b1');

  // A touched source (same bytes, newer time) makes it stale, as does an edit of the same size.
  const later = new Date(Date.now() + 5_000);
  utimesSync(path.join(root, 'src/a.ts'), later, later);
  assert.equal(await fresh(), undefined);
  writeManifest({ format: manifestFormat, dir: 'b2', inputs: stamped() });
  assert.equal(await fresh(), 'b2');
  writeFileSync(path.join(root, 'package-lock.json'), '// package-lock.jsoN\n');
  utimesSync(path.join(root, 'package-lock.json'), later, later);
  writeManifest({ format: manifestFormat, dir: 'b3', inputs: stamped() });
  assert.equal(await fresh(), 'b3');
  rmSync(path.join(root, 'src/b.ts'));
  assert.equal(await fresh(), undefined, 'a file it was built from is gone');

  for (const broken of ['{', JSON.stringify({ format: manifestFormat, dir: 'b4' }), JSON.stringify({ format: manifestFormat, dir: 'b4', inputs: [] }), 'null']) {
    writeFileSync(path.join(root, '.cache/bundle/manifest.json'), broken);
    assert.equal(await fresh(), undefined, `manifest ${broken}`);
  }
});

test('the start-up script runs with its code cache once one is saved, and saves another when V8 rejects it', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'plinth-script-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'plinth.cjs');
  // As tools/bundle.ts writes it: one function expression, strict as the modules in it.
  writeFileSync(file, `(function (exports, require, module, __filename, __dirname, __plinthImportMetaUrl) {"use strict";
function square(n) { return n * n; }
exports.squares = [1, 2, 3].map(square);
exports.url = __plinthImportMetaUrl;
exports.gzip = typeof require('node:zlib').gzipSync;
exports.strict = (function () { return this; })() === undefined;
})`);
  const cacheFile = path.join(dir, 'plinth.code-cache');
  // Each load in a process of its own: within one, V8 answers a script it compiled before from memory.
  const load = (save: boolean) => JSON.parse(execFileSync(process.execPath, ['--input-type=commonjs', '-e', `
    const { compileStartupScript } = require(${JSON.stringify(path.resolve('src/cli/startup-script.cjs'))});
    const script = compileStartupScript(${JSON.stringify(file)});
    const exports = script.run();
    if (script.run() !== exports) throw new Error('ran twice');
    if (${save}) script.saveCodeCache();
    console.log(JSON.stringify({ codeCache: script.codeCache, exports }));
  `], { encoding: 'utf8' })) as { codeCache: string; exports: unknown };
  const exports = { squares: [1, 4, 9], url: pathToFileURL(file).href, gzip: 'function', strict: true };

  assert.deepEqual(load(false), { codeCache: 'absent', exports });
  assert.equal(existsSync(cacheFile), false, 'saved only when asked');
  assert.deepEqual(load(true), { codeCache: 'absent', exports });
  assert.ok(statSync(cacheFile).size > 0);
  assert.deepEqual(load(true), { codeCache: 'accepted', exports });

  writeFileSync(cacheFile, 'not a code cache');
  assert.deepEqual(load(true), { codeCache: 'rejected', exports });
  assert.deepEqual(load(false), { codeCache: 'accepted', exports });
  // An accepted cache is not written again.
  const before = statSync(cacheFile).mtimeMs;
  utimesSync(cacheFile, new Date(0), new Date(0));
  load(true);
  assert.equal(statSync(cacheFile).mtimeMs, 0, `written again (was ${before})`);

  // The script and its cache are read into one buffer, the larger's size: a script longer than its cache too.
  const text = readFileSync(file, 'latin1');
  writeFileSync(file, `${text.slice(0, -2)}\n/* ${'x'.repeat(256 * 1024)} */\n})`);
  rmSync(cacheFile);
  assert.deepEqual(load(true), { codeCache: 'absent', exports });
  assert.ok(statSync(cacheFile).size < statSync(file).size);
  assert.deepEqual(load(false), { codeCache: 'accepted', exports });
});
