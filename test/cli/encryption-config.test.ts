// --encryption-provider-config: upstream's EncryptionConfiguration, validated with upstream's messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { keyResourceResolver, loadEncryptionConfig, resourceTransformers, startKmsProviders } from '../../src/cli/encryption-config.ts';
import { parseServeFlags, UsageError } from '../../src/cli/config.ts';
import { tempDir } from '../helpers/server.ts';

const key32 = Buffer.alloc(32, 1).toString('base64');
const key8 = Buffer.alloc(8, 1).toString('base64');
const dir = tempDir('plinth-enc-');
let files = 0;
function file(content: string): string {
  const at = path.join(dir, `config-${++files}.yaml`);
  writeFileSync(at, content);
  return at;
}
const header = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n';

test('--encryption-provider-config names the file', () => {
  assert.equal(parseServeFlags(['--encryption-provider-config', '/etc/enc.yaml']).encryptionProviderConfig, '/etc/enc.yaml');
  assert.equal(parseServeFlags([]).encryptionProviderConfig, undefined);
});

test('invalid configurations are refused with kube-apiserver\'s messages', async () => {
  const cases: Array<[string, string, string]> = [
    ['no resources', `${header}resources: []\n`, 'error while parsing file: resources: Required value: at least one resources is required'],
    ['a key of the wrong length', `${header}resources:\n- resources: [secrets]\n  providers:\n  - aescbc:\n      keys: [{name: k, secret: ${key8}}]\n`,
      'error while parsing file: resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]'],
    ['secretbox wants 32 bytes', `${header}resources:\n- resources: [secrets]\n  providers:\n  - secretbox:\n      keys: [{name: k, secret: ${Buffer.alloc(16).toString('base64')}}]\n`,
      'error while parsing file: resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]'],
    ['no keys', `${header}resources:\n- resources: [secrets]\n  providers:\n  - aesgcm: {keys: []}\n`,
      'error while parsing file: resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required'],
    ['secret not base64', `${header}resources:\n- resources: [secrets]\n  providers:\n  - aesgcm: {keys: [{name: k, secret: "not base64!"}]}\n`,
      'error while parsing file: resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded'],
    ['two providers in one element', `${header}resources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n    aesgcm: {keys: [{name: k, secret: ${key32}}]}\n`,
      `error while parsing file: resources[0].providers[0]: Invalid value: {"AESGCM":{"Keys":[{"Name":"k","Secret":"${key32}"}]},"AESCBC":null,"Secretbox":null,"Identity":{},"KMS":null}: more than one provider specified in a single element, should split into different list elements`],
    ['an element without a provider', `${header}resources:\n- resources: [secrets]\n  providers:\n  - {}\n`,
      'error while parsing file: resources[0].providers[0]: Invalid value: {"AESGCM":null,"AESCBC":null,"Secretbox":null,"Identity":null,"KMS":null}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity'],
    ['a KMS provider with another, after v1 defaults', `${header}resources:\n- resources: [secrets]\n  providers:\n  - identity: {}\n    kms: {name: k, endpoint: "unix:///k.sock"}\n`,
      'error while parsing file: resources[0].providers[0]: Invalid value: {"AESGCM":null,"AESCBC":null,"Secretbox":null,"Identity":{},"KMS":{"APIVersion":"v1","Name":"k","CacheSize":1000,"Endpoint":"unix:///k.sock","Timeout":"3s"}}: more than one provider specified in a single element, should split into different list elements'],
    ['a bare star', `${header}resources:\n- resources: ["*"]\n  providers: [{identity: {}}]\n`,
      'error while parsing file: resources[0].resources[0]: Invalid value: "*": use \'*.\' to encrypt all the resources from core API group or *.* to encrypt all resources'],
    ['overlap and capitals', `${header}resources:\n- resources: [secrets, "*.", Secrets]\n  providers: [{identity: {}}]\n`,
      'error while parsing file: [resources[0].resources: Invalid value: ["secrets","*.","Secrets"]: using overlapping resources such as \'secrets\' and \'*.\' in the same resource list is not allowed as they will be masked, resources[0].resources[2]: Invalid value: "Secrets": resource name should not contain capital letters]'],
    ['not an EncryptionConfiguration', 'apiVersion: v1\nkind: ConfigMap\n', 'error decoding encryption provider configuration file'],
    ['empty', '', 'is empty'],
  ];
  for (const [name, content, message] of cases) {
    await assert.rejects(loadEncryptionConfig(file(content)), (err: Error) => err instanceof UsageError && err.message.includes(message), name);
  }
  await assert.rejects(loadEncryptionConfig(path.join(dir, 'missing.yaml')), /error opening encryption provider configuration file/);
});

