// JSON merge patch (RFC 7386), with the details of upstream's evanphx/json-patch MergePatch.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyMergePatch } from '../../src/patch/merge-patch.ts';

const cases: [string, unknown, unknown, unknown][] = [
  ['objects merge key by key', { a: 1, b: { c: 2 } }, { b: { d: 3 } }, { a: 1, b: { c: 2, d: 3 } }],
  ['null deletes a key', { a: 1, b: 2 }, { a: null }, { b: 2 }],
  ['null for a missing key does nothing', { a: 1 }, { z: null }, { a: 1 }],
  ['an array replaces', { a: [1, 2] }, { a: [3] }, { a: [3] }],
  ['a scalar replaces an object', { a: { b: 1 } }, { a: 'x' }, { a: 'x' }],
  ['an object replacing a scalar loses its nulls', { a: 'x' }, { a: { b: null, c: 1 } }, { a: { c: 1 } }],
  ['a new value loses the nulls of objects inside its arrays (upstream pruneNulls)', {}, { a: { b: [{ c: null, d: 1 }, null] } }, { a: { b: [{ d: 1 }, null] } }],
  ['an array merged over an object keeps its nulls', { a: { x: 1 } }, { a: [{ c: null }] }, { a: [{ c: null }] }],
  ['an array patch replaces the document, nulls pruned inside objects', { a: 1 }, [{ b: null }], [{}]],
  ['a document that is not an object becomes the patch', 'x', { a: { b: null } }, { a: {} }],
];

describe('JSON merge patch', () => {
  for (const [name, target, patch, expected] of cases) {
    test(name, () => {
      const before = JSON.stringify([target, patch]);
      assert.deepStrictEqual(applyMergePatch(target, patch), expected);
      assert.equal(JSON.stringify([target, patch]), before, 'inputs unchanged');
    });
  }

  test('a patch nested 100,000 levels deep merges without exhausting the stack', () => {
    const depth = 100_000;
    const patch = JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    let node = applyMergePatch({}, patch) as any;
    let level = 0;
    while (typeof node === 'object') {
      node = node.a;
      level++;
    }
    assert.equal(level, depth);
  });
});
