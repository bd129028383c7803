// --encryption-provider-config-automatic-reload: a changed EncryptionConfiguration replaces
// the providers without a restart (the next writes use the new first provider, the old key
// still reads); one that does not load is counted as a failure and the providers stay.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MemoryBackend } from '../../src/storage/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { sample } from '../helpers/metrics.ts';
import { startServer, tempDir } from '../helpers/server.ts';

const key = (name: string, fill: number) => ({ name, secret: Buffer.alloc(32, fill).toString('base64') });
const config = (providers: unknown[]) => JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers }] });

test('a changed encryption configuration is used from then on; one that does not load is not', async (t) => {
  const dir = tempDir('plinth-enc-reload-');
  const file = path.join(dir, 'encryption.json');
  const replace = (text: string) => {
    writeFileSync(`${file}.new`, text);
    renameSync(`${file}.new`, file);
  };
  writeFileSync(file, config([{ aescbc: { keys: [key('key1', 1)] } }]));
  const raw = new MemoryBackend();
  const server = await startServer({ encryptionProviderConfig: file, encryptionProviderConfigAutomaticReload: true }, { backend: raw });
  t.after(() => server.stop());
  const create = async (name: string) => {
    const answer = await server.request('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { value: name } } });
    assert.equal(answer.status, 201, answer.text);
    return Buffer.from((await raw.get(`/registry/secrets/default/${name}`))!.value).toString('latin1');
  };
  const reloads = async (status: string) => sample((await server.request('GET', '/metrics')).text, 'apiserver_encryption_config_controller_automatic_reloads_total', { status });
  assert.match(await create('a'), /^k8s:enc:aescbc:v1:key1:/);

  replace(config([{ aesgcm: { keys: [key('key2', 2)] } }, { aescbc: { keys: [key('key1', 1)] } }]));
  await eventually(async () => assert.equal(await reloads('success'), 1));
  assert.match(await create('b'), /^k8s:enc:aesgcm:v1:key2:/);
  assert.equal((await server.request('GET', '/api/v1/namespaces/default/secrets/a')).json.data.value, Buffer.from('a').toString('base64'));

  replace(config([{ aesgcm: { keys: [{ name: 'short', secret: 'c2hvcnQ=' }] } }]));
  await eventually(async () => assert.equal(await reloads('failure'), 1));
  assert.match(await create('c'), /^k8s:enc:aesgcm:v1:key2:/);
});
