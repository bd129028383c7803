// Every object of an application's manifest (most built-in kinds, applied by kubectl) reads
// the same in JSON as in Protobuf, decoded. The Protobuf form is what Go's types make of an
// object, so a difference is a value Plinth keeps that kube-apiserver's decoding into its
// types would not (it found empty omitempty lists and zero omitempty scalars kept), or one
// it leaves out that Go writes (it found a CronJob's empty jobTemplate.metadata and an
// Ingress's status.loadBalancer left out). The one difference left, upstream's too, is listed with its reason.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { loadProtobufCodec } from '../../src/encoding/protobuf-loader.ts';
import { kubectl, needsKubectl } from '../helpers/kubectl.ts';
import { startServer } from '../helpers/server.ts';

/** What Plinth still writes otherwise than Go: removed from both forms before comparing. */
function withoutKnownDifferences(object: any): any {
  const copy = structuredClone(object);
  // A StatefulSet's claim templates have apiVersion v1 and kind PersistentVolumeClaim in
  // JSON, which upstream's conversion to apps/v1 sets; the Protobuf form has no TypeMeta
  // there, so upstream's two forms differ the same way.
  for (const template of copy.spec?.volumeClaimTemplates ?? []) {
    delete template.apiVersion;
    delete template.kind;
  }
  return copy;
}

test('every object of an application reads the same in JSON and in Protobuf', { ...needsKubectl, timeout: 120_000 }, async (t) => {
  const server = await startServer({ enableGarbageCollector: false });
  t.after(() => server.stop());
  const codec = await loadProtobufCodec();
  await kubectl(server, 'apply', '-f', 'test/e2e/fixtures/application.yaml');
  const groups = (await server.request('GET', '/apis')).json.groups as Array<{ preferredVersion: { groupVersion: string } }>;
  let compared = 0;
  for (const base of ['/api/v1', ...groups.map((g) => `/apis/${g.preferredVersion.groupVersion}`)]) {
    const resources = (await server.request('GET', base)).json.resources as Array<{ name: string; verbs: string[] }>;
    for (const resource of resources) {
      if (resource.name.includes('/') || !resource.verbs.includes('list')) continue;
      const list = await server.request('GET', `${base}/${resource.name}`);
      if (list.status !== 200) continue;
      for (const item of list.json.items) {
        const { name, namespace } = item.metadata;
        const path = namespace === undefined ? `${base}/${resource.name}/${name}` : `${base}/namespaces/${namespace}/${resource.name}/${name}`;
        const inProtobuf = await server.request('GET', path, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
        // Custom resources have no Protobuf form: they answer JSON.
        if (!String(inProtobuf.headers['content-type']).startsWith('application/vnd.kubernetes.protobuf')) continue;
        const inJson = await server.request('GET', path);
        // Both reads of the same revision (a controller may write between them: read again then).
        if (inJson.json.metadata.resourceVersion !== codec.decodeProtobufObject(new Uint8Array(inProtobuf.bytes)).metadata.resourceVersion) continue;
        assert.deepEqual(withoutKnownDifferences(codec.decodeProtobufObject(new Uint8Array(inProtobuf.bytes))), withoutKnownDifferences(inJson.json), path);
        compared++;
      }
    }
  }
  assert.ok(compared > 40, `compared ${compared} objects`);
});

/** What differs between two copies of one manifest's object written apart: identity (a Job's selector holds its uid), time, allocations. */
function withoutIdentity(object: any): any {
  const copy = JSON.parse(JSON.stringify(object).replaceAll(object.metadata.uid, '<uid>'));
  for (const field of ['uid', 'creationTimestamp', 'resourceVersion', 'namespace', 'name']) delete copy.metadata[field];
  for (const entry of copy.metadata.managedFields ?? []) delete entry.time;
  if (copy.kind === 'Service') {
    delete copy.spec.clusterIP;
    delete copy.spec.clusterIPs;
    for (const port of copy.spec.ports ?? []) delete port.nodePort;
  }
  return copy;
}

// A Go client writes Protobuf: every Go value field on the wire, zero or not. Plinth's
// decoding of JSON must store what its decoding of that Protobuf stores, as kube-apiserver
// decodes both into the same Go object, and works out the same managed fields from it.
test('every object of an application written in Protobuf is stored as written in JSON', { timeout: 120_000 }, async (t) => {
  const server = await startServer({ enableGarbageCollector: false });
  t.after(() => server.stop());
  const codec = await loadProtobufCodec();
  const documents = parseAllDocuments(readFileSync('test/e2e/fixtures/application.yaml', 'utf8')).map((d) => d.toJS());
  const groups = (await server.request('GET', '/apis')).json.groups as Array<{ preferredVersion: { groupVersion: string } }>;
  const collections = new Map<string, { path: string; namespaced: boolean }>();
  for (const base of ['/api/v1', ...groups.map((g) => `/apis/${g.preferredVersion.groupVersion}`)]) {
    const list = (await server.request('GET', base)).json;
    for (const r of list.resources as Array<{ name: string; kind: string; namespaced: boolean }>) {
      if (!r.name.includes('/')) collections.set(`${list.groupVersion}/${r.kind}`, { path: `${base}/${r.name}`, namespaced: r.namespaced });
    }
  }
  const [inJson, inProtobuf] = [await server.newNamespace('written-json'), await server.newNamespace('written-protobuf')];
  let compared = 0;
  for (const document of documents) {
    // Webhook configurations would call their services on every later write; a CRD's name is its own.
    if (['Namespace', 'CustomResourceDefinition', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'].includes(document.kind)) continue;
    const collection = collections.get(`${document.apiVersion}/${document.kind}`);
    if (collection === undefined || !codec.hasProtobufDescriptor(document.apiVersion, document.kind)) continue;
    const written = [];
    for (const [namespace, asProtobuf] of [[inJson, false], [inProtobuf, true]] as const) {
      const object = structuredClone(document);
      const path = collection.namespaced ? collection.path.replace(/\/([a-z0-9]+)$/, `/namespaces/${namespace}/$1`) : collection.path;
      if (collection.namespaced) object.metadata.namespace = namespace;
      else object.metadata.name = `${object.metadata.name}-${namespace}`;
      const raw = asProtobuf ? Buffer.from(codec.encodeProtobufObject(object)) : JSON.stringify(object);
      const answer = await server.request('POST', path, { raw, headers: { 'content-type': asProtobuf ? 'application/vnd.kubernetes.protobuf' : 'application/json' } });
      assert.equal(answer.status, 201, `${document.kind} ${asProtobuf ? 'Protobuf' : 'JSON'}: ${answer.text}`);
      written.push(answer.json);
    }
    assert.deepEqual(withoutIdentity(written[1]), withoutIdentity(written[0]), document.kind);
    compared++;
  }
  assert.ok(compared > 20, `compared ${compared} objects`);
});
