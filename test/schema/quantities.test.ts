// Where a built-in type holds quantities, compiled from its schema: only strings that do
// not parse there are malformed; types without quantities compile to nothing to walk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { builtinDefinitions, canonicalizeQuantities, quantitySites, schemaRef } from '../../src/schema/index.ts';

const sitesOf = (name: string) => quantitySites(builtinDefinitions, { $ref: schemaRef(name) });
const checkOf = (name: string) => {
  const sites = sitesOf(name);
  // Malformed: the canonical rewrite refuses the value (on a copy: the check should not change what it looks at).
  return sites === undefined ? undefined : (value: unknown) => !canonicalizeQuantities(sites, structuredClone(value));
};

test('a Pod\'s quantities: container resources, overhead, volumes; strings elsewhere are not quantities', () => {
  const check = checkOf('io.k8s.api.core.v1.Pod')!;
  const pod = (containers: unknown[], extra: Record<string, unknown> = {}) => ({ spec: { containers, ...extra } });
  assert.equal(check(pod([{ name: 'lots', resources: { requests: { cpu: '100m', memory: ' 1Gi ' }, limits: { cpu: 2 } } }])), false);
  assert.equal(check(pod([{ name: 'c', resources: { requests: { cpu: 'lots' } } }])), true);
  assert.equal(check(pod([{ name: 'c', resources: { requests: { cpu: '' } } }])), true, 'an empty string is no quantity');
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
  assert.equal(sitesOf('io.k8s.api.core.v1.ConfigMap'), undefined);
});

test('quantities are written in their canonical form, as Go\'s decoding and encoding leave them', () => {
  const sites = sitesOf('io.k8s.api.core.v1.Pod')!;
  const pod = {
    spec: {
      containers: [{ name: '1000m', image: 'x', resources: { requests: { cpu: 0.5, memory: ' 1024Mi ' }, limits: { cpu: '1000m', memory: '1000M', 'example.com/gpu': '1e3' } } }],
      volumes: [{ name: 'v', emptyDir: { sizeLimit: '1.5Gi' } }],
    },
  };
  assert.equal(canonicalizeQuantities(sites, pod), true);
  assert.deepEqual(pod.spec.containers[0], { name: '1000m', image: 'x', resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1G', 'example.com/gpu': '1e3' } } });
  assert.deepEqual(pod.spec.volumes[0], { name: 'v', emptyDir: { sizeLimit: '1536Mi' } });
});

test('long strings are not remembered: a hundred 500 kB strings at quantity sites leave the heap as it was', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const sites = sitesOf('io.k8s.api.core.v1.Pod')!;
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 100; i++) {
    const pod = { spec: { containers: [{ name: 'c', resources: { requests: { cpu: `${i}${'x'.repeat(500_000)}` } } }] } };
    assert.equal(canonicalizeQuantities(sites, pod), false);
  }
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  assert.ok(grown < 20_000_000, `the heap grew ${Math.round(grown / 1e6)} MB`);
});
