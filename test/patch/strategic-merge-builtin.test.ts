// Strategic merge patch on built-in kinds: the patch metadata comes from the schemas of
// src/schema/builtin (x-kubernetes-patch-strategy, x-kubernetes-patch-merge-key).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { patchMetaAt } from '../../src/patch/patch-meta.ts';
import { applyStrategicMergePatch } from '../../src/patch/strategic-merge.ts';
import { builtinDefinitions } from '../../src/schema/builtin/index.ts';

const defs = builtinDefinitions;
const pod = defs['io.k8s.api.core.v1.Pod']!;
const deployment = defs['io.k8s.api.apps.v1.Deployment']!;

describe('patch metadata of built-in kinds', () => {
  const cases: [string, string[], { strategies: string[]; mergeKey: string }][] = [
    ['containers merge on name', ['spec', 'containers'], { strategies: ['merge'], mergeKey: 'name' }],
    ['container ports merge on containerPort', ['spec', 'containers', 'ports'], { strategies: ['merge'], mergeKey: 'containerPort' }],
    ['env merges on name', ['spec', 'containers', 'env'], { strategies: ['merge'], mergeKey: 'name' }],
    ['volumes merge on name and retain keys', ['spec', 'volumes'], { strategies: ['merge', 'retainKeys'], mergeKey: 'name' }],
    ['finalizers merge as a set', ['metadata', 'finalizers'], { strategies: ['merge'], mergeKey: '' }],
    ['owner references merge on uid', ['metadata', 'ownerReferences'], { strategies: ['merge'], mergeKey: 'uid' }],
    ['tolerations are replaced', ['spec', 'tolerations'], { strategies: [], mergeKey: '' }],
    ['labels have no strategy', ['metadata', 'labels'], { strategies: [], mergeKey: '' }],
    ['an undeclared field has none', ['spec', 'noSuchField'], { strategies: [], mergeKey: '' }],
  ];
  for (const [name, path, expected] of cases) {
    test(name, () => {
      const { strategies, mergeKey } = patchMetaAt(defs, pod, path);
      assert.deepStrictEqual({ strategies, mergeKey }, expected);
    });
  }

  test('a deployment strategy retains keys (the marker beside its $ref)', () => {
    const meta = patchMetaAt(defs, deployment, ['spec', 'strategy']);
    assert.deepStrictEqual(meta.strategies, ['retainKeys']);
    assert.ok(meta.schema?.properties?.rollingUpdate, 'resolved to DeploymentStrategy');
  });

  test('the template of a deployment leads to pod spec metadata', () => {
    assert.equal(patchMetaAt(defs, deployment, ['spec', 'template', 'spec', 'containers', 'env']).mergeKey, 'name');
  });
});

function podWith(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...metadata }, spec };
}

