// Server-side apply and managed fields over HTTP, and with kubectl 1.33.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const cmPath = (name: string) => `/api/v1/namespaces/default/configmaps/${name}`;
const applyCm = (name: string, data: Record<string, string>, query: string, extraMeta: Record<string, unknown> = {}) =>
  server.request('PATCH', `${cmPath(name)}?${query}`, {
    raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extraMeta }, data }),
    headers: { 'content-type': 'application/apply-patch+yaml' },
  });

test('apply creates (201) then patches (200); managedFields record the Apply manager', async () => {
  const created = await applyCm('ssa1', { a: '1' }, 'fieldManager=alice');
  assert.equal(created.status, 201, created.text);
  const entry = created.json.metadata.managedFields.find((e: any) => e.manager === 'alice');
  assert.equal(entry.operation, 'Apply');
  assert.equal(entry.apiVersion, 'v1');
  assert.equal(entry.fieldsType, 'FieldsV1');
  assert.deepEqual(entry.fieldsV1, { 'f:data': { 'f:a': {} } });
  const again = await applyCm('ssa1', { a: '1' }, 'fieldManager=alice');
  assert.equal(again.status, 200);
  assert.equal(again.json.metadata.resourceVersion, created.json.metadata.resourceVersion, 'applying the same configuration changes nothing');
});

