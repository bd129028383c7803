// A CRD whose versions convert by webhook (spec.conversion.strategy Webhook): objects are
// stored in the storage version whichever version wrote them, read in the version asked
// for, a list's objects converted in one review; the webhook's answers are checked as
// upstream checks them, and its failures answered with upstream's errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';
import { kubectl, needsKubectl } from '../helpers/kubectl.ts';
import { allow, patch, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.ts';

type Json = Record<string, any>;

const crdsPath = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

let server: TestServer;
let hooks: WebhookServer;
before(async () => {
  // The certificate also names the Service a test reaches the webhook by.
  [server, hooks] = await Promise.all([startServer(), startWebhookServer({ hosts: ['converter.default.svc'] })]);
});
after(async () => {
  await Promise.all([server?.stop(), hooks?.close()]);
});

let counter = 0;

/** v1 says spec.size ("3"), v2 spec.replicas (3); v2 stores. */
function widgetCrd(path: string, edit: (c: Json) => void = () => {}): Json {
  const group = `conv${++counter}.example.com`;
  const version = (name: string, spec: Json) => ({
    name,
    served: true,
    storage: name === 'v2',
    schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } },
  });
  const c: Json = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [version('v1', { size: { type: 'string' } }), version('v2', { replicas: { type: 'integer' } })],
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: { url: `${hooks.url}${path}`, caBundle: hooks.caBundle }, conversionReviewVersions: ['v1'] },
      },
    },
  };
  edit(c);
  return c;
}

/** Converts between the two versions' specs. */
function convert(obj: Json, to: string): Json {
  const out = structuredClone(obj);
  out.apiVersion = to;
  const spec = out.spec ?? {};
  if (to.endsWith('/v2') && 'size' in spec) {
    spec.replicas = Number(spec.size);
    delete spec.size;
  } else if (to.endsWith('/v1') && 'replicas' in spec) {
    spec.size = String(spec.replicas);
    delete spec.replicas;
  }
  return out;
}

/** A ConversionReview answer; `edit` changes the converted objects or the response. */
function answer(review: Json, edit: (response: Json) => void = () => {}): { raw: string } {
  const { uid, desiredAPIVersion, objects } = review.request;
  const response: Json = { uid, result: { status: 'Success' }, convertedObjects: objects.map((o: Json) => convert(o, desiredAPIVersion)) };
  edit(response);
  return { raw: JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response }) };
}

async function establish(crd: Json): Promise<void> {
  const res = await server.request('POST', crdsPath, { body: crd });
  assert.equal(res.status, 201, res.text);
  await eventually(async () => {
    for (const v of ['v1', 'v2']) {
      assert.equal((await server.request('GET', `/apis/${crd.spec.group}/${v}/namespaces/default/widgets`)).status, 200, `${v} served`);
    }
  });
}

/** A widgets CRD converting at `path`, established; its group. */
async function establishWidgets(path: string, edit?: (c: Json) => void): Promise<{ crd: Json; group: string }> {
  const crd = widgetCrd(path, edit);
  await establish(crd);
  return { crd, group: crd.spec.group };
}

const widget = (group: string, version: string, name: string, spec: Json) => ({ apiVersion: `${group}/${version}`, kind: 'Widget', metadata: { name }, spec });

