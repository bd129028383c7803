import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import YAML from 'yaml';
import { decodeBody } from '../../src/encoding/decode.ts';
import { duplicateJsonFields, duplicateYamlFields, jsonPatchStrictErrors } from '../../src/encoding/duplicate-fields.ts';
import { loadYaml } from '../../src/api/yaml.ts';

// The YAML library loads on first need; these tests decode and encode YAML synchronously.
await loadYaml();

describe('duplicate fields in JSON', () => {
  const cases: [name: string, text: string, want: string[]][] = [
    ['none', '{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}', []],
    ['at the root', '{"a":1,"b":2,"a":3}', ['a']],
    ['nested', '{"metadata":{"name":"x","labels":{},"name":"y"}}', ['metadata.name']],
    ['in list items, with the index', '{"spec":{"containers":[{"name":"a"},{"name":"b","image":"i","name":"c"}]}}', ['spec.containers[1].name']],
    ['every repeat is reported', '{"a":1,"a":2,"a":3}', ['a', 'a']],
    ['in a list of lists', '{"l":[[{"k":1,"k":2}]]}', ['l[0][0].k']],
    ['keys compare by value, escapes decoded', '{"a":1,"\\u0061":2}', ['a']],
    ['quotes and braces inside strings are text', '{"s":"a\\"}{,\\"b\\":","b":1,"t":"\\\\","b":2}', ['b']],
    ['values that look like keys are not keys', '{"a":"b","b":"a"}', []],
    ['an empty object and a top-level list', '[{},{"x":1,"x":2}]', ['[1].x']],
    ['whitespace everywhere', ' { "a" : 1 ,\n "a" : [ 1 , 2 ] } ', ['a']],
    ['many keys (a Set takes over)', `{${Array.from({ length: 30 }, (_, i) => `"k${i}":${i}`).join(',')},"k7":0}`, ['k7']],
    ['same key in sibling objects is fine', '{"a":{"x":1},"b":{"x":1}}', []],
    ['an escaped key first, then its plain form', '{"\\u0061":1,"a":2}', ['a']],
    ['the path names an escaped parent by its value', '{"\\u006d":{"x":1,"x":2}}', ['m.x']],
    ['an escaped repeat among many keys', `{${Array.from({ length: 14 }, (_, i) => `"k${i}":${i}`).join(',')},"\\u006b3":0}`, ['k3']],
    ['an escaped key, then many, then its plain form', `{"\\u0061":0,${Array.from({ length: 14 }, (_, i) => `"k${i}":${i}`).join(',')},"a":1,"k2":2}`, ['a', 'k2']],
    ['long keys compare whole', '{"aaaaaaaaaaaaaaaaaaaa":1,"aaaaaaaaaaaaaaaaaaab":2,"aaaaaaaaaaaaaaaaaaaa":3}', ['aaaaaaaaaaaaaaaaaaaa']],
    ['keys of one length that differ', '{"ab":1,"ba":2,"a":3,"b":4}', []],
    ['objects at one depth start clean', '{"a":{"x":1,"y":2},"b":{"x":1,"y":2},"c":{"y":1,"x":2,"y":3}}', ['c.y']],
  ];
  for (const [name, text, want] of cases) {
    test(name, () => {
      JSON.parse(text);
      assert.deepEqual(duplicateJsonFields(text), want);
    });
  }
});

