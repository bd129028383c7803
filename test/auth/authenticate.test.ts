import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alwaysAllow, bearerAuthenticator, bearerToken, forbiddenError, parseTokenFile, type AuthorizationAttributes } from '../../src/auth/index.ts';

const tokens = parseTokenFile('s3cret,admin,admin,"system:masters"\nplain,bob,u2\nalready,carol,u3,"system:authenticated,dev"\n');
const authenticate = bearerAuthenticator(tokens);

const admin = { name: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] };
const bob = { name: 'bob', uid: 'u2', groups: ['system:authenticated'] };

test('bearerAuthenticator reads the Authorization header like kube-apiserver', () => {
  const cases: { name: string; header: string | undefined; expected: unknown }[] = [
    { name: 'no header', header: undefined, expected: undefined },
    { name: 'empty header', header: '', expected: undefined },
    { name: 'Bearer token', header: 'Bearer s3cret', expected: admin },
    { name: 'scheme word in any case', header: 'bEARER s3cret', expected: admin },
    { name: 'surrounding whitespace trimmed', header: '  Bearer plain \t', expected: bob },
    { name: 'words after the token are ignored', header: 'Bearer plain extra', expected: bob },
    { name: 'two spaces before the token', header: 'Bearer  s3cret', expected: undefined },
    { name: 'unknown token', header: 'Bearer nope', expected: undefined },
    { name: 'token prefix', header: 'Bearer s3cre', expected: undefined },
    { name: 'Basic scheme', header: 'Basic YWRtaW46czNjcmV0', expected: undefined },
    { name: 'token without scheme', header: 's3cret', expected: undefined },
    { name: 'scheme without token', header: 'Bearer', expected: undefined },
    { name: 'Bearer as a prefix of the scheme', header: 'Bearers s3cret', expected: undefined },
    { name: 'group already present is not repeated', header: 'Bearer already', expected: { name: 'carol', uid: 'u3', groups: ['system:authenticated', 'dev'] } },
  ];
  for (const c of cases) assert.deepEqual(authenticate(c.header), c.expected, c.name);
});

test('bearerToken extracts the token or nothing', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('Basic abc'), undefined);
});

test('the authenticator does not share or expose the table it was built from', () => {
  const user = authenticate('Bearer plain')!;
  assert.throws(() => user.groups.push('system:masters'));
  assert.deepEqual(tokens.get('plain'), { name: 'bob', uid: 'u2', groups: [] });
});

const attributes = (over: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({
  verb: 'get', group: '', resource: '', subresource: '', namespace: '', name: '', path: '', ...over,
});

test('alwaysAllow allows everything', () => {
  assert.deepEqual(alwaysAllow.authorize(bob, attributes({ verb: 'delete', resource: 'namespaces', name: 'kube-system' })), { decision: 'Allow' });
});

test('forbiddenError words denials like kube-apiserver', () => {
  const cases: { name: string; attrs: AuthorizationAttributes; reason?: string; message: string; details: object }[] = [
    {
      name: 'named namespaced resource',
      attrs: attributes({ verb: 'get', resource: 'pods', namespace: 'dev', name: 'web', path: '/api/v1/namespaces/dev/pods/web' }),
      message: 'pods "web" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "dev"',
      details: { name: 'web', kind: 'pods' },
    },
    {
      name: 'collection in a group at cluster scope',
      attrs: attributes({ verb: 'list', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' }),
      message: 'clusterroles.rbac.authorization.k8s.io is forbidden: User "bob" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
      details: { group: 'rbac.authorization.k8s.io', kind: 'clusterroles' },
    },
    {
      name: 'subresource',
      attrs: attributes({ verb: 'update', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'a', name: 'd' }),
      message: 'deployments.apps "d" is forbidden: User "bob" cannot update resource "deployments/scale" in API group "apps" in the namespace "a"',
      details: { group: 'apps', kind: 'deployments', name: 'd' },
    },
    {
      name: 'non-resource path with a reason',
      attrs: attributes({ verb: 'get', path: '/metrics' }),
      reason: 'no RBAC policy matched',
      message: 'forbidden: User "bob" cannot get path "/metrics": no RBAC policy matched',
      details: {},
    },
  ];
  for (const c of cases) {
    const status = forbiddenError(bob, c.attrs, c.reason).toStatus();
    assert.equal(status.code, 403, c.name);
    assert.equal(status.reason, 'Forbidden', c.name);
    assert.equal(status.message, c.message, c.name);
    assert.deepEqual(status.details, c.details, c.name);
  }
});
