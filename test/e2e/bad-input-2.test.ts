// Bad input at the surfaces beside object bodies: watch parameters, patches that rename
// their object, subresource bodies naming another namespace, impersonation headers and
// names in the path. Each answer is the one kube-apiserver gives.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { startServer, type Response, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

/** A request whose path is sent exactly as written (no URL normalisation of `.` and `..`). */
function requestPath(method: string, path: string): Promise<{ status: number; json: any }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = https.request({ host: url.hostname, port: url.port, method, path, ca: server.caPem, headers: { authorization: `Bearer ${server.token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function configMap(ns: string, name: string): Promise<void> {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } } });
  assert.equal(res.status, 201, res.text);
}

async function pod(ns: string, name: string): Promise<void> {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'i' }] } } });
  assert.equal(res.status, 201, res.text);
}

function assertStatus(res: Response | { status: number; json: any }, code: number, message: string): void {
  assert.equal(res.status, code, JSON.stringify(res.json));
  assert.equal(res.json?.kind, 'Status');
  assert.equal(res.json.message, message);
}

test('GET of an object with ?watch=1 answers the object: only a collection reads watch', async () => {
  const ns = await server.newNamespace('watch-get');
  await configMap(ns, 'a');
  const res = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/a?watch=1&timeoutSeconds=1`);
  assert.equal(res.status, 200);
  assert.equal(res.json?.kind, 'ConfigMap', res.text);
  assert.equal(res.json.metadata.name, 'a');
});

test('a watch of one object with a field selector naming another is 400', async () => {
  const ns = await server.newNamespace('watch-name');
  await configMap(ns, 'a');
  const path = `/api/v1/watch/namespaces/${ns}/configmaps/a`;
  for (const selector of ['metadata.name%3Db', 'metadata.namespace%3Dx']) {
    assertStatus(await server.request('GET', `${path}?fieldSelector=${selector}&timeoutSeconds=1`), 400, "fieldSelector metadata.name doesn't match requested name");
  }
  // The same name is allowed.
  const same = await server.request('GET', `${path}?fieldSelector=metadata.name%3Da&timeoutSeconds=1`);
  assert.equal(same.status, 200);
  assert.equal(JSON.parse(same.text.split('\n')[0]!).object.metadata.name, 'a');
});

const renames: { name: string; type: string; patch: string; message: string }[] = [
  {
    name: 'a JSON patch renaming the object', type: 'application/json-patch+json',
    patch: '[{"op":"replace","path":"/metadata/name","value":"other"}]', message: 'the name of the object (other) does not match the name on the URL (a)',
  },
  {
    name: 'a merge patch renaming the object', type: 'application/merge-patch+json',
    patch: '{"metadata":{"name":"other"}}', message: 'the name of the object (other) does not match the name on the URL (a)',
  },
  {
    name: 'a strategic merge patch renaming the object', type: 'application/strategic-merge-patch+json',
    patch: '{"metadata":{"name":"other"}}', message: 'the name of the object (other) does not match the name on the URL (a)',
  },
  {
    name: 'a JSON patch moving the object to another namespace', type: 'application/json-patch+json',
    patch: '[{"op":"replace","path":"/metadata/namespace","value":"other"}]', message: 'the namespace of the provided object does not match the namespace sent on the request',
  },
];

for (const row of renames) {
  test(`${row.name} is 400 and changes nothing`, async () => {
    const ns = await server.newNamespace('rename');
    await configMap(ns, 'a');
    const res = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/a`, { raw: row.patch, headers: { 'content-type': row.type } });
    assertStatus(res, 400, row.message);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/other`)).status, 404);
  });
}

test('a patch of a scale subresource renaming it is 400', async () => {
  const ns = await server.newNamespace('rename-scale');
  const deployment = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  };
  assert.equal((await server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, { body: deployment })).status, 201);
  const res = await server.request('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/d/scale`, { raw: '{"metadata":{"name":"other"},"spec":{"replicas":3}}', headers: { 'content-type': 'application/merge-patch+json' } });
  assertStatus(res, 400, 'the name of the object (other) does not match the name on the URL (d)');
});

