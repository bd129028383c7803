import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceTypes } from '../../../src/registry/builtin/index.ts';
import { skeletonOf } from '../../../src/registry/builtin/skeleton.ts';
import { MemoryBackend } from '../../../src/storage/memory.ts';

const all = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const expected = [
  { resource: 'namespaces', group: '', kind: 'Namespace', singular: 'namespace', namespaced: false, shortNames: ['ns'], categories: [], subresources: ['status', 'finalize'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], schemaName: 'io.k8s.api.core.v1.Namespace', allowCreateOnUpdate: false, deleteReturnsObject: false, nameRule: 'dns1123-label' },
  { resource: 'configmaps', group: '', kind: 'ConfigMap', singular: 'configmap', namespaced: true, shortNames: ['cm'], categories: [], subresources: [], verbs: all, schemaName: 'io.k8s.api.core.v1.ConfigMap', allowCreateOnUpdate: false, deleteReturnsObject: false, nameRule: 'dns1123-subdomain' },
  { resource: 'secrets', group: '', kind: 'Secret', singular: 'secret', namespaced: true, shortNames: [], categories: [], subresources: [], verbs: all, schemaName: 'io.k8s.api.core.v1.Secret', allowCreateOnUpdate: false, deleteReturnsObject: false, nameRule: 'dns1123-subdomain' },
  { resource: 'serviceaccounts', group: '', kind: 'ServiceAccount', singular: 'serviceaccount', namespaced: true, shortNames: ['sa'], categories: [], subresources: ['token'], verbs: all, schemaName: 'io.k8s.api.core.v1.ServiceAccount', allowCreateOnUpdate: false, deleteReturnsObject: true, nameRule: 'dns1123-subdomain' },
  { resource: 'events', group: '', kind: 'Event', singular: 'event', namespaced: true, shortNames: ['ev'], categories: [], subresources: [], verbs: all, schemaName: 'io.k8s.api.core.v1.Event', allowCreateOnUpdate: true, deleteReturnsObject: false, nameRule: 'path-segment' },
  { resource: 'services', group: '', kind: 'Service', singular: 'service', namespaced: true, shortNames: ['svc'], categories: ['all'], subresources: ['proxy', 'status'], verbs: all, schemaName: 'io.k8s.api.core.v1.Service', allowCreateOnUpdate: true, deleteReturnsObject: true, nameRule: 'dns1123-label' },
  { resource: 'pods', group: '', kind: 'Pod', singular: 'pod', namespaced: true, shortNames: ['po'], categories: ['all'], subresources: ['attach', 'binding', 'ephemeralcontainers', 'eviction', 'exec', 'log', 'portforward', 'proxy', 'resize', 'status'], verbs: all, schemaName: 'io.k8s.api.core.v1.Pod', allowCreateOnUpdate: false, deleteReturnsObject: true, nameRule: 'dns1123-subdomain' },
  { resource: 'nodes', group: '', kind: 'Node', singular: 'node', namespaced: false, shortNames: ['no'], categories: [], subresources: ['proxy', 'status'], verbs: all, schemaName: 'io.k8s.api.core.v1.Node', allowCreateOnUpdate: false, deleteReturnsObject: false, nameRule: 'dns1123-subdomain' },
  { resource: 'endpoints', group: '', kind: 'Endpoints', singular: 'endpoints', namespaced: true, shortNames: ['ep'], categories: [], subresources: [], verbs: all, schemaName: 'io.k8s.api.core.v1.Endpoints', allowCreateOnUpdate: true, deleteReturnsObject: false, nameRule: 'dns1123-subdomain', deprecationWarning: 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice' },
  { resource: 'leases', group: 'coordination.k8s.io', kind: 'Lease', singular: 'lease', namespaced: true, shortNames: [], categories: [], subresources: [], verbs: all, schemaName: 'io.k8s.api.coordination.v1.Lease', allowCreateOnUpdate: true, deleteReturnsObject: false, nameRule: 'dns1123-subdomain' },
  { resource: 'deployments', group: 'apps', kind: 'Deployment', singular: 'deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'], subresources: ['status', 'scale'], verbs: all, schemaName: 'io.k8s.api.apps.v1.Deployment', allowCreateOnUpdate: false, deleteReturnsObject: false, nameRule: 'dns1123-subdomain' },
  { resource: 'poddisruptionbudgets', group: 'policy', kind: 'PodDisruptionBudget', singular: 'poddisruptionbudget', namespaced: true, shortNames: ['pdb'], categories: [], subresources: ['status'], verbs: all, schemaName: 'io.k8s.api.policy.v1.PodDisruptionBudget', allowCreateOnUpdate: false, deleteReturnsObject: false, nameRule: 'path-segment' },
  { resource: 'mutatingwebhookconfigurations', group: 'admissionregistration.k8s.io', kind: 'MutatingWebhookConfiguration', singular: 'mutatingwebhookconfiguration', namespaced: false, shortNames: [], categories: ['api-extensions'], subresources: [], verbs: all, schemaName: 'io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration', allowCreateOnUpdate: false, deleteReturnsObject: false, nameRule: 'dns1123-subdomain' },
  { resource: 'validatingwebhookconfigurations', group: 'admissionregistration.k8s.io', kind: 'ValidatingWebhookConfiguration', singular: 'validatingwebhookconfiguration', namespaced: false, shortNames: [], categories: ['api-extensions'], subresources: [], verbs: all, schemaName: 'io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration', allowCreateOnUpdate: false, deleteReturnsObject: false, nameRule: 'dns1123-subdomain' },
];

