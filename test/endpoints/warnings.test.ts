import { test } from 'node:test';
import assert from 'node:assert/strict';
import { warningHeaderValue, warningRecorder } from '../../src/endpoints/warnings.ts';
import type { HttpResponse } from '../../src/endpoints/http.ts';

function fakeResponse(): HttpResponse & { warnings(): string[] } {
  let header: string[] = [];
  let sent = false;
  return {
    statusCode: 200,
    get headersSent() {
      return sent;
    },
    writableEnded: false,
    setHeader(name: string, value: string | number | readonly string[]) {
      assert.equal(name, 'Warning');
      header = [...(value as string[])];
    },
    getHeader: () => header,
    writeHead() {
      sent = true;
    },
    write: () => true,
    end: () => {},
    once: () => {},
    warnings: () => header.map((h) => Buffer.from(h, 'latin1').toString('utf8')),
  };
}

const cases: [string, string, string][] = [
  ['plain text', 'unknown field "spec.foo"', '299 - "unknown field \\"spec.foo\\""'],
  ['backslashes are escaped', 'a\\b', '299 - "a\\\\b"'],
];
for (const [name, text, expected] of cases) {
  test(`warningHeaderValue: ${name}`, () => assert.equal(warningHeaderValue(text), expected));
}

test('each distinct warning is added once, in order; control characters drop a warning', () => {
  const res = fakeResponse();
  const add = warningRecorder(res);
  add('first');
  add('second');
  add('first');
  add('bad\nline');
  add('');
  assert.deepEqual(res.warnings(), ['299 - "first"', '299 - "second"']);
});

test('non-ASCII text is carried as UTF-8 bytes', () => {
  const res = fakeResponse();
  warningRecorder(res)('größe ✓');
  assert.deepEqual(res.warnings(), ['299 - "größe ✓"']);
});

test('past 4 Ki runes warnings are truncated to 256 runes, then dropped', () => {
  const res = fakeResponse();
  const add = warningRecorder(res);
  for (let i = 0; i < 20; i++) add(`${i}:${'x'.repeat(400)}`);
  const warnings = res.warnings();
  assert.ok(warnings.every((w) => w.length <= 256 + '299 - ""'.length));
  assert.ok(warnings.length < 20 && warnings.length >= 15);
});

test('nothing is added once the headers are sent', () => {
  const res = fakeResponse();
  const add = warningRecorder(res);
  res.writeHead(200);
  add('late');
  assert.deepEqual(res.warnings(), []);
});
