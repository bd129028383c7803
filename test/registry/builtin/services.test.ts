import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { objectFieldSet } from '../../../src/registry/selection.ts';
import { builtinType, fields, memoryStore, storeCreate, storeUpdate } from '../../helpers/store.ts';

const services = builtinType('services');

function service(spec: Record<string, unknown>, name = 'web'): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec };
}

const defaultCases: { name: string; spec: Record<string, unknown>; expected: Record<string, unknown> }[] = [
  {
    name: 'a ClusterIP service',
    spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    expected: {
      selector: { app: 'web' },
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    },
  },
  {
    name: 'a NodePort service gets externalTrafficPolicy Cluster',
    spec: { type: 'NodePort', ports: [{ port: 80, targetPort: 'http' }] },
    expected: {
      type: 'NodePort',
      ports: [{ port: 80, targetPort: 'http', protocol: 'TCP' }],
      sessionAffinity: 'None',
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    },
  },
  {
    name: 'a LoadBalancer service allocates node ports by default',
    spec: { type: 'LoadBalancer', ports: [{ port: 443, protocol: 'TCP' }] },
    expected: {
      type: 'LoadBalancer',
      ports: [{ port: 443, protocol: 'TCP', targetPort: 443 }],
      sessionAffinity: 'None',
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      allocateLoadBalancerNodePorts: true,
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    },
  },
  {
    name: 'a headless service keeps clusterIP None',
    spec: { clusterIP: 'None', selector: { app: 'db' } },
    expected: {
      clusterIP: 'None',
      clusterIPs: ['None'],
      selector: { app: 'db' },
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    },
  },
  {
    name: 'an ExternalName service gets no IP fields',
    spec: { type: 'ExternalName', externalName: 'db.example.com' },
    expected: { type: 'ExternalName', externalName: 'db.example.com', sessionAffinity: 'None' },
  },
  {
    name: 'ClientIP affinity gets the default timeout',
    spec: { sessionAffinity: 'ClientIP', ports: [{ port: 80 }] },
    expected: {
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
      ipFamilyPolicy: 'SingleStack',
      ipFamilies: ['IPv4'],
    },
  },
];

/** Services without an allocator: the strategy's defaults alone, without the addresses and ports allocation adds. */
const { allocatorFor: _allocatorFor, ...unallocated } = builtinType('services');

for (const c of defaultCases) {
  test(`Service defaults: ${c.name}`, async () => {
    const { obj, causes } = await storeCreate(unallocated, service(structuredClone(c.spec)));
    assert.deepEqual(causes, []);
    assert.deepEqual(obj.spec, c.expected);
    assert.deepEqual(obj.status, { loadBalancer: {} });
  });
}

test('a requested clusterIP fills clusterIPs', async () => {
  const { obj } = await storeCreate(services, service({ clusterIP: '10.96.0.10', ports: [{ port: 53, protocol: 'UDP' }] }));
  assert.deepEqual((obj.spec as Record<string, unknown>).clusterIPs, ['10.96.0.10']);
});

const invalidCases: { name: string; spec: Record<string, unknown>; causes: string[] }[] = [
  { name: 'a ClusterIP service needs ports', spec: {}, causes: ['spec.ports: Required value'] },
  {
    name: 'several ports need names',
    spec: { ports: [{ port: 80 }, { port: 443 }] },
    causes: ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value'],
  },
  {
    name: 'port numbers are 1 to 65535',
    spec: { ports: [{ port: 0 }] },
    causes: ['spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive', 'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive'],
  },
  {
    name: 'a named targetPort is an IANA service name',
    spec: { ports: [{ port: 80, targetPort: 'HTTP' }] },
    causes: ['spec.ports[0].targetPort: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)', 'spec.ports[0].targetPort: Invalid value: "HTTP": must contain at least one letter (a-z)'],
  },
  {
    name: 'ports are unique by protocol and number',
    spec: { ports: [{ name: 'a', port: 80 }, { name: 'b', port: 80 }] },
    causes: ['spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}'],
  },
  {
    name: 'a ClusterIP service may not ask for node ports',
    spec: { ports: [{ port: 80, nodePort: 30080 }] },
    causes: ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"],
  },
  {
    name: 'the type is one of four',
    spec: { type: 'Ingress', ports: [{ port: 80 }] },
    causes: ['spec.type: Unsupported value: "Ingress": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'],
  },
  {
    name: 'a clusterIP must be an IP',
    spec: { clusterIP: '10.96.0.300', ports: [{ port: 80 }] },
    causes: ['spec.clusterIPs[0]: Invalid value: "10.96.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
  },
  {
    name: 'a NodePort service cannot be headless',
    spec: { type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] },
    causes: ["spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services"],
  },
  {
    name: 'an ExternalName service needs a DNS name',
    spec: { type: 'ExternalName', externalName: 'Not A Name' },
    causes: ["spec.externalName: Invalid value: \"Not A Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
  },
  {
    name: 'IPv6 is not served by an IPv4 cluster',
    spec: { ipFamilies: ['IPv6'], ports: [{ port: 80 }] },
    causes: ['spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster'],
  },
  {
    name: 'RequireDualStack needs a dual-stack cluster',
    spec: { ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] },
    causes: ['spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services'],
  },
  {
    name: 'the selector holds labels',
    spec: { selector: { app: 'a b' }, ports: [{ port: 80 }] },
    causes: ["spec.selector: Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"],
  },
];

