// Field paths as validation names them in causes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { appendAll, child, goQuote, index, key } from '../../src/api/field-errors.ts';

test('child joins a path and names with dots, leaving empty parts out', () => {
  assert.equal(child('spec', 'template', 'spec'), 'spec.template.spec');
  assert.equal(child('', 'metadata'), 'metadata');
  assert.equal(child('metadata', ''), 'metadata');
  assert.equal(child('', '', 'a', '', 'b'), 'a.b');
  assert.equal(child(''), '');
  assert.equal(child('spec'), 'spec');
  assert.equal(key(child(index('spec.containers', 0), 'resources', 'limits'), 'cpu'), 'spec.containers[0].resources.limits[cpu]');
});

test('appendAll appends parts of any length: a million items do not overflow the stack as push(...items) did', () => {
  const list = ['first'];
  const many = Array.from({ length: 1_000_000 }, (_, i) => `c${i}`);
  assert.throws(() => [].push(...(many as never[])), RangeError, 'the spread this replaces');
  appendAll(list, many, new Set(['last']));
  assert.equal(list.length, 1_000_002);
  assert.deepEqual([list[0], list[1], list.at(-2), list.at(-1)], ['first', 'c0', 'c999999', 'last']);
});

test('goQuote escapes as Go\'s strconv.Quote does for these values, and a 3 MB value\'s quote is flat', () => {
  assert.equal(goQuote('a"b\\c\nd\te\rf\u0001\u007fé😀'), '"a\\"b\\\\c\\nd\\te\\rf\\x01\\x7fé😀"');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  const quoted = Array.from({ length: 5 }, (_, i) => goQuote(`${i}${'x'.repeat(3_000_000)}`));
  gc();
  const held = process.memoryUsage().heapUsed - before;
  // Grown a character at a time, each quote held ~90 MB until flattened.
  assert.ok(held < 100_000_000, `the quotes hold ${Math.round(held / 1e6)} MB`);
  assert.equal(quoted[4]!.length, 3_000_003);
});
