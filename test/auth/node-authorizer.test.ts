// The Node authorizer and its graph, with plain objects: what a node may read through the
// pods bound to it, and the verbs and names it is held to elsewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import type { AuthorizationAttributes } from '../../src/auth/authorize.ts';
import { bootstrapPolicy } from '../../src/auth/bootstrap-policy.ts';
import { nodeIdentity } from '../../src/api/node-identity.ts';
import { NodeAuthorizer } from '../../src/auth/node-authorizer.ts';
import { NodeGraph } from '../../src/auth/node-graph.ts';
import type { PolicyRule } from '../../src/auth/rbac-rules.ts';
import type { UserInfo } from '../../src/auth/user.ts';

const node = (name: string): UserInfo => ({ name: `system:node:${name}`, uid: '', groups: ['system:nodes', 'system:authenticated'] });

function attrs(verb: string, resource: string, name: string, more: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return { verb, group: '', resource, subresource: '', namespace: 'ns', name, path: '', ...more };
}

function pod(name: string, nodeName: string, spec: Record<string, unknown> = {}, more: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', uid: `uid-${name}` }, spec: { nodeName, containers: [], ...spec }, ...more } as KubeObject;
}

const busyPod = pod('web', 'n1', {
  serviceAccountName: 'sa',
  imagePullSecrets: [{ name: 'pull' }],
  initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 'init-env' } }] }],
  containers: [{
    name: 'c',
    env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }, { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }],
    envFrom: [{ configMapRef: { name: 'from-cm' } }],
  }],
  ephemeralContainers: [{ name: 'e', envFrom: [{ secretRef: { name: 'debug-env' } }] }],
  volumes: [
    { name: 'v1', secret: { secretName: 'vol-secret' } },
    { name: 'v2', configMap: { name: 'vol-cm' } },
    { name: 'v3', projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }] } },
    { name: 'v4', persistentVolumeClaim: { claimName: 'claim' } },
    { name: 'data', ephemeral: { volumeClaimTemplate: { spec: {} } } },
    { name: 'v5', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-secret' } } },
  ],
  resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }, { name: 'tpl', resourceClaimTemplateName: 't' }, { name: 'pending', resourceClaimTemplateName: 't' }],
}, { status: { resourceClaimStatuses: [{ name: 'tpl', resourceClaimName: 'web-tpl-x' }] } });

test('a node reaches what its pods use, through every kind of reference; another node reaches none of it', () => {
  const graph = new NodeGraph();
  graph.addPod(busyPod);
  const reachable: [Parameters<NodeGraph['hasPathFrom']>[1], string][] = [
    ['secret', 'pull'], ['secret', 'init-env'], ['secret', 'env-secret'], ['secret', 'debug-env'], ['secret', 'vol-secret'], ['secret', 'proj-secret'], ['secret', 'csi-secret'],
    ['configmap', 'env-cm'], ['configmap', 'from-cm'], ['configmap', 'vol-cm'], ['configmap', 'proj-cm'],
    ['pvc', 'claim'], ['pvc', 'web-data'], ['serviceaccount', 'sa'], ['resourceclaim', 'gpu-claim'], ['resourceclaim', 'web-tpl-x'], ['pod', 'web'],
  ];
  for (const [type, name] of reachable) {
    assert.equal(graph.hasPathFrom('n1', type, 'ns', name), true, `${type} ${name}`);
    assert.equal(graph.hasPathFrom('n2', type, 'ns', name), false, `${type} ${name} from n2`);
  }
  assert.equal(graph.hasPathFrom('n1', 'secret', 'other', 'pull'), false, 'the same name in another namespace');
  assert.equal(graph.hasPathFrom('n1', 'configmap', 'ns', 'pull'), false, 'a secret\'s name as a ConfigMap');
  assert.equal(graph.hasPathFrom('n1', 'resourceclaim', 'ns', 't'), false, 'a template is no claim');
});

test('a bound volume reaches the node through its claim; only the secrets a kubelet uses come with it', () => {
  const graph = new NodeGraph();
  graph.addPod(pod('db', 'n1', { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] }));
  const pv = (claimRef: unknown): KubeObject => ({
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1' },
    spec: { claimRef, csi: { driver: 'd', volumeHandle: 'h', nodeStageSecretRef: { namespace: 'secrets', name: 'stage' }, controllerPublishSecretRef: { namespace: 'secrets', name: 'controller' } } },
  } as KubeObject);
  graph.addPV(pv({ namespace: 'ns', name: 'data' }));
  assert.equal(graph.hasPathFrom('n1', 'pv', '', 'pv1'), true);
  assert.equal(graph.hasPathFrom('n1', 'secret', 'secrets', 'stage'), true);
  assert.equal(graph.hasPathFrom('n1', 'secret', 'secrets', 'controller'), false);
  assert.equal(graph.hasPathFrom('n2', 'pv', '', 'pv1'), false);
  // Bound elsewhere, then released: the edges go with the old binding.
  graph.addPV(pv({ namespace: 'ns', name: 'other' }));
  assert.equal(graph.hasPathFrom('n1', 'pv', '', 'pv1'), false);
  graph.addPV(pv(undefined));
  assert.equal(graph.hasPathFrom('n1', 'secret', 'secrets', 'stage'), false);
  graph.deletePV('pv1');
});