for (const c of invalidCases) {
  test(`Service validation: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(services, service(structuredClone(c.spec)))).causes), c.causes);
  });
}

test('service names are DNS labels (RelaxedServiceNameValidation, on in v1.36): a leading digit is taken, upper case is not', async () => {
  assert.deepEqual((await storeCreate(services, service({ ports: [{ port: 80 }] }, '1web'))).causes, []);
  const { causes } = await storeCreate(services, service({ ports: [{ port: 80 }] }, 'Web'));
  assert.deepEqual(fields(causes), [
    "metadata.name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  ]);
});

async function stored(spec: Record<string, unknown>): Promise<KubeObject> {
  const { obj } = await storeCreate(services, service(spec));
  return obj;
}

test('a PUT without the allocated cluster IP and node ports keeps them', async () => {
  const old = await stored({ type: 'NodePort', ports: [{ name: 'http', port: 80 }] });
  const oldSpec = old.spec as Record<string, any>;
  const { obj, causes } = await storeUpdate(services, service({ type: 'NodePort', ports: [{ name: 'http', port: 80 }] }), old);
  assert.deepEqual(causes, []);
  const spec = obj.spec as Record<string, any>;
  assert.equal(spec.clusterIP, oldSpec.clusterIP);
  assert.deepEqual(spec.clusterIPs, oldSpec.clusterIPs);
  assert.equal(spec.ports[0].nodePort, oldSpec.ports[0].nodePort);
});

test('the cluster IP may not change', async () => {
  const old = await stored({ ports: [{ port: 80 }] });
  const next = structuredClone(old);
  const spec = next.spec as Record<string, any>;
  spec.clusterIP = '10.96.0.99';
  spec.clusterIPs = ['10.96.0.99'];
  assert.deepEqual(fields((await storeUpdate(services, next, old)).causes), ['spec.clusterIPs[0]: Invalid value: ["10.96.0.99"]: may not change once set']);
});

test('an unset cluster IP is refused, the missing clusterIPs reported as null', () => {
  // Not reachable through the store (a PUT without them keeps the allocated ones), so the rule itself.
  // Both as defaulted: the update's own ValidateService then finds nothing else to say.
  const defaulted = { type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', ports: [{ port: 80, protocol: 'TCP' }] };
  const old = service({ ...defaulted, clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'] });
  const next = service(defaulted);
  assert.deepEqual(fields(services.strategy.validateUpdate!(next, old)), ['spec.clusterIPs[0]: Invalid value: null: primary clusterIP can not be unset']);
});

test('changing NodePort to ClusterIP drops the node ports and externalTrafficPolicy it did not ask to keep', async () => {
  const old = await stored({ type: 'NodePort', ports: [{ port: 80 }] });
  const next = structuredClone(old);
  (next.spec as Record<string, unknown>).type = 'ClusterIP';
  const { obj, causes } = await storeUpdate(services, next, old);
  assert.deepEqual(causes, []);
  const spec = obj.spec as Record<string, any>;
  assert.equal(spec.ports[0].nodePort, undefined);
  assert.equal(spec.externalTrafficPolicy, undefined);
  assert.equal(spec.clusterIP, (old.spec as Record<string, any>).clusterIP);
});

test('changing ClusterIP to ExternalName drops the cluster IP fields', async () => {
  const old = await stored({ ports: [{ port: 80 }] });
  const next = structuredClone(old);
  Object.assign(next.spec as Record<string, unknown>, { type: 'ExternalName', externalName: 'example.com' });
  const { obj, causes } = await storeUpdate(services, next, old);
  assert.deepEqual(causes, []);
  const spec = obj.spec as Record<string, any>;
  assert.equal(spec.clusterIP, undefined);
  assert.equal(spec.clusterIPs, undefined);
  assert.equal(spec.ipFamilies, undefined);
  assert.equal(spec.ipFamilyPolicy, undefined);
  assert.equal(spec.internalTrafficPolicy, 'Cluster');
});

test('status written through the service is ignored; services/status keeps the spec', async () => {
  const old = await stored({ type: 'LoadBalancer', ports: [{ port: 80 }] });
  const viaMain = structuredClone(old);
  viaMain.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } };
  assert.deepEqual((await storeUpdate(services, viaMain, old)).obj.status, { loadBalancer: {} });

  const viaStatus = structuredClone(old);
  (viaStatus.spec as Record<string, unknown>).type = 'ClusterIP';
  viaStatus.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { hostname: 'lb.example.com' }] } };
  const { obj, causes } = await storeUpdate(services, viaStatus, old, 'status');
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, old.spec);
  assert.deepEqual(obj.status, { loadBalancer: { ingress: [{ ip: '1.2.3.4', ipMode: 'VIP' }, { hostname: 'lb.example.com' }] } });
});

test('a Service exposes spec.clusterIP and spec.type to field selectors', async () => {
  const obj = await stored({ ports: [{ port: 80 }] });
  const fieldSet = objectFieldSet(services, obj);
  assert.equal(fieldSet['spec.type'], 'ClusterIP');
  assert.equal(fieldSet['spec.clusterIP'], (obj.spec as Record<string, unknown>).clusterIP);
});

test('changing ClusterIP to NodePort stores the node ports it allocates', async () => {
  const { store } = memoryStore(builtinType('services'));
  const created = await store.create('default', service({ ports: [{ port: 80 }] }));
  const { object } = await store.update('default', 'web', { ...created, spec: { ...(created.spec as object), type: 'NodePort' } });
  const nodePort = (object.spec as { ports: { nodePort?: number }[] }).ports[0]!.nodePort;
  assert.ok(nodePort !== undefined && nodePort >= 30000 && nodePort <= 32767);
  assert.deepEqual(await store.find('default', 'web'), object);
});
