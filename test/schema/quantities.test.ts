// Where a built-in type holds quantities, compiled from its schema: only strings that do
// not parse there are malformed; types without quantities compile to nothing to walk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinDefinitions, malformedQuantityCheck, schemaRef } from '../../src/schema/index.ts';

const checkOf = (name: string) => malformedQuantityCheck(builtinDefinitions, { $ref: schemaRef(name) });

test('a Pod\'s quantities: container resources, overhead, volumes; strings elsewhere are not quantities', () => {
  const check = checkOf('io.k8s.api.core.v1.Pod')!;
  const pod = (containers: unknown[], extra: Record<string, unknown> = {}) => ({ spec: { containers, ...extra } });
  assert.equal(check(pod([{ name: 'lots', resources: { requests: { cpu: '100m', memory: ' 1Gi ' }, limits: { cpu: 2 } } }])), false);
  assert.equal(check(pod([{ name: 'c', resources: { requests: { cpu: 'lots' } } }])), true);
  assert.equal(check(pod([{ name: 'c' }], { initContainers: [{ name: 'i', resources: { limits: { memory: '1 Gi' } } }] })), true);
  assert.equal(check(pod([], { overhead: { cpu: 'x' } })), true);
  assert.equal(check(pod([], { volumes: [{ name: 'v', emptyDir: { sizeLimit: '10GB' } }] })), true);
  assert.equal(check(pod([], { volumes: [{ name: 'v', emptyDir: { sizeLimit: '10G' } }] })), false);
  assert.equal(check(pod([], { resources: { requests: { cpu: '1c' } } })), true, 'pod-level resources');
  assert.equal(check({ status: { containerStatuses: [{ name: 'c', allocatedResources: { cpu: '?' } }] } }), true, 'the status too');
  assert.equal(check({ spec: 'not an object' }), false, 'wrong types are the schema validation\'s to report');
});

test('a Deployment\'s template is checked; a ConfigMap has nothing to walk', () => {
  const check = checkOf('io.k8s.api.apps.v1.Deployment')!;
  assert.equal(check({ spec: { template: { spec: { containers: [{ name: 'c', resources: { limits: { memory: 'much' } } }] } } } }), true);
  assert.equal(checkOf('io.k8s.api.core.v1.ConfigMap'), undefined);
});
