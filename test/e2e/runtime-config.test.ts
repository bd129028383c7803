// --runtime-config end to end: what it turns off has no route, no discovery, no OpenAPI and
// no APIService, while the server's own use of it goes on; a bad value refuses the start.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../helpers/server.ts';
import { kubectl, needsKubectl } from '../helpers/kubectl.ts';

test('a group version and a resource turned off are not served, discovered, documented or registered', async (t) => {
  const server = await startServer({ runtimeConfig: new Map([['batch/v1', 'false'], ['apps/v1/daemonsets', 'false']]) });
  t.after(() => server.stop());
  assert.equal((await server.request('GET', '/apis/batch/v1/jobs')).status, 404);
  assert.equal((await server.request('POST', '/apis/batch/v1/namespaces/default/jobs', { body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' } } })).status, 404);
  assert.equal((await server.request('GET', '/apis/batch/v1')).status, 404);
  assert.equal((await server.request('GET', '/apis/apps/v1/daemonsets')).status, 404);
  assert.equal((await server.request('GET', '/apis/apps/v1/deployments')).status, 200);

  const groups = (await server.request('GET', '/apis')).json.groups.map((g: { name: string }) => g.name);
  assert.ok(!groups.includes('batch') && groups.includes('apps'));
  const apps = (await server.request('GET', '/apis/apps/v1')).json.resources.map((r: { name: string }) => r.name);
  assert.ok(!apps.includes('daemonsets') && apps.includes('deployments') && apps.includes('deployments/scale'), apps.join(' '));
  const aggregated = await server.request('GET', '/apis', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
  assert.ok(!aggregated.json.items.some((g: { metadata: { name: string } }) => g.metadata.name === 'batch'));
  const openapi = Object.keys((await server.request('GET', '/openapi/v3')).json.paths);
  assert.ok(!openapi.includes('apis/batch/v1') && openapi.includes('apis/apps/v1'));
  assert.equal((await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.batch')).status, 404);
  assert.equal((await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps')).status, 200);

  // The server's own work with them goes on: a namespace still deletes.
  const ns = await server.newNamespace('runtime-config');
  assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}`)).status, 200);
});

test('kubectl api-resources leaves out what is turned off', needsKubectl, async (t) => {
  const server = await startServer({ runtimeConfig: new Map([['batch/v1', 'false']]) });
  t.after(() => server.stop());
  const listed = await kubectl(server, 'api-resources', '-o', 'name');
  assert.ok(!/^jobs\.batch$/m.test(listed) && /^deployments\.apps$/m.test(listed), listed);
});

test('a value upstream refuses refuses the start', async () => {
  await assert.rejects(startServer({ runtimeConfig: new Map([['nothing.example/v1', 'false']]) }), /unknown api groups nothing\.example/);
  await assert.rejects(startServer({ runtimeConfig: new Map([['batch/v2', 'true']]) }), /group version batch\/v2 is not served by Plinth/);
});
