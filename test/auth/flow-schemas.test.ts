// API Priority and Fairness' classification against the configuration every server makes
// (the mandatory and suggested objects), as upstream's rule matching and schema order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.ts';
import { FlowClassifier, type FlowRequest } from '../../src/auth/flow-schemas.ts';
import type { UserInfo } from '../../src/auth/user.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../../src/registry/flowcontrol-config.ts';

const withUid = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, uid: `uid-${o.kind}-${o.metadata.name}` } });

function bootstrapped(): FlowClassifier {
  const classifier = new FlowClassifier();
  classifier.setSchemas([...mandatoryFlowSchemas, ...suggestedFlowSchemas].map(withUid));
  classifier.setLevels([...mandatoryPriorityLevels, ...suggestedPriorityLevels].map(withUid));
  return classifier;
}

const user = (name: string, ...groups: string[]): UserInfo => ({ name, uid: '', groups });
const authenticated = (name: string, ...groups: string[]) => user(name, ...groups, 'system:authenticated');
const anonymous = user('system:anonymous', 'system:unauthenticated');
const node = authenticated('system:node:n1', 'system:nodes');
const kubeSystem = (account: string) => authenticated(`system:serviceaccount:kube-system:${account}`, 'system:serviceaccounts', 'system:serviceaccounts:kube-system');

function resource(verb: string, group: string, resource: string, namespace = '', subresource = ''): FlowRequest {
  return { isResourceRequest: true, verb, group, resource, subresource, namespace };
}
const url = (path: string, verb = 'get'): FlowRequest => ({ isResourceRequest: false, verb, path });

function classify(classifier: FlowClassifier, who: UserInfo, request: FlowRequest): [schema: string, level: string, flow: string] {
  const found = classifier.classify(who, request);
  assert.ok(found !== undefined);
  return [found.schemaName, found.level.name, found.flow];
}

test('the suggested schemas route each kind of caller to its level, by precedence', () => {
  const c = bootstrapped();
  assert.deepEqual(classify(c, authenticated('admin', 'system:masters'), resource('create', '', 'configmaps', 'default')), ['exempt', 'exempt', '']);
  // Probes are exempt for everyone, on the paths and under them (upstream's prefix rule), for GET only.
  assert.deepEqual(classify(c, anonymous, url('/healthz')), ['probes', 'exempt', '']);
  assert.deepEqual(classify(c, anonymous, url('/readyz/etcd')), ['probes', 'exempt', '']);
  assert.deepEqual(classify(c, anonymous, url('/healthzx')), ['global-default', 'global-default', 'system:anonymous']);
  assert.deepEqual(classify(c, anonymous, url('/livez', 'post')), ['global-default', 'global-default', 'system:anonymous']);
  // Nodes: their own objects and leases on node-high, the rest on system.
  assert.deepEqual(classify(c, node, resource('patch', '', 'nodes', '', 'status')), ['system-node-high', 'node-high', 'system:node:n1']);
  assert.deepEqual(classify(c, node, resource('update', 'coordination.k8s.io', 'leases', 'kube-node-lease')), ['system-node-high', 'node-high', 'system:node:n1']);
  assert.deepEqual(classify(c, node, resource('list', '', 'pods')), ['system-nodes', 'system', 'system:node:n1']);
  // Leader election, before the controllers' own schemas.
  assert.deepEqual(classify(c, authenticated('system:kube-controller-manager'), resource('update', 'coordination.k8s.io', 'leases', 'kube-system')), ['system-leader-election', 'leader-election', 'system:kube-controller-manager']);
  assert.deepEqual(classify(c, authenticated('system:kube-controller-manager'), resource('list', 'apps', 'deployments', 'web')), ['kube-controller-manager', 'workload-high', 'web']);
  assert.deepEqual(classify(c, authenticated('system:kube-scheduler'), resource('create', '', 'pods', 'web', 'binding')), ['kube-scheduler', 'workload-high', 'web']);
  // The endpoint controller's endpoints (150) before workload leader election (200), which takes other kube-system accounts' configmaps.
  assert.deepEqual(classify(c, kubeSystem('endpoint-controller'), resource('update', '', 'endpoints', 'web')), ['endpoint-controller', 'workload-high', 'system:serviceaccount:kube-system:endpoint-controller']);
  assert.deepEqual(classify(c, kubeSystem('deployment-controller'), resource('get', '', 'configmaps', 'kube-system')), ['workload-leader-election', 'leader-election', 'system:serviceaccount:kube-system:deployment-controller']);
  // ...but not their lists: by namespace, on workload-high.
  assert.deepEqual(classify(c, kubeSystem('deployment-controller'), resource('list', '', 'configmaps', 'kube-system')), ['kube-system-service-accounts', 'workload-high', 'kube-system']);
  assert.deepEqual(classify(c, kubeSystem('deployment-controller'), url('/api')), ['kube-system-service-accounts', 'workload-high', '']);
  // Other service accounts (a namespace that only starts like kube-system's among them), then everyone else.
  const other = authenticated('system:serviceaccount:kube-systemx:app', 'system:serviceaccounts', 'system:serviceaccounts:kube-systemx');
  assert.deepEqual(classify(c, other, resource('get', '', 'configmaps', 'kube-systemx')), ['service-accounts', 'workload-low', 'system:serviceaccount:kube-systemx:app']);
  assert.deepEqual(classify(c, authenticated('alice'), resource('get', '', 'pods', 'web')), ['global-default', 'global-default', 'alice']);
  // The uids are the stored objects'.
  const found = c.classify(authenticated('alice'), resource('get', '', 'pods', 'web'));
  assert.equal(found?.schemaUid, 'uid-FlowSchema-global-default');
  assert.equal(found?.levelUid, 'uid-PriorityLevelConfiguration-global-default');
  assert.equal(found?.level.exempt, false);
});

