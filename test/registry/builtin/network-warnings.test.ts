// The Warning headers the network types and nodes give of a valid write, as upstream v1.36's
// strategies: GetWarningsForService, the Endpoints and EndpointSlice IP warnings (not for
// upstream's own controllers), the deprecated FQDN address type, NetworkPolicy CIDRs, the
// deprecated ingress.class annotation, load-balancer status IPs and deprecated Node fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import type { ResourceType } from '../../../src/registry/resource-type.ts';
import { builtinType, createWarned, storeCreate, storeUpdate, updateWarned, type Warned } from '../../helpers/store.ts';

/** The warnings of a write, asserting it succeeded. */
async function warningsOf(write: Promise<Warned>): Promise<string[]> {
  const { causes, warnings } = await write;
  assert.deepEqual(causes, []);
  return warnings;
}

const created = (type: ResourceType, obj: KubeObject) => warningsOf(createWarned(type, obj));
const updated = (type: ResourceType, old: KubeObject, next: KubeObject, subresource = '') => warningsOf(updateWarned(type, next, old, subresource));

const services = builtinType('services');

function service(spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) }, spec };
}

const serviceCases: { name: string; spec: Record<string, unknown>; annotations?: Record<string, string>; warnings: string[] }[] = [
  { name: 'a valid service', spec: { type: 'LoadBalancer', ports: [{ port: 80 }], loadBalancerIP: '10.0.0.1', loadBalancerSourceRanges: ['10.0.0.0/8'] }, warnings: [] },
  {
    name: 'the deprecated topology-aware-hints annotation',
    spec: { ports: [{ port: 80 }] },
    annotations: { 'service.kubernetes.io/topology-aware-hints': 'Auto' },
    warnings: ['annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead'],
  },
  {
    name: 'external IPs: deprecated, and a non-canonical IPv6 one',
    spec: { ports: [{ port: 80 }], externalIPs: ['1.2.3.4', '2001:DB8:0::1'] },
    warnings: [
      'spec.externalIPs[1]: IPv6 address "2001:DB8:0::1" should be in RFC 5952 canonical format ("2001:db8::1")',
      'spec.externalIPs is deprecated and may no longer be implemented in some clusters',
    ],
  },
  {
    name: 'what a headless service ignores',
    spec: { clusterIP: 'None', ports: [{ port: 80 }], loadBalancerIP: '10.0.0.1', externalIPs: ['1.2.3.4'], sessionAffinity: 'ClientIP' },
    warnings: ['spec.loadBalancerIP is ignored for headless services', 'spec.externalIPs is ignored for headless services', 'spec.SessionAffinity is ignored for headless services'],
  },
  {
    name: 'load balancer IP and source ranges in non-standard forms',
    spec: { type: 'LoadBalancer', ports: [{ port: 80 }], loadBalancerIP: '10.0.0.01', loadBalancerSourceRanges: ['FD00:0::/64', ' 10.0.0.0/8'] },
    warnings: [
      'spec.loadBalancerIP: non-standard IP address "10.0.0.01" will be considered invalid in a future Kubernetes release: use "10.0.0.1"',
      'spec.loadBalancerSourceRanges[0]: IPv6 CIDR value "FD00:0::/64" should be in RFC 5952 canonical format ("fd00::/64")',
    ],
  },
  { name: 'an externalName on a ClusterIP service', spec: { ports: [{ port: 80 }], externalName: 'db.example.com' }, warnings: ['spec.externalName is ignored when spec.type is not "ExternalName"'] },
  { name: 'the deprecated PreferClose traffic distribution', spec: { ports: [{ port: 80 }], trafficDistribution: 'PreferClose' }, warnings: ['spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"'] },
];

for (const c of serviceCases) {
  test(`Service create warns: ${c.name}`, async () => {
    assert.deepEqual(await created(services, service(structuredClone(c.spec), c.annotations)), c.warnings);
  });
}

