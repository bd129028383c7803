import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, decodeBodyLoading, encodeYaml, overflowingNumber } from '../../src/encoding/decode.ts';
import { loadProtobufCodec } from '../../src/encoding/protobuf-loader.ts';
import { mayNestTooDeep, maxNestingDepth } from '../../src/api/nesting.ts';
import { loadYaml } from '../../src/api/yaml.ts';

// The YAML library loads on first need; these tests decode and encode YAML synchronously.
await loadYaml();

before(() => loadProtobufCodec());

const yaml = (text: string) => decodeBody('application/yaml', Buffer.from(text), { findDuplicates: true });

test('a YAML body that is JSON decodes as JSON, duplicates included', () => {
  assert.deepEqual(yaml('{"a": 1, "b": {"c": "x"}}'), { value: { a: 1, b: { c: 'x' } }, duplicateFields: [] });
  assert.deepEqual(yaml('{"a": 1, "a": 2}').duplicateFields, ['a']);
});

test('YAML flow style that is not JSON still decodes as YAML', () => {
  // y is YAML 1.1's true, as kube-apiserver reads it.
  assert.deepEqual(yaml('{a: 1, b: [x, y]}').value, { a: 1, b: ['x', true] });
  assert.deepEqual(yaml('{"a": 1} # a comment').value, { a: 1 });
});

test('block YAML decodes, and malformed YAML is a 400', () => {
  assert.deepEqual(yaml('a: 1\nb:\n  - x\n').value, { a: 1, b: ['x'] });
  assert.throws(() => yaml('a: [1, 2'), (err: any) => err.code === 400);
});

const json = 'application/json';
const yamlType = 'application/yaml';

function refusal(contentType: string, text: string | Uint8Array): { code: number; message: string } {
  try {
    decodeBody(contentType, typeof text === 'string' ? Buffer.from(text) : text);
  } catch (err) {
    const e = err as { code?: number; message: string };
    return { code: e.code ?? 0, message: e.message };
  }
  assert.fail(`decoded: ${String(text).slice(0, 80)}`);
}

function nestedJson(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
}

test('JSON bodies read lone surrogates\' escapes as U+FFFD, as Go\'s encoding/json, keys and duplicates included', () => {
  const text = '{"metadata":{"name":"\\ud800x","annotations":{"\\udc00":"a","\\ud800":"b","pair":"\\ud83d\\ude00"}}}';
  assert.deepEqual(decodeBody(json, Buffer.from(text), { findDuplicates: true }), {
    value: { metadata: { name: '\uFFFDx', annotations: { '\uFFFD': 'b', pair: '😀' } } },
    duplicateFields: ['metadata.annotations.\uFFFD'],
  });
});

test('a JSON body that does not parse is 400 with Go\'s syntax error under the kind sniffing\'s prefix', () => {
  assert.deepEqual(refusal(json, '{oops'), { code: 400, message: "couldn't get version/kind; json parse error: invalid character 'o' looking for beginning of object key string" });
  assert.deepEqual(refusal(json, '{"metadata": {"name": "a",}}'), { code: 400, message: "couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string" });
  assert.deepEqual(refusal(json, '{"metadata": '), { code: 400, message: "couldn't get version/kind; json parse error: unexpected end of JSON input" });
});

