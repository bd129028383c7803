// Strings of the date, date-time, duration and byte formats as CEL values, as upstream
// converts a custom resource's strings: what parses becomes a timestamp, a duration or
// bytes, what does not stays the string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formattedString, formatType } from '../../src/cel/schema-formats.ts';
import { durationText } from '../../src/cel/format.ts';

const text = (v: unknown) => (v !== null && typeof v === 'object' ? durationText(v as never) : String(v));

test('durations in Go\'s notation and strfmt\'s number-and-unit form', () => {
  assert.equal(text(formattedString('1h30m', 'duration')), '5400s');
  assert.equal(text(formattedString('1.5s', 'duration')), '1.5s');
  assert.equal(text(formattedString('-1m0.25s', 'duration')), '-60.25s');
  assert.equal(text(formattedString('250ms', 'duration')), '0.25s');
  assert.equal(text(formattedString('10µs', 'duration')), '0.00001s');
  assert.equal(text(formattedString('0', 'duration')), '0s');
  assert.equal(text(formattedString('3 days', 'duration')), '259200s');
  assert.equal(text(formattedString('1w', 'duration')), '604800s');
  assert.equal(text(formattedString('2 hours', 'duration')), '7200s');
  for (const bad of ['', '1', 'h', '1x', '1.5 days', '5 fortnights', '--1s']) assert.equal(formattedString(bad, 'duration'), bad, bad);
});

test('dates and date-times as timestamps, in UTC', () => {
  assert.equal((formattedString('2024-02-29', 'date') as Date).toISOString(), '2024-02-29T00:00:00.000Z');
  assert.equal((formattedString('2024-05-01T12:00:00+0530', 'date-time') as Date).toISOString(), '2024-05-01T06:30:00.000Z');
  assert.equal((formattedString('2024-05-01t12:00:00.123456789z', 'date-time') as Date).toISOString(), '2024-05-01T12:00:00.123Z');
  for (const bad of ['2024-13-01', '2024-05-01 12:00:00Z', 'yesterday']) assert.equal(formattedString(bad, bad.includes(':') ? 'date-time' : 'date'), bad);
});

test('byte strings decoded from base64; other formats left alone', () => {
  assert.deepEqual(formattedString('aGk=', 'byte'), new Uint8Array([104, 105]));
  assert.equal(formattedString('not base64!', 'byte'), 'not base64!');
  assert.equal(formattedString('10.0.0.1', 'ipv4'), '10.0.0.1');
  assert.deepEqual(['date', 'date-time', 'duration', 'byte', 'ipv4', undefined].map(formatType),
    ['google.protobuf.Timestamp', 'google.protobuf.Timestamp', 'google.protobuf.Duration', 'bytes', 'string', 'string']);
});
