// goQuote against Go's strconv.Quote, one row per rule of appendEscapedRune and IsPrint
// (Go 1.21 to 1.26: Unicode 15.0.0 tables).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goQuote } from '../../src/api/field-errors.ts';
import { goIsPrint } from '../../src/api/go-print.ts';

const rows: Array<[name: string, input: string, quoted: string]> = [
  ['plain ASCII', 'abc-1.2_3', '"abc-1.2_3"'],
  ['the empty string', '', '""'],
  ['a double quote and a backslash are always escaped', 'a"b\\c', '"a\\"b\\\\c"'],
  ['a single quote is printable', "it's", `"it's"`],
  ['the space is printable', 'a b', '"a b"'],
  ['\\a', '\u0007', '"\\a"'],
  ['\\b', '\b', '"\\b"'],
  ['\\f', '\f', '"\\f"'],
  ['\\n', '\n', '"\\n"'],
  ['\\r', '\r', '"\\r"'],
  ['\\t', '\t', '"\\t"'],
  ['\\v', '\v', '"\\v"'],
  ['other C0 controls as \\x', '\u0000\u0001\u001b\u001f', '"\\x00\\x01\\x1b\\x1f"'],
  ['DEL as \\x7f', '\u007f', '"\\x7f"'],
  ['C1 controls as \\u', '\u0080\u0085\u009f', '"\\u0080\\u0085\\u009f"'],
  ['no-break space (Zs) as \\u00a0', '\u00a0', '"\\u00a0"'],
  ['Latin-1 from ¡ to ÿ is printable', '¡é×ÿ', '"¡é×ÿ"'],
  ['the soft hyphen is not', '\u00ad', '"\\u00ad"'],
  ['letters, marks, numbers, punctuation, symbols of other scripts', 'Ωж中文ا١‐€', '"Ωж中文ا١‐€"'],
  ['a combining mark', 'e\u0301', '"e\u0301"'],
  ['other spaces (Zs) are not printable', '\u2002\u3000\u1680', '"\\u2002\\u3000\\u1680"'],
  ['format characters (Cf)', '\u200b\u200d\u2060\ufeff\u061c', '"\\u200b\\u200d\\u2060\\ufeff\\u061c"'],
  ['line and paragraph separators', '\u2028\u2029', '"\\u2028\\u2029"'],
  ['private use (Co)', '\ue000\uf8ff', '"\\ue000\\uf8ff"'],
  ['unassigned (Cn) in the BMP', '\u0378\uffff', '"\\u0378\\uffff"'],
  ['the replacement character is printable', '\ufffd', '"\ufffd"'],
  ['an emoji (So, astral) is printable', '😀', '"😀"'],
  ['an astral letter', '𝒜', '"𝒜"'],
  ['an astral format character as \\U', '\u{e0001}', '"\\U000e0001"'],
  ['astral private use as \\U', '\u{f0000}\u{10fffd}', '"\\U000f0000\\U0010fffd"'],
  ['an astral unassigned rune', '\u{1fffe}', '"\\U0001fffe"'],
  ['a variation selector supplement (Mn, plane 14) is printable', '\u{e0100}', '"\u{e0100}"'],
  ['assigned after Unicode 15.0 (CJK Ext. I, 15.1): Go escapes it', '\u{2ebf0}', '"\\U0002ebf0"'],
  ['assigned in Unicode 16 (Garay): Go escapes it', '\u{10d40}', '"\\U00010d40"'],
  ['assigned in Unicode 15.0 (CJK Ext. H): printable', '\u{31350}', '"\u{31350}"'],
  ['a lone surrogate, which Go reads as U+FFFD', 'a\ud800b', '"a\\ufffdb"'],
  ['a mix', 'x"\u0007\u00a0😀\u200b', '"x\\"\\a\\u00a0😀\\u200b"'],
];

for (const [name, input, quoted] of rows) {
  test(`goQuote: ${name}`, () => {
    assert.equal(goQuote(input), quoted);
  });
}

test('goIsPrint at the edges of its tables and of Latin-1', () => {
  const cases: Array<[number, boolean]> = [
    [0x1f, false], [0x20, true], [0x7e, true], [0x7f, false], [0xa0, false], [0xa1, true], [0xac, true], [0xad, false], [0xae, true], [0xff, true],
    [0x100, true], [0x377, true], [0x378, false], [0x38b, false], [0xfffd, true], [0xfffe, false],
    [0x10000, true], [0x1000c, false], [0x1004d, true], [0x1004e, false], [0x1f600, true],
    [0x20000, true], [0x2a6df, true], [0x2a6e0, false], [0x323af, true], [0x323b0, false], [0xe0100, true], [0xe01ef, true], [0xe01f0, false], [0x10ffff, false],
  ];
  for (const [rune, printable] of cases) assert.equal(goIsPrint(rune), printable, `U+${rune.toString(16)}`);
});
