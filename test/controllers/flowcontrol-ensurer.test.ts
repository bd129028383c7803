// Priority and fairness' bootstrap configuration kept as upstream's ensurer keeps it: what
// is missing made again, mandatory specs always brought back, suggested ones only while
// their annotation (or an unchanged generation) allows, the annotation written to say
// which, and objects no longer wanted that allow it deleted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FlowControlEnsurer } from '../../src/controllers/flowcontrol-ensurer.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let ensurer: FlowControlEnsurer;
before(async () => {
  server = await startServer();
  const store = (resource: string) => server.registry.lookup('flowcontrol.apiserver.k8s.io', 'v1', resource)!.store;
  ensurer = new FlowControlEnsurer({ schemas: store('flowschemas'), levels: store('prioritylevelconfigurations'), log: () => {} });
});
after(() => server.stop());

const base = '/apis/flowcontrol.apiserver.k8s.io/v1';
type Obj = { metadata: { name: string; generation: number; annotations?: Record<string, string>; managedFields?: Array<{ manager: string; operation: string }> }; spec: Record<string, any> };

async function get(path: string): Promise<Obj> {
  const res = await server.request('GET', `${base}/${path}`);
  assert.equal(res.status, 200, res.text);
  return res.json;
}

async function put(path: string, edit: (o: Obj) => void): Promise<void> {
  const o = await get(path);
  edit(o);
  const res = await server.request('PUT', `${base}/${path}`, { body: o });
  assert.equal(res.status, 200, res.text);
}

test('a deleted object is made again, by the producer', async () => {
  for (const path of ['flowschemas/global-default', 'prioritylevelconfigurations/workload-low']) assert.equal((await server.request('DELETE', `${base}/${path}`)).status, 200);
  await ensurer.ensure();
  const schema = await get('flowschemas/global-default');
  assert.equal(schema.spec.matchingPrecedence, 9900);
  // (The consumer may have applied its status already.)
  assert.ok(schema.metadata.managedFields?.some((f) => f.manager === 'api-priority-and-fairness-config-producer-v1' && f.operation === 'Update'), JSON.stringify(schema.metadata.managedFields));
  assert.equal((await get('prioritylevelconfigurations/workload-low')).spec.limited.nominalConcurrencyShares, 100);
});

// A mandatory object's spec cannot be changed through the API (its validation refuses it, as upstream's).
test('a mandatory object is always annotated for update again, but the exempt level\'s shares and lendable percent are the operator\'s', async () => {
  await put('flowschemas/catch-all', (o) => {
    o.metadata.annotations = { 'apf.kubernetes.io/autoupdate-spec': 'false' };
  });
  await put('prioritylevelconfigurations/exempt', (o) => void (o.spec.exempt = { nominalConcurrencyShares: 10, lendablePercent: 20 }));
  await ensurer.ensure();
  const catchAll = await get('flowschemas/catch-all');
  assert.equal(catchAll.spec.matchingPrecedence, 10000);
  assert.equal(catchAll.metadata.annotations?.['apf.kubernetes.io/autoupdate-spec'], 'true');
  assert.deepEqual((await get('prioritylevelconfigurations/exempt')).spec, { type: 'Exempt', exempt: { nominalConcurrencyShares: 10, lendablePercent: 20 } });
});

test('a suggested spec is brought back while its annotation says so, and kept once the operator changed it without one', async () => {
  // Annotated true: back to the default.
  await put('flowschemas/service-accounts', (o) => void (o.spec.matchingPrecedence = 8000));
  // No annotation and changed (generation 2): kept, and annotated false.
  await put('prioritylevelconfigurations/workload-high', (o) => {
    o.spec.limited.nominalConcurrencyShares = 7;
    delete o.metadata.annotations;
  });
  // Annotated false: kept as it is.
  await put('flowschemas/kube-scheduler', (o) => {
    o.spec.matchingPrecedence = 700;
    o.metadata.annotations = { 'apf.kubernetes.io/autoupdate-spec': 'false' };
  });
  // Made again by hand, unannotated but never changed (generation 1): brought back and annotated true.
  assert.equal((await server.request('DELETE', `${base}/prioritylevelconfigurations/node-high`)).status, 200);
  const made = await server.request('POST', `${base}/prioritylevelconfigurations`, { body: {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'node-high' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, limitResponse: { type: 'Reject' } } },
  } });
  assert.equal(made.status, 201, made.text);
  await ensurer.ensure();
  assert.equal((await get('flowschemas/service-accounts')).spec.matchingPrecedence, 9000);
  const high = await get('prioritylevelconfigurations/workload-high');
  assert.equal(high.spec.limited.nominalConcurrencyShares, 7);
  assert.equal(high.metadata.annotations?.['apf.kubernetes.io/autoupdate-spec'], 'false');
  assert.equal((await get('flowschemas/kube-scheduler')).spec.matchingPrecedence, 700);
  const node = await get('prioritylevelconfigurations/node-high');
  assert.deepEqual(node.spec.limited, { nominalConcurrencyShares: 40, lendablePercent: 25, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } } });
  assert.equal(node.metadata.annotations?.['apf.kubernetes.io/autoupdate-spec'], 'true');
  // A second pass changes nothing more.
  const before = (await get('prioritylevelconfigurations/workload-high')).metadata;
  await ensurer.ensure();
  assert.deepEqual((await get('prioritylevelconfigurations/workload-high')).metadata, before);
});

test('an object that is not part of the configuration is deleted only when it says it may be updated', async () => {
  const schema = (name: string, annotations?: Record<string, string>) => ({
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name, ...(annotations !== undefined ? { annotations } : {}) },
    spec: { priorityLevelConfiguration: { name: 'global-default' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'x' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }] },
  });
  for (const [name, annotations] of [['retired', { 'apf.kubernetes.io/autoupdate-spec': 'true' }], ['mine', undefined], ['pinned', { 'apf.kubernetes.io/autoupdate-spec': 'false' }], ['odd', { 'apf.kubernetes.io/autoupdate-spec': 'yes' }]] as const) {
    assert.equal((await server.request('POST', `${base}/flowschemas`, { body: schema(name, annotations) })).status, 201);
  }
  await ensurer.ensure();
  assert.equal((await server.request('GET', `${base}/flowschemas/retired`)).status, 404);
  for (const name of ['mine', 'pinned', 'odd']) assert.equal((await server.request('GET', `${base}/flowschemas/${name}`)).status, 200, name);
});
