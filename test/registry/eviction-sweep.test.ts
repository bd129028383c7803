// Bad input and exactness of pods/eviction and PodDisruptionBudgets against upstream's
// eviction.go, create handler, policy validation and poddisruptionbudget strategy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { conflict, isStatusError, type KubeObject } from '../../src/api/index.ts';
import { evictPod } from '../../src/registry/eviction.ts';
import type { ResourceRegistry } from '../../src/registry/registry.ts';
import type { Store } from '../../src/registry/store.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const namespace = () => server.newNamespace('sweep');
const pdbs = (ns: string) => `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;
const legacyScheme = 'pkg/api/legacyscheme/scheme.go:30';

/** A pod in the phase given (Ready when Running unless told otherwise), bound to a node when asked (then deleted gracefully). */
async function pod(ns: string, name: string, opts: { labels?: Record<string, string>; phase?: string; ready?: boolean; node?: boolean; finalizers?: string[] } = {}): Promise<void> {
  const metadata = { name, labels: opts.labels ?? { app: 'web' }, ...(opts.finalizers ? { finalizers: opts.finalizers } : {}) };
  const spec = { ...(opts.node ? { nodeName: 'n1' } : {}), containers: [{ name: 'c', image: 'nginx' }] };
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata, spec } });
  assert.equal(created.status, 201, created.text);
  const phase = opts.phase ?? 'Running';
  const status = { phase, conditions: [{ type: 'Ready', status: phase === 'Running' && opts.ready !== false ? 'True' : 'False' }] };
  const res = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, { raw: JSON.stringify({ status }), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(res.status, 200, res.text);
}

function getPod(ns: string, name: string) {
  return server.request('GET', `/api/v1/namespaces/${ns}/pods/${name}`);
}

function evictRaw(ns: string, name: string, raw: string, query = '', contentType = 'application/json') {
  return server.request('POST', `/api/v1/namespaces/${ns}/pods/${name}/eviction${query}`, { raw, headers: { 'content-type': contentType } });
}

function evict(ns: string, name: string, extra: Record<string, unknown> = {}, query = '') {
  return evictRaw(ns, name, JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...extra }), query);
}

async function budget(ns: string, name: string, spec: Record<string, unknown>): Promise<KubeObject> {
  const res = await server.request('POST', pdbs(ns), { body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec } });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

describe('an Eviction of another version or kind is refused as the decoder into an Eviction refuses it', () => {
  const cannot = (kind: string, version: string, why: string) => `${kind} in version "${version}" cannot be handled as a Eviction: ${why}`;
  const rows: { name: string; typeMeta: string; message: (body: string) => string }[] = [
    { name: 'a core v1 Pod: decoded, then no conversion', typeMeta: '"apiVersion":"v1","kind":"Pod"', message: () => cannot('Pod', 'v1', 'converting (v1.Pod) to (policy.Eviction): unknown conversion') },
    { name: 'policy/v1 PodDisruptionBudget', typeMeta: '"apiVersion":"policy/v1","kind":"PodDisruptionBudget"', message: () => cannot('PodDisruptionBudget', 'v1', 'converting (v1.PodDisruptionBudget) to (policy.Eviction): unknown conversion') },
    { name: 'policy/v1beta1 PodDisruptionBudget (registered though not served)', typeMeta: '"apiVersion":"policy/v1beta1","kind":"PodDisruptionBudget"', message: () => cannot('PodDisruptionBudget', 'v1beta1', 'converting (v1beta1.PodDisruptionBudget) to (policy.Eviction): unknown conversion') },
    { name: 'an unversioned kind in any group version', typeMeta: '"apiVersion":"foo/v9","kind":"Status"', message: () => cannot('Status', 'v9', 'converting (v1.Status) to (policy.Eviction): unknown conversion') },
    { name: 'the options kinds of a group version', typeMeta: '"apiVersion":"policy/v1","kind":"DeleteOptions"', message: () => cannot('DeleteOptions', 'v1', 'converting (v1.DeleteOptions) to (policy.Eviction): unknown conversion') },
    { name: 'a kind policy/v1 does not have', typeMeta: '"apiVersion":"policy/v1","kind":"Pod"', message: () => cannot('Pod', 'v1', `no kind "Pod" is registered for version "policy/v1" in scheme "${legacyScheme}"`) },
    { name: 'Eviction in core v1', typeMeta: '"apiVersion":"v1","kind":"Eviction"', message: () => cannot('Eviction', 'v1', `no kind "Eviction" is registered for version "v1" in scheme "${legacyScheme}"`) },
    { name: 'a version policy does not have', typeMeta: '"apiVersion":"policy/v2","kind":"Eviction"', message: () => cannot('Eviction', 'v2', `no kind "Eviction" is registered for version "policy/v2" in scheme "${legacyScheme}"`) },
    { name: 'no kind: the URL\'s, in the body\'s version', typeMeta: '"apiVersion":"apps/v1"', message: () => cannot('Eviction', 'v1', `no kind "Eviction" is registered for version "apps/v1" in scheme "${legacyScheme}"`) },
    { name: 'another server\'s kind', typeMeta: '"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"', message: () => cannot('CustomResourceDefinition', 'v1', `no kind "CustomResourceDefinition" is registered for version "apiextensions.k8s.io/v1" in scheme "${legacyScheme}"`) },
    { name: 'another group without a version', typeMeta: '"apiVersion":"apps/","kind":"Eviction"', message: (body) => cannot('Eviction', '', `Object 'apiVersion' is missing in '${body}'`) },
    { name: 'the internal version decodes, and is not an accepted one', typeMeta: '"apiVersion":"policy/__internal","kind":"Eviction"', message: () => 'the API version in the data (policy/__internal) does not match the expected API version (policy/v1)' },
  ];
  for (const row of rows) {
    test(`${row.name}: 400, and the pod stays`, async () => {
      const ns = await namespace();
      await pod(ns, 'p', { phase: 'Pending' });
      const body = `{${row.typeMeta},"metadata":{"name":"p"}}`;
      const res = await evictRaw(ns, 'p', body);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.reason, 'BadRequest');
      assert.equal(res.json.message, row.message(body));
      assert.equal((await getPod(ns, 'p')).status, 200);
    });
  }

  test('what the body leaves out is policy/v1 Eviction; policy/ and v1beta1 are taken', async () => {
    const ns = await namespace();
    for (const [name, typeMeta] of [['a', ''], ['b', '"apiVersion":"policy/",'], ['c', '"apiVersion":"policy/v1beta1","kind":"Eviction",']] as const) {
      await pod(ns, name, { phase: 'Pending' });
      const res = await evictRaw(ns, name, `{${typeMeta}"metadata":{"name":"${name}"}}`);
      assert.equal(res.status, 201, `${name}: ${res.text}`);
      assert.equal((await getPod(ns, name)).status, 404, name);
    }
  });
});

describe('the order of the checks is upstream\'s', () => {
  test('the query\'s CreateOptions before the body (422)', async () => {
    const ns = await namespace();
    const res = await evictRaw(ns, 'p', '{"apiVersion":"v1","kind":"Pod"}', '?dryRun=Bogus');
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"');
  });

  test('the deleteOptions decode with the body, before its name is compared', async () => {
    const ns = await namespace();
    await pod(ns, 'p', { phase: 'Pending' });
    const res = await evictRaw(ns, 'p', '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"q"},"deleteOptions":{"gracePeriodSeconds":"x"}}');
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, 'Eviction in version "v1" cannot be handled as a Eviction: json: cannot unmarshal string into Go struct field DeleteOptions.deleteOptions.gracePeriodSeconds of type int64');
  });

  test('the namespace before the name, then the name (400 each)', async () => {
    const ns = await namespace();
    await pod(ns, 'p', { phase: 'Pending' });
    const both = await evict(ns, 'p', { metadata: { name: 'q', namespace: 'elsewhere' } });
    assert.equal(both.status, 400);
    assert.equal(both.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
    const nameless = await evictRaw(ns, 'p', '{"apiVersion":"policy/v1","kind":"Eviction"}');
    assert.equal(nameless.status, 400);
    assert.equal(nameless.json.message, 'name in URL does not match name in Eviction object');
    assert.equal((await getPod(ns, 'p')).status, 200);
  });
});

describe('field validation of the Eviction body', () => {
  test('Strict: unknown fields, in the order the body gives them, are the strict decoding error (400); Warn: a warning each, and the eviction goes on', async () => {
    const ns = await namespace();
    await pod(ns, 'p', { phase: 'Pending' });
    const raw = '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"spec":{"x":1},"deleteOptions":{"bogus":true}}';
    const strict = await evictRaw(ns, 'p', raw, '?fieldValidation=Strict');
    assert.equal(strict.status, 400, strict.text);
    assert.equal(strict.json.message, 'Eviction in version "v1" cannot be handled as a Eviction: strict decoding error: unknown field "spec", unknown field "deleteOptions.bogus"');
    assert.equal((await getPod(ns, 'p')).status, 200);
    const warned = await evictRaw(ns, 'p', raw, '?fieldValidation=Warn');
    assert.equal(warned.status, 201, warned.text);
    // Node joins the two Warning headers.
    assert.equal(warned.headers.warning, '299 - "unknown field \\"spec\\"", 299 - "unknown field \\"deleteOptions.bogus\\""');
  });

  test('Strict: a field given twice', async () => {
    const ns = await namespace();
    await pod(ns, 'p', { phase: 'Pending' });
    const res = await evictRaw(ns, 'p', '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p","name":"p"}}', '?fieldValidation=Strict');
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, 'Eviction in version "v1" cannot be handled as a Eviction: strict decoding error: duplicate field "metadata.name"');
  });
});

describe('dry run: the request\'s and the Eviction\'s (propagateDryRun)', () => {
  test('different lists are upstream\'s plain error: 500 without a reason, and nothing is deleted', async () => {
    const ns = await namespace();
    await pod(ns, 'p', { phase: 'Pending' });
    const res = await evict(ns, 'p', { deleteOptions: { dryRun: ['All', 'All'] } }, '?dryRun=All');
    assert.equal(res.status, 500, res.text);
    assert.deepEqual(res.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Non-matching dry-run options in request and content: [All] and [All All]', code: 500 });
    assert.equal((await getPod(ns, 'p')).status, 200);
    assert.equal((await evict(ns, 'p', { deleteOptions: { dryRun: ['All'] } }, '?dryRun=All')).status, 201);
    assert.equal((await getPod(ns, 'p')).status, 200);
  });

  test('admission sees the request\'s dryRun, not the Eviction\'s', async () => {
    const ns = await namespace();
    await server.request('PATCH', `/api/v1/namespaces/${ns}`, { raw: JSON.stringify({ metadata: { labels: { sweep: ns } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    await pod(ns, 'p', { phase: 'Pending' });
    const policy = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { body: {
      metadata: { name: `no-dry-evictions-${ns}` },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods/eviction'] }],
          namespaceSelector: { matchLabels: { sweep: ns } },
        },
        validations: [{ expression: '!request.dryRun', message: 'no dry runs' }],
      },
    } });
    assert.equal(policy.status, 201, policy.text);
    const binding = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { body: {
      metadata: { name: `no-dry-evictions-${ns}` }, spec: { policyName: `no-dry-evictions-${ns}`, validationActions: ['Deny'] },
    } });
    assert.equal(binding.status, 201, binding.text);
    await eventually(async () => assert.equal((await evict(ns, 'p', {}, '?dryRun=All')).status, 422));
    const res = await evict(ns, 'p', { deleteOptions: { dryRun: ['All'] } });
    assert.equal(res.status, 201, res.text);
    assert.equal((await getPod(ns, 'p')).status, 200);
  });
});

describe('the deletion\'s options are validated as the store\'s BeforeDelete does (422 DeleteOptions)', () => {
  const rows: { name: string; deleteOptions: Record<string, unknown>; message: string }[] = [
    { name: 'a dryRun value other than All', deleteOptions: { dryRun: ['Bogus'] }, message: 'dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"' },
    { name: 'an unknown propagationPolicy', deleteOptions: { propagationPolicy: 'Bogus', dryRun: ['All'] }, message: 'propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"' },
    { name: 'orphanDependents with a propagationPolicy', deleteOptions: { propagationPolicy: 'Orphan', orphanDependents: true, dryRun: ['All'] }, message: 'propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set' },
  ];
  for (const row of rows) {
    for (const phase of ['Pending', 'Running'] as const) {
      test(`${phase} pod: ${row.name}`, async () => {
        const ns = await namespace();
        await pod(ns, 'p', { phase });
        const res = await evict(ns, 'p', { deleteOptions: row.deleteOptions });
        assert.equal(res.status, 422, res.text);
        assert.equal(res.json.message, `DeleteOptions.meta.k8s.io "" is invalid: ${row.message}`);
        assert.equal((await getPod(ns, 'p')).status, 200);
      });
    }
  }

  test('orphanDependents reaches the pod\'s deletion (registry)', async () => {
    const pending = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: '5' }, status: { phase: 'Pending' } } as KubeObject;
    const deletions: unknown[] = [];
    const pods = {
      groupResource: { group: '', resource: 'pods' },
      find: async () => pending,
      guaranteedUpdate: async (_ns: string, _name: string, _rv: unknown, _opts: unknown, mutate: (current: KubeObject) => KubeObject) => ({ object: { ...mutate(structuredClone(pending)), metadata: { ...pending.metadata, resourceVersion: '6' } } }),
      delete: async (_ns: string, _name: string, opts: unknown) => void deletions.push(opts),
    } as unknown as Store;
    await evictPod({ lookup: () => undefined } as unknown as ResourceRegistry, pods, 'ns', 'p', { orphanDependents: true, gracePeriodSeconds: 3 });
    assert.deepEqual(deletions, [{ dryRun: false, gracePeriodSeconds: 3, preconditions: { resourceVersion: '6' }, orphanDependents: true, withoutAdmission: true }]);
  });
});

describe('the DisruptionTarget condition an eviction sets before the deletion', () => {
  test('a pod deleted gracefully carries it; a dry run does not set it', async () => {
    const ns = await namespace();
    await pod(ns, 'p', { node: true });
    assert.equal((await evict(ns, 'p', {}, '?dryRun=All')).status, 201);
    const dry = (await getPod(ns, 'p')).json;
    assert.equal(dry.status.conditions.some((c: any) => c.type === 'DisruptionTarget'), false);
    assert.equal((await evict(ns, 'p')).status, 201);
    const after = (await getPod(ns, 'p')).json;
    assert.ok(after.metadata.deletionTimestamp);
    const condition = after.status.conditions.find((c: any) => c.type === 'DisruptionTarget');
    assert.deepEqual({ ...condition, lastTransitionTime: typeof condition.lastTransitionTime }, {
      type: 'DisruptionTarget', status: 'True', lastProbeTime: null, lastTransitionTime: 'string', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting',
    });
  });

  test('a resourceVersion precondition of the pod as it is still evicts (moved to the pod the condition wrote)', async () => {
    const ns = await namespace();
    await pod(ns, 'p', { node: true, labels: { app: 'web' } });
    await budget(ns, 'web', { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } });
    const resourceVersion = (await getPod(ns, 'p')).json.metadata.resourceVersion;
    const res = await evict(ns, 'p', { deleteOptions: { preconditions: { resourceVersion } } });
    assert.equal(res.status, 201, res.text);
    assert.ok((await getPod(ns, 'p')).json.metadata.deletionTimestamp);
  });
});

describe('the eviction\'s own writes', () => {
  test('its pod status and deletion pass no admission, as upstream\'s eviction calls its pod store: a policy refusing both does not stop it', async () => {
    const ns = await namespace();
    await server.request('PATCH', `/api/v1/namespaces/${ns}`, { raw: JSON.stringify({ metadata: { labels: { sweep: ns } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    await pod(ns, 'kept', { node: true });
    await pod(ns, 'evicted', { node: true });
    const name = `no-pod-writes-${ns}`;
    const policy = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { body: {
      metadata: { name },
      spec: {
        matchConstraints: {
          resourceRules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['pods'] },
            { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['pods/status'] },
          ],
          namespaceSelector: { matchLabels: { sweep: ns } },
        },
        validations: [{ expression: 'false', message: 'pods stay as they are' }],
      },
    } });
    assert.equal(policy.status, 201, policy.text);
    const binding = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { body: {
      metadata: { name }, spec: { policyName: name, validationActions: ['Deny'] },
    } });
    assert.equal(binding.status, 201, binding.text);
    // The policy refuses a client's delete...
    await eventually(async () => assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/kept`)).status, 422));
    // ...not the eviction's.
    const res = await evict(ns, 'evicted');
    assert.equal(res.status, 201, res.text);
    const evicted = await getPod(ns, 'evicted');
    assert.ok(evicted.json.metadata.deletionTimestamp !== undefined, evicted.text);
    assert.ok(evicted.json.status.conditions.some((c: { type: string }) => c.type === 'DisruptionTarget'), evicted.text);
  });
});

