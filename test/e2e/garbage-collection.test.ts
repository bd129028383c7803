// The garbage collector end to end: dependents of deleted owners collected, orphan and
// foreground finalizers carried out, custom resources, restarts, invalid references.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { eventually } from '../helpers/eventually.ts';
import { kubectlAt } from '../helpers/kubectl.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

let server: TestServer;
before(async () => {
  server = await startServer();
  // The collector starts once the caches have loaded: tests that check what it leaves alone need it running.
  const ns = await server.newNamespace('gc-canary');
  await create(server, cmPath(ns), configMap('canary', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'none', uid: '0d9e3a2c-0000-4000-8000-00000000000f' }] }));
  await gone(server, cmPath(ns, 'canary'), 'the collector to start');
});
after(async () => {
  await server?.stop();
});

const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name === '' ? '' : `/${name}`}`;

function ownerRef(owner: Json, extra: Json = {}): Json {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, ...extra };
}

async function create(on: TestServer, path: string, body: Json): Promise<Json> {
  const res = await on.request('POST', path, { body });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

function configMap(name: string, metadata: Json = {}): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...metadata }, data: { k: 'v' } };
}

async function get(on: TestServer, path: string): Promise<Json | undefined> {
  const res = await on.request('GET', path);
  if (res.status === 404) return undefined;
  assert.equal(res.status, 200, res.text);
  return res.json;
}

async function gone(on: TestServer, path: string, what: string): Promise<void> {
  await eventually(async () => assert.equal(await get(on, path), undefined, `${path} still there`), { what });
}

/** Waits a little and checks that `path` is still there (the collector had the chance to act). */
async function stays(on: TestServer, path: string): Promise<Json> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const object = await get(on, path);
  assert.ok(object, `${path} was collected`);
  return object;
}

describe('dependents whose owners are gone', () => {
  test('an owner deleted in the background takes its dependents; a dependent with another live owner stays, losing the dangling reference', async () => {
    const ns = await server.newNamespace('gc-bg');
    const owner = await create(server, cmPath(ns), configMap('owner'));
    const other = await create(server, cmPath(ns), configMap('other'));
    await create(server, cmPath(ns), configMap('only-child', { ownerReferences: [ownerRef(owner)] }));
    await create(server, `/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'secret-child', ownerReferences: [ownerRef(owner, { controller: true })] } });
    await create(server, cmPath(ns), configMap('two-owners', { ownerReferences: [ownerRef(owner), ownerRef(other)] }));
    assert.equal((await server.request('DELETE', cmPath(ns, 'owner'))).status, 200);
    await gone(server, cmPath(ns, 'only-child'), 'the only child collected');
    await gone(server, `/api/v1/namespaces/${ns}/secrets/secret-child`, 'the secret collected');
    const kept = await eventually(async () => {
      const object = await get(server, cmPath(ns, 'two-owners'));
      assert.ok(object);
      assert.deepEqual(object.metadata.ownerReferences.map((r: Json) => r.name), ['other'], 'the dangling reference removed');
      return object;
    });
    assert.equal(kept.metadata.ownerReferences[0].uid, other.metadata.uid);
  });

  const neverExisted = [
    { name: 'an owner uid that never existed', owner: (ns: string) => Promise.resolve({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ghost', uid: '0d9e3a2c-0000-4000-8000-000000000001', namespace: ns } }) },
    {
      name: 'an owner name that exists with another uid',
      owner: async (ns: string) => {
        const real = await create(server, cmPath(ns), configMap('real'));
        return { ...real, metadata: { ...real.metadata, uid: '0d9e3a2c-0000-4000-8000-000000000002' } };
      },
    },
    { name: 'a cluster-scoped owner that never existed', owner: () => Promise.resolve({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'no-such-ns', uid: '0d9e3a2c-0000-4000-8000-000000000003' } }) },
  ];
  for (const c of neverExisted) {
    test(`a dependent naming ${c.name} is collected`, async () => {
      const ns = await server.newNamespace('gc-ghost');
      const owner = await c.owner(ns);
      await create(server, cmPath(ns), configMap('child', { ownerReferences: [ownerRef(owner)] }));
      await gone(server, cmPath(ns, 'child'), 'the child collected');
    });
  }

  test('a dependent whose owner exists stays', async () => {
    const ns = await server.newNamespace('gc-solid');
    const owner = await create(server, cmPath(ns), configMap('owner'));
    const node = await create(server, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `${ns}-owner` } });
    await create(server, cmPath(ns), configMap('child', { ownerReferences: [ownerRef(owner), ownerRef(node)] }));
    const child = await stays(server, cmPath(ns, 'child'));
    assert.equal(child.metadata.ownerReferences.length, 2);
  });

  test('a chain of owners goes link by link', async () => {
    const ns = await server.newNamespace('gc-chain');
    let parent = await create(server, cmPath(ns), configMap('link-0'));
    for (let i = 1; i <= 4; i++) parent = await create(server, cmPath(ns), configMap(`link-${i}`, { ownerReferences: [ownerRef(parent)] }));
    assert.equal((await server.request('DELETE', cmPath(ns, 'link-0'))).status, 200);
    await gone(server, cmPath(ns, 'link-4'), 'the last link collected');
  });
});

