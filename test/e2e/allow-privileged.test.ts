// --allow-privileged as kube-apiserver's: off by default, privileged containers (and Windows
// host process pods) are invalid by the cluster's policy, in pods, pod templates and
// server-side applies (the apply worker's too); on, as kubeadm runs it, they are accepted.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../helpers/server.ts';

const container = (name: string, privileged: boolean) => ({ name, image: 'nginx', securityContext: { privileged } });
const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'priv' }, spec: { initContainers: [container('init', true)], containers: [container('app', false), container('side', true)] } };
const hostProcessPod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'hpc' },
  spec: { os: { name: 'windows' }, hostNetwork: true, securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } }, containers: [{ name: 'app', image: 'agent' }] },
};
const deployment = (name: string) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [container('app', true)] } } },
});

test('by default privileged containers are refused: pods, templates, applies on the worker as on the main thread', async (t) => {
  // The worker takes applies from the first one.
  const server = await startServer({ applyWorkerAfter: 0 });
  t.after(() => server.stop());
  const created = await server.request('POST', '/api/v1/namespaces/default/pods', { body: pod });
  assert.equal(created.status, 422);
  assert.equal(created.json.message, 'Pod "priv" is invalid: [spec.containers[1].securityContext.privileged: Forbidden: disallowed by cluster policy, spec.initContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy]');
  const template = await server.request('POST', '/apis/apps/v1/namespaces/default/deployments', { body: deployment('made') });
  assert.equal(template.status, 422);
  assert.match(template.json.message, /spec\.template\.spec\.containers\[0\]\.securityContext\.privileged: Forbidden: disallowed by cluster policy/);
  // An apply that changes an existing Deployment is the worker's (once it is up): made privileged, refused.
  const apply = (privileged: boolean) => {
    const body = deployment('applied');
    body.spec.template.spec.containers[0]!.securityContext.privileged = privileged;
    return server.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/applied?fieldManager=test', { raw: JSON.stringify(body), headers: { 'content-type': 'application/apply-patch+yaml' } });
  };
  assert.equal((await apply(false)).status, 201);
  assert.equal(await server.applyWorker!.whenReady(), true, 'the worker started');
  for (let i = 0; i < 3; i++) {
    assert.equal((await apply(false)).status, 200);
    const applied = await apply(true);
    assert.equal(applied.status, 422, applied.text);
    assert.match(applied.json.message, /spec\.template\.spec\.containers\[0\]\.securityContext\.privileged: Forbidden: disallowed by cluster policy/);
  }
  assert.equal((await server.request('POST', '/api/v1/namespaces/default/pods', { body: { ...pod, spec: { containers: [container('app', false)] } } })).status, 201);
  const hostProcess = await server.request('POST', '/api/v1/namespaces/default/pods', { body: hostProcessPod });
  assert.equal(hostProcess.status, 422);
  assert.equal(hostProcess.json.message, 'Pod "hpc" is invalid: spec: Forbidden: hostProcess containers are disallowed by cluster policy');
});

test('--allow-privileged: they are accepted', async (t) => {
  const server = await startServer({ allowPrivileged: true, applyWorkerAfter: 0 });
  t.after(() => server.stop());
  assert.equal((await server.request('POST', '/api/v1/namespaces/default/pods', { body: pod })).status, 201);
  assert.equal((await server.request('POST', '/api/v1/namespaces/default/pods', { body: hostProcessPod })).status, 201);
  const applied = await server.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/applied?fieldManager=test', { raw: JSON.stringify(deployment('applied')), headers: { 'content-type': 'application/apply-patch+yaml' } });
  assert.equal(applied.status, 201, applied.text);
});
