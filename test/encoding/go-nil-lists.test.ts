// A built-in object's slice or map without omitempty that the client left out (or sent as
// null) is nil in its Go type, which encoding/json writes as null: kube-apiserver answers a
// Role created without rules with `"rules": null` on every read. The null is no one's field:
// the field manager compares a create with a new Go object, which holds it too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../../src/cli/config.ts';
import { decodeCborObject } from '../../src/encoding/cbor.ts';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/encoding/protobuf/index.ts';
import { openStream, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const rbac = 'rbac.authorization.k8s.io/v1';
const applyHeaders = { 'content-type': 'application/apply-patch+yaml' };

test('a Role created without rules is answered with rules: null by create, get, list and watch, in JSON and YAML', async () => {
  const ns = await server.newNamespace('nil-rules');
  const roles = `/apis/${rbac}/namespaces/${ns}/roles`;
  const created = await server.request('POST', `${roles}?fieldManager=creator`, { body: { apiVersion: rbac, kind: 'Role', metadata: { name: 'r' } } });
  assert.equal(created.status, 201, created.text);
  assert.ok(Object.hasOwn(created.json, 'rules'), created.text);
  assert.equal(created.json.rules, null);
  // Sent as null, it is the same nil slice.
  const sentNull = await server.request('POST', roles, { body: { apiVersion: rbac, kind: 'Role', metadata: { name: 'n' }, rules: null } });
  assert.equal(sentNull.status, 201, sentNull.text);
  assert.equal(sentNull.json.rules, null);

  const got = await server.request('GET', `${roles}/r`);
  assert.equal(got.json.rules, null);
  assert.match(got.text, /"rules":null/);
  const yaml = await server.request('GET', `${roles}/r`, { headers: { accept: 'application/yaml' } });
  assert.match(yaml.text, /^rules: null$/m);
  const list = await server.request('GET', roles);
  assert.deepEqual(list.json.items.map((r: { rules: unknown }) => r.rules), [null, null]);
  const yamlList = await server.request('GET', roles, { headers: { accept: 'application/yaml' } });
  assert.equal(yamlList.text.match(/^ {2}rules: null$/gm)?.length, 2, yamlList.text);

  const watch = await openStream(server, `${roles}?watch=true&resourceVersion=0`);
  try {
    const event = await watch.next();
    assert.equal(event.type, 'ADDED');
    assert.ok(Object.hasOwn(event.object, 'rules'));
    assert.equal(event.object.rules, null);
  } finally {
    watch.close();
  }

  // In Protobuf a nil list is no field at all: the answer is the encoding of the Role without
  // rules, and reads back (as Go reads it) with rules nil, null.
  const proto = await server.request('GET', `${roles}/r`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
  assert.equal(proto.status, 200);
  const { rules: _rules, ...withoutRules } = got.json;
  assert.deepEqual(new Uint8Array(proto.bytes), encodeProtobufObject(withoutRules));
  const decoded = decodeProtobufObject(proto.bytes);
  assert.ok(Object.hasOwn(decoded, 'rules'));
  assert.equal(decoded.rules, null);
});

test('the null of a Role created without rules is no one\'s: a later apply of rules by another manager does not conflict', async () => {
  const ns = await server.newNamespace('nil-rules-apply');
  const roles = `/apis/${rbac}/namespaces/${ns}/roles`;
  const created = await server.request('POST', `${roles}?fieldManager=creator`, { body: { apiVersion: rbac, kind: 'Role', metadata: { name: 'r', labels: { a: 'b' } } } });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.metadata.managedFields.map((e: { fieldsV1: unknown }) => e.fieldsV1), [{ 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }]);

  const rule = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
  const applied = await server.request('PATCH', `${roles}/r?fieldManager=applier`, {
    raw: JSON.stringify({ apiVersion: rbac, kind: 'Role', metadata: { name: 'r' }, rules: [rule] }), headers: applyHeaders,
  });
  assert.equal(applied.status, 200, applied.text);
  assert.deepEqual(applied.json.rules, [rule]);
  const applier = applied.json.metadata.managedFields.find((e: { manager: string }) => e.manager === 'applier');
  assert.deepEqual(applier.fieldsV1, { 'f:rules': {} });

  // A strategic merge patch and a merge patch set and clear it again.
  const patched = await server.request('PATCH', `${roles}/r?fieldManager=patcher`, {
    raw: JSON.stringify({ rules: null }), headers: { 'content-type': 'application/strategic-merge-patch+json' },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.json.rules, null);
  const merged = await server.request('PATCH', `${roles}/r`, { raw: JSON.stringify({ rules: [rule] }), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(merged.status, 200, merged.text);
  assert.deepEqual(merged.json.rules, [rule]);
});

test('a ClusterRole created without rules by server-side apply is answered with rules: null and owns only what was applied', async () => {
  const name = 'go-nil-lists-aggregated';
  const applied = await server.request('PATCH', `/apis/${rbac}/clusterroles/${name}?fieldManager=applier`, {
    raw: JSON.stringify({ apiVersion: rbac, kind: 'ClusterRole', metadata: { name }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'go-nil-lists': 'x' } }] } }),
    headers: applyHeaders,
  });
  assert.equal(applied.status, 201, applied.text);
  assert.equal(applied.json.rules, null);
  assert.deepEqual(applied.json.metadata.managedFields.map((e: { fieldsV1: unknown }) => e.fieldsV1), [{ 'f:aggregationRule': { 'f:clusterRoleSelectors': {} } }]);
});

