// NamespaceLifecycle's refusals, as upstream words them: the immortal namespaces may not be
// deleted, and a terminating namespace takes no new content (its resource qualified by group).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionAttributes } from '../../src/admission/chain.ts';
import { namespaceLifecycle } from '../../src/admission/namespace-lifecycle.ts';
import { StatusError, type KubeObject } from '../../src/api/index.ts';

const terminating: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going', deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { phase: 'Terminating' } } as KubeObject;
const plugin = namespaceLifecycle(async (name) => (name === 'going' ? terminating : undefined));

function attrs(overrides: Partial<AdmissionAttributes>): AdmissionAttributes {
  return {
    operation: 'CREATE', group: '', version: 'v1', resource: 'configmaps', subresource: '', kind: 'ConfigMap',
    namespace: 'going', name: 'cm', namespaced: true, dryRun: false, oldObject: undefined,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'going' } },
    ...overrides,
  };
}

const deleteNamespace = (name: string) => attrs({ operation: 'DELETE', resource: 'namespaces', kind: 'Namespace', namespace: '', namespaced: false, name, object: undefined });

async function refusal(a: AdmissionAttributes): Promise<StatusError | undefined> {
  try {
    await plugin.admit!(a);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return err;
  }
}

for (const name of ['default', 'kube-system', 'kube-public']) {
  test(`deleting the ${name} namespace answers 403 "this namespace may not be deleted"`, async () => {
    const err = await refusal(deleteNamespace(name));
    assert.equal(err?.code, 403);
    assert.equal(err?.reason, 'Forbidden');
    assert.equal(err?.message, `namespaces "${name}" is forbidden: this namespace may not be deleted`);
    assert.deepEqual(err?.details, { name, kind: 'namespaces' });
  });
}

test('deleting kube-node-lease or another namespace is not refused', async () => {
  assert.equal(await refusal(deleteNamespace('kube-node-lease')), undefined);
  assert.equal(await refusal(deleteNamespace('mine')), undefined);
});

test('creating in a terminating namespace names the resource with its group', async () => {
  const err = await refusal(attrs({
    group: 'apps', resource: 'deployments', kind: 'Deployment', name: 'web',
    object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'going' } },
  }));
  assert.equal(err?.code, 403);
  assert.equal(err?.message, 'deployments.apps "web" is forbidden: unable to create new content in namespace going because it is being terminated');
  assert.deepEqual(err?.details, {
    name: 'web', group: 'apps', kind: 'deployments',
    causes: [{ reason: 'NamespaceTerminating', message: 'namespace going is being terminated', field: 'metadata.namespace' }],
  });
});

test('creating in a terminating namespace with only a generateName names the object by it', async () => {
  const err = await refusal(attrs({ name: '', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-', namespace: 'going' } } }));
  assert.equal(err?.message, 'configmaps "gen-" is forbidden: unable to create new content in namespace going because it is being terminated');
});

test('creating in a missing namespace answers the namespace 404', async () => {
  const err = await refusal(attrs({ namespace: 'nope' }));
  assert.equal(err?.code, 404);
  assert.equal(err?.message, 'namespaces "nope" not found');
});

test('an update in a namespace that no longer exists is 404 for the namespace; one in a terminating namespace goes on', async () => {
  const update = (namespace: string, extra: Partial<AdmissionAttributes> = {}) => attrs({
    operation: 'UPDATE', namespace, oldObject: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace } }, ...extra,
  });
  const err = await refusal(update('gone'));
  assert.equal(err?.code, 404);
  assert.equal(err?.message, 'namespaces "gone" not found');
  assert.equal((await refusal(update('gone', { subresource: 'status', resource: 'pods', kind: 'Pod' })))?.code, 404, 'a subresource too');
  assert.equal(await refusal(update('going')), undefined);
  assert.equal(await refusal(attrs({ operation: 'DELETE', namespace: 'gone' })), undefined, 'deletes go on');
});
