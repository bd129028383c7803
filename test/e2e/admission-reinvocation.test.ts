// The mutating phase run again, as upstream's reinvocation: a webhook that changes the object
// after an admission policy with reinvocationPolicy IfNeeded has the policy apply again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { allow, patch, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.ts';

let server: TestServer;
let hooks: WebhookServer;
before(async () => {
  [server, hooks] = await Promise.all([startServer(), startWebhookServer()]);
});
after(async () => {
  await Promise.all([server?.stop(), hooks?.close()]);
});

test('a policy asking to be reinvoked applies again once a later webhook changed the object; one that does not, not', async () => {
  assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'reinvoke', labels: { reinvoke: 'yes' } } } })).status, 201);
  // The webhook (after the policies) labels the object with its source, once.
  hooks.handle('/source', (review) => (review.request.object.metadata.labels?.source === undefined
    ? patch([{ op: 'add', path: '/metadata/labels/source', value: 'webhook' }])
    : allow()));
  const webhooks = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { body: {
    metadata: { name: 'source' },
    webhooks: [{
      name: 'source.example.com', clientConfig: { url: `${hooks.url}/source`, caBundle: hooks.caBundle },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { reinvoke: 'yes' } }, sideEffects: 'None', admissionReviewVersions: ['v1'],
    }],
  } });
  assert.equal(webhooks.status, 201, webhooks.text);
  // Each policy copies the source label, or says there is none yet.
  const copy = (label: string) => `[JSONPatch{op: 'add', path: '/metadata/labels/${label}', value: 'source' in object.metadata.labels ? object.metadata.labels['source'] : 'none'}]`;
  for (const [name, reinvocationPolicy] of [['copy', 'IfNeeded'], ['copy-never', 'Never']] as const) {
    const policy = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies', { body: {
      metadata: { name },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }], namespaceSelector: { matchLabels: { reinvoke: 'yes' } } },
        reinvocationPolicy,
        mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: copy(name) } }],
      },
    } });
    assert.equal(policy.status, 201, policy.text);
    assert.equal((await server.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings', { body: { metadata: { name }, spec: { policyName: name } } })).status, 201);
  }
  let seq = 0;
  const created = await eventually(async () => {
    const res = await server.request('POST', '/api/v1/namespaces/reinvoke/configmaps', { body: { metadata: { name: `cm-${++seq}`, labels: { own: 'x' } } } });
    assert.equal(res.status, 201, res.text);
    assert.ok(res.json.metadata.labels['copy-never'] !== undefined && res.json.metadata.labels.source !== undefined, 'the policies and the webhook are in place');
    return res;
  });
  assert.deepEqual(created.json.metadata.labels, { own: 'x', source: 'webhook', copy: 'webhook', 'copy-never': 'none' });
});
