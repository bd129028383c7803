// Plinth's in-process controllers on replicas sharing one storage: the replica holding
// the Lease kube-system/plinth-controllers runs them, the others serve only; when the
// leader stops it releases the lease and another replica takes the controllers over.
// --controllers turns them off one by one, --leader-elect=false runs them without a lease.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseControllers } from '../../src/cli/controllers-flag.ts';
import { MemoryBackend } from '../../src/storage/memory.ts';
import { eventually } from '../helpers/eventually.ts';
import { sharedBackend } from '../helpers/replicas.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const leasePath = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/plinth-controllers';
// Short timings, so that a takeover after a crash would happen within the test's patience.
const timings = { leaderElectLeaseDurationMs: 3000, leaderElectRenewDeadlineMs: 2000, leaderElectRetryPeriodMs: 250 };

async function holder(server: TestServer): Promise<{ holderIdentity?: string; leaseTransitions?: number }> {
  const res = await server.request('GET', leasePath);
  assert.equal(res.status, 200, res.text);
  return res.json.spec;
}

/** A new namespace, created through `via`, gets its default ServiceAccount (from whichever replica leads). */
async function defaultServiceAccountAppears(via: TestServer, namespace: string): Promise<void> {
  assert.equal((await via.request('POST', '/api/v1/namespaces', { body: { metadata: { name: namespace } } })).status, 201);
  await eventually(async () => assert.equal((await via.request('GET', `/api/v1/namespaces/${namespace}/serviceaccounts/default`)).status, 200),
    { what: `the default ServiceAccount in ${namespace}` });
}

test('one of two replicas runs the controllers; when it stops the other takes them over', async () => {
  const [viewA, viewB] = sharedBackend(new MemoryBackend(), 2);
  const a = await startServer(timings, { backend: viewA! });
  let b: TestServer | undefined;
  let aStopped = false;
  try {
    const first = await holder(a);
    assert.match(first.holderIdentity ?? '', /.+_[0-9a-f-]{36}$/, 'A took the lease at its start: <hostname>_<uuid>');
    b = await startServer(timings, { backend: viewB! });
    assert.equal((await holder(b)).holderIdentity, first.holderIdentity, 'B found the lease held and did not take it');

    // A's controllers act on what is written through B.
    await defaultServiceAccountAppears(b, 'through-b');

    await a.stop();
    aStopped = true;
    // A released the lease as it stopped: B takes it without waiting for it to expire.
    const second = await eventually(async () => {
      const spec = await holder(b!);
      assert.ok(spec.holderIdentity !== undefined && spec.holderIdentity !== '' && spec.holderIdentity !== first.holderIdentity, `holder ${spec.holderIdentity}`);
      return spec;
    }, { what: 'B to hold the lease' });
    assert.equal(second.leaseTransitions, (first.leaseTransitions ?? 0) + 1);

    // Now B's own controllers: ServiceAccounts, and the status of a new CRD.
    await defaultServiceAccountAppears(b, 'after-failover');
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    assert.equal((await b.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    await eventually(async () => {
      const conditions: Array<{ type: string; status: string }> = (await b!.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).json.status?.conditions ?? [];
      assert.ok(conditions.some((c) => c.type === 'Established' && c.status === 'True'), JSON.stringify(conditions));
    }, { what: 'the CRD to be Established' });
  } finally {
    if (!aStopped) await a.stop();
    await b?.stop();
  }
});

test('a replica that is not leading runs no controllers', async () => {
  const [viewA, viewB] = sharedBackend(new MemoryBackend(), 2);
  // A holds the lease but runs no ServiceAccount controller; B would, if it led.
  const a = await startServer({ ...timings, controllers: parseControllers('*,-serviceaccount-controller'), enableRootCaPublisher: true }, { backend: viewA! });
  const b = await startServer(timings, { backend: viewB! });
  try {
    assert.equal((await b.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'quiet' } } })).status, 201);
    // A's root CA publisher acts on the namespace; nobody makes its ServiceAccount.
    await eventually(async () => assert.equal((await b.request('GET', '/api/v1/namespaces/quiet/configmaps/kube-root-ca.crt')).status, 200));
    assert.equal((await b.request('GET', '/api/v1/namespaces/quiet/serviceaccounts/default')).status, 404);
  } finally {
    await b.stop();
    await a.stop();
  }
});

test('--leader-elect=false runs the controllers without a lease', async () => {
  const server = await startServer({ leaderElect: false });
  try {
    await defaultServiceAccountAppears(server, 'unelected');
    assert.equal((await server.request('GET', leasePath)).status, 404);
  } finally {
    await server.stop();
  }
});

test('--controllers turns single controllers off', async () => {
  const server = await startServer({ controllers: parseControllers('*,-serviceaccount,-root-ca-cert-publisher'), enableRootCaPublisher: true });
  try {
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'bare' } } })).status, 201);
    // The namespace controller still runs: deleting the namespace finishes.
    assert.equal((await server.request('DELETE', '/api/v1/namespaces/bare')).status, 200);
    await eventually(async () => assert.equal((await server.request('GET', '/api/v1/namespaces/bare')).status, 404), { what: 'the namespace to go' });
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'bare2' } } })).status, 201);
    // The quota controller counts the namespace's ServiceAccounts and ConfigMaps once it has seen them: none.
    const quota = { metadata: { name: 'q' }, spec: { hard: { 'count/serviceaccounts': '5', 'count/configmaps': '5' } } };
    assert.equal((await server.request('POST', '/api/v1/namespaces/bare2/resourcequotas', { body: quota })).status, 201);
    const used = await eventually(async () => {
      const status = (await server.request('GET', '/api/v1/namespaces/bare2/resourcequotas/q')).json.status;
      assert.ok(status?.used !== undefined, 'the quota has its usage');
      return status.used;
    });
    assert.deepEqual(used, { 'count/serviceaccounts': '0', 'count/configmaps': '0' });
    assert.equal((await server.request('GET', '/api/v1/namespaces/bare2/serviceaccounts/default')).status, 404);
    assert.equal((await server.request('GET', '/api/v1/namespaces/bare2/configmaps/kube-root-ca.crt')).status, 404);
  } finally {
    await server.stop();
  }
});
