// The ABAC mode as upstream's pkg/auth/authorizer/abac: policy files of versioned (v1beta1)
// and unversioned (v0) lines, converted as upstream converts them, matched by subject,
// read-only verbs, namespace, resource and API group, or non-resource path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { abacAuthorizer, parseAbacPolicies } from '../../src/auth/abac.ts';
import type { AuthorizationAttributes, AuthorizationDecision } from '../../src/auth/authorize.ts';

const v1beta1 = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

test('policy files: comments and blank lines skipped; v1beta1 as written but * subjects; v0 converted with its wildcards', () => {
  const file = [
    '# the administrators',
    '',
    v1beta1({ user: 'admin', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*' }),
    '   ',
    v1beta1({ group: '*', readonly: true, nonResourcePath: '/version' }),
    '{"user": "kubelet", "readonly": true}',
    '{"group": "*", "namespace": "dev"}',
    '{}',
    JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v0', kind: 'Policy', user: 'scheduler', resource: 'pods' }),
  ].join('\n');
  const { policies, unversioned } = parseAbacPolicies(file, '/etc/abac.jsonl');
  assert.equal(unversioned, 3);
  assert.deepEqual(policies, [
    { user: 'admin', group: '', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' },
    { user: '', group: 'system:authenticated', readonly: true, apiGroup: '', resource: '', namespace: '', nonResourcePath: '/version' },
    { user: 'kubelet', group: '', readonly: true, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' },
    { user: '', group: 'system:authenticated', readonly: false, apiGroup: '*', resource: '*', namespace: 'dev', nonResourcePath: '' },
    { user: '', group: 'system:authenticated', readonly: false, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' },
    { user: 'scheduler', group: '', readonly: false, apiGroup: '*', resource: 'pods', namespace: '*', nonResourcePath: '' },
  ]);
});

test('a line that does not decode fails the file, named with its number and text', () => {
  const bad: [string, RegExp][] = [
    ['{"user": "a"', /error reading policy file \/p, line 2: \{"user": "a": couldn't get version\/kind; json parse error: /],
    ['[1]', /error reading policy file \/p, line 2: \[1\]: couldn't get version\/kind; json parse error: json: cannot unmarshal array into Go value of type struct/],
    [v1beta1({ readonly: 'yes' }), /line 2: .*: json: cannot unmarshal string into Go struct field PolicySpec\.spec\.readonly of type bool$/],
    ['{"user": 7}', /line 2: \{"user": 7\}: json: cannot unmarshal number into Go struct field Policy\.user of type string$/],
    [JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1', kind: 'Policy', spec: {} }), /line 2: .*: no kind "Policy" is registered for version "abac\.authorization\.kubernetes\.io\/v1"$/],
  ];
  for (const [line, message] of bad) assert.throws(() => parseAbacPolicies(`# first\n${line}\n`, '/p'), message, line);
});

const attrs = (a: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({ verb: 'get', group: '', resource: '', subresource: '', namespace: '', name: '', path: '', ...a });
const alice = { name: 'alice', uid: '', groups: ['dev', 'system:authenticated'] };
const bob = { name: 'bob', uid: '', groups: ['system:authenticated'] };

test('matching: subject, read-only verbs, namespace, resource (subresources included) and group; non-resource paths exact, * and prefix*', () => {
  const { policies } = parseAbacPolicies([
    v1beta1({ user: 'alice', namespace: 'dev', resource: 'pods', apiGroup: '' }),
    v1beta1({ group: 'dev', readonly: true, namespace: '*', resource: 'deployments', apiGroup: 'apps' }),
    v1beta1({ user: 'bob', nonResourcePath: '/logs/*' }),
    v1beta1({ user: 'bob', readonly: true, nonResourcePath: '/healthz' }),
  ].join('\n'), '/p');
  const authz = abacAuthorizer(policies);
  const allowed = (user: typeof alice, a: Partial<AuthorizationAttributes>) => authz.authorize(user, attrs(a)) as AuthorizationDecision;
  assert.deepEqual(allowed(alice, { verb: 'delete', resource: 'pods', namespace: 'dev' }), { decision: 'Allow' });
  assert.deepEqual(allowed(alice, { verb: 'create', resource: 'pods', subresource: 'eviction', namespace: 'dev' }), { decision: 'Allow' });
  assert.deepEqual(allowed(alice, { resource: 'pods', namespace: 'prod' }), { decision: 'NoOpinion', reason: 'No policy matched.' });
  assert.deepEqual(allowed(alice, { resource: 'pods', namespace: 'dev', group: 'metrics.k8s.io' }), { decision: 'NoOpinion', reason: 'No policy matched.' });
  assert.equal(allowed(alice, { verb: 'watch', resource: 'deployments', group: 'apps', namespace: 'prod' }).decision, 'Allow');
  assert.equal(allowed(alice, { verb: 'patch', resource: 'deployments', group: 'apps', namespace: 'prod' }).decision, 'NoOpinion');
  assert.equal(allowed(bob, { verb: 'get', resource: 'deployments', group: 'apps', namespace: 'prod' }).decision, 'NoOpinion');
  assert.equal(allowed(bob, { verb: 'post', path: '/logs/kube.log' }).decision, 'Allow');
  assert.equal(allowed(bob, { verb: 'get', path: '/logs' }).decision, 'NoOpinion');
  assert.equal(allowed(bob, { verb: 'get', path: '/healthz' }).decision, 'Allow');
  assert.equal(allowed(bob, { verb: 'put', path: '/healthz' }).decision, 'NoOpinion');
  // A non-resource policy never matches a resource request, nor a resource policy a path.
  assert.equal(allowed(bob, { resource: 'logs', namespace: 'dev' }).decision, 'NoOpinion');
  assert.equal(allowed(alice, { path: '/api/v1/namespaces/dev/pods' }).decision, 'NoOpinion');
});

test('rules: the subject\'s policies for the namespace, read-only ones with get, list and watch', async () => {
  const { policies } = parseAbacPolicies([
    v1beta1({ user: 'alice', namespace: 'dev', resource: 'pods', apiGroup: '' }),
    v1beta1({ group: 'dev', readonly: true, namespace: '*', resource: 'deployments', apiGroup: 'apps' }),
    '{"user": "alice", "readonly": true}',
    v1beta1({ user: 'bob', namespace: '*', resource: '*', apiGroup: '*' }),
  ].join('\n'), '/p');
  assert.deepEqual(await abacAuthorizer(policies).rulesFor(alice, 'dev'), {
    resourceRules: [
      { verbs: ['*'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: ['apps'], resources: ['deployments'] },
      { verbs: ['get', 'list', 'watch'], apiGroups: ['*'], resources: ['*'] },
    ],
    nonResourceRules: [{ verbs: ['get', 'list', 'watch'], nonResourceURLs: ['*'] }],
    incomplete: false,
  });
  assert.deepEqual((await abacAuthorizer(policies).rulesFor(alice, 'prod')).resourceRules.length, 2);
});
