import { test } from 'node:test';
import assert from 'node:assert/strict';
import { itself, lowerBound, searchIndex, upperBound } from '../../src/api/binary-search.ts';

const boundCases: { name: string; items: string[]; key: string; lower: number; upper: number }[] = [
  { name: 'empty', items: [], key: 'a', lower: 0, upper: 0 },
  { name: 'below every key', items: ['b', 'c'], key: 'a', lower: 0, upper: 0 },
  { name: 'above every key', items: ['b', 'c'], key: 'd', lower: 2, upper: 2 },
  { name: 'between keys', items: ['a', 'c', 'e'], key: 'd', lower: 2, upper: 2 },
  { name: 'equal to a key', items: ['a', 'c', 'e'], key: 'c', lower: 1, upper: 2 },
  { name: 'equal to the first key', items: ['a', 'c'], key: 'a', lower: 0, upper: 1 },
  { name: 'equal to the last key', items: ['a', 'c'], key: 'c', lower: 1, upper: 2 },
  { name: 'a run of equal keys', items: ['a', 'b', 'b', 'b', 'c'], key: 'b', lower: 1, upper: 4 },
  { name: 'strings compare by code unit, not length', items: ['/a/b', '/a/b/c', '/a/bc'], key: '/a/b/', lower: 1, upper: 1 },
];

for (const c of boundCases) {
  test(`lowerBound and upperBound: ${c.name}`, () => {
    assert.equal(lowerBound(c.items, c.key, itself), c.lower);
    assert.equal(upperBound(c.items, c.key, itself), c.upper);
  });
}

test('lowerBound and upperBound read the key through keyOf', () => {
  const entries = [{ key: '/a' }, { key: '/c' }, { key: '/e' }];
  const keyOf = (e: { key: string }) => e.key;
  assert.equal(lowerBound(entries, '/c', keyOf), 1);
  assert.equal(upperBound(entries, '/c', keyOf), 2);
  assert.equal(upperBound(entries, '/', keyOf), 0);
});

const searchCases: { name: string; from: number; to: number; firstReached: number; expected: number }[] = [
  { name: 'an empty range answers its end', from: 4, to: 4, firstReached: 0, expected: 4 },
  { name: 'reached everywhere answers the start', from: 2, to: 9, firstReached: 0, expected: 2 },
  { name: 'reached nowhere answers the end', from: 2, to: 9, firstReached: 20, expected: 9 },
  { name: 'reached from inside the range', from: 2, to: 9, firstReached: 6, expected: 6 },
  { name: 'reached at the last index', from: 0, to: 9, firstReached: 8, expected: 8 },
];

for (const c of searchCases) {
  test(`searchIndex: ${c.name}`, () => {
    const probed: number[] = [];
    const found = searchIndex(c.from, c.to, (i) => {
      probed.push(i);
      return i >= c.firstReached;
    });
    assert.equal(found, c.expected);
    assert.ok(probed.every((i) => i >= c.from && i < c.to), `probes ${probed} stay in [${c.from}, ${c.to})`);
    assert.ok(probed.length <= Math.ceil(Math.log2(c.to - c.from + 1)), `${probed.length} probes`);
  });
}

test('lowerBound and upperBound agree with a linear scan on sorted arrays with repeats', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let round = 0; round < 200; round++) {
    const items = Array.from({ length: Math.floor(random() * 30) }, () => String.fromCharCode(98 + Math.floor(random() * 20))).sort();
    for (let code = 97; code <= 118; code++) {
      const key = String.fromCharCode(code);
      const lower = items.findIndex((x) => x >= key);
      const upper = items.findIndex((x) => x > key);
      assert.equal(lowerBound(items, key, itself), lower === -1 ? items.length : lower, `lower ${key} in ${items}`);
      assert.equal(upperBound(items, key, itself), upper === -1 ? items.length : upper, `upper ${key} in ${items}`);
    }
  }
});
