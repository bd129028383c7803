import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SortedEntries } from '../../src/cache/sorted-entries.ts';

function keysOf(sorted: SortedEntries<{ key: string }>): string[] {
  const keys: string[] = [];
  const cursor = sorted.seek('', true);
  for (let e = cursor.next(); e !== undefined; e = cursor.next()) keys.push(e.key);
  return keys;
}

test('sorted entries: seek, rank and counts agree with a sorted array through many inserts and deletes', () => {
  const sorted = new SortedEntries<{ key: string; v: number }>();
  const reference = new Map<string, number>();
  let seed = 1;
  const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  // Enough keys to split and merge blocks many times over.
  for (let step = 0; step < 20_000; step++) {
    const key = `k${String(random(5000)).padStart(4, '0')}`;
    if (random(3) === 0) {
      assert.equal(sorted.delete(key), reference.delete(key));
    } else {
      sorted.set({ key, v: step });
      reference.set(key, step);
    }
  }
  const expected = [...reference.keys()].sort();
  assert.equal(sorted.size, expected.length);
  assert.deepEqual(keysOf(sorted), expected);
  for (const probe of ['', 'k0000', 'k1234', 'k12345', 'k2500', 'k4999', 'k5', 'z']) {
    const below = expected.filter((k) => k < probe).length;
    const atMost = expected.filter((k) => k <= probe).length;
    assert.equal(sorted.rank(probe, false), below, `rank below ${probe}`);
    assert.equal(sorted.rank(probe, true), atMost, `rank at most ${probe}`);
    assert.equal(sorted.seek(probe, true).peek()?.key, expected[below], `seek at ${probe}`);
    assert.equal(sorted.seek(probe, false).peek()?.key, expected[atMost], `seek after ${probe}`);
    assert.equal(sorted.countBetween(probe, 'k3000'), expected.filter((k) => k > probe && k < 'k3000').length, `count after ${probe}`);
  }
  // Replacing keeps one entry per key.
  const first = expected[0] as string;
  sorted.set({ key: first, v: -1 });
  assert.equal(sorted.seek(first, true).peek()?.v, -1);
  assert.equal(sorted.size, expected.length);
});

test('sorted entries: fromSorted takes sorted input as is and sorts anything else', () => {
  const cases: Array<{ name: string; input: string[]; expected: string[] }> = [
    { name: 'sorted', input: ['a', 'b', 'c'], expected: ['a', 'b', 'c'] },
    { name: 'unsorted', input: ['c', 'a', 'b'], expected: ['a', 'b', 'c'] },
    { name: 'duplicates', input: ['a', 'b', 'b'], expected: ['a', 'b'] },
    { name: 'empty', input: [], expected: [] },
    { name: 'large', input: Array.from({ length: 3000 }, (_, i) => `k${String(i).padStart(5, '0')}`), expected: Array.from({ length: 3000 }, (_, i) => `k${String(i).padStart(5, '0')}`) },
  ];
  for (const c of cases) {
    const sorted = SortedEntries.fromSorted(c.input.map((key) => ({ key })));
    assert.deepEqual(keysOf(sorted), c.expected, c.name);
    assert.equal(sorted.size, c.expected.length, c.name);
  }
});
