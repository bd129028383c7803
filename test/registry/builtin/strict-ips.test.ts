// Strict validation of the network types' legacy IP and CIDR fields (KEP-4858,
// StrictIPCIDRValidation on in v1.36), and upstream's ratcheting: an update may keep the
// invalid values the stored object held (for Endpoints and EndpointSlices, only by leaving
// the whole subsets / endpoints as they were), never add new ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const services = builtinType('services');
const endpoints = builtinType('endpoints');
const slices = builtinType('endpointslices');
const policies = builtinType('networkpolicies');
const ingresses = builtinType('ingresses');
const nodes = builtinType('nodes');

const cidrMessage = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';
const sourceRangesAnnotation = 'service.beta.kubernetes.io/load-balancer-source-ranges';

function service(spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) }, spec };
}

/** Causes of an update of `old` (stored as it is, past validation) into `next`. */
async function updateCauses(type: typeof services, old: KubeObject, next: KubeObject, subresource = ''): Promise<string[]> {
  return fields((await storeUpdate(type, next, old, subresource)).causes);
}

/** `obj` with a label added: an update that changes nothing the validation looks at. */
function relabelled(obj: KubeObject): KubeObject {
  return { ...structuredClone(obj), metadata: { ...obj.metadata, labels: { touched: 'yes' } } };
}

const lb = { type: 'LoadBalancer', ports: [{ port: 80 }] };

const serviceCreateCases: { name: string; spec: Record<string, unknown>; annotations?: Record<string, string>; causes: string[] }[] = [
  { name: 'a clusterIP with leading zeros', spec: { clusterIP: '10.096.0.10', ports: [{ port: 80 }] }, causes: ['spec.clusterIPs[0]: Invalid value: "10.096.0.10": must not have leading 0s'] },
  { name: 'an IPv4-mapped clusterIP', spec: { clusterIP: '::ffff:10.96.0.10', ports: [{ port: 80 }] }, causes: ['spec.clusterIPs[0]: Invalid value: "::ffff:10.96.0.10": must not be an IPv4-mapped IPv6 address'] },
  { name: 'an external IP with leading zeros', spec: { externalIPs: ['1.2.3.04'], ports: [{ port: 80 }] }, causes: ['spec.externalIPs[0]: Invalid value: "1.2.3.04": must not have leading 0s'] },
  { name: 'an external IP that is no IP', spec: { externalIPs: ['example.com'], ports: [{ port: 80 }] }, causes: ['spec.externalIPs[0]: Invalid value: "example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'] },
  {
    name: 'external IPs ValidateEndpointIP refuses',
    spec: { externalIPs: ['0.0.0.0', '127.0.0.2', 'fe80::1', 'ff12::1'], ports: [{ port: 80 }] },
    causes: [
      'spec.externalIPs[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
      'spec.externalIPs[1]: Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      'spec.externalIPs[2]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
      'spec.externalIPs[3]: Invalid value: "ff12::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
    ],
  },
  {
    name: 'a source range with host bits (its padding trimmed)',
    spec: { ...lb, loadBalancerSourceRanges: [' 10.0.0.0/8', '10.0.0.1/8 '] },
    causes: ['spec.LoadBalancerSourceRanges[1]: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length'],
  },
  {
    name: 'source ranges on a ClusterIP service',
    spec: { ports: [{ port: 80 }], loadBalancerSourceRanges: ['10.0.0.0/08'] },
    causes: [
      "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
      'spec.LoadBalancerSourceRanges[0]: Invalid value: "10.0.0.0/08": must not have leading 0s in IP or prefix length',
    ],
  },
  {
    name: 'the source-ranges annotation, each entry checked',
    spec: lb,
    annotations: { [sourceRangesAnnotation]: ' 10.0.0.0/8, ::ffff:1.2.3.0/120,x ' },
    causes: [
      `metadata.annotations[${sourceRangesAnnotation}]: Invalid value: "::ffff:1.2.3.0/120": must not have an IPv4-mapped IPv6 address`,
      `metadata.annotations[${sourceRangesAnnotation}]: Invalid value: "x": ${cidrMessage}`,
    ],
  },
  {
    name: 'the annotation on a ClusterIP service',
    spec: { ports: [{ port: 80 }] },
    annotations: { [sourceRangesAnnotation]: '10.0.0.0/8' },
    causes: [`metadata.annotations[${sourceRangesAnnotation}]: Forbidden: may only be used when \`type\` is 'LoadBalancer'`],
  },
  { name: 'the annotation is ignored beside the field', spec: { ...lb, loadBalancerSourceRanges: ['10.0.0.0/8'] }, annotations: { [sourceRangesAnnotation]: 'x' }, causes: [] },
  { name: 'a loadBalancerIP is not validated', spec: { ...lb, loadBalancerIP: '10.0.0.01' }, causes: [] },
  { name: 'canonical and non-canonical IPv6 both pass', spec: { ...lb, externalIPs: ['2001:db8::1', '2001:DB8:0::2'], loadBalancerSourceRanges: ['FD00:0::/64'] }, causes: [] },
];

