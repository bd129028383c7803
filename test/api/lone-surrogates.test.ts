// Escapes of lone surrogates in JSON text, read as Go's encoding/json reads them: each
// becomes U+FFFD, a valid pair is kept, in keys as in values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replaceLoneSurrogateEscapes } from '../../src/api/lone-surrogates.ts';

// The JSON text of a string (between its quotes), and the string Go decodes from it.
const strings: [name: string, json: string, go: string][] = [
  ['a lone high surrogate', '\\ud800x', '\uFFFDx'],
  ['a lone low surrogate', 'x\\udc00', 'x\uFFFD'],
  ['a valid pair', '\\ud83d\\ude00', '😀'],
  ['a valid pair in upper case', '\\uD83D\\uDE00', '😀'],
  ['a high surrogate before a valid pair', '\\ud83d\\ud83d\\ude00', '\uFFFD😀'],
  ['a low surrogate before a high one', '\\ude00\\ud83d', '\uFFFD\uFFFD'],
  ['a high surrogate before another escape', '\\udbff\\u0041', '\uFFFDA'],
  ['the last of each range', '\\udbff\\udfff', '\u{10FFFF}'],
  ['a high surrogate at the end', 'x\\ud800', 'x\uFFFD'],
  ['an escaped backslash before text that looks like an escape', '\\\\ud800', '\\ud800'],
  ['an escaped backslash before an escape', '\\\\\\ud800', '\\\uFFFD'],
  ['an escaped quote before an escape', '\\"\\ud800', '"\uFFFD'],
  ['escapes of other characters', '\\u003c\\u00e9\\ud7ff\\ue000', '<é\uD7FF\uE000'],
  ['no escape', 'plain', 'plain'],
];

for (const [name, json, go] of strings) {
  test(`${name}: ${json} reads as Go reads it`, () => {
    const text = replaceLoneSurrogateEscapes(`{"${json}":"${json}"}`);
    assert.deepEqual(JSON.parse(text), { [go]: go });
  });
}

test('two keys that differ only by lone surrogates are one key, as in Go (the last value wins)', () => {
  assert.deepEqual(JSON.parse(replaceLoneSurrogateEscapes('{"\\ud800":1,"\\udfff":2}')), { '\uFFFD': 2 });
});

test('text without a surrogate\'s escape is returned as it is', () => {
  for (const text of ['{"a":"b"}', '{"a":"\\u0026\\"\\\\"}', '{"a":"\\\\ud800"}']) {
    assert.equal(replaceLoneSurrogateEscapes(text), text);
  }
});
