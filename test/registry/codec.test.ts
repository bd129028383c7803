import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFromStorage, encodeForStorage, storedJsonWithResourceVersion } from '../../src/registry/codec.ts';

const kvOf = (obj: any, modRevision: number) => ({ key: '/registry/x', value: encodeForStorage(obj), createRevision: 1, modRevision });

const cases: [string, any][] = [
  ['an object with metadata', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', labels: { x: '"metadata":{' } }, data: { k: 'v' } }],
  ['an object with empty metadata', { kind: 'ConfigMap', apiVersion: 'v1', metadata: {}, data: {} }],
  ['an object whose kind mentions metadata', { kind: '"metadata":{', apiVersion: 'v1', metadata: { name: 'b' } }],
];
for (const [name, obj] of cases) {
  test(`the JSON made from stored bytes equals the decoded object: ${name}`, () => {
    const kv = kvOf(obj, 42);
    const json = storedJsonWithResourceVersion(kv);
    assert.ok(json);
    assert.deepEqual(JSON.parse(Buffer.from(json).toString()), decodeFromStorage(kv));
  });
}

test('the JSON made from stored bytes is made once per revision: a write\'s answer and the cache share it', () => {
  const value = encodeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' }, data: { k: 'v' } } as any);
  const written = { key: '/registry/x', value, createRevision: 7, modRevision: 7 };
  const first = storedJsonWithResourceVersion(written);
  assert.equal(storedJsonWithResourceVersion({ ...written }), first);
  // The same bytes at another revision (a delete's event keeps the last value) show that revision.
  const deleted = storedJsonWithResourceVersion({ ...written, modRevision: 9 });
  assert.notEqual(deleted, first);
  assert.equal(JSON.parse(Buffer.from(deleted!).toString()).metadata.resourceVersion, '9');
  assert.equal(JSON.parse(Buffer.from(first!).toString()).metadata.resourceVersion, '7');
});