test('Service update warns of a kept non-standard value; ExternalName ignores external IPs', async () => {
  const old = service({
    type: 'ExternalName', externalName: 'db.example.com', externalIPs: ['1.2.3.04'], sessionAffinity: 'None', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
  });
  assert.deepEqual(await updated(services, old, { ...structuredClone(old), metadata: { ...old.metadata, labels: { a: 'b' } } }), [
    'spec.externalIPs[0]: non-standard IP address "1.2.3.04" will be considered invalid in a future Kubernetes release: use "1.2.3.4"',
    'spec.externalIPs is ignored when spec.type is "ExternalName"',
  ]);
});

test('services/status warns of ingress IPs, at the entry\'s path', async () => {
  const old = (await storeCreate(services, service({ type: 'LoadBalancer', ports: [{ port: 80 }] }))).obj;
  const next = { ...structuredClone(old), status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { hostname: 'lb.example.com' }, { ip: '2001:DB8::1' }] } } };
  assert.deepEqual(await updated(services, old, next, 'status'), ['status.loadBalancer.ingress[2]: IPv6 address "2001:DB8::1" should be in RFC 5952 canonical format ("2001:db8::1")']);
});

// ---- Endpoints and EndpointSlices ----

const endpoints = builtinType('endpoints');
const slices = builtinType('endpointslices');

const ep = (labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'default', labels },
  subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: 'FD00::1' }], notReadyAddresses: [{ ip: 'fd00:0::2' }] }],
});

test('Endpoints warn of non-canonical IPs, addresses then notReadyAddresses', async () => {
  const warnings = [
    'subsets[0].addresses[1].ip: IPv6 address "FD00::1" should be in RFC 5952 canonical format ("fd00::1")',
    'subsets[0].notReadyAddresses[0].ip: IPv6 address "fd00:0::2" should be in RFC 5952 canonical format ("fd00::2")',
  ];
  assert.deepEqual(await created(endpoints, ep()), warnings);
  assert.deepEqual(await updated(endpoints, ep(), ep({ a: 'b' })), warnings);
});

test('Endpoints the Endpoints controller wrote, or with canonical IPs, get no warnings', async () => {
  assert.deepEqual(await created(endpoints, ep({ 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' })), []);
  assert.deepEqual(await created(endpoints, { ...ep(), subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }] }] }), []);
});

const slice = (addressType: string, addresses: string[], labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abc', namespace: 'default', labels }, addressType, endpoints: [{ addresses }],
});

test('EndpointSlices warn of non-canonical IPs, unless upstream\'s own controllers wrote them', async () => {
  const warning = 'endpoints[0].addresses[1]: IPv6 address "FD00::2" should be in RFC 5952 canonical format ("fd00::2")';
  assert.deepEqual(await created(slices, slice('IPv6', ['fd00::1', 'FD00::2'])), [warning]);
  assert.deepEqual(await updated(slices, slice('IPv6', ['fd00::1']), slice('IPv6', ['fd00::1', 'FD00::2'])), [warning]);
  for (const manager of ['endpointslice-controller.k8s.io', 'endpointslicemirroring-controller.k8s.io']) {
    assert.deepEqual(await created(slices, slice('IPv6', ['FD00::2'], { 'endpointslice.kubernetes.io/managed-by': manager })), [], manager);
  }
  assert.deepEqual(await created(slices, slice('IPv4', ['10.0.0.1'])), []);
});

test('an FQDN EndpointSlice is warned of on create only', async () => {
  assert.deepEqual(await created(slices, slice('FQDN', ['db.example.com'])), ['spec.addressType: FQDN endpoints are deprecated']);
  assert.deepEqual(await updated(slices, slice('FQDN', ['db.example.com']), slice('FQDN', ['db.example.com'], { a: 'b' })), []);
});

// ---- NetworkPolicies and Ingresses ----

const policies = builtinType('networkpolicies');
const ingresses = builtinType('ingresses');

const policy = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'default', generation: 1 }, spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'], ...spec },
});

