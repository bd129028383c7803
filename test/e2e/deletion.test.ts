// Delete options over HTTP as upstream's delete handler reads them (a JSON, YAML or Protobuf
// body, else the query; 422 and 409 in its words), the finalizers each propagation policy
// leaves, graceful pod deletion seen through a watch, and kubectl 1.33's delete flags.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { encodeProtobufObject } from '../../src/encoding/protobuf/index.ts';
import type { KubeObject } from '../../src/api/index.ts';
import { kubectlAt } from '../helpers/kubectl.ts';
import { eventually } from '../helpers/eventually.ts';
import { openStream, startServer, type TestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

let server: TestServer;
before(async () => {
  server = await startServer({ enableGarbageCollector: false });
});
after(async () => {
  await server.stop();
});

/** DELETE with a body (Node sends one on DELETE only with its length given). */
function del(url: string, body?: Buffer | string, contentType = 'application/json') {
  if (body === undefined) return server.request('DELETE', url);
  return server.request('DELETE', url, { raw: body, headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) } });
}

async function create(collection: string, body: Json): Promise<Json> {
  const res = await server.request('POST', collection, { body });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

const configMap = (ns: string) => create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' }, data: { a: '1' } });

interface BodyCase {
  name: string;
  query?: string;
  body?: () => Buffer | string;
  contentType?: string;
  /** The finalizers left on the kept object; undefined: it is gone. */
  finalizers?: string[];
}

const protobuf = 'application/vnd.kubernetes.protobuf';
const deleteOptions = (apiVersion: string, fields: Json) => ({ apiVersion, kind: 'DeleteOptions', ...fields }) as unknown as KubeObject;

const bodyCases: BodyCase[] = [
  { name: 'no body, no query: gone', finalizers: undefined },
  { name: 'query propagationPolicy=Orphan', query: 'propagationPolicy=Orphan', finalizers: ['orphan'] },
  { name: 'query propagationPolicy=Foreground', query: 'propagationPolicy=Foreground', finalizers: ['foregroundDeletion'] },
  { name: 'query orphanDependents=true', query: 'orphanDependents=true', finalizers: ['orphan'] },
  { name: 'JSON body Orphan', body: () => JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' }), finalizers: ['orphan'] },
  { name: 'JSON body of meta.k8s.io/v1 Foreground', body: () => JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Foreground' }), finalizers: ['foregroundDeletion'] },
  { name: 'a body makes the query count for nothing, as upstream', query: 'propagationPolicy=Orphan', body: () => '{}', finalizers: undefined },
  { name: 'YAML body Orphan', body: () => 'kind: DeleteOptions\napiVersion: v1\npropagationPolicy: Orphan\n', contentType: 'application/yaml', finalizers: ['orphan'] },
  { name: 'YAML body orphanDependents', body: () => 'orphanDependents: true\n', contentType: 'application/yaml', finalizers: ['orphan'] },
  { name: 'Protobuf body (v1) Foreground', body: () => Buffer.from(encodeProtobufObject(deleteOptions('v1', { propagationPolicy: 'Foreground' }))), contentType: protobuf, finalizers: ['foregroundDeletion'] },
  { name: 'Protobuf body in another group version (apps/v1) Orphan', body: () => Buffer.from(encodeProtobufObject(deleteOptions('apps/v1', { propagationPolicy: 'Orphan' }))), contentType: protobuf, finalizers: ['orphan'] },
  { name: 'Protobuf body Background', body: () => Buffer.from(encodeProtobufObject(deleteOptions('v1', { propagationPolicy: 'Background' }))), contentType: protobuf, finalizers: undefined },
];

describe('delete options from the body or the query', () => {
  for (const c of bodyCases) {
    test(`configmap, ${c.name}`, async () => {
      const ns = await server.newNamespace('deletion');
      await configMap(ns);
      const path = `/api/v1/namespaces/${ns}/configmaps/c`;
      const res = await del(c.query === undefined ? path : `${path}?${c.query}`, c.body?.(), c.contentType);
      assert.equal(res.status, 200, res.text);
      const after = await server.request('GET', path);
      if (c.finalizers === undefined) {
        assert.equal(res.json.kind, 'Status');
        assert.equal(after.status, 404, after.text);
        return;
      }
      assert.equal(res.json.kind, 'ConfigMap');
      assert.deepEqual(res.json.metadata.finalizers, c.finalizers);
      assert.equal(res.json.metadata.deletionGracePeriodSeconds, 0);
      assert.deepEqual(after.json.metadata.finalizers, c.finalizers);
      assert.ok(after.json.metadata.deletionTimestamp !== undefined);
    });
  }

  test('a Protobuf dryRun with preconditions: 409 on a stale resourceVersion, nothing changes on dry run', async () => {
    const ns = await server.newNamespace('deletion');
    const cm = await configMap(ns);
    const path = `/api/v1/namespaces/${ns}/configmaps/c`;
    const stale = Buffer.from(encodeProtobufObject(deleteOptions('v1', { preconditions: { resourceVersion: '1' } })));
    const conflict = await del(path, stale, protobuf);
    assert.equal(conflict.status, 409, conflict.text);
    const dryRun = Buffer.from(encodeProtobufObject(deleteOptions('v1', { dryRun: ['All'], preconditions: { uid: cm.metadata.uid } })));
    assert.equal((await del(path, dryRun, protobuf)).status, 200);
    assert.equal((await server.request('GET', path)).status, 200);
  });
});

interface RefusedCase {
  name: string;
  query?: string;
  body?: Json;
  status: number;
  message: (obj: Json) => string;
}

const refusedCases: RefusedCase[] = [
  {
    name: 'an unknown propagationPolicy is 422',
    query: 'propagationPolicy=Sometimes',
    status: 422,
    message: () => 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"',
  },
  {
    name: 'orphanDependents with propagationPolicy in the query is 422',
    query: 'orphanDependents=true&propagationPolicy=Orphan',
    status: 422,
    message: () => 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set',
  },
  {
    name: 'an unknown dryRun value is 422',
    body: { dryRun: ['Some'] },
    status: 422,
    message: () => 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"',
  },
  {
    name: 'a uid precondition that does not hold is 409',
    body: { preconditions: { uid: 'other' } },
    status: 409,
    message: (cm) => `Operation cannot be fulfilled on ConfigMap "c": the UID in the precondition (other) does not match the UID in record (${cm.metadata.uid}). The object might have been deleted and then recreated`,
  },
  {
    name: 'a resourceVersion precondition that does not hold is 409',
    body: { preconditions: { resourceVersion: '1' } },
    status: 409,
    message: (cm) => `Operation cannot be fulfilled on ConfigMap "c": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${cm.metadata.resourceVersion}). The object might have been modified`,
  },
  { name: 'a gracePeriodSeconds that is no integer is 400', query: 'gracePeriodSeconds=soon', status: 400, message: () => '' },
];

describe('refused delete options', () => {
  for (const c of refusedCases) {
    test(c.name, async () => {
      const ns = await server.newNamespace('deletion');
      const cm = await configMap(ns);
      const path = `/api/v1/namespaces/${ns}/configmaps/c`;
      const res = await del(c.query === undefined ? path : `${path}?${c.query}`, c.body === undefined ? undefined : JSON.stringify(c.body));
      assert.equal(res.status, c.status, res.text);
      if (c.message(cm) !== '') assert.equal(res.json.message, c.message(cm));
      assert.equal((await server.request('GET', path)).status, 200);
    });
  }
});

test('a delete\'s Success Status and a 404 write their details in metav1\'s field order', async () => {
  const ns = await server.newNamespace('details-order');
  const created = await create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
    metadata: { name: 'd' },
    spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
  });
  const deleted = await del(`/apis/apps/v1/namespaces/${ns}/deployments/d`);
  assert.equal(deleted.status, 200, deleted.text);
  assert.ok(deleted.text.includes(`"details":{"name":"d","group":"apps","kind":"deployments","uid":"${created.metadata.uid}"}`), deleted.text);
  const missing = await server.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/d`);
  assert.ok(missing.text.includes('"details":{"name":"d","group":"apps","kind":"deployments"}'), missing.text);
});

describe('registries with a Delete of their own', () => {
  test('a namespace\'s first delete marks it only (no grace period recorded); a later one while its finalizers remain answers it unchanged', async () => {
    const name = `own-delete-${Date.now()}`;
    // A finalizer of its own keeps it terminating: the namespace controller removes only `kubernetes`.
    await create('/api/v1/namespaces', { metadata: { name }, spec: { finalizers: ['example.com/hold'] } });
    const first = await del(`/api/v1/namespaces/${name}`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.status.phase, 'Terminating');
    assert.ok(first.json.metadata.deletionTimestamp);
    assert.equal(first.json.metadata.deletionGracePeriodSeconds, undefined);
    const again = await del(`/api/v1/namespaces/${name}?propagationPolicy=Orphan`);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.metadata.deletionGracePeriodSeconds, undefined, 'not marked as the generic store marks');
    assert.equal(again.json.metadata.finalizers, undefined, 'no orphan finalizer: the first delete alone sets them');
  });

  test('a terminating namespace\'s status says what keeps it, as upstream\'s namespace deleter writes it; once emptied, it goes', async () => {
    const name = `held-content-${Date.now()}`;
    await create('/api/v1/namespaces', { metadata: { name } });
    await create(`/api/v1/namespaces/${name}/configmaps`, { metadata: { name: 'kept', finalizers: ['example.com/keep'] } });
    assert.equal((await del(`/api/v1/namespaces/${name}`)).status, 200);
    const conditions = await eventually(async () => {
      const found = (await server.request('GET', `/api/v1/namespaces/${name}`)).json.status.conditions as Json[] | undefined;
      assert.equal(found?.find((c) => c.type === 'NamespaceContentRemaining')?.status, 'True');
      return found!;
    }, { what: 'the conditions of the namespace' });
    assert.deepEqual(conditions.map((c) => [c.type, c.status, c.reason, c.message]), [
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
      ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain', 'Some resources are remaining: configmaps. has 1 resource instances'],
      ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain', 'Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances'],
    ]);
    assert.match(String(conditions[0]!.lastTransitionTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const patched = await server.request('PATCH', `/api/v1/namespaces/${name}/configmaps/kept`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.text);
    await eventually(async () => assert.equal((await server.request('GET', `/api/v1/namespaces/${name}`)).status, 404), { what: 'the namespace to go' });
  });

  test('a CRD\'s first delete adds its cleanup finalizer, not the garbage collector\'s, and keeps its generation', async () => {
    const group = `own${Date.now()}.example.com`;
    const crd = await create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      metadata: { name: `widgets.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    assert.equal(crd.metadata.generation, 1);
    const deleting = await del(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}?propagationPolicy=Orphan`);
    assert.equal(deleting.status, 200, deleting.text);
    assert.ok(deleting.json.metadata.deletionTimestamp);
    assert.equal(deleting.json.metadata.deletionGracePeriodSeconds, undefined);
    assert.equal(deleting.json.metadata.generation, 1);
    assert.deepEqual(deleting.json.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
  });
});

describe('graceful pod deletion', () => {
  const boundPod = (name: string) => ({ metadata: { name }, spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 20, containers: [{ name: 'c', image: 'busybox' }] } });

  test('a watch sees the bound pod MODIFIED with its grace period, then MODIFIED and DELETED after a delete with grace 0', async () => {
    const ns = await server.newNamespace('deletion');
    const pod = await create(`/api/v1/namespaces/${ns}/pods`, boundPod('p'));
    const watch = await openStream(server, `/api/v1/namespaces/${ns}/pods?watch=true&resourceVersion=${pod.metadata.resourceVersion}`);
    try {
      const path = `/api/v1/namespaces/${ns}/pods/p`;
      const first = await del(path);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.json.metadata.deletionGracePeriodSeconds, 20);
      const marked = await watch.next();
      assert.equal(marked.type, 'MODIFIED');
      assert.equal(marked.object.metadata.deletionGracePeriodSeconds, 20);
      assert.equal(marked.object.metadata.deletionTimestamp, first.json.metadata.deletionTimestamp);
      assert.equal((await server.request('GET', path)).status, 200, 'the pod stays for its kubelet');

      const again = await del(path);
      assert.equal(again.json.metadata.resourceVersion, first.json.metadata.resourceVersion, 'a second delete changes nothing');

      const now = await del(path, JSON.stringify({ gracePeriodSeconds: 0 }));
      assert.equal(now.status, 200, now.text);
      const shortened = await watch.next();
      assert.deepEqual([shortened.type, shortened.object.metadata.deletionGracePeriodSeconds], ['MODIFIED', 0]);
      const deleted = await watch.next();
      assert.equal(deleted.type, 'DELETED');
      assert.equal((await server.request('GET', path)).status, 404);
    } finally {
      watch.close();
    }
  });

  test('dryRun on a bound pod answers it marked and changes nothing', async () => {
    const ns = await server.newNamespace('deletion');
    const pod = await create(`/api/v1/namespaces/${ns}/pods`, boundPod('p'));
    const res = await del(`/api/v1/namespaces/${ns}/pods/p?dryRun=All`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.metadata.deletionGracePeriodSeconds, 20);
    const after = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`);
    assert.equal(after.json.metadata.resourceVersion, pod.metadata.resourceVersion);
    assert.equal(after.json.metadata.deletionTimestamp, undefined);
  });
});

