import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rfc3339Seconds } from '../../src/api/time.ts';

test('rfc3339Seconds writes whole seconds in UTC, the second a time falls in, whatever was asked before', () => {
  const at = Date.UTC(2024, 4, 6, 7, 8, 9);
  assert.equal(rfc3339Seconds(at), '2024-05-06T07:08:09Z');
  assert.equal(rfc3339Seconds(at + 999), '2024-05-06T07:08:09Z');
  assert.equal(rfc3339Seconds(at + 1000), '2024-05-06T07:08:10Z');
  assert.equal(rfc3339Seconds(at - 1), '2024-05-06T07:08:08Z');
  assert.equal(rfc3339Seconds(at), '2024-05-06T07:08:09Z');
  assert.equal(rfc3339Seconds(0), '1970-01-01T00:00:00Z');
  assert.equal(rfc3339Seconds(-1), '1969-12-31T23:59:59Z');
  const before = Math.floor(Date.now() / 1000) * 1000;
  const now = Date.parse(rfc3339Seconds());
  assert.ok(now >= before && now <= Date.now(), 'without a time, now');
});
