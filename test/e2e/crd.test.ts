// CustomResourceDefinitions end to end: a CRD created over HTTP is served once
// established (discovery, OpenAPI, every verb, watch), its schema prunes, defaults and
// validates, status and scale subresources behave as upstream's, deleting it deletes its
// objects, a restart serves it again, and kubectl 1.33 applies and prints it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../helpers/eventually.ts';
import { openStream, startServer, tempDir, type TestServer } from '../helpers/server.ts';
import { storageVersionHash } from '../../src/endpoints/discovery.ts';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/encoding/protobuf/index.ts';

const run = promisify(execFile);
const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const aggregated = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';

type Json = Record<string, any>;

let counter = 0;

/** A CRD in a group of its own (each test its own), with status and scale subresources and printer columns. */
function crontabCrd(edit: (c: Json) => void = () => {}): Json {
  const group = `g${++counter}.example.com`;
  const c: Json = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: [`ct${counter}`], categories: ['all'] },
      versions: [{
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  cronSpec: { type: 'string', pattern: '^(\\S+ ){4}\\S+$' },
                  image: { type: 'string', default: 'busybox' },
                  replicas: { type: 'integer', minimum: 0, default: 1 },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
            },
          },
        },
      }],
    },
  };
  edit(c);
  return c;
}

function groupOf(crd: Json): string {
  return crd.spec.group;
}

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const namespace = () => server.newNamespace('crd');

/** Creates the CRD and waits until it is Established. */
async function establish(crd: Json, on: TestServer = server): Promise<Json> {
  const res = await on.request('POST', crdsPath, { body: crd });
  assert.equal(res.status, 201, res.text);
  return eventually(async () => {
    const got = await on.request('GET', `${crdsPath}/${crd.metadata.name}`);
    assert.ok(got.json.status?.conditions?.some((c: Json) => c.type === 'Established' && c.status === 'True'), `not Established: ${got.text}`);
    return got.json;
  });
}

