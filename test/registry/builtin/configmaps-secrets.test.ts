import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { objectFieldSet } from '../../../src/registry/selection.ts';
import { builtinType, fields, storeCreate, storeUpdate, withoutServerMeta } from '../../helpers/store.ts';

const configmaps = builtinType('configmaps');
const secrets = builtinType('secrets');

const keyRule = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

function configMap(body: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default' }, ...body };
}

function secret(body: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, ...body };
}

const keyCases: { name: string; data: Record<string, string>; causes: string[] }[] = [
  { name: 'ordinary keys are fine', data: { 'app.properties': 'x', KEY_1: 'y', '-x': 'z' }, causes: [] },
  { name: 'a slash is not allowed', data: { 'a/b': 'x' }, causes: [`data[a/b]: Invalid value: "a/b": ${keyRule}`] },
  { name: 'a key may not be ".."', data: { '..': 'x' }, causes: ['data[..]: Invalid value: "..": must not be \'..\''] },
  { name: 'a key may not start with ".."', data: { '..a': 'x' }, causes: ['data[..a]: Invalid value: "..a": must not start with \'..\''] },
];

for (const c of keyCases) {
  test(`ConfigMap keys: ${c.name}`, async () => {
    assert.deepEqual(fields((await storeCreate(configmaps, configMap({ data: c.data }))).causes), c.causes);
  });
  test(`Secret keys: ${c.name}`, async () => {
    const data = Object.fromEntries(Object.entries(c.data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
    assert.deepEqual(fields((await storeCreate(secrets, secret({ data }))).causes), c.causes);
  });
}

test('a ConfigMap key may not be in both data and binaryData', async () => {
  assert.deepEqual(fields((await storeCreate(configmaps, configMap({ data: { a: 'x' }, binaryData: { a: 'eA==' } }))).causes), [
    'data[a]: Invalid value: "a": duplicate of key present in binaryData',
  ]);
});

test('a ConfigMap over 1 MiB is too long', async () => {
  assert.deepEqual(fields((await storeCreate(configmaps, configMap({ data: { a: 'x'.repeat(1024 * 1024 + 1) } }))).causes), [': Too long: may not be more than 1048576 bytes']);
});

const immutableCases: { name: string; change: (cm: KubeObject) => void; causes: string[] }[] = [
  { name: 'labels may still change', change: (cm) => { cm.metadata.labels = { a: 'b' }; }, causes: [] },
  { name: 'data may not change', change: (cm) => { cm.data = { k: 'v2' }; }, causes: ['data: Forbidden: field is immutable when `immutable` is set'] },
  { name: 'binaryData may not change', change: (cm) => { cm.binaryData = { b: 'eQ==' }; }, causes: ['binaryData: Forbidden: field is immutable when `immutable` is set'] },
  { name: 'immutable may not be unset', change: (cm) => { cm.immutable = false; }, causes: ['immutable: Forbidden: field is immutable when `immutable` is set'] },
];

for (const c of immutableCases) {
  test(`an immutable ConfigMap: ${c.name}`, async () => {
    const old = (await storeCreate(configmaps, configMap({ data: { k: 'v' }, immutable: true }))).obj;
    const next = structuredClone(old);
    c.change(next);
    assert.deepEqual(fields((await storeUpdate(configmaps, next, old)).causes), c.causes);
  });
}

test('a mutable ConfigMap may be made immutable and its data changed at once', async () => {
  const old = (await storeCreate(configmaps, configMap({ data: { k: 'v' } }))).obj;
  const next = structuredClone(old);
  next.data = { k: 'v2' };
  next.immutable = true;
  assert.deepEqual((await storeUpdate(configmaps, next, old)).causes, []);
});

test('a Secret defaults to type Opaque and turns stringData into data', async () => {
  const { obj, causes } = await storeCreate(secrets, secret({ stringData: { password: 'hunter2' }, data: { user: 'YWRtaW4=' } }));
  assert.deepEqual(causes, []);
  assert.deepEqual(withoutServerMeta(obj), {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'default' },
    type: 'Opaque',
    data: { user: 'YWRtaW4=', password: 'aHVudGVyMg==' },
  });
});

const typeCases: { type: string; data: Record<string, string>; annotations?: Record<string, string>; causes: string[] }[] = [
  { type: 'kubernetes.io/tls', data: {}, causes: ['data[tls.crt]: Required value', 'data[tls.key]: Required value'] },
  { type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' }, causes: [] },
  { type: 'kubernetes.io/basic-auth', data: {}, causes: ['data[username]: Required value', 'data[password]: Required value'] },
  { type: 'kubernetes.io/basic-auth', data: { username: '' }, causes: [] },
  { type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' }, causes: ['data[ssh-privatekey]: Required value'] },
  { type: 'kubernetes.io/dockerconfigjson', data: {}, causes: ['data[.dockerconfigjson]: Required value'] },
  { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': Buffer.from('{"auths":{}}').toString('base64') }, causes: [] },
  { type: 'kubernetes.io/service-account-token', data: {}, causes: ['metadata.annotations[kubernetes.io/service-account.name]: Required value'] },
  { type: 'kubernetes.io/service-account-token', data: {}, annotations: { 'kubernetes.io/service-account.name': 'default' }, causes: [] },
  { type: 'example.com/custom', data: {}, causes: [] },
];

for (const c of typeCases) {
  test(`a Secret of type ${c.type} with ${JSON.stringify(Object.keys(c.data))} ${c.causes.length === 0 ? 'is valid' : 'is invalid'}`, async () => {
    const s = secret({ type: c.type, data: c.data });
    if (c.annotations) s.metadata.annotations = c.annotations;
    assert.deepEqual(fields((await storeCreate(secrets, s)).causes), c.causes);
  });
}

test('a Secret\'s type is immutable', async () => {
  const old = (await storeCreate(secrets, secret({ data: { a: 'eA==' } }))).obj;
  const next = structuredClone(old);
  next.type = 'example.com/other';
  assert.deepEqual(fields((await storeUpdate(secrets, next, old)).causes), ['type: Invalid value: "example.com/other": field is immutable']);
});

test('an immutable Secret refuses data changes, including through stringData', async () => {
  const old = (await storeCreate(secrets, secret({ data: { a: 'eA==' }, immutable: true }))).obj;
  const next = structuredClone(old);
  next.stringData = { a: 'y' };
  assert.deepEqual(fields((await storeUpdate(secrets, next, old)).causes), ['data: Forbidden: field is immutable when `immutable` is set']);
});

test('a Secret exposes type to field selectors', async () => {
  const { obj } = await storeCreate(secrets, secret({}));
  assert.deepEqual(objectFieldSet(secrets, obj), { 'metadata.name': 's', 'metadata.namespace': 'default', type: 'Opaque' });
});

test('an immutable ConfigMap refuses a new key even with an empty value', async () => {
  const old = (await storeCreate(configmaps, configMap({ data: { k: 'v' }, immutable: true }))).obj;
  const next = structuredClone(old);
  next.data = { k: 'v', extra: '' };
  assert.deepEqual(fields((await storeUpdate(configmaps, next, old)).causes), ['data: Forbidden: field is immutable when `immutable` is set']);
});