test('a LimitRange with spec: {} is answered with spec.limits: null, which its creator does not own', async () => {
  const ns = await server.newNamespace('nil-limits');
  const path = `/api/v1/namespaces/${ns}/limitranges`;
  const created = await server.request('POST', `${path}?fieldManager=creator`, { body: { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l' }, spec: {} } });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.spec, { limits: null });
  assert.equal(created.json.metadata.managedFields, undefined);
  const yaml = await server.request('GET', `${path}/l`, { headers: { accept: 'application/yaml' } });
  assert.match(yaml.text, /^spec:\n {2}limits: null$/m);
  const applied = await server.request('PATCH', `${path}/l?fieldManager=applier`, {
    raw: JSON.stringify({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } }),
    headers: applyHeaders,
  });
  assert.equal(applied.status, 200, applied.text);
  assert.deepEqual(applied.json.spec.limits.map((l: { max: unknown }) => l.max), [{ cpu: '1' }]);
});

test('with CBOR served, a Role without rules is answered with rules as CBOR null, as upstream\'s encoder writes a nil slice (NilContainerAsNull)', async () => {
  const cborServer = await startServer({ featureGates: { ...defaultConfig().featureGates, CBORServingAndStorage: true } });
  try {
    const ns = await cborServer.newNamespace('nil-rules-cbor');
    const created = await cborServer.request('POST', `/apis/${rbac}/namespaces/${ns}/roles`, { body: { apiVersion: rbac, kind: 'Role', metadata: { name: 'r' } } });
    assert.equal(created.status, 201, created.text);
    const got = await cborServer.request('GET', `/apis/${rbac}/namespaces/${ns}/roles/r`, { headers: { accept: 'application/cbor' } });
    assert.equal(got.status, 200);
    const decoded = decodeCborObject(got.bytes);
    assert.ok(Object.hasOwn(decoded, 'rules'));
    assert.equal(decoded.rules, null);
  } finally {
    await cborServer.stop();
  }
});

test('a HorizontalPodAutoscaler v2 is created with status.currentMetrics: null', async () => {
  const ns = await server.newNamespace('nil-metrics');
  const created = await server.request('POST', `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`, {
    body: { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3 } },
  });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.status, { currentMetrics: null, desiredReplicas: 0 });
});

