// DefaultStorageClass admission: claims without a class get the default one's name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import type { AdmissionAttributes } from '../../src/admission/chain.ts';
import { defaultStorageClass, defaultStorageClassAdmission } from '../../src/admission/default-storage-class.ts';

const sc = (name: string, created: string, isDefault: boolean, beta = false): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
  metadata: { name, creationTimestamp: created, ...(isDefault ? { annotations: { [beta ? 'storageclass.beta.kubernetes.io/is-default-class' : 'storageclass.kubernetes.io/is-default-class']: 'true' } } : {}) },
});

test('the default class: annotated (either annotation), the newest, then the first by name', () => {
  const cases: Array<[string, KubeObject[], string | undefined]> = [
    ['none is default', [sc('a', '2026-01-01T00:00:00Z', false)], undefined],
    ['one default', [sc('a', '2026-01-01T00:00:00Z', false), sc('b', '2026-01-01T00:00:00Z', true)], 'b'],
    ['the beta annotation counts', [sc('old', '2026-01-01T00:00:00Z', true, true)], 'old'],
    ['the newest of two', [sc('a', '2026-01-01T00:00:00Z', true), sc('b', '2026-02-01T00:00:00Z', true)], 'b'],
    ['same time: first by name', [sc('z', '2026-01-01T00:00:00Z', true), sc('m', '2026-01-01T00:00:00Z', true)], 'm'],
  ];
  for (const [name, classes, expected] of cases) assert.equal(defaultStorageClass(classes)?.metadata.name, expected, name);
});

test('a claim created without a class gets the default; an explicit class, even "", stays; other writes are left alone', async () => {
  const plugin = defaultStorageClassAdmission(async () => [sc('standard', '2026-01-01T00:00:00Z', true)]);
  const claim = (spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec });
  const attrs = (object: KubeObject, operation: 'CREATE' | 'UPDATE' = 'CREATE', resource = 'persistentvolumeclaims'): AdmissionAttributes =>
    ({ operation, group: '', version: 'v1', resource, subresource: '', namespace: 'ns', name: 'c', object, kind: object.kind ?? '' }) as unknown as AdmissionAttributes;
  const cases: Array<[string, AdmissionAttributes, unknown]> = [
    ['no class', attrs(claim({})), 'standard'],
    ['null class', attrs(claim({ storageClassName: null })), 'standard'],
    ['explicit class', attrs(claim({ storageClassName: 'fast' })), 'fast'],
    ['empty class', attrs(claim({ storageClassName: '' })), ''],
    ['an update', attrs(claim({}), 'UPDATE'), undefined],
  ];
  for (const [name, a, expected] of cases) {
    await plugin.admit!(a);
    assert.equal((a.object!.spec as { storageClassName?: unknown }).storageClassName, expected, name);
  }
});
