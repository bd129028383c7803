// The start-up bundle is written in ASCII (tools/ascii-source.ts): escaping keeps every
// construct's meaning, and the last built bundle holds no other character.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { asciiSource } from '../../tools/ascii-source.ts';
import { bundleRoot, manifestPath } from '../../src/cli/bundle-manifest.ts';

test('characters past ASCII become escapes that mean the same in strings, patterns and comments', () => {
  const source = [
    '// a comment → with an arrow',
    "const unit = /^(\\d+)(ns|us|µs|μs|ms)$/;",
    "const unicode = /^[é😀]+$/u;",
    "const text = 'naïve 😀';",
    'export { unit, unicode, text };',
  ].join('\n');
  const ascii = asciiSource(source)!;
  assert.ok(ascii !== undefined);
  assert.match(ascii, /^[\x00-\x7f]*$/);
  assert.ok(ascii.includes('// a comment \\u2192 with an arrow'));
  const run = (code: string) => new Function(code.replace('export { unit, unicode, text };', 'return { unit, unicode, text };'))() as { unit: RegExp; unicode: RegExp; text: string };
  const before = run(source);
  const after = run(ascii);
  assert.equal(after.text, before.text);
  for (const s of ['5µs', '5μs', '5us', '5xs']) assert.equal(after.unit.test(s), before.unit.test(s), s);
  for (const s of ['é😀é', '😀', 'e', '\ud83d']) assert.equal(after.unicode.test(s), before.unicode.test(s), s);
});

test('ASCII text, and text with such a character after a backslash, are left as written', () => {
  assert.equal(asciiSource('const a = 1; // plain\n'), undefined);
  assert.equal(asciiSource('const re = /\\µ/;'), undefined);
});

test('the last built start-up bundle is all ASCII', () => {
  const { dir } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { dir: string };
  const modules = readdirSync(path.join(bundleRoot, dir)).filter((file) => file.endsWith('.js') || file.endsWith('.cjs'));
  assert.ok(modules.includes('plinth.cjs') && modules.length > 10, modules.join(', '));
  for (const file of modules) {
    const text = readFileSync(path.join(bundleRoot, dir, file), 'utf8');
    const at = text.search(/[^\x00-\x7f]/);
    assert.equal(at, -1, `${file}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`);
  }
});
