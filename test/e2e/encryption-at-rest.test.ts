// Encryption at rest and corrupt objects, end to end: Secrets encrypted in the sqlite file,
// keys rotated by rewriting, a Secret whose key was removed answered as corrupt (get, list,
// watch), and removed with the unsafe deletion option once AllowUnsafeMalformedObjectDeletion is on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { defaultConfig } from '../../src/cli/config.ts';
import { openStream, startServer, tempDir, type TestServer } from '../helpers/server.ts';
import { kubectlAt } from '../helpers/kubectl.ts';
import { sample } from '../helpers/metrics.ts';

const kubectl133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const secret = (bytes: number, fill: number) => Buffer.alloc(bytes, fill).toString('base64');
const key1 = { name: 'key1', secret: secret(32, 1) };
const key2 = { name: 'key2', secret: secret(32, 2) };
const key3 = { name: 'key3', secret: secret(32, 3) };

function writeConfig(dir: string, name: string, providers: unknown[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers }] }));
  return file;
}

/** The bytes the sqlite file holds for a key now. */
function storedValue(dataDir: string, key: string): string {
  const db = new DatabaseSync(path.join(dataDir, 'plinth.db'), { readOnly: true });
  try {
    const row = db.prepare('SELECT h.value FROM kv JOIN history h ON h.revision = kv.mod_revision WHERE kv.key = ?').get(key) as { value: Uint8Array } | undefined;
    return row === undefined ? '' : Buffer.from(row.value).toString('latin1');
  } finally {
    db.close();
  }
}

/** Node sends a DELETE body chunked unless told its length, and servers refuse that. */
const withBody = (body: unknown) => ({ body, headers: { 'content-length': String(Buffer.byteLength(JSON.stringify(body))) } });
const secretBody = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { value } });

