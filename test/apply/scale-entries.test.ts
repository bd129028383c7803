// Managed fields carried between an object and its Scale (upstream's ScaleHandler).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ManagedFieldsEntry } from '../../src/api/types.ts';
import { parentEntriesOf, scaleEntriesOf } from '../../src/apply/index.ts';

const replicasPathAt = (apiVersion: string) => (apiVersion === 'apps/v1' ? ['spec', 'replicas'] : undefined);
const entry = (manager: string, operation: 'Apply' | 'Update', apiVersion: string, fieldsV1: Record<string, unknown>, extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry =>
  ({ manager, operation, apiVersion, time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1, ...extra });
const replicas = { 'f:spec': { 'f:replicas': {} } };

test('the Scale sees the managers owning the replicas, as autoscaling/v1', () => {
  const parent = [
    entry('alice', 'Apply', 'apps/v1', { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } }),
    entry('labeler', 'Update', 'apps/v1', { 'f:metadata': { 'f:labels': { 'f:a': {} } } }),
    entry('old', 'Update', 'apps/v1beta2', replicas),
  ];
  assert.deepEqual(scaleEntriesOf(parent, replicasPathAt), [entry('alice', 'Apply', 'autoscaling/v1', replicas)]);
});

test('back on the object: a manager the Scale no longer has loses its replicas, the Scale\'s writer owns them, versions not served are dropped', () => {
  const parent = [
    entry('alice', 'Apply', 'apps/v1', { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } }),
    entry('labeler', 'Update', 'apps/v1', { 'f:metadata': { 'f:labels': { 'f:a': {} } } }),
    entry('old', 'Update', 'apps/v1beta2', replicas),
  ];
  const scale = [entry('hpa', 'Update', 'autoscaling/v1', replicas, { subresource: 'scale' })];
  assert.deepEqual(parentEntriesOf(parent, scale, replicasPathAt, 'apps/v1'), [
    entry('alice', 'Apply', 'apps/v1', { 'f:spec': { 'f:paused': {} } }),
    { manager: 'hpa', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: replicas, subresource: 'scale' },
    entry('labeler', 'Update', 'apps/v1', { 'f:metadata': { 'f:labels': { 'f:a': {} } } }),
  ]);
});

test('a manager still among the Scale\'s keeps its entry as it was', () => {
  const parent = [entry('alice', 'Apply', 'apps/v1', { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } })];
  assert.deepEqual(parentEntriesOf(parent, scaleEntriesOf(parent, replicasPathAt), replicasPathAt, 'apps/v1'), parent);
});
