// RBAC, EndpointSlice and CertificateSigningRequest validation as upstream's
// pkg/apis/{rbac,discovery,certificates}/validation, case by case through the types' strategies.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isStatusError, type KubeObject, type StatusCause } from '../../../src/api/index.ts';
import { memoryStore } from '../../helpers/store.ts';
import { rbacTypes } from '../../../src/registry/builtin/rbac.ts';
import { endpointSlicesType } from '../../../src/registry/builtin/endpointslices.ts';
import { certificateSigningRequestsType, validateSignerName } from '../../../src/registry/builtin/certificatesigningrequests.ts';
import type { ResourceType } from '../../../src/registry/resource-type.ts';
import { tableColumnsOf } from '../../../src/registry/table-columns.ts';

const [roles, roleBindings, clusterRoles, clusterRoleBindings] = rbacTypes() as [ResourceType, ResourceType, ResourceType, ResourceType];
const slices = endpointSlicesType();
const csrs = certificateSigningRequestsType();

/** What a create reports: the strategy's defaults, then its causes as "field: message". */
function createErrors(type: ResourceType, obj: Record<string, unknown>): string[] {
  const o = structuredClone({ metadata: { name: 'x', namespace: 'ns' }, ...obj }) as KubeObject;
  type.strategy.defaults?.(o);
  type.strategy.prepareForCreate?.(o);
  return (type.strategy.validate?.(o) ?? []).map((c: StatusCause) => `${c.field}: ${c.message}`);
}

function updateErrors(type: ResourceType, old: Record<string, unknown>, next: Record<string, unknown>): string[] {
  const o = structuredClone({ metadata: { name: 'x', namespace: 'ns' }, ...old }) as KubeObject;
  const n = structuredClone({ metadata: { name: 'x', namespace: 'ns' }, ...next }) as KubeObject;
  type.strategy.defaults?.(o);
  type.strategy.prepareForCreate?.(o);
  type.strategy.defaults?.(n);
  type.strategy.prepareForUpdate?.(n, o);
  return [...(type.strategy.validate?.(n) ?? []), ...(type.strategy.validateUpdate?.(n, o) ?? [])].map((c) => `${c.field}: ${c.message}`);
}

describe('RBAC roles: policy rules', () => {
  const cases: [string, ResourceType, unknown[], string[]][] = [
    ['a resource rule', roles, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], []],
    ['verbs are required', roles, [{ apiGroups: [''], resources: ['pods'] }], ['rules[0].verbs: Required value: verbs must contain at least one value']],
    ['resource rules need api groups and resources', clusterRoles, [{ verbs: ['get'] }], [
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[0].resources: Required value: resource rules must supply at least one resource',
    ]],
    ['non-resource URLs in a cluster role', clusterRoles, [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], []],
    ['non-resource URLs in a namespaced role', roles, [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }], [
      'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
    ]],
    ['non-resource URLs mixed with resources', clusterRoles, [{ verbs: ['get'], nonResourceURLs: ['/healthz'], resources: ['pods'] }], [
      'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: rules cannot apply to both regular resources and non-resource URLs',
    ]],
  ];
  for (const [name, type, rules, expected] of cases) {
    test(name, () => assert.deepEqual(createErrors(type, { rules }), expected));
  }

  test('an aggregation rule needs a selector, and valid ones', () => {
    assert.deepEqual(createErrors(clusterRoles, { aggregationRule: { clusterRoleSelectors: [] } }), [
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
    assert.deepEqual(createErrors(clusterRoles, { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] } }), []);
    // The selector's own error, then upstream's LabelSelectorAsSelector failing on it.
    const bad = createErrors(clusterRoles, { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'bad key!': 'x' } }] } });
    assert.equal(bad.length, 2);
    assert.equal(bad[1], 'aggregationRule.clusterRoleSelectors[0]: Invalid value: null: invalid label selector.');
  });
});

