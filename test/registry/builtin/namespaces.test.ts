import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { objectFieldSet } from '../../../src/registry/selection.ts';
import { builtinType, fields, storeCreate, storeUpdate, withoutServerMeta } from '../../helpers/store.ts';

const namespaces = builtinType('namespaces');

function ns(name: string, body: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...body };
}

test('a created Namespace is Active, has the kubernetes finalizer and its name label', async () => {
  const { obj, causes } = await storeCreate(namespaces, ns('team-a', { status: { phase: 'Terminating' } }));
  assert.deepEqual(causes, []);
  assert.deepEqual(withoutServerMeta(obj), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
});

test('the kubernetes finalizer is added after the client\'s own', async () => {
  const { obj } = await storeCreate(namespaces, ns('a', { spec: { finalizers: ['example.com/x'] } }));
  assert.deepEqual(obj.spec, { finalizers: ['example.com/x', 'kubernetes'] });
});

test('namespace names are DNS labels', async () => {
  assert.deepEqual(fields((await storeCreate(namespaces, ns('a.b'))).causes), ['metadata.name: Invalid value: "a.b": must not contain dots']);
});

test('spec finalizers must be qualified or standard names', async () => {
  assert.deepEqual(fields((await storeCreate(namespaces, ns('a', { spec: { finalizers: ['custom'] } }))).causes), [
    'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
  ]);
});

test('an update keeps finalizers, status and the name label', async () => {
  const old = (await storeCreate(namespaces, ns('a'))).obj;
  const next = structuredClone(old);
  next.spec = { finalizers: [] };
  next.status = { phase: 'Terminating' };
  next.metadata.labels = { team: 'x' };
  const { obj, causes } = await storeUpdate(namespaces, next, old);
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(obj.status, { phase: 'Active' });
  assert.deepEqual(obj.metadata.labels, { team: 'x', 'kubernetes.io/metadata.name': 'a' });
});

test('namespaces/finalize changes spec finalizers but not status', async () => {
  const old = (await storeCreate(namespaces, ns('a'))).obj;
  const next = structuredClone(old);
  next.spec = { finalizers: [] };
  next.status = { phase: 'Terminating' };
  const { obj, causes } = await storeUpdate(namespaces, next, old, 'finalize');
  assert.deepEqual(causes, []);
  // The emptied list is not stored (finalizers is omitempty), as upstream answers `spec: {}`.
  assert.deepEqual(obj.spec, {});
  assert.deepEqual(obj.status, { phase: 'Active' });
});

test('namespaces/status changes status but not spec; the phase follows deletionTimestamp', async () => {
  const old = (await storeCreate(namespaces, ns('a'))).obj;
  const next = structuredClone(old);
  next.spec = {};
  next.status = { phase: 'Active' };
  const { obj, causes } = await storeUpdate(namespaces, next, old, 'status');
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, { finalizers: ['kubernetes'] });
  next.status = { phase: 'Terminating' };
  assert.deepEqual(fields((await storeUpdate(namespaces, next, old, 'status')).causes), ["status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"]);
});

test('a Namespace exposes status.phase (and the legacy "name") to field selectors', async () => {
  const { obj } = await storeCreate(namespaces, ns('a'));
  assert.deepEqual(objectFieldSet(namespaces, obj), { 'metadata.name': 'a', 'status.phase': 'Active', name: 'a' });
  assert.deepEqual(namespaces.strategy.fieldLabels, ['status.phase', 'metadata.name']);
});