test('NetworkPolicies warn of their ipBlock CIDRs, ingress then egress', async () => {
  const spec = {
    egress: [{ to: [{ ipBlock: { cidr: 'FD00:0::/64' } }] }],
    ingress: [{ from: [{ podSelector: {} }, { ipBlock: { cidr: 'fd00::/16', except: ['FD00:1::/32'] } }] }],
  };
  assert.deepEqual(await created(policies, policy(spec)), [
    'spec.ingress[0].from[1].ipBlock.except[0]: IPv6 CIDR value "FD00:1::/32" should be in RFC 5952 canonical format ("fd00:1::/32")',
    'spec.egress[0].to[0].ipBlock.cidr: IPv6 CIDR value "FD00:0::/64" should be in RFC 5952 canonical format ("fd00::/64")',
  ]);
  assert.deepEqual(await created(policies, policy({ ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }] })), []);
});

test('a NetworkPolicy update warns of the ambiguous CIDR it keeps', async () => {
  const old = policy({ ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.1/8' } }] }] });
  assert.deepEqual(await updated(policies, old, { ...structuredClone(old), metadata: { ...old.metadata, labels: { a: 'b' } } }), [
    'spec.ingress[0].from[0].ipBlock.cidr: CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)',
  ]);
});

const ingress = (annotations: Record<string, string>, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i', namespace: 'default', annotations },
  spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...spec },
});

test('an Ingress naming its class by the deprecated annotation is warned of on create only', async () => {
  const annotated = ingress({ 'kubernetes.io/ingress.class': 'nginx' });
  assert.deepEqual(await created(ingresses, annotated), ['annotation "kubernetes.io/ingress.class" is deprecated, please use \'spec.ingressClassName\' instead']);
  assert.deepEqual(await created(ingresses, ingress({ 'kubernetes.io/ingress.class': 'nginx' }, { ingressClassName: 'nginx' })), []);
  const old = (await storeCreate(ingresses, annotated)).obj;
  assert.deepEqual(await updated(ingresses, old, { ...structuredClone(old), metadata: { ...old.metadata, labels: { a: 'b' } } }), []);
});

test('ingresses/status warns of ingress IPs, at the entry\'s path', async () => {
  const old = (await storeCreate(ingresses, ingress({}))).obj;
  const next = { ...structuredClone(old), status: { loadBalancer: { ingress: [{ ip: 'fd00:0::1' }] } } };
  assert.deepEqual(await updated(ingresses, old, next, 'status'), ['status.loadBalancer.ingress[0]: IPv6 address "fd00:0::1" should be in RFC 5952 canonical format ("fd00::1")']);
});

// ---- Nodes ----

const nodes = builtinType('nodes');

const node = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec });

test('Nodes warn of externalID and non-canonical pod CIDRs; a valid node of nothing', async () => {
  assert.deepEqual(await created(nodes, node({ podCIDRs: ['10.244.0.0/24', 'fd00:10:244::/64'] })), []);
  assert.deepEqual(await created(nodes, node({ externalID: 'i-123', podCIDRs: ['FD00:10:244::/64'] })), [
    'spec.externalID: this field is deprecated, and is unused by Kubernetes',
    'spec.podCIDRs[0]: IPv6 CIDR value "FD00:10:244::/64" should be in RFC 5952 canonical format ("fd00:10:244::/64")',
  ]);
});

test('a Node\'s configSource is dropped on create, and warned of on an update that keeps it', async () => {
  const configSource = { configMap: { namespace: 'kube-system', name: 'kubelet', kubeletConfigKey: 'kubelet' } };
  const { obj } = await storeCreate(nodes, node({ configSource }));
  assert.deepEqual(obj.spec, {});
  const old = node({ configSource });
  assert.deepEqual(await updated(nodes, old, { ...structuredClone(old), metadata: { name: 'n', labels: { a: 'b' } } }), ['spec.configSource: the feature is removed']);
  const bare = node({});
  const { obj: kept } = await storeUpdate(nodes, node({ configSource }), bare);
  assert.deepEqual(kept.spec, {}, 'an update may not add one');
});
