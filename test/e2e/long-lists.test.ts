// Bodies with lists of 150,000 to 200,000 entries, each a problem, against a real server: the
// answer is upstream's refusal (422 with a cause per entry, or PodSecurity's 403), never a
// 500 from a stack overflowed by `push(...list)` on the way to it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

const entries = 200_000;

test('a Pod whose tolerations annotation holds 200,000 tolerations without a key answers 422 with a cause for each', async () => {
  const ns = await server.newNamespace('long-tolerations');
  const annotation = 'scheduler.alpha.kubernetes.io/tolerations';
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, {
    body: {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'tolerant', annotations: { [annotation]: `[${new Array(entries).fill('{}').join(',')}]` } },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    },
  });
  assert.equal(res.status, 422, res.text.slice(0, 500));
  const causes: { field: string; message: string }[] = res.json.details.causes;
  const operator = (i: number) => `metadata.annotations.${annotation}[${i}].operator`;
  const mustExist = 'Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys"';
  assert.equal(causes.filter((c) => c.message === mustExist).length, entries);
  assert.deepEqual(causes.find((c) => c.message === mustExist), { reason: 'FieldValueInvalid', message: mustExist, field: operator(0) });
  assert.equal(causes.findLast((c) => c.message === mustExist)?.field, operator(entries - 1));
});

test('a Pod adding 200,000 capabilities in a restricted namespace is refused by PodSecurity, each capability named once', async () => {
  const ns = 'long-capabilities';
  const created = await server.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
  });
  assert.equal(created.status, 201, created.text);
  const securityContext = {
    allowPrivilegeEscalation: false, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' },
    capabilities: { drop: ['ALL'], add: Array.from({ length: entries }, (_, i) => (i % 2 === 0 ? 'SYS_ADMIN' : 'NET_ADMIN')) },
  };
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, {
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'capable' }, spec: { containers: [{ name: 'app', image: 'nginx', securityContext }] } },
  });
  assert.equal(res.status, 403, res.text.slice(0, 500));
  assert.equal(res.json.message, 'pods "capable" is forbidden: violates PodSecurity "restricted:latest": '
    + 'unrestricted capabilities (container "app" must not include "NET_ADMIN", "SYS_ADMIN" in securityContext.capabilities.add)');
});

test('a ResourceClaim requesting a device with 150,000 tolerations of an unknown operator answers 422 with a cause for each', async () => {
  // 150,000: what fits in a 3 MB body.
  const tolerations = 150_000;
  const ns = await server.newNamespace('long-device-tolerations');
  const res = await server.request('POST', `/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims`, {
    body: {
      apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'tolerant' },
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', tolerations: new Array(tolerations).fill({ operator: 'X' }) } }] } },
    },
  });
  assert.equal(res.status, 422, res.text.slice(0, 500));
  const causes: { reason: string; field: string; message: string }[] = res.json.details.causes;
  const operator = (i: number) => `spec.devices.requests[0].exactly.tolerations[${i}].operator`;
  assert.equal(causes.length, tolerations);
  assert.deepEqual([causes[0], causes.at(-1)], [
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "X": supported values: "Equal", "Exists"', field: operator(0) },
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "X": supported values: "Equal", "Exists"', field: operator(tolerations - 1) },
  ]);
});
