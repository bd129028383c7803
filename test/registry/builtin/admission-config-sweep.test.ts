// admissionregistration.k8s.io/v1 configuration objects against kube-apiserver v1.36, through
// a real server: the reserved ".static.k8s.io" name suffix warned of on every kind
// (ManifestBasedAdmissionControlConfig off), and pointer fields given "" kept and refused
// rather than defaulted (pkg/apis/admissionregistration/v1/defaults.go only fills nil).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

const group = '/apis/admissionregistration.k8s.io/v1';
const mergePatch = { 'content-type': 'application/merge-patch+json' };
const causeLines = (res: { json: any }) => (res.json.details?.causes ?? []).map((c: any) => `${c.field}: ${c.message}`);
const warningOf = (res: { headers: Record<string, unknown> }) => res.headers.warning;

const podRule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };
const hook = (extra: Record<string, unknown> = {}) => ({
  name: 'hook.example.com', clientConfig: { url: 'https://hook.example.com/' }, sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra,
});

/** A valid object of each kind, by resource, named `name`. */
const valid: Record<string, (name: string) => Record<string, unknown>> = {
  validatingwebhookconfigurations: (name) => ({ metadata: { name }, webhooks: [hook()] }),
  mutatingwebhookconfigurations: (name) => ({ metadata: { name }, webhooks: [hook()] }),
  validatingadmissionpolicies: (name) => ({ metadata: { name }, spec: { matchConstraints: { resourceRules: [podRule] }, validations: [{ expression: 'true' }] } }),
  validatingadmissionpolicybindings: (name) => ({ metadata: { name }, spec: { policyName: 'p', validationActions: ['Deny'] } }),
  mutatingadmissionpolicies: (name) => ({
    metadata: { name },
    spec: { matchConstraints: { resourceRules: [podRule] }, reinvocationPolicy: 'Never', mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }] },
  }),
  mutatingadmissionpolicybindings: (name) => ({ metadata: { name }, spec: { policyName: 'p' } }),
};

const staticWarning = '299 - "metadata.name: names ending with \\".static.k8s.io\\" are reserved for static manifest-based configurations and cannot be managed via the API"';

describe('a name ending in .static.k8s.io is warned of on create and update', () => {
  for (const [resource, make] of Object.entries(valid)) {
    test(resource, async () => {
      const created = await server.request('POST', `${group}/${resource}`, { body: make('audit.static.k8s.io') });
      assert.equal(created.status, 201, created.text);
      assert.equal(warningOf(created), staticWarning);
      const updated = await server.request('PATCH', `${group}/${resource}/audit.static.k8s.io`, { body: { metadata: { labels: { a: 'b' } } }, headers: mergePatch });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(warningOf(updated), staticWarning);
      // Only the exact suffix: a look-alike name is not warned of.
      const other = await server.request('POST', `${group}/${resource}`, { body: make('audit.static.k8s.io.example') });
      assert.equal(other.status, 201, other.text);
      assert.equal(warningOf(other), undefined);
    });
  }
});

type Case = [name: string, resource: string, body: Record<string, unknown>, causes: string[]];

const emptyPointerCases: Case[] = [
  ['webhook failurePolicy, matchPolicy and rule scope', 'validatingwebhookconfigurations', {
    metadata: { name: 'empty-enums' },
    webhooks: [hook({ failurePolicy: '', matchPolicy: '', rules: [{ ...podRule, scope: '' }] })],
  }, [
    'webhooks[0].rules[0].scope: Unsupported value: "": supported values: "*", "Cluster", "Namespaced"',
    'webhooks[0].failurePolicy: Unsupported value: "": supported values: "Fail", "Ignore"',
    'webhooks[0].matchPolicy: Unsupported value: "": supported values: "Equivalent", "Exact"',
  ]],
  ['mutating webhook reinvocationPolicy', 'mutatingwebhookconfigurations', {
    metadata: { name: 'empty-reinvocation' }, webhooks: [hook({ reinvocationPolicy: '' })],
  }, ['webhooks[0].reinvocationPolicy: Unsupported value: "": supported values: "IfNeeded", "Never"']],
  ['policy failurePolicy and matchConstraints matchPolicy', 'validatingadmissionpolicies', {
    metadata: { name: 'empty-enums' },
    spec: { failurePolicy: '', matchConstraints: { matchPolicy: ' ', resourceRules: [{ ...podRule, scope: '' }] }, validations: [{ expression: 'true' }] },
  }, [
    'spec.failurePolicy: Unsupported value: "": supported values: "Fail", "Ignore"',
    'spec.matchConstraints.matchPolicy: Unsupported value: " ": supported values: "Equivalent", "Exact"',
    'spec.matchConstraints.resourceRules[0].scope: Unsupported value: "": supported values: "*", "Cluster", "Namespaced"',
  ]],
  ['mutating policy failurePolicy', 'mutatingadmissionpolicies', {
    ...valid.mutatingadmissionpolicies!('empty-failure'),
    spec: { ...(valid.mutatingadmissionpolicies!('x').spec as object), failurePolicy: '' },
  }, ['spec.failurePolicy: Unsupported value: "": supported values: "Fail", "Ignore"']],
  ['binding paramRef parameterNotFoundAction', 'validatingadmissionpolicybindings', {
    metadata: { name: 'empty-action' }, spec: { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'params', parameterNotFoundAction: '' } },
  }, ['spec.paramRef.parameterNotFoundAction: Required value']],
  ['mutating binding matchResources matchPolicy', 'mutatingadmissionpolicybindings', {
    metadata: { name: 'empty-match' }, spec: { policyName: 'p', matchResources: { matchPolicy: '' } },
  }, ['spec.matchResources.matchPolicy: Unsupported value: "": supported values: "Equivalent", "Exact"']],
];

