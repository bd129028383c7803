// MutatingAdmissionPolicies (admissionregistration.k8s.io/v1, served by default in the
// version Plinth reports) through their bindings: ApplyConfiguration merged by the type's
// structure (a container list merged by name), JSONPatch, mutations in order, params,
// matchConditions and failurePolicy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const policiesPath = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies';
const bindingsPath = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings';

describe('MutatingAdmissionPolicy', () => {
  let server: TestServer;
  let seq = 0;
  before(async () => void (server = await startServer()));
  after(() => server?.stop());

  async function namespace(): Promise<string> {
    const name = `map-${++seq}`;
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name, labels: { map: name } } } })).status, 201);
    return name;
  }

  async function policyAndBinding(name: string, ns: string, resources: { group: string; resource: string }, spec: Record<string, unknown>, bindingSpec: Record<string, unknown> = {}): Promise<void> {
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', metadata: { name },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [resources.group], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [resources.resource] }],
          namespaceSelector: { matchLabels: { map: ns } },
        },
        reinvocationPolicy: 'Never',
        ...spec,
      },
    };
    const created = await server.request('POST', policiesPath, { body: policy });
    assert.equal(created.status, 201, created.text);
    const binding = await server.request('POST', bindingsPath, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName: name, ...bindingSpec } } });
    assert.equal(binding.status, 201, binding.text);
  }

  test('ApplyConfiguration and JSONPatch mutations apply in order, each seeing the last', async () => {
    const ns = await namespace();
    await policyAndBinding('label-and-data', ns, { group: '', resource: 'configmaps' }, {
      mutations: [
        { patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'mutated': 'yes'}}}" } },
        // The labels exist once the first mutation added one: the second adds to them.
        { patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/seen'), value: object.metadata.labels['mutated']}]" } },
      ],
    });
    const created = await eventually(async () => {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `cm-${++seq}`, labels: { own: 'kept' } }, data: { a: '1' } } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.metadata.labels?.mutated, 'yes', 'the policy reached the cache');
      return res;
    });
    assert.deepEqual(created.json.metadata.labels, { own: 'kept', mutated: 'yes', 'example.com/seen': 'yes' });
    assert.deepEqual(created.json.data, { a: '1' });
  });

  test('a policy for autoscaling/v2 mutates a v1 HorizontalPodAutoscaler as v2, the change converted back (matchPolicy Equivalent)', async () => {
    const ns = await namespace();
    await policyAndBinding('cap-cpu', ns, { group: 'autoscaling', resource: 'horizontalpodautoscalers' }, {
      matchConstraints: {
        resourceRules: [{ apiGroups: ['autoscaling'], apiVersions: ['v2'], operations: ['CREATE'], resources: ['horizontalpodautoscalers'] }],
        namespaceSelector: { matchLabels: { map: ns } },
      },
      // The metrics list is v2's: v1 holds the target as targetCPUUtilizationPercentage.
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: "[JSONPatch{op: 'replace', path: '/spec/metrics/0/resource/target/averageUtilization', value: 60}]" } }],
    });
    const hpa = {
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler',
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3, targetCPUUtilizationPercentage: 95 },
    };
    const created = await eventually(async () => {
      const res = await server.request('POST', `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`, { body: { ...hpa, metadata: { name: `hpa-${++seq}` } } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.spec.targetCPUUtilizationPercentage, 60, 'the policy reached the cache');
      return res;
    });
    assert.equal(created.json.apiVersion, 'autoscaling/v1');
  });

  test('an apply configuration merges a list map by its keys: the other containers stay', async () => {
    const ns = await namespace();
    await policyAndBinding('pin-image', ns, { group: 'apps', resource: 'deployments' }, {
      matchConditions: [{ name: 'has-app', expression: "object.spec.template.spec.containers.exists(c, c.name == 'app')" }],
      mutations: [{
        patchType: 'ApplyConfiguration',
        applyConfiguration: { expression: "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{containers: [Object.spec.template.spec.containers{name: 'app', image: 'pinned:1'}]}}}}" },
      }],
    });
    const deployment = (name: string, containers: unknown[]) => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
      spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers } } },
    });
    const created = await eventually(async () => {
      const res = await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment(`d-${++seq}`, [{ name: 'app', image: 'latest' }, { name: 'sidecar', image: 'proxy:2' }]) });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.spec.template.spec.containers[0].image, 'pinned:1');
      return res;
    });
    assert.deepEqual(created.json.spec.template.spec.containers.map((c: { name: string; image: string }) => [c.name, c.image]), [['app', 'pinned:1'], ['sidecar', 'proxy:2']]);
    assert.equal(created.json.spec.template.spec.containers[1].imagePullPolicy, 'IfNotPresent', 'defaults still apply');
    const other = await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment('no-app', [{ name: 'web', image: 'nginx' }]) });
    assert.equal(other.status, 201, other.text);
    assert.equal(other.json.spec.template.spec.containers[0].image, 'nginx', 'a false match condition: not mutated');
  });

  test('params feed the mutation; failurePolicy decides when an expression fails', async () => {
    const ns = await namespace();
    const paramsNs = `${ns}-params`;
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: paramsNs } } })).status, 201);
    assert.equal((await server.request('POST', `/api/v1/namespaces/${paramsNs}/configmaps`, { body: { metadata: { name: 'team' }, data: { owner: 'storage' } } })).status, 201);
    await policyAndBinding('owner', ns, { group: '', resource: 'secrets' }, {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      failurePolicy: 'Fail',
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{annotations: {'owner': params.data.owner, 'tier': object.metadata.labels['tier']}}}" } }],
    }, { paramRef: { name: 'team', namespace: paramsNs, parameterNotFoundAction: 'Deny' } });
    const created = await eventually(async () => {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: `s-${++seq}`, labels: { tier: 'gold' } } } });
      assert.equal(res.status, 201, res.text);
      return res;
    });
    assert.deepEqual(created.json.metadata.annotations, { owner: 'storage', tier: 'gold' });
    // No tier label: the expression fails, and failurePolicy Fail refuses.
    const refused = await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 'untiered' } } });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.json.message, /^secrets "untiered" is forbidden: policy 'owner' with binding 'owner' denied request: expression '.*' resulted in error: /);
  });

  test('mutations that do not compile refuse the policy with 422', async () => {
    const res = await server.request('POST', policiesPath, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', metadata: { name: 'broken' },
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
          reinvocationPolicy: 'Never',
          mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: ' } }],
        },
      },
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.details.causes[0].field, 'spec.mutations[0].jsonPatch.expression');
    assert.match(res.json.details.causes[0].message, /compilation failed: ERROR: <input>: /);
  });
});