test('KMS providers are validated as upstream validates them, and v1 providers refused as upstream refuses them with KMSv1 off', async () => {
  const kms = (...providers: string[]) => `${header}resources:\n- resources: [secrets]\n  providers:\n${providers.map((p) => `  - kms: ${p}\n`).join('')}`;
  const at = 'resources[0].providers[0].kms';
  const cases: Array<[string, string, string]> = [
    ['no name, no endpoint', kms('{apiVersion: v2}'),
      `error while parsing file: [${at}.name: Required value: name is a mandatory field for a provider, ${at}.endpoint: Invalid value: "": endpoint is a mandatory field for a kms]`],
    ['a colon in a v2 name', kms('{apiVersion: v2, name: "a:b", endpoint: "unix:///k.sock"}'),
      `error while parsing file: ${at}.name: Invalid value: "a:b": invalid KMS provider name a:b, must not contain ':'`],
    ['a duplicate v2 name', kms('{apiVersion: v2, name: a, endpoint: "unix:///k.sock"}', '{apiVersion: v2, name: a, endpoint: "unix:///k.sock"}'),
      'error while parsing file: resources[0].providers[1].kms.name: Invalid value: "a": duplicate KMS provider name a, names must be unique'],
    ['a timeout that is not positive', kms('{apiVersion: v2, name: a, endpoint: "unix:///k.sock", timeout: 0s}'),
      `error while parsing file: ${at}.timeout: Invalid value: "0s": timeout should be a positive value`],
    ['a negative timeout', kms('{apiVersion: v2, name: a, endpoint: "unix:///k.sock", timeout: -90s}'),
      `error while parsing file: ${at}.timeout: Invalid value: "-1m30s": timeout should be a positive value`],
    ['a timeout Go cannot parse', kms('{apiVersion: v2, name: a, endpoint: "unix:///k.sock", timeout: soon}'), 'time: invalid duration "soon"'],
    ['another scheme', kms('{apiVersion: v2, name: a, endpoint: "tcp://127.0.0.1:1"}'),
      `error while parsing file: ${at}.endpoint: Invalid value: "tcp://127.0.0.1:1": unsupported scheme "tcp" for KMS provider, only unix is supported`],
    ['no scheme', kms('{apiVersion: v2, name: a, endpoint: "/k.sock"}'),
      `error while parsing file: ${at}.endpoint: Invalid value: "/k.sock": unsupported scheme "" for KMS provider, only unix is supported`],
    ['a cache size in v2', kms('{apiVersion: v2, name: a, endpoint: "unix:///k.sock", cachesize: 10}'),
      `error while parsing file: ${at}.cachesize: Invalid value: 10: cachesize is not supported in v2`],
    ['an unknown version', kms('{apiVersion: v3, name: a, endpoint: "unix:///k.sock"}'),
      `error while parsing file: ${at}.apiVersion: Invalid value: "v3": unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported`],
    ['a v1 cache size of 0', kms('{name: a, endpoint: "unix:///k.sock", cachesize: 0}'),
      `error while parsing file: ${at}.cachesize: Invalid value: 0: cachesize should be a positive value, or negative to disable`],
  ];
  for (const [name, content, message] of cases) {
    await assert.rejects(loadEncryptionConfig(file(content)), (err: Error) => err instanceof UsageError && err.message.includes(message), `${name}: ${message}`);
  }
  // v1 names may repeat, unless the file is followed.
  const v1Twice = file(kms('{name: a, endpoint: "unix:///k.sock"}', '{name: a, endpoint: "unix:///k.sock"}'));
  const loaded = await loadEncryptionConfig(v1Twice);
  assert.deepEqual(loaded.resources[0]!.providers[0], { kind: 'kms', apiVersion: 'v1', name: 'a', cachesize: 1000, endpoint: 'unix:///k.sock', timeoutMs: 3000 });
  await assert.rejects(loadEncryptionConfig(v1Twice, true), /resources\[0\]\.providers\[1\]\.kms\.name: Invalid value: "a": duplicate KMS provider name a, names must be unique/);
  const connect = async () => assert.fail('a v1 provider is never connected');
  await assert.rejects(startKmsProviders(loaded, connect, () => {}), (err: Error) => err instanceof UsageError
    && err.message === 'error while building transformers: KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.');
  await assert.rejects(startKmsProviders(loaded, connect, () => {}, undefined, true), (err: Error) => err instanceof UsageError
    && err.message === 'error while building transformers: KMS v1 providers are not supported by Plinth (provider "a"): use apiVersion v2', 'with the gate on: refused all the same, in Plinth\'s words');
});

