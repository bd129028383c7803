// metadataViewOf against JSON.parse: the same kind, apiVersion and metadata (less
// managedFields) for whatever JSON an object may be stored as, and no view of bytes
// that are not an object with object metadata.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { metadataViewOf } from '../../src/cache/metadata-view.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

/** What a full decode says the view should be. */
function expected(text: string): unknown {
  const object = JSON.parse(text);
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...(object.kind !== undefined ? { kind: object.kind } : {}), ...(object.apiVersion !== undefined ? { apiVersion: object.apiVersion } : {}), metadata };
}

describe('metadataViewOf', () => {
  const deployment = {
    kind: 'Deployment', apiVersion: 'apps/v1',
    metadata: {
      name: 'web', namespace: 'default', uid: 'u-1', resourceVersion: '42', labels: { app: 'web', 'a/b': 'x"y' },
      annotations: { note: 'braces } ] { [ and "quotes" and \\ backslashes', unicode: 'é ☃ \u2028' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicaSet', name: 'web-1', uid: 'o-1', controller: true }],
      finalizers: ['a', 'b'], deletionGracePeriodSeconds: 30, generation: 3,
      managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }],
    },
    spec: { replicas: 3, template: { metadata: { name: 'not-this', managedFields: [1] } }, strings: ['}', '{', '"metadata":{'] },
    status: { conditions: [{ type: 'Available', status: 'True' }] },
  };
  const cases: [string, string][] = [
    ['a compact object as the store writes it', JSON.stringify(deployment)],
    ['the same with whitespace everywhere', JSON.stringify(deployment, null, 2).replace(/:/g, ' : ').replace(/,\n/g, ' ,\r\n\t')],
    ['metadata before kind and apiVersion, spec first', JSON.stringify({ spec: deployment.spec, metadata: deployment.metadata, apiVersion: 'v1', kind: 'X' })],
    ['no kind or apiVersion', JSON.stringify({ metadata: { name: 'n' }, data: { a: '1' } })],
    ['empty metadata', '{"kind":"ConfigMap","metadata":{}}'],
    ['numbers, booleans and null as values', '{"kind":"K","metadata":{"generation":12,"x":true,"y":null,"z":-1.5e3},"n":[1,2,{"a":false}]}'],
    ['duplicate members: the last wins, as in JSON.parse', '{"kind":"A","metadata":{"name":"first","name":"second","managedFields":[]},"kind":"B","metadata":{"name":"third","uid":"u"}}'],
    ['an escaped key', '{"\\u006bind":"Escaped","metadata":{"na\\u006de":"n","managed\\u0046ields":[{"manager":"m"}]}}'],
    ['escaped quotes and backslashes in strings', '{"kind":"K","metadata":{"name":"a\\\\","annotations":{"q":"\\"}\\\\\\""}},"data":{"k":"\\\\\\"{"}}'],
  ];
  for (const [name, text] of cases) {
    test(name, () => {
      assert.deepEqual(metadataViewOf(bytes(text)), expected(text));
    });
  }

  test('JSON whose keys never repeat: the scan stops once it has the three members', () => {
    const text = JSON.stringify(deployment);
    assert.deepEqual(metadataViewOf(bytes(text), { uniqueKeys: true }), expected(text));
    // What follows is not read: cut short, the bytes still give the view.
    const cut = text.slice(0, text.indexOf('"spec"') + 12);
    assert.equal(metadataViewOf(bytes(cut)), undefined);
    assert.deepEqual(metadataViewOf(bytes(cut), { uniqueKeys: true }), expected(text));
  });

  test('no view of what is not an object with object metadata', () => {
    for (const text of ['', '[]', '"x"', '{', '{"kind":"K"}', '{"metadata":null}', '{"metadata":[]}', '{"metadata":"m"}', '{"metadata":{"name":"n"', '{"metadata":{"name"}}', '{"metadata":{"a":1,}}', '{"metadata":{}} trailing', 'null']) {
      const view = metadataViewOf(bytes(text));
      if (view === undefined) continue;
      // A view may only come from bytes whose members it read whole.
      assert.fail(`a view of ${JSON.stringify(text)}: ${JSON.stringify(view)}`);
    }
  });
});