test('a schema whose level does not exist is passed over until the level is made; ties go by name', () => {
  const c = bootstrapped();
  const mine = (name: string, level: string): KubeObject => ({
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name, uid: name },
    spec: { priorityLevelConfiguration: { name: level }, matchingPrecedence: 50, rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }], resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }] }] },
  });
  c.setSchemas([...mandatoryFlowSchemas, ...suggestedFlowSchemas, mine('zz-alice', 'workload-low'), mine('alice', 'mine')].map((o) => (o.metadata.uid === undefined ? withUid(o) : o)));
  const alice = authenticated('alice');
  assert.deepEqual(classify(c, alice, resource('get', '', 'pods', 'web')), ['zz-alice', 'workload-low', '']);
  c.setLevels([...mandatoryPriorityLevels, ...suggestedPriorityLevels, { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'mine', uid: 'mine' }, spec: { type: 'Limited' } }].map(withUid));
  assert.deepEqual(classify(c, alice, resource('get', '', 'pods', 'web')), ['alice', 'mine', '']);
  // Its rule is for namespaced pods only: a cluster-wide list, another verb, another resource fall through.
  assert.deepEqual(classify(c, alice, resource('get', '', 'pods')), ['global-default', 'global-default', 'alice']);
  assert.deepEqual(classify(c, alice, resource('list', '', 'pods', 'web')), ['global-default', 'global-default', 'alice']);
  assert.deepEqual(classify(c, alice, resource('get', '', 'pods', 'web', 'log')), ['global-default', 'global-default', 'alice']);
});

test('a wildcard counts only as the list\'s one member, as upstream\'s validation requires it to be', () => {
  const c = new FlowClassifier();
  c.setLevels([...mandatoryPriorityLevels].map(withUid));
  c.setSchemas([...mandatoryFlowSchemas.map(withUid), {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'odd', uid: 'odd' },
    spec: { priorityLevelConfiguration: { name: 'exempt' }, matchingPrecedence: 5, rules: [{ subjects: [{ kind: 'Group', group: { name: '*' } }], resourceRules: [{ verbs: ['get', '*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }] },
  }]);
  assert.deepEqual(classify(c, authenticated('bob'), resource('get', '', 'pods', 'web')), ['odd', 'exempt', '']);
  assert.deepEqual(classify(c, authenticated('bob'), resource('list', '', 'pods', 'web')), ['catch-all', 'catch-all', 'bob']);
});

test('a request no schema takes goes to catch-all; without catch-all stored there is no classification', () => {
  const c = bootstrapped();
  // Upstream's authenticators always add system:authenticated or system:unauthenticated; a user without either matches nothing.
  assert.deepEqual(classify(c, user('proxy-user'), resource('get', '', 'pods', 'web')), ['catch-all', 'catch-all', 'proxy-user']);
  c.setSchemas([]);
  assert.equal(c.classify(user('proxy-user'), resource('get', '', 'pods', 'web')), undefined);
});

test('a rule\'s lists stored as null (Go\'s nil, as an empty list reads back from storage) match nothing, and classifying does not throw', () => {
  const c = bootstrapped();
  const nulls: KubeObject = withUid({
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'nulls' },
    spec: {
      matchingPrecedence: 100, priorityLevelConfiguration: { name: 'workload-low' },
      rules: [{
        subjects: [{ kind: 'User', user: { name: 'alice' } }],
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: null }, { verbs: null, apiGroups: null, resources: null, clusterScope: true, namespaces: null }],
        nonResourceRules: [{ verbs: null, nonResourceURLs: null }],
      }],
    },
  } as unknown as KubeObject);
  c.setSchemas([...mandatoryFlowSchemas, ...suggestedFlowSchemas, nulls].map(withUid));
  const alice = authenticated('alice');
  // Cluster-scoped requests match by its first rule; namespaced ones and URLs match none of its rules.
  assert.deepEqual(classify(c, alice, resource('list', '', 'nodes')), ['nulls', 'workload-low', '']);
  assert.deepEqual(classify(c, alice, resource('get', '', 'configmaps', 'default')), ['global-default', 'global-default', 'alice']);
  assert.deepEqual(classify(c, alice, url('/version')), ['global-default', 'global-default', 'alice']);
});