const otherNamespace = 'the namespace of the provided object does not match the namespace sent on the request';

test('an Eviction naming another namespace is 400 and the pod stays', async () => {
  const ns = await server.newNamespace('evict-ns');
  await pod(ns, 'p');
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 'other' } } });
  assertStatus(res, 400, otherNamespace);
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status, 200);
});

test('an Eviction whose deleteOptions.dryRun holds any value is a dry run, whose deletion refuses the value (BeforeDelete\'s ValidateDeleteOptions)', async () => {
  const ns = await server.newNamespace('evict-dry');
  await pod(ns, 'p');
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' }, deleteOptions: { dryRun: ['Bogus'] } } });
  assertStatus(res, 422, 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"');
  const kept = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`);
  assert.equal(kept.status, 200);
  assert.equal(kept.json.metadata.deletionTimestamp, undefined);
});

test('a Binding naming another namespace is 400, at pods/binding and at bindings', async () => {
  const ns = await server.newNamespace('bind-ns');
  await pod(ns, 'p');
  const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p', namespace: 'other' }, target: { kind: 'Node', name: 'n1' } };
  assertStatus(await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding }), 400, otherNamespace);
  assertStatus(await server.request('POST', `/api/v1/namespaces/${ns}/bindings`, { body: binding }), 400, otherNamespace);
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json.spec.nodeName, undefined);
});

test('a TokenRequest naming another namespace or of another API version is 400', async () => {
  const ns = await server.newNamespace('token');
  assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } } })).status, 201);
  const path = `/api/v1/namespaces/${ns}/serviceaccounts/sa/token`;
  assertStatus(await server.request('POST', path, { body: { metadata: { namespace: 'other' } } }), 400, otherNamespace);
  assertStatus(await server.request('POST', path, { body: { apiVersion: 'v1', kind: 'Pod' } }), 400, 'Pod in version "v1" cannot be handled as a TokenRequest: converting (v1.Pod) to (authentication.TokenRequest): unknown conversion');
  assert.equal((await server.request('POST', path, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: { namespace: ns } } })).status, 201);
});

test('an empty Impersonate-User asks for nothing: the request is served as its sender', async () => {
  const ns = await server.newNamespace('impersonate');
  const res = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { 'impersonate-user': '' } });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.kind, 'ConfigMapList');
});

const badNames: { path: (ns: string) => string; method: string; message: string }[] = [
  { method: 'GET', path: (ns) => `/api/v1/namespaces/${ns}/configmaps/..`, message: `Name parameter invalid: "..": may not be '..'` },
  { method: 'DELETE', path: (ns) => `/api/v1/namespaces/${ns}/configmaps/.`, message: `Name parameter invalid: ".": may not be '.'` },
  { method: 'GET', path: (ns) => `/api/v1/namespaces/${ns}/configmaps/%2e%2e`, message: `Name parameter invalid: "..": may not be '..'` },
  { method: 'GET', path: (ns) => `/api/v1/namespaces/${ns}/configmaps/a%25b`, message: `Name parameter invalid: "a%b": may not contain '%'` },
  { method: 'GET', path: () => '/api/v1/namespaces/..', message: `Name parameter invalid: "..": may not be '..'` },
  { method: 'GET', path: (ns) => `/apis/apps/v1/namespaces/${ns}/deployments/../scale`, message: `Name parameter invalid: "..": may not be '..'` },
];

for (const row of badNames) {
  test(`${row.method} ${row.path('NS')} is 400: the name cannot be a path segment`, async () => {
    const ns = await server.newNamespace('bad-name');
    assertStatus(await requestPath(row.method, row.path(ns)), 400, row.message);
  });
}

test('an update setting a deletion timestamp or grace period the object lacks is 422 (immutable); a status write keeps the object\'s', async () => {
  const ns = await server.newNamespace('deletion-meta');
  await configMap(ns, 'c');
  const path = `/api/v1/namespaces/${ns}/configmaps/c`;
  const merge = { 'content-type': 'application/merge-patch+json' };
  const stamped = await server.request('PATCH', path, { body: { metadata: { deletionTimestamp: '2020-01-01T00:00:00Z' } }, headers: merge });
  assert.equal(stamped.status, 422, stamped.text);
  assert.deepEqual(stamped.json.details.causes.map((c: { field: string; message: string }) => [c.field, c.message.endsWith('field is immutable')]), [['metadata.deletionTimestamp', true]]);
  const grace = await server.request('PATCH', path, { body: { metadata: { deletionGracePeriodSeconds: 30 } }, headers: merge });
  assert.equal(grace.status, 422, grace.text);
  assert.equal(grace.json.details.causes[0].field, 'metadata.deletionGracePeriodSeconds');
  const current = (await server.request('GET', path)).json;
  assert.equal(current.metadata.deletionTimestamp, undefined, 'nothing was written');
  await pod(ns, 'p');
  const status = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p/status`, { body: { metadata: { deletionTimestamp: '2020-01-01T00:00:00Z' }, status: { message: 'x' } }, headers: merge });
  assert.equal(status.status, 200, status.text);
  assert.equal(status.json.metadata.deletionTimestamp, undefined);
  assert.equal(status.json.status.message, 'x');
});

