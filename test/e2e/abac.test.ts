// --authorization-mode ABAC with --authorization-policy-file, end to end: token users allowed
// by the file's policies (a later RBAC mode still allowing what they do not), 403 with
// upstream's reason when nothing does, `kubectl auth can-i --list` from the policies, and a
// file that does not load failing the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, tempDir } from '../helpers/server.ts';

const dir = tempDir('plinth-abac-');
const tokenFile = path.join(dir, 'tokens.csv');
writeFileSync(tokenFile, 'admin-token,admin,admin,"system:masters"\nalice-token,alice,alice-uid,"dev"\nbob-token,bob,bob-uid\n');
const policy = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

test('ABAC,RBAC: the policies allow, else RBAC decides; the reasons of both in the 403', async (t) => {
  const policyFile = path.join(dir, 'policy.jsonl');
  writeFileSync(policyFile, [
    '# alice runs the dev namespace; everyone reads /version',
    policy({ user: 'alice', namespace: 'dev', resource: '*', apiGroup: '*' }),
    policy({ group: 'system:authenticated', readonly: true, nonResourcePath: '/version' }),
    '{"user": "bob", "readonly": true, "resource": "configmaps"}',
  ].join('\n'));
  const server = await startServer({ tokenAuthFile: tokenFile, authorizationModes: ['ABAC', 'RBAC'], authorizationPolicyFile: policyFile });
  t.after(() => server.stop());
  assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'dev' } } })).status, 201);
  const created = await server.request('POST', '/api/v1/namespaces/dev/configmaps', { token: 'alice-token', body: { metadata: { name: 'c' }, data: { a: '1' } } });
  assert.equal(created.status, 201, created.text);
  assert.equal((await server.request('GET', '/api/v1/namespaces/dev/configmaps/c', { token: 'bob-token' })).status, 200);
  const write = await server.request('DELETE', '/api/v1/namespaces/dev/configmaps/c', { token: 'bob-token' });
  assert.equal(write.status, 403);
  assert.equal(write.json.message, 'configmaps "c" is forbidden: User "bob" cannot delete resource "configmaps" in API group "" in the namespace "dev": No policy matched.');
  assert.equal((await server.request('GET', '/api/v1/namespaces/default/secrets', { token: 'alice-token' })).status, 403);
  assert.equal((await server.request('GET', '/version', { token: 'bob-token' })).status, 200);
  const rules = await server.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { token: 'alice-token', body: { spec: { namespace: 'dev' } } });
  assert.equal(rules.status, 201, rules.text);
  assert.ok(rules.json.status.resourceRules.some((r: { verbs: string[]; resources: string[] }) => r.verbs.includes('*') && r.resources.includes('*')), JSON.stringify(rules.json.status));
});

test('a policy file that does not load fails the start with its line', async () => {
  const policyFile = path.join(dir, 'broken.jsonl');
  writeFileSync(policyFile, `${policy({ user: 'alice', namespace: '*' })}\n{"user": "bob"\n`);
  await assert.rejects(
    startServer({ tokenAuthFile: tokenFile, authorizationModes: ['ABAC'], authorizationPolicyFile: policyFile }),
    /error reading policy file .*broken\.jsonl, line 2: \{"user": "bob": couldn't get version\/kind; json parse error/,
  );
  await assert.rejects(
    startServer({ tokenAuthFile: tokenFile, authorizationModes: ['ABAC'], authorizationPolicyFile: path.join(dir, 'missing.jsonl') }),
    /ENOENT|no such file/,
  );
});