test('the zero values decoding adds to an Event (eventTime: null, source: {}) are not its creator\'s fields', async () => {
  const ns = await server.newNamespace('zero-event');
  const created = await server.request('POST', `/api/v1/namespaces/${ns}/events?fieldManager=creator`, {
    body: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'R', message: 'm' },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.eventTime, null);
  assert.deepEqual(created.json.source, {});
  assert.deepEqual(created.json.metadata.managedFields.map((e: { fieldsV1: unknown }) => e.fieldsV1), [{ 'f:involvedObject': {}, 'f:message': {}, 'f:reason': {} }]);
});

test('an empty list without omitempty is stored as Protobuf stores it: rules: [] and endpoints: [] are answered null, their writer owning them', async () => {
  const ns = await server.newNamespace('empty-rules');
  const roles = `/apis/${rbac}/namespaces/${ns}/roles`;
  const created = await server.request('POST', `${roles}?fieldManager=creator`, { body: { apiVersion: rbac, kind: 'Role', metadata: { name: 'r' }, rules: [] } });
  assert.equal(created.status, 201, created.text);
  assert.ok(Object.hasOwn(created.json, 'rules'), created.text);
  assert.equal(created.json.rules, null);
  // The handler's object held the empty slice when the field manager saw it.
  assert.deepEqual(created.json.metadata.managedFields.map((e: { fieldsV1: unknown }) => e.fieldsV1), [{ 'f:rules': {} }]);
  assert.equal((await server.request('GET', `${roles}/r`)).json.rules, null);
  const dryRun = await server.request('POST', `${roles}?dryRun=All`, { body: { apiVersion: rbac, kind: 'Role', metadata: { name: 'd' }, rules: [] } });
  assert.equal(dryRun.status, 201, dryRun.text);
  assert.equal(dryRun.json.rules, null);

  // An update to [] changes nothing stored: the same bytes, no new resourceVersion.
  const rule = { apiGroups: [''], resources: ['pods'], verbs: ['get'] };
  const merged = await server.request('PATCH', `${roles}/r`, { raw: JSON.stringify({ rules: [rule] }), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.deepEqual(merged.json.rules, [rule]);
  const emptied = await server.request('PATCH', `${roles}/r`, { raw: JSON.stringify({ rules: [] }), headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(emptied.status, 200, emptied.text);
  assert.equal(emptied.json.rules, null);
  const again = await server.request('PUT', `${roles}/r`, { body: { ...emptied.json, rules: [] } });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.rules, null);
  assert.equal(again.json.metadata.resourceVersion, emptied.json.metadata.resourceVersion);

  const slice = await server.request('POST', `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`, {
    body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 's' }, addressType: 'IPv4', endpoints: [], ports: [] },
  });
  assert.equal(slice.status, 201, slice.text);
  assert.equal(slice.json.endpoints, null);
  assert.equal(slice.json.ports, null);
});

test('the groups upstream stores as JSON keep an empty list without omitempty: a CRD\'s status.conditions: [] stays []', async () => {
  const group = 'empty-lists.example.com';
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`;
  const created = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    },
  });
  assert.equal(created.status, 201, created.text);
  try {
    const current = await server.request('GET', path);
    const written = await server.request('PUT', `${path}/status?dryRun=All`, { body: { ...current.json, status: { ...current.json.status, conditions: [] } } });
    assert.equal(written.status, 200, written.text);
    assert.deepEqual(written.json.status.conditions, []);
  } finally {
    await server.request('DELETE', path);
  }
});

test('a value with a JSON form of its own keeps its empty object: a ControllerRevision\'s data: {} (a RawExtension) stays {}', async () => {
  const ns = await server.newNamespace('raw-extension');
  const created = await server.request('POST', `/apis/apps/v1/namespaces/${ns}/controllerrevisions`, {
    body: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, data: {}, revision: 1 },
  });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.data, {});
});