test('Secrets are encrypted at rest, keys rotate by rewriting, and a Secret whose key is gone is corrupt until deleted unsafely', async () => {
  const dataDir = tempDir('plinth-enc-e2e-');
  const start = (config: string, gates: Record<string, boolean> = {}) => startServer({
    dataDir, storage: 'sqlite', encryptionProviderConfig: config, featureGates: { ...defaultConfig().featureGates, ...gates },
  });
  let server: TestServer | undefined;
  try {
    // 1. aescbc key1 writes; the file holds the prefix and no plain text.
    server = await start(writeConfig(dataDir, 'one.json', [{ aescbc: { keys: [key1] } }, { identity: {} }]));
    const ns = await server.newNamespace('enc');
    for (const name of ['a', 'b', 'c']) assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secretBody(name, `plain-${name}`) })).status, 201);
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { v: 'visible' } } });
    const keyOf = (name: string) => `/registry/secrets/${ns}/${name}`;
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/secrets/a`)).json.data.value, Buffer.from('plain-a').toString('base64'));
    // Upstream's transformation metrics: each write counted at both levels of the provider, for the request's resource.
    const scrape = (await server.request('GET', '/metrics')).text;
    for (const prefix of ['k8s:enc:aescbc:v1:', 'key1:']) {
      assert.equal(sample(scrape, 'apiserver_storage_transformation_operations_total', { resource: 'secrets', status: 'OK', transformation_type: 'to_storage', transformer_prefix: prefix }), 3, prefix);
    }
    assert.doesNotMatch(scrape, /apiserver_storage_transformation_operations_total\{resource="configmaps"/, 'resources left out of the configuration are not transformed');
    await server.stop();
    // The server holds the file while it runs: read it between runs.
    assert.ok(storedValue(dataDir, keyOf('a')).startsWith('k8s:enc:aescbc:v1:key1:'));
    assert.ok(!storedValue(dataDir, keyOf('a')).includes(Buffer.from('plain-a').toString('base64')));
    assert.ok(storedValue(dataDir, `/registry/configmaps/${ns}/cm`).includes('visible'), 'ConfigMaps are not configured: stored as they are');

    // 2. Rotation: aesgcm key2 first, key1 still reads; rewriting a Secret moves it to key2.
    server = await start(writeConfig(dataDir, 'two.json', [{ aesgcm: { keys: [key2] } }, { aescbc: { keys: [key1] } }]));
    const a = await server.request('GET', `/api/v1/namespaces/${ns}/secrets/a`);
    assert.equal(a.status, 200, a.text);
    for (const name of ['a', 'b']) {
      // `kubectl get -o json | kubectl replace -f -`: a PUT of the same content. Read through a
      // key that no longer writes, the value is stale and written again (a new resourceVersion).
      const current: { metadata: { resourceVersion: string } } = (await server.request('GET', `/api/v1/namespaces/${ns}/secrets/${name}`)).json;
      const replaced = await server.request('PUT', `/api/v1/namespaces/${ns}/secrets/${name}`, { body: current });
      assert.equal(replaced.status, 200);
      assert.notEqual(replaced.json.metadata.resourceVersion, current.metadata.resourceVersion, `${name}: rewritten though unchanged`);
      // Now under the current key: the same PUT again writes nothing, as usual.
      const again = await server.request('PUT', `/api/v1/namespaces/${ns}/secrets/${name}`, { body: replaced.json });
      assert.equal(again.json.metadata.resourceVersion, replaced.json.metadata.resourceVersion, `${name}: a second replace is a no-op`);
    }
    await server.stop();
    for (const name of ['a', 'b']) assert.ok(storedValue(dataDir, keyOf(name)).startsWith('k8s:enc:aesgcm:v1:key2:'), name);
    assert.ok(storedValue(dataDir, keyOf('c')).startsWith('k8s:enc:aescbc:v1:key1:'), 'c was not rewritten');

    // 3. key1 removed: c cannot be read. get 500, list names its key, watches end with an ERROR event.
    const withoutKey1 = writeConfig(dataDir, 'three.json', [{ secretbox: { keys: [key3] } }, { aesgcm: { keys: [key2] } }]);
    server = await start(withoutKey1);
    const getC = await server.request('GET', `/api/v1/namespaces/${ns}/secrets/c`);
    assert.equal(getC.status, 500);
    assert.equal(getC.json.reason, 'InternalError');
    assert.equal(getC.json.message, `Internal error occurred: StorageError: corrupt object, Code: 7, Key: ${keyOf('c')}, ResourceVersion: 0, AdditionalErrorMsg: data from the storage is not transformable revision=0: no matching prefix found`);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/secrets/a`)).status, 200, 'the others still read');
    for (const query of ['', '?limit=5', '?resourceVersion=0', '?labelSelector=x%3Dy']) {
      const list = await server.request('GET', `/api/v1/namespaces/${ns}/secrets${query}`);
      assert.equal(list.status, 500, query);
      assert.equal(list.json.reason, 'StorageReadError', query);
      assert.equal(list.json.message, 'failed to read one or more secrets from the storage', query);
      assert.deepEqual(list.json.details.causes.map((c: { field: string; reason: string }) => [c.reason, c.field]), [['UnexpectedServerResponse', keyOf('c')]], query);
      assert.deepEqual({ name: list.json.details.name, kind: list.json.details.kind }, { name: 'list', kind: 'secrets' }, query);
    }
    const initial = await openStream(server, `/api/v1/namespaces/${ns}/secrets?watch=1`);
    const error = await initial.next();
    assert.equal(error.type, 'ERROR');
    assert.equal(error.object.code, 500);
    assert.match(error.object.message, /corrupt object.*secrets\/.*\/c/);
    assert.equal(await initial.next(), undefined, 'the watch ends after its ERROR event');
    // The server keeps serving.
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/cm`)).status, 200);

    // 4. Gate off: the option is dropped before validation, as upstream (a normal delete, which fails on the corrupt value).
    const unsafe = '?ignoreStoreReadErrorWithClusterBreakingPotential=true';
    const gateOff = await server.request('DELETE', `/api/v1/namespaces/${ns}/secrets/c${unsafe}`);
    assert.equal(gateOff.status, 500);
    assert.match(gateOff.json.message, /corrupt object/);
    // Its conflicts with other options are not refused either (they are with the gate on, below).
    const conflictingBody = withBody({ ignoreStoreReadErrorWithClusterBreakingPotential: true, gracePeriodSeconds: 0, dryRun: ['All'], preconditions: { uid: 'x' } });
    const notRefused = await server.request('DELETE', `/api/v1/namespaces/${ns}/secrets/c`, conflictingBody);
    assert.equal(notRefused.status, 500, notRefused.text);
    assert.match(notRefused.json.message, /corrupt object/);
    await server.stop();

    // 5. Gate on: conflicting options refused; refused on a healthy Secret, removes the corrupt one; watchers see DELETED.
    server = await start(withoutKey1, { AllowUnsafeMalformedObjectDeletion: true });
    // With a body, the options are the body's alone (the query counts only without one, as upstream).
    const conflicting = await server.request('DELETE', `/api/v1/namespaces/${ns}/secrets/c`, conflictingBody);
    assert.equal(conflicting.status, 422, conflicting.text);
    assert.equal(conflicting.json.message, 'DeleteOptions.meta.k8s.io "" is invalid: [ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .dryRun, ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .gracePeriodSeconds, ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .preconditions]');
    const healthy = await server.request('DELETE', `/api/v1/namespaces/${ns}/secrets/a${unsafe}`);
    assert.equal(healthy.status, 422);
    assert.equal(healthy.json.message, 'secrets "a" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option');
    const rv = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json.metadata.resourceVersion;
    const watch = await openStream(server, `/api/v1/namespaces/${ns}/secrets?watch=1&resourceVersion=${rv}`);
    const deleted = await server.request('DELETE', `/api/v1/namespaces/${ns}/secrets/c`, withBody({ apiVersion: 'v1', kind: 'DeleteOptions', ignoreStoreReadErrorWithClusterBreakingPotential: true }));
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(deleted.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, details: { name: 'c', kind: 'Secret' } });
    const event = await watch.next();
    assert.equal(event.type, 'DELETED');
    assert.deepEqual([event.object.kind, event.object.metadata.name, event.object.metadata.namespace], ['Secret', 'c', ns]);
    watch.close();
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/secrets/c`)).status, 404);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/secrets`)).status, 200, 'the list reads again');

    // kubectl 1.33 has no flag for the option (added in 1.34); `delete --raw` sends it.
    const raw = await kubectlAt(kubectl133, ['--kubeconfig', server.kubeconfigPath], 'delete', '--raw', `/api/v1/namespaces/${ns}/secrets/b${unsafe}`).catch((err: Error) => err.message);
    assert.match(raw, /is exclusively used to delete corrupt object/, 'b is readable (key2): refused');
    await server.stop();
    server = undefined;
    assert.equal(storedValue(dataDir, keyOf('c')), '', 'c is gone from the file');
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
