// Events live for --event-ttl after their last write, as kube-apiserver stores them (an
// etcd lease per write): both APIs' Events go, watchers see them deleted, nothing else does.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../helpers/server.ts';

test('Events of both APIs are deleted once --event-ttl passes after their last write; watchers see DELETED; other objects stay', async (t) => {
  const server = await startServer({ storage: 'sqlite', eventTtlSeconds: 1 });
  t.after(() => server.stop());
  const ns = await server.newNamespace('event-ttl');
  const created = await Promise.all([
    server.request('POST', `/api/v1/namespaces/${ns}/events`, {
      body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'core' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'Tested', message: 'core/v1', type: 'Normal' },
    }),
    server.request('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
      body: {
        apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'new' }, eventTime: '2026-11-30T00:00:00.000000Z',
        reportingController: 'plinth.test/ttl', reportingInstance: 'plinth-test', action: 'Test', reason: 'Tested', regarding: { kind: 'Pod', name: 'p', namespace: ns }, type: 'Normal',
      },
    }),
    server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stays' } } }),
  ]);
  assert.deepEqual(created.map((r) => r.status), [201, 201, 201], created.map((r) => r.text).join('\n'));
  const listed = await server.request('GET', `/api/v1/namespaces/${ns}/events`);
  assert.deepEqual((listed.json as { items: Array<{ metadata: { name: string } }> }).items.map((e) => e.metadata.name), ['core', 'new']);
  const from = (listed.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

  const watched = await server.request('GET', `/api/v1/namespaces/${ns}/events?watch=1&resourceVersion=${from}&timeoutSeconds=4`);
  const events = watched.text.trim().split('\n').map((line) => JSON.parse(line) as { type: string; object: { kind: string; metadata: { name: string; resourceVersion: string } } });
  assert.deepEqual(events.map((e) => [e.type, e.object.kind, e.object.metadata.name]).sort(), [['DELETED', 'Event', 'core'], ['DELETED', 'Event', 'new']]);
  for (const e of events) assert.ok(BigInt(e.object.metadata.resourceVersion) > BigInt(from), 'a deletion has a revision of its own');

  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/events/core`)).status, 404);
  assert.equal((await server.request('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events/new`)).status, 404);
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/stays`)).status, 200);
});
