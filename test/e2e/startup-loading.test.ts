// Start-up on existing data: the server is ready before every watch cache has loaded;
// reads of a type still loading read through or wait, never answer short, and the
// in-process controllers see everything stored before the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../src/api/index.ts';
import { encodeForStorage } from '../../src/registry/codec.ts';
import { eventually } from '../helpers/eventually.ts';
import { GatedBackend } from '../helpers/gated-backend.ts';
import { openStream, startServer } from '../helpers/server.ts';

const CONFIGMAPS = '/registry/configmaps/';

async function store(backend: GatedBackend, key: string, object: KubeObject): Promise<void> {
  object.metadata.uid ??= randomUUID();
  object.metadata.creationTimestamp ??= new Date().toISOString();
  await backend.create(key, encodeForStorage(object));
}

/** A backend holding namespaces `held` (five ConfigMaps) and `doomed` (terminating, two ConfigMaps), stored before the server starts. */
async function existingData(): Promise<GatedBackend> {
  const backend = new GatedBackend();
  await store(backend, '/registry/namespaces/held', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'held' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  await store(backend, '/registry/namespaces/doomed', {
    apiVersion: 'v1', kind: 'Namespace',
    metadata: { name: 'doomed', deletionTimestamp: new Date().toISOString() },
    spec: { finalizers: ['kubernetes'] }, status: { phase: 'Terminating' },
  });
  for (let i = 0; i < 5; i++) {
    await store(backend, `${CONFIGMAPS}held/cm-${i}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'held' }, data: { i: String(i) } });
  }
  for (let i = 0; i < 2; i++) {
    await store(backend, `${CONFIGMAPS}doomed/d-${i}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `d-${i}`, namespace: 'doomed' } });
  }
  return backend;
}

const names = (list: { items: KubeObject[] }): string[] => list.items.map((o) => o.metadata.name!).sort();

test('readiness, reads and watches while a type\'s cache is still loading', async (t) => {
  const backend = await existingData();
  // The ConfigMaps cache's load (a list of the whole prefix) waits until released.
  backend.hold(CONFIGMAPS);
  const server = await startServer({}, { backend });
  t.after(() => server.stop());

  const ready = await server.request('GET', '/readyz');
  assert.equal(ready.status, 200);
  assert.equal(ready.text, 'ok');
  assert.equal(backend.listCalls(CONFIGMAPS), 1, 'the ConfigMaps cache is loading');

  // A get reads through to storage.
  const got = await server.request('GET', '/api/v1/namespaces/held/configmaps/cm-3');
  assert.equal(got.status, 200, got.text);
  assert.deepEqual(got.json.data, { i: '3' });
  const missing = await server.request('GET', '/api/v1/namespaces/held/configmaps/none');
  assert.equal(missing.status, 404);

  // A list with a limit (and no selector) reads through, in pages.
  const first = await server.request('GET', '/api/v1/namespaces/held/configmaps?limit=3');
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(names(first.json), ['cm-0', 'cm-1', 'cm-2']);
  assert.equal(first.json.metadata.remainingItemCount, 2);
  const rest = await server.request('GET', `/api/v1/namespaces/held/configmaps?limit=3&continue=${encodeURIComponent(first.json.metadata.continue)}`);
  assert.equal(rest.status, 200, rest.text);
  assert.deepEqual(names(rest.json), ['cm-3', 'cm-4']);

  // Writes work while the cache loads.
  const created = await server.request('POST', '/api/v1/namespaces/held/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' } } });
  assert.equal(created.status, 201, created.text);

  // A full list, a list with a selector and a watch wait for the load: none answers short.
  const fullList = server.request('GET', '/api/v1/namespaces/held/configmaps');
  const selected = server.request('GET', '/api/v1/namespaces/held/configmaps?fieldSelector=metadata.name%3Dcm-4');
  const watch = openStream(server, '/api/v1/namespaces/held/configmaps?watch=1');
  backend.release(CONFIGMAPS);

  const full = await fullList;
  assert.equal(full.status, 200, full.text);
  assert.deepEqual(names(full.json), ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'new']);
  const one = await selected;
  assert.equal(one.status, 200, one.text);
  assert.deepEqual(names(one.json), ['cm-4']);
  const stream = await watch;
  t.after(() => stream.close());
  assert.equal(stream.status, 200);
  const initial: string[] = [];
  for (let i = 0; i < 6; i++) {
    const event = await stream.next();
    assert.equal(event.type, 'ADDED');
    initial.push(event.object.metadata.name);
  }
  assert.deepEqual(initial.sort(), ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'new']);
});

test('the namespace controller sees the objects stored before the start, even those of a cache still loading', async (t) => {
  const backend = await existingData();
  backend.hold(CONFIGMAPS);
  const server = await startServer({}, { backend });
  t.after(() => server.stop());
  assert.equal((await server.request('GET', '/readyz')).status, 200);
  // The terminating namespace cannot go before its ConfigMaps, which the controller
  // lists from the ConfigMaps cache: it waits for the load and then deletes them.
  backend.release(CONFIGMAPS);
  await eventually(async () => {
    assert.equal((await server.request('GET', '/api/v1/namespaces/doomed')).status, 404);
  }, { what: 'the terminating namespace to be removed' });
  assert.equal(await backend.get(`${CONFIGMAPS}doomed/d-0`), undefined);
  assert.equal(await backend.get(`${CONFIGMAPS}doomed/d-1`), undefined);
  const held = await server.request('GET', '/api/v1/namespaces/held/configmaps');
  assert.deepEqual(names(held.json), ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
  // The ServiceAccount controller saw the namespace stored before the start too.
  await eventually(async () => {
    assert.equal((await server.request('GET', '/api/v1/namespaces/held/serviceaccounts/default')).status, 200);
  }, { what: 'the default ServiceAccount of a namespace stored before the start' });
});
