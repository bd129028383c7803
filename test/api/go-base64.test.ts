// Base64 of []byte fields as Go's encoding/json decodes them (base64.StdEncoding): what
// is accepted, and the byte offset its "illegal base64 data" error names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeGoBase64 } from '../../src/api/go-base64.ts';

// Offsets as Go's encoding/base64 reports them (its TestDecodeCorrupt table); -1: valid.
const corrupt: [input: string, offset: number][] = [
  ['', -1],
  ['\n', -1],
  ['AAA=\n', -1],
  ['AAAA\n', -1],
  ['!!!!', 0],
  ['====', 0],
  ['x===', 1],
  ['=AAA', 0],
  ['A=AA', 1],
  ['AA=A', 2],
  ['AA==A', 4],
  ['AAA=AAAA', 4],
  ['AAAAA', 4],
  ['AAAAAA', 4],
  ['A=', 1],
  ['A==', 1],
  ['AA=', 3],
  ['AA==', -1],
  ['AAA=', -1],
  ['AAAA', -1],
  ['AAAAAA=', 7],
  ['YWJjZA=====', 8],
  ['A!\n', 1],
  ['A=\n', 1],
  // A plain value where base64 was due, and URL-safe base64, which StdEncoding refuses.
  ['not base64!', 3],
  ['a-b_', 1],
  // Offsets count UTF-8 bytes, as Go reads the JSON string.
  ['ééé', 0],
  ['YWJ€', 3],
];

for (const [input, offset] of corrupt) {
  test(`${JSON.stringify(input)} ${offset < 0 ? 'decodes' : `is corrupt at byte ${offset}`}`, () => {
    const got = decodeGoBase64(input);
    assert.equal(got.corruptAt, offset < 0 ? undefined : offset);
  });
}

const decoded: [input: string, text: string][] = [
  ['YWJjZA==', 'abcd'],
  ['YW\r\nJj\nZA=\n=', 'abcd'],
  // Bits past the last byte are ignored (StdEncoding is not Strict).
  ['YR==', 'a'],
];

for (const [input, text] of decoded) {
  test(`${JSON.stringify(input)} decodes to ${JSON.stringify(text)}`, () => {
    assert.equal(decodeGoBase64(input).bytes?.toString('utf8'), text);
  });
}
