// Table columns of the networking, storage, admission policy and resource allocation types,
// as upstream printers.go defines and fills them, and that every built-in type has its own.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, TableColumn } from '../../../src/api/index.ts';
import { builtinResourceTypes } from '../../../src/registry/builtin/index.ts';

const now = Date.parse('2024-05-01T12:00:00Z');
const created = '2024-05-01T11:55:00Z';

// Types few clients use load their behaviour on first use (ResourceType.load): load them all.
const types = builtinResourceTypes();
before(async () => {
  for (const t of types) await t.load?.();
});

function columnsOf(resource: string): TableColumn[] {
  const type = types.find((t) => t.resource === resource);
  assert.ok(type?.tableColumns, resource);
  return type.tableColumns;
}

/** The cells of one object's row, in column order. */
function cells(resource: string, obj: Partial<KubeObject>): unknown[] {
  const o = { ...obj, metadata: { name: 'x', creationTimestamp: created, ...obj.metadata } } as KubeObject;
  return columnsOf(resource).map((c) => c.cell(o, now));
}

describe('columns as upstream printers.go defines them (name, type, priority, format)', () => {
  const expected: Record<string, string[]> = {
    ipaddresses: ['Name string 0 name', 'ParentRef string 0'],
    servicecidrs: ['Name string 0 name', 'CIDRs string 0', 'Age string 0'],
    csidrivers: [
      'Name string 0 name', 'AttachRequired boolean 0', 'PodInfoOnMount boolean 0', 'StorageCapacity boolean 0', 'TokenRequests string 0',
      'RequiresRepublish boolean 0', 'Modes string 0', 'Age string 0',
    ],
    csinodes: ['Name string 0 name', 'Drivers integer 0', 'Age string 0'],
    csistoragecapacities: ['Name string 0 name', 'StorageClassName string 0', 'Capacity string 0'],
    volumeattachments: ['Name string 0 name', 'Attacher string 0 name', 'PV string 0', 'Node string 0', 'Attached boolean 0', 'Age string 0'],
    volumeattributesclasses: ['Name string 0 name', 'DriverName string 0', 'Age string 0'],
    validatingadmissionpolicies: ['Name string 0 name', 'Validations integer 0', 'ParamKind string 0', 'Age string 0'],
    validatingadmissionpolicybindings: ['Name string 0 name', 'PolicyName string 0', 'ParamRef string 0', 'Age string 0'],
    mutatingadmissionpolicies: ['Name string 0 name', 'Mutations integer 0', 'ParamKind string 0', 'Age string 0'],
    mutatingadmissionpolicybindings: ['Name string 0 name', 'PolicyName string 0', 'ParamRef string 0', 'Age string 0'],
    deviceclasses: ['Name string 0 name', 'Age string 0'],
    resourceclaims: ['Name string 0 name', 'State string 0', 'Age string 0'],
    resourceclaimtemplates: ['Name string 0 name', 'Age string 0'],
    resourceslices: ['Name string 0 name', 'Node string 0', 'Driver string 0', 'Pool string 0', 'Age string 0'],
  };
  for (const [resource, columns] of Object.entries(expected)) {
    test(resource, () => {
      assert.deepEqual(columnsOf(resource).map((c) => `${c.name} ${c.type} ${c.priority ?? 0}${c.format ? ` ${c.format}` : ''}`), columns);
      for (const c of columnsOf(resource)) assert.ok(c.description, `${resource} ${c.name} has a description`);
    });
  }
});