describe('pods a budget is not asked about (canIgnorePDB)', () => {
  test('finished pods, and a pod already terminating, go although the budget allows nothing', async () => {
    const ns = await namespace();
    await pod(ns, 'done', { phase: 'Succeeded' });
    await pod(ns, 'failed', { phase: 'Failed' });
    await pod(ns, 'leaving', { node: true });
    await pod(ns, 'other', { node: true });
    await budget(ns, 'web', { minAvailable: '100%', selector: { matchLabels: { app: 'web' } } });
    assert.equal((await evict(ns, 'other')).status, 429);
    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/leaving`)).status, 200);
    for (const name of ['done', 'failed', 'leaving']) {
      const res = await evict(ns, name);
      assert.equal(res.status, 201, `${name}: ${res.text}`);
    }
    assert.equal((await getPod(ns, 'done')).status, 404);
    assert.equal((await getPod(ns, 'failed')).status, 404);
    const leaving = (await getPod(ns, 'leaving')).json;
    assert.ok(leaving.status.conditions.some((c: any) => c.type === 'DisruptionTarget'));
  });
});

describe('a budget that keeps conflicting (registry)', () => {
  const running: KubeObject = {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', uid: 'u', resourceVersion: '5', labels: { app: 'web' } },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as KubeObject;
  const pdb: KubeObject = {
    apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: 'ns', resourceVersion: '7', generation: 1 },
    spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } }, status: {},
  } as KubeObject;
  const budgetsGroupResource = { group: 'policy', resource: 'poddisruptionbudgets' };
  function fakes(find: () => KubeObject | undefined) {
    let writes = 0;
    const budgets = {
      groupResource: budgetsGroupResource,
      list: async () => ({ items: [{ object: pdb }] }),
      find: async () => find(),
      guaranteedUpdate: async () => {
        writes++;
        throw conflict(budgetsGroupResource, 'web', 'the object has been modified; please apply your changes to the latest version and try again');
      },
    } as unknown as Store;
    const pods = {
      groupResource: { group: '', resource: 'pods' },
      find: async () => running,
      list: async () => ({ items: [{ object: running }] }),
      guaranteedUpdate: async () => assert.fail('no deletion once the budget failed'),
      delete: async () => assert.fail('no deletion once the budget failed'),
    } as unknown as Store;
    const registry = { lookup: () => ({ store: budgets }) } as unknown as ResourceRegistry;
    return { registry, pods, writes: () => writes };
  }

  test('fails with the last conflict after 20 tries (retry.RetryOnConflict answers it, not a timeout)', async () => {
    const { registry, pods, writes } = fakes(() => pdb);
    const err = await evictPod(registry, pods, 'ns', 'p', {}).then(() => undefined, (e: unknown) => e);
    assert.ok(isStatusError(err));
    assert.equal(err.code, 409);
    assert.equal(err.message, 'Operation cannot be fulfilled on poddisruptionbudgets.policy "web": the object has been modified; please apply your changes to the latest version and try again');
    assert.equal(writes(), 20);
  });

  test('a budget gone when read again is its 404', async () => {
    const { registry, pods } = fakes(() => undefined);
    const err = await evictPod(registry, pods, 'ns', 'p', {}).then(() => undefined, (e: unknown) => e);
    assert.ok(isStatusError(err));
    assert.equal(err.code, 404);
    assert.equal(err.message, 'poddisruptionbudgets.policy "web" not found');
  });
});

describe('poddisruptionbudgets', () => {
  test('a PUT without a resourceVersion is refused (AllowUnconditionalUpdate false)', async () => {
    const ns = await namespace();
    const created = await budget(ns, 'b', { minAvailable: 1, selector: { matchLabels: { app: 'x' } } });
    const { resourceVersion: _rv, ...metadata } = created.metadata;
    const res = await server.request('PUT', `${pdbs(ns)}/b`, { body: { ...created, metadata, spec: { minAvailable: 2, selector: { matchLabels: { app: 'x' } } } } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }]);
    const pinned = await server.request('PUT', `${pdbs(ns)}/b`, { body: { ...created, spec: { minAvailable: 2, selector: { matchLabels: { app: 'x' } } } } });
    assert.equal(pinned.status, 200, pinned.text);
  });

  test('names are checked only as path segments, finalizers only as qualified names: ValidatePodDisruptionBudget checks no ObjectMeta', async () => {
    const ns = await namespace();
    const odd = await server.request('POST', pdbs(ns), { body: { metadata: { name: 'Invalid++_Name', finalizers: ['hold'] }, spec: { minAvailable: 1 } } });
    assert.equal(odd.status, 201, odd.text);
    assert.equal((await server.request('PATCH', `${pdbs(ns)}/Invalid++_Name`, { raw: '{"metadata":{"finalizers":null}}', headers: { 'content-type': 'application/merge-patch+json' } })).status, 200);
    const slash = await server.request('POST', pdbs(ns), { body: { metadata: { name: 'a%b' }, spec: { minAvailable: 1 } } });
    assert.equal(slash.status, 422, slash.text);
    assert.deepEqual(slash.json.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: "a%b": may not contain \'%\'', field: 'metadata.name' }]);
  });

  test('status conditions are validated as metav1 conditions (ValidateConditions)', async () => {
    const ns = await namespace();
    await budget(ns, 'b', { minAvailable: 1, selector: { matchLabels: { app: 'x' } } });
    const status = (conditions: unknown[]) => server.request('PATCH', `${pdbs(ns)}/b/status`, {
      raw: JSON.stringify({ status: { conditions } }), headers: { 'content-type': 'application/merge-patch+json' },
    });
    const bare = await status([{ type: 'DisruptionAllowed', status: 'True' }]);
    assert.equal(bare.status, 422, bare.text);
    assert.deepEqual(bare.json.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
      'status.conditions[0].lastTransitionTime: Required value: must be set',
      'status.conditions[0].reason: Required value: must be set',
    ]);
    const at = '2025-01-01T00:00:00Z';
    const bad = await status([
      { type: 'DisruptionAllowed', status: 'Maybe', reason: 'no good', lastTransitionTime: at, message: '' },
      { type: 'DisruptionAllowed', status: 'True', reason: 'Fine', lastTransitionTime: at, message: '', observedGeneration: -1 },
    ]);
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(bad.json.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
      'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.conditions[0].reason: Invalid value: "no good": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or \'_,:\', and must end with an alphanumeric character or \'_\' (e.g. \'my_name\',  or \'MY_NAME\',  or \'MyName\',  or \'ReasonA,ReasonB\',  or \'ReasonA:ReasonB\', regex used for validation is \'[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?\')',
      'status.conditions[1].type: Duplicate value: "DisruptionAllowed"',
      'status.conditions[1].observedGeneration: Invalid value: -1: must be greater than or equal to zero',
    ]);
    const good = await status([{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', lastTransitionTime: at, message: '' }]);
    assert.equal(good.status, 200, good.text);
  });

  test('table columns as printPodDisruptionBudget', async () => {
    const ns = await namespace();
    await budget(ns, 'min', { minAvailable: '50%', selector: { matchLabels: { app: 'x' } } });
    await budget(ns, 'max', { maxUnavailable: 1, selector: { matchLabels: { app: 'x' } } });
    const res = await server.request('GET', pdbs(ns), { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.columnDefinitions.map((c: any) => [c.name, c.type]), [['Name', 'string'], ['Min Available', 'string'], ['Max Unavailable', 'string'], ['Allowed Disruptions', 'integer'], ['Age', 'string']]);
    assert.deepEqual(res.json.rows.map((r: any) => r.cells.slice(0, 4)), [['max', 'N/A', '1', 0], ['min', '50%', 'N/A', 0]]);
  });
});