describe('creating a CRD', () => {
  test('serves its resource: discovery, create, list, get, watch', async () => {
    const crd = crontabCrd();
    const group = groupOf(crd);
    assert.equal((await server.request('POST', crdsPath, { body: crd })).status, 201);
    const resources = await eventually(async () => {
      const res = await server.request('GET', `/apis/${group}/v1`);
      assert.equal(res.status, 200, 'listed in discovery');
      return res.json.resources;
    });
    assert.deepEqual(resources[0], {
      name: 'crontabs', singularName: 'crontab', namespaced: true, kind: 'CronTab',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: crd.spec.names.shortNames, categories: ['all'], storageVersionHash: storageVersionHash(group, 'v1', 'CronTab'),
    });
    assert.deepEqual(resources.slice(1).map((r: Json) => r.name), ['crontabs/status', 'crontabs/scale']);

    const agg = await server.request('GET', '/apis', { headers: { accept: aggregated } });
    const entry = agg.json.items.find((g: Json) => g.metadata.name === group);
    assert.deepEqual(entry.versions[0].resources[0].responseKind, { group, version: 'v1', kind: 'CronTab' });

    const stored = await server.request('GET', `${crdsPath}/${crd.metadata.name}`);
    const conditions = Object.fromEntries(stored.json.status.conditions.map((c: Json) => [c.type, [c.status, c.reason]]));
    assert.deepEqual(conditions, { NamesAccepted: ['True', 'NoConflicts'], Established: ['True', 'InitialNamesAccepted'] });
    assert.deepEqual(stored.json.status.acceptedNames, { plural: 'crontabs', singular: 'crontab', shortNames: crd.spec.names.shortNames, kind: 'CronTab', listKind: 'CronTabList', categories: ['all'] });
    assert.deepEqual(stored.json.status.storedVersions, ['v1']);

    const ns = await namespace();
    const base = `/apis/${group}/v1/namespaces/${ns}/crontabs`;
    const stream = await openStream(server, `${base}?watch=1`);
    try {
      const created = await server.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'nightly' }, spec: { cronSpec: '0 0 * * *' } } });
      assert.equal(created.status, 201, created.text);
      const event = await stream.next();
      assert.equal(event.type, 'ADDED');
      assert.equal(event.object.metadata.name, 'nightly');
      const list = await server.request('GET', base);
      assert.equal(list.json.kind, 'CronTabList');
      assert.deepEqual(list.json.items.map((i: Json) => i.metadata.name), ['nightly']);
      const all = await server.request('GET', `/apis/${group}/v1/crontabs`);
      assert.equal(all.json.items.length, 1);
      const got = await server.request('GET', `${base}/nightly`);
      assert.equal(got.json.spec.cronSpec, '0 0 * * *');
    } finally {
      stream.close();
    }
  });

  test('created with a Protobuf body and read back in Protobuf, it establishes and serves its resource', async () => {
    const protobuf = 'application/vnd.kubernetes.protobuf';
    const crd = crontabCrd((c) => {
      const schema = c.spec.versions[0].schema.openAPIV3Schema;
      schema.properties.spec.properties.tags = { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, 'x-kubernetes-list-type': 'set' };
      schema.properties.spec.properties.labels = { type: 'object', additionalProperties: { type: 'string' } };
    });
    const created = await server.request('POST', crdsPath, { raw: Buffer.from(encodeProtobufObject(crd as never)), headers: { 'content-type': protobuf, accept: protobuf } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers['content-type'], protobuf);
    const answer = decodeProtobufObject(created.bytes) as Json;
    assert.equal(answer.kind, 'CustomResourceDefinition');
    assert.deepEqual(answer.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags, crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.tags);
    assert.deepEqual(answer.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas, { type: 'integer', minimum: 0, default: 1 });

    const established = await eventually(async () => {
      const got = await server.request('GET', `${crdsPath}/${crd.metadata.name}`, { headers: { accept: protobuf } });
      assert.equal(got.headers['content-type'], protobuf);
      const obj = decodeProtobufObject(got.bytes) as Json;
      assert.ok(obj.status.conditions?.some((c: Json) => c.type === 'Established' && c.status === 'True'), 'Established');
      return obj;
    });
    assert.deepEqual(established.status.acceptedNames.kind, 'CronTab');
    // What JSON clients read is the same CRD (Established, the controllers leave it be).
    assert.deepEqual((await server.request('GET', `${crdsPath}/${crd.metadata.name}`)).json, established);

    // The schema it was given prunes, defaults and validates its objects.
    const ns = await namespace();
    const base = `/apis/${groupOf(crd)}/v1/namespaces/${ns}/crontabs`;
    const ct = await server.request('POST', base, { body: { apiVersion: `${groupOf(crd)}/v1`, kind: 'CronTab', metadata: { name: 'c' }, spec: { cronSpec: '* * * * *', tags: ['a'], labels: { x: 'y' }, junk: 1 } } });
    assert.equal(ct.status, 201, ct.text);
    assert.deepEqual(ct.json.spec, { cronSpec: '* * * * *', tags: ['a'], labels: { x: 'y' }, image: 'busybox', replicas: 1 });
    const bad = await server.request('POST', base, { body: { apiVersion: `${groupOf(crd)}/v1`, kind: 'CronTab', metadata: { name: 'd' }, spec: { cronSpec: '* * * * *', tags: ['z'] } } });
    assert.equal(bad.status, 422, bad.text);
  });

  test('publishes the schema in OpenAPI v3', async () => {
    const crd = crontabCrd();
    await establish(crd);
    const group = groupOf(crd);
    const index = await server.request('GET', '/openapi/v3');
    const url = index.json.paths[`apis/${group}/v1`]?.serverRelativeURL;
    assert.ok(url, 'the group-version has a document');
    const doc = (await server.request('GET', url)).json;
    const name = `${group.split('.').reverse().join('.')}.v1.CronTab`;
    const schema = doc.components.schemas[name];
    assert.deepEqual(schema['x-kubernetes-group-version-kind'], [{ group, version: 'v1', kind: 'CronTab' }]);
    assert.deepEqual(schema.properties.spec.properties.image, { type: 'string', default: 'busybox' });
    assert.ok(schema.properties.metadata.allOf ?? schema.properties.metadata.$ref);
    const patch = doc.paths[`/apis/${group}/v1/namespaces/{namespace}/crontabs/{name}`].patch;
    assert.ok(patch.parameters.some((p: Json) => p.name === 'fieldValidation'));
    assert.equal(patch.requestBody.content['application/strategic-merge-patch+json'], undefined);
  });

  test('refuses a non-structural schema with 422 and the reasons', async () => {
    const crd = crontabCrd((c) => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.extra = { properties: { a: { type: 'string' } } };
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.anyOf = [{ type: 'object' }];
    });
    const res = await server.request('POST', crdsPath, { body: crd });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.reason, 'Invalid');
    assert.deepEqual(res.json.details.causes.map((c: Json) => `${c.field}: ${c.message}`), [
      'spec.validation.openAPIV3Schema.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural',
      'spec.validation.openAPIV3Schema.properties[spec].properties[extra].type: Required value: must not be empty for specified object fields',
    ]);
    assert.match(res.json.message, /^CustomResourceDefinition\.apiextensions\.k8s\.io "crontabs\.g\d+\.example\.com" is invalid: \[/);
  });

  test('patterns are RE2, as Go\'s regexp: (?i) is accepted and enforced, lookahead refused', async () => {
    // prometheus-operator's prometheusrules CRD declares partial_response_strategy so.
    const crd = crontabCrd((c) => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.strategy = { type: 'string', pattern: '^(?i)(abort|warn)?$' };
    });
    await establish(crd);
    const ns = await namespace();
    const base = `/apis/${groupOf(crd)}/v1/namespaces/${ns}/crontabs`;
    assert.equal((await server.request('POST', base, { body: { apiVersion: `${groupOf(crd)}/v1`, kind: 'CronTab', metadata: { name: 'upper' }, spec: { strategy: 'WARN' } } })).status, 201);
    const bad = await server.request('POST', base, { body: { apiVersion: `${groupOf(crd)}/v1`, kind: 'CronTab', metadata: { name: 'other' }, spec: { strategy: 'stop' } } });
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(bad.json.details.causes.map((c: Json) => c.message), [`Invalid value: "stop": spec.strategy in body should match '^(?i)(abort|warn)?$'`]);

    const lookahead = crontabCrd((c) => {
      c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.strategy = { type: 'string', pattern: '^(?=a)' };
    });
    const refused = await server.request('POST', crdsPath, { body: lookahead });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.json.details.causes.map((c: Json) => `${c.field}: ${c.message}`), [
      'spec.validation.openAPIV3Schema.properties[spec].properties[strategy].pattern: Invalid value: "^(?=a)": must be a valid regular expression, but isn\'t: error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
    ]);
  });

  test('a body names its kind: none is a decoding error, another is invalid; a built-in kind may leave both empty', async () => {
    const crd = crontabCrd();
    await establish(crd);
    const group = groupOf(crd);
    const ns = await namespace();
    const base = `/apis/${group}/v1/namespaces/${ns}/crontabs`;
    // Unstructured decoding needs a kind: upstream's transformDecodeError names the URL's, the data as sent.
    const raw = `{"apiVersion":"${group}/v1", "metadata":{"name":"a"}}`;
    const missing = await server.request('POST', base, { raw, headers: { 'content-type': 'application/json' } });
    assert.equal(missing.status, 400, missing.text);
    assert.equal(missing.json.message, `CronTab in version "v1" cannot be handled as a CronTab: Object 'Kind' is missing in '${raw}'`);
    // An empty kind is none; the version the body gives is named (the URL's when it gives none).
    const empty = await server.request('POST', base, { body: { apiVersion: 'v9', kind: '', metadata: { name: 'a' } } });
    assert.equal(empty.status, 400, empty.text);
    assert.match(empty.json.message, /^CronTab in version "v9" cannot be handled as a CronTab: Object 'Kind' is missing in '\{"apiVersion":"v9","kind":"","metadata":\{"name":"a"\}\}'$/);
    // YAML is converted to JSON first: its keys sorted, as Go's encoder writes a map.
    const yaml = await server.request('POST', base, { raw: 'metadata:\n  name: a\napiVersion: x/v1\n', headers: { 'content-type': 'application/yaml' } });
    assert.equal(yaml.status, 400, yaml.text);
    assert.equal(yaml.json.message, `CronTab in version "v1" cannot be handled as a CronTab: Object 'Kind' is missing in '{"apiVersion":"x/v1","metadata":{"name":"a"}}'`);
    // Another kind decodes, and validation refuses it, named by that kind (ValidateTypeMeta).
    const other = await server.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Other', metadata: { name: 'a' }, spec: {} } });
    assert.equal(other.status, 422, other.text);
    assert.equal(other.json.message, `Other.${group} "a" is invalid: kind: Invalid value: "Other": must be CronTab`);
    assert.deepEqual(other.json.details, { name: 'a', group, kind: 'Other', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "Other": must be CronTab', field: 'kind' }] });
    const put = await server.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'b' }, spec: {} } });
    assert.equal(put.status, 201, put.text);
    const renamed = await server.request('PUT', `${base}/b`, { body: { ...put.json, kind: 'Other' } });
    assert.equal(renamed.status, 422, renamed.text);
    assert.equal(renamed.json.details.causes[0].message, 'Invalid value: "Other": must be CronTab');
    // A custom resource's apiVersion has no default (unstructured decoding gives none): an
    // absent or empty one, or another version of the group, is not the URL's: the handler's 400.
    for (const [apiVersion, named] of [[undefined, ''], ['', ''], [`${group}/v2`, `${group}/v2`]] as const) {
      const body = { ...(apiVersion !== undefined ? { apiVersion } : {}), kind: 'CronTab', metadata: { name: 'no-version' }, spec: {} };
      const refused = await server.request('POST', base, { body });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.message, `the API version in the data (${named}) does not match the expected API version (${group}/v1)`);
      const replaced = await server.request('PUT', `${base}/b`, { body: { ...body, metadata: { ...put.json.metadata } } });
      assert.equal(replaced.status, 400, replaced.text);
      assert.equal(replaced.json.message, refused.json.message);
    }
    // A patch that takes it away leaves an object validation refuses (ValidateTypeMeta).
    const patched = await server.request('PATCH', `${base}/b`, { body: { apiVersion: null }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 422, patched.text);
    assert.equal(patched.json.message, `CronTab.${group} "b" is invalid: apiVersion: Invalid value: "": must be ${group}/v1`);
    const relabelled = await server.request('PATCH', `${base}/b`, { body: { metadata: { labels: { patched: 'yes' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(relabelled.status, 200, relabelled.text);
    // A built-in kind's empty apiVersion and kind are the decoder's defaults: the URL's.
    const cm = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: '', kind: '', metadata: { name: 'c' } } });
    assert.equal(cm.status, 201, cm.text);
    assert.equal(cm.json.apiVersion, 'v1');
    assert.equal(cm.json.kind, 'ConfigMap');
  });

  test('a name another CRD of the group took is not accepted', async () => {
    const first = crontabCrd();
    await establish(first);
    const second = crontabCrd((c) => {
      c.spec.group = first.spec.group;
      c.metadata.name = `crons.${first.spec.group}`;
      c.spec.names = { plural: 'crons', singular: 'crontab', kind: 'Cron' };
    });
    assert.equal((await server.request('POST', crdsPath, { body: second })).status, 201);
    const status = await eventually(async () => {
      const got = await server.request('GET', `${crdsPath}/${second.metadata.name}`);
      assert.ok(got.json.status?.conditions?.length > 0, 'NamesAccepted written');
      return got.json.status;
    });
    const named = status.conditions.find((c: Json) => c.type === 'NamesAccepted');
    assert.deepEqual([named.status, named.reason, named.message], ['False', 'SingularConflict', '"crontab" is already in use']);
    const established = status.conditions.find((c: Json) => c.type === 'Established');
    assert.deepEqual([established.status, established.reason], ['False', 'NotAccepted']);
    assert.equal((await server.request('GET', `/apis/${first.spec.group}/v1/namespaces/default/crons`)).status, 404);
    // Once the first CRD is gone, the name is free: the second one is accepted and served.
    await server.request('DELETE', `${crdsPath}/${first.metadata.name}`);
    await eventually(async () => {
      const got = await server.request('GET', `${crdsPath}/${second.metadata.name}`);
      assert.ok(got.json.status.conditions.some((c: Json) => c.type === 'Established' && c.status === 'True'), 'the second CRD established');
    });
    assert.equal((await server.request('GET', `/apis/${first.spec.group}/v1/namespaces/default/crons`)).status, 200);
  });

  test('formats upstream does not recognise are warned of, and on update only those the old spec lacked', async () => {
    const crd = crontabCrd((c) => {
      const props = c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
      props.replicas.format = 'int32';
      props.image.format = 'uri-reference';
      props.weight = { type: 'number', format: 'double' };
      props.tags = { type: 'array', items: { type: 'string', format: 'k8s-short-name' } };
      props.labels = { type: 'object', additionalProperties: { type: 'string', format: 'colour' } };
      props.flag = { type: 'boolean', format: 'int32' };
    });
    const created = await server.request('POST', crdsPath, { body: crd });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.warning, '299 - "unrecognized format \\"uri-reference\\"", 299 - "unrecognized format \\"colour\\"", 299 - "unrecognized format \\"int32\\""');
    const current = (await server.request('GET', `${crdsPath}/${crd.metadata.name}`)).json;
    current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.extra = { type: 'string', format: 'hex' };
    const updated = await server.request('PUT', `${crdsPath}/${crd.metadata.name}`, { body: current });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.headers.warning, '299 - "unrecognized format \\"hex\\""');
  });

  test('a deprecated version warns on every request; a CRD with CEL rules is accepted without a warning', async () => {
    const crd = crontabCrd((c) => {
      const v1 = c.spec.versions[0];
      v1.schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [{ rule: 'self.replicas >= 0' }];
      c.spec.versions.push({ ...structuredClone(v1), name: 'v1beta1', storage: false, deprecated: true });
    });
    const created = await server.request('POST', crdsPath, { body: crd });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.warning, undefined);
    const list = await eventually(async () => {
      const res = await server.request('GET', `/apis/${groupOf(crd)}/v1beta1/crontabs`);
      assert.equal(res.status, 200, 'v1beta1 served');
      return res;
    });
    assert.equal(list.headers.warning, `299 - "${groupOf(crd)}/v1beta1 CronTab is deprecated"`);
    assert.equal((await server.request('GET', `/apis/${groupOf(crd)}/v1/crontabs`)).headers.warning, undefined);
  });
});

