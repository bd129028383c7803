// YAML bodies read as kube-apiserver reads them (sigs.k8s.io/yaml's YAMLToJSON over go-yaml v2). Each expected value
// is what kubectl 1.32, which converts YAML to JSON with the same library, gave for the same text with
// `kubectl label --local -f obj.yaml z=y -o json` (its error text for the refusals), recorded as it came.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import YAML from 'yaml';
import { decodeBody } from '../../src/encoding/decode.ts';
import { duplicateYamlFields } from '../../src/encoding/duplicate-fields.ts';
import { isGoYamlTimestamp, resolveScalar } from '../../src/encoding/yaml-resolve.ts';
import { loadYaml } from '../../src/api/yaml.ts';

// The YAML library loads on first need; these tests decode YAML synchronously.
await loadYaml();

const read = (text: string) => decodeBody('application/yaml', Buffer.from(text), { findDuplicates: true });

function refusal(text: string): string {
  try {
    read(text);
  } catch (err) {
    assert.equal((err as { code?: number }).code, 400, text);
    return (err as Error).message;
  }
  assert.fail(`decoded: ${text}`);
}

describe('plain scalars resolve as YAML 1.1 in go-yaml v2', () => {
  const cases: [name: string, text: string, want: unknown][] = [
    ['booleans, in three cases only', 'a: [y, Y, yes, Yes, YES, true, True, TRUE, on, On, ON, n, N, no, No, NO, false, False, FALSE, off, Off, OFF, yES, tRUE, oN]',
      [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, 'yES', 'tRUE', 'oN']],
    ['nulls; quoted ones are strings', 'a: [~, null, Null, NULL, nULL, "", "null", \'~\']\nb:\nc: !!str', [[null, null, null, null, 'nULL', '', 'null', '~'], null, '']],
    ['integers as Go parses them: octal, hex, binary, underscores; sexagesimal and timestamps stay strings',
      'a: [0755, 0644, 0x1F, 0b101, 0o17, 1_000, +12, -12, 0, -0, 00, 08, 1:20, 1:70, 190:20:30, 2024-01-02, 2024-01-02T10:00:00Z, "0755", \'yes\', 1.5, .5, 1e3, 1., 12e, 0x, <<, =]',
      [493, 420, 31, 5, 15, 1000, 12, -12, 0, 0, 0, 8, '1:20', '1:70', '190:20:30', '2024-01-02', '2024-01-02T10:00:00Z', '0755', 'yes', 1.5, 0.5, 1000, 1, '12e', '0x', '<<', '=']],
    ['prefixes in either case, signs before them, underscores anywhere', 'a: [-0b101, 0B101, 0X1F, 0O17, -0x1F, +0x1F, 0b2, 0o8, 09, 0_8, 0x_1F, 1__0, 1_, 0b-101, 0b+101]',
      [-5, 5, 31, 15, -31, 31, '0b2', '0o8', 9, 8, 31, 10, 1, -5, 5]],
    ['floats, and numbers past int64 and uint64', 'a: [1_000.5, .5_0, ._5, 1e400, 99999999999999999999, 18446744073709551615, 9223372036854775808, -9223372036854775809, -0, -0.0, 0., +.5, 1.5e3, 1E3, 1e+3, 1.e3, .e3]',
      [1000.5, 0.5, '._5', '1e400', 100000000000000000000, 18446744073709552000, 9223372036854776000, -9223372036854776000, 0, -0, 0, 0.5, 1500, 1000, 1000, 1000, '.e3']],
    ['a hex number past uint64 is a string', 'a: 0xFFFFFFFFFFFFFFFFFFFF', '0xFFFFFFFFFFFFFFFFFFFF'],
    ['timestamps, valid or not, are their text', 'a: [2001-12-14 21:59:43.10 -5, 2001-12-14t21:59:43.10-05:00, 2001-12-14T21:59:43Z, 2001-12-14 21:59:43.10, 2001-1-1, 20011-01-01, 2001-13-01]',
      ['2001-12-14 21:59:43.10 -5', '2001-12-14t21:59:43.10-05:00', '2001-12-14T21:59:43Z', '2001-12-14 21:59:43.10', '2001-1-1', '20011-01-01', '2001-13-01']],
    ['block and quoted scalars are strings', 'a: |\n  yes\nb: >-\n  0755\nc: "true"\nd: \'1\'', ['yes\n', '0755', 'true', '1']],
  ];
  for (const [name, text, want] of cases) {
    test(name, () => {
      const value = read(text).value as Record<string, unknown>;
      const got = Object.keys(value).length === 1 ? value.a : Object.values(value);
      assert.deepEqual(got, want);
    });
  }
});