describe('orphan finalizer', () => {
  test('the owner\'s reference is removed from every dependent, then the finalizer, and the owner goes', async () => {
    const ns = await server.newNamespace('gc-orphan');
    const owner = await create(server, cmPath(ns), configMap('owner', { finalizers: ['orphan'] }));
    const other = await create(server, cmPath(ns), configMap('other'));
    await create(server, cmPath(ns), configMap('a', { ownerReferences: [ownerRef(owner, { controller: true, blockOwnerDeletion: true })] }));
    await create(server, cmPath(ns), configMap('b', { ownerReferences: [ownerRef(owner), ownerRef(other)] }));
    assert.equal((await server.request('DELETE', cmPath(ns, 'owner'))).status, 200);
    await gone(server, cmPath(ns, 'owner'), 'the owner gone once its finalizer is removed');
    const a = await stays(server, cmPath(ns, 'a'));
    assert.equal(a.metadata.ownerReferences, undefined);
    const b = await get(server, cmPath(ns, 'b'));
    assert.deepEqual(b!.metadata.ownerReferences.map((r: Json) => r.name), ['other']);
  });

  test('other finalizers stay: the owner keeps its deletionTimestamp until they are removed', async () => {
    const ns = await server.newNamespace('gc-orphan2');
    const owner = await create(server, cmPath(ns), configMap('owner', { finalizers: ['orphan', 'example.com/hold'] }));
    await create(server, cmPath(ns), configMap('a', { ownerReferences: [ownerRef(owner)] }));
    assert.equal((await server.request('DELETE', cmPath(ns, 'owner'))).status, 200);
    const marked = await eventually(async () => {
      const object = await get(server, cmPath(ns, 'owner'));
      assert.deepEqual(object?.metadata.finalizers, ['example.com/hold']);
      return object!;
    });
    assert.ok(marked.metadata.deletionTimestamp);
    assert.equal((await get(server, cmPath(ns, 'a')))!.metadata.ownerReferences, undefined);
  });
});

describe('foreground deletion', () => {
  test('dependents are deleted, the owner waits for the blocking ones, then goes', async () => {
    const ns = await server.newNamespace('gc-fg');
    const owner = await create(server, cmPath(ns), configMap('owner', { finalizers: ['foregroundDeletion'] }));
    // Held by its own finalizer once deleted, so that the owner has something to wait for.
    await create(server, cmPath(ns), configMap('blocking', { finalizers: ['example.com/hold'], ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })] }));
    await create(server, cmPath(ns), configMap('free', { ownerReferences: [ownerRef(owner)] }));
    // A dependent with its own dependents is deleted in foreground too.
    const middle = await create(server, cmPath(ns), configMap('middle', { ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })] }));
    await create(server, cmPath(ns), configMap('grandchild', { ownerReferences: [ownerRef(middle, { blockOwnerDeletion: true })] }));
    assert.equal((await server.request('DELETE', cmPath(ns, 'owner'))).status, 200);
    await gone(server, cmPath(ns, 'free'), 'the non-blocking dependent deleted');
    await gone(server, cmPath(ns, 'grandchild'), 'the grandchild deleted');
    await gone(server, cmPath(ns, 'middle'), 'the middle deleted after its dependent');
    const blocking = await eventually(async () => {
      const object = await get(server, cmPath(ns, 'blocking'));
      assert.ok(object?.metadata.deletionTimestamp, 'the blocking dependent is being deleted');
      return object!;
    });
    const waiting = await stays(server, cmPath(ns, 'owner'));
    assert.deepEqual(waiting.metadata.finalizers, ['foregroundDeletion']);
    const release = await server.request('PUT', cmPath(ns, 'blocking'), { body: { ...blocking, metadata: { ...blocking.metadata, finalizers: [] } } });
    assert.equal(release.status, 200, release.text);
    await gone(server, cmPath(ns, 'owner'), 'the owner gone after its blocking dependent');
  });

  test('a blocking reference turned non-blocking releases the owner', async () => {
    const ns = await server.newNamespace('gc-fg2');
    const owner = await create(server, cmPath(ns), configMap('owner', { finalizers: ['foregroundDeletion'] }));
    await create(server, cmPath(ns), configMap('blocking', { finalizers: ['example.com/hold'], ownerReferences: [ownerRef(owner, { blockOwnerDeletion: true })] }));
    assert.equal((await server.request('DELETE', cmPath(ns, 'owner'))).status, 200);
    const blocking = await eventually(async () => {
      const object = await get(server, cmPath(ns, 'blocking'));
      assert.ok(object?.metadata.deletionTimestamp);
      return object!;
    });
    await stays(server, cmPath(ns, 'owner'));
    const unblocked = { ...blocking, metadata: { ...blocking.metadata, ownerReferences: [ownerRef(owner, { blockOwnerDeletion: false })] } };
    assert.equal((await server.request('PUT', cmPath(ns, 'blocking'), { body: unblocked })).status, 200);
    await gone(server, cmPath(ns, 'owner'), 'the owner gone');
    assert.ok(await get(server, cmPath(ns, 'blocking')), 'the dependent is still held by its own finalizer');
  });
});

