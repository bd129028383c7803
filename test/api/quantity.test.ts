// Quantities: parsing, arithmetic, and upstream's canonical String() form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addQuantity, compareQuantity, formatQuantity, milliValue, parseQuantity } from '../../src/api/quantity.ts';

const canonical: [input: string, expected: string][] = [
  ['0', '0'],
  ['2', '2'],
  ['2000m', '2'],
  ['1500m', '1500m'],
  ['1.5', '1500m'],
  ['0.5', '500m'],
  ['1000', '1k'],
  ['1000000', '1M'],
  ['1e3', '1e3'],
  ['1000e-3', '1'],
  ['1Gi', '1Gi'],
  ['1024Mi', '1Gi'],
  ['1536Mi', '1536Mi'],
  ['0.5Gi', '512Mi'],
  ['512', '512'],
  ['1000Ki', '1000Ki'],
  ['100n', '100n'],
  ['0.1n', '1n'],
  ['-100m', '-100m'],
  ['-1500', '-1500'],
  ['-2000', '-2k'],
  ['10000', '10k'],
  ['1e7', '10e6'],
  ['12e-1', '1200e-3'],
  ['1e30', '1e30'],
  [`1${'0'.repeat(30)}`, '1e30'],
  ['0.000000001', '1n'],
  // Binary, no whole number of Ki: the digits alone (the 2^0 suffix is none).
  ['1.5Ki', '1536'],
  ['1025Mi', '1025Mi'],
  ['1Gi', '1Gi'],
];

for (const [input, expected] of canonical) {
  test(`${input} is written ${expected}`, () => {
    assert.equal(formatQuantity(parseQuantity(input)!), expected);
  });
}

test('a sum keeps the first non-zero operand\'s format', () => {
  assert.equal(formatQuantity(addQuantity(parseQuantity('0')!, parseQuantity('512Mi')!)), '512Mi');
  assert.equal(formatQuantity(addQuantity(parseQuantity('512Mi')!, parseQuantity('512Mi')!)), '1Gi');
  assert.equal(formatQuantity(addQuantity(parseQuantity('1')!, parseQuantity('1Gi')!)), '1073741825');
  assert.equal(formatQuantity(addQuantity(parseQuantity('250m')!, parseQuantity('250m')!)), '500m');
});

test('comparison and milli values', () => {
  assert.equal(compareQuantity(parseQuantity('1')!, parseQuantity('1000m')!), 0);
  assert.equal(compareQuantity(parseQuantity('1Ki')!, parseQuantity('1k')!), 1);
  assert.equal(milliValue(parseQuantity('0.5m')!), 1n);
  assert.equal(milliValue(parseQuantity('2')!), 2000n);
});

test('a quantity of a hundred thousand digits is written at once (trailing zeros counted, not divided away one by one)', () => {
  const started = performance.now();
  assert.equal(formatQuantity(parseQuantity(`1${'0'.repeat(100_000)}`)!), '10e99999');
  assert.equal(formatQuantity(parseQuantity(`-${'9'.repeat(100_000)}${'0'.repeat(100_000)}`)!), `-${'9'.repeat(100_000)}0e99999`);
  assert.ok(performance.now() - started < 500, `${Math.round(performance.now() - started)} ms`);
});

test('malformed quantities do not parse', () => {
  for (const bad of ['', 'abc', '1.2.3', '1Qi', '--1']) assert.equal(parseQuantity(bad), undefined, bad);
});

test('a text parsed again gives the same frozen quantity; long texts parse the same way uncached', () => {
  const first = parseQuantity('250m');
  assert.ok(first !== undefined && Object.isFrozen(first));
  assert.equal(parseQuantity('250m'), first);
  assert.equal(parseQuantity('nonsense'), undefined);
  assert.equal(parseQuantity('nonsense'), undefined, 'a text that is no quantity stays none');
  const long = `1${'0'.repeat(80)}`;
  const parsed = parseQuantity(long);
  assert.equal(parsed?.num, 10n ** 80n);
  assert.notEqual(parseQuantity(long), parsed);
  assert.deepEqual(parseQuantity(long), parsed);
  assert.throws(() => {
    (first as { num: bigint }).num = 1n;
  }, TypeError);
});
