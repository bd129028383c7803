// Bad input and exactness of networking.k8s.io/v1 Ingresses, IngressClasses and
// NetworkPolicies, discovery.k8s.io/v1 EndpointSlices and core v1 Endpoints, as kube-apiserver
// v1.36 validates, prepares and prints them (pkg/apis/networking/validation,
// pkg/apis/discovery/validation, pkg/apis/core/validation's ValidateEndpoints,
// pkg/registry/discovery/endpointslice's strategy, pkg/printers/internalversion).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { validateEndpointSlice } from '../../../src/registry/builtin/endpointslices.ts';
import type { ResourceType } from '../../../src/registry/resource-type.ts';
import { tableColumnsOf } from '../../../src/registry/table-columns.ts';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const ingresses = builtinType('ingresses');
const ingressClasses = builtinType('ingressclasses');
const slices = builtinType('endpointslices');
const endpoints = builtinType('endpoints');

const backend = { service: { name: 'web', port: { number: 80 } } };
const ingress = (spec: object, annotations?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) }, spec }) as KubeObject;
const ingressClass = (spec: object, annotations?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'nginx', ...(annotations ? { annotations } : {}) }, spec }) as KubeObject;
const slice = (body: object, labels?: Record<string, string>): KubeObject =>
  ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's', namespace: 'default', ...(labels ? { labels } : {}) }, ...body }) as KubeObject;

const created = async (type: ResourceType, obj: KubeObject) => fields((await storeCreate(type, obj)).causes);
const updated = async (type: ResourceType, next: KubeObject, old: KubeObject) => fields((await storeUpdate(type, next, old)).causes);

/** A row of `type`'s table as `{column: cell}`. */
function row(type: ResourceType, obj: KubeObject): Record<string, unknown> {
  const o = { ...obj, metadata: { creationTimestamp: '2024-05-01T11:55:00Z', ...obj.metadata } } as KubeObject;
  return Object.fromEntries(tableColumnsOf(type).map((c) => [c.name, c.cell(o, Date.parse('2024-05-01T12:00:00Z'))]));
}

