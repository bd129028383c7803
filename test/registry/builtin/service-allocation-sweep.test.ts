// Service ClusterIP and NodePort allocation against kube-apiserver v1.36 (alloc.go's
// initIPFamilyFields, allocateCreate and allocateUpdate; ipallocator's ServiceCIDR allocator;
// portallocator's operation; ValidateService and ValidateServiceUpdate): bad input answers
// upstream's Status, code and words, and what a refused or dry-run write took is given back.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { nodePortsKey } from '../../../src/registry/builtin/node-port-allocator.ts';
import { ServiceAllocator } from '../../../src/registry/builtin/service-allocator.ts';
import { decodeFromStorage } from '../../../src/registry/codec.ts';
import { MemoryBackend } from '../../../src/storage/memory.ts';
import { startServer, type Response, type TestServer } from '../../helpers/server.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

type Spec = Record<string, any>;

function service(name: string, spec: Spec): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } };
}

/** A server of its own range settings, and helpers over one namespace of it. */
function onServer(ranges: { serviceClusterIPRange?: string; serviceNodePortRange?: string }) {
  let server: TestServer;
  let ns = '';
  before(async () => {
    server = await startServer(ranges);
    ns = await server.newNamespace('alloc');
  });
  after(() => server?.stop());
  const path = (name = '') => `/api/v1/namespaces/${ns}/services${name === '' ? '' : `/${name}`}`;
  return {
    create: (name: string, spec: Spec, query = '') => server.request('POST', path() + query, { body: service(name, spec) }),
    patch: (name: string, patch: unknown, query = '') =>
      server.request('PATCH', path(name) + query, { body: patch, headers: { 'content-type': 'application/merge-patch+json' } }),
    put: (obj: KubeObject) => server.request('PUT', path(obj.metadata.name), { body: obj }),
    get: (name: string) => server.request('GET', path(name)),
    del: (name: string, query = '') => server.request('DELETE', path(name) + query),
    /** The IPAddress names and their parents' names. */
    ipAddresses: async () => {
      const res = await server.request('GET', '/apis/networking.k8s.io/v1/ipaddresses');
      return Object.fromEntries((res.json.items as KubeObject[]).map((item) => [item.metadata.name, (item.spec as Spec).parentRef.name]));
    },
  };
}

function created(res: Response): Spec {
  assert.ok(res.status === 201 || res.status === 200, `${res.status} ${res.text}`);
  return res.json.spec as Spec;
}

/** The Status answered: code, reason and message. */
function refused(res: Response, code: number, message: string): void {
  assert.equal(res.status, code, res.text);
  assert.equal(res.json.kind, 'Status');
  assert.equal(res.json.reason, code === 422 ? 'Invalid' : 'InternalError');
  assert.equal(res.json.message, message);
}

