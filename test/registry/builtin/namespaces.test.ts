import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { objectFieldSet } from '../../../src/registry/selection.ts';
import { builtinType, create, fields, update, updateSubresource } from './flow.ts';

const namespaces = builtinType('namespaces');

function ns(name: string, body: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...body };
}

test('a created Namespace is Active, has the kubernetes finalizer and its name label', () => {
  const { obj, causes } = create(namespaces, ns('team-a', { status: { phase: 'Terminating' } }));
  assert.deepEqual(causes, []);
  assert.deepEqual(obj, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
});

test('the kubernetes finalizer is added after the client\'s own', () => {
  const { obj } = create(namespaces, ns('a', { spec: { finalizers: ['example.com/x'] } }));
  assert.deepEqual(obj.spec, { finalizers: ['example.com/x', 'kubernetes'] });
});

test('namespace names are DNS labels', () => {
  assert.deepEqual(fields(create(namespaces, ns('a.b')).causes), ['metadata.name: Invalid value: "a.b": must not contain dots']);
});

test('spec finalizers must be qualified or standard names', () => {
  assert.deepEqual(fields(create(namespaces, ns('a', { spec: { finalizers: ['custom'] } })).causes), [
    'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
  ]);
});

test('an update keeps finalizers, status and the name label', () => {
  const old = create(namespaces, ns('a')).obj;
  const next = structuredClone(old);
  next.spec = { finalizers: [] };
  next.status = { phase: 'Terminating' };
  next.metadata.labels = { team: 'x' };
  const { obj, causes } = update(namespaces, next, old);
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(obj.status, { phase: 'Active' });
  assert.deepEqual(obj.metadata.labels, { team: 'x', 'kubernetes.io/metadata.name': 'a' });
});

test('namespaces/finalize changes spec finalizers but not status', () => {
  const old = create(namespaces, ns('a')).obj;
  const next = structuredClone(old);
  next.spec = { finalizers: [] };
  next.status = { phase: 'Terminating' };
  const { obj, causes } = updateSubresource(namespaces, 'finalize', next, old);
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.spec, { finalizers: [] });
  assert.deepEqual(obj.status, { phase: 'Active' });
});

test('namespaces/status changes status but not spec; the phase follows deletionTimestamp', () => {
  const old = create(namespaces, ns('a')).obj;
  const next = structuredClone(old);
  next.spec = {};
  next.status = { phase: 'Terminating' };
  const { obj, causes } = updateSubresource(namespaces, 'status', next, old);
  assert.deepEqual(obj.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(fields(causes), ["status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"]);
});

test('a Namespace exposes status.phase (and the legacy "name") to field selectors', () => {
  const { obj } = create(namespaces, ns('a'));
  assert.deepEqual(objectFieldSet(namespaces, obj), { 'metadata.name': 'a', 'status.phase': 'Active', name: 'a' });
  assert.deepEqual(namespaces.strategy.fieldLabels, ['status.phase', 'metadata.name']);
});