test('a body nested exactly maxNestingDepth levels decodes, as JSON and as YAML', () => {
  for (const contentType of [json, yamlType]) {
    const { value } = decodeBody(contentType, Buffer.from(nestedJson(maxNestingDepth)));
    assert.equal(typeof value, 'object', contentType);
  }
  const blockYaml = Array.from({ length: maxNestingDepth - 1 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n';
  assert.equal(typeof decodeBody(yamlType, Buffer.from(blockYaml)).value, 'object');
});

test('a body nested one level deeper is 400 with the Go decoder message', () => {
  for (const contentType of [json, yamlType]) {
    const r = refusal(contentType, nestedJson(maxNestingDepth + 1));
    assert.deepEqual(r, { code: 400, message: "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth" }, contentType);
  }
  const deepArray = `{"a":${'['.repeat(maxNestingDepth)}${']'.repeat(maxNestingDepth)}}`;
  assert.match(refusal(json, deepArray).message, /invalid character '\[' exceeded max depth$/);
  // Far deeper than any recursive parser survives: refused, not a stack overflow.
  assert.equal(refusal(json, nestedJson(200_000)).code, 400);
  const blockYaml = Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n';
  assert.equal(refusal(yamlType, blockYaml).code, 400);
  assert.equal(refusal(yamlType, `${'['.repeat(50_000)}${']'.repeat(50_000)}`).code, 400);
});

test('the shortest text that nests one level too deep is refused; anything shorter decodes without a walk', () => {
  // Two brackets per level: 2 × (maxNestingDepth + 1) characters, the length below which the value is not walked.
  const shortest = `${'['.repeat(maxNestingDepth + 1)}${']'.repeat(maxNestingDepth + 1)}`;
  for (const contentType of [json, yamlType]) {
    assert.match(refusal(contentType, shortest).message, /invalid character '\[' exceeded max depth$/, contentType);
    const deepest = `${'['.repeat(maxNestingDepth)}${']'.repeat(maxNestingDepth)}`;
    assert.ok(Array.isArray(decodeBody(contentType, Buffer.from(deepest)).value), contentType);
  }
});

test('long text with few brackets is not walked; deep text padded with long strings, or brackets in strings, still is', () => {
  assert.equal(mayNestTooDeep('x'.repeat(10_000)), false, 'no brackets');
  assert.equal(mayNestTooDeep(`{"a":"${'x'.repeat(10_000)}","b":${'['.repeat(maxNestingDepth)}${']'.repeat(maxNestingDepth)}}`), true, 'one opener more than the levels allowed');
  assert.equal(mayNestTooDeep(`${'['.repeat(maxNestingDepth)}"${'x'.repeat(2_000)}"${']'.repeat(maxNestingDepth)}`), false, 'exactly the levels allowed, long');
  // Brackets in strings count: such text is walked, and decodes when it is not deep.
  const inStrings = JSON.stringify({ a: '{['.repeat(maxNestingDepth) });
  assert.equal(mayNestTooDeep(inStrings), true);
  for (const contentType of [json, yamlType]) assert.deepEqual(decodeBody(contentType, Buffer.from(inStrings)).value, { a: '{['.repeat(maxNestingDepth) }, contentType);
  // Too deep behind a long shallow prefix: still refused, as JSON and as YAML.
  const padded = `{"pad":"${'x'.repeat(5_000)}","deep":${nestedJson(maxNestingDepth)}}`;
  for (const contentType of [json, yamlType]) assert.match(refusal(contentType, padded).message, /exceeded max depth$/, contentType);
});

test('YAML aliases that do not resolve, refer to their own anchor, or expand too much are 400', () => {
  const cases: [string, string][] = [
    ['an unresolved alias', 'metadata: *x\n'],
    ['a circular alias', 'a: &a\n  b: *a\n'],
    ['a circular alias in a sequence', 'a: &a\n  - *a\n'],
    ['billion laughs', [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      'g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]',
    ].join('\n')],
  ];
  for (const [name, text] of cases) assert.equal(refusal(yamlType, text).code, 400, name);
  // A few aliases are fine.
  assert.deepEqual(decodeBody(yamlType, Buffer.from('a: &x {b: 1}\nc: *x\n')).value, { a: { b: 1 }, c: { b: 1 } });
});

test('YAML values JSON has no form for are 400; binary data, sets and timestamps read as upstream reads them', () => {
  for (const text of ['a: .inf', 'a: -.Inf', 'a: [.nan]']) {
    const r = refusal(yamlType, text);
    assert.equal(r.code, 400, text);
  }
  // go-yaml decodes !!binary to its bytes, a !!set is the mapping it is written as, a timestamp stays its text.
  assert.deepEqual(decodeBody(yamlType, Buffer.from('data: !!binary aGVsbG8=')).value, { data: 'hello' });
  assert.deepEqual(decodeBody(yamlType, Buffer.from('a: !!set {x, z}')).value, { a: { x: null, z: null } });
  assert.deepEqual(decodeBody(yamlType, Buffer.from('a: !!timestamp 2001-12-14')).value, { a: '2001-12-14' });
});

test('a Protobuf body whose RawExtension carries JSON nested too deep is 400', () => {
  // A v1 List (field 2: items, RawExtension field 1: raw) whose one item is deep JSON.
  const varint = (n: number): number[] => {
    const out: number[] = [];
    for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
    out.push(n);
    return out;
  };
  const bytesField = (field: number, b: number[]): number[] => [...varint(field * 8 + 2), ...varint(b.length), ...b];
  const str = (field: number, s: string): number[] => bytesField(field, [...Buffer.from(s, 'utf8')]);
  const envelope = (item: string): Uint8Array => Uint8Array.from([0x6b, 0x38, 0x73, 0x00,
    ...bytesField(1, [...str(1, 'v1'), ...str(2, 'List')]),
    ...bytesField(2, bytesField(2, str(1, item)))]);
  const protobuf = 'application/vnd.kubernetes.protobuf';
  assert.equal(typeof decodeBody(protobuf, envelope(nestedJson(maxNestingDepth - 2))).value, 'object');
  assert.match(refusal(protobuf, envelope(nestedJson(maxNestingDepth))).message, /exceeded max depth/);
});

test('a YAML mapping key that is itself a mapping or a sequence is 400', () => {
  for (const text of ['? [complex, key]\n: value\n', 'a:\n  ? {b: 1}\n  : c\n']) {
    assert.match(refusal(yamlType, text).message, /unsupported map key/, text);
  }
  assert.deepEqual(decodeBody(yamlType, Buffer.from('1: a\ntrue: b\n')).value, { 1: 'a', true: 'b' });
});

test('a YAML answer nested deeper than any body may be is YAML still, as go-yaml writes it', () => {
  const depth = maxNestingDepth * 4;
  let value: unknown = { leaf: 'x' };
  for (let i = 0; i < depth; i++) value = { a: value };
  const lines = encodeYaml(value).split('\n');
  assert.equal(lines.length, depth + 2);
  for (let i = 0; i < depth; i++) assert.equal(lines[i], `${'  '.repeat(i)}a:`);
  assert.equal(lines[depth], `${'  '.repeat(depth)}leaf: x`);
  // A sequence in a mapping at its key's indentation.
  assert.equal(encodeYaml({ a: [1, 'b'] }), 'a:\n- 1\n- b\n');
});

test('a Protobuf body loads the codec on first need', async () => {
  const freshLoader = await import(`../../src/encoding/protobuf-loader.ts?fresh=${Date.now()}`) as typeof import('../../src/encoding/protobuf-loader.ts');
  assert.equal(freshLoader.loadedProtobufCodec(), undefined);
  assert.equal(typeof (await freshLoader.loadProtobufCodec()).decodeProtobufObject, 'function');
  const body = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0f, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x09, 0x43, 0x6f, 0x6e, 0x66, 0x69, 0x67, 0x4d, 0x61, 0x70, 0x12, 0x00]);
  assert.deepEqual((await decodeBodyLoading('application/vnd.kubernetes.protobuf', body)).value, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
  assert.deepEqual((await decodeBodyLoading('application/json', Buffer.from('{"a":1}'))).value, { a: 1 });
});

test('a CBOR body: read with its gate, 415 without, refusals worded as upstream\'s decoding', () => {
  const body = Buffer.from('d9d9f7a1446b696e6449436f6e6669674d6170', 'hex'); // {kind: ConfigMap}, self-described
  const { cborTypeAt, ...decoded } = decodeBody('application/cbor', body, { cbor: true });
  assert.deepEqual(decoded, { value: { kind: 'ConfigMap' }, duplicateFields: [] });
  assert.equal(cborTypeAt?.(['kind']), 'byte string', 'the body tells its items\' CBOR types');
  const cases: { name: string; body: string; opts: { cbor?: boolean; kind?: string }; code: number; message: string }[] = [
    { name: 'gate off', body: 'a0', opts: {}, code: 415, message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf' },
    { name: 'truncated', body: 'a1', opts: { cbor: true, kind: 'Pod' }, code: 400, message: 'the object provided is unrecognized (must be of type Pod): unable to determine group/version/kind: unexpected EOF (a1)' },
    { name: 'a string', body: '4161', opts: { cbor: true, kind: 'Pod' }, code: 400, message: 'the object provided is unrecognized (must be of type Pod): unable to determine group/version/kind: cbor: cannot unmarshal byte string into Go value of type v1.TypeMeta (4161)' },
    { name: 'no kind to name', body: 'a1', opts: { cbor: true }, code: 400, message: 'unable to determine group/version/kind: unexpected EOF' },
    { name: 'a long body is summarised', body: `5f${'41'.repeat(40)}`, opts: { cbor: true, kind: 'Pod' }, code: 400, message: `the object provided is unrecognized (must be of type Pod): unable to determine group/version/kind: unexpected EOF (5f${'41'.repeat(29)} ...)` },
  ];
  for (const c of cases) {
    assert.throws(() => decodeBody('application/cbor', Buffer.from(c.body, 'hex'), c.opts), (err: { code: number; message: string }) => {
      assert.equal(err.code, c.code, c.name);
      assert.equal(err.message, c.message, c.name);
      return true;
    });
  }
});

test('overflowingNumber finds the first number literal past a float64, as written, outside strings', () => {
  assert.equal(overflowingNumber('{"a":1e308,"b":"1e400","c":[2,-1E+999,1e400]}'), '-1E+999');
  assert.equal(overflowingNumber(`{"a":${'9'.repeat(309)}}`), '9'.repeat(309));
  assert.equal(overflowingNumber('{"a":1e308,"b":"x\\"1e400","c":1e-400}'), undefined);
  assert.equal(overflowingNumber('{"a":1.5}'), undefined);
});
