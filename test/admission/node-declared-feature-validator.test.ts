// NodeDeclaredFeatureValidator admission: an update of a bound pod that changed its spec must
// not need a feature its node does not declare; v1.36's features and what a kubelet declares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isStatusError, type KubeObject } from '../../src/api/index.ts';
import { declaredFeatures, defaultNodeFeatures, featuresNeededByUpdate } from '../../src/api/node-declared-features.ts';
import type { AdmissionAttributes } from '../../src/admission/chain.ts';
import { nodeDeclaredFeatureValidator } from '../../src/admission/node-declared-feature-validator.ts';

const node = (name: string, declared?: string[]): KubeObject => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name }, status: declared === undefined ? {} : { declaredFeatures: declared },
});
const nodes = new Map([
  ['full', node('full', defaultNodeFeatures())],
  ['pod-level', node('pod-level', ['InPlacePodLevelResourcesVerticalScaling'])],
  ['bare', node('bare')],
  ['newer', node('newer', ['InPlacePodLevelResourcesVerticalScaling', 'SomeLaterFeature'])],
]);
const lookups: string[] = [];
const lookup = { get: async (name: string) => (lookups.push(name), nodes.get(name)) };

interface Shape {
  nodeName?: string;
  generation?: number;
  /** Pod-level cpu request and limit. */
  podCpu?: string;
  /** The init container's cpu; `sidecar` makes it restartPolicy Always. */
  initCpu?: string;
  sidecar?: boolean;
  appCpu?: string;
}

function pod({ nodeName = 'full', generation = 1, podCpu, initCpu = '100m', sidecar = false, appCpu = '100m' }: Shape): KubeObject {
  const cpu = (value: string) => ({ requests: { cpu: value }, limits: { cpu: value } });
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', generation },
    spec: {
      nodeName,
      ...(podCpu === undefined ? {} : { resources: cpu(podCpu) }),
      initContainers: [{ name: 'init', image: 'x', resources: cpu(initCpu), ...(sidecar ? { restartPolicy: 'Always' } : {}) }],
      containers: [{ name: 'app', image: 'x', resources: cpu(appCpu) }],
    },
  };
}

function attrs(old: Shape, updated: Shape, over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'UPDATE', group: '', version: 'v1', resource: 'pods', subresource: 'resize', kind: 'Pod', namespace: 'ns', name: 'p',
    object: pod({ generation: 2, ...updated }), oldObject: pod(old), dryRun: false, namespaced: true, ...over,
  };
}

async function outcome(a: AdmissionAttributes, enabled = true): Promise<string> {
  try {
    await nodeDeclaredFeatureValidator(lookup, enabled).validate?.(a);
    return 'allowed';
  } catch (err) {
    assert.ok(isStatusError(err) && err.code === 403 && err.reason === 'Forbidden', String(err));
    assert.deepEqual(err.details, { name: 'p', kind: 'pods' });
    return err.message;
  }
}

const refused = (features: string, nodeName: string) => `pods "p" is forbidden: pod update requires features ${features} which are not available on node "${nodeName}"`;

test('updates are checked against the node\'s declared features, case by case', async () => {
  const cases: { name: string; attrs: AdmissionAttributes; enabled?: boolean; expected: string }[] = [
    { name: 'a pod-level resize on a node that declares it', attrs: attrs({ podCpu: '1' }, { podCpu: '2' }), expected: 'allowed' },
    { name: 'a pod-level resize on a node declaring only that feature', attrs: attrs({ nodeName: 'pod-level', podCpu: '1' }, { nodeName: 'pod-level', podCpu: '2' }), expected: 'allowed' },
    {
      name: 'a pod-level resize on a node that does not declare it',
      attrs: attrs({ nodeName: 'bare', podCpu: '1' }, { nodeName: 'bare', podCpu: '2' }),
      expected: refused('InPlacePodLevelResourcesVerticalScaling', 'bare'),
    },
    {
      name: 'pod-level resources added count as a change',
      attrs: attrs({ nodeName: 'bare' }, { nodeName: 'bare', podCpu: '2' }),
      expected: refused('InPlacePodLevelResourcesVerticalScaling', 'bare'),
    },
    {
      name: 'an init container resized, on a node with only the pod-level feature',
      attrs: attrs({ nodeName: 'pod-level' }, { nodeName: 'pod-level', initCpu: '200m' }),
      expected: refused('InPlacePodVerticalScalingInitContainers', 'pod-level'),
    },
    {
      name: 'both at once: every missing feature, in the registry\'s order',
      attrs: attrs({ nodeName: 'bare', podCpu: '1' }, { nodeName: 'bare', podCpu: '2', initCpu: '200m' }),
      expected: refused('InPlacePodLevelResourcesVerticalScaling, InPlacePodVerticalScalingInitContainers', 'bare'),
    },
    { name: 'a sidecar resized needs nothing', attrs: attrs({ nodeName: 'bare', sidecar: true }, { nodeName: 'bare', sidecar: true, initCpu: '200m' }), expected: 'allowed' },
    { name: 'a container resized needs nothing in v1.36', attrs: attrs({ nodeName: 'bare' }, { nodeName: 'bare', appCpu: '2' }), expected: 'allowed' },
    { name: 'the same quantity written otherwise is no change', attrs: attrs({ nodeName: 'bare', podCpu: '1' }, { nodeName: 'bare', podCpu: '1000m', appCpu: '2' }), expected: 'allowed' },
    { name: 'an unknown node', attrs: attrs({ nodeName: 'gone', podCpu: '1' }, { nodeName: 'gone', podCpu: '2' }), expected: 'pods "p" is forbidden: node "gone" not found' },
    {
      name: 'a node declaring a feature v1.36 does not know',
      attrs: attrs({ nodeName: 'newer', podCpu: '1' }, { nodeName: 'newer', podCpu: '2' }),
      expected: 'pods "p" is forbidden: failed to match pod requirements against node "newer": unknown feature SomeLaterFeature',
    },
    { name: 'the update of the pod itself is checked too', attrs: attrs({ nodeName: 'bare', podCpu: '1' }, { nodeName: 'bare', podCpu: '2' }, { subresource: '' }), expected: refused('InPlacePodLevelResourcesVerticalScaling', 'bare') },
    { name: 'a pod not bound to a node', attrs: attrs({ nodeName: '', podCpu: '1' }, { nodeName: '', podCpu: '2' }), expected: 'allowed' },
    { name: 'the generation did not move', attrs: attrs({ nodeName: 'bare', podCpu: '1' }, { nodeName: 'bare', podCpu: '2', generation: 1 }), expected: 'allowed' },
    { name: 'through pods/status', attrs: attrs({ nodeName: 'bare', podCpu: '1' }, { nodeName: 'bare', podCpu: '2' }, { subresource: 'status' }), expected: 'allowed' },
    { name: 'a create', attrs: attrs({ nodeName: 'bare', podCpu: '1' }, { nodeName: 'bare', podCpu: '2' }, { operation: 'CREATE' }), expected: 'allowed' },
    { name: 'the NodeDeclaredFeatures gate off', attrs: attrs({ nodeName: 'bare', podCpu: '1' }, { nodeName: 'bare', podCpu: '2' }), enabled: false, expected: 'allowed' },
  ];
  for (const { name, attrs: a, enabled, expected } of cases) assert.equal(await outcome(a, enabled), expected, name);
});

