import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { builtinDefinitions, schemaRef } from '../../src/schema/builtin/index.ts';
import { addGoZeroValues, addedZerosIn, hasAddedZeros } from '../../src/schema/go-zero.ts';
import { builtinValidation, validate } from '../../src/schema/validate.ts';
import type { Schema } from '../../src/schema/types.ts';

const definition = (name: string): Schema => ({ $ref: schemaRef(`io.k8s.api.${name}`) });

function completed(name: string, value: Record<string, unknown>): Record<string, unknown> {
  addGoZeroValues(builtinDefinitions, definition(name), value);
  return value;
}

describe('Go zero values of a built-in object', () => {
  test('a Node holds what its Go value writes: empty structs, scalars without omitempty', () => {
    assert.deepEqual(completed('core.v1.Node', { metadata: { name: 'n' } }), {
      metadata: { name: 'n' },
      spec: {},
      status: {
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: {
          architecture: '', bootID: '', containerRuntimeVersion: '', kernelVersion: '', kubeProxyVersion: '',
          kubeletVersion: '', machineID: '', operatingSystem: '', osImage: '', systemUUID: '',
        },
      },
    });
  });

  test('a creation timestamp (omitzero) is not written; an Event\'s value Times are null', () => {
    const event = completed('core.v1.Event', { metadata: { name: 'e' }, involvedObject: { kind: 'Pod' }, reason: 'Started' });
    assert.deepEqual(event, {
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod' },
      reason: 'Started',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: null,
      reportingComponent: '',
      reportingInstance: '',
    });
  });

  test('list items and map values are completed; what is there stays', () => {
    const pod = completed('core.v1.Pod', {
      metadata: { name: 'p', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u', controller: true }] },
      spec: {
        containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], env: [{ name: 'A', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }] }],
      },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z' }] },
    });
    assert.deepEqual(pod, {
      metadata: { name: 'p', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u', controller: true }] },
      spec: {
        containers: [{
          name: 'c', image: 'i', ports: [{ containerPort: 80 }], resources: {},
          env: [{ name: 'A', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } } }],
        }],
      },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z', lastProbeTime: null }] },
    });
  });

  test('an inlined struct\'s fields are written in their parent (an ephemeral container)', () => {
    const ephemeral = completed('core.v1.EphemeralContainer', { image: 'busybox' });
    assert.deepEqual(ephemeral, { image: 'busybox', name: '', resources: {} });
  });

  test('a CronJob\'s job template gets its metadata; a CRD its accepted names', () => {
    const cronJob = completed('batch.v1.CronJob', { metadata: { name: 'c' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: {} } } } } });
    assert.deepEqual(cronJob.spec, { schedule: '* * * * *', jobTemplate: { metadata: {}, spec: { template: { metadata: {}, spec: { containers: null } } } } });
    const crd: Record<string, unknown> = { metadata: { name: 'ws.example.com' }, spec: { group: 'example.com', names: { plural: 'ws', kind: 'W' }, scope: 'Namespaced', versions: [] } };
    addGoZeroValues(builtinDefinitions, { $ref: schemaRef('io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition') }, crd);
    assert.deepEqual(crd.status, { acceptedNames: { plural: '', kind: '' }, conditions: null, storedVersions: null });
  });

  test('a slice or map without omitempty that is not there is nil, written null (a Role without rules, a CSINode driver without topologyKeys)', () => {
    assert.deepEqual(completed('rbac.v1.Role', { metadata: { name: 'r' } }), { metadata: { name: 'r' }, rules: null });
    assert.deepEqual(completed('rbac.v1.Role', { metadata: { name: 'r' }, rules: [] }), { metadata: { name: 'r' }, rules: [] });
    assert.deepEqual(completed('core.v1.LimitRange', { metadata: { name: 'l' }, spec: {} }).spec, { limits: null });
    const csiNode = completed('storage.v1.CSINode', { metadata: { name: 'n' }, spec: { drivers: [{ name: 'a', nodeID: 'x' }] } });
    assert.deepEqual(csiNode.spec, { drivers: [{ name: 'a', nodeID: 'x', topologyKeys: null }] });
    // An omitempty one is left out (a ConfigMap's data).
    assert.deepEqual(completed('core.v1.ConfigMap', { metadata: { name: 'c' } }), { metadata: { name: 'c' } });
  });

  test('a schema that is not a built-in definition gets nothing', () => {
    const value = { spec: { a: {} } };
    addGoZeroValues(builtinDefinitions, { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'object' } } } } }, value);
    assert.deepEqual(value, { spec: { a: {} } });
  });

  test('each written struct is an object of its own', () => {
    const a = completed('core.v1.Service', { metadata: { name: 'a' } });
    const b = completed('core.v1.Service', { metadata: { name: 'b' } });
    assert.deepEqual(a.status, { loadBalancer: {} });
    assert.notEqual(a.status, b.status);
    assert.notEqual((a.status as { loadBalancer: object }).loadBalancer, (b.status as { loadBalancer: object }).loadBalancer);
  });

  test('what was added is known, and the schema\'s validation does not see it: its `required` still names what was left out', () => {
    const csiNode = { metadata: { name: 'n' }, spec: { drivers: [{ nodeID: 'x', topologyKeys: ['k'] }, { name: 'b', nodeID: 'y', topologyKeys: [] }] } };
    assert.deepEqual(validate(builtinDefinitions, definition('storage.v1.CSINode'), csiNode, builtinValidation).map((c) => c.field), ['spec.drivers[0].name']);
    assert.equal(hasAddedZeros(csiNode), false);
    completed('storage.v1.CSINode', csiNode);
    assert.equal(hasAddedZeros(csiNode), true);
    assert.equal(csiNode.spec.drivers[0]!.name, '', 'the Go zero is there for the field manager and the type\'s own validation');
    assert.deepEqual([...addedZerosIn(csiNode.spec.drivers[0]!)!], [['name', '']]);
    assert.equal(addedZerosIn(csiNode.spec.drivers[1]!), undefined);
    assert.deepEqual(validate(builtinDefinitions, definition('storage.v1.CSINode'), csiNode, builtinValidation).map((c) => c.field), ['spec.drivers[0].name']);
    // A value written over the zero since (a webhook's) is the object's own.
    csiNode.spec.drivers[0]!.name = 'a';
    assert.deepEqual(validate(builtinDefinitions, definition('storage.v1.CSINode'), csiNode, builtinValidation), []);
    // A struct that was added is seen once something not added is in it (a strategy's defaulting filling it in).
    const node = completed('core.v1.Node', { metadata: { name: 'n' } }) as { status: { daemonEndpoints: { kubeletEndpoint: { Port: unknown } } } };
    assert.deepEqual(validate(builtinDefinitions, definition('core.v1.Node'), node, builtinValidation), []);
    node.status.daemonEndpoints.kubeletEndpoint.Port = 'x';
    assert.deepEqual(validate(builtinDefinitions, definition('core.v1.Node'), node, builtinValidation).map((c) => c.field), ['status.daemonEndpoints.kubeletEndpoint.Port']);
    // Nothing to add: nothing known.
    const complete = completed('storage.v1.CSINode', { metadata: { name: 'm' }, spec: { drivers: [] } });
    assert.equal(hasAddedZeros(complete), false);
  });
});
