// Admission policies' `authorizer`: a validation that asks what the requesting user may do,
// answered by the server's own RBAC.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir } from '../helpers/server.ts';

test('a ValidatingAdmissionPolicy asks the authorizer what the requesting user may do', async (t) => {
  const file = path.join(tempDir('plinth-authz-'), 'tokens.csv');
  writeFileSync(file, ['admin-token,admin,admin,"system:masters"', 'alice-token,alice,alice-uid,""'].join('\n'));
  const server = await startServer({ tokenAuthFile: file, authorizationModes: ['RBAC'] });
  t.after(() => server.stop());
  const admin = (method: string, url: string, body?: unknown) => server.request(method, url, { token: 'admin-token', ...(body !== undefined ? { body } : {}) });
  assert.equal((await admin('POST', '/api/v1/namespaces', { metadata: { name: 'authz' } })).status, 201);
  // alice may write ConfigMaps in the namespace; reading its Secrets she may not, yet.
  assert.equal((await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/authz/roles', {
    metadata: { name: 'cm' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get'] }],
  })).status, 201);
  assert.equal((await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/authz/rolebindings', {
    metadata: { name: 'cm' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' }, subjects: [{ kind: 'User', name: 'alice' }],
  })).status, 201);
  const secrets = "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('get')";
  assert.equal((await admin('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
    metadata: { name: 'readers-only' },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
      validations: [
        { expression: `${secrets}.allowed()`, messageExpression: `'only readers of secrets may, not ' + request.userInfo.username` },
        { expression: "authorizer.requestResource.check('create').allowed()" },
      ],
    },
  })).status, 201);
  assert.equal((await admin('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
    metadata: { name: 'readers-only' }, spec: { policyName: 'readers-only', validationActions: ['Deny'] },
  })).status, 201);
  const create = (token: string, name: string) => server.request('POST', '/api/v1/namespaces/authz/configmaps', { token, body: { metadata: { name } } });
  const refused = await eventually(async () => {
    const res = await create('alice-token', 'a');
    assert.equal(res.status, 422, res.text);
    return res;
  });
  assert.match(refused.json.message, /denied request: only readers of secrets may, not alice$/);
  // The admin (system:masters) may read them.
  assert.equal((await create('admin-token', 'b')).status, 201);
  // Once alice may read Secrets, her create passes both checks.
  assert.equal((await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/authz/roles', {
    metadata: { name: 'secrets' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
  })).status, 201);
  assert.equal((await admin('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/authz/rolebindings', {
    metadata: { name: 'secrets' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secrets' }, subjects: [{ kind: 'User', name: 'alice' }],
  })).status, 201);
  await eventually(async () => assert.equal((await create('alice-token', 'c')).status, 201));
});
