// resource.k8s.io through a fresh server: a DeviceClass's and a ResourceClaim's CEL
// selectors are compiled when written (the strategies load CEL first), the claim gets its
// defaults, and what upstream refuses is a 422 with its causes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const selector = (expression: string) => ({ cel: { expression } });

test('a DeviceClass and a ResourceClaim with CEL selectors, on a server that has not loaded CEL yet', async () => {
  const classes = '/apis/resource.k8s.io/v1/deviceclasses';
  const created = await server.request('POST', classes, {
    body: { metadata: { name: 'gpu.example.com' }, spec: { selectors: [selector("device.driver == 'gpu.example.com'")] } },
  });
  assert.equal(created.status, 201, created.text);
  const refused = await server.request('POST', classes, { body: { metadata: { name: 'broken.example.com' }, spec: { selectors: [selector('device.driver ==')] } } });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.json.details.causes[0].field, 'spec.selectors[0].cel.expression');
  assert.match(refused.json.details.causes[0].message, /compilation failed/);

  const claims = '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims';
  const claim = await server.request('POST', claims, {
    body: { metadata: { name: 'one-gpu' }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } } },
  });
  assert.equal(claim.status, 201, claim.text);
  // Upstream's defaults: one device, ExactCount.
  assert.deepEqual(
    { mode: claim.json.spec.devices.requests[0].exactly.allocationMode, count: claim.json.spec.devices.requests[0].exactly.count },
    { mode: 'ExactCount', count: 1 },
  );
  const bad = await server.request('POST', claims, {
    body: { metadata: { name: 'bad' }, spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', selectors: [selector('1 + 1')] } }] } } },
  });
  assert.equal(bad.status, 422, bad.text);
  assert.match(bad.json.details.causes[0].message, /must evaluate to bool or the unknown type, not int/);
});
