// CEL loads on first use: a server starts without it, and the first write whose
// validation compiles an expression loads it (and is validated as before).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { celLoaded } from '../../src/cel/lazy.ts';
import { startServer } from '../helpers/server.ts';

test('a server starts and serves without loading CEL; a webhook configuration with a match condition loads it', async (t) => {
  const server = await startServer();
  t.after(() => server.stop());
  const namespace = await server.newNamespace('lazy-cel');
  const created = await server.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
  assert.equal(created.status, 201);
  const listed = await server.request('GET', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations');
  assert.equal(listed.status, 200);
  assert.equal(celLoaded(), false, 'nothing at start-up, no plain write and no read of a CEL-using type loads CEL');

  const configuration = (expression: string) => ({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: `hooks-${expression.length}` },
    webhooks: [{
      name: 'check.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None',
      clientConfig: { url: 'https://127.0.0.1:1/check' },
      rules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }],
      matchConditions: [{ name: 'only-labelled', expression }],
    }],
  });
  const broken = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: configuration('object.metadata.labels[') });
  assert.equal(broken.status, 422, broken.text);
  assert.match(broken.text, /compilation failed/);
  assert.equal(celLoaded(), true);
  const fine = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: configuration("has(object.metadata.labels) && 'team' in object.metadata.labels") });
  assert.equal(fine.status, 201, fine.text);
});