describe('strategic merge patch of a pod', () => {
  test('a container merges on its name; one the pod lacks comes first', () => {
    const current = podWith({ containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] });
    const patched = applyStrategicMergePatch(defs, pod, current, { spec: { containers: [{ name: 'b', image: 'b:2' }, { name: 'c', image: 'c:1' }] } });
    assert.deepStrictEqual(patched.spec, { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:2' }, { name: 'c', image: 'c:1' }] });
    const added = applyStrategicMergePatch(defs, pod, current, { spec: { containers: [{ name: 'c', image: 'c:1' }] } });
    assert.deepStrictEqual((added.spec as any).containers.map((c: any) => c.name), ['c', 'a', 'b']);
  });

  test('ports merge on containerPort alone, whatever the protocol', () => {
    const current = podWith({ containers: [{ name: 'a', ports: [{ containerPort: 53, protocol: 'UDP' }] }] });
    const patched = applyStrategicMergePatch(defs, pod, current, { spec: { containers: [{ name: 'a', ports: [{ containerPort: 53, protocol: 'TCP' }] }] } });
    assert.deepStrictEqual((patched.spec as any).containers[0].ports, [{ containerPort: 53, protocol: 'TCP' }]);
  });

  test('an atomic list (tolerations) is replaced', () => {
    const current = podWith({ containers: [], tolerations: [{ key: 'a', operator: 'Exists' }] });
    const patched = applyStrategicMergePatch(defs, pod, current, { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } });
    assert.deepStrictEqual((patched.spec as any).tolerations, [{ key: 'b', operator: 'Exists' }]);
  });

  test('a map merges key by key, null deleting (an atomic map type does not change that)', () => {
    const current = podWith({ containers: [], nodeSelector: { a: '1', b: '2' } }, { labels: { app: 'x', tier: 'y' } });
    const patched = applyStrategicMergePatch(defs, pod, current, { metadata: { labels: { tier: null, env: 'prod' } }, spec: { nodeSelector: { c: '3' } } });
    assert.deepStrictEqual((patched.metadata as any).labels, { app: 'x', env: 'prod' });
    assert.deepStrictEqual((patched.spec as any).nodeSelector, { a: '1', b: '2', c: '3' });
  });

  test('finalizers merge as a set and $deleteFromPrimitiveList removes from it', () => {
    const current = podWith({ containers: [] }, { finalizers: ['a', 'b'] });
    const added = applyStrategicMergePatch(defs, pod, current, { metadata: { finalizers: ['b', 'c'] } });
    assert.deepStrictEqual((added.metadata as any).finalizers, ['a', 'b', 'c']);
    const removed = applyStrategicMergePatch(defs, pod, current, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } });
    assert.deepStrictEqual((removed.metadata as any).finalizers, ['b']);
  });

  test('a volume source changed with $retainKeys loses the old source', () => {
    const current = podWith({ containers: [], volumes: [{ name: 'data', emptyDir: {} }, { name: 'other', emptyDir: {} }] });
    const patch = {
      spec: {
        '$setElementOrder/volumes': [{ name: 'data' }, { name: 'other' }],
        volumes: [{ $retainKeys: ['configMap', 'name'], configMap: { name: 'settings' }, name: 'data' }],
      },
    };
    const patched = applyStrategicMergePatch(defs, pod, current, patch);
    assert.deepStrictEqual((patched.spec as any).volumes, [{ name: 'data', configMap: { name: 'settings' } }, { name: 'other', emptyDir: {} }]);
  });

  test('$patch: replace on the containers list replaces it', () => {
    const current = podWith({ containers: [{ name: 'a' }, { name: 'b' }] });
    const patched = applyStrategicMergePatch(defs, pod, current, { spec: { containers: [{ name: 'c' }, { $patch: 'replace' }] } });
    assert.deepStrictEqual((patched.spec as any).containers, [{ name: 'c' }]);
  });

  test('$patch: delete removes a container', () => {
    const current = podWith({ containers: [{ name: 'a' }, { name: 'b' }] });
    const patched = applyStrategicMergePatch(defs, pod, current, { spec: { containers: [{ name: 'a', $patch: 'delete' }] } });
    assert.deepStrictEqual((patched.spec as any).containers, [{ name: 'b' }]);
  });

  test('$patch: replace on a map (securityContext) replaces it', () => {
    const current = podWith({ containers: [], securityContext: { runAsUser: 1, runAsGroup: 2 } });
    const patched = applyStrategicMergePatch(defs, pod, current, { spec: { securityContext: { $patch: 'replace', fsGroup: 3 } } });
    assert.deepStrictEqual((patched.spec as any).securityContext, { fsGroup: 3 });
  });

  test('a container without its merge key fails like upstream (500, message as kubectl shows it)', () => {
    const current = podWith({ containers: [{ name: 'a' }] });
    assert.throws(
      () => applyStrategicMergePatch(defs, pod, current, { spec: { containers: [{ image: 'x' }] } }),
      { code: 500, message: 'map: map[image:x] does not contain declared merge key: name' },
    );
  });
});

describe('strategic merge patch of a deployment', () => {
  test('switching to Recreate with $retainKeys drops rollingUpdate', () => {
    const current = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } } };
    const patched = applyStrategicMergePatch(defs, deployment, current, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
    assert.deepStrictEqual(patched, { spec: { strategy: { type: 'Recreate' } } });
  });

  test('without $retainKeys the strategy merges like any map', () => {
    const current = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } };
    const patched = applyStrategicMergePatch(defs, deployment, current, { spec: { strategy: { type: 'Recreate' } } });
    assert.deepStrictEqual(patched, { spec: { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } } });
  });
});