const types = builtinResourceTypes({ serviceClusterIPRange: '10.96.0.0/12' });

for (const e of expected) {
  test(`${e.resource} is described as upstream serves it`, () => {
    const rt = types.find((t) => t.resource === e.resource);
    assert.ok(rt, `${e.resource} is served`);
    const { strategy: _strategy, allocatorFor: _allocatorFor, version, listKind, allowUnconditionalUpdate: _u, tableColumns: _c, tableRowConditions: _r, subresourceDiscovery: _d, strategyUsesCel: _cel, ...described } = rt;
    assert.equal(version, 'v1');
    assert.equal(listKind, `${e.kind}List`);
    assert.deepEqual(described, e);
  });
}

test('every built-in type is served once', () => {
  const keys = types.map((t) => `${t.group}/${t.version}/${t.resource}`);
  assert.equal(new Set(keys).size, keys.length);
});

test('every built-in type has the names, scope, verbs and schema upstream serves it with', () => {
  for (const t of types) {
    const s = skeletonOf(t.group, t.version, t.resource);
    const described = { kind: t.kind, singular: t.singular, namespaced: t.namespaced, shortNames: t.shortNames, categories: t.categories, verbs: [...t.verbs].sort(), schemaName: t.schemaName };
    assert.deepEqual(described, { kind: s.kind, singular: s.singular, namespaced: s.namespaced, shortNames: s.shortNames, categories: s.categories, verbs: [...s.verbs].sort(), schemaName: s.schemaName }, t.resource);
    for (const sub of t.subresources) assert.ok(s.subresources.some((u) => u.name === sub), `${t.resource}/${sub} is served upstream`);
  }
});

// Of the types described at start; those loaded on first use (storage, admission policies) say so once loaded.
test('leases, PodDisruptionBudgets and webhook configurations refuse an update without resourceVersion', () => {
  assert.deepEqual(types.filter((t) => t.allowUnconditionalUpdate === false).map((t) => t.resource), ['leases', 'poddisruptionbudgets', 'mutatingwebhookconfigurations', 'validatingwebhookconfigurations']);
});

test('only services carry an allocator', () => {
  assert.deepEqual(types.filter((t) => t.allocatorFor !== undefined).map((t) => t.resource), ['services']);
});

test('each Store gets its own allocator over its own storage', () => {
  const services = builtinResourceTypes().find((t) => t.resource === 'services')!;
  const backend = new MemoryBackend();
  assert.notEqual(services.allocatorFor!(backend), services.allocatorFor!(backend));
});

test('a type that loads its behaviour on first use serves the same names, scope, verbs and subresources before and after', async () => {
  const lazy = builtinResourceTypes().filter((t) => t.load !== undefined);
  assert.ok(lazy.length > 30, `${lazy.length} lazily loaded types`);
  for (const t of lazy) {
    const before = JSON.stringify([t.kind, t.namespaced, t.verbs, t.shortNames, t.categories, t.subresources, t.schemaName]);
    const strategy = t.strategy;
    await t.load!();
    assert.equal(t.load, undefined, t.resource);
    assert.equal(JSON.stringify([t.kind, t.namespaced, t.verbs, t.shortNames, t.categories, t.subresources, t.schemaName]), before, t.resource);
    assert.notEqual(t.strategy, strategy, `${t.resource} has its own strategy once loaded`);
  }
});