describe('a CRD converting by webhook', () => {
  test('stores objects in the storage version and reads them in the version asked for', async () => {
    const path = '/convert-basic';
    hooks.handle(path, (review) => answer(review));
    const { group } = await establishWidgets(path);
    const base = (v: string) => `/apis/${group}/${v}/namespaces/default/widgets`;

    const created = await server.request('POST', base('v1'), { body: widget(group, 'v1', 'small', { size: '3' }) });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.apiVersion, `${group}/v1`);
    // The write went to the webhook to be stored as v2.
    const toStorage = hooks.received(path).find((r) => r.review.request.desiredAPIVersion === `${group}/v2`);
    assert.ok(toStorage, 'converted to the storage version');
    assert.equal(toStorage.review.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(toStorage.query, 'timeout=30s');
    assert.deepEqual(toStorage.review.request.objects.map((o: Json) => [o.apiVersion, o.spec]), [[`${group}/v1`, { size: '3' }]]);

    const v2 = await server.request('GET', `${base('v2')}/small`);
    assert.equal(v2.status, 200, v2.text);
    assert.equal(v2.json.apiVersion, `${group}/v2`);
    assert.deepEqual(v2.json.spec, { replicas: 3 });
    assert.equal(v2.json.metadata.uid, created.json.metadata.uid);

    const v1 = await server.request('GET', `${base('v1')}/small`);
    assert.deepEqual([v1.json.apiVersion, v1.json.spec], [`${group}/v1`, { size: '3' }]);

    // Server-side apply through v1 of an object stored as v2.
    const applied = await server.request('PATCH', `${base('v1')}/small?fieldManager=tester&force=true`, {
      raw: JSON.stringify(widget(group, 'v1', 'small', { size: '5' })), headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal(applied.status, 200, applied.text);
    assert.deepEqual([applied.json.apiVersion, applied.json.spec], [`${group}/v1`, { size: '5' }]);
    assert.deepEqual((await server.request('GET', `${base('v2')}/small`)).json.spec, { replicas: 5 });
    const patched = await server.request('PATCH', `${base('v2')}/small`, { raw: '{"spec":{"replicas":3}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);

    // A list's objects in one review.
    assert.equal((await server.request('POST', base('v2'), { body: widget(group, 'v2', 'large', { replicas: 9 }) })).status, 201);
    const before = hooks.received(path).length;
    const list = await server.request('GET', base('v1'));
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.items.map((o: Json) => [o.metadata.name, o.apiVersion, o.spec]), [
      ['large', `${group}/v1`, { size: '9' }],
      ['small', `${group}/v1`, { size: '3' }],
    ]);
    // (The v1 watch cache converts each event on its own meanwhile.)
    const reviews = hooks.received(path).slice(before).filter((r) => r.review.request.objects.length > 1);
    assert.deepEqual(reviews.map((r) => r.review.request.objects.map((o: Json) => o.metadata.name)), [['large', 'small']], 'one review for the list');

    // A watch of v1 sees a write through v2 converted.
    const current = (await server.request('GET', `${base('v2')}/large`)).json;
    current.spec.replicas = 10;
    assert.equal((await server.request('PUT', `${base('v2')}/large`, { body: current })).status, 200);
    const watched = await server.request('GET', `${base('v1')}?watch=true&resourceVersion=${list.json.metadata.resourceVersion}&timeoutSeconds=1`);
    const events = watched.text.trim().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(events.map((e: Json) => [e.type, e.object.apiVersion, e.object.spec]), [['MODIFIED', `${group}/v1`, { size: '10' }]]);
  });

  test('a write\'s answer is the object read back from storage, as upstream answers', async () => {
    const path = '/convert-clamp';
    // Stored as v2, replicas are at most 10.
    hooks.handle(path, (review) => answer(review, (r) => {
      for (const o of r.convertedObjects) if (typeof o.spec?.replicas === 'number') o.spec.replicas = Math.min(o.spec.replicas, 10);
    }));
    const { group } = await establishWidgets(path);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const created = await server.request('POST', base, { body: widget(group, 'v1', 'big', { size: '50' }) });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual([created.json.apiVersion, created.json.spec], [`${group}/v1`, { size: '10' }]);
    const updated = await server.request('PUT', `${base}/big`, { body: { ...created.json, spec: { size: '70' } } });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.json.spec, { size: '10' });
    assert.equal(updated.json.metadata.resourceVersion, (await server.request('GET', `${base}/big`)).json.metadata.resourceVersion);
    // A dry run too: converted there and back, nothing stored.
    const dry = await server.request('POST', `${base}?dryRun=All`, { body: widget(group, 'v1', 'dry', { size: '50' }) });
    assert.equal(dry.status, 201, dry.text);
    assert.deepEqual([dry.json.spec, dry.json.metadata.resourceVersion], [{ size: '10' }, undefined]);
    assert.equal((await server.request('GET', `${base}/dry`)).status, 404);
    const dryUpdate = await server.request('PUT', `${base}/big?dryRun=All`, { body: { ...updated.json, spec: { size: '90' } } });
    assert.deepEqual([dryUpdate.json.spec, dryUpdate.json.metadata.resourceVersion], [{ size: '10' }, updated.json.metadata.resourceVersion]);
  });

  test('keeps the original metadata but the labels and annotations the webhook set', async () => {
    const path = '/convert-metadata';
    hooks.handle(path, (review) => answer(review, (response) => {
      for (const o of response.convertedObjects) {
        o.metadata.labels = { converted: 'yes' };
        o.metadata.generation = 42;
        o.metadata.finalizers = ['example.com/sneaky'];
      }
    }));
    const { group } = await establishWidgets(path);
    const created = await server.request('POST', `/apis/${group}/v2/namespaces/default/widgets`, { body: widget(group, 'v2', 'w', { replicas: 1 }) });
    assert.equal(created.status, 201, created.text);
    const v1 = await server.request('GET', `/apis/${group}/v1/namespaces/default/widgets/w`);
    assert.equal(v1.status, 200, v1.text);
    assert.deepEqual(v1.json.metadata.labels, { converted: 'yes' });
    assert.equal(v1.json.metadata.generation, 1);
    assert.equal(v1.json.metadata.finalizers, undefined);
  });

  test('answers what is wrong with the webhook or its answer, as upstream', async () => {
    const path = '/convert-bad';
    let mode = 'uid';
    hooks.handle(path, (review) => {
      switch (mode) {
        case 'uid': return answer(review, (r) => { r.uid = 'not-the-request'; });
        case 'failed': return answer(review, (r) => { r.result = { status: 'Failure', message: 'cannot convert widgets today' }; });
        case 'count': return answer(review, (r) => { r.convertedObjects = []; });
        case 'version': return answer(review, (r) => { r.convertedObjects[0].apiVersion = 'other.example.com/v9'; });
        case 'name': return answer(review, (r) => { r.convertedObjects[0].metadata.name = 'renamed'; });
        case 'kindless': return answer(review, (r) => { delete r.convertedObjects[0].kind; });
        case 'label': return answer(review, (r) => { r.convertedObjects[0].metadata.labels = { 'bad key!': 'x' }; });
        default: return { raw: 'not json', status: 500 };
      }
    });
    const { crd, group } = await establishWidgets(path);
    // Written in the storage version: no conversion.
    assert.equal((await server.request('POST', `/apis/${group}/v2/namespaces/default/widgets`, { body: widget(group, 'v2', 'w', { replicas: 1 }) })).status, 201);
    const gvk = `${group}/v2, Kind=Widget`;
    const expected: Record<string, string> = {
      uid: `conversion webhook for ${gvk} failed: expected response.uid=`,
      failed: `conversion webhook for ${gvk} failed: cannot convert widgets today`,
      count: `conversion webhook for ${gvk} returned 0 objects, expected 1`,
      version: `conversion webhook for ${gvk} returned invalid object at index 0: invalid groupVersion (expected ${group}/v1, received other.example.com/v9)`,
      name: `conversion webhook for ${gvk} returned invalid object: must have the same name: w != renamed`,
      kindless: `Object 'Kind' is missing in '{"apiVersion":"${group}/v1",`,
      label: `conversion webhook for ${gvk} returned invalid metadata: metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters`,
      status: `conversion webhook for ${gvk} failed: an error on the server ("not json") has prevented the request from succeeding`,
    };
    for (const [m, message] of Object.entries(expected)) {
      mode = m;
      const res = await server.request('GET', `/apis/${group}/v1/namespaces/default/widgets/w`);
      assert.equal(res.status, 500, `${m}: ${res.text}`);
      assert.equal(res.json.reason, undefined, m);
      assert.ok(res.json.message.startsWith(message), `${m}: ${res.json.message}`);
    }

    // Each call counted by its failure type, and timed by CRD and versions.
    const metrics = (await server.request('GET', '/metrics')).text;
    const count = (failureType: string) => Number(new RegExp(`^apiserver_conversion_webhook_request_total\\{(?=[^}]*result="failure")(?=[^}]*failure_type="${failureType}")[^}]*\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    assert.ok(count('conversion_webhook_malformed_response_failure') >= 2, 'uid and result');
    assert.ok(count('conversion_webhook_partial_response_failure') >= 1, 'count');
    assert.ok(count('conversion_webhook_invalid_converted_object_failure') >= 3, 'version, name, label');
    assert.ok(count('conversion_webhook_call_failure') >= 1, 'an error status');
    assert.match(metrics, new RegExp(`^apiserver_crd_conversion_webhook_duration_seconds_count\\{(?=[^}]*crd_name="${crd.metadata.name}")(?=[^}]*from_version="v2")(?=[^}]*to_version="v1")(?=[^}]*succeeded="false")[^}]*\\} \\d+$`, 'm'));
    assert.match(metrics, /^apiserver_crd_conversion_webhook_duration_seconds_bucket\{[^}]*le="0\.008"[^}]*\} \d+$/m);

    // A write that cannot be converted to the storage version is an internal error.
    mode = 'failed';
    const create = await server.request('POST', `/apis/${group}/v1/namespaces/default/widgets`, { body: widget(group, 'v1', 'x', { size: '2' }) });
    assert.equal(create.status, 500, create.text);
    assert.equal(create.json.reason, 'InternalError');
    assert.equal(create.json.message, `Internal error occurred: conversion webhook for ${group}/v1, Kind=Widget failed: cannot convert widgets today`);
    assert.equal((await server.request('GET', `/apis/${group}/v2/namespaces/default/widgets/x`)).status, 404, 'nothing stored');
    // A dry run predicts it.
    const dry = await server.request('POST', `/apis/${group}/v1/namespaces/default/widgets?dryRun=All`, { body: widget(group, 'v1', 'x', { size: '2' }) });
    assert.deepEqual([dry.status, dry.json.reason], [500, 'InternalError']);
  });

  test('admission webhooks for another version see the object converted to it (matchPolicy Equivalent)', async () => {
    const path = '/convert-admission';
    hooks.handle(path, (review) => answer(review));
    const { group } = await establishWidgets(path);
    // Both webhooks know only v2; the mutating one bumps spec.replicas and labels the object.
    hooks.handle('/mutate-v2', (review) => patch([
      { op: 'replace', path: '/spec/replicas', value: review.request.object.spec.replicas + 1 },
      { op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } },
    ]));
    hooks.handle('/validate-v2', () => allow());
    const rules = [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v2'], resources: ['widgets'] }];
    const hook = (name: string, hookPath: string, extra: Json = {}) => ({
      name, rules, sideEffects: 'None', admissionReviewVersions: ['v1'], clientConfig: { url: `${hooks.url}${hookPath}`, caBundle: hooks.caBundle }, ...extra,
    });
    const configs: Array<[string, Json]> = [
      ['/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: `m-${group}` }, webhooks: [hook('mutate.example.com', '/mutate-v2')] }],
      ['/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: `v-${group}` }, webhooks: [hook('validate.example.com', '/validate-v2'), hook('exact.example.com', '/validate-exact', { matchPolicy: 'Exact' })] }],
    ];
    for (const [collection, body] of configs) assert.equal((await server.request('POST', collection, { body })).status, 201);
    try {
      const created = await eventually(async () => {
        const res = await server.request('POST', `/apis/${group}/v1/namespaces/default/widgets`, { body: widget(group, 'v1', `w${hooks.received('/validate-v2').length}`, { size: '3' }) });
        assert.equal(res.status, 201, res.text);
        assert.equal(res.json.metadata.labels?.mutated, 'yes', 'the mutating webhook was called');
        return res.json;
      });
      // The mutation came back in v1.
      assert.deepEqual([created.apiVersion, created.spec], [`${group}/v1`, { size: '4' }]);
      const mutate = hooks.received('/mutate-v2').at(-1)!.review.request;
      assert.deepEqual([mutate.kind, mutate.resource], [{ group, version: 'v2', kind: 'Widget' }, { group, version: 'v2', resource: 'widgets' }]);
      assert.deepEqual([mutate.requestKind, mutate.requestResource], [{ group, version: 'v1', kind: 'Widget' }, { group, version: 'v1', resource: 'widgets' }]);
      assert.deepEqual([mutate.object.apiVersion, mutate.object.spec], [`${group}/v2`, { replicas: 3 }]);
      const validate = hooks.received('/validate-v2').at(-1)!.review.request;
      assert.deepEqual([validate.object.apiVersion, validate.object.spec, validate.object.metadata.labels], [`${group}/v2`, { replicas: 4 }, { mutated: 'yes' }]);
      assert.deepEqual(hooks.received('/validate-exact'), [], 'matchPolicy Exact: not called for v1');
    } finally {
      for (const [collection, body] of configs) await server.request('DELETE', `${collection}/${body.metadata.name}`);
    }
  });

  test('a webhook that cannot be reached, and v1beta1 reviews', async () => {
    const path = '/convert-beta';
    hooks.handle(path, (review) => answer(review, (r) => { delete r.uid; }));
    const { group } = await establishWidgets(path, (c) => { c.spec.conversion.webhook.conversionReviewVersions = ['v1beta1']; });
    const created = await server.request('POST', `/apis/${group}/v1/namespaces/default/widgets`, { body: widget(group, 'v1', 'w', { size: '5' }) });
    assert.equal(created.status, 201, created.text);
    assert.equal(hooks.received(path)[0]!.review.apiVersion, 'apiextensions.k8s.io/v1beta1');
    assert.deepEqual((await server.request('GET', `/apis/${group}/v2/namespaces/default/widgets/w`)).json.spec, { replicas: 5 });

    // A service reference: called at the service (an ExternalName one here: the webhook
    // server listens on loopback, which an EndpointSlice may not name), its certificate
    // checked for the service's name.
    const servicePath = '/convert-service';
    hooks.handle(servicePath, (review) => answer(review));
    const viaService = (name: string) => widgetCrd(servicePath, (c) => {
      c.spec.conversion.webhook.clientConfig = { service: { namespace: 'default', name, path: servicePath, port: hooks.port }, caBundle: hooks.caBundle };
    });
    const far = viaService('converter');
    await establish(far);
    const farGroup = far.spec.group;
    assert.equal((await server.request('POST', `/apis/${farGroup}/v2/namespaces/default/widgets`, { body: widget(farGroup, 'v2', 'w', { replicas: 1 }) })).status, 201);
    const read = () => server.request('GET', `/apis/${farGroup}/v1/namespaces/default/widgets/w`);
    const missing = await read();
    assert.equal(missing.status, 500);
    assert.equal(missing.json.message, `conversion webhook for ${farGroup}/v2, Kind=Widget failed: Post "https://converter.default.svc:${hooks.port}${servicePath}?timeout=30s": service "converter" not found`);
    const service = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } });
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/services', { body: service('converter') })).status, 201);
    await eventually(async () => assert.deepEqual((await read()).json.spec, { size: '1' }));

    const stranger = viaService('stranger');
    await establish(stranger);
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/services', { body: service('stranger') })).status, 201);
    assert.equal((await server.request('POST', `/apis/${stranger.spec.group}/v2/namespaces/default/widgets`, { body: widget(stranger.spec.group, 'v2', 'w', { replicas: 1 }) })).status, 201);
    const untrusted = await eventually(async () => {
      const res = await server.request('GET', `/apis/${stranger.spec.group}/v1/namespaces/default/widgets/w`);
      assert.equal(res.status, 500, res.text);
      assert.doesNotMatch(res.json.message, /not found/);
      return res.json.message;
    });
    assert.match(untrusted, /: tls: failed to verify certificate: x509: certificate is valid for .*converter\.default\.svc.*, not stranger\.default\.svc$/, 'the certificate does not name the service');
  });

  test('managers of the other version own fields as the webhook converts them', async () => {
    const path = '/convert-managers';
    hooks.handle(path, (review) => answer(review));
    const { group } = await establishWidgets(path);
    const item = (v: string) => `/apis/${group}/${v}/namespaces/default/widgets/w`;
    const apply = (v: string, spec: Json, manager: string, force = false) => server.request('PATCH', `${item(v)}?fieldManager=${manager}${force ? '&force=true' : ''}`, {
      raw: JSON.stringify(widget(group, v, 'w', spec)), headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal((await apply('v2', { replicas: 3 }, 'v2-applier')).status, 201);
    // v1's size is v2's replicas: a conflict, named as the v2 applier owns it.
    const clash = await apply('v1', { size: '4' }, 'v1-applier');
    assert.equal(clash.status, 409, clash.text);
    assert.deepEqual(clash.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "v2-applier"', field: '.spec.replicas' }]);
    const forced = await apply('v1', { size: '4' }, 'v1-applier', true);
    assert.equal(forced.status, 200, forced.text);
    const owners = Object.fromEntries(forced.json.metadata.managedFields.map((e: Json) => [e.manager, [e.apiVersion, e.fieldsV1]]));
    assert.deepEqual(owners, { 'v1-applier': [`${group}/v1`, { 'f:spec': { 'f:size': {} } }] }, 'the v2 applier lost the replicas, its only field');
    // An update through v2 takes the size from the v1 applier.
    const put = await server.request('PATCH', `${item('v2')}?fieldManager=editor`, { raw: '{"spec":{"replicas":6}}', headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(put.status, 200, put.text);
    assert.deepEqual(put.json.metadata.managedFields.map((e: Json) => [e.manager, e.operation, e.fieldsV1]), [['editor', 'Update', { 'f:spec': { 'f:replicas': {} } }]]);

    // A create sending managed fields of the other version: its writer takes what it set, as converted.
    const sent = { manager: 'old', operation: 'Apply', apiVersion: `${group}/v2`, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } };
    const created = await server.request('POST', `/apis/${group}/v1/namespaces/default/widgets?fieldManager=creator`, {
      body: { ...widget(group, 'v1', 'w2', { size: '2' }), metadata: { name: 'w2', managedFields: [sent] } },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json.metadata.managedFields.map((e: Json) => [e.manager, e.fieldsV1]), [['creator', { 'f:spec': { '.': {}, 'f:size': {} } }]]);
  });
});

describe('kubectl and a CRD converting by webhook', needsKubectl, () => {
  test('gets each version as converted, and prints upstream\'s error when the webhook cannot be reached', async () => {
    const path = '/convert-kubectl';
    let up = true;
    hooks.handle(path, (review) => (up ? answer(review) : { raw: 'down', status: 503 }));
    const { group } = await establishWidgets(path);
    assert.equal((await server.request('POST', `/apis/${group}/v2/namespaces/default/widgets`, { body: widget(group, 'v2', 'k', { replicas: 2 }) })).status, 201);
    const spec = (version: string) => kubectl(server, 'get', `widgets.${version}.${group}`, 'k', '-n', 'default', '-o', 'jsonpath={.apiVersion} {.spec}');
    assert.equal(await spec('v1'), `${group}/v1 {"size":"2"}`);
    assert.equal(await spec('v2'), `${group}/v2 {"replicas":2}`);
    up = false;
    await assert.rejects(spec('v1'), (err: Error) => err.message.includes(`Error from server: conversion webhook for ${group}/v2, Kind=Widget failed: the server is currently unable to handle the request`));
    assert.equal(await spec('v2'), `${group}/v2 {"replicas":2}`, 'the storage version needs no webhook');
  });
});