test('the node is looked up only when the update needs a feature', async () => {
  lookups.length = 0;
  assert.equal(await outcome(attrs({ nodeName: 'gone' }, { nodeName: 'gone', appCpu: '2' })), 'allowed', 'nothing needed: an unknown node does not matter');
  assert.deepEqual(lookups, []);
  await outcome(attrs({ nodeName: 'gone', podCpu: '1' }, { nodeName: 'gone', podCpu: '2' }));
  assert.deepEqual(lookups, ['gone']);
});

test('with the gate off the plugin is in the chain and validates nothing', () => {
  const plugin = nodeDeclaredFeatureValidator(lookup, false);
  assert.equal(plugin.name, 'NodeDeclaredFeatureValidator');
  assert.equal(plugin.validate, undefined);
  assert.equal(typeof nodeDeclaredFeatureValidator(lookup, true).validate, 'function');
});

test('what an update needs: pod-level resources compared by value, an empty map as none; init containers as Go decodes them', () => {
  const base = pod({ podCpu: '1' });
  const withResources = (resources: unknown, init?: unknown): KubeObject => ({
    ...base, spec: { ...(base.spec as object), resources, ...(init === undefined ? {} : { initContainers: [{ name: 'init', image: 'x', ...(init === null ? {} : { resources: init }) }] }) },
  });
  const cases: { name: string; old: KubeObject; updated: KubeObject; expected: string[] }[] = [
    { name: 'none to none', old: withResources(undefined), updated: withResources(null), expected: [] },
    { name: 'empty limits equal none', old: withResources({ requests: { cpu: '1' } }), updated: withResources({ requests: { cpu: '1' }, limits: {} }), expected: [] },
    { name: 'memory in another unit, same value', old: withResources({ requests: { memory: '1Gi' } }), updated: withResources({ requests: { memory: '1073741824' } }), expected: [] },
    { name: 'none to an empty object', old: withResources(undefined), updated: withResources({}), expected: ['InPlacePodLevelResourcesVerticalScaling'] },
    { name: 'init container: no resources and {} are one', old: withResources(undefined, null), updated: withResources(undefined, {}), expected: [] },
    { name: 'init container: an empty requests map differs from none', old: withResources(undefined, {}), updated: withResources(undefined, { requests: {} }), expected: ['InPlacePodVerticalScalingInitContainers'] },
  ];
  for (const { name, old, updated, expected } of cases) assert.deepEqual(featuresNeededByUpdate(old, updated), expected, name);
});

test('v1.36\'s features: sorted, their gates v1.36\'s with their defaults; a kubelet with default gates declares them all', () => {
  const gates = JSON.parse(readFileSync(new URL('../../src/cli/feature-gates/kube.json', import.meta.url), 'utf8')) as Record<string, { default: boolean }>;
  const names = declaredFeatures.map((feature) => feature.name);
  assert.deepEqual(names, [...names].sort());
  for (const feature of declaredFeatures) assert.equal(gates[feature.gate]?.default, feature.gateOnByDefault, feature.gate);
  assert.deepEqual(defaultNodeFeatures(), [
    'ExtendWebSocketsToKubelet', 'InPlacePodLevelResourcesVerticalScaling', 'InPlacePodVerticalScalingInitContainers', 'RestartAllContainersOnContainerExits',
  ]);
  // Removed in v1.36, or added after it.
  for (const later of ['GuaranteedQoSPodCPUResize', 'DRANodeAllocatableResources', 'UserNamespacesHostNetworkSupport']) assert.ok(!names.includes(later), later);
});
