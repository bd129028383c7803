import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody } from '../../src/encoding/decode.ts';

const yaml = (text: string) => decodeBody('application/yaml', Buffer.from(text), { findDuplicates: true });

test('a YAML body that is JSON decodes as JSON, duplicates included', () => {
  assert.deepEqual(yaml('{"a": 1, "b": {"c": "x"}}'), { value: { a: 1, b: { c: 'x' } }, duplicateFields: [] });
  assert.deepEqual(yaml('{"a": 1, "a": 2}').duplicateFields, ['a']);
});

test('YAML flow style that is not JSON still decodes as YAML', () => {
  assert.deepEqual(yaml('{a: 1, b: [x, y]}').value, { a: 1, b: ['x', 'y'] });
  assert.deepEqual(yaml('{"a": 1} # a comment').value, { a: 1 });
});

test('block YAML decodes, and malformed YAML is a 400', () => {
  assert.deepEqual(yaml('a: 1\nb:\n  - x\n').value, { a: 1, b: ['x'] });
  assert.throws(() => yaml('a: [1, 2'), (err: any) => err.code === 400);
});
