// CBOR on the wire, with the CBORServingAndStorage gate on and off: application/cbor answers
// (objects, lists, writes, subresources, errors, metadata views) for built-in types and
// custom resources, application/cbor-seq watches, CBOR request bodies and apply patches,
// malformed bodies as 400s; with the gate off, 406 and 415 as upstream.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../../src/cli/config.ts';
import { decodeCborObject, EncodedCbor, encodeCbor } from '../../src/encoding/cbor.ts';
import { decodeCborWatchEvents, encodeCborObject } from '../../src/encoding/cbor-objects.ts';
import { eventually } from '../helpers/eventually.ts';
import { openByteStream, startServer, type TestServer } from '../helpers/server.ts';

const cbor = 'application/cbor';
const selfDescribed = Buffer.from([0xd9, 0xd9, 0xf7]);
const metadataAccept = (as: string) => `${cbor};as=${as};g=meta.k8s.io;v=v1`;
const hex = (text: string) => Buffer.from(text.replace(/\s/g, ''), 'hex');

let on: TestServer;
let off: TestServer;
before(async () => {
  [on, off] = await Promise.all([
    startServer({ featureGates: { ...defaultConfig().featureGates, CBORServingAndStorage: true }, watchBookmarkIntervalMs: 200 }),
    startServer(),
  ]);
});
after(async () => {
  await Promise.all([on.stop(), off.stop()]);
});

/** The events of a CBOR watch received so far; none while the last is still arriving. */
function events(buf: Buffer): { type: string; object: any }[] {
  try {
    return decodeCborWatchEvents(buf) as { type: string; object: any }[];
  } catch {
    return [];
  }
}

function cborBody(value: unknown): { raw: Buffer; headers: Record<string, string> } {
  return { raw: Buffer.from(encodeCborObject(value as never)), headers: { 'content-type': cbor, accept: cbor } };
}

async function createConfigMap(server: TestServer, ns: string, name: string, data: Record<string, string> = { a: '1' }) {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name }, data } });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