test('each resource gets the first entry naming it: exact, then group wildcard, then *.*; others the identity check', async () => {
  const config = await loadEncryptionConfig(file(`${header}resources:
- resources: [secrets, deployments.apps]
  providers: [{aescbc: {keys: [{name: a, secret: ${key32}}]}}]
- resources: ["*.apps", "*."]
  providers: [{aesgcm: {keys: [{name: g, secret: ${key32}}]}}]
- resources: ["*.*"]
  providers: [{secretbox: {keys: [{name: s, secret: ${key32}}]}}, {identity: {}}]
`));
  const forResource = resourceTransformers(config);
  const prefixOf = (group: string, resource: string) => Buffer.from(forResource({ group, resource }).toStorage(Buffer.from('{}'), '/k')).toString().slice(0, 25);
  const cases: Array<[string, string, string]> = [
    ['', 'secrets', 'k8s:enc:aescbc:v1:a:'],
    ['apps', 'deployments', 'k8s:enc:aescbc:v1:a:'],
    ['apps', 'replicasets', 'k8s:enc:aesgcm:v1:g:'],
    ['', 'configmaps', 'k8s:enc:aesgcm:v1:g:'],
    ['example.com', 'widgets', 'k8s:enc:secretbox:v1:s:'],
  ];
  for (const [group, resource, prefix] of cases) assert.ok(prefixOf(group, resource).startsWith(prefix), `${group}/${resource}`);
  const onlySecrets = resourceTransformers(await loadEncryptionConfig(file(`${header}resources:\n- resources: [secrets]\n  providers: [{aesgcm: {keys: [{name: g, secret: ${key32}}]}}]\n`)));
  assert.equal(Buffer.from(onlySecrets({ group: '', resource: 'configmaps' }).toStorage(Buffer.from('{}'), '/k')).toString(), '{}');
  assert.throws(() => onlySecrets({ group: '', resource: 'configmaps' }).fromStorage(Buffer.from('k8s:enc:aesgcm:v1:g:x'), '/k'), /identity transformer tried to read encrypted data/);
});