describe('keys that are not strings become their JSON names', () => {
  test('numbers, bools and timestamps', () => {
    const { value } = read('a: {1.5: x, 1e3: y, 010: z, 1.0: w, 1e21: v, .inf: u, -.inf: t, .nan: s, 0x10: r, yes: q, 2001-01-01: p, 1.10: o}');
    assert.deepEqual(value, { a: { 1: 'w', 8: 'z', 16: 'r', 1000: true, '1.5': 'x', '1e+21': 'v', '.inf': 'u', '-.inf': 't', '.nan': 's', true: 'q', '2001-01-01': 'p', '1.1': 'o' } });
  });
  test('floats as float32s, as sigs.k8s.io/yaml v1.4.0 formats keys', () => {
    const { value } = read('a: {1.23456789012: x, 16777217.5: y, 1e300: i, 1e-40: s, 123456789.0: n}');
    assert.deepEqual(value, { a: { '1.2345679': 'x', '1.6777218e+07': true, '.inf': 'i', '1e-40': 's', '1.2345679e+08': false } });
  });
  test('on: in a ConfigMap\'s data is the key "true"', () => {
    assert.deepEqual(read('data:\n  on: x\n  off: "y"\n').value, { data: { true: 'x', false: 'y' } });
  });
  const refused: [name: string, text: string, message: string][] = [
    ['a null key', 'a: {~: x}', 'unsupported map key of type: %!s(<nil>), key: <nil>, value: "x"'],
    ['an empty key', 'a: {null: [1, {b: 2}]}', 'unsupported map key of type: %!s(<nil>), key: <nil>, value: []interface {}{1, map[interface {}]interface {}{"b":2}}'],
    ['a key past int64', 'a: {18446744073709551615: x}', 'unsupported map key of type: uint64, key: 0xffffffffffffffff, value: "x"'],
  ];
  for (const [name, text, message] of refused) test(`${name} is refused`, () => assert.equal(refusal(text), `the body of the request could not be decoded as YAML: ${message}`));
});

describe('explicit tags', () => {
  test('resolve the scalar as the tag says, or leave it a string', () => {
    const text = 'a: [!!int "12", !!str 12, !!float 1, !!bool yes, !!null "", !foo bar, ! yes, !!timestamp 2001-01-01, !!binary aGVsbG8=, !!float "1.5", !!int 0x1F, !!str yes, !!bool "true", !!float 0x10, !!int 1_0, !!str ~, !!null ~, !!null null, !<tag:yaml.org,2002:int> "7", !!merge x]';
    assert.deepEqual(read(text).value, { a: [12, '12', 1, true, null, 'bar', 'yes', '2001-01-01', 'hello', 1.5, 31, 'yes', true, 16, 10, '~', null, null, 7, 'x'] });
  });
  test('!!binary is its bytes, lines joined, bytes that are not UTF-8 as U+FFFD', () => {
    assert.deepEqual(read('a: !!binary |\n  aGVs\n  bG8=\nb: !!binary /w==').value, { a: 'hello', b: '\uFFFD' });
  });
  test('tags on collections are ignored', () => {
    assert.deepEqual(read('a: !!set {x, z}\nb: !!str {x: 1}\nc: !!int [1]\nd: !!omap [a: 1]').value, { a: { x: null, z: null }, b: { x: 1 }, c: [1], d: [{ a: 1 }] });
  });
  const refused: [text: string, message: string][] = [
    ['a: !!int abc', 'yaml: cannot decode !!str `abc` as a !!int'],
    ['a: !!bool 1', 'yaml: cannot decode !!int `1` as a !!bool'],
    ['a: !!timestamp abc', 'yaml: cannot decode !!str `abc` as a !!timestamp'],
    ['a: !!timestamp 1', 'yaml: cannot decode !!int `1` as a !!timestamp'],
    ['a: !!null x', 'yaml: cannot decode !!str `x` as a !!null'],
    ['a: !!float 2001-01-01', 'yaml: cannot decode !!str `2001-01-01` as a !!float'],
    ['a: !!float 1e400', 'yaml: cannot decode !!str `1e400` as a !!float'],
    ['a: !!int 1.5', 'yaml: cannot decode !!float `1.5` as a !!int'],
    ['b: !!int', 'yaml: cannot decode !!null `` as a !!int'],
    ['a: !!binary "!!"', 'yaml: !!binary value contains invalid base64 data'],
    ['a: !!binary aGVsbG8', 'yaml: !!binary value contains invalid base64 data'],
  ];
  for (const [text, message] of refused) test(`${text} is refused`, () => assert.equal(refusal(text), `the body of the request could not be decoded as YAML: ${message}`));
});

describe('values JSON has no form for', () => {
  const refused: [text: string, message: string][] = [
    ['a: .inf', 'json: unsupported value: +Inf'],
    ['a: -.inf', 'json: unsupported value: -Inf'],
    ['a: [.NaN]', 'json: unsupported value: NaN'],
  ];
  for (const [text, message] of refused) test(`${text} is refused`, () => assert.equal(refusal(text), `the body of the request could not be decoded as YAML: ${message}`));
});