for (const c of serviceCreateCases) {
  test(`Service create: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(services, service(structuredClone(c.spec), c.annotations))).causes), c.causes);
  });
}

// A Service as an older release stored it, with values now refused.
const legacyService = service({
  type: 'LoadBalancer', clusterIP: '10.096.0.10', clusterIPs: ['10.096.0.10'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack',
  ports: [{ port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30080 }], sessionAffinity: 'None', externalTrafficPolicy: 'Cluster',
  internalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true,
  externalIPs: ['1.2.3.04'], loadBalancerSourceRanges: ['10.0.0.1/8 '],
}, { [sourceRangesAnnotation]: '1.2.3.0/024' });
legacyService.status = { loadBalancer: { ingress: [{ ip: '5.6.7.08', ipMode: 'VIP' }] } };

test('Service update: the invalid values the stored service held are kept', async () => {
  assert.deepEqual(await updateCauses(services, legacyService, relabelled(legacyService)), []);
});

test('Service update: a kept value may move; a new invalid one is refused beside it', async () => {
  const next = relabelled(legacyService);
  const spec = next.spec as Record<string, unknown>;
  spec.externalIPs = ['9.9.9.9', '1.2.3.04', '9.9.9.09'];
  spec.loadBalancerSourceRanges = [' 10.0.0.1/8', '10.0.0.2/8'];
  assert.deepEqual(await updateCauses(services, legacyService, next), [
    'spec.externalIPs[2]: Invalid value: "9.9.9.09": must not have leading 0s',
    'spec.LoadBalancerSourceRanges[1]: Invalid value: "10.0.0.2/8": must not have bits set beyond the prefix length',
  ]);
});

test('Service update: the source-ranges annotation is checked only when it changes', async () => {
  const { [sourceRangesAnnotation]: _annotation, ...others } = legacyService.metadata.annotations!;
  const withoutField = structuredClone(legacyService);
  delete (withoutField.spec as Record<string, unknown>).loadBalancerSourceRanges;
  assert.deepEqual(await updateCauses(services, withoutField, relabelled(withoutField)), []);
  const changed = relabelled(withoutField);
  changed.metadata.annotations = { ...others, [sourceRangesAnnotation]: '1.2.3.0/024,5.6.7.0/24' };
  assert.deepEqual(await updateCauses(services, withoutField, changed), [
    `metadata.annotations[${sourceRangesAnnotation}]: Invalid value: "1.2.3.0/024": must not have leading 0s in IP or prefix length`,
  ]);
});

test('Service status: ingress IPs are strict, the stored ones kept', async () => {
  const next = structuredClone(legacyService);
  const status = next.status as { loadBalancer: { ingress: Record<string, unknown>[] } };
  assert.deepEqual(await updateCauses(services, legacyService, next, 'status'), []);
  status.loadBalancer.ingress.push({ ip: '::ffff:5.6.7.8', ipMode: 'VIP' }, { hostname: '5.6.7.8' }, { ip: '5.6.7.9', ipMode: 'Direct' }, { ipMode: 'VIP' });
  assert.deepEqual(await updateCauses(services, legacyService, next, 'status'), [
    'status.loadBalancer.ingress[1].ip: Invalid value: "::ffff:5.6.7.8": must not be an IPv4-mapped IPv6 address',
    'status.loadBalancer.ingress[2].hostname: Invalid value: "5.6.7.8": must be a DNS name, not an IP address',
    'status.loadBalancer.ingress[3].ipMode: Unsupported value: "Direct": supported values: "Proxy", "VIP"',
    'status.loadBalancer.ingress[4].ipMode: Forbidden: may not be specified when `ip` is not set',
  ]);
});

test('Service status: only a LoadBalancer has ingress points', async () => {
  const old = (await storeCreate(services, service({ ports: [{ port: 80 }] }))).obj;
  const next = { ...structuredClone(old), status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }] } } };
  assert.deepEqual(await updateCauses(services, old, next, 'status'), ["status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"]);
});

// ---- Endpoints and EndpointSlices: invalid addresses stay only with the whole list as it was ----

const legacyEndpoints: KubeObject = {
  apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'default' },
  subsets: [{ addresses: [{ ip: '10.0.0.01' }], notReadyAddresses: [{ ip: '::ffff:10.0.0.2' }], ports: [{ port: 80, protocol: 'TCP' }] }],
};

const legacySlice: KubeObject = {
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abc', namespace: 'default' },
  addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.01', '::ffff:10.0.0.2'] }], ports: [{ name: '', port: 80, protocol: 'TCP' }],
};

const wholeListCases: { name: string; type: typeof endpoints; legacy: KubeObject; grow: (obj: KubeObject) => void; causes: string[] }[] = [
  {
    name: 'Endpoints (subsets)',
    type: endpoints,
    legacy: legacyEndpoints,
    grow: (obj) => (obj.subsets as { addresses: { ip: string }[] }[])[0]!.addresses.push({ ip: '10.0.0.3' }),
    causes: [
      'subsets[0].addresses[0].ip: Invalid value: "10.0.0.01": must not have leading 0s',
      'subsets[0].notReadyAddresses[0].ip: Invalid value: "::ffff:10.0.0.2": must not be an IPv4-mapped IPv6 address',
    ],
  },
  {
    name: 'EndpointSlice (endpoints)',
    type: slices,
    legacy: legacySlice,
    grow: (obj) => (obj.endpoints as { addresses: string[] }[]).push({ addresses: ['10.0.0.3'] }),
    causes: [
      'endpoints[0].addresses[0]: Invalid value: "10.0.0.01": must not have leading 0s',
      'endpoints[0].addresses[1]: Invalid value: "::ffff:10.0.0.2": must not be an IPv4-mapped IPv6 address',
    ],
  },
];

for (const c of wholeListCases) {
  test(`${c.name}: a create's addresses are strict IPs`, async () => {
    assert.deepEqual(fields((await storeCreate(c.type, c.legacy)).causes), c.causes);
  });

  test(`${c.name}: an update leaving the list as it was keeps its invalid addresses; one changing it is checked whole`, async () => {
    assert.deepEqual(await updateCauses(c.type, c.legacy, relabelled(c.legacy)), []);
    const grown = relabelled(c.legacy);
    c.grow(grown);
    assert.deepEqual(await updateCauses(c.type, c.legacy, grown), c.causes);
  });
}