test('a mirror pod reaches its node and grants nothing; deleting a pod takes its edges, a shared secret stays for the other node', () => {
  const graph = new NodeGraph();
  const mirror = pod('static', 'n1', { volumes: [{ name: 'v', secret: { secretName: 'mine' } }] });
  mirror.metadata.annotations = { 'kubernetes.io/config.mirror': 'hash' };
  graph.addPod(mirror);
  assert.equal(graph.hasPathFrom('n1', 'pod', 'ns', 'static'), true);
  assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 'mine'), false);

  graph.addPod(pod('a', 'n1', { volumes: [{ name: 'v', secret: { secretName: 'shared' } }] }));
  graph.addPod(pod('b', 'n2', { volumes: [{ name: 'v', secret: { secretName: 'shared' } }] }));
  assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 'shared'), true);
  graph.deletePod('ns', 'a');
  assert.equal(graph.hasPathFrom('n1', 'secret', 'ns', 'shared'), false);
  assert.equal(graph.hasPathFrom('n2', 'secret', 'ns', 'shared'), true);
  // A pod added again (moved) loses what it had: the edges are made anew.
  graph.addPod(pod('b', 'n1', {}));
  assert.equal(graph.hasPathFrom('n2', 'secret', 'ns', 'shared'), false);
  graph.deletePod('ns', 'b');
  graph.deletePod('ns', 'static');
  assert.equal(graph.size, 0, 'no vertex is left without edges');
});

test('attachments and slices reach the node they name', () => {
  const graph = new NodeGraph();
  graph.addAttached('volumeattachment', 'va', 'n1');
  graph.addAttached('resourceslice', 'slice', 'n2');
  assert.equal(graph.hasPathFrom('n1', 'volumeattachment', '', 'va'), true);
  assert.equal(graph.hasPathFrom('n2', 'volumeattachment', '', 'va'), false);
  assert.equal(graph.hasPathFrom('n2', 'resourceslice', '', 'slice'), true);
  graph.addAttached('volumeattachment', 'va', '');
  assert.equal(graph.hasPathFrom('n1', 'volumeattachment', '', 'va'), false);
});

const nodeRules = bootstrapPolicy().clusterRoles.find((r) => r.metadata.name === 'system:node')!.rules as PolicyRule[];

function authorizer(): NodeAuthorizer {
  const graph = new NodeGraph();
  graph.addPod(busyPod);
  return new NodeAuthorizer(graph, nodeRules);
}