describe('on a single-stack cluster', () => {
  const api = onServer({});

  const refusedCreates: { name: string; spec: Spec; code: number; message: string }[] = [
    {
      name: 'a requested address outside every served range',
      spec: { clusterIP: '192.168.0.1' },
      code: 422,
      message: 'Service "x" is invalid: spec.clusterIPs: Invalid value: ["192.168.0.1"]: failed to allocate IP 192.168.0.1: the provided network does not match the current range',
    },
    {
      name: 'the range\'s network address',
      spec: { clusterIP: '10.96.0.0' },
      code: 422,
      message: 'Service "x" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.0"]: failed to allocate IP 10.96.0.0: the provided network does not match the current range',
    },
    {
      name: 'the range\'s broadcast address',
      spec: { clusterIP: '10.111.255.255' },
      code: 422,
      message: 'Service "x" is invalid: spec.clusterIPs: Invalid value: ["10.111.255.255"]: failed to allocate IP 10.111.255.255: the provided network does not match the current range',
    },
    {
      name: 'clusterIPs without clusterIP',
      spec: { clusterIPs: ['10.96.0.50'] },
      code: 422,
      message: 'Service "x" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.50"]: must be empty when `clusterIP` is not specified',
    },
    {
      name: 'an address of a family the cluster does not serve',
      spec: { clusterIP: 'fd00::1' },
      code: 422,
      message: 'Service "x" is invalid: spec.clusterIPs[0]: Invalid value: ["fd00::1"]: IPv6 is not configured on this cluster',
    },
    {
      name: 'two addresses with SingleStack',
      spec: { ipFamilyPolicy: 'SingleStack', clusterIP: '10.96.0.60', clusterIPs: ['10.96.0.60', 'fd00::60'] },
      code: 422,
      message: 'Service "x" is invalid: [spec.ipFamilyPolicy: Invalid value: "SingleStack": must be \'RequireDualStack\' or \'PreferDualStack\' when multiple cluster IPs are specified, '
        + 'spec.clusterIPs[1]: Invalid value: ["10.96.0.60","fd00::60"]: IPv6 is not configured on this cluster]',
    },
    {
      name: 'two families with SingleStack',
      spec: { ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4', 'IPv6'] },
      code: 422,
      message: 'Service "x" is invalid: spec.ipFamilyPolicy: Invalid value: "SingleStack": must be \'RequireDualStack\' or \'PreferDualStack\' when multiple IP families are specified',
    },
    {
      name: 'an unknown ipFamilyPolicy, naming the supported ones sorted',
      spec: { ipFamilyPolicy: 'Bogus' },
      code: 422,
      message: 'Service "x" is invalid: spec.ipFamilyPolicy: Unsupported value: "Bogus": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
    },
    {
      name: 'unknown and repeated ipFamilies, each index\'s errors together',
      spec: { ipFamilies: ['IPv7', 'IPv7'] },
      code: 422,
      message: 'Service "x" is invalid: [spec.ipFamilies[0]: Unsupported value: "IPv7": supported values: "IPv4", "IPv6", '
        + 'spec.ipFamilies[1]: Unsupported value: "IPv7": supported values: "IPv4", "IPv6", spec.ipFamilies[1]: Duplicate value: "IPv7"]',
    },
    {
      name: 'a bad cluster IP comes alone, before the rest of validation',
      spec: { clusterIPs: ['10.96.0.50'], sessionAffinity: 'Bogus' },
      code: 422,
      message: 'Service "x" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.50"]: must be empty when `clusterIP` is not specified',
    },
    {
      name: 'a health check node port on a service that needs none',
      spec: { type: 'NodePort', healthCheckNodePort: 30555 },
      code: 422,
      message: 'Service "x" is invalid: spec.healthCheckNodePort: Invalid value: 30555: may only be set when `type` is \'LoadBalancer\' and `externalTrafficPolicy` is \'Local\'',
    },
    {
      name: 'a negative health check node port on a service that needs none',
      spec: { type: 'LoadBalancer', healthCheckNodePort: -3 },
      code: 422,
      message: 'Service "x" is invalid: spec.healthCheckNodePort: Invalid value: -3: may only be set when `type` is \'LoadBalancer\' and `externalTrafficPolicy` is \'Local\'',
    },
    {
      name: 'a health check node port outside the range',
      spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 80 },
      code: 500,
      message: 'Internal error occurred: failed to allocate requested HealthCheck NodePort 80: provided port is not in the valid range. The range of valid ports is 30000-32767',
    },
    {
      name: 'a health check node port the service\'s own port took',
      spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30111, ports: [{ port: 80, nodePort: 30111 }] },
      code: 500,
      message: 'Internal error occurred: failed to allocate requested HealthCheck NodePort 30111: provided port is already allocated',
    },
    {
      name: 'one node port asked for by two port numbers',
      spec: { type: 'NodePort', ports: [{ name: 'a', port: 53, protocol: 'TCP', nodePort: 30053 }, { name: 'b', port: 54, protocol: 'UDP', nodePort: 30053 }] },
      code: 422,
      message: 'Service "x" is invalid: spec.ports[1].nodePort: Invalid value: 30053: provided port is already allocated',
    },
    {
      name: 'a load balancer class on a NodePort service',
      spec: { type: 'NodePort', loadBalancerClass: 'example.com/lb' },
      code: 422,
      message: 'Service "x" is invalid: spec.loadBalancerClass: Forbidden: may only be used when `type` is \'LoadBalancer\'',
    },
    {
      name: 'a load balancer class that is no qualified name',
      spec: { type: 'LoadBalancer', loadBalancerClass: 'bad class' },
      code: 422,
      message: 'Service "x" is invalid: spec.loadBalancerClass: Invalid value: "bad class": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
    },
  ];

  for (const c of refusedCreates) {
    test(`POST refuses ${c.name} with a ${c.code}, taking nothing`, async () => {
      const before = await api.ipAddresses();
      refused(await api.create('x', c.spec), c.code, c.message);
      assert.deepEqual(await api.ipAddresses(), before);
      // The node ports it asked for are free: another service is granted them.
      const asked = [...new Set(((c.spec.ports ?? []) as Spec[]).map((p) => p.nodePort as number | undefined).filter((p) => p !== undefined))];
      if (asked.length > 0) {
        const spec = created(await api.create('leak', { type: 'NodePort', ports: asked.map((nodePort, i) => ({ name: `p${i}`, port: 1000 + i, nodePort })) }));
        assert.deepEqual(spec.ports.map((p: Spec) => p.nodePort), asked);
        assert.equal((await api.del('leak')).status, 200);
      }
    });
  }

  test('a headless service without a selector asks for both families, whatever the cluster serves', async () => {
    const spec = created(await api.create('headless', { clusterIP: 'None' }));
    assert.equal(spec.ipFamilyPolicy, 'RequireDualStack');
    assert.deepEqual(spec.ipFamilies, ['IPv4', 'IPv6']);
    const empty = created(await api.create('headless-empty-selector', { clusterIP: 'None', selector: {} }));
    assert.equal(empty.ipFamilyPolicy, 'RequireDualStack');
    const selected = created(await api.create('headless-selected', { clusterIP: 'None', selector: { app: 'db' } }));
    assert.equal(selected.ipFamilyPolicy, 'SingleStack');
    assert.deepEqual(selected.ipFamilies, ['IPv4']);
  });

  test('a needed health check node port may not change', async () => {
    created(await api.create('hc', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' }));
    refused(await api.patch('hc', { spec: { healthCheckNodePort: 31999 } }), 422, 'Service "hc" is invalid: spec.healthCheckNodePort: Forbidden: field is immutable');
  });

  test('turning Local a service whose port holds the requested health check node port answers 500 and takes nothing', async () => {
    created(await api.create('np-hc', { type: 'NodePort', ports: [{ port: 80, nodePort: 30201 }] }));
    refused(
      await api.patch('np-hc', { spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30201 } }),
      500,
      'Internal error occurred: failed to allocate requested HealthCheck NodePort 30201: provided port is already allocated',
    );
    const spec = created(await api.patch('np-hc', { spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local' } }));
    assert.equal(spec.ports[0].nodePort, 30201);
    assert.ok(spec.healthCheckNodePort >= 30000 && spec.healthCheckNodePort !== 30201);
  });

  test('the load balancer class of a LoadBalancer service may not change', async () => {
    created(await api.create('lbc', { type: 'LoadBalancer', loadBalancerClass: 'example.com/a' }));
    refused(await api.patch('lbc', { spec: { loadBalancerClass: 'example.com/b' } }), 422, 'Service "lbc" is invalid: spec.loadBalancerClass: Invalid value: "example.com/b": may not change once set');
  });

  test('a LoadBalancer that stops allocating node ports keeps those a PUT leaves out', async () => {
    const spec = created(await api.create('lb-keep', { type: 'LoadBalancer', ports: [{ name: 'http', port: 80 }] }));
    const nodePort = spec.ports[0].nodePort as number;
    const current = (await api.get('lb-keep')).json as KubeObject;
    const next = structuredClone(current);
    (next.spec as Spec).allocateLoadBalancerNodePorts = false;
    delete (next.spec as Spec).ports[0].nodePort;
    const updated = created(await api.put(next));
    assert.equal(updated.ports[0].nodePort, nodePort);
    // Still held: another service asking for it is refused.
    refused(
      await api.create('lb-keep-other', { type: 'NodePort', ports: [{ port: 80, nodePort }] }),
      422,
      `Service "lb-keep-other" is invalid: spec.ports[0].nodePort: Invalid value: ${nodePort}: provided port is already allocated`,
    );
  });

  test('ports sharing a number share a node port on create but get their own on update, as upstream', async () => {
    const dnsPorts = [{ name: 'u', port: 53, protocol: 'UDP' }, { name: 't', port: 53, protocol: 'TCP' }];
    const onCreate = created(await api.create('dns-np', { type: 'NodePort', ports: dnsPorts }));
    assert.equal(onCreate.ports[0].nodePort, onCreate.ports[1].nodePort);
    created(await api.create('dns', { ports: dnsPorts }));
    const onUpdate = created(await api.patch('dns', { spec: { type: 'NodePort' } }));
    assert.notEqual(onUpdate.ports[0].nodePort, onUpdate.ports[1].nodePort);
  });

  test('a dry-run create fills in values and takes none; a dry-run delete releases none', async () => {
    const before = await api.ipAddresses();
    const dry = created(await api.create('dry', { type: 'NodePort', clusterIP: '10.96.0.77', ports: [{ port: 80, nodePort: 30077 }] }, '?dryRun=All'));
    assert.equal(dry.clusterIP, '10.96.0.77');
    assert.deepEqual(await api.ipAddresses(), before);
    created(await api.create('dry', { type: 'NodePort', clusterIP: '10.96.0.77', ports: [{ port: 80, nodePort: 30077 }] }));
    assert.equal((await api.del('dry', '?dryRun=All')).status, 200);
    assert.equal((await api.ipAddresses())['10.96.0.77'], 'dry');
    assert.equal((await api.del('dry')).status, 200);
    assert.equal((await api.ipAddresses())['10.96.0.77'], undefined);
    created(await api.create('dry-again', { type: 'NodePort', clusterIP: '10.96.0.77', ports: [{ port: 80, nodePort: 30077 }] }));
  });

  test('a dry-run update answers the node ports it would allocate, and takes none', async () => {
    created(await api.create('dry-update', { ports: [{ port: 80 }] }));
    const dry = created(await api.patch('dry-update', { spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30078 }] } }, '?dryRun=All'));
    assert.equal(dry.ports[0].nodePort, 30078);
    const asked = created(await api.patch('dry-update', { spec: { type: 'NodePort' } }, '?dryRun=All'));
    assert.equal(typeof asked.ports[0].nodePort, 'number');
    assert.equal((await api.get('dry-update')).json.spec.type, 'ClusterIP');
    // Nothing was taken: another Service may have that port.
    created(await api.create('dry-update-other', { type: 'NodePort', ports: [{ port: 80, nodePort: 30078 }] }));
  });
});

