import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { isStatusError } from '../../../src/api/index.ts';
import { ServiceAllocator } from '../../../src/registry/builtin/service-allocator.ts';
import { builtinType, storeCreate } from '../../helpers/store.ts';

/** Services without an allocator: what the Store stores before allocation. */
const { allocator: _allocator, ...unallocated } = builtinType('services');

/** A service as the Store leaves it before allocation. */
async function svc(name: string, spec: Record<string, unknown> = {}): Promise<KubeObject> {
  const { obj, causes } = await storeCreate(unallocated, { metadata: { name, namespace: 'default' }, spec: { ports: [{ port: 80 }], ...spec } });
  assert.deepEqual(causes, []);
  return obj;
}

function spec(obj: KubeObject): Record<string, any> {
  return obj.spec as Record<string, any>;
}

function rejects(fn: () => void, code: number, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(isStatusError(err));
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  });
}

test('the first address of the range is kept for the kubernetes service', async () => {
  const alloc = new ServiceAllocator({ serviceClusterIPRange: '10.96.0.0/12' });
  assert.equal(alloc.kubernetesServiceIP, '10.96.0.1');
  assert.ok(alloc.isIPAllocated('10.96.0.1'));
  const serviceA = await svc('a', { clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'] });
  rejects(
    () => alloc.allocate(serviceA),
    422,
    'Service "a" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated',
  );
  const kubernetes: KubeObject = { metadata: { name: 'kubernetes', namespace: 'default' }, spec: { clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ipFamilies: ['IPv4'], ports: [{ port: 443 }] } };
  alloc.allocate(kubernetes);
});

test('dynamic addresses come from past the static band, in order', async () => {
  const alloc = new ServiceAllocator({ serviceClusterIPRange: '10.96.0.0/12' });
  const a = await svc('a');
  const b = await svc('b');
  alloc.allocate(a);
  alloc.allocate(b);
  assert.equal(spec(a).clusterIP, '10.96.1.1');
  assert.deepEqual(spec(a).clusterIPs, ['10.96.1.1']);
  assert.equal(spec(b).clusterIP, '10.96.1.2');
});

test('a requested address is honoured', async () => {
  const alloc = new ServiceAllocator();
  const dns = await svc('kube-dns', { clusterIP: '10.96.0.10' });
  alloc.allocate(dns);
  assert.deepEqual(spec(dns).clusterIPs, ['10.96.0.10']);
  assert.ok(alloc.isIPAllocated('10.96.0.10'));
});

test('a requested address already taken is refused with 422', async () => {
  const alloc = new ServiceAllocator();
  alloc.allocate(await svc('a', { clusterIP: '10.96.0.10' }));
  const serviceB = await svc('b', { clusterIP: '10.96.0.10' });
  rejects(
    () => alloc.allocate(serviceB),
    422,
    'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
  );
});

test('a requested address outside the range is refused with 422', async () => {
  const alloc = new ServiceAllocator({ serviceClusterIPRange: '10.96.0.0/12' });
  const serviceA = await svc('a', { clusterIP: '192.168.0.1' });
  rejects(
    () => alloc.allocate(serviceA),
    422,
    'Service "a" is invalid: spec.clusterIPs: Invalid value: []string{"192.168.0.1"}: failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
  );
  // The network and broadcast addresses are not in the range either.
  const tiny = new ServiceAllocator({ serviceClusterIPRange: '10.0.0.0/29' });
  const serviceN = await svc('n', { clusterIP: '10.0.0.0' });
  assert.throws(() => tiny.allocate(serviceN), /not in the valid range/);
  const serviceB = await svc('b', { clusterIP: '10.0.0.7' });
  assert.throws(() => tiny.allocate(serviceB), /not in the valid range/);
});

test('headless and ExternalName services get no address', async () => {
  const alloc = new ServiceAllocator();
  const headless = await svc('h', { clusterIP: 'None' });
  alloc.allocate(headless);
  assert.deepEqual(spec(headless).clusterIPs, ['None']);
  const external = await svc('e', { type: 'ExternalName', externalName: 'example.com' });
  alloc.allocate(external);
  assert.equal(spec(external).clusterIP, undefined);
});

test('a tiny range runs out with a 500 like upstream, and a release frees an address', async () => {
  // /29: 8 addresses, less network, broadcast and the kubernetes service: 5 to hand out.
  const alloc = new ServiceAllocator({ serviceClusterIPRange: '10.0.0.0/29' });
  const made: KubeObject[] = [];
  for (const n of ['a', 'b', 'c', 'd', 'e']) {
    const s = await svc(n);
    alloc.allocate(s);
    made.push(s);
  }
  assert.deepEqual(made.map((s) => spec(s).clusterIP), ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
  const serviceF = await svc('f');
  rejects(() => alloc.allocate(serviceF), 500, 'Internal error occurred: failed to allocate a serviceIP: range is full');
  alloc.release(made[2]!);
  assert.ok(!alloc.isIPAllocated('10.0.0.4'));
  const g = await svc('g');
  alloc.allocate(g);
  assert.equal(spec(g).clusterIP, '10.0.0.4');
});

test('a failed allocation reserves nothing', async () => {
  const alloc = new ServiceAllocator({ serviceNodePortRange: '30000-30010' });
  alloc.allocate(await svc('a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }));
  const b = await svc('b', { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'alt', port: 81, nodePort: 30005 }] });
  assert.throws(() => alloc.allocate(b), /provided port is already allocated/);
  assert.ok(!alloc.isIPAllocated('10.96.1.2'));
  assert.ok(!alloc.isNodePortAllocated(30000));
});

test('a dry run fills in values but reserves nothing', async () => {
  const alloc = new ServiceAllocator();
  const a = await svc('a', { type: 'NodePort' });
  alloc.allocate(a, { dryRun: true });
  assert.equal(spec(a).clusterIP, '10.96.1.1');
  assert.equal(spec(a).ports[0].nodePort, 30086);
  assert.ok(!alloc.isIPAllocated('10.96.1.1'));
  assert.ok(!alloc.isNodePortAllocated(30086));
});

test('NodePort services get a node port for each port lacking one', async () => {
  const alloc = new ServiceAllocator();
  const s = await svc('a', { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443, nodePort: 30443 }] });
  alloc.allocate(s);
  assert.deepEqual(spec(s).ports.map((p: { nodePort: number }) => p.nodePort), [30086, 30443]);
  assert.ok(alloc.isNodePortAllocated(30443));
});

test('ports with the same number share a node port', async () => {
  const alloc = new ServiceAllocator();
  const s = await svc('dns', { type: 'NodePort', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP', nodePort: 30053 }] });
  alloc.allocate(s);
  assert.deepEqual(spec(s).ports.map((p: { nodePort: number }) => p.nodePort), [30053, 30053]);
});

test('a requested node port taken or out of range is refused with 422', async () => {
  const alloc = new ServiceAllocator();
  alloc.allocate(await svc('a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }));
  const serviceB = await svc('b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] });
  rejects(
    () => alloc.allocate(serviceB),
    422,
    'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
  );
  const serviceC = await svc('c', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] });
  rejects(
    () => alloc.allocate(serviceC),
    422,
    'Service "c" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
  );
});

test('node ports run out with a 500', async () => {
  const alloc = new ServiceAllocator({ serviceNodePortRange: '30000-30001' });
  alloc.allocate(await svc('a', { type: 'NodePort', ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] }));
  const serviceB = await svc('b', { type: 'NodePort' });
  rejects(() => alloc.allocate(serviceB), 500, 'Internal error occurred: failed to allocate a nodePort: range is full');
});

test('LoadBalancer services with externalTrafficPolicy Local get a health check node port', async () => {
  const alloc = new ServiceAllocator({ serviceNodePortRange: '30000-30009' });
  const s = await svc('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' });
  alloc.allocate(s);
  assert.equal(spec(s).ports[0].nodePort, 30000);
  assert.equal(spec(s).healthCheckNodePort, 30001);
  const noPorts = await svc('lb2', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false });
  alloc.allocate(noPorts);
  assert.equal(spec(noPorts).ports[0].nodePort, undefined);
});

test('release frees addresses and ports; restore rebuilds from stored services', async () => {
  const alloc = new ServiceAllocator();
  const a = await svc('a', { type: 'NodePort' });
  const b = await svc('b', { clusterIP: '10.96.0.10' });
  alloc.allocate(a);
  alloc.allocate(b);
  alloc.release(a);
  assert.ok(!alloc.isIPAllocated(spec(a).clusterIP));
  assert.ok(!alloc.isNodePortAllocated(spec(a).ports[0].nodePort));

  const restored = new ServiceAllocator();
  restored.restore([a, b]);
  assert.ok(restored.isIPAllocated('10.96.1.1'));
  assert.ok(restored.isIPAllocated('10.96.0.10'));
  assert.ok(restored.isNodePortAllocated(30086));
  assert.ok(restored.isIPAllocated('10.96.0.1'));
  const c = await svc('c', { type: 'NodePort' });
  restored.allocate(c);
  assert.equal(spec(c).clusterIP, '10.96.1.2');
  assert.equal(spec(c).ports[0].nodePort, 30087);
});

test('release leaves alone what another service holds', async () => {
  const alloc = new ServiceAllocator();
  const a = await svc('a', { clusterIP: '10.96.0.10' });
  alloc.allocate(a);
  const impostor = await svc('b', { clusterIP: '10.96.0.10' });
  alloc.release(impostor);
  assert.ok(alloc.isIPAllocated('10.96.0.10'));
});

test('reallocate keeps what stays, reserves what is new, frees what is gone, and can be undone', async () => {
  const alloc = new ServiceAllocator();
  const old = await svc('a', { type: 'NodePort' });
  alloc.allocate(old);
  const next = structuredClone(old);
  spec(next).type = 'ClusterIP';
  delete spec(next).ports[0].nodePort;
  spec(next).ports.push({ port: 81 });
  const undo = alloc.reallocate(next, old);
  assert.ok(alloc.isIPAllocated('10.96.1.1'));
  assert.ok(!alloc.isNodePortAllocated(30086));
  undo();
  assert.ok(alloc.isNodePortAllocated(30086));
  // The reverse call works as well as the undo.
  const grown = structuredClone(old);
  spec(grown).ports.push({ port: 443 });
  alloc.reallocate(grown, old);
  assert.equal(spec(grown).ports[1].nodePort, 30087);
  alloc.reallocate(old, grown);
  assert.ok(!alloc.isNodePortAllocated(30087));
  assert.ok(alloc.isNodePortAllocated(30086));
});

test('reallocate to ExternalName releases the address; back to ClusterIP allocates one', async () => {
  const alloc = new ServiceAllocator();
  const old = await svc('a');
  alloc.allocate(old);
  const external = structuredClone(old);
  spec(external).type = 'ExternalName';
  delete spec(external).clusterIP;
  delete spec(external).clusterIPs;
  alloc.reallocate(external, old);
  assert.ok(!alloc.isIPAllocated('10.96.1.1'));
  const back = structuredClone(old);
  delete spec(back).clusterIP;
  delete spec(back).clusterIPs;
  alloc.reallocate(back, external);
  assert.equal(spec(back).clusterIP, '10.96.1.1');
});

test('a dual-stack range allocates one address per family', async () => {
  const alloc = new ServiceAllocator({ serviceClusterIPRange: '10.96.0.0/16,fd00:10:96::/112' });
  assert.deepEqual(alloc.families, ['IPv4', 'IPv6']);
  const rt = builtinType('services', { serviceClusterIPRange: '10.96.0.0/16,fd00:10:96::/112' });
  const { obj, causes } = await storeCreate(rt, { metadata: { name: 'ds', namespace: 'default' }, spec: { ipFamilyPolicy: 'PreferDualStack', ports: [{ port: 80 }] } });
  assert.deepEqual(causes, []);
  assert.deepEqual(spec(obj).ipFamilies, ['IPv4', 'IPv6']);
  alloc.allocate(obj);
  assert.deepEqual(spec(obj).clusterIPs, ['10.96.1.1', 'fd00:10:96::101']);
});