const kubectl133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

describe('kubectl 1.33 delete', { skip: existsSync(kubectl133) ? false : `kubectl 1.33 is not installed at ${kubectl133}` }, () => {
  const kubectl = (...args: string[]) => kubectlAt(kubectl133, ['--kubeconfig', server.kubeconfigPath], ...args);

  test('delete pod --grace-period=0 --force removes a bound pod at once', async () => {
    const ns = await server.newNamespace('deletion');
    await create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'p' }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] } });
    await kubectl('delete', 'pod', 'p', '-n', ns, '--grace-period=0', '--force');
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status, 404);
  });

  test('delete pod --wait=false leaves a bound pod terminating for 30 seconds', async () => {
    const ns = await server.newNamespace('deletion');
    await create(`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'p' }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] } });
    await kubectl('delete', 'pod', 'p', '-n', ns, '--wait=false');
    const pod = (await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json;
    assert.equal(pod.metadata.deletionGracePeriodSeconds, 30);
  });

  const cascades: { cascade: string; finalizers?: string[] }[] = [
    { cascade: 'orphan', finalizers: ['orphan'] },
    { cascade: 'foreground', finalizers: ['foregroundDeletion'] },
    { cascade: 'background' },
  ];
  for (const c of cascades) {
    test(`delete deployment --cascade=${c.cascade}: ${c.finalizers === undefined ? 'gone at once' : `kept with ${c.finalizers.join(', ')}`}`, async () => {
      const ns = await server.newNamespace('deletion');
      await create(`/apis/apps/v1/namespaces/${ns}/deployments`, {
        metadata: { name: 'd' },
        spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      });
      await kubectl('delete', 'deployment', 'd', '-n', ns, `--cascade=${c.cascade}`, '--wait=false');
      const after = await server.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/d`);
      if (c.finalizers === undefined) {
        assert.equal(after.status, 404, after.text);
        return;
      }
      assert.equal(after.status, 200, after.text);
      assert.deepEqual(after.json.metadata.finalizers, c.finalizers);
      assert.ok(after.json.metadata.deletionTimestamp !== undefined);
    });
  }
});
