// A create or update of a built-in type whose body names another kind or apiVersion, refused as
// kube-apiserver's create and update handlers refuse it: json.go's defaults, the legacy scheme's
// lookup and conversion into the internal type (transformDecodeError), then the version check.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
});

const scheme = 'pkg/api/legacyscheme/scheme.go:30';
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const deployments = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;
const cannot = (kind: string, version: string, into: string, why: string) => `${kind} in version "${version}" cannot be handled as a ${into}: ${why}`;
const notRegistered = (kind: string, groupVersion: string) => `no kind "${kind}" is registered for version "${groupVersion}" in scheme "${scheme}"`;
const mismatch = (given: string, expected: string) => `the API version in the data (${given}) does not match the expected API version (${expected})`;

describe('POST of a body naming another kind or version: 400 as upstream', () => {
  const rows: { name: string; path: (ns: string) => string; typeMeta: string; message: (body: string) => string }[] = [
    { name: 'another kind of the version: decoded, then no conversion', path: configMaps, typeMeta: '"apiVersion":"v1","kind":"Pod"', message: () => cannot('Pod', 'v1', 'ConfigMap', 'converting (v1.Pod) to (core.ConfigMap): unknown conversion') },
    { name: 'a version the group does not have', path: configMaps, typeMeta: '"apiVersion":"v2","kind":"ConfigMap"', message: () => cannot('ConfigMap', 'v2', 'ConfigMap', notRegistered('ConfigMap', 'v2')) },
    { name: 'the kind in another group', path: configMaps, typeMeta: '"apiVersion":"apps/v1","kind":"ConfigMap"', message: () => cannot('ConfigMap', 'v1', 'ConfigMap', notRegistered('ConfigMap', 'apps/v1')) },
    { name: 'a kind core v1 registers though no resource takes it', path: configMaps, typeMeta: '"apiVersion":"v1","kind":"PodLogOptions"', message: () => cannot('PodLogOptions', 'v1', 'ConfigMap', 'converting (v1.PodLogOptions) to (core.ConfigMap): unknown conversion') },
    { name: 'an unversioned kind in any group version', path: configMaps, typeMeta: '"apiVersion":"foo/v9","kind":"Status"', message: () => cannot('Status', 'v9', 'ConfigMap', 'converting (v1.Status) to (core.ConfigMap): unknown conversion') },
    { name: 'another server\'s kind', path: configMaps, typeMeta: '"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"', message: () => cannot('CustomResourceDefinition', 'v1', 'ConfigMap', notRegistered('CustomResourceDefinition', 'apiextensions.k8s.io/v1')) },
    { name: 'another group without a version', path: configMaps, typeMeta: '"apiVersion":"apps/","kind":"ConfigMap"', message: (body) => cannot('ConfigMap', '', 'ConfigMap', `Object 'apiVersion' is missing in '${body}'`) },
    { name: 'the internal version of the kind: decoded as is, then not an accepted version', path: configMaps, typeMeta: '"apiVersion":"__internal","kind":"ConfigMap"', message: () => mismatch('__internal', 'v1') },
    { name: 'another internal kind', path: configMaps, typeMeta: '"apiVersion":"__internal","kind":"Pod"', message: () => cannot('Pod', '__internal', 'ConfigMap', 'converting (core.Pod) to (core.ConfigMap): unknown conversion') },
    { name: 'an internal kind no group has', path: configMaps, typeMeta: '"apiVersion":"__internal","kind":"Gadget"', message: () => cannot('Gadget', '__internal', 'ConfigMap', `no kind "Gadget" is registered for the internal version of group "" in scheme "${scheme}"`) },
    { name: 'the kind in a version the scheme installs but does not serve: converted, then refused', path: deployments, typeMeta: '"apiVersion":"apps/v1beta1","kind":"Deployment"', message: () => mismatch('apps/v1beta1', 'apps/v1') },
    { name: 'no kind, in a version the scheme installs', path: deployments, typeMeta: '"apiVersion":"apps/v1beta2"', message: () => mismatch('apps/v1beta2', 'apps/v1') },
    { name: 'the kind in core v1', path: deployments, typeMeta: '"apiVersion":"v1","kind":"Deployment"', message: () => cannot('Deployment', 'v1', 'Deployment', notRegistered('Deployment', 'v1')) },
    { name: 'another kind of the group', path: deployments, typeMeta: '"apiVersion":"apps/v1","kind":"StatefulSet"', message: () => cannot('StatefulSet', 'v1', 'Deployment', 'converting (v1.StatefulSet) to (apps.Deployment): unknown conversion') },
    { name: 'another kind of an unserved version', path: deployments, typeMeta: '"apiVersion":"apps/v1beta1","kind":"StatefulSet"', message: () => cannot('StatefulSet', 'v1beta1', 'Deployment', 'converting (v1beta1.StatefulSet) to (apps.Deployment): unknown conversion') },
    { name: 'another served version of the kind', path: (ns) => `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`, typeMeta: '"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler"', message: () => mismatch('autoscaling/v1', 'autoscaling/v2') },
    { name: 'a core v1 Event to events.k8s.io: both are core Events', path: (ns) => `/apis/events.k8s.io/v1/namespaces/${ns}/events`, typeMeta: '"apiVersion":"v1","kind":"Event"', message: () => mismatch('v1', 'events.k8s.io/v1') },
    { name: 'an events.k8s.io Event to core v1', path: (ns) => `/api/v1/namespaces/${ns}/events`, typeMeta: '"apiVersion":"events.k8s.io/v1","kind":"Event"', message: () => mismatch('events.k8s.io/v1', 'v1') },
    { name: 'a cluster-scoped kind in a beta version', path: () => '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', typeMeta: '"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","kind":"FlowSchema"', message: () => mismatch('flowcontrol.apiserver.k8s.io/v1beta3', 'flowcontrol.apiserver.k8s.io/v1') },
  ];
  for (const row of rows) {
    test(`${row.name}: 400`, async () => {
      const ns = await server.newNamespace('kinds');
      const body = `{${row.typeMeta},"metadata":{"name":"x"}}`;
      const res = await server.request('POST', row.path(ns), { raw: body, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.reason, 'BadRequest');
      assert.equal(res.json.message, row.message(body));
    });
  }

  test('a YAML body missing its version is quoted as sent', async () => {
    const ns = await server.newNamespace('kinds');
    const body = 'apiVersion: apps/\nkind: ConfigMap\nmetadata:\n  name: x\n';
    const res = await server.request('POST', configMaps(ns), { raw: body, headers: { 'content-type': 'application/yaml' } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, cannot('ConfigMap', '', 'ConfigMap', `Object 'apiVersion' is missing in '${body}'`));
  });

  test('a kind not registered is refused before its metadata is decoded; a registered one after', async () => {
    const ns = await server.newNamespace('kinds');
    const unregistered = await server.request('POST', configMaps(ns), { body: { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 5 } } } });
    assert.equal(unregistered.status, 400, unregistered.text);
    assert.equal(unregistered.json.message, cannot('ConfigMap', 'v2', 'ConfigMap', notRegistered('ConfigMap', 'v2')));
    const registered = await server.request('POST', configMaps(ns), { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', labels: { a: 5 } } } });
    assert.equal(registered.status, 400, registered.text);
    assert.match(registered.json.message, /^Pod in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field /);
  });

  test('what the body leaves out is the URL\'s: no apiVersion, "/", the group without its version, no kind', async () => {
    const ns = await server.newNamespace('kinds');
    for (const [name, typeMeta] of [['a', ''], ['b', '"apiVersion":"/",'], ['c', '"apiVersion":"v1",'], ['d', '"kind":"ConfigMap",']] as const) {
      const res = await server.request('POST', configMaps(ns), { raw: `{${typeMeta}"metadata":{"name":"${name}"}}`, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 201, `${name}: ${res.text}`);
      assert.equal(res.json.apiVersion, 'v1');
      assert.equal(res.json.kind, 'ConfigMap');
    }
    const spec = { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } };
    const res = await server.request('POST', deployments(ns), { body: { apiVersion: 'apps/', kind: 'Deployment', metadata: { name: 'd' }, spec } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.apiVersion, 'apps/v1');
  });
});

describe('PUT of a body naming another kind or version: 400 as upstream', () => {
  test('of the object and of its status', async () => {
    const ns = await server.newNamespace('kinds');
    const created = await server.request('POST', configMaps(ns), { body: { metadata: { name: 'x' } } });
    assert.equal(created.status, 201, created.text);
    const secret = await server.request('PUT', `${configMaps(ns)}/x`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } } });
    assert.equal(secret.status, 400, secret.text);
    assert.equal(secret.json.message, cannot('Secret', 'v1', 'ConfigMap', 'converting (v1.Secret) to (core.ConfigMap): unknown conversion'));
    const v2 = await server.request('PUT', `${configMaps(ns)}/x`, { body: { apiVersion: 'v2', metadata: { name: 'x' } } });
    assert.equal(v2.status, 400, v2.text);
    assert.equal(v2.json.message, cannot('ConfigMap', 'v2', 'ConfigMap', notRegistered('ConfigMap', 'v2')));

    const pod = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
    assert.equal(pod.status, 201, pod.text);
    const status = await server.request('PUT', `/api/v1/namespaces/${ns}/pods/p/status`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p' } } });
    assert.equal(status.status, 400, status.text);
    assert.equal(status.json.message, cannot('ConfigMap', 'v1', 'Pod', 'converting (v1.ConfigMap) to (core.Pod): unknown conversion'));
  });

  test('a beta version of the kind', async () => {
    const ns = await server.newNamespace('kinds');
    const res = await server.request('PUT', `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/b`, { body: { apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'b' } } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, mismatch('policy/v1beta1', 'policy/v1'));
  });
});

describe('pods/eviction through the same scheme', () => {
  test('another kind of policy\'s internal version: decoded, then no conversion', async () => {
    const ns = await server.newNamespace('kinds');
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/eviction`, { body: { apiVersion: 'policy/__internal', kind: 'PodDisruptionBudget', metadata: { name: 'p' } } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, cannot('PodDisruptionBudget', '__internal', 'Eviction', 'converting (policy.PodDisruptionBudget) to (policy.Eviction): unknown conversion'));
  });
});

describe('bodies no Store decodes after, through the same scheme', () => {
  const cases: { name: string; path: (ns: string) => string; body: Record<string, unknown>; message: string }[] = [
    {
      name: 'an access review of another kind', path: () => '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: {} },
      message: cannot('SelfSubjectAccessReview', 'v1', 'SubjectAccessReview', 'converting (v1.SelfSubjectAccessReview) to (authorization.SubjectAccessReview): unknown conversion'),
    },
    {
      name: 'a TokenReview of a version the scheme lacks', path: () => '/apis/authentication.k8s.io/v1/tokenreviews',
      body: { apiVersion: 'authentication.k8s.io/v9', kind: 'TokenReview', spec: { token: 't' } },
      message: cannot('TokenReview', 'v9', 'TokenReview', notRegistered('TokenReview', 'authentication.k8s.io/v9')),
    },
    {
      name: 'a SelfSubjectReview of another kind', path: () => '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'v1', kind: 'ConfigMap' },
      message: cannot('ConfigMap', 'v1', 'SelfSubjectReview', 'converting (v1.ConfigMap) to (authentication.SelfSubjectReview): unknown conversion'),
    },
    {
      name: 'a Binding of another kind to pods/binding', path: (ns) => `/api/v1/namespaces/${ns}/pods/p/binding`,
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
      message: cannot('Pod', 'v1', 'Binding', 'converting (v1.Pod) to (core.Binding): unknown conversion'),
    },
    {
      name: 'a Binding of another kind to bindings', path: (ns) => `/api/v1/namespaces/${ns}/bindings`,
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
      message: cannot('Pod', 'v1', 'Binding', 'converting (v1.Pod) to (core.Binding): unknown conversion'),
    },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const ns = await server.newNamespace('kinds');
      const res = await server.request('POST', c.path(ns), { body: c.body });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.message, c.message);
    });
  }
});
