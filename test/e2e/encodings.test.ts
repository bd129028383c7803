// Answers in every negotiated encoding and shape: Protobuf objects, lists, writes, errors
// and watch frames; metadata-only views (PartialObjectMetadata[List]) in JSON and
// Protobuf, custom resources included; Accept q-values, 406 and 415; pretty JSON.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import YAML from 'yaml';
import { decodeProtobufObject, decodeProtobufWatchEvent, encodeProtobufObject } from '../../src/encoding/protobuf/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { openByteStream, startServer, type TestServer } from '../helpers/server.ts';

const protobuf = 'application/vnd.kubernetes.protobuf';
const goClientAccept = `${protobuf},application/json`;
const metadataAccept = (as: string, v = 'v1') =>
  `${protobuf};as=${as};g=meta.k8s.io;v=${v},application/json;as=${as};g=meta.k8s.io;v=${v},application/json`;
const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

let server: TestServer;
before(async () => {
  server = await startServer({ watchBookmarkIntervalMs: 200 });
});
after(async () => {
  await server.stop();
});

const namespace = () => server.newNamespace('enc');

async function createConfigMap(ns: string, name: string, data: Record<string, string> = { a: '1' }) {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name, labels: { app: 'x' } }, data } });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

/** Frames of a Protobuf watch: 4 bytes of big-endian length, then a WatchEvent. */
function protobufFrames(buf: Buffer): { type: string; object: any }[] {
  const out = [];
  let at = 0;
  while (at + 4 <= buf.length) {
    const length = buf.readUInt32BE(at);
    if (at + 4 + length > buf.length) break;
    out.push(decodeProtobufWatchEvent(buf.subarray(at + 4, at + 4 + length)));
    at += 4 + length;
  }
  return out;
}