describe('custom resources', () => {
  let crd: Json;
  let base: string;
  let ns: string;
  before(async () => {
    crd = crontabCrd();
    await establish(crd);
    ns = await namespace();
    base = `/apis/${groupOf(crd)}/v1/namespaces/${ns}/crontabs`;
  });
  const body = (name: string, spec: Json, extra: Json = {}) => ({ apiVersion: `${groupOf(crd)}/v1`, kind: 'CronTab', metadata: { name }, spec, ...extra });

  test('unknown fields are pruned with a warning, defaults applied, status on create dropped', async () => {
    const res = await server.request('POST', base, { body: body('pruned', { cronSpec: '* * * * *', bogus: 1 }, { status: { replicas: 3 } }) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.warning, '299 - "unknown field \\"spec.bogus\\""');
    assert.deepEqual(res.json.spec, { cronSpec: '* * * * *', image: 'busybox', replicas: 1 });
    assert.equal(res.json.status, undefined);
    assert.equal(res.json.metadata.generation, 1);
  });

  test('finalizers a write adds without a path are warned of, standard ones and those kept are not', async () => {
    const finalizers = ['widgets', 'example.com/cleanup', 'cleanup.example.com', 'foregroundDeletion'];
    const created = await server.request('POST', base, { body: body('finalized', { cronSpec: '* * * * *' }, { metadata: { name: 'finalized', finalizers } }) });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.warning, [
      '299 - "metadata.finalizers: \\"cleanup.example.com\\": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"',
      '299 - "metadata.finalizers: \\"widgets\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"',
    ].join(', '));
    const updated = await server.request('PATCH', `${base}/finalized`, {
      body: { metadata: { finalizers: [...finalizers, 'more'] } }, headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.headers.warning, '299 - "metadata.finalizers: \\"more\\": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"');
    const cleared = await server.request('PATCH', `${base}/finalized`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.headers.warning, undefined);
  });

  test('fieldValidation=Strict refuses unknown fields', async () => {
    const res = await server.request('POST', `${base}?fieldValidation=Strict`, { body: body('strict', { cronSpec: '* * * * *', bogus: 1 }) });
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.message, /unknown field "spec.bogus"/);
  });

  test('the schema is enforced: 422 with the causes', async () => {
    const res = await server.request('POST', base, { body: body('bad', { cronSpec: 'nope', replicas: 'two' }) });
    assert.equal(res.status, 422, res.text);
    // The scale subresource's check of its path (upstream's ValidateScaleSpec) adds its own cause.
    assert.deepEqual(res.json.details.causes.map((c: Json) => c.field).sort(), ['.spec.replicas', 'spec.cronSpec', 'spec.replicas']);
  });

  test('the main resource ignores status, /status ignores everything else; generation follows spec', async () => {
    const created = (await server.request('POST', base, { body: body('st', { cronSpec: '* * * * *' }) })).json;
    const put = await server.request('PUT', `${base}/st`, { body: { ...created, status: { replicas: 2 } } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.status, undefined);
    const viaStatus = await server.request('PUT', `${base}/st/status`, {
      body: { ...put.json, spec: { ...put.json.spec, replicas: 9 }, metadata: { ...put.json.metadata, labels: { a: 'b' } }, status: { replicas: 3 } },
    });
    assert.equal(viaStatus.status, 200, viaStatus.text);
    assert.equal(viaStatus.json.spec.replicas, 1);
    assert.equal(viaStatus.json.metadata.labels, undefined);
    assert.deepEqual(viaStatus.json.status, { replicas: 3 });
    assert.equal(viaStatus.json.metadata.generation, 1);
    const viaMain = await server.request('PATCH', `${base}/st`, {
      raw: JSON.stringify({ spec: { replicas: 4 }, status: { replicas: 7 } }), headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(viaMain.status, 200, viaMain.text);
    assert.equal(viaMain.json.spec.replicas, 4);
    assert.deepEqual(viaMain.json.status, { replicas: 3 });
    assert.equal(viaMain.json.metadata.generation, 2);
  });

  test('PUT needs a resourceVersion and does not create', async () => {
    const missing = await server.request('PUT', `${base}/nothere`, { body: body('nothere', {}) });
    assert.equal(missing.status, 404, missing.text);
    await server.request('POST', base, { body: body('unconditional', {}) });
    const res = await server.request('PUT', `${base}/unconditional`, { body: body('unconditional', { replicas: 2 }) });
    assert.equal(res.status, 422, res.text);
  });

  test('strategic merge patch is not offered: 415', async () => {
    await server.request('POST', base, { body: body('smp', {}) });
    const res = await server.request('PATCH', `${base}/smp`, { raw: '{"spec":{"replicas":2}}', headers: { 'content-type': 'application/strategic-merge-patch+json' } });
    assert.equal(res.status, 415, res.text);
  });

  test('the scale subresource reads and writes the replica paths', async () => {
    await server.request('POST', base, { body: body('scaled', { replicas: 2 }) });
    const scale = await server.request('GET', `${base}/scaled/scale`);
    assert.equal(scale.status, 200, scale.text);
    assert.deepEqual([scale.json.kind, scale.json.apiVersion, scale.json.spec, scale.json.status], ['Scale', 'autoscaling/v1', { replicas: 2 }, { replicas: 0 }]);
    const res = await server.request('PUT', `${base}/scaled/scale`, { body: { ...scale.json, spec: { replicas: 5 } } });
    assert.equal(res.status, 200, res.text);
    const obj = await server.request('GET', `${base}/scaled`);
    assert.equal(obj.json.spec.replicas, 5);
  });

  test('an apply through the scale subresource owns the object\'s replica path, conflicting with its applier', async () => {
    const applying = { 'content-type': 'application/apply-patch+yaml' };
    const created = await server.request('PATCH', `${base}/applied?fieldManager=alice`, { raw: JSON.stringify(body('applied', { replicas: 2, image: 'nginx' })), headers: applying });
    assert.equal(created.status, 201, created.text);
    const scale = (replicas: number) => JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'applied' }, spec: { replicas } });
    const clash = await server.request('PATCH', `${base}/applied/scale?fieldManager=bob`, { raw: scale(3), headers: applying });
    assert.equal(clash.status, 409, clash.text);
    assert.deepEqual(clash.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' }]);
    const forced = await server.request('PATCH', `${base}/applied/scale?fieldManager=bob&force=true`, { raw: scale(3), headers: applying });
    assert.equal(forced.status, 200, forced.text);
    const obj = (await server.request('GET', `${base}/applied`)).json;
    assert.equal(obj.spec.replicas, 3);
    const bob = obj.metadata.managedFields.find((e: Json) => e.manager === 'bob');
    assert.deepEqual([bob.operation, bob.apiVersion, bob.subresource, bob.fieldsV1], ['Apply', obj.apiVersion, 'scale', { 'f:spec': { 'f:replicas': {} } }]);
    assert.deepEqual(obj.metadata.managedFields.find((e: Json) => e.manager === 'alice').fieldsV1['f:spec'], { 'f:image': {} });
  });
});

describe('server-side apply of custom resources', () => {
  let base: string;
  let ns: string;
  let apiVersion: string;
  before(async () => {
    const crd = crontabCrd((c) => {
      const v = c.spec.versions[0];
      delete v.subresources;
      v.additionalPrinterColumns = [];
      v.schema.openAPIV3Schema.properties.spec = {
        type: 'object',
        properties: {
          foo: { type: 'string' },
          maybe: { type: 'string', nullable: true },
          size: { type: 'integer', default: 3 },
          template: { type: 'object', properties: { x: { type: 'string' } } },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          tags: { type: 'object', nullable: true, additionalProperties: { type: 'string' } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      };
    });
    await establish(crd);
    ns = await namespace();
    apiVersion = `${groupOf(crd)}/v1`;
    base = `/apis/${groupOf(crd)}/v1/namespaces/${ns}/crontabs`;
  });
  const applyCr = (name: string, spec: Json, manager: string) => server.request('PATCH', `${base}/${name}?fieldManager=${manager}`, {
    raw: JSON.stringify({ apiVersion, kind: 'CronTab', metadata: { name, namespace: ns }, spec }), headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  const fieldsOf = (obj: Json, manager: string) => obj.metadata.managedFields.find((e: Json) => e.manager === manager)?.fieldsV1;

  test('an empty struct applied is owned as a field; omitted later, it is removed', async () => {
    const first = await applyCr('empty', { foo: 'a', template: {} }, 'alice');
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(first.json.spec, { foo: 'a', size: 3, template: {} });
    assert.deepEqual(fieldsOf(first.json, 'alice'), { 'f:spec': { 'f:foo': {}, 'f:template': {} } });
    const second = await applyCr('empty', { foo: 'a' }, 'alice');
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.json.spec, { foo: 'a', size: 3 });
  });

  test('a map emptied by removal is null where the schema allows it, refused where it does not', async () => {
    assert.equal((await applyCr('emptied', { tags: {}, labels: {} }, 'bob')).status, 201);
    assert.equal((await applyCr('emptied', { foo: 'a', tags: { k: 'v' }, labels: { k: 'v' } }, 'alice')).status, 200);
    const refused = await applyCr('emptied', { foo: 'a', tags: {} }, 'alice');
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(refused.json.details.causes.map((c: Json) => `${c.field}: ${c.message}`), [
      'spec.labels: Invalid value: "null": spec.labels in body must be of type object: "null"',
    ]);
    const kept = await applyCr('emptied', { foo: 'a', labels: { k: 'v' } }, 'alice');
    assert.equal(kept.status, 200, kept.text);
    assert.deepEqual(kept.json.spec, { foo: 'a', size: 3, tags: null, labels: { k: 'v' } });
    assert.deepEqual(fieldsOf(kept.json, 'bob'), { 'f:spec': { 'f:labels': {}, 'f:tags': {} } });
    assert.deepEqual((await server.request('GET', `${base}/emptied`)).json.spec.tags, null);
  });

  test('an explicit null is validated: refused where the schema allows no null, kept where it does, defaulted where there is a default', async () => {
    const refused = await applyCr('nulls', { foo: null }, 'alice');
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.json.reason, 'Invalid');
    assert.deepEqual(refused.json.details.causes, [{
      reason: 'FieldValueTypeInvalid', field: 'spec.foo', message: 'Invalid value: "null": spec.foo in body must be of type string: "null"',
    }]);
    assert.equal((await server.request('GET', `${base}/nulls`)).status, 404);
    const kept = await applyCr('nulls', { maybe: null, size: null, free: { p: null } }, 'alice');
    assert.equal(kept.status, 201, kept.text);
    assert.deepEqual(kept.json.spec, { maybe: null, size: 3, free: { p: null } });
  });

  test('create and update bodies drop the nulls the schema allows no null for, in maps too', async () => {
    const created = await server.request('POST', base, { body: { apiVersion, kind: 'CronTab', metadata: { name: 'put-nulls' }, spec: { foo: null, labels: { a: null, b: 'x' } } } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.spec, { size: 3, labels: { b: 'x' } });
    const put = await server.request('PUT', `${base}/put-nulls`, {
      body: { ...created.json, spec: { foo: null, maybe: null, size: null, labels: { a: null }, tags: { t: null } } },
    });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.spec, { maybe: null, size: 3, labels: {}, tags: {} });
  });

  test('a field the schema does not declare fails the apply as upstream (500), whatever fieldValidation says', async () => {
    for (const query of ['', '&fieldValidation=Ignore', '&fieldValidation=Strict']) {
      const res = await server.request('PATCH', `${base}/undeclared?fieldManager=alice${query}`, {
        raw: JSON.stringify({ apiVersion, kind: 'CronTab', metadata: { name: 'undeclared', namespace: ns }, spec: { foo: 'a', bogus: 1 } }),
        headers: { 'content-type': 'application/apply-patch+yaml' },
      });
      assert.equal(res.status, 500, res.text);
      assert.equal(res.json.message, `failed to create typed patch object (${ns}/undeclared; ${apiVersion}, Kind=CronTab): .spec.bogus: field not declared in schema`);
      assert.equal(res.json.reason, undefined);
    }
    assert.equal((await server.request('GET', `${base}/undeclared`)).status, 404);
    const free = await applyCr('undeclared', { free: { anything: { deep: 1 } } }, 'alice');
    assert.equal(free.status, 201, free.text);
    assert.deepEqual(free.json.spec.free, { anything: { deep: 1 } });
  });
});

test('a version added by an update is served at once; every version reads the same objects', async () => {
  const crd = crontabCrd();
  const stored = await establish(crd);
  const group = groupOf(crd);
  const ns = await namespace();
  assert.equal((await server.request('POST', `/apis/${group}/v1/namespaces/${ns}/crontabs`, { body: { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'shared' }, spec: { replicas: 2 } } })).status, 201);
  const updated = structuredClone(stored);
  updated.spec.versions.push({ ...structuredClone(updated.spec.versions[0]), name: 'v1beta1', storage: false });
  const put = await server.request('PUT', `${crdsPath}/${crd.metadata.name}`, { body: updated });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.json.metadata.generation, 2);
  const beta = await eventually(async () => {
    const res = await server.request('GET', `/apis/${group}/v1beta1/namespaces/${ns}/crontabs/shared`);
    assert.equal(res.status, 200, 'v1beta1 served');
    return res.json;
  });
  assert.equal(beta.apiVersion, `${group}/v1beta1`);
  assert.equal(beta.spec.replicas, 2);
  const groupDoc = await server.request('GET', `/apis/${group}`);
  assert.deepEqual(groupDoc.json.versions.map((v: Json) => v.version), ['v1', 'v1beta1']);
  assert.equal(groupDoc.json.preferredVersion.version, 'v1');
  // Every served version names the storage version (v1) in discovery, as upstream.
  const betaResources = (await server.request('GET', `/apis/${group}/v1beta1`)).json.resources;
  assert.equal(betaResources[0].storageVersionHash, storageVersionHash(group, 'v1', 'CronTab'));
  assert.equal((await server.request('GET', `/apis/${group}/v1/namespaces/${ns}/crontabs/shared`)).json.apiVersion, `${group}/v1`);
});

test('a list a CRD update makes atomic: the next write by anyone gives its item owners the list itself, as upstream reconciles managed fields', async () => {
  const crd = crontabCrd((c) => {
    c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.hosts = { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' };
  });
  const stored = await establish(crd);
  const group = groupOf(crd);
  const ns = await namespace();
  const base = `/apis/${group}/v1/namespaces/${ns}/crontabs`;
  const applied = await server.request('PATCH', `${base}/web?fieldManager=alice`, {
    raw: JSON.stringify({ apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'web' }, spec: { hosts: ['a', 'b'] } }), headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  assert.equal(applied.status, 201, applied.text);
  const alice = (obj: Json) => obj.metadata.managedFields.find((e: Json) => e.manager === 'alice').fieldsV1['f:spec'];
  assert.deepEqual(alice(applied.json), { 'f:hosts': { 'v:"a"': {}, 'v:"b"': {} } });
  const updated = structuredClone(stored);
  updated.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.hosts['x-kubernetes-list-type'] = 'atomic';
  assert.equal((await server.request('PUT', `${crdsPath}/${crd.metadata.name}`, { body: updated })).status, 200);
  // Once the new schema is served, a write that touches neither alice's fields nor the list reconciles hers.
  await eventually(async () => {
    const patched = await server.request('PATCH', `${base}/web?fieldManager=bob`, { raw: JSON.stringify({ spec: { cronSpec: `${Date.now() % 59} * * * *` } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(alice(patched.json), { 'f:hosts': {} });
  });
});

describe('deleting a CRD', () => {
  test('deletes its objects, then goes, and its resource is no longer served', async () => {
    const crd = crontabCrd();
    await establish(crd);
    const ns = await namespace();
    const base = `/apis/${groupOf(crd)}/v1/namespaces/${ns}/crontabs`;
    for (const name of ['a', 'b']) {
      assert.equal((await server.request('POST', base, { body: { apiVersion: `${groupOf(crd)}/v1`, kind: 'CronTab', metadata: { name }, spec: {} } })).status, 201);
    }
    const del = await server.request('DELETE', `${crdsPath}/${crd.metadata.name}`);
    assert.ok(del.status === 200 || del.status === 202, del.text);
    assert.deepEqual(del.json.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    await eventually(async () => assert.equal((await server.request('GET', `${crdsPath}/${crd.metadata.name}`)).status, 404, 'the CRD is gone'));
    assert.equal((await server.request('GET', base)).status, 404);
    assert.equal((await server.request('GET', `/apis/${groupOf(crd)}/v1`)).status, 404);
    const index = await server.request('GET', '/openapi/v3');
    assert.equal(index.status, 200);
    assert.equal(index.json.paths[`apis/${groupOf(crd)}/v1`], undefined);
    // Created again, it starts empty: the objects were deleted, not hidden.
    await establish(crd);
    assert.deepEqual((await server.request('GET', base)).json.items, []);
  });

  test('while its objects are kept by finalizers, it stays and creates are refused', async () => {
    const crd = crontabCrd();
    await establish(crd);
    const ns = await namespace();
    const base = `/apis/${groupOf(crd)}/v1/namespaces/${ns}/crontabs`;
    await server.request('POST', base, { body: { apiVersion: `${groupOf(crd)}/v1`, kind: 'CronTab', metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: {} } });
    await server.request('DELETE', `${crdsPath}/${crd.metadata.name}`);
    const terminating = await eventually(async () => {
      const got = await server.request('GET', `${crdsPath}/${crd.metadata.name}`);
      const c = got.json.status?.conditions?.find((x: Json) => x.type === 'Terminating');
      assert.equal(c?.reason, 'InstanceDeletionInProgress', 'Terminating in progress');
      return c;
    });
    assert.equal(terminating.status, 'True');
    const refused = await server.request('POST', base, { body: { apiVersion: `${groupOf(crd)}/v1`, kind: 'CronTab', metadata: { name: 'late' }, spec: {} } });
    assert.equal(refused.status, 405, refused.text);
    assert.equal(refused.json.message, 'create not allowed while custom resource definition is terminating');
    const held = await server.request('GET', `${base}/held`);
    assert.ok(held.json.metadata.deletionTimestamp);
    await server.request('PATCH', `${base}/held`, { raw: '{"metadata":{"finalizers":null}}', headers: { 'content-type': 'application/merge-patch+json' } });
    await eventually(async () => assert.equal((await server.request('GET', `${crdsPath}/${crd.metadata.name}`)).status, 404, 'the CRD is gone'));
  });
});

test('after a restart, stored CRDs are served before the server answers', async () => {
  const dataDir = tempDir();
  try {
    const first = await startServer({ storage: 'sqlite', dataDir });
    const crd = crontabCrd();
    try {
      await establish(crd, first);
      const res = await first.request('POST', `/apis/${groupOf(crd)}/v1/namespaces/default/crontabs`, { body: { apiVersion: `${groupOf(crd)}/v1`, kind: 'CronTab', metadata: { name: 'kept' }, spec: { cronSpec: '* * * * *' } } });
      assert.equal(res.status, 201, res.text);
    } finally {
      await first.stop();
    }
    const second = await startServer({ storage: 'sqlite', dataDir });
    try {
      const got = await second.request('GET', `/apis/${groupOf(crd)}/v1/namespaces/default/crontabs/kept`);
      assert.equal(got.status, 200, got.text);
      assert.equal(got.json.spec.image, 'busybox');
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

const kubectlBin = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

describe('kubectl 1.33', { skip: existsSync(kubectlBin) ? false : `kubectl 1.33 is not installed at ${kubectlBin}` }, () => {
  const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));
  const manifests = mkdtempSync(path.join(os.tmpdir(), 'crd-manifests-'));
  after(() => {
    rmSync(cacheDir, { recursive: true, force: true });
    rmSync(manifests, { recursive: true, force: true });
  });
  const kubectl = async (...args: string[]) => {
    try {
      const { stdout } = await run(kubectlBin, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', cacheDir, ...args], { timeout: 30_000 });
      return stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`kubectl ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
    }
  };

  test('apply -f a CRD, wait for it, apply a custom resource, get it with printer columns, scale it', async () => {
    const group = `kubectl${++counter}.example.com`;
    const ns = await namespace();
    const crdFile = path.join(manifests, 'crd.yaml');
    writeFileSync(crdFile, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.${group}
spec:
  group: ${group}
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [kct${counter}]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cronSpec: {type: string}
              image: {type: string, default: busybox}
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
`);
    assert.match(await kubectl('apply', '-f', crdFile), /customresourcedefinition\.apiextensions\.k8s\.io\/crontabs\.\S+ created/);
    await kubectl('wait', '--for', 'condition=established', '--timeout=10s', `crd/crontabs.${group}`);
    const crFile = path.join(manifests, 'cr.yaml');
    writeFileSync(crFile, `apiVersion: ${group}/v1
kind: CronTab
metadata:
  name: nightly
  namespace: ${ns}
spec:
  cronSpec: "0 0 * * *"
  replicas: 2
`);
    assert.match(await kubectl('apply', '-f', crFile), /crontab\.\S+\/nightly created/);
    const table = await kubectl('-n', ns, 'get', `crontabs.${group}`);
    const [header, row] = table.trim().split('\n');
    assert.match(header!, /^NAME\s+SPEC\s+REPLICAS$/);
    assert.match(row!, /^nightly\s+0 0 \* \* \*\s+2$/);

    // Client-side apply again with a change: a JSON merge patch, as kubectl sends for custom resources.
    writeFileSync(crFile, `apiVersion: ${group}/v1
kind: CronTab
metadata:
  name: nightly
  namespace: ${ns}
spec:
  cronSpec: "0 1 * * *"
  replicas: 2
`);
    assert.match(await kubectl('apply', '-f', crFile), /configured/);
    assert.match(await kubectl('-n', ns, 'scale', `crontabs.${group}/nightly`, '--replicas=4'), /scaled/);
    const json = JSON.parse(await kubectl('-n', ns, 'get', `kct${counter}`, 'nightly', '-o', 'json'));
    assert.deepEqual(json.spec, { cronSpec: '0 1 * * *', replicas: 4, image: 'busybox' });
    assert.match(await kubectl('api-resources', '--api-group', group), new RegExp(`^crontabs\\s+kct${counter}\\s+${group.replace(/\./g, '\\.')}/v1\\s+true\\s+CronTab$`, 'm'));

    assert.match(await kubectl('delete', '-f', crdFile), /deleted/);
    assert.equal((await server.request('GET', `/apis/${group}/v1/namespaces/${ns}/crontabs`)).status, 404);
  });

  test('get of a CRD without printer columns shows Name and Age', async () => {
    const crd = crontabCrd((c) => { delete c.spec.versions[0].additionalPrinterColumns; });
    await establish(crd);
    const ns = await namespace();
    await server.request('POST', `/apis/${groupOf(crd)}/v1/namespaces/${ns}/crontabs`, { body: { apiVersion: `${groupOf(crd)}/v1`, kind: 'CronTab', metadata: { name: 'plain' }, spec: {} } });
    const out = await kubectl('-n', ns, 'get', `crontabs.${groupOf(crd)}`);
    const [header, row] = out.trim().split('\n');
    assert.match(header!, /^NAME\s+AGE$/);
    assert.match(row!, /^plain\s+\d+s$/);
  });
});