test('EndpointSlice create: an IPv6 slice takes non-canonical addresses, not special ones', async () => {
  const v6 = { ...legacySlice, addressType: 'IPv6', endpoints: [{ addresses: ['2001:DB8:0::1', 'fe80::1'] }] };
  assert.deepEqual(fields((await storeCreate(slices, v6)).causes), [
    'endpoints[0].addresses[1]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
  ]);
});

test('EndpointSlice: port errors come before endpoint errors', async () => {
  const slice = { ...legacySlice, ports: [{ name: 'a', port: 80, protocol: 'ICMP' }] };
  assert.deepEqual(fields((await storeCreate(slices, slice)).causes), [
    'ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    'endpoints[0].addresses[0]: Invalid value: "10.0.0.01": must not have leading 0s',
    'endpoints[0].addresses[1]: Invalid value: "::ffff:10.0.0.2": must not be an IPv4-mapped IPv6 address',
  ]);
});

// ---- NetworkPolicies: any CIDR the stored policy held is kept, wherever it moves ----

function policy(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'default', generation: 1 }, spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'], ...spec } };
}

const legacyPolicy = policy({ ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.1/8', except: ['10.1.0.0/016'] } }] }] });

test('NetworkPolicy create: ipBlock CIDRs are strict', async () => {
  assert.deepEqual(fields((await storeCreate(policies, legacyPolicy)).causes), [
    'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length',
    'spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "10.1.0.0/016": must not have leading 0s in IP or prefix length',
  ]);
});

test('NetworkPolicy update: stored CIDRs are kept even when moved; a new invalid one is refused, once', async () => {
  assert.deepEqual(await updateCauses(policies, legacyPolicy, relabelled(legacyPolicy)), []);
  const moved = policy({ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.1/8', except: ['10.1.0.0/016', '10.2.0.1/16'] } }] }] });
  assert.deepEqual(await updateCauses(policies, legacyPolicy, moved), [
    'spec.egress[0].to[0].ipBlock.except[1]: Invalid value: "10.2.0.1/16": must not have bits set beyond the prefix length',
  ]);
});

// ---- Ingresses: status IPs ----

const legacyIngress: KubeObject = {
  apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i', namespace: 'default', generation: 1 },
  spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
  status: { loadBalancer: { ingress: [{ ip: '5.6.7.08' }] } },
};

test('Ingress status: ingress IPs are strict, the stored ones kept, hostnames DNS names', async () => {
  assert.deepEqual(await updateCauses(ingresses, legacyIngress, relabelled(legacyIngress), 'status'), []);
  const next = structuredClone(legacyIngress);
  (next.status as { loadBalancer: { ingress: Record<string, unknown>[] } }).loadBalancer.ingress.push({ ip: '5.6.7.09' }, { hostname: 'Not_A_Host' });
  assert.deepEqual(await updateCauses(ingresses, legacyIngress, next, 'status'), [
    'status.loadBalancer.ingress[1].ip: Invalid value: "5.6.7.09": must not have leading 0s',
    "status.loadBalancer.ingress[2].hostname: Invalid value: \"Not_A_Host\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
});

test('Ingress update: a spec error is reported once', async () => {
  const next = { ...structuredClone(legacyIngress), spec: {} };
  assert.deepEqual(await updateCauses(ingresses, legacyIngress, next), ['spec: Invalid value: null: either `defaultBackend` or `rules` must be specified']);
});

// ---- Nodes: pod CIDRs ----

const nodeCases: { name: string; spec: Record<string, unknown>; causes: string[] }[] = [
  { name: 'a pod CIDR with host bits', spec: { podCIDRs: ['10.244.0.1/24'] }, causes: ['spec.podCIDRs[0]: Invalid value: "10.244.0.1/24": must not have bits set beyond the prefix length'] },
  { name: 'the single podCIDR, at podCIDRs\' path', spec: { podCIDR: '10.244.0.0/024' }, causes: ['spec.podCIDRs[0]: Invalid value: "10.244.0.0/024": must not have leading 0s in IP or prefix length'] },
  { name: 'a dual-stack pair', spec: { podCIDRs: ['10.244.0.0/24', 'fd00:10:244::/64'] }, causes: [] },
  { name: 'two of one family', spec: { podCIDRs: ['10.244.0.0/24', '10.245.0.0/24'] }, causes: ['spec.podCIDRs: Invalid value: ["10.244.0.0/24","10.245.0.0/24"]: may specify no more than one CIDR for each IP family'] },
  {
    name: 'an unparseable one of two',
    spec: { podCIDRs: ['10.244.0.0/24', 'bad'] },
    causes: [
      `spec.podCIDRs[1]: Invalid value: "bad": ${cidrMessage}`,
      'spec.podCIDRs: Internal error: invalid PodCIDRs. failed to check with dual stack with error:failed to parse cidr value:"bad" with error:invalid CIDR address: bad',
      'spec.podCIDRs: Invalid value: ["10.244.0.0/24","bad"]: may specify no more than one CIDR for each IP family',
    ],
  },
];

for (const c of nodeCases) {
  test(`Node create: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: c.spec })).causes), c.causes);
  });
}

test('Node update: upstream keeps no stored pod CIDR that is now invalid (ValidateNode passes no old values)', async () => {
  const old: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: { podCIDRs: ['10.244.0.1/24'] } };
  assert.deepEqual(await updateCauses(nodes, old, relabelled(old)), ['spec.podCIDRs[0]: Invalid value: "10.244.0.1/24": must not have bits set beyond the prefix length']);
  assert.deepEqual(await updateCauses(nodes, old, relabelled(old), 'status'), [], 'nodes/status does not check them');
});
