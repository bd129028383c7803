// Admission of a namespace's own requests: they are in the namespace itself, as upstream's
// request info reads /api/v1/namespaces/{name} and its create handler sets a new namespace's
// name, as sent, as the request's namespace. A webhook's request.namespace and a policy's
// request.namespace say so; a namespace created with generateName has none (validating
// admission sees its generated name, not as its namespace).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { startWebhookServer, type WebhookServer } from '../helpers/webhook-server.ts';

let server: TestServer;
let hooks: WebhookServer;

before(async () => {
  [server, hooks] = await Promise.all([startServer(), startWebhookServer()]);
});
after(async () => {
  await server?.stop();
  await hooks?.close();
});

const webhooksPath = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const policiesPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const bindingsPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

test('a webhook sees a namespace\'s create, update, status, finalize and delete in the namespace itself', async () => {
  const labels = { 'ns-admission': 'webhook' };
  const config = {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'namespace-requests' },
    webhooks: [{
      name: 'namespaces.example.com',
      clientConfig: { url: `${hooks.url}/namespaces`, caBundle: hooks.caBundle },
      rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces', 'namespaces/status', 'namespaces/finalize'] }],
      objectSelector: { matchLabels: labels },
      sideEffects: 'None', admissionReviewVersions: ['v1'],
    }],
  };
  assert.equal((await server.request('POST', webhooksPath, { body: config })).status, 201);
  // The webhook is active once it sees a probe's create.
  await eventually(async () => {
    const probe = `probe-${hooks.received('/namespaces').length}-${Date.now()}`;
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: probe, labels } } })).status, 201);
    assert.ok(hooks.received('/namespaces').some((r) => r.review.request.name === probe));
  });

  const seen = () => hooks.received('/namespaces').map(({ review: { request } }) => ({
    operation: request.operation, subResource: request.subResource, namespace: request.namespace, name: request.name,
  }));
  const before = hooks.received('/namespaces').length;
  const name = 'ns-attributes';
  const path = `/api/v1/namespaces/${name}`;
  const created = await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name, labels } } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.metadata.namespace, undefined, 'the namespace is stored without one');
  const generated = await server.request('POST', '/api/v1/namespaces', { body: { metadata: { generateName: 'ns-generated-', labels } } });
  assert.equal(generated.status, 201, generated.text);
  const updated = await server.request('PUT', path, { body: { ...created.json, metadata: { ...created.json.metadata, annotations: { a: '1' } } } });
  assert.equal(updated.status, 200, updated.text);
  const patched = await server.request('PATCH', path, { body: { metadata: { annotations: { b: '2' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(patched.status, 200, patched.text);
  const status = await server.request('PUT', `${path}/status`, { body: patched.json });
  assert.equal(status.status, 200, status.text);
  assert.equal((await server.request('DELETE', path)).status, 200);
  // The namespace controller removes the kubernetes finalizer through /finalize, then the namespace goes.
  await eventually(async () => assert.equal((await server.request('GET', path)).status, 404));

  const reviews = seen().slice(before);
  assert.deepEqual(reviews.slice(0, 6), [
    { operation: 'CREATE', subResource: undefined, namespace: name, name },
    { operation: 'CREATE', subResource: undefined, namespace: undefined, name: generated.json.metadata.name },
    { operation: 'UPDATE', subResource: undefined, namespace: name, name },
    { operation: 'UPDATE', subResource: undefined, namespace: name, name },
    { operation: 'UPDATE', subResource: 'status', namespace: name, name },
    { operation: 'DELETE', subResource: undefined, namespace: name, name },
  ]);
  const finalize = reviews.find((r) => r.subResource === 'finalize');
  assert.deepEqual(finalize, { operation: 'UPDATE', subResource: 'finalize', namespace: name, name });
  // Every request the controller made on the namespace is in it too.
  assert.deepEqual(reviews.filter((r) => r.name === name && r.namespace !== name), []);
});

test('a ValidatingAdmissionPolicy sees request.namespace on a namespace\'s create', async () => {
  const labels = { 'ns-admission': 'policy' };
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'namespace-request' },
    spec: {
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['namespaces'] }],
        objectSelector: { matchLabels: labels },
      },
      validations: [
        { expression: "!('deny' in object.metadata.labels)", message: 'probe denied' },
        { expression: 'has(request.namespace) && request.namespace == object.metadata.name', message: 'request.namespace is not the namespace' },
      ],
    },
  };
  assert.equal((await server.request('POST', policiesPath, { body: policy })).status, 201);
  const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'namespace-request' }, spec: { policyName: 'namespace-request', validationActions: ['Deny'] } };
  assert.equal((await server.request('POST', bindingsPath, { body: binding })).status, 201);
  let probes = 0;
  await eventually(async () => {
    const res = await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: `policy-probe-${++probes}`, labels: { ...labels, deny: 'yes' } } } });
    assert.equal(res.status, 422, res.text);
    assert.match(res.json.message, /probe denied/);
  });

  const res = await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'ns-policy', labels } } });
  assert.equal(res.status, 201, res.text);
});
