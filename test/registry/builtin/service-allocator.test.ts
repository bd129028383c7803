// The Service allocator over a storage backend: ClusterIPs as IPAddress objects created
// only when absent, NodePorts in a RangeAllocation record written with compare-and-swap;
// several allocators on one backend stand for replicas sharing one etcd.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { isStatusError } from '../../../src/api/index.ts';
import { decodeFromStorage, encodeForStorage } from '../../../src/registry/codec.ts';
import { ipAddressesPrefix } from '../../../src/registry/builtin/ip-address-allocator.ts';
import { nodePortsKey } from '../../../src/registry/builtin/node-port-allocator.ts';
import { ServiceAllocator, type ServiceRanges } from '../../../src/registry/builtin/service-allocator.ts';
import type { Backend } from '../../../src/storage/backend.ts';
import { EtcdBackend } from '../../../src/storage/etcd.ts';
import { MemoryBackend } from '../../../src/storage/memory.ts';
import { etcdUnavailable, startEtcd, type TestEtcd } from '../../helpers/etcd.ts';
import { builtinType, storeCreate } from '../../helpers/store.ts';

/** Services without an allocator: what the Store stores before allocation. */
const { allocatorFor: _allocatorFor, ...unallocated } = builtinType('services');

/** A service as the Store leaves it before allocation. */
async function svc(name: string, spec: Record<string, unknown> = {}): Promise<KubeObject> {
  const { obj, causes } = await storeCreate(unallocated, { metadata: { name, namespace: 'default' }, spec: { ports: [{ port: 80 }], ...spec } });
  assert.deepEqual(causes, []);
  return obj;
}

function spec(obj: KubeObject): Record<string, any> {
  return obj.spec as Record<string, any>;
}

/** An allocator over a backend of its own, or over `backend` (another replica's). */
function allocator(ranges: ServiceRanges = {}, backend: Backend = new MemoryBackend()): ServiceAllocator {
  return new ServiceAllocator(ranges, backend);
}

