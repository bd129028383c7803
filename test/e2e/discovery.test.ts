// Discovery (in JSON, YAML and Protobuf), /version and health endpoints as clients read them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { decodeProtobufObject } from '../../src/encoding/protobuf/index.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const v2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const v2beta1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

test('legacy discovery: /api, /apis, /apis/apps, /api/v1, /apis/apps/v1', async () => {
  const api = (await server.request('GET', '/api')).json;
  assert.equal(api.kind, 'APIVersions');
  assert.deepEqual(api.versions, ['v1']);
  const apis = (await server.request('GET', '/apis')).json;
  assert.equal(apis.kind, 'APIGroupList');
  const names = apis.groups.map((g: any) => g.name);
  assert.ok(names.includes('apps') && names.includes('coordination.k8s.io'), names.join());
  const apps = (await server.request('GET', '/apis/apps')).json;
  assert.equal(apps.kind, 'APIGroup');
  assert.deepEqual(apps.preferredVersion, { groupVersion: 'apps/v1', version: 'v1' });
  const core = (await server.request('GET', '/api/v1')).json;
  assert.equal(core.kind, 'APIResourceList');
  const cm = core.resources.find((r: any) => r.name === 'configmaps');
  assert.deepEqual(cm, {
    name: 'configmaps', singularName: 'configmap', namespaced: true, kind: 'ConfigMap',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['cm'], storageVersionHash: 'qFsyl6wFWjQ=',
  });
  const ns = core.resources.find((r: any) => r.name === 'namespaces');
  assert.equal(ns.namespaced, false);
  const deploy = (await server.request('GET', '/apis/apps/v1')).json.resources.find((r: any) => r.name === 'deployments');
  assert.deepEqual(deploy.shortNames, ['deploy']);
  assert.deepEqual(deploy.categories, ['all']);
});