describe('on a dual-stack cluster', () => {
  const api = onServer({ serviceClusterIPRange: '10.96.0.0/12,fd00:10:96::/112' });

  test('reducing clusterIPs without SingleStack is refused and keeps the secondary address', async () => {
    const spec = created(await api.create('down', { ipFamilyPolicy: 'PreferDualStack' }));
    const [primary, secondary] = spec.clusterIPs as string[];
    refused(
      await api.patch('down', { spec: { clusterIPs: [primary] } }),
      422,
      'Service "down" is invalid: spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be \'SingleStack\' to release the secondary cluster IP',
    );
    assert.deepEqual((await api.get('down')).json.spec.clusterIPs, [primary, secondary]);
    assert.equal((await api.ipAddresses())[secondary!], 'down');
  });

  test('asking for SingleStack alone releases the secondary address and family', async () => {
    const spec = created(await api.create('single', { ipFamilyPolicy: 'RequireDualStack' }));
    const [primary, secondary] = spec.clusterIPs as string[];
    const next = created(await api.patch('single', { spec: { ipFamilyPolicy: 'SingleStack' } }));
    assert.deepEqual(next.clusterIPs, [primary]);
    assert.deepEqual(next.ipFamilies, ['IPv4']);
    assert.equal((await api.ipAddresses())[secondary!], undefined);
  });

  test('two addresses without a policy are SingleStack, and refused', async () => {
    refused(
      await api.create('two', { clusterIP: '10.96.0.60', clusterIPs: ['10.96.0.60', 'fd00:10:96::60'] }),
      422,
      'Service "two" is invalid: spec.ipFamilyPolicy: Invalid value: "SingleStack": must be \'RequireDualStack\' or \'PreferDualStack\' when multiple cluster IPs are specified',
    );
    assert.equal((await api.ipAddresses())['10.96.0.60'], undefined);
  });

  test('families that contradict the addresses are refused alone, before the update rules', async () => {
    created(await api.create('fam', { ipFamilyPolicy: 'PreferDualStack' }));
    const res = await api.patch('fam', { spec: { ipFamilies: ['IPv6', 'IPv4'] } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.details.causes.map((c: Spec) => c.field), ['spec.clusterIPs[0]', 'spec.clusterIPs[1]']);
  });

  test('a requested IPv6 address outside the range', async () => {
    refused(
      await api.create('v6', { clusterIP: 'fd00:10:97::50' }),
      422,
      'Service "v6" is invalid: spec.clusterIPs: Invalid value: ["fd00:10:97::50"]: failed to allocate IP fd00:10:97::50: the provided network does not match the current range',
    );
  });
});

describe('on a small node port range', () => {
  const api = onServer({ serviceNodePortRange: '30000-30001' });

  test('no free health check node port answers upstream\'s 500 and takes nothing', async () => {
    created(await api.create('fill', { type: 'NodePort', ports: [{ name: 'a', port: 1 }] }));
    refused(
      await api.create('hc', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ name: 'a', port: 1 }] }),
      500,
      'Internal error occurred: failed to allocate a HealthCheck NodePort 0: range is full',
    );
    // The node port the refused create took for its port is free again.
    created(await api.create('again', { type: 'NodePort', ports: [{ name: 'a', port: 1 }] }));
  });
});

