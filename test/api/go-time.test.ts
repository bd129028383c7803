// metav1.Time and MicroTime strings as Go's time.Parse reads them with each type's layout
// and as the types write them back. The expected texts are Go's (its ParseError messages,
// byte for byte: clients see them in a 400).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { canonicalGoMicroTime, canonicalGoTime, goDurationError } from '../../src/api/go-time.ts';

const timeLayout = '"2006-01-02T15:04:05Z07:00"';
const microLayout = '"2006-01-02T15:04:05.000000Z07:00"';

test('a Time is written in UTC at whole seconds, the fraction cut off; the zero time is null', () => {
  const cases: Array<[string, string | null]> = [
    ['2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z'],
    ['2024-01-01T01:00:00.999+01:00', '2024-01-01T00:00:00Z'],
    ['2024-01-01T00:00:00,5Z', '2024-01-01T00:00:00Z'],
    ['2024-01-01T00:00:00.1234567890123Z', '2024-01-01T00:00:00Z'],
    ['2024-03-01T00:30:00+01:00', '2024-02-29T23:30:00Z'],
    ['2024-01-01T7:00:00-02:30', '2024-01-01T09:30:00Z'],
    ['2024-01-01T00:00:00+24:00', '2023-12-31T00:00:00Z'],
    ['0001-01-01T00:00:00Z', null],
    ['0001-01-01T01:00:00+01:00', null],
    ['0001-01-01T00:00:00.5Z', '0001-01-01T00:00:00Z'],
    ['0000-01-01T00:00:00+01:00', '-0001-12-31T23:00:00Z'],
    ['9999-12-31T23:59:59-01:00', '10000-01-01T00:59:59Z'],
  ];
  for (const [text, value] of cases) assert.deepEqual(canonicalGoTime(text), { value }, text);
});

test('a Time Go cannot parse answers Go\'s ParseError text', () => {
  const cases: Array<[string, string]> = [
    ['garbage', `parsing time "garbage" as ${timeLayout}: cannot parse "garbage" as "2006"`],
    ['', `parsing time "" as ${timeLayout}: cannot parse "" as "2006"`],
    ['00-02-29T00:00:00Z', `parsing time "00-02-29T00:00:00Z" as ${timeLayout}: cannot parse "00-02-29T00:00:00Z" as "2006"`],
    ['2024/01/01T00:00:00Z', `parsing time "2024/01/01T00:00:00Z" as ${timeLayout}: cannot parse "/01/01T00:00:00Z" as "-"`],
    ['2024-1-01T00:00:00Z', `parsing time "2024-1-01T00:00:00Z" as ${timeLayout}: cannot parse "1-01T00:00:00Z" as "01"`],
    ['2024-01-01 00:00:00Z', `parsing time "2024-01-01 00:00:00Z" as ${timeLayout}: cannot parse " 00:00:00Z" as "T"`],
    ['2024-01-01T00:00:00', `parsing time "2024-01-01T00:00:00" as ${timeLayout}: cannot parse "" as "Z07:00"`],
    ['2024-01-01t00:00:00z', `parsing time "2024-01-01t00:00:00z" as ${timeLayout}: cannot parse "t00:00:00z" as "T"`],
    ['2024-01-01T00:00:00+0100', `parsing time "2024-01-01T00:00:00+0100" as ${timeLayout}: cannot parse "+0100" as "Z07:00"`],
    ['2024-01-01T00:00:00Z ', 'parsing time "2024-01-01T00:00:00Z ": extra text: " "'],
    ['2024-13-01T00:00:00Z', 'parsing time "2024-13-01T00:00:00Z": month out of range'],
    ['2023-02-29T00:00:00Z', 'parsing time "2023-02-29T00:00:00Z": day out of range'],
    ['2024-04-31T00:00:00Z', 'parsing time "2024-04-31T00:00:00Z": day out of range'],
    ['2024-01-01T24:00:00Z', 'parsing time "2024-01-01T24:00:00Z": hour out of range'],
    ['2024-01-01T00:60:00Z', 'parsing time "2024-01-01T00:60:00Z": minute out of range'],
    ['2024-01-01T00:00:60Z', 'parsing time "2024-01-01T00:00:60Z": second out of range'],
    ['2024-01-01T00:00:00+25:00', 'parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range'],
    ['2024-01-01T00:00:00+10:61', 'parsing time "2024-01-01T00:00:00+10:61": time zone offset minute out of range'],
    ['2024-01-01T00:00:,5Z', `parsing time "2024-01-01T00:00:,5Z" as ${timeLayout}: cannot parse ",5Z" as "05"`],
    // Bytes below space and every byte of a non-ASCII character as \xNN; quotes and backslashes escaped.
    ['é"\\\u0001', `parsing time "\\xc3\\xa9\\"\\\\\\x01" as ${timeLayout}: cannot parse "\\xc3\\xa9\\"\\\\\\x01" as "2006"`],
  ];
  for (const [text, error] of cases) assert.deepEqual(canonicalGoTime(text), { error }, text);
});

