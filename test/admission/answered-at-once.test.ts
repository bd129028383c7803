// Admission plugins with nothing configured answer a write at once, without a promise; a
// configuration list still being read is waited for, and its failure is the write's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdmissionChain, type AdmissionAttributes, type AdmissionPlugin } from '../../src/admission/chain.ts';
import { defaultStorageClassAdmission } from '../../src/admission/default-storage-class.ts';
import { limitRanger } from '../../src/admission/limit-ranger.ts';
import { mutatingAdmissionPolicy } from '../../src/admission/mutating-admission-policy.ts';
import { namespaceLifecycle } from '../../src/admission/namespace-lifecycle.ts';
import { priorityAdmission } from '../../src/admission/priority.ts';
import { resourceQuotaAdmission } from '../../src/admission/resource-quota.ts';
import { serviceAccountAdmission } from '../../src/admission/service-account.ts';
import { validatingAdmissionPolicy } from '../../src/admission/validating-admission-policy.ts';
import { WebhookAdmission } from '../../src/admission/webhook.ts';
import type { KubeObject } from '../../src/api/index.ts';

function attrs(): AdmissionAttributes {
  return {
    operation: 'CREATE', group: '', version: 'v1', resource: 'configmaps', subresource: '', kind: 'ConfigMap',
    namespace: 'default', name: 'cm', namespaced: true, dryRun: false, oldObject: undefined,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } },
  };
}

type Listed = KubeObject[] | Promise<KubeObject[]>;

function plugins(list: () => Listed): AdmissionPlugin[] {
  const sources = {
    policies: list, bindings: list, namespace: async () => undefined, params: async () => undefined, log: () => {},
    mergeConfiguration: (_attrs: AdmissionAttributes, obj: KubeObject) => obj,
  };
  const webhooks = new WebhookAdmission({ mutating: { list }, validating: { list }, namespaceLabels: async () => ({}), log: () => {} });
  return [mutatingAdmissionPolicy(sources), validatingAdmissionPolicy(sources), webhooks.mutating, webhooks.validating];
}

test('with no policies, bindings or webhook configurations known, every plugin answers without a promise', () => {
  for (const plugin of plugins(() => [])) {
    const answer = plugin.admit?.(attrs()) ?? plugin.validate?.(attrs());
    assert.equal(answer, undefined, plugin.name);
  }
});

test('plugins for pods, claims and priority classes pass other writes at once, looking nothing up', async () => {
  const lookedUp: string[] = [];
  const lookup = (what: string) => async () => {
    lookedUp.push(what);
    return [];
  };
  const others: AdmissionPlugin[] = [
    defaultStorageClassAdmission(lookup('storage classes')),
    limitRanger({ list: lookup('limit ranges') }),
    priorityAdmission({ get: async () => undefined, list: lookup('priority classes') }),
    serviceAccountAdmission({ get: async () => (lookedUp.push('service account'), undefined) }),
  ];
  for (const plugin of others) {
    assert.equal(plugin.admit?.(attrs()), undefined, `${plugin.name} admit`);
    assert.equal(plugin.validate?.(attrs()), undefined, `${plugin.name} validate`);
  }
  assert.deepEqual(lookedUp, []);
  // A pod is theirs: they answer with a promise and look up what they need.
  const pod = { ...attrs(), resource: 'pods', kind: 'Pod', object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [] } } } as AdmissionAttributes;
  const limits = others[1]!.admit?.(pod);
  assert.ok(limits instanceof Promise);
  await limits;
  assert.deepEqual(lookedUp, ['limit ranges']);
});

test('a configuration list still being read is waited for, and its failure fails the write', async () => {
  for (const plugin of plugins(() => Promise.reject(new Error('list failed')))) {
    const answer = plugin.admit?.(attrs()) ?? plugin.validate?.(attrs());
    assert.ok(answer instanceof Promise, plugin.name);
    await assert.rejects(answer, /list failed/, plugin.name);
  }
  for (const plugin of plugins(() => Promise.resolve([]))) {
    await (plugin.admit?.(attrs()) ?? plugin.validate?.(attrs()));
  }
});