describe('cells as upstream printers.go fills them', () => {
  const selector = { matchLabels: { tier: 'b', app: 'a' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }] };
  const cases: { name: string; resource: string; obj: Record<string, unknown>; cells: unknown[] }[] = [
    {
      name: 'an IP address of a service', resource: 'ipaddresses',
      obj: { spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'web' } } }, cells: ['x', 'services/default/web'],
    },
    {
      name: 'a parent in a group, cluster-scoped, lower-cased', resource: 'ipaddresses',
      obj: { spec: { parentRef: { group: 'Example.COM', resource: 'Gateways', name: 'gw' } } }, cells: ['x', 'gateways.example.com/gw'],
    },
    { name: 'an IP address without a parent', resource: 'ipaddresses', obj: { spec: {} }, cells: ['x', '<none>'] },
    { name: 'a dual-stack service CIDR', resource: 'servicecidrs', obj: { spec: { cidrs: ['10.96.0.0/12', 'fd00::/108'] } }, cells: ['x', '10.96.0.0/12,fd00::/108', '5m'] },
    { name: 'a service CIDR without CIDRs', resource: 'servicecidrs', obj: { spec: {} }, cells: ['x', '', '5m'] },
    {
      name: 'a defaulted CSI driver', resource: 'csidrivers',
      obj: { spec: { attachRequired: true, podInfoOnMount: false, storageCapacity: false, requiresRepublish: false, volumeLifecycleModes: ['Persistent'] } },
      cells: ['x', true, false, false, '<unset>', false, 'Persistent', '5m'],
    },
    {
      name: 'a CSI driver with token requests and two modes', resource: 'csidrivers',
      obj: { spec: { attachRequired: false, podInfoOnMount: true, storageCapacity: true, requiresRepublish: true, tokenRequests: [{ audience: 'vault' }, { audience: '' }], volumeLifecycleModes: ['Persistent', 'Ephemeral'] } },
      cells: ['x', false, true, true, 'vault,', true, 'Persistent,Ephemeral', '5m'],
    },
    { name: 'a CSI driver without a spec prints the defaults', resource: 'csidrivers', obj: {}, cells: ['x', true, false, false, '<unset>', false, '<none>', '5m'] },
    { name: 'an empty token request list', resource: 'csidrivers', obj: { spec: { tokenRequests: [] } }, cells: ['x', true, false, false, '', false, '<none>', '5m'] },
    { name: 'a CSI node with two drivers', resource: 'csinodes', obj: { spec: { drivers: [{ name: 'a', nodeID: 'n' }, { name: 'b', nodeID: 'n' }] } }, cells: ['x', 2, '5m'] },
    { name: 'a CSI node without drivers', resource: 'csinodes', obj: { spec: {} }, cells: ['x', 0, '5m'] },
    { name: 'a storage capacity', resource: 'csistoragecapacities', obj: { storageClassName: 'fast', capacity: '1024Mi' }, cells: ['x', 'fast', '1Gi'] },
    { name: 'a storage capacity without a capacity', resource: 'csistoragecapacities', obj: { storageClassName: 'fast' }, cells: ['x', 'fast', '<unset>'] },
    {
      name: 'an attached volume', resource: 'volumeattachments',
      obj: { spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } }, status: { attached: true } },
      cells: ['x', 'csi.example.com', 'pv-1', 'node-1', true, '5m'],
    },
    {
      name: 'an inline volume not yet attached', resource: 'volumeattachments',
      obj: { spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { inlineVolumeSpec: {} } } },
      cells: ['x', 'csi.example.com', '', 'node-1', false, '5m'],
    },
    { name: 'a volume attributes class', resource: 'volumeattributesclasses', obj: { driverName: 'csi.example.com' }, cells: ['x', 'csi.example.com', '5m'] },
    {
      name: 'the default volume attributes class', resource: 'volumeattributesclasses',
      obj: { metadata: { annotations: { 'volumeattributesclass.alpha.kubernetes.io/is-default-class': 'true' } }, driverName: 'd' }, cells: ['x (default)', 'd', '5m'],
    },
    {
      name: 'a validating policy with a param kind', resource: 'validatingadmissionpolicies',
      obj: { spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }, { expression: 'false' }] } }, cells: ['x', 2, 'v1/ConfigMap', '5m'],
    },
    { name: 'a validating policy without params', resource: 'validatingadmissionpolicies', obj: { spec: {} }, cells: ['x', 0, '<unset>', '5m'] },
    {
      name: 'a mutating policy', resource: 'mutatingadmissionpolicies',
      obj: { spec: { paramKind: { apiVersion: 'example.com/v1', kind: 'Config' }, mutations: [{ patchType: 'ApplyConfiguration' }] } }, cells: ['x', 1, 'example.com/v1/Config', '5m'],
    },
    {
      name: 'a binding to a named param in a namespace', resource: 'validatingadmissionpolicybindings',
      obj: { spec: { policyName: 'p', paramRef: { name: 'cfg', namespace: 'ns' } } }, cells: ['x', 'p', 'ns/cfg', '5m'],
    },
    { name: 'a named param without a namespace', resource: 'validatingadmissionpolicybindings', obj: { spec: { policyName: 'p', paramRef: { name: 'cfg' } } }, cells: ['x', 'p', '*/cfg', '5m'] },
    {
      name: 'params by selector print the selector as Go does', resource: 'mutatingadmissionpolicybindings',
      obj: { spec: { policyName: 'p', paramRef: { selector } } },
      cells: ['x', 'p', '&LabelSelector{MatchLabels:map[string]string{app: a,tier: b,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[prod dev],},},}', '5m'],
    },
    { name: 'an empty selector', resource: 'mutatingadmissionpolicybindings', obj: { spec: { policyName: 'p', paramRef: { selector: {} } } }, cells: ['x', 'p', '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}', '5m'] },
    { name: 'a binding without params', resource: 'mutatingadmissionpolicybindings', obj: { spec: { policyName: 'p' } }, cells: ['x', 'p', '<unset>', '5m'] },
    { name: 'a device class', resource: 'deviceclasses', obj: { spec: {} }, cells: ['x', '5m'] },
    { name: 'a claim template', resource: 'resourceclaimtemplates', obj: { spec: {} }, cells: ['x', '5m'] },
    { name: 'a new claim is pending', resource: 'resourceclaims', obj: { spec: {} }, cells: ['x', 'pending', '5m'] },
    { name: 'an allocated claim', resource: 'resourceclaims', obj: { status: { allocation: {} } }, cells: ['x', 'allocated', '5m'] },
    { name: 'an allocated, reserved claim', resource: 'resourceclaims', obj: { status: { allocation: {}, reservedFor: [{ resource: 'pods', name: 'p', uid: 'u' }] } }, cells: ['x', 'allocated,reserved', '5m'] },
    { name: 'a pending claim being deleted', resource: 'resourceclaims', obj: { metadata: { deletionTimestamp: created } as KubeObject['metadata'] }, cells: ['x', 'deleted', '5m'] },
    {
      name: 'an allocated claim being deleted', resource: 'resourceclaims',
      obj: { metadata: { deletionTimestamp: created } as KubeObject['metadata'], status: { allocation: {}, reservedFor: [{}] } }, cells: ['x', 'deleted,allocated,reserved', '5m'],
    },
    {
      name: 'a node-local resource slice', resource: 'resourceslices',
      obj: { spec: { nodeName: 'node-1', driver: 'gpu.example.com', pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 } } }, cells: ['x', 'node-1', 'gpu.example.com', 'node-1', '5m'],
    },
    { name: 'a slice for all nodes', resource: 'resourceslices', obj: { spec: { allNodes: true, driver: 'd', pool: { name: 'shared' } } }, cells: ['x', '', 'd', 'shared', '5m'] },
  ];
  for (const c of cases) {
    test(`${c.resource}: ${c.name}`, () => {
      assert.deepEqual(cells(c.resource, c.obj as Partial<KubeObject>), c.cells);
    });
  }
});

test('every built-in type has its own columns but the create-only ones (bindings, reviews) and limitranges (upstream prints the default table)', () => {
  const without = types.filter((t) => t.tableColumns === undefined).map((t) => `${t.group}/${t.resource}`);
  assert.deepEqual(without.sort(), [
    '/bindings', '/limitranges',
    'authentication.k8s.io/selfsubjectreviews', 'authentication.k8s.io/tokenreviews',
    'authorization.k8s.io/localsubjectaccessreviews', 'authorization.k8s.io/selfsubjectaccessreviews',
    'authorization.k8s.io/selfsubjectrulesreviews', 'authorization.k8s.io/subjectaccessreviews',
  ]);
});