describe('Ingress validation', () => {
  const cases: [string, KubeObject, string[]][] = [
    ['a create whose ingress.class annotation names another class than ingressClassName', ingress({ ingressClassName: 'a', defaultBackend: backend }, { 'kubernetes.io/ingress.class': 'b' }), [
      'annotations.kubernetes.io/ingress.class: Invalid value: "b": must match `ingressClassName` when both are specified',
    ]],
    ['an annotation naming the same class', ingress({ ingressClassName: 'a', defaultBackend: backend }, { 'kubernetes.io/ingress.class': 'a' }), []],
    ['an unknown pathType is a typed value: json.Marshal escapes it', ingress({ rules: [{ http: { paths: [{ path: '/', pathType: 'a<b', backend }] } }] }), [
      'spec.rules[0].http.paths[0].pathType: Unsupported value: "a\\u003cb": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    ]],
    ['a service name that is a DNS-1123 label but not DNS-1035 (RelaxedServiceNameValidation, on by default)', ingress({ defaultBackend: { service: { name: '1abc', port: { number: 80 } } } }), []],
    ['a service name that is no DNS-1123 label', ingress({ defaultBackend: { service: { name: 'Web', port: { number: 80 } } } }), [
      "spec.defaultBackend.service.name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]],
    ['a resource backend without kind and name: Required, no detail', ingress({ defaultBackend: { resource: {} } }), [
      'spec.defaultBackend.resource.kind: Required value',
      'spec.defaultBackend.resource.name: Required value',
    ]],
  ];
  for (const [name, obj, want] of cases) test(name, async () => assert.deepEqual(await created(ingresses, obj), want));

  test('an update may keep an ingress.class annotation that differs from ingressClassName', async () => {
    const old = ingress({ defaultBackend: backend }, { 'kubernetes.io/ingress.class': 'b' });
    assert.deepEqual(await updated(ingresses, ingress({ ingressClassName: 'a', defaultBackend: backend }, { 'kubernetes.io/ingress.class': 'b' }), old), []);
  });

  test('a stored invalid TLS secret name spares the new ones on update (allowInvalidSecretName)', async () => {
    const bad = (secretName: string) => ingress({ defaultBackend: backend, tls: [{ secretName }] });
    assert.deepEqual(await created(ingresses, bad('Bad_Secret')), [
      "spec.tls[0].secretName: Invalid value: \"Bad_Secret\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    assert.deepEqual(await updated(ingresses, bad('Other_Secret'), bad('Bad_Secret')), []);
    assert.equal((await updated(ingresses, bad('Other_Secret'), bad('good'))).length, 1);
  });

  test('a stored wildcard-host rule with invalid paths spares the paths of wildcard rules on update (allowInvalidWildcardHostRule)', async () => {
    const rule = (host: string, path: string) => ({ host, http: { paths: [{ path, pathType: 'Exact', backend }] } });
    const old = ingress({ rules: [rule('*.example.com', 'a')] });
    assert.deepEqual(await updated(ingresses, ingress({ rules: [rule('*.example.com', 'b')] }), old), []);
    // Rules with a plain host are checked as always.
    assert.deepEqual(await updated(ingresses, ingress({ rules: [rule('*.example.com', 'b'), rule('x.example.com', 'c')] }), old), [
      'spec.rules[1].http.paths[0].path: Invalid value: "c": must be an absolute path',
    ]);
    assert.deepEqual(await updated(ingresses, ingress({ rules: [rule('*.example.com', 'b')] }), ingress({ rules: [rule('*.example.com', '/a')] })), [
      'spec.rules[0].http.paths[0].path: Invalid value: "b": must be an absolute path',
    ]);
  });
});

describe('Ingress table (printIngress)', () => {
  test('Class is spec.ingressClassName only, never the deprecated annotation', () => {
    assert.equal(row(ingresses, ingress({ defaultBackend: backend }, { 'kubernetes.io/ingress.class': 'nginx' })).Class, '<none>');
    assert.equal(row(ingresses, ingress({ ingressClassName: 'public', defaultBackend: backend })).Class, 'public');
  });

  const hosts: [string, string[], string][] = [
    ['no hosts', ['', ''], '*'],
    ['three hosts, then a hostless rule: "more" counts it', ['a.io', 'b.io', 'c.io', ''], 'a.io,b.io,c.io + 1 more...'],
    ['hostless rules among the first ones count in N', ['a.io', '', 'b.io', 'c.io', 'd.io'], 'a.io,b.io,c.io + 2 more...'],
    ['exactly three', ['a.io', 'b.io', 'c.io'], 'a.io,b.io,c.io'],
  ];
  for (const [name, list, want] of hosts) {
    test(`Hosts: ${name}`, () => {
      const rules = list.map((host) => (host === '' ? {} : { host }));
      assert.equal(row(ingresses, ingress({ rules })).Hosts, want);
    });
  }

  test('Address: each entry\'s IP or hostname, unique and sorted', () => {
    const obj = { ...ingress({ defaultBackend: backend }), status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }, { ip: '10.0.0.2' }, { ip: '10.0.0.1' }, { ip: '10.0.0.2' }] } } } as KubeObject;
    assert.equal(row(ingresses, obj).Address, '10.0.0.1,10.0.0.2,lb.example.com');
  });
});

describe('IngressClass', () => {
  test('an update reports each error of the class once, after the immutable controller', async () => {
    const next = ingressClass({ controller: 'a.io/other', parameters: { kind: 'K', name: 'n', scope: 'Bogus' } });
    assert.deepEqual(await updated(ingressClasses, next, ingressClass({ controller: 'a.io/b' })), [
      'spec.controller: Invalid value: "a.io/other": field is immutable',
      'spec.parameters.scope: Unsupported value: "Bogus": supported values: "Cluster", "Namespace"',
    ]);
  });

  test('parameters without kind and name: Required, no detail', async () => {
    assert.deepEqual(await created(ingressClasses, ingressClass({ controller: 'a.io/b', parameters: { apiGroup: 'k8s.example.com' } })), [
      'spec.parameters.kind: Required value',
      'spec.parameters.name: Required value',
    ]);
  });

  test('the table marks the default class', () => {
    assert.equal(row(ingressClasses, ingressClass({ controller: 'a.io/b' }, { 'ingressclass.kubernetes.io/is-default-class': 'true' })).Name, 'nginx (default)');
    assert.equal(row(ingressClasses, ingressClass({ controller: 'a.io/b' }, { 'ingressclass.kubernetes.io/is-default-class': 'false' })).Name, 'nginx');
  });
});

describe('EndpointSlice validation', () => {
  const labelValueError = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  const subdomainError = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const withHints = (hints: object) => slice({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], hints }] });
  const cases: [string, KubeObject, string[]][] = [
    ['an unknown addressType is a typed value: json.Marshal escapes it', slice({ addressType: 'a<b' }), [
      'addressType: Unsupported value: "a\\u003cb": supported values: "FQDN", "IPv4", "IPv6"',
    ]],
    ['an unknown port protocol likewise', slice({ addressType: 'IPv4', ports: [{ name: 'a', protocol: 'a&b' }] }), [
      'ports[0].protocol: Unsupported value: "a\\u0026b": supported values: "SCTP", "TCP", "UDP"',
    ]],
    ['port numbers are not checked', slice({ addressType: 'IPv4', ports: [{ name: 'a', port: 0 }, { name: 'b', port: 70000 }] }), []],
    ['zone hints are label values: an empty name is one', withHints({ forZones: [{ name: '' }] }), []],
    ['a zone hint that is no label value, twice: duplicate and invalid both', withHints({ forZones: [{ name: 'a/b' }, { name: 'a/b' }] }), [
      `endpoints[0].hints.forZones[0].name: Invalid value: "a/b": ${labelValueError}`,
      'endpoints[0].hints.forZones[1].name: Duplicate value: "a/b"',
      `endpoints[0].hints.forZones[1].name: Invalid value: "a/b": ${labelValueError}`,
    ]],
    ['node hints are node names, each once', withHints({ forNodes: [{ name: 'node-1' }, { name: 'Node_2' }, { name: 'node-1' }] }), [
      `endpoints[0].hints.forNodes[1].name: Invalid value: "Node_2": ${subdomainError}`,
      'endpoints[0].hints.forNodes[2].name: Duplicate value: "node-1"',
    ]],
    ['at most 8 node hints', withHints({ forNodes: Array.from({ length: 9 }, (_, i) => ({ name: `node-${i}` })) }), [
      'endpoints[0].hints.forNodes: Too many: 9: must have at most 8 items',
    ]],
    ['too many zone hints end the hints\' checks', withHints({ forZones: Array.from({ length: 9 }, (_, i) => ({ name: `z${i}` })), forNodes: [{ name: 'Bad_Node' }] }), [
      'endpoints[0].hints.forZones: Too many: 9: must have at most 8 items',
    ]],
  ];
  for (const [name, obj, want] of cases) test(name, async () => assert.deepEqual(await created(slices, obj), want));

  test('the reserved zone key in stored deprecatedTopology is an internal error in upstream\'s words', () => {
    const obj = slice({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'topology.kubernetes.io/zone': 'a' } }] });
    assert.deepEqual(fields(validateEndpointSlice(obj)), [
      'endpoints[0].deprecatedTopology[topology.kubernetes.io/zone]: Internal error: reserved key was not removed in conversion',
    ]);
  });
});