describe('merge keys', () => {
  const cases: [name: string, text: string, want: unknown][] = [
    ['a merge sets its keys over those before it (go-yaml v2)', 'a: 1\n<<: {a: 2, b: 3}\nc: 4', { a: 2, b: 3, c: 4 }],
    ['the earlier of merged mappings wins, and keys after the merge override it', 'x: &x {a: 1}\nz:\n  <<: [*x, {a: 2, b: 3}]\n  a: 5', { x: { a: 1 }, z: { a: 5, b: 3 } }],
    ['a sequence of mappings', '<<: [{a: 1}, {a: 2, b: 3}]\na: 0', { a: 0, b: 3 }],
    ['quoted, << is a key', '"<<": {a: 1}', { '<<': { a: 1 } }],
    ['tagged !!merge', '!!merge <<: {a: 1}', { a: 1 }],
    ['with the non-specific tag !, quoted or not', 'q:\n  ! <<: {a: 1}\nr:\n  ! "<<": {b: 1}\ns: ! 12', { q: { a: 1 }, r: { b: 1 }, s: '12' }],
  ];
  for (const [name, text, want] of cases) test(name, () => assert.deepEqual(read(text).value, want));
  for (const text of ['<<: [x]', '<<: x', '<<:', 'a: &a [1]\nb:\n  <<: *a']) {
    test(`${JSON.stringify(text)} is refused`, () => assert.equal(refusal(text), 'the body of the request could not be decoded as YAML: yaml: map merge requires map or sequence of maps as the value'));
  }
});

describe('aliases', () => {
  const refused: [name: string, text: string, message: string][] = [
    ['an alias without its anchor', 'a: *x', "yaml: unknown anchor 'x' referenced"],
    ['an alias before its anchor', 'a: *x\nb: &x 1', "yaml: unknown anchor 'x' referenced"],
    ['an alias inside its anchor', 'a: &a\n  b: *a', "yaml: anchor 'a' value contains itself"],
    ['billion laughs', [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
    ].join('\n'), 'yaml: document contains excessive aliasing'],
  ];
  for (const [name, text, message] of refused) test(`${name} is refused`, () => assert.equal(refusal(text), `the body of the request could not be decoded as YAML: ${message}`));
  test('an alias is its anchor\'s latest value, scalars resolved again; many small ones are fine', () => {
    assert.deepEqual(read('a: &x yes\nb: *x\nc: &x 2\nd: *x\ne: {*x : k}').value, { a: true, b: true, c: 2, d: 2, e: { 2: 'k' } });
    const many = `base: &b {x: 1}\nitems:\n${Array.from({ length: 300 }, () => '- *b').join('\n')}\n`;
    assert.equal((read(many).value as { items: unknown[] }).items.length, 300);
  });
});

describe('documents', () => {
  test('only the first document is read, as go-yaml reads no further', () => {
    assert.deepEqual(read('a: 1\n---\nb: [').value, { a: 1 });
    assert.deepEqual(read('---\na: 1\n---\nb: 2\n').value, { a: 1 });
  });
  test('an empty document is null', () => {
    assert.equal(read('').value, null);
    assert.equal(read('# only a comment\n').value, null);
  });
});

describe('duplicate keys, as go-yaml\'s strict decoding finds them', () => {
  const cases: [name: string, text: string, want: string[]][] = [
    ['keys that resolve to one name', 'on: 1\ntrue: 2\n', ['true']],
    ['numbers written two ways', 'a:\n  0x1: a\n  1: b\n', ['a.1']],
    ['keys a merge set before', 'base: &b\n  a: 1\nd:\n  <<: *b\n  a: 2\n', ['d.a']],
    ['keys one merge sets twice', '<<: [{a: 1}, {a: 2, b: 3}]\n', ['a']],
    ['none in a plain object', 'a: 1\nb:\n  a: 2\n', []],
  ];
  for (const [name, text, want] of cases) {
    test(name, () => {
      assert.deepEqual(read(text).duplicateFields, want);
      assert.deepEqual(duplicateYamlFields(YAML.parseDocument(text, { uniqueKeys: false })), want);
    });
  }
});

describe('go-yaml\'s timestamps (Go\'s time.Parse of four layouts, with its range checks)', () => {
  const cases: [text: string, timestamp: boolean][] = [
    ['2001-02-29', false], ['2000-02-29', true], ['2001-13-01', false], ['2001-1-1 24:00:00', false], ['2001-1-1 23:59:59', true],
    ['2001-01-01T10:00:00+25:00', false], ['2001-01-01T10:00:00+24:00', true], ['2001-01-01T10:00:00+24:61', false],
    ['2001-01-01t1:2:3,5Z', true], ['2001-01-01T1:2:3.Z', false], ['2001-01-01 1:2:3.5', true], ['2001-01-01 1:2:3Z', false],
    ['2001-01-01T1:2:60Z', false], ['0001-01-01', true], ['2001-00-01', false], ['2001-01-00', false], ['2001-04-31', false],
    ['2001-01-01T10:00:00z', false], ['2001-01-01T10:00:00-05:00', true], ['2001-01-01T10:00:00.123456789012Z', true], ['2001-001-01', false],
  ];
  for (const [text, timestamp] of cases) {
    test(text, () => {
      assert.equal(isGoYamlTimestamp(text), timestamp);
      assert.equal(resolveScalar(text).tag, timestamp ? 'timestamp' : 'str');
    });
  }
});