describe('custom resources', () => {
  test('as owners and as dependents, for a CRD created after the collector started', async () => {
    const group = 'gc.example.com';
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    await create(server, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    const ns = await server.newNamespace('gc-cr');
    const widgets = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const owner = await eventually(async () => create(server, widgets, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'owner' } }));
    await create(server, cmPath(ns), configMap('cm-child', { ownerReferences: [ownerRef(owner)] }));
    const cm = await create(server, cmPath(ns), configMap('cm-owner'));
    await create(server, widgets, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'widget-child', ownerReferences: [ownerRef(cm)] } });
    await create(server, widgets, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'widget-grandchild', ownerReferences: [ownerRef(owner)] } });
    await stays(server, `${widgets}/widget-child`);
    assert.equal((await server.request('DELETE', `${widgets}/owner`)).status, 200);
    await gone(server, cmPath(ns, 'cm-child'), 'the config map owned by a widget');
    await gone(server, `${widgets}/widget-grandchild`, 'the widget owned by a widget');
    assert.equal((await server.request('DELETE', cmPath(ns, 'cm-owner'))).status, 200);
    await gone(server, `${widgets}/widget-child`, 'the widget owned by a config map');
  });
});

describe('invalid owner references', () => {
  test('a namespaced owner named from another namespace: a warning event on the dependent, which is collected', async () => {
    const ownerNs = await server.newNamespace('gc-inv-a');
    const ns = await server.newNamespace('gc-inv-b');
    const owner = await create(server, cmPath(ownerNs), configMap('owner'));
    const child = await create(server, cmPath(ns), configMap('child', { ownerReferences: [ownerRef(owner)] }));
    await gone(server, cmPath(ns, 'child'), 'the dependent collected (its owner is absent from its namespace)');
    const event = await eventually(async () => {
      const events = (await server.request('GET', `/api/v1/namespaces/${ns}/events`)).json.items as Json[];
      const found = events.find((e) => e.reason === 'OwnerRefInvalidNamespace');
      assert.ok(found, 'the event');
      return found;
    });
    assert.equal(event.type, 'Warning');
    assert.deepEqual(event.involvedObject, { kind: 'ConfigMap', namespace: ns, name: 'child', uid: child.metadata.uid, apiVersion: 'v1' });
    assert.equal(event.message, `ownerRef [v1/ConfigMap, namespace: ${ns}, name: owner, uid: ${owner.metadata.uid}] does not exist in namespace "${ns}"`);
    assert.equal(event.source.component, 'garbage-collector-controller');
    assert.ok(await get(server, cmPath(ownerNs, 'owner')), 'the owner is untouched');
  });

  test('a cluster-scoped dependent with a namespaced owner: a warning event, and it is not collected', async () => {
    const ownerNs = await server.newNamespace('gc-inv-c');
    const owner = await create(server, cmPath(ownerNs), configMap('owner'));
    const name = `${ownerNs}-role`;
    const role = await create(server, '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name, ownerReferences: [ownerRef(owner)] }, rules: [],
    });
    const event = await eventually(async () => {
      const events = (await server.request('GET', '/api/v1/namespaces/default/events')).json.items as Json[];
      const found = events.find((e) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject.name === name);
      assert.ok(found, 'the event');
      return found;
    });
    assert.deepEqual(event.involvedObject, { kind: 'ClusterRole', name, uid: role.metadata.uid, apiVersion: 'rbac.authorization.k8s.io/v1' });
    assert.equal(event.message, `ownerRef [v1/ConfigMap, namespace: , name: owner, uid: ${owner.metadata.uid}] does not exist in namespace ""`);
    await stays(server, `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`);
  });
});

