// A write's JSON answer is made from the bytes it stored (the resourceVersion inserted),
// not by encoding the object again: the same bytes a GET then answers.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer({ storage: 'sqlite' });
});
after(() => server.stop());

test('create, update, patch and apply answer the stored JSON, byte for byte what a get answers', async () => {
  const ns = await server.newNamespace('answers');
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  // Keys in an order the stored form does not keep (kind, apiVersion and metadata come first there).
  const writes: Array<() => Promise<{ status: number; text: string; json: any }>> = [
    () => server.request('POST', path, { body: { data: { b: '2', a: '1' }, metadata: { labels: { z: 'y' }, name: 'c' }, apiVersion: 'v1', kind: 'ConfigMap' } }),
    async () => server.request('PUT', `${path}/c`, { body: { ...(await server.request('GET', `${path}/c`)).json, data: { b: '3' } } }),
    () => server.request('PATCH', `${path}/c`, { body: { data: { c: '4' } }, headers: { 'content-type': 'application/merge-patch+json' } }),
    () => server.request('PATCH', `${path}/c?fieldManager=me&force=true`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { d: '5' } }, headers: { 'content-type': 'application/apply-patch+yaml' } }),
  ];
  for (const write of writes) {
    const answer = await write();
    assert.ok(answer.status === 200 || answer.status === 201, answer.text);
    const got = await server.request('GET', `${path}/c`);
    assert.equal(got.status, 200, got.text);
    assert.equal(answer.text, got.text);
    assert.match(answer.text, /^\{"kind":"ConfigMap","apiVersion":"v1","metadata":\{"resourceVersion":"\d+",/);
  }
  // Pretty JSON and YAML are still encoded for the answer.
  const pretty = await server.request('PATCH', `${path}/c?pretty=true`, { body: { data: { e: '6' } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.match(pretty.text, /^\{\n {2}"kind": "ConfigMap"/);
  assert.equal(pretty.json.data.e, '6');
});