test('the chain runs plugins in order, awaiting only those that answer with a promise', async () => {
  const order: string[] = [];
  const chain = new AdmissionChain([
    { name: 'at-once', admit: () => void order.push('at-once') },
    { name: 'later', admit: async () => { await new Promise((resolve) => setTimeout(resolve, 5)); order.push('later'); } },
    { name: 'after', admit: () => void order.push('after') },
  ]);
  await chain.admit(attrs());
  assert.deepEqual(order, ['at-once', 'later', 'after']);
});

test('NamespaceLifecycle passes a create at once when the namespace is known at once to be active; otherwise it looks it up', async () => {
  const active: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' }, status: { phase: 'Active' } };
  const terminating: KubeObject = { ...active, status: { phase: 'Terminating' } };
  const cases: { name: string; now: KubeObject | null | undefined; stored: KubeObject | undefined; expected: 'at once' | 'admitted' | number }[] = [
    { name: 'active, known at once', now: active, stored: active, expected: 'at once' },
    { name: 'not known at once', now: undefined, stored: active, expected: 'admitted' },
    { name: 'absent at once', now: null, stored: undefined, expected: 404 },
    { name: 'terminating at once', now: terminating, stored: terminating, expected: 403 },
  ];
  for (const { name, now, stored, expected } of cases) {
    let lookups = 0;
    const plugin = namespaceLifecycle(async () => (lookups++, stored), () => now);
    const answer = plugin.admit!(attrs());
    if (expected === 'at once') {
      assert.equal(answer, undefined, name);
      assert.equal(lookups, 0, name);
      continue;
    }
    assert.ok(answer instanceof Promise, name);
    if (expected === 'admitted') await answer;
    else await assert.rejects(answer, (err: { code?: number }) => err.code === expected, name);
    assert.equal(lookups, 1, name);
  }
});

test('ResourceQuota passes a create at once when the namespace is known at once to have no quota', async () => {
  let listed = 0;
  const access = (noneNow: boolean) => ({
    list: async () => (listed++, []), updateStatus: async () => {}, objects: async () => [], noneNow: () => noneNow,
  });
  assert.equal(resourceQuotaAdmission(access(true)).validate!(attrs()), undefined);
  assert.equal(listed, 0);
  const answer = resourceQuotaAdmission(access(false)).validate!(attrs());
  assert.ok(answer instanceof Promise);
  await answer;
  assert.equal(listed, 1);
});

test('ResourceQuota does not read the object of an update no quota charges', async () => {
  // An apply decodes the object it wrote only when a plugin reads it; a Deployment's update
  // is never charged (only creates count it), so reading it cost every apply a decode.
  let reads = 0;
  const update: AdmissionAttributes = {
    ...attrs(), operation: 'UPDATE', group: 'apps', resource: 'deployments', kind: 'Deployment', name: 'd',
    oldObject: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default', resourceVersion: '5' } },
  };
  Object.defineProperty(update, 'object', { get: () => (reads++, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' } }), enumerable: true });
  let listed = 0;
  const plugin = resourceQuotaAdmission({ list: async () => (listed++, []), updateStatus: async () => {}, objects: async () => [], noneNow: () => false });
  assert.equal(plugin.validate!(update), undefined);
  assert.equal(reads, 0);
  assert.equal(listed, 0);
  // A pod's update may be charged (its resources can grow): that one is read.
  const podUpdate: AdmissionAttributes = { ...attrs(), operation: 'UPDATE', resource: 'pods', kind: 'Pod', name: 'p', oldObject: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', resourceVersion: '5' }, spec: { containers: [] } } };
  Object.defineProperty(podUpdate, 'object', { get: () => (reads++, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [] } }), enumerable: true });
  await plugin.validate!(podUpdate);
  assert.ok(reads > 0);
});