test('the node authorizer: related objects by name only, verbs as upstream, reasons as upstream\'s', () => {
  const a = authorizer();
  const n1 = node('n1');
  const cases: [AuthorizationAttributes, string, string?][] = [
    [attrs('get', 'secrets', 'vol-secret'), 'Allow'],
    [attrs('watch', 'secrets', 'vol-secret'), 'Allow'],
    [attrs('list', 'configmaps', 'env-cm'), 'Allow'],
    [attrs('get', 'secrets', 'elsewhere'), 'NoOpinion', "no relationship found between node 'n1' and this object"],
    [attrs('list', 'secrets', ''), 'NoOpinion', 'No Object name found'],
    [attrs('create', 'secrets', ''), 'NoOpinion', 'can only read resources of this type'],
    [attrs('get', 'secrets', 'vol-secret', { namespace: '' }), 'NoOpinion', 'can only read namespaced object of this type'],
    [attrs('get', 'persistentvolumeclaims', 'claim'), 'Allow'],
    [attrs('list', 'persistentvolumeclaims', 'claim'), 'NoOpinion', 'can only get individual resources of this type'],
    [attrs('patch', 'persistentvolumeclaims', 'claim', { subresource: 'status' }), 'Allow'],
    [attrs('get', 'persistentvolumeclaims', 'claim', { subresource: 'status' }), 'NoOpinion', 'can only get/update/patch this type'],
    [attrs('create', 'serviceaccounts', 'sa', { subresource: 'token' }), 'Allow'],
    [attrs('create', 'serviceaccounts', 'default', { subresource: 'token' }), 'NoOpinion', "no relationship found between node 'n1' and this object"],
    [attrs('get', 'serviceaccounts', 'sa'), 'NoOpinion', 'can only create tokens for individual service accounts'],
    [attrs('get', 'resourceclaims', 'gpu-claim', { group: 'resource.k8s.io' }), 'Allow'],
    [attrs('get', 'pods', 'web'), 'Allow'],
    [attrs('list', 'pods', '', { namespace: '', fieldSelector: [{ field: 'spec.nodeName', operator: '=', value: 'n1' }] }), 'Allow'],
    [attrs('watch', 'pods', '', { namespace: '', fieldSelector: [{ field: 'spec.nodeName', operator: '=', value: 'n2' }] }), 'NoOpinion', 'can only list/watch pods with spec.nodeName field selector'],
    [attrs('list', 'pods', '', { namespace: '', fieldSelector: [{ field: 'spec.nodeName', operator: '!=', value: 'n1' }] }), 'NoOpinion', 'can only list/watch pods with spec.nodeName field selector'],
    [attrs('create', 'pods', ''), 'Allow'],
    [attrs('patch', 'pods', 'any', { subresource: 'status' }), 'Allow'],
    [attrs('update', 'pods', 'web'), 'NoOpinion', ''],
    [attrs('get', 'nodes', 'n1', { namespace: '' }), 'Allow'],
    [attrs('list', 'nodes', '', { namespace: '' }), 'NoOpinion', "node 'n1' cannot read all nodes, only its own Node object"],
    [attrs('get', 'nodes', 'n2', { namespace: '' }), 'NoOpinion', "node 'n1' cannot read 'n2', only its own Node object"],
    [attrs('patch', 'nodes', 'n2', { namespace: '', subresource: 'status' }), 'Allow'],
    [attrs('delete', 'nodes', 'n1', { namespace: '' }), 'NoOpinion', ''],
    [attrs('update', 'leases', 'n1', { group: 'coordination.k8s.io', namespace: 'kube-node-lease' }), 'Allow'],
    [attrs('update', 'leases', 'n2', { group: 'coordination.k8s.io', namespace: 'kube-node-lease' }), 'NoOpinion', 'can only access node lease with the same name as the requesting node'],
    [attrs('get', 'leases', 'n1', { group: 'coordination.k8s.io', namespace: 'default' }), 'NoOpinion', 'can only access leases in the "kube-node-lease" system namespace'],
    [attrs('list', 'leases', '', { group: 'coordination.k8s.io', namespace: 'kube-node-lease' }), 'NoOpinion', 'can only get, create, update, patch, or delete a node lease'],
    [attrs('get', 'csinodes', 'n2', { group: 'storage.k8s.io', namespace: '' }), 'NoOpinion', 'can only access CSINode with the same name as the requesting node'],
    [attrs('create', 'csinodes', '', { group: 'storage.k8s.io', namespace: '' }), 'Allow'],
    [attrs('list', 'resourceslices', '', { group: 'resource.k8s.io', namespace: '', fieldSelector: [{ field: 'nodeName', operator: '=', value: 'n1' }] }), 'Allow'],
    [attrs('list', 'resourceslices', '', { group: 'resource.k8s.io', namespace: '' }), 'NoOpinion', 'can only list/watch/deletecollection resourceslices with nodeName field selector'],
    // The static rules (the system:node ClusterRole's).
    [attrs('create', 'events', ''), 'Allow'],
    [attrs('get', 'services', 'kubernetes'), 'Allow'],
    [attrs('create', 'certificatesigningrequests', '', { group: 'certificates.k8s.io', namespace: '' }), 'Allow'],
    [attrs('get', 'deployments', 'web', { group: 'apps' }), 'NoOpinion', ''],
  ];
  for (const [request, decision, reason] of cases) {
    const got = a.authorize(n1, request);
    const what = `${request.verb} ${request.resource}/${request.subresource} ${request.name}`;
    assert.equal(got.decision, decision, what);
    if (reason !== undefined) assert.equal(got.reason ?? '', reason, what);
  }
});

test('the node authorizer has no opinion on anyone but a node, and cannot list a node\'s rules', async () => {
  const a = authorizer();
  const alice: UserInfo = { name: 'alice', uid: '', groups: ['system:nodes'] };
  const pretender: UserInfo = { name: 'system:node:n1', uid: '', groups: ['system:authenticated'] };
  assert.deepEqual(a.authorize(alice, attrs('get', 'secrets', 'vol-secret')), { decision: 'NoOpinion', reason: '' });
  assert.deepEqual(a.authorize(pretender, attrs('get', 'secrets', 'vol-secret')), { decision: 'NoOpinion', reason: '' });
  assert.equal(nodeIdentity(pretender), undefined);
  const nameless: UserInfo = { name: 'system:node:', uid: '', groups: ['system:nodes'] };
  assert.deepEqual(a.authorize(nameless, attrs('create', 'events', '')), { decision: 'NoOpinion', reason: 'unknown node for user "system:node:"' });
  assert.deepEqual(await a.rulesFor(node('n1')), { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' });
  assert.deepEqual(await a.rulesFor(alice), { resourceRules: [], nonResourceRules: [], incomplete: false });
});
