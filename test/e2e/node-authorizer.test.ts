// --authorization-mode Node,RBAC end to end, as a kubelet (system:node:n1 in system:nodes)
// sees it: the secrets and ConfigMaps its pods use and nothing else, its pods by
// spec.nodeName, its own Node, access gone with the pod, rules it cannot list.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const kubelet = 'kubelet-n1-token';
const impostor = 'impostor-token';

before(async () => {
  const file = path.join(tempDir('plinth-node-authz-'), 'tokens.csv');
  writeFileSync(file, [
    'admin-token,admin,admin,"system:masters"',
    `${kubelet},system:node:n1,n1-uid,"system:nodes"`,
    // The name without the group is not a node.
    `${impostor},system:node:n1,n1-fake`,
  ].join('\n'));
  server = await startServer({ tokenAuthFile: file, authorizationModes: ['Node', 'RBAC'] });
});
after(() => server.stop());

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`timed out waiting for ${what}`);
}

const asKubelet = (method: string, urlPath: string, body?: unknown) => server.request(method, urlPath, { token: kubelet, ...(body === undefined ? {} : { body }) });

test('a kubelet reads what its pods use, lists its pods by spec.nodeName, and loses access when the pod goes', async () => {
  const ns = await server.newNamespace('node-authz');
  const create = async (resource: string, body: Record<string, unknown>) => {
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/${resource}`, { body });
    assert.equal(res.status, 201, res.text);
  };
  assert.equal((await server.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } })).status, 201);
  await create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'used' }, stringData: { a: 'b' } });
  await create('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'unused' }, stringData: { a: 'b' } });
  await create('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: 'b' } });
  await create('pods', {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' },
    spec: {
      nodeName: 'n1',
      containers: [{ name: 'c', image: 'nginx', envFrom: [{ configMapRef: { name: 'settings' } }] }],
      volumes: [{ name: 'v', secret: { secretName: 'used' } }],
    },
  });

  await until(async () => (await asKubelet('GET', `/api/v1/namespaces/${ns}/secrets/used`)).status === 200, 'the graph to hold the pod');
  assert.equal((await asKubelet('GET', `/api/v1/namespaces/${ns}/configmaps/settings`)).status, 200);
  // The one-object watch a kubelet's secret manager opens.
  const watch = await asKubelet('GET', `/api/v1/namespaces/${ns}/secrets?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dused`);
  assert.equal(watch.status, 200, watch.text);
  assert.match(watch.text, /"type":"ADDED"/);

  const refused = await asKubelet('GET', `/api/v1/namespaces/${ns}/secrets/unused`);
  assert.equal(refused.status, 403);
  assert.equal(refused.json.message, `secrets "unused" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "${ns}": no relationship found between node 'n1' and this object`);
  const listAll = await asKubelet('GET', `/api/v1/namespaces/${ns}/secrets`);
  assert.equal(listAll.status, 403);
  assert.equal(listAll.json.message, `secrets is forbidden: User "system:node:n1" cannot list resource "secrets" in API group "" in the namespace "${ns}": No Object name found`);

  const pods = await asKubelet('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1');
  assert.equal(pods.status, 200, pods.text);
  assert.deepEqual(pods.json.items.map((p: { metadata: { name: string } }) => p.metadata.name), ['web']);
  const allPods = await asKubelet('GET', '/api/v1/pods');
  assert.equal(allPods.status, 403);
  assert.match(allPods.json.message, /: can only list\/watch pods with spec\.nodeName field selector$/);

  assert.equal((await asKubelet('GET', '/api/v1/nodes/n1')).status, 200);
  const otherNode = await asKubelet('GET', '/api/v1/nodes/n2');
  assert.equal(otherNode.status, 403);
  assert.match(otherNode.json.message, /: node 'n1' cannot read 'n2', only its own Node object$/);
  // The system:node role's static rules: events, services.
  assert.equal((await asKubelet('POST', `/api/v1/namespaces/${ns}/events`, {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'web', namespace: ns }, reason: 'Started', message: 'm',
  })).status, 201);
  assert.equal((await asKubelet('GET', '/api/v1/namespaces/default/services/kubernetes')).status, 200);
  assert.equal((await asKubelet('GET', '/apis/apps/v1/deployments')).status, 403);

  // The same name without the system:nodes group is no node.
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/secrets/used`, { token: impostor })).status, 403);

  const deleted = await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/web?gracePeriodSeconds=0`);
  assert.equal(deleted.status, 200, deleted.text);
  await until(async () => (await asKubelet('GET', `/api/v1/namespaces/${ns}/secrets/used`)).status === 403, 'the access to go with the pod');
});

test('a node\'s rules cannot be listed: a SelfSubjectRulesReview says so, and a SubjectAccessReview asks the graph', async () => {
  const review = await asKubelet('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' },
  });
  assert.equal(review.status, 201, review.text);
  assert.equal(review.json.status.incomplete, true);
  assert.match(review.json.status.evaluationError, /node authorizer does not support user rule resolution/);

  const sar = (fieldSelector: Record<string, unknown>) => server.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    body: {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
      spec: { user: 'system:node:n1', groups: ['system:nodes'], resourceAttributes: { verb: 'list', resource: 'pods', fieldSelector } },
    },
  });
  const scoped = await sar({ rawSelector: 'spec.nodeName=n1' });
  assert.equal(scoped.status, 201, scoped.text);
  assert.equal(scoped.json.status.allowed, true);
  const asRequirement = await sar({ requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] });
  assert.equal(asRequirement.json.status.allowed, true);
  const otherNode = await sar({ rawSelector: 'spec.nodeName=n2' });
  assert.equal(otherNode.json.status.allowed, false);
  assert.equal(otherNode.json.status.reason, 'can only list/watch pods with spec.nodeName field selector');
});
