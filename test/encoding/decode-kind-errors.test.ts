// An object body whose kind cannot be read, as upstream's JSON serializer meets it first
// (json.SimpleMetaFactory.Interpret, schema.ParseGroupVersion): wrapped naming the kind
// expected (transformDecodeError), or in the decoder's own words for the delete handler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBody, typeMetaError } from '../../src/encoding/decode.ts';
import { loadYaml } from '../../src/api/yaml.ts';

await loadYaml();

const typeMeta = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
const sniffing = "couldn't get version/kind; json parse error: ";

const typeMetaRows: Array<[name: string, value: unknown, error: string | undefined]> = [
  ['null: both left empty', null, undefined],
  ['an object without either', { metadata: {} }, undefined],
  ['null apiVersion and kind', { apiVersion: null, kind: null }, undefined],
  ['empty strings', { apiVersion: '', kind: '' }, undefined],
  ['an apiVersion of one slash', { apiVersion: 'apps/v1' }, undefined],
  ['"/"', { apiVersion: '/' }, undefined],
  ['a list', [1], `${sniffing}json: cannot unmarshal array into Go value of type ${typeMeta}`],
  ['a string', 'x', `${sniffing}json: cannot unmarshal string into Go value of type ${typeMeta}`],
  ['a number', 1.5, `${sniffing}json: cannot unmarshal number into Go value of type ${typeMeta}`],
  ['a boolean', false, `${sniffing}json: cannot unmarshal bool into Go value of type ${typeMeta}`],
  ['a kind that is a number', { kind: 7 }, `${sniffing}json: cannot unmarshal number into Go struct field .kind of type string`],
  ['an apiVersion that is an object', { apiVersion: {} }, `${sniffing}json: cannot unmarshal object into Go struct field .apiVersion of type string`],
  ['both wrong, kind first', { kind: true, apiVersion: 1 }, `${sniffing}json: cannot unmarshal bool into Go struct field .kind of type string`],
  ['both wrong, apiVersion first', { apiVersion: 1, kind: true }, `${sniffing}json: cannot unmarshal number into Go struct field .apiVersion of type string`],
  ['an apiVersion of two slashes', { apiVersion: 'a/b/c' }, 'unexpected GroupVersion string: a/b/c'],
];

for (const [name, value, error] of typeMetaRows) {
  test(`typeMetaError: ${name}`, () => {
    assert.equal(typeMetaError(value), error);
  });
}

function refusal(contentType: string, text: string, opts: Parameters<typeof decodeBody>[2]): { code: number; message: string } {
  try {
    decodeBody(contentType, Buffer.from(text), opts);
  } catch (err) {
    const e = err as { code?: number; message: string };
    return { code: e.code ?? 0, message: e.message };
  }
  assert.fail(`decoded: ${text}`);
}

const decodeRows: Array<[name: string, contentType: string, body: string, wrapped: string, unwrapped: string]> = [
  ['empty JSON', 'application/json', '', `${sniffing}unexpected end of JSON input (<empty>)`, `${sniffing}unexpected end of JSON input`],
  ['malformed JSON', 'application/json', '{"a":', `${sniffing}unexpected end of JSON input ({"a":)`, `${sniffing}unexpected end of JSON input`],
  ['a JSON list', 'application/json', '[]', `${sniffing}json: cannot unmarshal array into Go value of type ${typeMeta} (5b5d)`, `${sniffing}json: cannot unmarshal array into Go value of type ${typeMeta}`],
  ['a YAML scalar', 'application/yaml', '12', `${sniffing}json: cannot unmarshal number into Go value of type ${typeMeta} (3132)`, `${sniffing}json: cannot unmarshal number into Go value of type ${typeMeta}`],
  ['a YAML kind of the wrong type', 'application/yaml', 'kind: [a]\n', `${sniffing}json: cannot unmarshal array into Go struct field .kind of type string (6b696e643a205b615d0a)`, `${sniffing}json: cannot unmarshal array into Go struct field .kind of type string`],
  ['JSON too deep', 'application/json', `${'['.repeat(10_001)}${']'.repeat(10_001)}`, `${sniffing}invalid character '[' exceeded max depth (${'5b'.repeat(30)} ...)`, `${sniffing}invalid character '[' exceeded max depth`],
];

for (const [name, contentType, body, wrapped, unwrapped] of decodeRows) {
  test(`an object body that names no kind (${name}): wrapped naming the kind, or unwrapped`, () => {
    assert.deepEqual(refusal(contentType, body, { kind: 'ConfigMap' }), { code: 400, message: `the object provided is unrecognized (must be of type ConfigMap): ${wrapped}` });
    assert.deepEqual(refusal(contentType, body, { kind: 'DeleteOptions', unwrappedErrors: true }), { code: 400, message: unwrapped });
  });
}

test('without a kind (patches, apply configurations) the errors stay the decoder\'s and any value decodes', () => {
  assert.deepEqual(refusal('application/json', '{', {}), { code: 400, message: `${sniffing}unexpected end of JSON input` });
  assert.deepEqual(decodeBody('application/json', Buffer.from('[1]')).value, [1]);
  assert.equal(decodeBody('application/yaml', Buffer.from('')).value, null);
});