test('an unchanged PreferDualStack service is not upgraded when the cluster became dual-stack', async () => {
  const dual = builtinType('services', { serviceClusterIPRange: '10.96.0.0/12,fd00:10:96::/112' });
  const old: KubeObject = {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: {
      type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], sessionAffinity: 'None', internalTrafficPolicy: 'Cluster',
      clusterIP: '10.96.1.1', clusterIPs: ['10.96.1.1'], ipFamilyPolicy: 'PreferDualStack', ipFamilies: ['IPv4'],
    },
  };
  const next = structuredClone(old);
  next.metadata.labels = { touched: 'yes' };
  const { obj, causes } = await storeUpdate(dual, next, old);
  assert.deepEqual(causes, []);
  assert.deepEqual((obj.spec as Spec).clusterIPs, ['10.96.1.1']);
  assert.deepEqual((obj.spec as Spec).ipFamilies, ['IPv4']);
});

test('a dry-run reallocate fills in node ports but takes and releases nothing', async () => {
  const backend = new MemoryBackend();
  const alloc = new ServiceAllocator({}, backend);
  const { allocatorFor: _a, ...plain } = builtinType('services');
  const { obj: old, causes } = await storeCreate(plain, { metadata: { name: 'a', namespace: 'default' }, spec: { ports: [{ port: 80 }] } } as KubeObject);
  assert.deepEqual(fields(causes), []);
  await alloc.allocate(old);
  const next = structuredClone(old);
  (next.spec as Spec).type = 'NodePort';
  await alloc.reallocate(next, old, { dryRun: true });
  assert.equal((next.spec as Spec).ports[0].nodePort, 30086);
  assert.equal(await backend.get(nodePortsKey), undefined);
  assert.ok(!(await alloc.isNodePortAllocated(30086)));
  // A dry-run change to ExternalName releases nothing either.
  const external = structuredClone(old);
  Object.assign(external.spec as Spec, { type: 'ExternalName', externalName: 'example.com' });
  delete (external.spec as Spec).clusterIP;
  delete (external.spec as Spec).clusterIPs;
  await (await alloc.reallocate(external, old, { dryRun: true })).commit();
  assert.ok(await alloc.isIPAllocated((old.spec as Spec).clusterIP));
  assert.equal(decodeFromStorage((await backend.list('/registry/')).items[0]!).kind, 'IPAddress');
});
