// Differences from kube-apiserver v1.36 left open earlier, through a real server: an empty
// list in a JSON or YAML body decodes into an empty Go slice that is not nil, so defaulting
// that fills only nil leaves it (autoscaling/v2's copyHPAScalingRules) and validation refuses
// it (validateScalingRules: "must specify at least one Policy"); and a MutatingAdmissionPolicy's
// reinvocationPolicy has no default (v1beta1 defaults.go SetDefaults_MutatingAdmissionPolicySpec
// fills failurePolicy only), so leaving it out is Required.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

const causeLines = (res: { json: any }) => (res.json.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);

describe('HorizontalPodAutoscaler behavior with policies sent as []', () => {
  let ns: string;
  before(async () => {
    ns = await server.newNamespace('hpa-empty');
  });
  const hpas = () => `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`;
  const hpa = (name: string, behavior: unknown) => ({
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3, behavior },
  });

  const refused: [string, string, unknown, string[]][] = [
    ['scaleUp', 'empty-up', { scaleUp: { policies: [] } }, ['spec.behavior.scaleUp.policies: Required value: must specify at least one Policy']],
    ['scaleDown, beside other fields', 'empty-down', { scaleDown: { selectPolicy: 'Min', policies: [] } }, ['spec.behavior.scaleDown.policies: Required value: must specify at least one Policy']],
    ['both', 'empty-both', { scaleUp: { policies: [] }, scaleDown: { policies: [] } }, [
      'spec.behavior.scaleUp.policies: Required value: must specify at least one Policy',
      'spec.behavior.scaleDown.policies: Required value: must specify at least one Policy',
    ]],
  ];
  for (const [name, objectName, behavior, expected] of refused) {
    test(`a POST with ${name} policies [] answers 422, not defaulted`, async () => {
      const res = await server.request('POST', hpas(), { body: hpa(objectName, behavior) });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json.reason, 'Invalid');
      assert.deepEqual(causeLines(res), expected);
    });
  }

  test('a YAML body with policies [] answers 422 too', async () => {
    const yaml = [
      'apiVersion: autoscaling/v2', 'kind: HorizontalPodAutoscaler', 'metadata: {name: empty-yaml}',
      'spec:', '  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: d}', '  maxReplicas: 3',
      '  behavior: {scaleUp: {policies: []}}',
    ].join('\n');
    const res = await server.request('POST', hpas(), { raw: yaml, headers: { 'content-type': 'application/yaml' } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causeLines(res), ['spec.behavior.scaleUp.policies: Required value: must specify at least one Policy']);
  });

  test('a merge patch setting policies [] answers 422', async () => {
    const created = await server.request('POST', hpas(), { body: hpa('patched', { scaleUp: { selectPolicy: 'Max' } }) });
    assert.equal(created.status, 201, created.text);
    const res = await server.request('PATCH', `${hpas()}/patched`, {
      body: { spec: { behavior: { scaleUp: { policies: [] } } } }, headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causeLines(res), ['spec.behavior.scaleUp.policies: Required value: must specify at least one Policy']);
  });

  test('rules without policies still get the default ones', async () => {
    const res = await server.request('POST', hpas(), { body: hpa('no-policies', { scaleUp: { selectPolicy: 'Min' } }) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.spec.behavior.scaleUp, {
      stabilizationWindowSeconds: 0, selectPolicy: 'Min',
      policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
    });
    assert.deepEqual(res.json.spec.behavior.scaleDown, { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });
  });
});

describe('MutatingAdmissionPolicy reinvocationPolicy', () => {
  const policies = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies';
  const policy = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }],
      ...extra,
    },
  });

  test('left out, it is not defaulted: 422 Required', async () => {
    const res = await server.request('POST', policies, { body: policy('no-reinvocation') });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causeLines(res), ['spec.reinvocationPolicy: Required value']);
  });

  test('an unknown value is Unsupported; a known one is kept, with failurePolicy defaulted', async () => {
    const bad = await server.request('POST', policies, { body: policy('bad-reinvocation', { reinvocationPolicy: 'Always' }) });
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(causeLines(bad), ['spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']);
    const good = await server.request('POST', policies, { body: policy('if-needed', { reinvocationPolicy: 'IfNeeded' }) });
    assert.equal(good.status, 201, good.text);
    assert.equal(good.json.spec.reinvocationPolicy, 'IfNeeded');
    assert.equal(good.json.spec.failurePolicy, 'Fail');
  });
});
