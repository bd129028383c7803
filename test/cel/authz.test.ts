// The CEL authorizer library (upstream's authz library): checks built from `authorizer`,
// answered by the server's authorizer at once, or later when it must wait.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestUser } from '../../src/api/request-context.ts';
import type { AuthorizationAttributes } from '../../src/auth/authorize.ts';
import { CelAuthorizer } from '../../src/cel/authz.ts';
import { compile } from '../../src/cel/environment.ts';

const variables = { authorizer: 'kubernetes.authorization.Authorizer', object: 'dyn' } as const;
const alice: RequestUser = { name: 'alice', uid: 'a1', groups: ['system:authenticated'] };

function run(expression: string, authorizer: CelAuthorizer): unknown {
  const compiled = compile(expression, variables);
  assert.ok(compiled.program !== undefined, compiled.error);
  return compiled.program({ authorizer, object: null });
}

test('a resource check asks the authorizer with the check\'s parts and the user, and reads its decision', () => {
  const asked: Array<[string, AuthorizationAttributes]> = [];
  const authorizer = new CelAuthorizer(alice, (user, attributes) => {
    asked.push([user.name, attributes]);
    return attributes.verb === 'get' ? { decision: 'Allow' } : { decision: 'NoOpinion', reason: 'no rule' };
  }, { group: 'apps', resource: 'deployments', subresource: '', namespace: 'ns', name: 'web' });
  assert.equal(run("authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('web').check('get').allowed()", authorizer), true);
  assert.deepEqual(asked.pop(), ['alice', { verb: 'get', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'ns', name: 'web', path: '', version: '*' }]);
  assert.equal(run("authorizer.group('').resource('secrets').check('list').allowed()", authorizer), false);
  assert.equal(run("authorizer.group('').resource('secrets').check('list').reason()", authorizer), 'no rule');
  assert.equal(run("authorizer.group('').resource('secrets').check('list').errored()", authorizer), false);
  // The request's own resource (any version, as every check).
  assert.equal(run("authorizer.requestResource.check('approve').allowed()", authorizer), false);
  assert.deepEqual(asked.pop()![1], { verb: 'approve', group: 'apps', resource: 'deployments', subresource: '', namespace: 'ns', name: 'web', path: '', version: '*' });
  // Selectors go with the check.
  run("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1').labelSelector('a=b').check('list').allowed()", authorizer);
  const [, selected] = asked.pop()!;
  assert.equal(selected.labelSelector, 'a=b');
  assert.ok(Array.isArray(selected.fieldSelector) && selected.fieldSelector.length === 1);
  // A path check, and a service account's.
  run("authorizer.path('/healthz').check('get').allowed()", authorizer);
  assert.deepEqual(asked.pop(), ['alice', { verb: 'get', group: '', resource: '', subresource: '', namespace: '', name: '', path: '/healthz' }]);
  run("authorizer.serviceAccount('kube-system', 'ctl').group('').resource('pods').check('list').allowed()", authorizer);
  assert.equal(asked.pop()![0], 'system:serviceaccount:kube-system:ctl');
});

test('an authorizer that fails, or answers later, is read as upstream\'s decision', async () => {
  const failing = new CelAuthorizer(alice, () => ({ decision: 'NoOpinion', error: 'webhook unreachable' }));
  assert.equal(run("authorizer.group('').resource('pods').check('get').errored()", failing), true);
  assert.equal(run("authorizer.group('').resource('pods').check('get').error()", failing), 'webhook unreachable');
  const throwing = new CelAuthorizer(alice, () => {
    throw new Error('boom');
  });
  assert.equal(run("authorizer.group('').resource('pods').check('get').error()", throwing), 'boom');
  const later = new CelAuthorizer(alice, async (user) => ({ decision: user.name === 'alice' ? 'Allow' : 'Deny' }));
  const answer = run("authorizer.group('').resource('pods').check('get').allowed() && !authorizer.serviceAccount('x', 'y').path('/x').check('get').allowed()", later);
  assert.ok(answer instanceof Promise);
  assert.equal(await answer, true);
});

test('the library\'s types are checked when an expression compiles', () => {
  assert.match(compile("authorizer.group('').check('get')", variables).error ?? '', /check/);
  assert.match(compile("authorizer.group('').resource('pods').check('get').allowed() == 'yes'", variables).error ?? '', /./);
  assert.equal(compile("authorizer.group('').resource('pods').check('get').reason()", variables).type, 'string');
  // What the values hold is not readable from CEL.
  assert.notEqual(compile('authorizer.user', variables).error, undefined);
});
