// The kubernetes Service's endpoints with several replicas (--endpoint-reconciler-type lease,
// upstream's default): every live replica's address, one that stops taken out at once, one
// whose lease lapses (it died) dropped then; with `none`, no endpoints at all.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBackend } from '../../src/storage/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { sharedBackend } from '../helpers/replicas.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const fast = { endpointLeaseTtlSeconds: 2, endpointReconcileIntervalMs: 200 };

async function addresses(server: TestServer): Promise<{ endpoints: string[]; slice: string[] }> {
  const endpoints = (await server.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).json;
  const slice = (await server.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).json;
  return {
    endpoints: endpoints.subsets[0].addresses.map((a: { ip: string }) => a.ip),
    slice: slice.endpoints.map((e: { addresses: string[] }) => e.addresses[0]),
  };
}

test('every replica\'s address is in the kubernetes endpoints; one that stops is taken out, one whose lease lapses is dropped', async (t) => {
  const backend = new MemoryBackend();
  const [forA, forB] = sharedBackend(backend, 2);
  const a = await startServer({ ...fast, advertiseAddress: '10.0.0.1' }, { backend: forA! });
  t.after(() => a.stop());
  const b = await startServer({ ...fast, advertiseAddress: '10.0.0.2' }, { backend: forB! });
  // Stopped below; here too should an assertion fail first (a second stop is a no-op).
  t.after(() => b.stop());
  await eventually(async () => assert.deepEqual(await addresses(a), { endpoints: ['10.0.0.1', '10.0.0.2'], slice: ['10.0.0.1', '10.0.0.2'] }));
  await b.stop();
  assert.deepEqual(await addresses(a), { endpoints: ['10.0.0.1'], slice: ['10.0.0.1'] });
  // A replica that died leaves its lease behind: it counts until the lease lapses.
  await backend.create('/registry/masterleases/10.0.0.9', Buffer.from('{}'), { ttlSeconds: 1 });
  await eventually(async () => assert.deepEqual((await addresses(a)).endpoints, ['10.0.0.1', '10.0.0.9']));
  await eventually(async () => assert.deepEqual((await addresses(a)).endpoints, ['10.0.0.1']), { timeoutMs: 5000 });
});

test('--endpoint-reconciler-type none: the Service is made, its endpoints are not', async (t) => {
  const server = await startServer({ ...fast, endpointReconcilerType: 'none' });
  t.after(() => server.stop());
  assert.equal((await server.request('GET', '/api/v1/namespaces/default/services/kubernetes')).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal((await server.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).status, 404);
  assert.equal((await server.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).status, 404);
});
