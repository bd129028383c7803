import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mountServiceAccountToken, serviceAccountAdmission } from '../../src/admission/service-account.ts';
import type { KubeObject } from '../../src/api/index.ts';

const mount = { name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
const volume = {
  name: 'kube-api-access-abcde',
  projected: {
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: 420,
  },
};

test('the token volume is mounted as upstream mounts it', () => {
  const cases: { name: string; spec: any; expected: any }[] = [
    {
      name: 'every container and init container',
      spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'a' }, { name: 'b', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] },
      expected: { initContainers: [{ name: 'i', volumeMounts: [mount] }], containers: [{ name: 'a', volumeMounts: [mount] }, { name: 'b', volumeMounts: [{ name: 'data', mountPath: '/data' }, mount] }], volumes: [volume] },
    },
    {
      name: 'a container mounting something at the path keeps it',
      spec: { containers: [{ name: 'a', volumeMounts: [{ name: 'mine', mountPath: mount.mountPath }] }], volumes: [{ name: 'mine' }] },
      expected: { containers: [{ name: 'a', volumeMounts: [{ name: 'mine', mountPath: mount.mountPath }] }], volumes: [{ name: 'mine' }] },
    },
    {
      name: 'an existing kube-api-access volume is reused',
      spec: { containers: [{ name: 'a' }], volumes: [{ name: 'kube-api-access-zzzzz', emptyDir: {} }] },
      expected: { containers: [{ name: 'a', volumeMounts: [{ ...mount, name: 'kube-api-access-zzzzz' }] }], volumes: [{ name: 'kube-api-access-zzzzz', emptyDir: {} }] },
    },
  ];
  for (const c of cases) {
    mountServiceAccountToken(c.spec, 'abcde');
    assert.deepEqual(c.spec, c.expected, c.name);
  }
});

test('automountServiceAccountToken on the pod wins over the account\'s', async () => {
  const cases: { name: string; pod?: boolean; account?: boolean; mounted: boolean }[] = [
    { name: 'neither says', mounted: true },
    { name: 'the account says no', account: false, mounted: false },
    { name: 'the account says no, the pod yes', account: false, pod: true, mounted: true },
    { name: 'the pod says no', pod: false, account: true, mounted: false },
  ];
  for (const c of cases) {
    const account: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' }, ...(c.account !== undefined ? { automountServiceAccountToken: c.account } : {}) };
    const plugin = serviceAccountAdmission({ get: async () => account });
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c' }], ...(c.pod !== undefined ? { automountServiceAccountToken: c.pod } : {}) } };
    await plugin.admit!({ operation: 'CREATE', group: '', version: 'v1', resource: 'pods', subresource: '', kind: 'Pod', namespace: 'ns', name: 'p', object: pod, oldObject: undefined, dryRun: false, namespaced: true });
    const volumes = (pod.spec as any).volumes ?? [];
    assert.equal(volumes.length === 1 && volumes[0].name.startsWith('kube-api-access-'), c.mounted, c.name);
    assert.match((pod.spec as any).volumes?.[0]?.name ?? 'kube-api-access-bcdfg', /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  }
});
