// goSliceStable is Go's sort.SliceStable step for step: for a proper order it is a stable
// sort; for strategic merge patch's "true when unknown" comparator it gives Go's result.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { goSliceStable } from '../../src/patch/go-stable-sort.ts';

describe('goSliceStable', () => {
  test('sorts stably by a proper order, for every length across the block size', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n <= 90; n++) {
      const items = Array.from({ length: n }, (_, i) => ({ key: Math.floor(random() * 5), at: i }));
      const expected = [...items].sort((a, b) => a.key - b.key);
      goSliceStable(items, (a, b) => a.key < b.key);
      assert.deepStrictEqual(items, expected, `n = ${n}`);
    }
  });

  test('a comparator that is always true reverses a block of up to 20 items, as Go\'s insertion sort does', () => {
    const items = [1, 2, 3, 4, 5];
    goSliceStable(items, () => true);
    assert.deepStrictEqual(items, [5, 4, 3, 2, 1]);
  });
});
