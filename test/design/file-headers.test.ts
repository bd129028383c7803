// Every source file opens with a line saying what it is for (after a shebang, if any),
// so a reader of the request path knows a file before reading it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const srcDir = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The first line that is not a shebang, when it is a `//` comment with words in it. */
function headerOf(text: string): string | undefined {
  const lines = text.split('\n');
  const first = lines[0]?.startsWith('#!') ? lines[1] : lines[0];
  const match = /^\/\/ +(\S.*)$/.exec(first ?? '');
  return match?.[1];
}

test('headerOf finds the opening comment line, after a shebang too', () => {
  assert.equal(headerOf('// The watch cache.\nimport x;'), 'The watch cache.');
  assert.equal(headerOf('#!/usr/bin/env node\n// The entry point.\n'), 'The entry point.');
  assert.equal(headerOf('import x from "y";\n'), undefined);
  assert.equal(headerOf('/** A doc comment. */\n'), undefined);
  assert.equal(headerOf('//\n'), undefined);
});

test('every file in src/ opens with a line saying what it is for', () => {
  const missing = sourceFiles(srcDir).filter((file) => headerOf(readFileSync(file, 'utf8')) === undefined);
  assert.deepEqual(missing.map((file) => relative(srcDir, file)), []);
});