async function rejects(p: Promise<unknown>, code: number, message: string | RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(isStatusError(err));
    assert.equal(err.code, code);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

async function ipAddress(backend: MemoryBackend, name: string): Promise<KubeObject | undefined> {
  const kv = await backend.get(ipAddressesPrefix + name);
  return kv === undefined ? undefined : decodeFromStorage(kv);
}

test('the first address of the range is kept for the kubernetes service', async () => {
  const backend = new MemoryBackend();
  const alloc = allocator({ serviceClusterIPRange: '10.96.0.0/12' }, backend);
  assert.equal(alloc.kubernetesServiceIP, '10.96.0.1');
  const serviceA = await svc('a', { clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'] });
  await rejects(
    alloc.allocate(serviceA),
    422,
    'Service "a" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.1"]: failed to allocate IP 10.96.0.1: provided IP is already allocated',
  );
  const kubernetes: KubeObject = { metadata: { name: 'kubernetes', namespace: 'default' }, spec: { clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ipFamilies: ['IPv4'], ports: [{ port: 443 }] } };
  await alloc.allocate(kubernetes);
  assert.ok(await alloc.isIPAllocated('10.96.0.1'));
});

test('an allocated address is an IPAddress object naming its Service, as upstream makes it', async () => {
  const backend = new MemoryBackend();
  const alloc = allocator({}, backend);
  await alloc.allocate(await svc('web', { clusterIP: '10.96.0.10' }));
  const stored = await ipAddress(backend, '10.96.0.10');
  assert.ok(stored);
  assert.equal(stored.apiVersion, 'networking.k8s.io/v1');
  assert.equal(stored.kind, 'IPAddress');
  assert.equal(stored.metadata.name, '10.96.0.10');
  assert.ok(stored.metadata.uid);
  assert.ok(stored.metadata.creationTimestamp);
  assert.deepEqual(stored.metadata.labels, { 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' });
  assert.deepEqual(stored.spec, { parentRef: { resource: 'services', namespace: 'default', name: 'web' } });
});

test('dynamic addresses come from past the static band, in order', async () => {
  const alloc = allocator({ serviceClusterIPRange: '10.96.0.0/12' });
  const a = await svc('a');
  const b = await svc('b');
  await alloc.allocate(a);
  await alloc.allocate(b);
  assert.equal(spec(a).clusterIP, '10.96.1.1');
  assert.deepEqual(spec(a).clusterIPs, ['10.96.1.1']);
  assert.equal(spec(b).clusterIP, '10.96.1.2');
});

test('a requested address is honoured', async () => {
  const alloc = allocator();
  const dns = await svc('kube-dns', { clusterIP: '10.96.0.10' });
  await alloc.allocate(dns);
  assert.deepEqual(spec(dns).clusterIPs, ['10.96.0.10']);
  assert.ok(await alloc.isIPAllocated('10.96.0.10'));
});

test('a requested address already taken is refused with 422', async () => {
  const alloc = allocator();
  await alloc.allocate(await svc('a', { clusterIP: '10.96.0.10' }));
  const serviceB = await svc('b', { clusterIP: '10.96.0.10' });
  await rejects(
    alloc.allocate(serviceB),
    422,
    'Service "b" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated',
  );
});

test('a requested address outside the range is refused with 422, in the words of upstream\'s ServiceCIDR allocator', async () => {
  const alloc = allocator({ serviceClusterIPRange: '10.96.0.0/12' });
  const serviceA = await svc('a', { clusterIP: '192.168.0.1' });
  await rejects(
    alloc.allocate(serviceA),
    422,
    'Service "a" is invalid: spec.clusterIPs: Invalid value: ["192.168.0.1"]: failed to allocate IP 192.168.0.1: the provided network does not match the current range',
  );
  // The network and broadcast addresses are not in the range either.
  const tiny = allocator({ serviceClusterIPRange: '10.0.0.0/29' });
  await rejects(tiny.allocate(await svc('n', { clusterIP: '10.0.0.0' })), 422, /does not match the current range/);
  await rejects(tiny.allocate(await svc('b', { clusterIP: '10.0.0.7' })), 422, /does not match the current range/);
});

test('headless and ExternalName services get no address', async () => {
  const backend = new MemoryBackend();
  const alloc = allocator({}, backend);
  const headless = await svc('h', { clusterIP: 'None' });
  await alloc.allocate(headless);
  assert.deepEqual(spec(headless).clusterIPs, ['None']);
  const external = await svc('e', { type: 'ExternalName', externalName: 'example.com' });
  await alloc.allocate(external);
  assert.equal(spec(external).clusterIP, undefined);
  assert.equal((await backend.list('/registry/')).items.length, 0);
});

test('a tiny range runs out with a 500 like upstream, and a release frees an address', async () => {
  // /29: 8 addresses, less network, broadcast and the kubernetes service: 5 to hand out.
  const alloc = allocator({ serviceClusterIPRange: '10.0.0.0/29' });
  const made: KubeObject[] = [];
  for (const n of ['a', 'b', 'c', 'd', 'e']) {
    const s = await svc(n);
    await alloc.allocate(s);
    made.push(s);
  }
  assert.deepEqual(made.map((s) => spec(s).clusterIP), ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
  await rejects(alloc.allocate(await svc('f')), 500, 'Internal error occurred: failed to allocate a serviceIP: range is full');
  await alloc.release(made[2]!);
  assert.ok(!(await alloc.isIPAllocated('10.0.0.4')));
  const g = await svc('g');
  await alloc.allocate(g);
  assert.equal(spec(g).clusterIP, '10.0.0.4');
});

test('a failed allocation takes nothing', async () => {
  const alloc = allocator({ serviceNodePortRange: '30000-30010' });
  await alloc.allocate(await svc('a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }));
  const b = await svc('b', { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'alt', port: 81, nodePort: 30005 }] });
  await rejects(alloc.allocate(b), 422, /provided port is already allocated/);
  assert.ok(!(await alloc.isIPAllocated('10.96.1.2')));
  assert.ok(!(await alloc.isNodePortAllocated(30000)));
});

test('a revert gives back what the allocation took', async () => {
  const alloc = allocator();
  const a = await svc('a', { type: 'NodePort' });
  const allocation = await alloc.allocate(a);
  assert.ok(await alloc.isIPAllocated('10.96.1.1'));
  await allocation.revert();
  assert.ok(!(await alloc.isIPAllocated('10.96.1.1')));
  assert.ok(!(await alloc.isNodePortAllocated(30086)));
});

test('a dry run fills in values but takes nothing', async () => {
  const backend = new MemoryBackend();
  const alloc = allocator({}, backend);
  const a = await svc('a', { type: 'NodePort' });
  await alloc.allocate(a, { dryRun: true });
  assert.equal(spec(a).clusterIP, '10.96.1.1');
  assert.equal(spec(a).ports[0].nodePort, 30086);
  assert.ok(!(await alloc.isIPAllocated('10.96.1.1')));
  assert.ok(!(await alloc.isNodePortAllocated(30086)));
  assert.equal((await backend.list('/registry/')).items.length, 0);
  // A dry run refuses what the real allocation would.
  await alloc.allocate(await svc('b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }], clusterIP: '10.96.0.10' }));
  await rejects(alloc.allocate(await svc('c', { clusterIP: '10.96.0.10' }), { dryRun: true }), 422, /provided IP is already allocated/);
  await rejects(alloc.allocate(await svc('d', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), { dryRun: true }), 422, /provided port is already allocated/);
});

test('NodePort services get a node port for each port lacking one', async () => {
  const alloc = allocator();
  const s = await svc('a', { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443, nodePort: 30443 }] });
  await alloc.allocate(s);
  assert.deepEqual(spec(s).ports.map((p: { nodePort: number }) => p.nodePort), [30086, 30443]);
  assert.ok(await alloc.isNodePortAllocated(30443));
});

test('ports with the same number share a node port', async () => {
  const alloc = allocator();
  const s = await svc('dns', { type: 'NodePort', ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP', nodePort: 30053 }] });
  await alloc.allocate(s);
  assert.deepEqual(spec(s).ports.map((p: { nodePort: number }) => p.nodePort), [30053, 30053]);
});

test('a requested node port taken or out of range is refused with 422', async () => {
  const alloc = allocator();
  await alloc.allocate(await svc('a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }));
  await rejects(
    alloc.allocate(await svc('b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] })),
    422,
    'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
  );
  await rejects(
    alloc.allocate(await svc('c', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] })),
    422,
    'Service "c" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
  );
});

test('node ports run out with a 500', async () => {
  const alloc = allocator({ serviceNodePortRange: '30000-30001' });
  await alloc.allocate(await svc('a', { type: 'NodePort', ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] }));
  await rejects(alloc.allocate(await svc('b', { type: 'NodePort' })), 500, 'Internal error occurred: failed to allocate a nodePort: range is full');
});

test('LoadBalancer services with externalTrafficPolicy Local get a health check node port', async () => {
  const alloc = allocator({ serviceNodePortRange: '30000-30009' });
  const s = await svc('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' });
  await alloc.allocate(s);
  assert.equal(spec(s).ports[0].nodePort, 30000);
  assert.equal(spec(s).healthCheckNodePort, 30001);
  const noPorts = await svc('lb2', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false });
  await alloc.allocate(noPorts);
  assert.equal(spec(noPorts).ports[0].nodePort, undefined);
});

test('the node port record is upstream\'s RangeAllocation: the range and a big-endian bitmap', async () => {
  const backend = new MemoryBackend();
  const alloc = allocator({ serviceNodePortRange: '30000-30009' }, backend);
  await alloc.allocate(await svc('a', { type: 'NodePort', ports: [{ name: 'a', port: 1, nodePort: 30000 }, { name: 'b', port: 2, nodePort: 30009 }] }));
  const record = decodeFromStorage((await backend.get(nodePortsKey))!) as KubeObject & { range: string; data: string };
  assert.equal(nodePortsKey, '/registry/ranges/servicenodeports');
  assert.equal(record.kind, 'RangeAllocation');
  assert.equal(record.apiVersion, 'v1');
  assert.equal(record.range, '30000-30009');
  // Offsets 0 and 9: big.Int 0b10_0000_0001, bytes [0x02, 0x01].
  assert.deepEqual([...Buffer.from(record.data, 'base64')], [0x02, 0x01]);
});

test('release frees addresses and ports; restore rebuilds storage from stored services', async () => {
  const alloc = allocator();
  const a = await svc('a', { type: 'NodePort' });
  const b = await svc('b', { clusterIP: '10.96.0.10' });
  await alloc.allocate(a);
  await alloc.allocate(b);
  await alloc.release(a);
  assert.ok(!(await alloc.isIPAllocated(spec(a).clusterIP)));
  assert.ok(!(await alloc.isNodePortAllocated(spec(a).ports[0].nodePort)));

  // Storage that holds the Services but no allocations (a data dir from before IPAddress objects).
  const restored = allocator();
  await restored.restore([a, b]);
  assert.ok(await restored.isIPAllocated('10.96.1.1'));
  assert.ok(await restored.isIPAllocated('10.96.0.10'));
  assert.ok(await restored.isNodePortAllocated(30086));
  const c = await svc('c', { type: 'NodePort' });
  await restored.allocate(c);
  assert.equal(spec(c).clusterIP, '10.96.1.2');
  assert.equal(spec(c).ports[0].nodePort, 30087);
});

test('restore deletes an IPAddress whose Service is gone once older than the grace period, and keeps a new one', async () => {
  const backend = new MemoryBackend();
  const leaked = (name: string, parent: string, creationTimestamp: string): KubeObject => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: { name, creationTimestamp, labels: { 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' } },
    spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: parent } },
  });
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  await backend.create(ipAddressesPrefix + '10.96.1.1', encodeForStorage(leaked('10.96.1.1', 'crashed', '2020-01-01T00:00:00Z')));
  await backend.create(ipAddressesPrefix + '10.96.1.2', encodeForStorage(leaked('10.96.1.2', 'being-created', now)));
  // Not the allocator's: left alone.
  await backend.create(ipAddressesPrefix + '10.96.1.3', encodeForStorage({ ...leaked('10.96.1.3', 'x', '2020-01-01T00:00:00Z'), metadata: { name: '10.96.1.3' } }));
  const alloc = allocator({}, backend);
  await alloc.restore([]);
  assert.equal(await ipAddress(backend, '10.96.1.1'), undefined);
  assert.ok(await ipAddress(backend, '10.96.1.2'));
  assert.ok(await ipAddress(backend, '10.96.1.3'));
  const next = await svc('next');
  await alloc.allocate(next);
  assert.equal(spec(next).clusterIP, '10.96.1.1');
});

test('restore starts the node port record afresh when it is of another range', async () => {
  const backend = new MemoryBackend();
  const old = allocator({ serviceNodePortRange: '30000-30009' }, backend);
  await old.allocate(await svc('a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30001 }] }));
  const wider = allocator({ serviceNodePortRange: '30000-30099' }, backend);
  await rejects(wider.allocate(await svc('b', { type: 'NodePort' })), 500, /does not match the current range/);
  const kept = await svc('kept', { type: 'NodePort', ports: [{ port: 80, nodePort: 30050 }] });
  await wider.restore([kept]);
  assert.ok(await wider.isNodePortAllocated(30050));
  assert.ok(!(await wider.isNodePortAllocated(30001)));
});

test('release leaves alone what another service holds', async () => {
  const alloc = allocator();
  await alloc.allocate(await svc('a', { clusterIP: '10.96.0.10' }));
  await alloc.release(await svc('b', { clusterIP: '10.96.0.10' }));
  assert.ok(await alloc.isIPAllocated('10.96.0.10'));
});

test('reallocate keeps what stays, takes what is new, frees what is gone once committed, and can be reverted', async () => {
  const alloc = allocator();
  const old = await svc('a', { type: 'NodePort' });
  await alloc.allocate(old);
  const next = structuredClone(old);
  spec(next).type = 'ClusterIP';
  delete spec(next).ports[0].nodePort;
  spec(next).ports.push({ port: 81 });
  const change = await alloc.reallocate(next, old);
  assert.ok(await alloc.isIPAllocated('10.96.1.1'));
  // Not freed before the update is stored: no other Service may take it while the write may fail.
  assert.ok(await alloc.isNodePortAllocated(30086));
  await change.revert();
  assert.ok(await alloc.isNodePortAllocated(30086));
  await (await alloc.reallocate(next, old)).commit();
  assert.ok(!(await alloc.isNodePortAllocated(30086)));
  assert.ok(await alloc.isIPAllocated('10.96.1.1'));

  const grown = structuredClone(old);
  spec(grown).ports.push({ port: 443 });
  const back = await alloc.reallocate(grown, next);
  assert.deepEqual(spec(grown).ports.map((p: { nodePort: number }) => p.nodePort), [30086, 30087]);
  await back.revert();
  assert.ok(!(await alloc.isNodePortAllocated(30086)));
  assert.ok(!(await alloc.isNodePortAllocated(30087)));
});

test('reallocate to ExternalName releases the address; back to ClusterIP allocates one', async () => {
  const alloc = allocator();
  const old = await svc('a');
  await alloc.allocate(old);
  const external = structuredClone(old);
  spec(external).type = 'ExternalName';
  delete spec(external).clusterIP;
  delete spec(external).clusterIPs;
  await (await alloc.reallocate(external, old)).commit();
  assert.ok(!(await alloc.isIPAllocated('10.96.1.1')));
  const back = structuredClone(old);
  delete spec(back).clusterIP;
  delete spec(back).clusterIPs;
  await alloc.reallocate(back, external);
  assert.equal(spec(back).clusterIP, '10.96.1.1');
});

test('a dual-stack range allocates one address per family', async () => {
  const backend = new MemoryBackend();
  const alloc = allocator({ serviceClusterIPRange: '10.96.0.0/16,fd00:10:96::/112' }, backend);
  assert.deepEqual(alloc.families, ['IPv4', 'IPv6']);
  const rt = builtinType('services', { serviceClusterIPRange: '10.96.0.0/16,fd00:10:96::/112' });
  const { allocatorFor: _a, ...plain } = rt;
  const { obj, causes } = await storeCreate(plain, { metadata: { name: 'ds', namespace: 'default' }, spec: { ipFamilyPolicy: 'PreferDualStack', ports: [{ port: 80 }] } });
  assert.deepEqual(causes, []);
  assert.deepEqual(spec(obj).ipFamilies, ['IPv4', 'IPv6']);
  await alloc.allocate(obj);
  assert.deepEqual(spec(obj).clusterIPs, ['10.96.1.1', 'fd00:10:96::101']);
  assert.equal((await ipAddress(backend, 'fd00:10:96::101'))?.metadata.labels?.['ipaddress.kubernetes.io/ip-family'], 'IPv6');
});

// ---- replicas: several allocators on one storage ----

async function allocateAtOnce(replicas: ServiceAllocator[], list: (prefix: string) => Promise<string[]>): Promise<void> {
  const services = await Promise.all(Array.from({ length: 60 }, (_, i) => svc(`s${i}`, { type: 'NodePort' })));
  await Promise.all(services.map((s, i) => replicas[i % 2]!.allocate(s)));
  const ips = services.map((s) => spec(s).clusterIP as string);
  const ports = services.map((s) => spec(s).ports[0].nodePort as number);
  assert.equal(new Set(ips).size, services.length);
  assert.equal(new Set(ports).size, services.length);
  // Storage holds exactly what was handed out.
  const stored = await list(ipAddressesPrefix);
  assert.deepEqual(stored.map((key) => key.slice(ipAddressesPrefix.length)).sort(), [...ips].sort());
  for (const port of ports) assert.ok(await replicas[0]!.isNodePortAllocated(port));
}

test('two replicas allocating at the same moment never hand out one address or node port twice', async () => {
  const backend = new MemoryBackend();
  await allocateAtOnce([allocator({}, backend), allocator({}, backend)], async (prefix) => (await backend.list(prefix)).items.map((kv) => kv.key));
});

describe('on a real etcd member, each replica with its own client', { skip: etcdUnavailable() }, () => {
  let etcd: TestEtcd | undefined;
  before(async () => void (etcd = await startEtcd()));
  after(() => etcd?.stop());

  test('two replicas allocating at the same moment never hand out one address or node port twice', async () => {
    const clients = [new EtcdBackend({ servers: [etcd!.url] }), new EtcdBackend({ servers: [etcd!.url] })];
    try {
      await allocateAtOnce(clients.map((client) => allocator({}, client)), async (prefix) => (await clients[1]!.list(prefix)).items.map((kv) => kv.key));
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});

test('two replicas requesting one address or node port at the same moment: one gets it, the other a 422', async () => {
  const backend = new MemoryBackend();
  const replicas = [allocator({}, backend), allocator({}, backend)];
  const results = await Promise.allSettled(replicas.map(async (r, i) => r.allocate(await svc(`s${i}`, { clusterIP: '10.96.0.20' }))));
  assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  const ports = await Promise.allSettled(replicas.map(async (r, i) => r.allocate(await svc(`p${i}`, { type: 'NodePort', ports: [{ port: 80, nodePort: 30500 }] }))));
  assert.deepEqual(ports.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
});

test('what one replica releases another can take, though its own memory still counts it taken', async () => {
  const backend = new MemoryBackend();
  const ranges = { serviceClusterIPRange: '10.0.0.0/29', serviceNodePortRange: '30000-30004' };
  const a = allocator(ranges, backend);
  const b = allocator(ranges, backend);
  const made: KubeObject[] = [];
  for (const n of ['s1', 's2', 's3', 's4', 's5']) {
    const s = await svc(n, { type: 'NodePort' });
    await b.allocate(s);
    made.push(s);
  }
  // b saw its range fill up; a frees one address and one port.
  await a.release(made[1]!);
  const next = await svc('next', { type: 'NodePort' });
  await b.allocate(next);
  assert.equal(spec(next).clusterIP, spec(made[1]!).clusterIP);
  assert.equal(spec(next).ports[0].nodePort, spec(made[1]!).ports[0].nodePort);
  // A requested port another replica released is granted even though this one's copy of the record is stale.
  await a.release(next);
  const requested = await svc('requested', { type: 'NodePort', ports: [{ port: 80, nodePort: spec(next).ports[0].nodePort }] });
  await b.allocate(requested);
});
