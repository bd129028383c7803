// CachedState: what a cache decoded is frozen when first handed out, not when decoded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { CachedState } from '../../src/cache/states.ts';

const decoded = (): KubeObject => ({
  kind: 'ConfigMap', apiVersion: 'v1',
  metadata: { resourceVersion: '7', name: 'a', namespace: 'ns', labels: { app: 'x' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:data': {} } }] },
  data: { k: 'v' },
} as KubeObject);
const json = (object: KubeObject) => new TextEncoder().encode(JSON.stringify(object));

test('a decoded object given to a freezing state is frozen, to its leaves, when first handed out and not before', () => {
  const object = decoded();
  const state = new CachedState('/registry/configmaps/ns/a', json(object), 7, object, true);
  assert.equal(Object.isFrozen(object), false, 'not walked while nobody asked for it');
  const handedOut = state.object;
  assert.equal(handedOut, object);
  for (const part of [handedOut, handedOut.metadata, handedOut.metadata.labels, handedOut.metadata.managedFields, handedOut.metadata.managedFields![0], handedOut.data]) {
    assert.ok(Object.isFrozen(part));
  }
});

test('a metadata view taken first is frozen, and the object handed out afterwards is frozen whole', () => {
  const object = decoded();
  const state = new CachedState('/registry/configmaps/ns/a', json(object), 7, object, true);
  const view = state.metadataView;
  assert.ok(Object.isFrozen(view) && Object.isFrozen(view.metadata) && Object.isFrozen(view.metadata.labels));
  assert.equal(view.metadata.managedFields, undefined);
  const handedOut = state.object;
  assert.ok(Object.isFrozen(handedOut) && Object.isFrozen(handedOut.metadata) && Object.isFrozen(handedOut.data) && Object.isFrozen(handedOut.metadata.managedFields));
});

test('a state of a cache that does not freeze hands out its object as it was given', () => {
  const object = decoded();
  const state = new CachedState('/registry/configmaps/ns/a', json(object), 7, object, false);
  assert.equal(state.object, object);
  assert.equal(Object.isFrozen(object), false);
});