test('a conflicting apply is 409 with FieldManagerConflict causes; force takes the field', async () => {
  await applyCm('ssa2', { a: '1' }, 'fieldManager=alice');
  const clash = await applyCm('ssa2', { a: '2' }, 'fieldManager=bob');
  assert.equal(clash.status, 409, clash.text);
  assert.equal(clash.json.reason, 'Conflict');
  assert.deepEqual(clash.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' }]);
  assert.match(clash.json.message, /^Apply failed with 1 conflict: conflict with "alice": \.data\.a/);
  const forced = await applyCm('ssa2', { a: '2' }, 'fieldManager=bob&force=true');
  assert.equal(forced.status, 200, forced.text);
  assert.equal(forced.json.data.a, '2');
  const managers = forced.json.metadata.managedFields.map((e: any) => e.manager);
  assert.deepEqual(managers, ['bob'], 'alice owned nothing else and disappears');
});

test('force is read as Go reads a query boolean: force=yes forces, force=0 and force=False do not', async () => {
  await applyCm('ssa-force', { a: '1' }, 'fieldManager=alice');
  for (const off of ['0', 'False']) assert.equal((await applyCm('ssa-force', { a: '2' }, `fieldManager=bob&force=${off}`)).status, 409, off);
  const forced = await applyCm('ssa-force', { a: '2' }, 'fieldManager=bob&force=yes');
  assert.equal(forced.status, 200, forced.text);
  assert.equal(forced.json.data.a, '2');
});

test('a non-apply write of an applied field takes it over as an Update, without conflict', async () => {
  await applyCm('ssa3', { a: '1', b: '1' }, 'fieldManager=alice');
  const res = await server.request('PATCH', `${cmPath('ssa3')}?fieldManager=editor`, { raw: JSON.stringify({ data: { a: 'x' } }), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(res.status, 200, res.text);
  const byManager = Object.fromEntries(res.json.metadata.managedFields.map((e: any) => [e.manager, e]));
  assert.equal(byManager.editor.operation, 'Update');
  assert.deepEqual(byManager.editor.fieldsV1, { 'f:data': { 'f:a': {} } });
  assert.deepEqual(byManager.alice.fieldsV1, { 'f:data': { 'f:b': {} } });
});

test('a field the applier alone owned and now omits is removed', async () => {
  await applyCm('ssa4', { a: '1', b: '2' }, 'fieldManager=alice');
  const res = await applyCm('ssa4', { a: '1' }, 'fieldManager=alice');
  assert.deepEqual(res.json.data, { a: '1' });
});

test('a field the schema does not declare fails the apply as upstream (500), whatever fieldValidation says; nothing is created', async () => {
  for (const query of ['fieldManager=x', 'fieldManager=x&fieldValidation=Ignore', 'fieldManager=x&fieldValidation=Strict']) {
    const res = await server.request('PATCH', `${cmPath('ssa-bogus')}?${query}`, {
      raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa-bogus' }, data: { a: '1' }, spec: { bogus: 1 } }),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal(res.status, 500, res.text);
    // The configuration names no namespace: upstream names the object as the configuration does.
    assert.equal(res.json.message, 'failed to create typed patch object (/ssa-bogus; /v1, Kind=ConfigMap): .spec: field not declared in schema');
  }
  const meta = await applyCm('ssa-bogus', { a: '1' }, 'fieldManager=x', { namespace: 'default', bogus: 'x' });
  assert.equal(meta.status, 500, meta.text);
  assert.equal(meta.json.message, 'failed to create typed patch object (default/ssa-bogus; /v1, Kind=ConfigMap): .metadata.bogus: field not declared in schema');
  assert.equal((await server.request('GET', cmPath('ssa-bogus'))).status, 404);
});

test('an empty map applied is owned as a field though not stored; labels go from the object when their last key is removed', async () => {
  const bob = await applyCm('ssa-empty', {}, 'fieldManager=bob', { labels: {} });
  assert.equal(bob.status, 201, bob.text);
  assert.deepEqual(bob.json.metadata.managedFields[0].fieldsV1, { 'f:data': {}, 'f:metadata': { 'f:labels': {} } });
  // Go's omitempty: the empty maps are not stored (upstream's storage never holds them).
  assert.equal('data' in bob.json, false);
  assert.equal('labels' in bob.json.metadata, false);
  // Filling them adds the maps themselves, which bob owns: conflicts (structured-merge-diff
  // counts a map absent from the live object as added), unless forced.
  const conflict = await applyCm('ssa-empty', { a: '1' }, 'fieldManager=alice', { labels: { k: 'v' } });
  assert.equal(conflict.status, 409, conflict.text);
  assert.deepEqual(conflict.json.details.causes.map((c: { field: string }) => c.field).sort(), ['.data', '.metadata.labels']);
  const forced = await applyCm('ssa-empty', { a: '1' }, 'fieldManager=alice&force=true', { labels: { k: 'v' } });
  assert.equal(forced.status, 200, forced.text);
  assert.deepEqual(forced.json.metadata.managedFields.map((e: { manager: string }) => e.manager), ['alice'], 'bob owned nothing else');
  // The last label removed from alice's configuration goes from the object.
  const res = await applyCm('ssa-empty', { a: '1' }, 'fieldManager=alice');
  assert.equal(res.status, 200, res.text);
  // structured-merge-diff leaves null; ObjectMeta is a Go value, which has no null map.
  assert.equal(res.json.metadata.labels, undefined);
  assert.deepEqual(res.json.metadata.managedFields.map((e: { manager: string; fieldsV1: unknown }) => [e.manager, e.fieldsV1]), [['alice', { 'f:data': { 'f:a': {} } }]]);
});

test('apply rules: fieldManager required (422), managedFields in the body (400), malformed YAML (400), dry run stores nothing', async () => {
  assert.equal((await applyCm('ssa5', { a: '1' }, '')).status, 422);
  assert.equal((await applyCm('ssa5', { a: '1' }, 'fieldManager=x', { managedFields: [{ manager: 'x' }] })).status, 400);
  const bad = await server.request('PATCH', `${cmPath('ssa5')}?fieldManager=x`, { raw: 'a: [1, 2', headers: { 'content-type': 'application/apply-patch+yaml' } });
  assert.equal(bad.status, 400, bad.text);
  const dry = await applyCm('ssa5', { a: '1' }, 'fieldManager=x&dryRun=All');
  assert.equal(dry.status, 201, dry.text);
  assert.equal((await server.request('GET', cmPath('ssa5'))).status, 404);
});

test('an apply configuration naming another object or namespace than the URL is 400, and nothing is created', async () => {
  const other = await server.request('PATCH', `${cmPath('url-name')}?fieldManager=x`, {
    raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'body-name' } }), headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  assert.equal(other.status, 400, other.text);
  assert.match(other.json.message, /does not match the name on the URL/);
  const ns = await server.request('PATCH', `${cmPath('url-name')}?fieldManager=x`, {
    raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'url-name', namespace: 'kube-system' } }), headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  assert.equal(ns.status, 400, ns.text);
  assert.equal((await server.request('GET', cmPath('url-name'))).status, 404);
  assert.equal((await server.request('GET', cmPath('body-name'))).status, 404);
});

test('managedFields: [{}] in a merge patch resets them; an empty list does not', async () => {
  await applyCm('ssa6', { a: '1' }, 'fieldManager=alice');
  const empty = await server.request('PATCH', cmPath('ssa6'), { raw: JSON.stringify({ metadata: { managedFields: [] } }), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(empty.status, 200);
  assert.ok(empty.json.metadata.managedFields.length > 0, 'an empty list keeps them (deliberately unlike kube-apiserver)');
  const reset = await server.request('PATCH', cmPath('ssa6'), { raw: JSON.stringify({ metadata: { managedFields: [{}] } }), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(reset.status, 200);
  assert.equal(reset.json.metadata.managedFields, undefined);
});

test('non-apply writes name their manager from fieldManager or the User-Agent', async () => {
  const res = await server.request('POST', '/api/v1/namespaces/default/configmaps', {
    body: { metadata: { name: 'ua' }, data: { a: '1' } }, headers: { 'user-agent': 'kubectl/v1.33.1 (linux/amd64) kubernetes/abc' },
  });
  assert.equal(res.json.metadata.managedFields[0].manager, 'kubectl');
  assert.equal(res.json.metadata.managedFields[0].operation, 'Update');
});

const kubectlBin = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
test('kubectl: apply --server-side is idempotent; a second manager conflicts, --force-conflicts wins; client-side then server-side apply migrates', { skip: existsSync(kubectlBin) ? false : `${kubectlBin} is not installed` }, async () => {
  const run = promisify(execFile);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ssa-'));
  const file = path.join(dir, 'd.yaml');
  const kubectl = (...args: string[]) => run(kubectlBin, ['--kubeconfig', server.kubeconfigPath, ...args]);
  const manifest = (replicas: number, image: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ssa-web, namespace: default}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ssa-web}}
  template:
    metadata: {labels: {app: ssa-web}}
    spec:
      containers:
      - {name: web, image: ${image}}
`;
  try {
    writeFileSync(file, manifest(2, 'nginx:1'));
    await kubectl('apply', '--server-side', '-f', file);
    const first = (await server.request('GET', '/apis/apps/v1/namespaces/default/deployments/ssa-web')).json;
    await kubectl('apply', '--server-side', '-f', file);
    const second = (await server.request('GET', '/apis/apps/v1/namespaces/default/deployments/ssa-web')).json;
    assert.equal(second.metadata.resourceVersion, first.metadata.resourceVersion);

    writeFileSync(file, manifest(5, 'nginx:1'));
    await assert.rejects(kubectl('apply', '--server-side', '--field-manager=other', '-f', file), (err: any) => {
      assert.match(err.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.spec\.replicas/);
      assert.match(err.stderr, /--force-conflicts/);
      return true;
    });
    await kubectl('apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', file);
    assert.equal((await server.request('GET', '/apis/apps/v1/namespaces/default/deployments/ssa-web')).json.spec.replicas, 5);

    // Client-side apply first, then server-side: no conflicts (kubectl migrates the ownership).
    const csa = path.join(dir, 'csa.yaml');
    writeFileSync(csa, manifest(1, 'nginx:1').replaceAll('ssa-web', 'csa-web'));
    await kubectl('apply', '-f', csa);
    writeFileSync(csa, manifest(3, 'nginx:2').replaceAll('ssa-web', 'csa-web'));
    await kubectl('apply', '--server-side', '-f', csa);
    const migrated = (await server.request('GET', '/apis/apps/v1/namespaces/default/deployments/csa-web')).json;
    assert.equal(migrated.spec.replicas, 3);
    assert.equal(migrated.spec.template.spec.containers[0].image, 'nginx:2');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a JSON patch replacing /metadata/managedFields with [{}] resets them, the rest of the patch applies too', async () => {
  await applyCm('ssa7', { a: '1' }, 'fieldManager=alice');
  const res = await server.request('PATCH', cmPath('ssa7'), {
    raw: JSON.stringify([{ op: 'replace', path: '/metadata/managedFields', value: [{}] }, { op: 'replace', path: '/data/a', value: '2' }]),
    headers: { 'content-type': 'application/json-patch+json' },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.data.a, '2');
  assert.equal(res.json.metadata.managedFields, undefined);
});