for (const [accept, version] of [[`${v2},${v2beta1},application/json`, 'v2']] as const) {
  test(`aggregated discovery ${version} is chosen from Accept and said in Content-Type`, async () => {
    const res = await server.request('GET', '/apis', { headers: { accept } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`);
    assert.equal(res.json.kind, 'APIGroupDiscoveryList');
    assert.equal(res.json.apiVersion, `apidiscovery.k8s.io/${version}`);
    const apps = res.json.items.find((i: any) => i.metadata.name === 'apps');
    const deploy = apps.versions[0].resources.find((r: any) => r.resource === 'deployments');
    // As kube-apiserver answers (../shared/upstream/discovery): a built-in kind of the resource's own group-version names neither.
    assert.deepEqual(deploy.responseKind, { group: '', version: '', kind: 'Deployment' });
    assert.equal(deploy.scope, 'Namespaced');
    const core = (await server.request('GET', '/api', { headers: { accept } })).json;
    assert.equal(core.items.length, 1);
    assert.ok(core.items[0].versions[0].resources.some((r: any) => r.resource === 'pods'));
  });
}

// Upstream differs from what this file expected before: v2beta1 is no longer served since
// AggregatedDiscoveryRemoveBetaType was locked on in 1.35 (kube_features.go); its Accept entry
// is passed over as the legacy handler passes over any conversion.
test('aggregated discovery v2beta1 is not served: its entry is passed over for the next', async () => {
  const res = await server.request('GET', '/apis', { headers: { accept: `${v2beta1},application/json` } });
  assert.deepEqual([res.status, res.headers['content-type'], res.json.kind], [200, 'application/json', 'APIGroupList']);
});

test('discovery in YAML and Protobuf, legacy and aggregated, as upstream\'s codecs serve it; one ETag for every encoding; 406 names the types', async () => {
  const pb = 'application/vnd.kubernetes.protobuf';
  // The decoded form leaves out what Protobuf carries as a zero Time (an aggregated group's creationTimestamp: null).
  const withoutNullTimes = (value: any) => JSON.parse(JSON.stringify(value, (key, v) => (key === 'creationTimestamp' && v === null ? undefined : v)));
  for (const path of ['/api', '/apis', '/apis/apps', '/api/v1', '/apis/apps/v1']) {
    const json = await server.request('GET', path);
    const proto = await server.request('GET', path, { headers: { accept: `${pb}, application/json` } });
    assert.equal(proto.headers['content-type'], pb, path);
    assert.deepEqual(proto.bytes.subarray(0, 4), Buffer.from('k8s\0'), path);
    // /api's JSON names no apiVersion, as upstream's; its envelope says v1.
    assert.deepEqual(decodeProtobufObject(proto.bytes), path === '/api' ? { apiVersion: 'v1', ...json.json } : json.json, path);
    const yaml = await server.request('GET', path, { headers: { accept: 'application/yaml' } });
    assert.equal(yaml.headers['content-type'], 'application/yaml', path);
    assert.deepEqual(parse(yaml.text), json.json, path);
    assert.equal(proto.headers.etag, json.headers.etag, path);
    assert.equal(yaml.headers.etag, json.headers.etag, path);
  }
  for (const version of ['v2']) {
    const params = `;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
    const json = await server.request('GET', '/apis', { headers: { accept: `application/json${params}` } });
    const proto = await server.request('GET', '/apis', { headers: { accept: `${pb}${params},application/json` } });
    assert.equal(proto.headers['content-type'], `${pb}${params}`);
    assert.deepEqual(decodeProtobufObject(proto.bytes), withoutNullTimes(json.json));
    const yaml = await server.request('GET', '/api', { headers: { accept: `application/yaml${params}` } });
    assert.equal(yaml.headers['content-type'], `application/yaml${params}`);
    assert.equal(parse(yaml.text).kind, 'APIGroupDiscoveryList');
  }
  // A group's or version's document has no aggregated form: the entry is passed over, as upstream's legacy handler does.
  const aggregatedOnly = await server.request('GET', '/apis/apps/v1', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
  assert.equal(aggregatedOnly.status, 406);
  const withFallback = await server.request('GET', '/apis/apps/v1', { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' } });
  assert.deepEqual([withFallback.headers['content-type'], withFallback.json.kind], ['application/json', 'APIResourceList']);
  const refused = await server.request('GET', '/apis', { headers: { accept: 'text/plain' } });
  assert.deepEqual([refused.status, refused.json.message], [406, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf']);
});

test('discovery answers 304 to a matching If-None-Match', async () => {
  const first = await server.request('GET', '/apis', { headers: { accept: v2 } });
  const etag = first.headers.etag as string;
  assert.ok(etag);
  const again = await server.request('GET', '/apis', { headers: { accept: v2, 'if-none-match': etag } });
  assert.equal(again.status, 304);
  assert.equal(again.text, '');
});

test('/version names Plinth and the Kubernetes minor whose API it serves (1.36, as the generated types)', async () => {
  const res = await server.request('GET', '/version', { anonymous: true });
  assert.equal(res.status, 200);
  assert.equal(res.json.major, '1');
  assert.equal(res.json.minor, '36');
  assert.match(res.json.gitVersion, /^v1\.36\.\d+-plinth/);
});

test('health endpoints: plain, verbose, exclude, single check', async () => {
  for (const endpoint of ['healthz', 'livez', 'readyz']) {
    const plain = await server.request('GET', `/${endpoint}`, { anonymous: true });
    assert.equal(plain.status, 200);
    assert.equal(plain.text, 'ok');
    const verbose = await server.request('GET', `/${endpoint}?verbose`);
    assert.match(verbose.text, /^\[\+\]ping ok$/m);
    assert.match(verbose.text, new RegExp(`${endpoint} check passed\\n$`));
    const excluded = await server.request('GET', `/${endpoint}?verbose&exclude=ping`);
    assert.match(excluded.text, /^\[\+\]ping excluded: ok$/m);
  }
  assert.equal((await server.request('GET', '/readyz/ping')).text, 'ok');
  assert.equal((await server.request('GET', '/readyz/nope')).status, 404);
});