test('providers nest their keys as upstream does: a key the configuration lacks is upstream\'s "no matching key" error, and every step is observed as its metrics count it', async () => {
  const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
  const load = (providers: string) => loadEncryptionConfig(file(`${header}resources:\n- resources: [secrets]\n  providers: ${providers}\n`));
  const calls: string[] = [];
  const observe = (type: string, prefix: string, _seconds: number, error?: Error) => calls.push(`${type} ${prefix} ${error === undefined ? 'OK' : error.message}`);
  const write = (providers: string) => load(providers).then((config) => resourceTransformers(config, undefined, observe)({ group: '', resource: 'secrets' }));
  const plain = Buffer.from('{"kind":"Secret"}');
  const byKey1 = (await write(`[{aescbc: {keys: [{name: key1, secret: ${key(1)}}]}}]`)).toStorage(plain, '/k');
  const bySecretbox = (await write(`[{secretbox: {keys: [{name: key1, secret: ${key(1)}}]}}]`)).toStorage(plain, '/k');
  assert.deepEqual(calls.splice(0), ['to_storage key1: OK', 'to_storage k8s:enc:aescbc:v1: OK', 'to_storage key1: OK', 'to_storage k8s:enc:secretbox:v1: OK'], 'each level records its own prefix');
  const cases: Array<[string, string, Uint8Array, string, string[]]> = [
    ['the key is there', `[{aescbc: {keys: [{name: key2, secret: ${key(2)}}, {name: key1, secret: ${key(1)}}]}}]`, byKey1, plain.toString(),
      ['from_storage key1: OK', 'from_storage k8s:enc:aescbc:v1: OK']],
    ['the key was removed, identity kept', `[{aescbc: {keys: [{name: key2, secret: ${key(2)}}]}}, {identity: {}}]`, byKey1, 'no matching key was found for the provided AES transformer',
      ['from_storage unknown no matching key was found for the provided AES transformer', 'from_storage k8s:enc:aescbc:v1: no matching key was found for the provided AES transformer']],
    ['a secretbox key removed', `[{secretbox: {keys: [{name: key2, secret: ${key(2)}}]}}]`, bySecretbox, 'no matching key was found for the provided Secretbox transformer',
      ['from_storage unknown no matching key was found for the provided Secretbox transformer', 'from_storage k8s:enc:secretbox:v1: no matching key was found for the provided Secretbox transformer']],
    ['the provider was removed', `[{aesgcm: {keys: [{name: key1, secret: ${key(1)}}]}}, {identity: {}}]`, byKey1, 'no matching prefix found', ['from_storage unknown no matching prefix found']],
    ['plain data through identity', `[{aesgcm: {keys: [{name: key1, secret: ${key(1)}}]}}, {identity: {}}]`, plain, plain.toString(), ['from_storage identity OK']],
  ];
  for (const [name, providers, stored, expected, observed] of cases) {
    const transformer = await write(providers);
    let got: string;
    try {
      got = Buffer.from(await transformer.fromStorage(stored, '/k')).toString();
    } catch (err) {
      got = (err as Error).message;
    }
    assert.equal(got, expected, name);
    assert.deepEqual(calls.splice(0), observed, name);
  }
  // An identity provider first writes without a prefix, and says so with an empty one (upstream's label for it on reads is `identity`).
  assert.equal((await write(`[{identity: {}}, {aescbc: {keys: [{name: key1, secret: ${key(1)}}]}}]`)).toStorage(plain, '/k'), plain);
  assert.deepEqual(calls.splice(0), ['to_storage  OK']);
});

test('a storage key is resolved to its group and resource', () => {
  const resolve = keyResourceResolver([
    { prefix: '/registry/secrets/', group: '', resource: 'secrets' },
    { prefix: '/registry/apps/deployments/', group: 'apps', resource: 'deployments' },
  ]);
  const cases: Array<[string, unknown]> = [
    ['/registry/secrets/ns/a', { group: '', resource: 'secrets' }],
    ['/registry/apps/deployments/ns/d', { group: 'apps', resource: 'deployments' }],
    ['/registry/example.com/widgets/ns/w', { group: 'example.com', resource: 'widgets' }],
    ['/other/key', undefined],
  ];
  for (const [key, expected] of cases) assert.deepEqual(resolve(key), expected, key);
});
