import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { IndexedStore, objectKey } from '../../src/controllers/runtime/index.ts';

function crd(name: string, group: string): KubeObject {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name }, spec: { group } };
}

const byGroup = { group: (o: KubeObject) => [String((o.spec as { group?: string }).group)] };

test('keys are namespace/name, or name for cluster-scoped objects', () => {
  assert.equal(objectKey({ metadata: { name: 'a', namespace: 'ns' } }), 'ns/a');
  assert.equal(objectKey({ metadata: { name: 'a' } }), 'a');
});

test('an index follows sets, replacements and deletes', () => {
  const store = new IndexedStore(byGroup);
  store.set(crd('a.x.io', 'x.io'));
  store.set(crd('b.x.io', 'x.io'));
  store.set(crd('c.y.io', 'y.io'));
  assert.deepEqual(store.byIndex('group', 'x.io').map((o) => o.metadata.name).sort(), ['a.x.io', 'b.x.io']);
  const old = store.set(crd('b.x.io', 'y.io'));
  assert.equal((old?.spec as { group: string }).group, 'x.io', 'set answers what it replaced');
  assert.deepEqual(store.byIndex('group', 'x.io').map((o) => o.metadata.name), ['a.x.io']);
  assert.deepEqual(store.byIndex('group', 'y.io').map((o) => o.metadata.name).sort(), ['b.x.io', 'c.y.io']);
  assert.equal(store.delete('a.x.io')?.metadata.name, 'a.x.io');
  assert.deepEqual(store.byIndex('group', 'x.io'), []);
  assert.equal(store.delete('a.x.io'), undefined);
  assert.equal(store.size, 2);
  assert.throws(() => store.byIndex('kind', 'x'), /no index kind/);
});