test('a uid in a patch is no precondition but immutable (422); in an update\'s body it is one (409)', async () => {
  const ns = await server.newNamespace('uid-patch');
  await configMap(ns, 'c');
  const path = `/api/v1/namespaces/${ns}/configmaps/c`;
  const patched = await server.request('PATCH', path, { body: { metadata: { uid: 'other' } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(patched.status, 422, patched.text);
  assert.deepEqual(patched.json.details.causes.map((c: { field: string }) => c.field), ['metadata.uid']);
  const applied = await server.request('PATCH', `${path}?fieldManager=m`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', uid: 'other' } }, headers: { 'content-type': 'application/apply-patch+yaml' } });
  assert.equal(applied.status, 422, applied.text);
  const current = (await server.request('GET', path)).json;
  const updated = await server.request('PUT', path, { body: { ...current, metadata: { ...current.metadata, uid: 'other' } } });
  assert.equal(updated.status, 409, updated.text);
  assert.match(updated.json.message, /Precondition failed: UID in precondition: other/);
});

test('an apply that creates its object drops a resourceVersion given, and refuses a uid given (409)', async () => {
  const ns = await server.newNamespace('apply-create');
  const apply = (name: string, metadata: Record<string, unknown>) => server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}?fieldManager=m`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...metadata }, data: { a: '1' } }, headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  const versioned = await apply('versioned', { resourceVersion: '12345' });
  assert.equal(versioned.status, 201, versioned.text);
  assert.notEqual(versioned.json.metadata.resourceVersion, '12345');
  const withUid = await apply('with-uid', { uid: 'abc' });
  assert.equal(withUid.status, 409, withUid.text);
  assert.equal(withUid.json.message, 'Operation cannot be fulfilled on configmaps "with-uid": uid mismatch: the provided object specified uid abc, and no existing object was found');
  assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/with-uid`)).status, 404);
});

test('a write\'s options are validated together, in upstream\'s order and words; a printable non-ASCII fieldManager is fine', async () => {
  const ns = await server.newNamespace('write-options');
  await configMap(ns, 'c');
  const merge = { 'content-type': 'application/merge-patch+json' };
  const patched = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c?force=true&dryRun=All&dryRun=Foo&fieldValidation=Bogus&fieldManager=a%01b`, { body: {}, headers: merge });
  assert.equal(patched.status, 422, patched.text);
  assert.equal(patched.json.message, 'PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for non-apply patch, '
    + 'fieldManager: Invalid value: "a\\u0001b": invalid character U+0001 (at position 1), '
    + 'dryRun: Unsupported value: []string{"All", "Foo"}: supported values: "All", '
    + 'fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"]');
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldManager=${encodeURIComponent('café-manager')}`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'accent' }, data: { a: '1' } } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.metadata.managedFields[0].manager, 'café-manager');
});