test('a MicroTime takes exactly six fractional digits and writes six, in UTC', () => {
  assert.deepEqual(canonicalGoMicroTime('2024-01-01T01:00:00.123456+01:00'), { value: '2024-01-01T00:00:00.123456Z' });
  assert.deepEqual(canonicalGoMicroTime('2024-01-01T00:00:00,000001Z'), { value: '2024-01-01T00:00:00.000001Z' });
  assert.deepEqual(canonicalGoMicroTime('0001-01-01T00:00:00.000000Z'), { value: null });
  assert.deepEqual(canonicalGoMicroTime('2024-01-01T00:00:00Z'),
    { error: `parsing time "2024-01-01T00:00:00Z" as ${microLayout}: cannot parse "Z" as ".000000"` });
  assert.deepEqual(canonicalGoMicroTime('2024-01-01T00:00:00.123Z'),
    { error: `parsing time "2024-01-01T00:00:00.123Z" as ${microLayout}: cannot parse ".123Z" as ".000000"` });
  assert.deepEqual(canonicalGoMicroTime('2024-01-01T00:00:00.123456789Z'),
    { error: `parsing time "2024-01-01T00:00:00.123456789Z" as ${microLayout}: cannot parse "789Z" as "Z07:00"` });
  assert.deepEqual(canonicalGoMicroTime('2024-01-01T00:00:00.-12345Z'), { error: 'parsing time "2024-01-01T00:00:00.-12345Z": fractional second out of range' });
});

test('a client\'s megabyte time is quoted flat: five errors for 3 MB strings hold about their size, and quickly', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const before = process.memoryUsage().heapUsed;
  const started = performance.now();
  const errors: unknown[] = [];
  for (let i = 0; i < 5; i++) errors.push(canonicalGoTime(`${i}${'x'.repeat(3_000_000)}é`));
  const took = performance.now() - started;
  gc();
  const held = process.memoryUsage().heapUsed - before;
  // Grown a character at a time, each error held ~190 MB and took ~0.7 s.
  assert.ok(held < 100_000_000, `the errors hold ${Math.round(held / 1e6)} MB`);
  assert.ok(took < 2_000, `${Math.round(took)} ms`);
  assert.match((errors[4] as { error: string }).error, /^parsing time "4x{3000000}\\xc3\\xa9" as "2006-01-02T15:04:05Z07:00": cannot parse "4x+\\xc3\\xa9" as "2006"$/);
});

test('goDurationError: what Go\'s time.ParseDuration accepts, and its words for what it refuses', () => {
  const cases: [string, string | undefined][] = [
    ['32s', undefined], ['1m0s', undefined], ['1h2m3.5s', undefined], ['-1.5h', undefined], ['+3ms', undefined], ['0', undefined], ['.5us', undefined], ['5.µs', undefined],
    ['-9223372036854775808ns', undefined],
    ['', 'time: invalid duration ""'],
    ['garbage', 'time: invalid duration "garbage"'],
    ['5', 'time: missing unit in duration "5"'],
    ['5d', 'time: unknown unit "d" in duration "5d"'],
    ['1s5', 'time: missing unit in duration "1s5"'],
    ['.s', 'time: invalid duration ".s"'],
    ['-', 'time: invalid duration "-"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
    ['1\u00e9', 'time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"'],
  ];
  for (const [text, error] of cases) assert.equal(goDurationError(text), error, text);
});
