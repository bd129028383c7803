// --authorization-mode Node,RBAC with --enable-admission-plugins NodeRestriction end to
// end, as a kubelet (system:node:n1 in system:nodes) sees them: the secrets and ConfigMaps
// its pods use and nothing else, its pods by spec.nodeName, its own Node, access gone with
// the pod, rules it cannot list; writes held to its own node, mirror pods, pods and tokens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
const kubelet = 'kubelet-n1-token';
const kubelet2 = 'kubelet-n2-token';
const impostor = 'impostor-token';

before(async () => {
  const file = path.join(tempDir('plinth-node-authz-'), 'tokens.csv');
  writeFileSync(file, [
    'admin-token,admin,admin,"system:masters"',
    `${kubelet},system:node:n1,n1-uid,"system:nodes"`,
    `${kubelet2},system:node:n2,n2-uid,"system:nodes"`,
    // The name without the group is not a node.
    `${impostor},system:node:n1,n1-fake`,
  ].join('\n'));
  server = await startServer({ tokenAuthFile: file, authorizationModes: ['Node', 'RBAC'], enableAdmissionPlugins: ['NodeRestriction'] });
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

describe('NodeRestriction', () => {
  const asNode2 = (method: string, urlPath: string, body?: unknown, headers?: Record<string, string>) =>
    server.request(method, urlPath, { token: kubelet2, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) });
  let n2uid = '';

  test('a kubelet registers and updates its own Node only, with the kubelet\'s labels and without touching taints', async () => {
    const forbiddenLabel = await asNode2('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2', labels: { 'node-restriction.kubernetes.io/pool': 'gold', 'kubernetes.io/hostname': 'n2' } } });
    assert.equal(forbiddenLabel.status, 403);
    assert.equal(forbiddenLabel.json.message, 'nodes "n2" is forbidden: node "n2" is not allowed to set the following labels: node-restriction.kubernetes.io/pool');
    const other = await asNode2('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3' } });
    assert.equal(other.status, 403);
    assert.equal(other.json.message, 'nodes "n3" is forbidden: node "n2" is not allowed to modify node "n3"');
    const created = await asNode2('POST', '/api/v1/nodes', {
      apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2', labels: { 'kubernetes.io/hostname': 'n2', 'node.kubernetes.io/instance-type': 'big', team: 'a' } },
      spec: { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] },
    });
    assert.equal(created.status, 201, created.text);
    n2uid = created.json.metadata.uid;
    const merge = { 'content-type': 'application/merge-patch+json' };
    assert.equal((await asNode2('PATCH', '/api/v1/nodes/n2', { metadata: { labels: { team: 'b' } } }, merge)).status, 200);
    const taints = await asNode2('PATCH', '/api/v1/nodes/n2', { spec: { taints: null } }, merge);
    assert.equal(taints.status, 403);
    assert.equal(taints.json.message, 'nodes "n2" is forbidden: node "n2" is not allowed to modify taints');
    const relabel = await asNode2('PATCH', '/api/v1/nodes/n2', { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } } }, merge);
    assert.equal(relabel.status, 403);
    assert.equal(relabel.json.message, 'nodes "n2" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane');
    assert.equal((await asNode2('PATCH', '/api/v1/nodes/n2/status', { status: { phase: 'Running' } }, merge)).status, 200);
    // The Node authorizer lets a node write any Node; NodeRestriction does not.
    const foreign = await asNode2('PATCH', '/api/v1/nodes/n1/status', { status: { phase: 'Running' } }, merge);
    assert.equal(foreign.status, 403);
    assert.equal(foreign.json.message, 'nodes "n1" is forbidden: node "n2" is not allowed to modify node "n1"');
  });

  test('a kubelet creates mirror pods bound and owned by its Node that reference nothing, and writes status and evictions of its own pods only', async () => {
    const ns = await server.newNamespace('node-restriction');
    const mirror = (name: string, spec: Record<string, unknown> = {}, annotations: Record<string, string> = { 'kubernetes.io/config.mirror': 'hash' }) => ({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name, annotations, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n2', uid: n2uid, controller: true }] },
      spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'nginx' }], ...spec },
    });
    const plain = await asNode2('POST', `/api/v1/namespaces/${ns}/pods`, mirror('plain', {}, {}));
    assert.equal(plain.status, 403);
    assert.equal(plain.json.message, 'pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n2" can only create mirror pods');
    const withSecret = await asNode2('POST', `/api/v1/namespaces/${ns}/pods`, mirror('s', { volumes: [{ name: 'v', secret: { secretName: 'x' } }] }));
    assert.equal(withSecret.status, 403);
    assert.equal(withSecret.json.message, 'pods "s" is forbidden: node "n2" can not create pods that reference secrets');
    const elsewhere = await asNode2('POST', `/api/v1/namespaces/${ns}/pods`, { ...mirror('e'), spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
    assert.equal(elsewhere.json.message, 'pods "e" is forbidden: node "n2" can only create pods with spec.nodeName set to itself');
    const created = await asNode2('POST', `/api/v1/namespaces/${ns}/pods`, mirror('static-web'));
    assert.equal(created.status, 201, created.text);

    // A pod of node n1's: n2 may neither write its status nor evict it.
    const theirs = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'theirs' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } } });
    assert.equal(theirs.status, 201);
    const merge = { 'content-type': 'application/merge-patch+json' };
    const status = await asNode2('PATCH', `/api/v1/namespaces/${ns}/pods/theirs/status`, { status: { message: 'x' } }, merge);
    assert.equal(status.status, 403);
    assert.equal(status.json.message, 'pods "theirs" is forbidden: node "n2" can only update pod status for pods with spec.nodeName set to itself');
    assert.equal((await asNode2('PATCH', `/api/v1/namespaces/${ns}/pods/static-web/status`, { status: { message: 'ok' } }, merge)).status, 200);
    const relabel = await asNode2('PATCH', `/api/v1/namespaces/${ns}/pods/static-web/status`, { metadata: { labels: { a: 'b' } } }, merge);
    assert.equal(relabel.status, 403);
    assert.equal(relabel.json.message, 'pods "static-web" is forbidden: node "n2" cannot update labels through pod status');
    const evict = await asNode2('POST', `/api/v1/namespaces/${ns}/pods/theirs/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'theirs' } });
    assert.equal(evict.status, 403);
    assert.equal(evict.json.message, 'pods "theirs" is forbidden: node n2 can only evict pods with spec.nodeName set to itself');
    const deleted = await asNode2('DELETE', `/api/v1/namespaces/${ns}/pods/theirs`);
    assert.equal(deleted.status, 403);
    assert.equal(deleted.json.message, 'pods "Unknown" is forbidden: node "n2" can only delete pods with spec.nodeName set to itself');
    assert.equal((await asNode2('DELETE', `/api/v1/namespaces/${ns}/pods/static-web?gracePeriodSeconds=0`)).status, 200);
  });

  test('a kubelet\'s tokens are bound to its own pods, its Lease is its own', async () => {
    const ns = await server.newNamespace('node-tokens');
    const sa = await server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'app' } } });
    assert.equal(sa.status, 201);
    const made = async (name: string, nodeName: string) => {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName, serviceAccountName: 'app', containers: [{ name: 'c', image: 'nginx' }] } } });
      assert.equal(res.status, 201, res.text);
      return res.json.metadata.uid as string;
    };
    const mine = await made('mine', 'n2');
    const theirs = await made('theirs', 'n1');
    const token = (ref?: Record<string, string>) => asNode2('POST', `/api/v1/namespaces/${ns}/serviceaccounts/app/token`, {
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['api'], ...(ref === undefined ? {} : { boundObjectRef: ref }) },
    });
    await until(async () => (await token({ apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: mine })).status === 201, 'the graph to hold the pod');
    const unbound = await token();
    assert.equal(unbound.status, 403);
    assert.equal(unbound.json.message, 'serviceaccounts "Unknown" is forbidden: node requested token not bound to a pod');
    const noUid = await token({ apiVersion: 'v1', kind: 'Pod', name: 'mine' });
    assert.equal(noUid.json.message, 'serviceaccounts "Unknown" is forbidden: node requested token with a pod binding without a uid');
    // The authorizer already refuses a token for an account no pod of n2's uses; this one n2's pod uses too.
    const other = await token({ apiVersion: 'v1', kind: 'Pod', name: 'theirs', uid: theirs });
    assert.equal(other.status, 403);
    assert.equal(other.json.message, 'serviceaccounts "Unknown" is forbidden: node requested token bound to a pod scheduled on a different node');

    const lease = (name: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: name } });
    assert.equal((await asNode2('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', lease('n2'))).status, 201);
    const foreign = await asNode2('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', lease('n1'));
    assert.equal(foreign.status, 403);
    assert.equal(foreign.json.message, 'leases.coordination.k8s.io "n1" is forbidden: can only access node lease with the same name as the requesting node');
  });
});