describe('Protobuf answers', () => {
  test('get answers the envelope of the object, equal to encoding its JSON answer', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'p');
    const json = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/p`)).json;
    for (const accept of [protobuf, goClientAccept, `application/json;q=0.5,${protobuf}`]) {
      const res = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/p`, { headers: { accept } });
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], protobuf, accept);
      assert.deepEqual(res.bytes.subarray(0, 4), magic);
      assert.deepEqual(res.bytes, Buffer.from(encodeProtobufObject(json)), accept);
      const decoded = decodeProtobufObject(res.bytes);
      assert.equal(decoded.metadata.name, 'p');
      assert.deepEqual(decoded.data, { a: '1' });
    }
  });

  test('a second get answers the same bytes (the encoding kept by the cache)', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'twice');
    const path = `/api/v1/namespaces/${ns}/configmaps/twice`;
    const first = await server.request('GET', path, { headers: { accept: protobuf } });
    const second = await server.request('GET', path, { headers: { accept: protobuf } });
    assert.deepEqual(first.bytes, second.bytes);
  });

  test('list: a ConfigMapList envelope; chunked; gzip when large', async () => {
    const ns = await namespace();
    const big = 'x'.repeat(30_000);
    for (const name of ['a', 'b', 'c', 'd', 'e']) await createConfigMap(ns, name, { big });
    const res = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2`, { headers: { accept: protobuf } });
    assert.equal(res.status, 200);
    const list = decodeProtobufObject(res.bytes) as any;
    assert.equal(list.kind, 'ConfigMapList');
    assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['a', 'b']);
    assert.ok(list.metadata.continue);
    assert.equal(list.metadata.remainingItemCount, 3);
    // The same page in JSON, read at the Protobuf list's revision: the server's controllers may write in between.
    const json = (await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=2&resourceVersion=${list.metadata.resourceVersion}&resourceVersionMatch=Exact`)).json;
    assert.equal(list.metadata.resourceVersion, json.metadata.resourceVersion);
    assert.equal(list.metadata.continue, json.metadata.continue);

    const zipped = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { accept: protobuf, 'accept-encoding': 'gzip' } });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers['content-type'], protobuf);
    const all = decodeProtobufObject(gunzipSync(zipped.bytes)) as any;
    assert.equal(all.items.length, 5);
  });

  test('writes answer Protobuf: create, update, patch, status, scale, delete', async () => {
    const ns = await namespace();
    const headers = { accept: goClientAccept };
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const deployment = {
      metadata: { name: 'd' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const created = await server.request('POST', base, { body: deployment, headers });
    assert.equal(created.status, 201);
    assert.equal(created.headers['content-type'], protobuf);
    const obj = decodeProtobufObject(created.bytes) as any;
    assert.equal(obj.kind, 'Deployment');
    assert.equal(obj.spec.replicas, 1);
    const cases: { name: string; method: string; path: string; body?: unknown; contentType?: string; kind: string }[] = [
      { name: 'patch', method: 'PATCH', path: `${base}/d`, body: { metadata: { labels: { x: 'y' } } }, contentType: 'application/merge-patch+json', kind: 'Deployment' },
      { name: 'status', method: 'GET', path: `${base}/d/status`, kind: 'Deployment' },
      { name: 'scale', method: 'GET', path: `${base}/d/scale`, kind: 'Scale' },
      { name: 'scale patch', method: 'PATCH', path: `${base}/d/scale`, body: { spec: { replicas: 2 } }, contentType: 'application/merge-patch+json', kind: 'Scale' },
      { name: 'delete', method: 'DELETE', path: `${base}/d`, kind: 'Status' },
    ];
    for (const c of cases) {
      const res = await server.request(c.method, c.path, { body: c.body, headers: { ...headers, ...(c.contentType ? { 'content-type': c.contentType } : {}) } });
      assert.ok(res.status < 300, `${c.name}: ${res.status}`);
      assert.equal(res.headers['content-type'], protobuf, c.name);
      assert.equal(decodeProtobufObject(res.bytes).kind, c.kind, c.name);
    }
  });

  test('errors are Protobuf Statuses when the client takes Protobuf', async () => {
    const ns = await namespace();
    const res = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/missing`, { headers: { accept: goClientAccept } });
    assert.equal(res.status, 404);
    assert.equal(res.headers['content-type'], protobuf);
    const status = decodeProtobufObject(res.bytes) as any;
    assert.equal(status.kind, 'Status');
    assert.equal(status.reason, 'NotFound');
    assert.equal(status.code, 404);
    assert.equal(status.details.name, 'missing');
    // A Table or metadata entry is not a form of a Status: JSON, as upstream.
    const table = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/missing`, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
    assert.equal(table.status, 404);
    assert.equal(table.json.kind, 'Status');
  });

  test('watch: length-prefixed WatchEvents with full envelopes, bookmarks, and a 410 ERROR', async () => {
    const ns = await namespace();
    const cm = await createConfigMap(ns, 'w');
    const stream = await openByteStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${cm.metadata.resourceVersion}&allowWatchBookmarks=true`, { accept: goClientAccept });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['content-type'], `${protobuf};stream=watch`);
    await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/w`, { body: { data: { a: '2' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    const frames = protobufFrames(await stream.waitFor((b) => protobufFrames(b).some((e) => e.type === 'BOOKMARK') && protobufFrames(b).some((e) => e.type === 'MODIFIED')));
    stream.close();
    const modified = frames.find((e) => e.type === 'MODIFIED')!;
    assert.equal(modified.object.kind, 'ConfigMap');
    assert.deepEqual(modified.object.data, { a: '2' });
    const bookmark = frames.find((e) => e.type === 'BOOKMARK')!;
    assert.equal(bookmark.object.kind, 'ConfigMap');
    assert.match(bookmark.object.metadata.resourceVersion, /^\d+$/);

    const old = await openByteStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=1`, { accept: protobuf });
    const error = protobufFrames(await old.waitFor((b) => protobufFrames(b).length > 0));
    old.close();
    assert.equal(error[0]!.type, 'ERROR');
    assert.equal(error[0]!.object.kind, 'Status');
    assert.equal(error[0]!.object.code, 410);
  });
});

describe('Protobuf and versions', () => {
  test('an object stored in another version answers in the version asked for (HPA autoscaling/v1 and v2)', async () => {
    const ns = await namespace();
    const hpa = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, minReplicas: 1, maxReplicas: 3 },
    };
    assert.equal((await server.request('POST', `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`, { body: hpa })).status, 201);
    for (const version of ['v1', 'v2']) {
      const path = `/apis/autoscaling/${version}/namespaces/${ns}/horizontalpodautoscalers`;
      const one = decodeProtobufObject((await server.request('GET', `${path}/h`, { headers: { accept: protobuf } })).bytes) as any;
      assert.equal(one.apiVersion, `autoscaling/${version}`);
      assert.equal(one.spec.maxReplicas, 3);
      const list = decodeProtobufObject((await server.request('GET', path, { headers: { accept: protobuf } })).bytes) as any;
      assert.equal(list.apiVersion, `autoscaling/${version}`);
      assert.equal(list.items[0].spec.maxReplicas, 3);
    }
  });

  test('CRDs answer Protobuf: get, list and watch, equal to encoding their JSON answers', async () => {
    const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const group = 'pb.enc.example.com';
    const stream = await openByteStream(server, `${crds}?watch=1&fieldSelector=metadata.name=gadgets.${group}`, { accept: goClientAccept });
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
      spec: {
        group, scope: 'Cluster', names: { plural: 'gadgets', kind: 'Gadget' },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', additionalProperties: { type: 'integer', default: 1, maximum: 9.5 } } } } },
        }],
      },
    };
    assert.equal((await server.request('POST', crds, { body: crd })).status, 201);
    // Once Established, the controllers leave it be: both reads see one version of it.
    const json = await eventually(async () => {
      const got = (await server.request('GET', `${crds}/gadgets.${group}`)).json;
      assert.ok(got.status.conditions?.some((c: any) => c.type === 'Established' && c.status === 'True'), 'Established');
      return got;
    });
    const one = await server.request('GET', `${crds}/gadgets.${group}`, { headers: { accept: goClientAccept } });
    assert.equal(one.status, 200);
    assert.equal(one.headers['content-type'], protobuf);
    assert.deepEqual(one.bytes, Buffer.from(encodeProtobufObject(json)));
    const list = await server.request('GET', crds, { headers: { accept: goClientAccept } });
    assert.equal(list.headers['content-type'], protobuf);
    const decoded = decodeProtobufObject(list.bytes) as any;
    assert.equal(decoded.kind, 'CustomResourceDefinitionList');
    const mine = decoded.items.find((i: any) => i.metadata.name === `gadgets.${group}`);
    assert.deepEqual(mine.spec.versions[0].schema.openAPIV3Schema.properties.spec.additionalProperties, { type: 'integer', default: 1, maximum: 9.5 });
    const frames = protobufFrames(await stream.waitFor((b) => protobufFrames(b).some((e) => e.type === 'ADDED')));
    stream.close();
    assert.equal(stream.headers['content-type'], `${protobuf};stream=watch`);
    const added = frames.find((e) => e.type === 'ADDED')!;
    assert.equal(added.object.kind, 'CustomResourceDefinition');
    assert.equal(added.object.spec.names.kind, 'Gadget');
  });
});

describe('negotiation', () => {
  const cases: { name: string; accept: string; status: number; contentType?: string }[] = [
    { name: 'q-values order the entries', accept: 'application/json;q=0.5,application/yaml', status: 200, contentType: 'application/yaml' },
    { name: 'q=0 refuses a type a wildcard would give', accept: 'application/json;q=0,*/*', status: 200, contentType: 'application/yaml' },
    { name: 'an unknown type then JSON', accept: 'text/html,application/json', status: 200, contentType: 'application/json' },
    { name: 'nothing served', accept: 'text/html', status: 406 },
    { name: 'CBOR is off by default', accept: 'application/cbor', status: 406 },
    { name: 'a stream parameter on a plain get', accept: 'application/json;stream=watch', status: 200, contentType: 'application/json' },
    { name: 'an unknown stream', accept: 'application/json;stream=other', status: 406 },
  ];
  for (const c of cases) {
    test(`${c.name}: ${c.accept}`, async () => {
      const ns = await namespace();
      await createConfigMap(ns, 'n');
      const res = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/n`, { headers: { accept: c.accept } });
      assert.equal(res.status, c.status, res.text);
      if (c.contentType !== undefined) assert.equal(res.headers['content-type'], c.contentType);
      else {
        assert.equal(res.json.reason, 'NotAcceptable');
        assert.equal(res.json.message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
      }
    });
  }

  test('a watch asking for YAML only names the stream types in its 406, a Status in YAML', async () => {
    const res = await server.request('GET', '/api/v1/configmaps?watch=1', { headers: { accept: 'application/yaml' } });
    assert.equal(res.status, 406);
    assert.equal(res.headers['content-type'], 'application/yaml');
    const status = YAML.parse(res.text);
    assert.equal(status.kind, 'Status');
    assert.equal(status.message, 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch');
  });

  test('415 for a body type no serializer reads, CBOR included while its gate is off', async () => {
    const ns = await namespace();
    for (const type of ['text/plain', 'application/cbor']) {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { raw: '{}', headers: { 'content-type': type } });
      assert.equal(res.status, 415, type);
      assert.equal(res.json.reason, 'UnsupportedMediaType');
    }
  });

  test('pretty=true indents JSON; a plain get does not', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'pretty');
    const path = `/api/v1/namespaces/${ns}/configmaps/pretty`;
    const pretty = await server.request('GET', `${path}?pretty=true`);
    assert.equal(pretty.text, JSON.stringify(pretty.json, null, 2));
    const list = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps?pretty=1`);
    assert.equal(list.text, JSON.stringify(list.json, null, 2));
    const viaAccept = await server.request('GET', path, { headers: { accept: 'application/json;pretty=1' } });
    assert.equal(viaAccept.text, JSON.stringify(viaAccept.json, null, 2));
    const plain = await server.request('GET', path);
    assert.equal(plain.text, JSON.stringify(plain.json));
  });
});

describe('metadata-only views', () => {
  test('get, list and watch as PartialObjectMetadata in JSON and Protobuf', async () => {
    const ns = await namespace();
    const cm = await createConfigMap(ns, 'm', { secret: 'value' });
    const jsonGet = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/m`, { headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' } });
    assert.equal(jsonGet.status, 200);
    assert.deepEqual(jsonGet.json, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm.metadata });

    const pbGet = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/m`, { headers: { accept: metadataAccept('PartialObjectMetadata') } });
    assert.equal(pbGet.headers['content-type'], protobuf);
    const partial = decodeProtobufObject(pbGet.bytes) as any;
    assert.equal(partial.kind, 'PartialObjectMetadata');
    assert.equal(partial.apiVersion, 'meta.k8s.io/v1');
    assert.equal(partial.metadata.uid, cm.metadata.uid);
    assert.equal(partial.data, undefined);

    const pbList = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { accept: metadataAccept('PartialObjectMetadataList') } });
    const list = decodeProtobufObject(pbList.bytes) as any;
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['m']);

    const beta = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { accept: metadataAccept('PartialObjectMetadataList', 'v1beta1') } });
    const betaList = decodeProtobufObject(beta.bytes) as any;
    assert.equal(betaList.apiVersion, 'meta.k8s.io/v1beta1');
    assert.deepEqual(betaList.items.map((i: any) => i.metadata.name), ['m']);
    const betaJson = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1' } });
    assert.equal(betaJson.json.items[0].kind, 'PartialObjectMetadata');
    assert.equal(betaJson.json.items[0].apiVersion, 'meta.k8s.io/v1beta1');

    const stream = await openByteStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${cm.metadata.resourceVersion}`, { accept: metadataAccept('PartialObjectMetadata') });
    await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/m`);
    const frames = protobufFrames(await stream.waitFor((b) => protobufFrames(b).some((e) => e.type === 'DELETED')));
    stream.close();
    const deleted = frames.find((e) => e.type === 'DELETED')!;
    assert.equal(deleted.object.kind, 'PartialObjectMetadata');
    assert.equal(deleted.object.metadata.name, 'm');
  });

  test('a list view of one object, or an object view of a list, is 406 as upstream', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'x');
    const one = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/x`, { headers: { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' } });
    assert.equal(one.status, 406);
    assert.equal(one.json.message, 'you requested PartialObjectMetadataList, but the requested object is not a list (*v1.ConfigMap)');
    const list = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' } });
    assert.equal(list.status, 406);
    assert.equal(list.json.message, 'you requested PartialObjectMetadata, but the requested object is a list (*v1.ConfigMapList)');
  });

  test('custom resources: no Protobuf of their own (406, or the JSON entry), but Protobuf metadata views', async () => {
    const group = 'enc.example.com';
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    assert.equal((await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    const ns = await namespace();
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    await eventually(async () => {
      const res = await server.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } } });
      assert.equal(res.status, 201, res.text);
    });
    const only = await server.request('GET', `${base}/w`, { headers: { accept: protobuf } });
    assert.equal(only.status, 406);
    const fallback = await server.request('GET', `${base}/w`, { headers: { accept: goClientAccept } });
    assert.equal(fallback.status, 200);
    assert.equal(fallback.headers['content-type'], 'application/json');
    assert.equal(fallback.json.spec.size, 3);
    const meta = await server.request('GET', base, { headers: { accept: metadataAccept('PartialObjectMetadataList') } });
    assert.equal(meta.headers['content-type'], protobuf);
    const list = decodeProtobufObject(meta.bytes) as any;
    assert.equal(list.kind, 'PartialObjectMetadataList');
    assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['w']);
  });
});
