// Service ClusterIP and NodePort allocation across replicas sharing one storage: what
// one replica hands out no other hands out again, even at the same moment, and what one
// releases another can take. The addresses are IPAddress objects naming their Service.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { needsKubectl, kubectl } from '../helpers/kubectl.ts';
import { startReplicas } from '../helpers/replicas.ts';
import type { TestServer } from '../helpers/server.ts';

function service(name: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } };
}

describe('Service allocation across two replicas on one storage', () => {
  let a: TestServer;
  let b: TestServer;

  before(async () => {
    [a, b] = (await startReplicas(2, { enableGarbageCollector: false })) as [TestServer, TestServer];
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  async function create(server: TestServer, namespace: string, body: Record<string, unknown>) {
    return server.request('POST', `/api/v1/namespaces/${namespace}/services`, { body });
  }

  test('Services created through both replicas at the same moment get distinct ClusterIPs and NodePorts, each with its IPAddress', async () => {
    const ns = await a.newNamespace('alloc');
    const perSide = 40;
    const writes = [a, b].flatMap((server, side) => Array.from({ length: perSide }, (_, i) => [
      create(server, ns, service(`ip-${side}-${i}`)),
      create(server, ns, service(`np-${side}-${i}`, { type: 'NodePort' })),
    ]).flat());
    const answers = await Promise.all(writes);
    for (const res of answers) assert.equal(res.status, 201, res.text);
    const specs = answers.map((res) => res.json.spec as { clusterIP: string; ports: { nodePort?: number }[] });
    const ips = specs.map((s) => s.clusterIP);
    assert.equal(new Set(ips).size, ips.length, `duplicate ClusterIPs: ${ips.filter((ip, i) => ips.indexOf(ip) !== i).join(', ')}`);
    const nodePorts = specs.flatMap((s) => s.ports.map((p) => p.nodePort)).filter((p): p is number => p !== undefined);
    assert.equal(nodePorts.length, 2 * perSide);
    assert.equal(new Set(nodePorts).size, nodePorts.length, `duplicate NodePorts: ${nodePorts.filter((p, i) => nodePorts.indexOf(p) !== i).join(', ')}`);

    // Each address is an IPAddress naming its Service, whichever replica is asked.
    const list = await b.request('GET', '/apis/networking.k8s.io/v1/ipaddresses');
    assert.equal(list.status, 200, list.text);
    const parents = new Map<string, unknown>((list.json.items as { metadata: { name: string }; spec: { parentRef: unknown } }[])
      .map((item) => [item.metadata.name, item.spec.parentRef]));
    answers.forEach((res) => {
      assert.deepEqual(parents.get(res.json.spec.clusterIP), { resource: 'services', namespace: ns, name: res.json.metadata.name });
    });
  });

  test('an address and a node port a Service holds are refused through the other replica until it is deleted', async () => {
    const ns = await a.newNamespace('alloc');
    const wanted = { type: 'NodePort', clusterIP: '10.96.0.200', ports: [{ port: 80, nodePort: 30200 }] };
    assert.equal((await create(a, ns, service('first', wanted))).status, 201);
    const refused = await create(b, ns, service('second', wanted));
    assert.equal(refused.status, 422, refused.text);
    assert.match(refused.json.message, /provided IP is already allocated/);
    const portOnly = await create(b, ns, service('third', { type: 'NodePort', ports: [{ port: 80, nodePort: 30200 }] }));
    assert.equal(portOnly.status, 422, portOnly.text);
    assert.match(portOnly.json.message, /provided port is already allocated/);

    const deleted = await a.request('DELETE', `/api/v1/namespaces/${ns}/services/first`);
    assert.equal(deleted.status, 200, deleted.text);
    const taken = await create(b, ns, service('second', wanted));
    assert.equal(taken.status, 201, taken.text);
    assert.equal(taken.json.spec.clusterIP, '10.96.0.200');
    assert.equal(taken.json.spec.ports[0].nodePort, 30200);
    const ip = await a.request('GET', '/apis/networking.k8s.io/v1/ipaddresses/10.96.0.200');
    assert.equal(ip.status, 200, ip.text);
    assert.deepEqual(ip.json.spec.parentRef, { resource: 'services', namespace: ns, name: 'second' });
  });

  test('changing a Service to ClusterIP through one replica frees its node port for the other', async () => {
    const ns = await a.newNamespace('alloc');
    const created = await create(a, ns, service('web', { type: 'NodePort', ports: [{ port: 80, nodePort: 30210 }] }));
    assert.equal(created.status, 201, created.text);
    const changed = await a.request('PUT', `/api/v1/namespaces/${ns}/services/web`, {
      body: { ...created.json, spec: { ...created.json.spec, type: 'ClusterIP', ports: [{ port: 80 }], externalTrafficPolicy: undefined } },
    });
    assert.equal(changed.status, 200, changed.text);
    const other = await create(b, ns, service('other', { type: 'NodePort', ports: [{ port: 80, nodePort: 30210 }] }));
    assert.equal(other.status, 201, other.text);
  });

  test('kubectl get ipaddresses shows each address with its parent Service', needsKubectl, async () => {
    const ns = await a.newNamespace('alloc');
    assert.equal((await create(b, ns, service('shown', { clusterIP: '10.96.0.201' }))).status, 201);
    const out = await kubectl(a, 'get', 'ipaddresses');
    assert.match(out, /^NAME\s+PARENTREF/m);
    assert.match(out, new RegExp(`^10\\.96\\.0\\.201\\s+services/${ns}/shown$`, 'm'));
    assert.match(out, /^10\.96\.0\.1\s+services\/default\/kubernetes$/m);
  });

  test('the default ServiceCIDR holds the configured range and is Ready', async () => {
    const res = await b.request('GET', '/apis/networking.k8s.io/v1/servicecidrs/kubernetes');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.spec, { cidrs: ['10.96.0.0/12'] });
    assert.deepEqual(res.json.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]), [['Ready', 'True']]);
  });
});
