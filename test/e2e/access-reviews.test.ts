// authorization.k8s.io/v1 access reviews over HTTP and through kubectl 1.33's `auth can-i`,
// against a server in AlwaysAllow mode.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { kubectlAt } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer({ authorizationModes: ['AlwaysAllow'] });
});
after(async () => {
  await server?.stop();
});

const base = '/apis/authorization.k8s.io/v1';

test('each review is created (201) and answered with its status; nothing is stored', async () => {
  const ns = await server.newNamespace('reviews');
  const resourceAttributes = { verb: 'get', resource: 'configmaps', namespace: ns };
  const cases: { name: string; path: string; body: object; status: object }[] = [
    { name: 'subject access review', path: `${base}/subjectaccessreviews`, body: { kind: 'SubjectAccessReview', spec: { user: 'bob', resourceAttributes } }, status: { allowed: true } },
    { name: 'local subject access review', path: `${base}/namespaces/${ns}/localsubjectaccessreviews`, body: { kind: 'LocalSubjectAccessReview', spec: { groups: ['dev'], resourceAttributes } }, status: { allowed: true } },
    { name: 'self subject access review', path: `${base}/selfsubjectaccessreviews`, body: { kind: 'SelfSubjectAccessReview', spec: { nonResourceAttributes: { verb: 'get', path: '/metrics' } } }, status: { allowed: true } },
    {
      name: 'self subject rules review', path: `${base}/selfsubjectrulesreviews`, body: { kind: 'SelfSubjectRulesReview', spec: { namespace: ns } },
      status: { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false },
    },
  ];
  for (const c of cases) {
    const res = await server.request('POST', c.path, { body: { apiVersion: 'authorization.k8s.io/v1', ...c.body } });
    assert.equal(res.status, 201, `${c.name}: ${res.text}`);
    assert.equal(res.json.kind, (c.body as { kind: string }).kind, c.name);
    assert.deepEqual(res.json.status, c.status, c.name);
    const get = await server.request('GET', c.path);
    assert.equal(get.status, 405, `${c.name}: only create is served`);
  }
});

test('a local review answers for the namespace of its path only', async () => {
  const ns = await server.newNamespace('reviews');
  const cases: { name: string; body: object; code: number; message: string }[] = [
    {
      name: 'another namespace in the spec', body: { spec: { user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'elsewhere' } } }, code: 422,
      message: 'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "elsewhere": must match metadata.namespace',
    },
    {
      name: 'another namespace in the metadata', body: { metadata: { namespace: 'elsewhere' }, spec: { user: 'bob', resourceAttributes: { verb: 'get', resource: 'pods', namespace: ns } } }, code: 400,
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    },
  ];
  for (const c of cases) {
    const res = await server.request('POST', `${base}/namespaces/${ns}/localsubjectaccessreviews`, { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview', ...c.body } });
    assert.equal(res.status, c.code, c.name);
    assert.equal(res.json.message, c.message, c.name);
  }
});

const kubectl133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
describe('kubectl 1.33 auth can-i', { skip: existsSync(kubectl133) ? false : `kubectl 1.33 is not installed at ${kubectl133}` }, () => {
  const kubectl = (...args: string[]) => kubectlAt(kubectl133, ['--kubeconfig', server.kubeconfigPath], ...args);

  test('can-i answers yes for anything under AlwaysAllow', async () => {
    const ns = await server.newNamespace('can-i');
    const cases: string[][] = [
      ['create', 'pods'],
      ['delete', 'deployments.apps', '-n', ns],
      ['get', '/healthz'],
      ['get', 'pods', '--as=someone-else'],
    ];
    for (const args of cases) assert.equal((await kubectl('auth', 'can-i', ...args)).trim(), 'yes', args.join(' '));
  });

  test('can-i --list shows the rules of the rules review', async () => {
    const ns = await server.newNamespace('can-i');
    const out = await kubectl('auth', 'can-i', '--list', '-n', ns);
    const rows = out.trim().split('\n').map((line) => line.trim().split(/\s{2,}/));
    assert.deepEqual(rows, [
      ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs'],
      ['*.*', '[]', '[]', '[*]'],
      ['[*]', '[]', '[*]'],
    ]);
  });
});
