// Go's encoding/json syntax errors as json.Unmarshal words them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goJsonSyntaxError } from '../../src/api/go-json-syntax.ts';

const error = (text: string | Uint8Array) => goJsonSyntaxError(typeof text === 'string' ? Buffer.from(text) : text);

test('what Go accepts has no error', () => {
  for (const text of ['{}', '[]', ' 1 ', '0', '-0.5e+3', '"x"', 'true', 'null', '{"a":[1,2.5e-3,true,false,null,"x\\u00e9\\n"],"b":{}}', '\t[ ]\r\n']) {
    assert.equal(error(text), undefined, text);
  }
});

test('each place the scanner can be names the fault as Go does', () => {
  const cases: Array<[string, string]> = [
    ['', 'unexpected end of JSON input'],
    ['   ', 'unexpected end of JSON input'],
    ['{', 'unexpected end of JSON input'],
    ['"abc', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['{oops', "invalid character 'o' looking for beginning of object key string"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', 'invalid character \'"\' after object key:value pair'],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    ['abc', "invalid character 'a' looking for beginning of value"],
    ['trUe', "invalid character 'U' in literal true (expecting 'u')"],
    ['fals3', "invalid character '3' in literal false (expecting 'e')"],
    // At the end Go's scanner reads a space: an unfinished literal or number is that space's fault.
    ['tru', "invalid character ' ' in literal true (expecting 'e')"],
    ['nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['-', "invalid character ' ' in numeric literal"],
    ['-a', "invalid character 'a' in numeric literal"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['1.x', "invalid character 'x' after decimal point in numeric literal"],
    ['1e', "invalid character ' ' in exponent of numeric literal"],
    ['1e+}', "invalid character '}' in exponent of numeric literal"],
    ['"a\\x"', "invalid character 'x' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"a\nb"', "invalid character '\\n' in string literal"],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ['[1]\\', "invalid character '\\\\' after top-level value"],
  ];
  for (const [text, message] of cases) assert.equal(error(text), message, JSON.stringify(text));
});

test('a byte past ASCII is quoted as the Latin-1 character of its number, as Go\'s quoteChar does', () => {
  assert.equal(error('é'), "invalid character 'Ã' looking for beginning of value");
  assert.equal(error(new Uint8Array([0x80])), "invalid character '\\u0080' looking for beginning of value");
  assert.equal(error(new Uint8Array([0x7f])), "invalid character '\\x7f' looking for beginning of value");
});

test('nesting past Go\'s 10,000 levels is its depth error', () => {
  assert.equal(error('['.repeat(10_001)), "invalid character '[' exceeded max depth");
  assert.equal(error('['.repeat(10_000)), 'unexpected end of JSON input');
});
