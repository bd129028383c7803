// The REST surface through real HTTPS: verbs, object rules and bad input.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const newNamespace = () => server.newNamespace('e2e');

function configMap(name: string, data: Record<string, string> = { a: '1' }) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

describe('verbs', () => {
  test('POST answers 201 with the stored object, GET returns it', async () => {
    const ns = await newNamespace();
    const created = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c1') });
    assert.equal(created.status, 201);
    const obj = created.json;
    assert.equal(obj.metadata.name, 'c1');
    assert.equal(obj.metadata.namespace, ns);
    assert.match(obj.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(obj.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(obj.metadata.resourceVersion, /^\d+$/);
    const got = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/c1`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json, obj);
  });

  test('GET answers JSON from the cache and YAML when asked, the same object either way', async () => {
    const ns = await newNamespace();
    const created = (await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('y', { k: 'v' }) })).json;
    const json = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/y`);
    assert.equal(json.headers['content-type'], 'application/json');
    assert.deepEqual(json.json, created);
    const yaml = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/y`, { headers: { accept: 'application/yaml' } });
    assert.equal(yaml.status, 200);
    assert.equal(yaml.headers['content-type'], 'application/yaml');
    assert.match(yaml.text, /^kind: ConfigMap$/m);
    assert.match(yaml.text, new RegExp(`resourceVersion: "${created.metadata.resourceVersion}"`));
  });

  test('PUT with the current resourceVersion updates; a stale one answers 409', async () => {
    const ns = await newNamespace();
    const created = (await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c') })).json;
    const updated = await server.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, { body: { ...created, data: { a: '2' } } });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.data.a, '2');
    assert.notEqual(updated.json.metadata.resourceVersion, created.metadata.resourceVersion);
    const stale = await server.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, { body: { ...created, data: { a: '3' } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.reason, 'Conflict');
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).json.data.a, '2');
  });

  test('PUT of a missing configmap answers 404 (no create-on-update)', async () => {
    const ns = await newNamespace();
    const res = await server.request('PUT', `/api/v1/namespaces/${ns}/configmaps/missing`, { body: configMap('missing') });
    assert.equal(res.status, 404);
  });

  test('a no-op PUT keeps the resourceVersion', async () => {
    const ns = await newNamespace();
    const created = (await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c') })).json;
    const same = await server.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c`, { body: created });
    assert.equal(same.status, 200);
    assert.equal(same.json.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  test('merge patch: null deletes, other values merge', async () => {
    const ns = await newNamespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c', { a: '1', b: '2' }) });
    const res = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c`, {
      raw: JSON.stringify({ metadata: { labels: { x: 'y' } }, data: { a: null, c: '3' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.data, { b: '2', c: '3' });
    assert.deepEqual(res.json.metadata.labels, { x: 'y' });
  });

  test('a stale resourceVersion in a merge patch answers 409', async () => {
    const ns = await newNamespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c') });
    const res = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c`, {
      raw: JSON.stringify({ metadata: { resourceVersion: '1' }, data: { a: 'x' } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(res.status, 409);
  });

  test('DELETE answers a Success Status; the name is free again', async () => {
    const ns = await newNamespace();
    const created = (await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c') })).json;
    const res = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/c`);
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'Status');
    assert.equal(res.json.status, 'Success');
    assert.deepEqual(res.json.details, { name: 'c', kind: 'configmaps', uid: created.metadata.uid });
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status, 404);
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c') })).status, 201);
  });

  test('DELETE of a pod answers the pod itself', async () => {
    const ns = await newNamespace();
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod })).status, 201);
    const res = await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/p`);
    assert.equal(res.status, 200);
    assert.equal(res.json.kind, 'Pod');
    assert.equal(res.json.metadata.name, 'p');
  });

  test('deletecollection deletes what the label selector matches', async () => {
    const ns = await newNamespace();
    for (const [name, app] of [['a', 'x'], ['b', 'x'], ['c', 'y']]) {
      await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { ...configMap(name!), metadata: { name, labels: { app } } } });
    }
    const res = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=app%3Dx`);
    assert.equal(res.status, 200, res.text);
    const left = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json;
    assert.deepEqual(left.items.map((i: any) => i.metadata.name), ['c']);
  });

  test('list across all namespaces and with field selectors', async () => {
    const ns1 = await newNamespace();
    const ns2 = await newNamespace();
    await server.request('POST', `/api/v1/namespaces/${ns1}/configmaps`, { body: configMap('shared') });
    await server.request('POST', `/api/v1/namespaces/${ns2}/configmaps`, { body: configMap('shared') });
    const all = (await server.request('GET', `/api/v1/configmaps?fieldSelector=metadata.name%3Dshared`)).json;
    assert.equal(all.kind, 'ConfigMapList');
    assert.deepEqual(all.items.map((i: any) => i.metadata.namespace).sort(), [ns1, ns2].sort());
    const one = (await server.request('GET', `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${ns1}`)).json;
    assert.deepEqual(one.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`), [`${ns1}/shared`]);
  });

  test('label selector operators on list', async () => {
    const ns = await newNamespace();
    const labels: Record<string, Record<string, string>> = { a: { tier: 'web', env: 'prod' }, b: { tier: 'db' }, c: {} };
    for (const [name, l] of Object.entries(labels)) {
      await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { ...configMap(name), metadata: { name, labels: l } } });
    }
    const cases: [string, string[]][] = [
      ['tier=web', ['a']], ['tier==web', ['a']], ['tier!=web', ['b', 'c']], ['tier in (web,db)', ['a', 'b']],
      ['tier notin (web)', ['b', 'c']], ['env', ['a']], ['!env', ['b', 'c']], ['tier,!env', ['b']],
    ];
    for (const [selector, want] of cases) {
      const res = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=${encodeURIComponent(selector)}`);
      assert.equal(res.status, 200, `${selector}: ${res.text}`);
      assert.deepEqual(res.json.items.map((i: any) => i.metadata.name), want, selector);
    }
  });

  test('limit and continue page through a list at one revision', async () => {
    const ns = await newNamespace();
    for (let i = 0; i < 5; i++) await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(`c${i}`) });
    const first = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2`)).json;
    assert.deepEqual(first.items.map((i: any) => i.metadata.name), ['c0', 'c1']);
    assert.equal(first.metadata.remainingItemCount, 3);
    assert.ok(first.metadata.continue);
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c9') });
    const second = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2&continue=${first.metadata.continue}`)).json;
    assert.deepEqual(second.items.map((i: any) => i.metadata.name), ['c2', 'c3']);
    assert.equal(second.metadata.resourceVersion, first.metadata.resourceVersion);
    const third = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2&continue=${second.metadata.continue}`)).json;
    assert.deepEqual(third.items.map((i: any) => i.metadata.name), ['c4'], 'the object created after the first chunk is not in this list');
    assert.equal(third.metadata.continue, undefined);
    assert.equal(third.metadata.remainingItemCount, undefined);
  });

  test('generateName gives a unique name', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { ...configMap(''), metadata: { generateName: 'gen-' } } });
    assert.equal(res.status, 201, res.text);
    assert.match(res.json.metadata.name, /^gen-[a-z0-9]{5}$/);
  });

  test('an update that sets generateName has it checked, by the path-segment rule and then the type\'s', async () => {
    const ns = await newNamespace();
    const created = (await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('g') })).json;
    const res = await server.request('PUT', `/api/v1/namespaces/${ns}/configmaps/g`, { body: { ...created, metadata: { ...created.metadata, generateName: 'a/B-' } } });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message.split(':')[1]}`), [
      'metadata.generateName:  "a/B-"', 'metadata.generateName:  "a/B-"',
    ]);
    assert.match(res.json.message, /^ConfigMap "g" is invalid: \[metadata\.generateName: Invalid value: "a\/B-": may not contain '\/', metadata\.generateName: Invalid value: "a\/B-": a lowercase RFC 1123 subdomain/);
    const fine = await server.request('PUT', `/api/v1/namespaces/${ns}/configmaps/g`, { body: { ...created, metadata: { ...created.metadata, generateName: 'g-' } } });
    assert.equal(fine.status, 200, fine.text);
    assert.equal(fine.json.metadata.generateName, 'g-');
  });
});

describe('object rules', () => {
  test('creating an existing name answers 409 AlreadyExists', async () => {
    const ns = await newNamespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('dup') });
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('dup') });
    assert.equal(res.status, 409);
    assert.equal(res.json.reason, 'AlreadyExists');
    assert.equal(res.json.message, 'configmaps "dup" already exists');
  });

  test('a missing object answers 404 NotFound', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default/configmaps/nope');
    assert.equal(res.status, 404);
    assert.equal(res.json.reason, 'NotFound');
    assert.equal(res.json.message, 'configmaps "nope" not found');
  });

  test('an invalid name answers 422 with causes', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('Bad_Name') });
    assert.equal(res.status, 422);
    assert.equal(res.json.reason, 'Invalid');
    assert.equal(res.json.details.causes[0].field, 'metadata.name');
  });

  test('kind or apiVersion that contradict the URL answer 400', async () => {
    const ns = await newNamespace();
    const wrongKind = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { ...configMap('x'), kind: 'Secret' } });
    assert.equal(wrongKind.status, 400);
    const wrongVersion = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { ...configMap('x'), apiVersion: 'apps/v1' } });
    assert.equal(wrongVersion.status, 400);
  });

  test('a body namespace that differs from the URL answers 400', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { ...configMap('x'), metadata: { name: 'x', namespace: 'other' } } });
    assert.equal(res.status, 400);
    assert.equal(res.json.reason, 'BadRequest');
  });

  test('creating in a missing namespace answers 404', async () => {
    const res = await server.request('POST', '/api/v1/namespaces/does-not-exist/configmaps', { body: configMap('x') });
    assert.equal(res.status, 404);
    assert.equal(res.json.message, 'namespaces "does-not-exist" not found');
  });

  test('uid and creationTimestamp sent by the client are replaced', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: { ...configMap('x'), metadata: { name: 'x', uid: 'mine', creationTimestamp: '2000-01-01T00:00:00Z' } },
    });
    assert.equal(res.status, 201, res.text);
    assert.notEqual(res.json.metadata.uid, 'mine');
    assert.notEqual(res.json.metadata.creationTimestamp, '2000-01-01T00:00:00Z');
  });

  test('the system namespaces exist after start', async () => {
    const list = (await server.request('GET', '/api/v1/namespaces')).json;
    const names = list.items.map((i: any) => i.metadata.name);
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(names.includes(ns), ns);
  });
});

describe('bad input answers a Status and changes nothing', () => {
  const cases: { name: string; method: string; path: (ns: string) => string; opts?: any; status: number; reason: string }[] = [
    { name: 'malformed JSON is 400', method: 'POST', path: (ns) => `/api/v1/namespaces/${ns}/configmaps`, opts: { raw: '{"metadata": ', headers: { 'content-type': 'application/json' } }, status: 400, reason: 'BadRequest' },
    { name: 'a body over 3 MiB is 413', method: 'POST', path: (ns) => `/api/v1/namespaces/${ns}/configmaps`, opts: { raw: JSON.stringify(configMap('big', { a: 'x'.repeat(3.5 * 1024 * 1024) })), headers: { 'content-type': 'application/json' } }, status: 413, reason: 'RequestEntityTooLarge' },
    { name: 'an unknown resource is 404', method: 'GET', path: (ns) => `/api/v1/namespaces/${ns}/widgets`, status: 404, reason: 'NotFound' },
    { name: 'an unknown resource of a built-in group is 404', method: 'GET', path: () => '/apis/apps/v1/things', status: 404, reason: 'NotFound' },
    { name: 'an unsupported verb is 405', method: 'POST', path: () => '/api/v1/configmaps', opts: { body: configMap('x') }, status: 405, reason: 'MethodNotAllowed' },
    { name: 'an unsupported Content-Type is 415', method: 'POST', path: (ns) => `/api/v1/namespaces/${ns}/configmaps`, opts: { raw: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, status: 415, reason: 'UnsupportedMediaType' },
    { name: 'no credentials is system:anonymous, whom RBAC refuses: 403', method: 'GET', path: (ns) => `/api/v1/namespaces/${ns}/configmaps`, opts: { anonymous: true }, status: 403, reason: 'Forbidden' },
    { name: 'a wrong token is 401', method: 'GET', path: () => '/api/v1/namespaces', opts: { token: 'wrong' }, status: 401, reason: 'Unauthorized' },
    { name: 'dryRun=Foo is 422', method: 'POST', path: (ns) => `/api/v1/namespaces/${ns}/configmaps?dryRun=Foo`, opts: { body: configMap('x') }, status: 422, reason: 'Invalid' },
    { name: 'a garbage protobuf body is 400', method: 'POST', path: (ns) => `/api/v1/namespaces/${ns}/configmaps`, opts: { raw: Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0xff, 0x01]), headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } }, status: 400, reason: 'BadRequest' },
    { name: 'a body that is not an object is 400', method: 'POST', path: (ns) => `/api/v1/namespaces/${ns}/configmaps`, opts: { raw: '[1,2]', headers: { 'content-type': 'application/json' } }, status: 400, reason: 'BadRequest' },
    { name: 'a non-string name is 400', method: 'POST', path: (ns) => `/api/v1/namespaces/${ns}/configmaps`, opts: { body: { metadata: { name: 5 } } }, status: 400, reason: 'BadRequest' },
    { name: 'an unparsable label selector is 400', method: 'GET', path: (ns) => `/api/v1/namespaces/${ns}/configmaps?labelSelector=a%20in%20(`, status: 400, reason: 'BadRequest' },
    { name: 'an unsupported field selector is 400', method: 'GET', path: (ns) => `/api/v1/namespaces/${ns}/configmaps?fieldSelector=spec.foo%3Dx`, status: 400, reason: 'BadRequest' },
    { name: 'a malformed continue token is 400', method: 'GET', path: (ns) => `/api/v1/namespaces/${ns}/configmaps?limit=1&continue=garbage`, status: 400, reason: 'BadRequest' },
    { name: 'Accept application/* is 406', method: 'GET', path: (ns) => `/api/v1/namespaces/${ns}/configmaps`, opts: { headers: { accept: 'application/*' } }, status: 406, reason: 'NotAcceptable' },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const ns = await newNamespace();
      const before = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json.items.length;
      const res = await server.request(c.method, c.path(ns), c.opts);
      assert.equal(res.status, c.status, res.text);
      assert.equal(res.json.kind, 'Status');
      assert.equal(res.json.status, 'Failure');
      assert.equal(res.json.reason, c.reason);
      assert.equal(res.json.code, c.status);
      assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json.items.length, before);
    });
  }
});