describe('across restarts', () => {
  test('what happened while the collector was off is done when it starts again: the graph is rebuilt from storage', async () => {
    const dataDir = tempDir();
    try {
      const first = await startServer({ storage: 'sqlite', dataDir, enableGarbageCollector: false });
      let ns: string;
      try {
        ns = await first.newNamespace('gc-restart');
        const owner = await create(first, cmPath(ns), configMap('owner'));
        const orphaning = await create(first, cmPath(ns), configMap('orphaning', { finalizers: ['orphan'] }));
        await create(first, cmPath(ns), configMap('child', { ownerReferences: [ownerRef(owner)] }));
        await create(first, cmPath(ns), configMap('orphan', { ownerReferences: [ownerRef(orphaning)] }));
        assert.equal((await first.request('DELETE', cmPath(ns, 'owner'))).status, 200);
        assert.equal((await first.request('DELETE', cmPath(ns, 'orphaning'))).status, 200);
        // Nothing collects meanwhile.
        await stays(first, cmPath(ns, 'child'));
      } finally {
        await first.stop();
      }
      const second = await startServer({ storage: 'sqlite', dataDir });
      try {
        await gone(second, cmPath(ns, 'child'), 'the child of the owner deleted while the collector was off');
        await gone(second, cmPath(ns, 'orphaning'), 'the orphaning owner released');
        const orphan = await get(second, cmPath(ns, 'orphan'));
        assert.equal(orphan!.metadata.ownerReferences, undefined);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const kubectl133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

describe('kubectl 1.33', { skip: existsSync(kubectl133) ? false : `kubectl 1.33 is not installed at ${kubectl133}` }, () => {
  /** A Deployment with a hand-made ReplicaSet it owns, which owns a Pod (both blockOwnerDeletion). */
  async function deploymentChain(ns: string) {
    const labels = { app: 'web' };
    const template = { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
    const deployment = await create(server, `/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1, selector: { matchLabels: labels }, template },
    });
    const replicaSet = await create(server, `/apis/apps/v1/namespaces/${ns}/replicasets`, {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: { name: 'web-1', labels, ownerReferences: [ownerRef(deployment, { controller: true, blockOwnerDeletion: true })] },
      spec: { replicas: 1, selector: { matchLabels: labels }, template },
    });
    await create(server, `/api/v1/namespaces/${ns}/pods`, {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: 'web-1-abcde', labels, ownerReferences: [ownerRef(replicaSet, { controller: true, blockOwnerDeletion: true })] },
      spec: template.spec,
    });
  }

  for (const cascade of ['background', 'foreground']) {
    test(`delete --cascade=${cascade} of a Deployment takes its hand-made ReplicaSet and Pod`, async () => {
      const ns = await server.newNamespace('gc-kubectl');
      await deploymentChain(ns);
      const out = await kubectlAt(kubectl133, ['--kubeconfig', server.kubeconfigPath], '-n', ns, 'delete', 'deployment', 'web', `--cascade=${cascade}`);
      assert.match(out, /deployment.apps "web" deleted/);
      await gone(server, `/apis/apps/v1/namespaces/${ns}/deployments/web`, 'the Deployment gone');
      await gone(server, `/apis/apps/v1/namespaces/${ns}/replicasets/web-1`, 'the ReplicaSet collected');
      await gone(server, `/api/v1/namespaces/${ns}/pods/web-1-abcde`, 'the Pod collected');
    });
  }

  test('delete --cascade=orphan of a Deployment leaves its ReplicaSet and Pod, the ReplicaSet without the reference', async () => {
    const ns = await server.newNamespace('gc-kubectl');
    await deploymentChain(ns);
    const out = await kubectlAt(kubectl133, ['--kubeconfig', server.kubeconfigPath], '-n', ns, 'delete', 'deployment', 'web', '--cascade=orphan');
    assert.match(out, /deployment.apps "web" deleted/);
    await gone(server, `/apis/apps/v1/namespaces/${ns}/deployments/web`, 'the Deployment gone once orphaned');
    const rs = await server.request('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web-1`);
    assert.equal(rs.status, 200);
    assert.equal(rs.json.metadata.ownerReferences, undefined);
    const pod = await server.request('GET', `/api/v1/namespaces/${ns}/pods/web-1-abcde`);
    assert.equal(pod.status, 200);
    assert.equal(pod.json.metadata.ownerReferences.length, 1);
  });
});