describe('EndpointSlice strategy', () => {
  const endpoint = (address: string, extra: object = {}) => ({ addresses: [address], ...extra });

  test('v1 drops deprecatedTopology on create, reserved keys and all', async () => {
    const { obj, causes } = await storeCreate(slices, slice({ addressType: 'IPv4', endpoints: [endpoint('10.0.0.1', { deprecatedTopology: { 'topology.kubernetes.io/zone': 'a', 'kubernetes.io/hostname': 'node-1' } })] }));
    assert.deepEqual(causes, []);
    assert.deepEqual(obj.endpoints, [{ addresses: ['10.0.0.1'], conditions: {} }]);
  });

  test('an update that changes the endpoints drops deprecatedTopology, moving a stored node name to nodeName', async () => {
    const topology = { 'kubernetes.io/hostname': 'node-1' };
    const old = slice({ addressType: 'IPv4', endpoints: [endpoint('10.0.0.1', { deprecatedTopology: topology })] });
    const next = slice({ addressType: 'IPv4', endpoints: [endpoint('10.0.0.2', { deprecatedTopology: topology }), endpoint('10.0.0.3', { deprecatedTopology: { 'kubernetes.io/hostname': 'node-9' } })] });
    const { obj, causes } = await storeUpdate(slices, next, old);
    assert.deepEqual(causes, []);
    assert.deepEqual(obj.endpoints, [{ addresses: ['10.0.0.2'], nodeName: 'node-1', conditions: {} }, { addresses: ['10.0.0.3'], conditions: {} }]);
  });

  test('an update that leaves the endpoints as they were keeps deprecatedTopology', async () => {
    const old = slice({ addressType: 'IPv4', endpoints: [endpoint('10.0.0.1', { deprecatedTopology: { 'kubernetes.io/hostname': 'node-1' } })] });
    const { obj, causes } = await storeUpdate(slices, { ...old, metadata: { ...old.metadata, labels: { a: 'b' } } }, old);
    assert.deepEqual(causes, []);
    assert.deepEqual((obj.endpoints as { deprecatedTopology?: unknown }[])[0]?.deprecatedTopology, { 'kubernetes.io/hostname': 'node-1' });
  });

  test('generation: 1 on create, bumped by any change but metadata\'s, labels\' too', async () => {
    const first = await storeCreate(slices, slice({ addressType: 'IPv4', endpoints: [endpoint('10.0.0.1')] }));
    assert.equal(first.obj.metadata.generation, 1);
    const same = await storeUpdate(slices, { ...first.obj, metadata: { ...first.obj.metadata, annotations: { a: 'b' } } }, first.obj);
    assert.equal(same.obj.metadata.generation, 1);
    const moved = await storeUpdate(slices, { ...first.obj, endpoints: [endpoint('10.0.0.2')] }, first.obj);
    assert.equal(moved.obj.metadata.generation, 2);
    const relabelled = await storeUpdate(slices, { ...first.obj, metadata: { ...first.obj.metadata, labels: { a: 'b' } } }, first.obj);
    assert.equal(relabelled.obj.metadata.generation, 2);
  });
});