describe('an explicit "" in a pointer field is refused, not defaulted', () => {
  for (const [name, resource, body, causes] of emptyPointerCases) {
    test(name, async () => {
      const res = await server.request('POST', `${group}/${resource}`, { body });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(causeLines(res), causes);
    });
  }

  test('null is still unset and defaulted', async () => {
    const res = await server.request('POST', `${group}/mutatingwebhookconfigurations`, {
      body: { metadata: { name: 'null-enums' }, webhooks: [hook({ failurePolicy: null, matchPolicy: null, reinvocationPolicy: null, rules: [{ ...podRule, scope: null }] })] },
    });
    assert.equal(res.status, 201, res.text);
    const [webhook] = res.json.webhooks;
    assert.equal(webhook.failurePolicy, 'Fail');
    assert.equal(webhook.matchPolicy, 'Equivalent');
    assert.equal(webhook.reinvocationPolicy, 'Never');
    assert.equal(webhook.rules[0].scope, '*');
  });
});

describe('ValidatingAdmissionPolicy status', () => {
  const policies = `${group}/validatingadmissionpolicies`;

  test('a write through status keeps the stored labels, annotations, finalizers and owner references', async () => {
    const body = valid.validatingadmissionpolicies!('status-meta');
    const created = await server.request('POST', policies, { body: { ...body, metadata: { name: 'status-meta', labels: { kept: 'yes' } } } });
    assert.equal(created.status, 201, created.text);
    const res = await server.request('PATCH', `${policies}/status-meta/status`, {
      body: { metadata: { labels: { kept: 'no', added: 'x' }, annotations: { a: 'b' }, finalizers: ['example.com/f'] }, status: { observedGeneration: 1 } },
      headers: mergePatch,
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.metadata.labels, { kept: 'yes' });
    assert.equal(res.json.metadata.annotations, undefined);
    assert.equal(res.json.metadata.finalizers, undefined);
    assert.equal(res.json.status.observedGeneration, 1);
  });

  test('an expression warning needs its warning and fieldRef', async () => {
    const created = await server.request('POST', policies, { body: valid.validatingadmissionpolicies!('status-warnings') });
    assert.equal(created.status, 201, created.text);
    const res = await server.request('PATCH', `${policies}/status-warnings/status`, {
      body: { status: { typeChecking: { expressionWarnings: [{ fieldRef: ' ', warning: '' }, { fieldRef: 'spec.validations[0].expression', warning: 'no such field' }] } } },
      headers: mergePatch,
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(causeLines(res), [
      'status.typeChecking.expressionWarnings[0].warning: Required value',
      'status.typeChecking.expressionWarnings[0].fieldRef: Required value',
    ]);
  });
});

// Every admissionregistration strategy's AllowUnconditionalUpdate is false.
describe('a PUT without a resourceVersion answers 422', () => {
  for (const [resource, make] of Object.entries(valid)) {
    test(resource, async () => {
      const created = await server.request('POST', `${group}/${resource}`, { body: make(`unconditional-${resource}`) });
      assert.equal(created.status, 201, created.text);
      const body = structuredClone(created.json);
      delete body.metadata.resourceVersion;
      const res = await server.request('PUT', `${group}/${resource}/unconditional-${resource}`, { body });
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(causeLines(res), ['metadata.resourceVersion: Invalid value: 0x0: must be specified for an update']);
      // Read again: a policy's status (its type checking) may have been written meanwhile.
      const current = (await server.request('GET', `${group}/${resource}/unconditional-${resource}`)).json;
      const conditional = await server.request('PUT', `${group}/${resource}/unconditional-${resource}`, { body: current });
      assert.equal(conditional.status, 200, conditional.text);
    });
  }
});