test('duplicate fields in JSON: random objects, against the keys JSON.parse reads one by one', () => {
  // The model: walk the parsed value of each object's own text, in order, with a reviver-free parse per object.
  const rand = (() => { let x = 7; return () => (x = (x * 48271) % 2147483647) / 2147483647; })();
  const names = ['a', 'b', 'ab', 'ba', 'name', '\\u0061', 'n\\u0061me', 'x"y', 'k\\\\'];
  const decoded = (raw: string) => JSON.parse(`"${raw}"`) as string;
  for (let round = 0; round < 300; round++) {
    const want: string[] = [];
    const value = (path: string, depth: number): string => {
      const r = rand();
      if (depth > 3 || r < 0.4) return String(Math.floor(rand() * 10));
      if (r < 0.55) return `[${Array.from({ length: Math.floor(rand() * 3) }, (_, i) => value(`${path}[${i}]`, depth + 1)).join(',')}]`;
      const seen = new Set<string>();
      const members: string[] = [];
      for (let m = Math.floor(rand() * 6); m > 0; m--) {
        const raw = names[Math.floor(rand() * names.length)]!.replace('"', '\\"');
        const key = decoded(raw);
        const keyPath = path === '' ? key : `${path}.${key}`;
        if (seen.has(key)) want.push(keyPath);
        seen.add(key);
        members.push(`"${raw}":${value(keyPath, depth + 1)}`);
      }
      return `{${members.join(',')}}`;
    };
    const text = value('', 0);
    JSON.parse(text);
    assert.deepEqual(duplicateJsonFields(text), want, text);
  }
});

describe('duplicate fields in YAML', () => {
  const cases: [name: string, text: string, want: string[]][] = [
    ['none', 'a: 1\nb:\n  a: 2\n', []],
    ['at the root', 'a: 1\nb: 2\na: 3\n', ['a']],
    ['nested in a list', 'spec:\n  containers:\n  - name: a\n    image: i\n    name: b\n', ['spec.containers[0].name']],
    ['flow style', 'x: {k: 1, k: 2}\n', ['x.k']],
    ['numbers as keys compare as toJS makes them', '1: a\n"1": b\n', ['1']],
  ];
  for (const [name, text, want] of cases) {
    test(name, () => assert.deepEqual(duplicateYamlFields(YAML.parseDocument(text, { uniqueKeys: false })), want));
  }
});

describe('a JSON patch decoded strictly into its operations', () => {
  const cases: [name: string, text: string, want: string[]][] = [
    ['a clean patch', '[{"op":"add","path":"/a","value":{"b":[{"c":1}]}},{"op":"move","from":"/a","path":"/b"}]', []],
    ['unknown and duplicate members in document order', '[{"op":"add","x":1,"path":"/a","op":"add"},{"path":"/b","y":2}]',
      ['unknown field "[0].x"', 'duplicate field "[0].op"', 'unknown field "[1].y"']],
    ['members match case-sensitively', '[{"OP":"add","Path":"/a"}]', ['unknown field "[0].OP"', 'unknown field "[0].Path"']],
    ['an unknown member twice is said once, not as a duplicate', '[{"z":1,"z":2}]', ['unknown field "[0].z"']],
    ['keys twice within a value, at any depth', '[{"value":{"k":1,"k":2,"l":[{"m":1,"m":2}]}}]', ['duplicate field "[0].value.k"', 'duplicate field "[0].value.l[0].m"']],
    ['a value\'s own keys are not operation members', '[{"value":{"foo":1}}]', []],
    ['not a list: nothing to say here (the shape check refuses it)', '{"op":"add","foo":1}', []],
  ];
  for (const [name, text, want] of cases) {
    test(name, () => assert.deepEqual(jsonPatchStrictErrors(text), want));
  }

  test('at most 100 errors, as the decoder keeps', () => {
    const ops = Array.from({ length: 150 }, (_, i) => `{"op":"add","path":"/a","u${i}":1}`);
    const errors = jsonPatchStrictErrors(`[${ops.join(',')}]`);
    assert.equal(errors.length, 100);
    assert.equal(errors[99], 'unknown field "[99].u99"');
  });
});

describe('decodeBody', () => {
  const json = (s: string) => Buffer.from(s);
  test('finds duplicates only when asked, and the value keeps the last', () => {
    const body = json('{"a":1,"a":2}');
    assert.deepEqual(decodeBody('application/json', body), { value: { a: 2 }, duplicateFields: [] });
    assert.deepEqual(decodeBody('application/json', body, { findDuplicates: true }), { value: { a: 2 }, duplicateFields: ['a'] });
  });

  test('YAML bodies too', () => {
    const decoded = decodeBody('application/yaml', json('a: 1\na: 2\n'), { findDuplicates: true });
    assert.deepEqual(decoded, { value: { a: 2 }, duplicateFields: ['a'] });
  });
});