describe('RBAC bindings', () => {
  const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' };
  const cases: [string, ResourceType, Record<string, unknown>, string[]][] = [
    ['a binding of users, groups and service accounts', roleBindings, {
      roleRef, subjects: [{ kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'default' }],
    }, []],
    ['roleRef.apiGroup is defaulted', roleBindings, { roleRef: { kind: 'ClusterRole', name: 'view' } }, []],
    ['roleRef kind and name', roleBindings, { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Pod', name: '' } }, [
      'roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"',
      'roleRef.name: Required value',
    ]],
    ['roleRef apiGroup', roleBindings, { roleRef: { ...roleRef, apiGroup: 'example.com' } }, [
      'roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
    ]],
    ['a ClusterRoleBinding binds only ClusterRoles', clusterRoleBindings, { roleRef }, [
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    ]],
    ['a cluster binding names the service account\'s namespace', clusterRoleBindings, {
      roleRef: { ...roleRef, kind: 'ClusterRole' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }],
    }, ['subjects[0].namespace: Required value']],
    ['subject kinds, names and groups', roleBindings, {
      roleRef, subjects: [{ kind: 'Robot', name: 'r2' }, { kind: 'User', name: '' }, { kind: 'ServiceAccount', name: 'Bad_Name', apiGroup: 'x' }, { kind: 'Group', name: 'g', apiGroup: 'example.com' }],
    }, [
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
      'subjects[1].name: Required value',
      'subjects[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      'subjects[2].apiGroup: Unsupported value: "x": supported values: ""',
      'subjects[3].apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"',
    ]],
  ];
  for (const [name, type, obj, expected] of cases) {
    test(name, () => assert.deepEqual(createErrors(type, obj), expected));
  }

  test('subjects get the RBAC group, but a service account\'s empty group stays out of the JSON (omitempty)', () => {
    const o = { metadata: { name: 'x', namespace: 'ns' }, roleRef: { kind: 'Role', name: 'r' }, subjects: [
      { kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa' }, { kind: 'ServiceAccount', name: 'sb', apiGroup: '' },
    ] } as unknown as KubeObject;
    roleBindings.strategy.defaults?.(o);
    assert.deepEqual(o.roleRef, { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' });
    assert.deepEqual(o.subjects, [
      { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'ServiceAccount', name: 'sa' }, { kind: 'ServiceAccount', name: 'sb' },
    ]);
  });

  test('roleRef is immutable', () => {
    assert.deepEqual(updateErrors(roleBindings, { roleRef }, { roleRef: { ...roleRef, name: 'other' } }), [
      'roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"Role","Name":"other"}: cannot change roleRef',
    ]);
    assert.deepEqual(updateErrors(roleBindings, { roleRef }, { roleRef, subjects: [{ kind: 'User', name: 'bob' }] }), []);
  });

  test('wide columns list users, groups and service accounts', () => {
    const columns = tableColumnsOf(roleBindings);
    assert.deepEqual(columns.map((c) => [c.name, c.priority ?? 0]), [['Name', 0], ['Role', 0], ['Age', 0], ['Users', 1], ['Groups', 1], ['ServiceAccounts', 1]]);
    const binding = { metadata: { name: 'b', namespace: 'ns' }, roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [
      { kind: 'User', name: 'alice' }, { kind: 'User', name: 'bob' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
    ] } as unknown as KubeObject;
    assert.deepEqual(columns.filter((c) => c.name !== 'Age').map((c) => c.cell(binding, 0)), ['b', 'ClusterRole/view', 'alice, bob', 'devs', 'ns/sa']);
  });
});

describe('EndpointSlices', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['IPv4 endpoints and a named port', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ name: 'http', port: 80 }] }, []],
    ['FQDN endpoints', { addressType: 'FQDN', endpoints: [{ addresses: ['db.example.com'] }] }, []],
    ['addressType is required', { endpoints: [] }, ['addressType: Required value']],
    ['addressType values', { addressType: 'IPv5' }, ['addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"']],
    // A legacy field's IP first; upstream reports a wrong family at the addresses list.
    ['addresses follow the type', { addressType: 'IPv4', endpoints: [{ addresses: ['fd00::1'] }, { addresses: ['300.1.1.1'] }] }, [
      'endpoints[0].addresses: Invalid value: "fd00::1": must be an IPv4 address',
      'endpoints[1].addresses[0]: Invalid value: "300.1.1.1": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]],
    ['IPv6 addresses', { addressType: 'IPv6', endpoints: [{ addresses: ['10.0.0.1'] }] }, ['endpoints[0].addresses: Invalid value: "10.0.0.1": must be an IPv6 address']],
    ['an endpoint has an address', { addressType: 'IPv4', endpoints: [{ addresses: [] }] }, ['endpoints[0].addresses: Required value: must contain at least 1 address']],
    ['no loopback endpoints', { addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'] }] }, [
      'endpoints[0].addresses[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ]],
    ['FQDN needs two labels', { addressType: 'FQDN', endpoints: [{ addresses: ['db'] }] }, [
      'endpoints[0].addresses[0]: Invalid value: "db": should be a domain with at least two segments separated by dots',
    ]],
    ['port names and protocols', { addressType: 'IPv4', ports: [{ name: 'Bad_Name', port: 1 }, { name: 'a', protocol: 'ICMP' }, { name: 'a' }] }, [
      'ports[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      'ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      'ports[2].name: Duplicate value: "a"',
    ]],
    ['at most 1000 endpoints', { addressType: 'IPv4', endpoints: Array.from({ length: 1001 }, () => ({ addresses: ['10.0.0.1'] })) }, [
      'endpoints: Too many: 1001: must have at most 1000 items',
    ]],
  ];
  for (const [name, obj, expected] of cases) {
    test(name, () => assert.deepEqual(createErrors(slices, obj), expected));
  }

  test('ports default to TCP', () => {
    const o = { metadata: { name: 's' }, addressType: 'IPv4', ports: [{ port: 80 }] } as unknown as KubeObject;
    slices.strategy.defaults!(o);
    assert.deepEqual(o.ports, [{ port: 80, name: '', protocol: 'TCP' }]);
  });

  test('a PUT of a missing slice is 404, not a create (upstream: AllowCreateOnUpdate false); apply still creates', async () => {
    const { store } = memoryStore(slices);
    const slice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's', namespace: 'ns' }, addressType: 'IPv4', endpoints: [] } as unknown as KubeObject;
    await assert.rejects(store.update('ns', 's', slice), (err: unknown) => isStatusError(err) && err.code === 404);
    const applied = await store.apply('ns', 's', slice, { fieldManager: 'test', force: false });
    assert.equal(applied.created, true);
  });

  test('addressType is immutable', () => {
    assert.deepEqual(updateErrors(slices, { addressType: 'IPv4' }, { addressType: 'IPv6' }), ['addressType: Invalid value: "IPv6": field is immutable']);
  });

  test('the default/kubernetes slice may name the loopback address Plinth listens on', () => {
    const o = { metadata: { name: 'kubernetes', namespace: 'default' }, addressType: 'IPv4', endpoints: [{ addresses: ['127.0.0.1'] }] } as unknown as KubeObject;
    assert.deepEqual(slices.strategy.validate!(o), []);
  });

  test('columns: ports and endpoints, three at most', () => {
    const columns = tableColumnsOf(slices);
    assert.deepEqual(columns.map((c) => c.name), ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age']);
    const o = { metadata: { name: 's' }, addressType: 'IPv4', ports: [{ port: 80 }, { name: 'x' }], endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4', '10.0.0.5'] }] } as unknown as KubeObject;
    assert.deepEqual(columns.slice(0, 4).map((c) => c.cell(o, 0)), ['s', 'IPv4', '80,x', '10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...']);
    const empty = { metadata: { name: 'e' }, addressType: 'IPv4' } as unknown as KubeObject;
    assert.deepEqual(columns.slice(2, 4).map((c) => c.cell(empty, 0)), ['<unset>', '<unset>']);
  });
});

describe('CertificateSigningRequests', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'csr-'));
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', path.join(dir, 'k.pem'), '-subj', '/CN=alice', '-out', path.join(dir, 'r.pem')], { stdio: 'ignore' });
  const request = readFileSync(path.join(dir, 'r.pem')).toString('base64');
  const spec = { request, signerName: 'example.com/signer', usages: ['client auth'] };
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['a valid request', { spec }, []],
    ['the request must be a PEM CERTIFICATE REQUEST', { spec: { ...spec, request: Buffer.from('hello').toString('base64') } }, [
      `spec.request: Invalid value: "${Buffer.from('hello').toString('base64')}": PEM block type must be CERTIFICATE REQUEST`,
    ]],
    ['usages are required, known and unique', { spec: { ...spec, usages: ['bogus', 'server auth', 'server auth'] } }, [
      'spec.usages[0]: Unsupported value: "bogus": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"',
      'spec.usages[2]: Duplicate value: "server auth"',
    ]],
    ['no usages', { spec: { ...spec, usages: [] } }, ['spec.usages: Required value']],
    ['signerName is required', { spec: { ...spec, signerName: '' } }, ['spec.signerName: Required value']],
    ['signerName needs a domain and a path', { spec: { ...spec, signerName: 'signer' } }, [
      'spec.signerName: Invalid value: "signer": must be a fully qualified domain and path of the form \'example.com/signer-name\'',
    ]],
    ['the legacy signer is refused in v1', { spec: { ...spec, signerName: 'kubernetes.io/legacy-unknown' } }, [
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]],
    ['expirationSeconds at least 600', { spec: { ...spec, expirationSeconds: 60 } }, [
      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)',
    ]],
  ];
  for (const [name, obj, expected] of cases) {
    test(name, () => assert.deepEqual(createErrors(csrs, obj), expected));
  }

  test('signer names: domain labels and two segments', () => {
    assert.deepEqual(validateSignerName('s', 'example/x').map((c) => c.message), [
      'Invalid value: "example": should be a domain with at least two segments separated by dots',
    ]);
    assert.deepEqual(validateSignerName('s', 'kubernetes.io/kube-apiserver-client'), []);
  });

  const approval = csrs.strategy.subresources!.approval!;
  const conditionCases: [string, unknown[], unknown[], string[]][] = [
    ['approving', [], [{ type: 'Approved', status: 'True', reason: 'KubectlApprove' }], []],
    ['Approved must be True', [], [{ type: 'Approved', status: 'False' }], ['status.conditions[0].status: Unsupported value: "False": supported values: "True"']],
    ['Approved and Denied exclude each other', [], [{ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }], [
      'status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive',
    ]],
    ['conditions of one type once', [], [{ type: 'Failed', status: 'True' }, { type: 'Failed', status: 'True' }], ['status.conditions[1].type: Duplicate value: "Failed"']],
    ['an approval may not be withdrawn', [{ type: 'Approved', status: 'True', reason: 'r', lastUpdateTime: '2025-01-01T00:00:00Z', lastTransitionTime: '2025-01-01T00:00:00Z' }], [], [
      'status.conditions: Forbidden: updates may not remove a condition of type "Approved"',
    ]],
  ];
  for (const [name, before, after, expected] of conditionCases) {
    test(`approval: ${name}`, () => {
      const old = { metadata: { name: 'c' }, spec, status: { conditions: before } } as unknown as KubeObject;
      const next = { metadata: { name: 'c' }, spec: { ...spec, usages: ['any'] }, status: { conditions: structuredClone(after) } } as unknown as KubeObject;
      approval.prepareForUpdate!(next, old);
      assert.deepEqual(next.spec, spec, 'the approval keeps the spec');
      assert.deepEqual(approval.validateUpdate!(next, old).map((c) => `${c.field}: ${c.message}`), expected);
    });
  }

  test('columns: signer, requestor, duration and condition', () => {
    const columns = tableColumnsOf(csrs);
    assert.deepEqual(columns.map((c) => c.name), ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    const o = { metadata: { name: 'c' }, spec: { ...spec, username: 'alice', expirationSeconds: 86400 }, status: { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True' }], certificate: 'eA==' } } as unknown as KubeObject;
    assert.deepEqual(columns.filter((c) => c.name !== 'Age').map((c) => c.cell(o, 0)), ['c', 'example.com/signer', 'alice', '24h', 'Approved,Failed,Issued']);
  });
});