describe('Endpoints', () => {
  const ep = (subsets: unknown[]): KubeObject => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e', namespace: 'default' }, subsets }) as KubeObject;

  test('an unknown port protocol is a typed value: json.Marshal escapes it', async () => {
    assert.deepEqual(await created(endpoints, ep([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'a<b' }] }])), [
      'subsets[0].ports[0].protocol: Unsupported value: "a\\u003cb": supported values: "SCTP", "TCP", "UDP"',
    ]);
  });

  test('more than 1000 addresses are stored whole: truncating is the controller\'s business', async () => {
    const addresses = Array.from({ length: 1200 }, (_, i) => ({ ip: `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}` }));
    const { obj, causes } = await storeCreate(endpoints, ep([{ addresses }]));
    assert.deepEqual(causes, []);
    assert.equal((obj.subsets as { addresses: unknown[] }[])[0]?.addresses.length, 1200);
    assert.equal(obj.metadata.annotations?.['endpoints.kubernetes.io/over-capacity'], undefined);
  });
});

describe('over HTTP', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(async () => {
    await server?.stop();
  });

  test('an ingress whose annotation contradicts ingressClassName answers a 422 Status', async () => {
    const ns = await server.newNamespace('ing-sweep');
    const res = await server.request('POST', `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`, {
      body: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'web', annotations: { 'kubernetes.io/ingress.class': 'b' } }, spec: { ingressClassName: 'a', defaultBackend: backend } },
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.kind, 'Status');
    assert.equal(res.json.reason, 'Invalid');
    assert.equal(res.json.message, 'Ingress.networking.k8s.io "web" is invalid: annotations.kubernetes.io/ingress.class: Invalid value: "b": must match `ingressClassName` when both are specified');
  });

  test('an EndpointSlice of the wrong shape answers a 400 Status, never a crash', async () => {
    const ns = await server.newNamespace('es-sweep');
    const res = await server.request('POST', `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
      body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], hints: { forNodes: [{ name: 5 }] } }] },
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.reason, 'BadRequest');
    const ok = await server.request('POST', `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
      body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'kubernetes.io/hostname': 'n' } }] },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.json.metadata.generation, 1);
    assert.equal(ok.json.endpoints[0].deprecatedTopology, undefined);
  });
});

describe('required fields the types\' validation decides, not the schema', () => {
  test('a zone hint without a name is the empty label value: accepted', async () => {
    const hinted = slice({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{}] } }] });
    assert.deepEqual(await created(slices, hinted), []);
  });

  test('a path without pathType or backend is told of its pathType alone', async () => {
    assert.deepEqual(await created(ingresses, ingress({ rules: [{ http: { paths: [{ path: '/' }] } }] })), [
      'spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
    ]);
  });
});