describe('gate on: CBOR answers', () => {
  test('get: the object as upstream encodes it, equal to its JSON; kept by the cache', async () => {
    const ns = await on.newNamespace('cbor');
    await createConfigMap(on, ns, 'g');
    const path = `/api/v1/namespaces/${ns}/configmaps/g`;
    const json = (await on.request('GET', path)).json;
    for (const accept of [cbor, `${cbor}, application/json`, 'application/json;q=0.5, application/cbor']) {
      const res = await on.request('GET', path, { headers: { accept } });
      assert.equal(res.status, 200, accept);
      assert.equal(res.headers['content-type'], cbor, accept);
      assert.deepEqual(res.bytes.subarray(0, 3), selfDescribed);
      assert.deepEqual(res.bytes, Buffer.from(encodeCborObject(json)), accept);
      assert.deepEqual(decodeCborObject(res.bytes), json);
    }
    const again = await on.request('GET', path, { headers: { accept: cbor } });
    assert.deepEqual(again.bytes, Buffer.from(encodeCborObject(json)));
  });

  test('a Secret\'s data are tag 22 byte strings, read back as the base64 JSON shows', async () => {
    const ns = await on.newNamespace('cbor');
    const created = await on.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 's' }, data: { k: Buffer.from([0, 1, 2, 255]).toString('base64') } } });
    assert.equal(created.status, 201, created.text);
    const res = await on.request('GET', `/api/v1/namespaces/${ns}/secrets/s`, { headers: { accept: cbor } });
    assert.ok(res.bytes.includes(hex('d6 44 000102ff')), 'tag 22, four bytes');
    assert.deepEqual(decodeCborObject(res.bytes), created.json);
  });

  test('list: one data item, the list tagged and its items not; chunked', async () => {
    const ns = await on.newNamespace('cbor');
    for (const name of ['a', 'b', 'c']) await createConfigMap(on, ns, name);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const json = (await on.request('GET', path)).json;
    const res = await on.request('GET', path, { headers: { accept: cbor } });
    assert.equal(res.headers['content-type'], cbor);
    assert.deepEqual(res.bytes, Buffer.from(encodeCborObject(json)));
    assert.equal(res.bytes.indexOf(selfDescribed, 3), -1, 'no tag inside the list');
    const list = decodeCborObject(res.bytes) as any;
    assert.equal(list.kind, 'ConfigMapList');
    assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['a', 'b', 'c']);
    const page = decodeCborObject((await on.request('GET', `${path}?limit=2`, { headers: { accept: cbor } })).bytes) as any;
    assert.equal(page.items.length, 2);
    assert.equal(typeof page.metadata.continue, 'string');
  });

  test('writes in CBOR: create, update, status, scale, delete; answers in CBOR', async () => {
    const ns = await on.newNamespace('cbor');
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', labels: { app: 'd' } },
      spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    const created = await on.request('POST', base, cborBody(deployment));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers['content-type'], cbor);
    const obj = decodeCborObject(created.bytes) as any;
    assert.equal(obj.spec.replicas, 1);
    assert.equal(obj.spec.template.spec.containers[0].image, 'nginx');

    // What a CBOR client read, changed and sent back.
    obj.spec.replicas = 2;
    const updated = await on.request('PUT', `${base}/d`, cborBody(obj));
    assert.equal(updated.status, 200, updated.text);
    const afterUpdate = decodeCborObject(updated.bytes) as any;
    assert.equal(afterUpdate.spec.replicas, 2);

    afterUpdate.status = { observedGeneration: 5, replicas: 0 };
    const status = await on.request('PUT', `${base}/d/status`, cborBody(afterUpdate));
    assert.equal(status.status, 200, status.text);
    assert.equal((decodeCborObject(status.bytes) as any).status.observedGeneration, 5);

    const scale = await on.request('GET', `${base}/d/scale`, { headers: { accept: cbor } });
    const scaleObj = decodeCborObject(scale.bytes) as any;
    assert.equal(scaleObj.kind, 'Scale');
    scaleObj.spec.replicas = 3;
    const scaled = await on.request('PUT', `${base}/d/scale`, cborBody(scaleObj));
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal((decodeCborObject(scaled.bytes) as any).spec.replicas, 3);

    const patched = await on.request('PATCH', `${base}/d`, { body: { metadata: { labels: { x: 'y' } } }, headers: { 'content-type': 'application/merge-patch+json', accept: cbor } });
    assert.equal((decodeCborObject(patched.bytes) as any).metadata.labels.x, 'y');
    // DeleteOptions come in CBOR too: a precondition that fails shows the body was read.
    const options = (uid: string) => {
      const raw = Buffer.from(encodeCborObject({ apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid } } as never));
      return { raw, headers: { 'content-type': cbor, 'content-length': String(raw.length) } };
    };
    const refused = await on.request('DELETE', `${base}/d`, options('not-its-uid'));
    assert.equal(refused.status, 409, refused.text);
    assert.match(refused.text, /the UID in the precondition \(not-its-uid\) does not match/);
    assert.equal((await off.request('DELETE', `${base}/d`, options('not-its-uid'))).status, 415, 'without the gate CBOR is no body type');
    const deleted = await on.request('DELETE', `${base}/d`, { headers: { accept: cbor } });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.headers['content-type'], cbor);
    assert.equal((decodeCborObject(deleted.bytes) as any).kind, 'Status');
  });

  test('server-side apply with application/apply-patch+cbor: creates, then patches, managed as Apply', async () => {
    const ns = await on.newNamespace('cbor');
    const path = `/api/v1/namespaces/${ns}/configmaps/applied?fieldManager=cbor-test`;
    const config = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data });
    const headers = { 'content-type': 'application/apply-patch+cbor', accept: cbor };
    const first = await on.request('PATCH', path, { raw: Buffer.from(encodeCbor(config({ a: '1' }))), headers });
    assert.equal(first.status, 201, first.text);
    const second = await on.request('PATCH', path, { raw: Buffer.from(encodeCbor(config({ a: '2', b: '3' }))), headers });
    assert.equal(second.status, 200, second.text);
    const obj = decodeCborObject(second.bytes) as any;
    assert.deepEqual(obj.data, { a: '2', b: '3' });
    assert.deepEqual(obj.metadata.managedFields.map((m: any) => [m.manager, m.operation]), [['cbor-test', 'Apply']]);
    // Without the self-described tag it reads the same.
    const untagged = await on.request('PATCH', path, { raw: Buffer.from(encodeCbor(config({ a: '4' }), { selfDescribed: false })), headers });
    assert.equal(untagged.status, 200, untagged.text);
    assert.deepEqual((decodeCborObject(untagged.bytes) as any).data, { a: '4' });
  });

  test('errors are CBOR Statuses when the client takes CBOR', async () => {
    const ns = await on.newNamespace('cbor');
    const res = await on.request('GET', `/api/v1/namespaces/${ns}/configmaps/missing`, { headers: { accept: cbor } });
    assert.equal(res.status, 404);
    assert.equal(res.headers['content-type'], cbor);
    const status = decodeCborObject(res.bytes) as any;
    assert.deepEqual([status.kind, status.reason, status.code, status.details.name], ['Status', 'NotFound', 404, 'missing']);
    const conflict = await on.request('POST', `/api/v1/namespaces/${ns}/configmaps`, cborBody({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'twice' } }));
    assert.equal(conflict.status, 201);
    const again = await on.request('POST', `/api/v1/namespaces/${ns}/configmaps`, cborBody({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'twice' } }));
    assert.equal(again.status, 409);
    assert.equal((decodeCborObject(again.bytes) as any).reason, 'AlreadyExists');
  });

  test('metadata views in CBOR; a Table in CBOR is passed over (406, or the next entry)', async () => {
    const ns = await on.newNamespace('cbor');
    const cm = await createConfigMap(on, ns, 'm', { secret: 'value' });
    const one = await on.request('GET', `/api/v1/namespaces/${ns}/configmaps/m`, { headers: { accept: metadataAccept('PartialObjectMetadata') } });
    assert.equal(one.headers['content-type'], cbor);
    assert.deepEqual(decodeCborObject(one.bytes), { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: cm.metadata });
    const list = await on.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { accept: metadataAccept('PartialObjectMetadataList') } });
    const decoded = decodeCborObject(list.bytes) as any;
    assert.equal(decoded.kind, 'PartialObjectMetadataList');
    assert.deepEqual(decoded.items.map((i: any) => [i.kind, i.metadata.name]), [['PartialObjectMetadata', 'm']]);

    const table = await on.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { accept: metadataAccept('Table') } });
    assert.equal(table.status, 406);
    assert.equal(table.json.message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor');
    const fallback = await on.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { headers: { accept: `${metadataAccept('Table')}, application/json;as=Table;g=meta.k8s.io;v=v1` } });
    assert.equal(fallback.headers['content-type'], 'application/json');
    assert.equal(fallback.json.kind, 'Table');
  });

  test('watch: application/cbor-seq, one WatchEvent item per event, object tagged inside; bookmarks; a 410 ERROR', async () => {
    const ns = await on.newNamespace('cbor');
    const cm = await createConfigMap(on, ns, 'w');
    const stream = await openByteStream(on, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${cm.metadata.resourceVersion}&allowWatchBookmarks=true`, { accept: cbor });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers['content-type'], 'application/cbor-seq');
    await on.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/w`, { body: { data: { a: '2' } }, headers: { 'content-type': 'application/merge-patch+json' } });
    const received = await stream.waitFor((b) => events(b).some((e) => e.type === 'MODIFIED') && events(b).some((e) => e.type === 'BOOKMARK'));
    stream.close();
    const modified = events(received).find((e) => e.type === 'MODIFIED')!;
    assert.deepEqual(modified.object.data, { a: '2' });
    // Each event is its own tagged item, its object tagged again inside it.
    assert.deepEqual(received.subarray(0, 3), selfDescribed);
    const current = (await on.request('GET', `/api/v1/namespaces/${ns}/configmaps/w`)).json;
    assert.ok(received.includes(Buffer.from(encodeCborObject(current))), 'the object as a get answers it');
    const bookmark = events(received).find((e) => e.type === 'BOOKMARK')!;
    assert.match(bookmark.object.metadata.resourceVersion, /^\d+$/);

    const meta = await openByteStream(on, `/api/v1/namespaces/${ns}/configmaps?watch=1`, { accept: metadataAccept('PartialObjectMetadata') });
    const metaEvents = events(await meta.waitFor((b) => events(b).length > 0));
    meta.close();
    assert.equal(metaEvents[0]!.object.kind, 'PartialObjectMetadata');
    assert.equal(metaEvents[0]!.object.data, undefined);

    const old = await openByteStream(on, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=1`, { accept: cbor });
    const error = events(await old.waitFor((b) => events(b).length > 0));
    old.close();
    assert.equal(error[0]!.type, 'ERROR');
    assert.equal(error[0]!.object.code, 410);
  });

  test('custom resources: CBOR bodies, answers, lists, watches and apply', async () => {
    const group = 'cbor.example.com';
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `gadgets.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    const made = await on.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', cborBody(crd));
    assert.equal(made.status, 201, made.text);
    assert.equal((decodeCborObject(made.bytes) as any).kind, 'CustomResourceDefinition');
    const ns = await on.newNamespace('cbor');
    const base = `/apis/${group}/v1/namespaces/${ns}/gadgets`;
    const created = await eventually(async () => {
      const res = await on.request('POST', base, cborBody({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 3, tags: ['x'] } }));
      assert.equal(res.status, 201, res.text);
      return res;
    });
    assert.equal(created.headers['content-type'], cbor);
    assert.deepEqual((decodeCborObject(created.bytes) as any).spec, { size: 3, tags: ['x'] });
    const json = (await on.request('GET', `${base}/g`)).json;
    const got = await on.request('GET', `${base}/g`, { headers: { accept: cbor } });
    assert.deepEqual(got.bytes, Buffer.from(encodeCborObject(json)));
    const list = decodeCborObject((await on.request('GET', base, { headers: { accept: cbor } })).bytes) as any;
    assert.equal(list.kind, 'GadgetList');
    assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['g']);

    const stream = await openByteStream(on, `${base}?watch=1&resourceVersion=${json.metadata.resourceVersion}`, { accept: cbor });
    const applied = await on.request('PATCH', `${base}/g?fieldManager=cbor-test&force=true`, {
      raw: Buffer.from(encodeCbor({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 4 } })),
      headers: { 'content-type': 'application/apply-patch+cbor', accept: cbor },
    });
    assert.equal(applied.status, 200, applied.text);
    assert.equal((decodeCborObject(applied.bytes) as any).spec.size, 4);
    const watched = events(await stream.waitFor((b) => events(b).some((e) => e.type === 'MODIFIED')));
    stream.close();
    assert.equal(watched.find((e) => e.type === 'MODIFIED')!.object.spec.size, 4);

    const strategic = await on.request('PATCH', `${base}/g`, { raw: '{}', headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    assert.equal(strategic.status, 415);
    assert.equal(strategic.json.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor');
    // No go-restful route in front of custom resources: their handler's 415 names the accepted types.
    const mergeCbor = await on.request('PATCH', `${base}/g`, { raw: Buffer.from(encodeCbor({ spec: {} })), headers: { 'content-type': 'application/merge-patch+cbor' } });
    assert.equal(mergeCbor.status, 415);
    assert.equal(mergeCbor.json.message, strategic.json.message);
  });

  test('discovery in CBOR, legacy and aggregated, as upstream\'s codecs serve it with the gate', async () => {
    for (const path of ['/apis', '/apis/apps/v1']) {
      const json = await on.request('GET', path);
      const answer = await on.request('GET', path, { headers: { accept: cbor } });
      assert.equal(answer.headers['content-type'], cbor, path);
      assert.deepEqual(decodeCborObject(answer.bytes), json.json, path);
      assert.equal(answer.headers.etag, json.headers.etag, path);
    }
    const params = ';g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
    const aggregated = await on.request('GET', '/apis', { headers: { accept: `${cbor}${params}` } });
    assert.equal(aggregated.headers['content-type'], `${cbor}${params}`);
    assert.deepEqual(decodeCborObject(aggregated.bytes), (await on.request('GET', '/apis', { headers: { accept: `application/json${params}` } })).json);
    const refused = await on.request('GET', '/apis', { headers: { accept: 'text/plain' } });
    assert.equal(refused.json.message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor');
  });

  test('the other patch types have no CBOR form: 415, go-restful\'s for a built-in type', async () => {
    const ns = await on.newNamespace('cbor');
    await createConfigMap(on, ns, 'p');
    for (const type of ['application/merge-patch+cbor', 'application/json-patch+cbor', 'application/strategic-merge-patch+cbor', cbor]) {
      const res = await on.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/p`, { raw: Buffer.from(encodeCbor({ data: { a: '2' } })), headers: { 'content-type': type, accept: cbor } });
      assert.equal(res.status, 415, type);
      const status = decodeCborObject(res.bytes) as any;
      assert.equal(status.reason, 'UnsupportedMediaType');
      assert.equal(status.message, '415: Unsupported Media Type');
    }
    const body = await on.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { raw: 'x', headers: { 'content-type': 'text/plain' } });
    assert.equal(body.json.message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor');
  });

  test('a malformed CBOR body is a 400 in upstream\'s words, never a crash', async () => {
    const ns = await on.newNamespace('cbor');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const cases: { name: string; body: Buffer; message: string | RegExp }[] = [
      { name: 'truncated map', body: hex('d9d9f7 a2 446b696e64'), message: 'the object provided is unrecognized (must be of type ConfigMap): unable to determine group/version/kind: unexpected EOF (d9d9f7a2446b696e64)' },
      { name: 'trailing bytes', body: hex('a0 00'), message: /^the object provided is unrecognized \(must be of type ConfigMap\): unable to determine group\/version\/kind: cbor: 1 bytes of extraneous data starting at index 1 \(a000\)$/ },
      { name: 'JSON text sent as CBOR', body: Buffer.from('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"j"}}'), message: 'the object provided is unrecognized (must be of type ConfigMap): unable to determine group/version/kind: unexpected EOF ({"kind":"ConfigMap","apiVersio ...)' },
      { name: 'an array', body: hex('d9d9f7 82 01 02'), message: 'the object provided is unrecognized (must be of type ConfigMap): unable to determine group/version/kind: cbor: cannot unmarshal array into Go value of type v1.TypeMeta (d9d9f7820102)' },
      { name: 'duplicate keys', body: hex('a2 4161 01 4161 02'), message: /duplicate map key/ },
      { name: 'invalid UTF-8 in a text string', body: hex('a1 6161 62ff fe'), message: /invalid UTF-8/ },
      { name: 'a map key that is not a string', body: hex('a1 01 02'), message: /cbor: / },
      { name: 'nested too deep', body: Buffer.concat([Buffer.alloc(100, 0x81), hex('00')]), message: /exceeded max nested level/ },
      { name: 'an undefined value', body: hex('a1 4161 f7'), message: /cbor: / },
      { name: 'a reserved additional information', body: hex('1c'), message: /cbor: / },
    ];
    for (const c of cases) {
      const res = await on.request('POST', path, { raw: c.body, headers: { 'content-type': cbor } });
      assert.equal(res.status, 400, `${c.name}: ${res.text}`);
      assert.equal(res.json.reason, 'BadRequest', c.name);
      if (typeof c.message === 'string') assert.equal(res.json.message, c.message, c.name);
      else assert.match(res.json.message, c.message, c.name);
    }
    const empty = await on.request('POST', path, { raw: Buffer.alloc(0), headers: { 'content-type': cbor } });
    assert.equal(empty.status, 400);
    const apply = await on.request('PATCH', `${path}/x?fieldManager=m`, { raw: hex('a2 4161'), headers: { 'content-type': 'application/apply-patch+cbor' } });
    assert.equal(apply.status, 400);
    assert.equal(apply.json.message, 'error decoding YAML: unexpected EOF');
    const applyArray = await on.request('PATCH', `${path}/x?fieldManager=m`, { raw: hex('80'), headers: { 'content-type': 'application/apply-patch+cbor' } });
    assert.equal(applyArray.status, 400);
    assert.match(applyArray.json.message, /^error decoding YAML: cbor: cannot unmarshal array/);
    // Still serving.
    assert.equal((await on.request('GET', path, { headers: { accept: cbor } })).status, 200);
  });

  test('a value of the wrong type in a CBOR body is a 400 in fxamacker/cbor\'s words: the item\'s CBOR type, the outermost field', async () => {
    const ns = await on.newNamespace('cbor');
    const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const deployment = (spec: Record<string, unknown>) => ({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
      spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, ...spec },
    });
    // encodeCbor writes strings as byte strings, as Kubernetes' encoders do; a text string is written by hand.
    const textThree = new EncodedCbor(hex('61 33'));
    const send = (method: string, url: string, value: unknown) => on.request(method, url, { raw: Buffer.from(encodeCbor(value)), headers: { 'content-type': cbor } });
    const handled = (kind: string, error: string) => `${kind} in version "v1" cannot be handled as a ${kind}: ${error}`;

    const text = await send('POST', deployments, deployment({ replicas: textThree }));
    assert.equal(text.status, 400, text.text);
    assert.equal(text.json.message, handled('Deployment', 'cbor: cannot unmarshal UTF-8 text string into Go struct field v1.Deployment.spec of type int32'));
    const bytes = await send('POST', deployments, deployment({ replicas: '3' }));
    assert.equal(bytes.json.message, handled('Deployment', 'cbor: cannot unmarshal byte string into Go struct field v1.Deployment.spec of type int32'));

    const pods = `/api/v1/namespaces/${ns}/pods`;
    const protocol = await send('POST', pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, protocol: 6 }] }] } });
    assert.equal(protocol.status, 400, protocol.text);
    assert.equal(protocol.json.message, handled('Pod', 'cbor: cannot unmarshal positive integer into Go struct field v1.Pod.spec of type v1.Protocol'));

    // An update's body, and a JSON body's words for the same value.
    assert.equal((await send('POST', deployments, deployment({ replicas: 1 }))).status, 201);
    const put = await send('PUT', `${deployments}/d`, deployment({ replicas: textThree, paused: 1 }));
    assert.equal(put.status, 400, put.text);
    assert.equal(put.json.message, handled('Deployment', 'cbor: cannot unmarshal positive integer into Go struct field v1.Deployment.spec of type bool'));
    const json = await on.request('PUT', `${deployments}/d`, { body: deployment({ paused: 1 }) });
    assert.equal(json.json.message, handled('Deployment', 'json: cannot unmarshal number into Go struct field DeploymentSpec.spec.paused of type bool'));
  });
});

describe('gate off: no CBOR', () => {
  test('Accept application/cbor alone is 406, listing the types served; with another entry, that one', async () => {
    const ns = await off.newNamespace('nocbor');
    await createConfigMap(off, ns, 'n');
    const only = await off.request('GET', `/api/v1/namespaces/${ns}/configmaps/n`, { headers: { accept: cbor } });
    assert.equal(only.status, 406);
    assert.equal(only.headers['content-type'], 'application/json');
    assert.equal(only.json.message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
    const fallback = await off.request('GET', `/api/v1/namespaces/${ns}/configmaps/n`, { headers: { accept: `${cbor}, application/json` } });
    assert.equal(fallback.status, 200);
    assert.equal(fallback.headers['content-type'], 'application/json');
    const discovery = await off.request('GET', '/apis', { headers: { accept: cbor } });
    assert.deepEqual([discovery.status, discovery.json.message], [406, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf']);
    const watch = await off.request('GET', `/api/v1/namespaces/${ns}/configmaps?watch=1`, { headers: { accept: cbor } });
    assert.equal(watch.status, 406);
    assert.equal(watch.json.message, 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch');
  });

  test('CBOR bodies and apply patches are 415, listing the types read', async () => {
    const ns = await off.newNamespace('nocbor');
    await createConfigMap(off, ns, 'n');
    const body = Buffer.from(encodeCborObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }));
    const cases: { method: string; path: string; type: string; message: string }[] = [
      { method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, type: cbor, message: 'application/json, application/yaml, application/vnd.kubernetes.protobuf' },
      { method: 'PUT', path: `/api/v1/namespaces/${ns}/configmaps/n`, type: cbor, message: 'application/json, application/yaml, application/vnd.kubernetes.protobuf' },
    ];
    for (const c of cases) {
      const res = await off.request(c.method, c.path, { raw: body, headers: { 'content-type': c.type } });
      assert.equal(res.status, 415, `${c.method} ${c.type}`);
      assert.equal(res.json.message, `the body of the request was in an unknown format - accepted media types include: ${c.message}`);
    }
    // A built-in type's PATCH route (go-restful) takes only its patch types: anything else is its bare 415.
    for (const path of [`/api/v1/namespaces/${ns}/configmaps/n?fieldManager=m`, `/api/v1/namespaces/${ns}/configmaps/n`]) {
      for (const type of ['application/apply-patch+cbor', 'application/merge-patch+cbor']) {
        const res = await off.request('PATCH', path, { raw: body, headers: { 'content-type': type } });
        assert.equal(res.status, 415, type);
        assert.equal(res.json.message, '415: Unsupported Media Type');
      }
    }
  });
});
