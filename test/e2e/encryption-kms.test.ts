// KMS v2 encryption at rest, end to end against a plugin on a unix socket: the stored bytes
// in upstream's format (read here independently: the EncryptedObject by protobufjs, the seed
// through the plugin, the key by HKDF, the value by AES-GCM), one Encrypt call per seed, one
// Decrypt per seed after a restart, a new seed when the plugin's key id changes, and a
// plugin that is down: the server starts, its health check fails, writes fail with
// upstream's error, and all recovers once the plugin is back; a followed configuration
// that takes a KMS provider on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecipheriv, createHash, createHmac } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { MemoryBackend } from '../../src/storage/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { sample } from '../helpers/metrics.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';
import { decodeEncryptedObject, KmsPlugin, pluginAnnotation } from '../helpers/kms-plugin.ts';

function storedValue(dataDir: string, key: string): Buffer {
  const db = new DatabaseSync(path.join(dataDir, 'plinth.db'), { readOnly: true });
  try {
    const row = db.prepare('SELECT h.value FROM kv JOIN history h ON h.revision = kv.mod_revision WHERE kv.key = ?').get(key) as { value: Uint8Array } | undefined;
    return Buffer.from(row?.value ?? []);
  } finally {
    db.close();
  }
}

/** An EncryptionConfiguration sealing Secrets with `plugin` (as `vault`), then the `more` providers' lines, in `dir`; its path. */
function writeKmsConfig(dir: string, plugin: KmsPlugin, more = ''): string {
  const file = path.join(dir, 'encryption.yaml');
  writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - kms: {apiVersion: v2, name: vault, endpoint: "${plugin.endpoint}", timeout: 1s}
${more}`);
  return file;
}

const secretBody = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { value } });
const prefix = 'k8s:enc:kms:v2:vault:';

/** A stored value opened as upstream's format says, without Plinth's code. */
function openStored(plugin: KmsPlugin, stored: Buffer, storageKey: string): { keyId: string; plain: string } {
  assert.equal(stored.subarray(0, prefix.length).toString(), prefix);
  const object = decodeEncryptedObject(stored.subarray(prefix.length));
  assert.equal(object.encryptedDEKSourceType, 1, 'HKDF_SHA256_XNONCE_AES_GCM_SEED');
  assert.equal(Buffer.from(object.annotations[pluginAnnotation]!).toString(), '1', 'the plugin\'s annotations are stored');
  const seed = plugin.open(object.encryptedDEKSource, object.keyID);
  assert.equal(seed.length, 32);
  const data = Buffer.from(object.encryptedData);
  const info = data.subarray(0, 32);
  // HKDF-Expand with SHA-256, the seed as the pseudorandom key: the first block is the AES-256 key.
  const key = createHmac('sha256', seed).update(info).update(Buffer.of(1)).digest();
  const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(32, 44));
  decipher.setAAD(Buffer.from(storageKey));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return { keyId: object.keyID, plain: Buffer.concat([decipher.update(data.subarray(44, data.length - 16)), decipher.final()]).toString() };
}

test('Secrets are sealed by a KMS v2 plugin in upstream\'s stored format, read back after restarts and key rotation, and a plugin that is down fails writes until it is back', async () => {
  const dataDir = tempDir('plinth-kms-e2e-');
  const plugin = new KmsPlugin(dataDir);
  await plugin.start();
  const configFile = writeKmsConfig(dataDir, plugin, '  - identity: {}\n');
  const start = () => startServer({ dataDir, storage: 'sqlite', encryptionProviderConfig: configFile });
  let server: TestServer | undefined;
  try {
    // 1. One seed for every write; the health check reports the provider.
    server = await start();
    assert.deepEqual([plugin.calls.encrypt, plugin.calls.decrypt], [1, 0], 'primed at start: one seed encrypted');
    const ns = await server.newNamespace('kms');
    for (const name of ['a', 'b']) assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secretBody(name, `plain-${name}`) })).status, 201);
    const ready = await server.request('GET', '/readyz?verbose');
    assert.match(ready.text, /\[\+\]kms-providers ok/);
    assert.equal((await server.request('GET', '/healthz/kms-providers')).text, 'ok');
    assert.equal((await server.request('GET', '/livez/kms-providers')).status, 200);
    assert.equal(plugin.calls.encrypt, 1, 'writes reuse the seed');
    const scrape = (await server.request('GET', '/metrics')).text;
    const keyHash = `sha256:${createHash('sha256').update('key-1').digest('hex')}`;
    assert.equal(sample(scrape, 'apiserver_envelope_encryption_kms_operations_latency_seconds_count', { provider_name: 'vault', method_name: '/v2.KeyManagementService/Encrypt', grpc_status_code: 'OK' }), 1);
    assert.ok(sample(scrape, 'apiserver_envelope_encryption_kms_operations_latency_seconds_count', { method_name: '/v2.KeyManagementService/Status', grpc_status_code: 'OK' }) >= 1);
    assert.equal(sample(scrape, 'apiserver_envelope_encryption_key_id_hash_total', { transformation_type: 'to_storage', provider_name: 'vault', key_id_hash: keyHash }), 2, 'two writes');
    assert.ok(sample(scrape, 'apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds', { provider_name: 'vault', key_id_hash: keyHash }) > 0);
    assert.equal(sample(scrape, 'apiserver_envelope_encryption_dek_source_cache_size', { provider_name: 'vault' }), 1);
    assert.equal(sample(scrape, 'apiserver_storage_data_key_generation_duration_seconds_count'), 1);
    const written = { resource: 'secrets', transformation_type: 'to_storage', transformer_prefix: 'k8s:enc:kms:v2:vault:' };
    assert.equal(sample(scrape, 'apiserver_storage_transformation_operations_total', { ...written, status: 'OK' }), 2, 'each write counted under its prefix');
    assert.equal(sample(scrape, 'apiserver_storage_transformation_duration_seconds_count', written), 2);
    await server.stop();
    const keyOf = (name: string) => `/registry/secrets/${ns}/${name}`;
    const a = openStored(plugin, storedValue(dataDir, keyOf('a')), keyOf('a'));
    assert.equal(a.keyId, 'key-1');
    assert.equal(JSON.parse(a.plain).data.value, Buffer.from('plain-a').toString('base64'));
    assert.ok(!storedValue(dataDir, keyOf('a')).includes(Buffer.from('plain-a').toString('base64')));
    assert.throws(() => openStored(plugin, storedValue(dataDir, keyOf('a')), keyOf('b')), /authenticate/, 'the storage key is the additional data');

    // 2. After a restart: the seed is decrypted once, for every value sealed with it.
    server = await start();
    const decryptsBefore = plugin.calls.decrypt;
    for (const name of ['a', 'b', 'a']) {
      const got = await server.request('GET', `/api/v1/namespaces/${ns}/secrets/${name}`);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.data.value, Buffer.from(`plain-${name}`).toString('base64'));
    }
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/secrets`)).json.items.length, 2);
    assert.equal(plugin.calls.decrypt - decryptsBefore, 1, 'one Decrypt for the seed');
    assert.equal(sample((await server.request('GET', '/metrics')).text, 'apiserver_storage_envelope_transformation_cache_misses_total'), 1, 'one miss, the rest from the cache');
    assert.ok(plugin.uids.every((uid) => /^[0-9a-f-]{36}$/.test(uid)), 'each call carries a uid');
    await server.stop();

    // 3. The plugin's key id changes: a new seed under the new key; old values still read.
    plugin.keyId = 'key-2';
    server = await start();
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/secrets/a`)).status, 200);
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secretBody('c', 'plain-c') })).status, 201);
    // A replace that changes nothing rewrites a value sealed under the old key id (stale), as upstream's.
    const b = (await server.request('GET', `/api/v1/namespaces/${ns}/secrets/b`)).json;
    const replaced = await server.request('PUT', `/api/v1/namespaces/${ns}/secrets/b`, { body: b });
    assert.notEqual(replaced.json.metadata.resourceVersion, b.metadata.resourceVersion);
    await server.stop();
    assert.equal(openStored(plugin, storedValue(dataDir, keyOf('c')), keyOf('c')).keyId, 'key-2');
    assert.equal(openStored(plugin, storedValue(dataDir, keyOf('b')), keyOf('b')).keyId, 'key-2', 'moved to the new key id');
    assert.equal(openStored(plugin, storedValue(dataDir, keyOf('a')), keyOf('a')).keyId, 'key-1', 'not rewritten by a read');

    // 4. The plugin is down: the server starts; its check fails, writes and reads fail as upstream's.
    await plugin.stop();
    server = await start();
    const health = await server.request('GET', '/healthz?verbose');
    assert.equal(health.status, 500);
    assert.match(health.text, /\[-\]kms-providers failed: reason withheld/);
    const write = await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secretBody('d', 'plain-d') });
    assert.equal(write.status, 500, write.text);
    assert.deepEqual([write.json.reason, write.json.message], [undefined, 'got unexpected nil transformer'], 'no reason, as upstream\'s ErrorToAPIStatus');
    const failedWrites = { resource: 'secrets', status: 'unknown-non-grpc', transformation_type: 'to_storage', transformer_prefix: 'k8s:enc:kms:v2:vault:' };
    assert.equal(sample((await server.request('GET', '/metrics')).text, 'apiserver_storage_transformation_operations_total', failedWrites), 1, 'the failed write counted, not timed');
    const read = await server.request('GET', `/api/v1/namespaces/${ns}/secrets/a`);
    assert.equal(read.status, 500);
    assert.match(read.json.message, /corrupt object.*not transformable revision=0: got unexpected nil transformer$/);
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } } })).status, 201, 'other resources are not held up');
    // Back: the next check (a failed answer is kept 3 s) primes the provider.
    await plugin.start();
    const deadline = Date.now() + 30_000;
    while ((await server.request('GET', '/healthz/kms-providers')).status !== 200) {
      assert.ok(Date.now() < deadline, 'the provider recovers once its plugin is back');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secretBody('d', 'plain-d') })).status, 201);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/secrets/a`)).status, 200);
  } finally {
    await server?.stop();
    await plugin.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a plugin on a Linux abstract socket (`unix:///@name`) is reached as upstream reaches it', { skip: process.platform === 'linux' ? false : 'abstract sockets are Linux\'s' }, async () => {
  const dataDir = tempDir('plinth-kms-abstract-');
  const plugin = new KmsPlugin(dataDir, { abstract: `plinth-kms-${process.pid}-${Date.now()}` });
  await plugin.start();
  const configFile = writeKmsConfig(dataDir, plugin);
  const server = await startServer({ dataDir, storage: 'sqlite', encryptionProviderConfig: configFile });
  let ns: string;
  try {
    ns = await server.newNamespace('kms-abstract');
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secretBody('a', 'plain-a') })).status, 201);
    assert.equal(plugin.calls.encrypt, 1, 'the seed sealed by the plugin');
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/secrets/a`)).json.data.value, Buffer.from('plain-a').toString('base64'));
  } finally {
    await server.stop();
    await plugin.stop();
  }
  const key = `/registry/secrets/${ns}/a`;
  assert.equal(JSON.parse(openStored(plugin, storedValue(dataDir, key), key).plain).data.value, Buffer.from('plain-a').toString('base64'));
});

test('a followed configuration takes a KMS provider on without a restart; its check is there (a no-op) before', async (t) => {
  const dir = tempDir('plinth-kms-reload-');
  const plugin = new KmsPlugin(dir);
  await plugin.start();
  const file = path.join(dir, 'encryption.json');
  const aesgcm = { aesgcm: { keys: [{ name: 'key1', secret: Buffer.alloc(32, 1).toString('base64') }] } };
  const config = (providers: unknown[]) => JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers }] });
  const replace = (text: string) => {
    writeFileSync(`${file}.new`, text);
    renameSync(`${file}.new`, file);
  };
  writeFileSync(file, config([aesgcm]));
  const raw = new MemoryBackend();
  const server = await startServer({ encryptionProviderConfig: file, encryptionProviderConfigAutomaticReload: true }, { backend: raw });
  t.after(async () => {
    await server.stop();
    await plugin.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const create = async (name: string) => {
    const answer = await server.request('POST', '/api/v1/namespaces/default/secrets', { body: secretBody(name, name) });
    assert.equal(answer.status, 201, answer.text);
    return Buffer.from((await raw.get(`/registry/secrets/default/${name}`))!.value).toString('latin1');
  };
  assert.equal((await server.request('GET', '/healthz/kms-providers')).text, 'ok', 'present without KMS providers when the file is followed');
  assert.match(await create('a'), /^k8s:enc:aesgcm:v1:key1:/);

  replace(config([{ kms: { apiVersion: 'v2', name: 'vault', endpoint: plugin.endpoint } }, aesgcm]));
  await eventually(async () => assert.equal(plugin.calls.encrypt, 1, 'the new provider is primed'));
  await eventually(async () => assert.ok((await create(`b${Date.now()}`)).startsWith(prefix)));
  assert.equal((await server.request('GET', '/api/v1/namespaces/default/secrets/a')).json.data.value, Buffer.from('a').toString('base64'));
  assert.match((await server.request('GET', '/readyz?verbose')).text, /\[\+\]kms-providers ok/);
});
