// The Store's DELETE as upstream's generic store: propagation finalizers per policy and per type default, a second delete, preconditions, dry run, and graceful pod deletion.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError, type KubeObject, type StatusError } from '../../src/api/index.ts';
import { runInRequestContext } from '../../src/api/request-context.ts';
import type { DeleteOptions, DeleteResult, Store } from '../../src/registry/store.ts';
import { builtinType, memoryStore, putStored, type StoreFixture } from '../helpers/store.ts';

const hold = 'example.com/hold';
const jobWarning = 'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning';

async function failure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (isStatusError(err)) return err;
    throw err;
  }
  assert.fail('expected an error');
}

const podTemplate = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };

/** A valid object of each type the cases use, with `finalizers`. */
const objects: Record<string, (finalizers?: string[]) => KubeObject> = {
  configmaps: (finalizers) => ({ metadata: { name: 'x', namespace: 'ns', finalizers }, data: { a: '1' } }),
  deployments: (finalizers) => ({ metadata: { name: 'x', namespace: 'ns', finalizers }, spec: { selector: { matchLabels: { app: 'a' } }, template: podTemplate } }),
  replicasets: (finalizers) => ({ metadata: { name: 'x', namespace: 'ns', finalizers }, spec: { selector: { matchLabels: { app: 'a' } }, template: podTemplate } }),
  replicationcontrollers: (finalizers) => ({ metadata: { name: 'x', namespace: 'ns', finalizers }, spec: { selector: { app: 'a' }, template: podTemplate } }),
  jobs: (finalizers) => ({ metadata: { name: 'x', namespace: 'ns', finalizers }, spec: { template: { spec: { ...podTemplate.spec, restartPolicy: 'Never' } } } }),
  events: (finalizers) => ({ metadata: { name: 'x', namespace: 'ns', finalizers }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'ns' }, reason: 'R', message: 'm' }),
  namespaces: (finalizers) => ({ metadata: { name: 'x', finalizers } }),
};

function fixture(resource: string): StoreFixture {
  return memoryStore(builtinType(resource));
}

function ns(store: Store): string {
  return store.type.namespaced ? 'ns' : '';
}

interface PropagationCase {
  name: string;
  resource: string;
  finalizers?: string[];
  opts: DeleteOptions;
  /** The finalizers of the object kept; undefined: it is deleted. */
  kept?: string[];
  warning?: boolean;
}

const propagationCases: PropagationCase[] = [
  { name: 'no options: a configmap goes (dependents deleted in the background)', resource: 'configmaps', opts: {} },
  { name: 'Background: goes', resource: 'configmaps', opts: { propagationPolicy: 'Background' } },
  { name: 'Orphan: kept with the orphan finalizer', resource: 'configmaps', opts: { propagationPolicy: 'Orphan' }, kept: ['orphan'] },
  { name: 'Foreground: kept with the foregroundDeletion finalizer', resource: 'configmaps', opts: { propagationPolicy: 'Foreground' }, kept: ['foregroundDeletion'] },
  { name: 'orphanDependents=true: orphan finalizer', resource: 'configmaps', opts: { orphanDependents: true }, kept: ['orphan'] },
  { name: 'orphanDependents=false: goes', resource: 'configmaps', opts: { orphanDependents: false } },
  { name: 'an orphan finalizer already there decides without options', resource: 'configmaps', finalizers: ['orphan'], opts: {}, kept: ['orphan'] },
  { name: 'Background removes an orphan finalizer already there, and the object goes', resource: 'configmaps', finalizers: ['orphan'], opts: { propagationPolicy: 'Background' } },
  { name: 'Orphan replaces foregroundDeletion', resource: 'configmaps', finalizers: ['foregroundDeletion'], opts: { propagationPolicy: 'Orphan' }, kept: ['orphan'] },
  { name: 'Foreground is added after other finalizers', resource: 'configmaps', finalizers: [hold], opts: { propagationPolicy: 'Foreground' }, kept: [hold, 'foregroundDeletion'] },
  { name: 'other finalizers alone keep the object, none added', resource: 'configmaps', finalizers: [hold], opts: {}, kept: [hold] },
  { name: 'apps/v1 deployments: dependents deleted by default', resource: 'deployments', opts: {} },
  { name: 'apps/v1 replicasets: dependents deleted by default', resource: 'replicasets', opts: {} },
  { name: 'core/v1 replicationcontrollers orphan by default', resource: 'replicationcontrollers', opts: {}, kept: ['orphan'] },
  { name: 'core/v1 replicationcontrollers with Background go', resource: 'replicationcontrollers', opts: { propagationPolicy: 'Background' } },
  { name: 'batch/v1 jobs orphan by default, with a warning', resource: 'jobs', opts: {}, kept: ['orphan'], warning: true },
  { name: 'batch/v1 jobs with Background go, no warning', resource: 'jobs', opts: { propagationPolicy: 'Background' } },
  { name: 'batch/v1 jobs with Orphan: no warning', resource: 'jobs', opts: { propagationPolicy: 'Orphan' }, kept: ['orphan'] },
  { name: 'batch/v1 jobs with orphanDependents=false go, no warning', resource: 'jobs', opts: { orphanDependents: false } },
  { name: 'events never get garbage-collection finalizers: Orphan deletes', resource: 'events', opts: { propagationPolicy: 'Orphan' } },
  { name: 'events: Foreground adds nothing to other finalizers', resource: 'events', finalizers: [hold], opts: { propagationPolicy: 'Foreground' }, kept: [hold] },
  { name: 'namespaces: orphanDependents=false asks for foreground deletion', resource: 'namespaces', opts: { orphanDependents: false }, kept: ['foregroundDeletion'] },
  { name: 'namespaces: Orphan', resource: 'namespaces', opts: { propagationPolicy: 'Orphan' }, kept: ['orphan'] },
  { name: 'namespaces: no options, no finalizers added', resource: 'namespaces', opts: {}, kept: [] },
];

for (const c of propagationCases) {
  test(`delete: ${c.name}`, async () => {
    const { store } = fixture(c.resource);
    const created = await store.create(ns(store), objects[c.resource]!(c.finalizers));
    const warnings: string[] = [];
    const context = { user: { name: 'tester', uid: '', groups: [] }, addWarning: (text: string) => void warnings.push(text) };
    const result = await runInRequestContext(context, () => store.delete(ns(store), 'x', c.opts));
    const stored = await store.find(ns(store), 'x');
    assert.deepEqual(warnings, c.warning ? [jobWarning] : []);
    if (c.kept === undefined) {
      assert.equal(result.deleted, true);
      assert.equal(stored, undefined);
      assert.deepEqual(result.object, created);
      return;
    }
    assert.equal(result.deleted, false);
    assert.deepEqual(result.object, stored);
    assert.deepEqual(stored!.metadata.finalizers ?? [], c.kept);
    assert.ok(stored!.metadata.deletionTimestamp !== undefined);
    // Upstream's namespace Delete sets the deletionTimestamp alone; the generic store records no grace left.
    assert.equal(stored!.metadata.deletionGracePeriodSeconds, c.resource === 'namespaces' ? undefined : 0);
  });
}

test('delete: a dry run with Orphan answers the finalizer and stores nothing', async () => {
  const { store, backend } = fixture('configmaps');
  await store.create('ns', objects.configmaps!());
  const before = await backend.currentRevision();
  const result = await store.delete('ns', 'x', { propagationPolicy: 'Orphan', dryRun: true });
  assert.equal(result.deleted, false);
  assert.deepEqual(result.object.metadata.finalizers, ['orphan']);
  assert.ok(result.object.metadata.deletionTimestamp !== undefined);
  assert.equal(await backend.currentRevision(), before);
});

const secondDeleteCases: { name: string; first: DeleteOptions; second: DeleteOptions; finalizers: string[] }[] = [
  { name: 'Foreground, then Orphan: the orphan finalizer replaces foregroundDeletion', first: { propagationPolicy: 'Foreground' }, second: { propagationPolicy: 'Orphan' }, finalizers: [hold, 'orphan'] },
  { name: 'Orphan, then Foreground', first: { propagationPolicy: 'Orphan' }, second: { propagationPolicy: 'Foreground' }, finalizers: [hold, 'foregroundDeletion'] },
  { name: 'Orphan, then Background: the orphan finalizer goes, the object stays for the other', first: { propagationPolicy: 'Orphan' }, second: { propagationPolicy: 'Background' }, finalizers: [hold] },
  { name: 'Orphan, then no options: kept as it is', first: { propagationPolicy: 'Orphan' }, second: {}, finalizers: [hold, 'orphan'] },
];

for (const c of secondDeleteCases) {
  test(`delete of an object being deleted: ${c.name}, deletionTimestamp unchanged`, async () => {
    const { store } = fixture('configmaps');
    await store.create('ns', objects.configmaps!([hold]));
    const first = await store.delete('ns', 'x', c.first);
    const second = await store.delete('ns', 'x', c.second);
    assert.equal(second.deleted, false);
    assert.deepEqual(second.object.metadata.finalizers, c.finalizers);
    assert.equal(second.object.metadata.deletionTimestamp, first.object.metadata.deletionTimestamp);
    assert.deepEqual(await store.find('ns', 'x'), second.object);
  });
}

test('delete: the first mark bumps the generation, a second delete does not', async () => {
  const { store } = fixture('deployments');
  const created = await store.create('ns', objects.deployments!([hold]));
  assert.equal(created.metadata.generation, 1);
  const first = await store.delete('ns', 'x');
  assert.equal(first.object.metadata.generation, 2);
  const second = await store.delete('ns', 'x', { propagationPolicy: 'Orphan' });
  assert.equal(second.object.metadata.generation, 2);
});

const preconditionCases: { name: string; preconditions: (s: KubeObject) => { uid?: string; resourceVersion?: string }; message?: (s: KubeObject) => string }[] = [
  { name: 'matching uid and resourceVersion: deleted', preconditions: (s) => ({ uid: s.metadata.uid, resourceVersion: s.metadata.resourceVersion }) },
  {
    name: 'another uid: 409 on the kind',
    preconditions: () => ({ uid: 'u' }),
    message: (s) => `Operation cannot be fulfilled on Deployment.apps "x": the UID in the precondition (u) does not match the UID in record (${s.metadata.uid}). The object might have been deleted and then recreated`,
  },
  {
    name: 'another resourceVersion: 409 on the kind',
    preconditions: () => ({ resourceVersion: '1' }),
    message: (s) => `Operation cannot be fulfilled on Deployment.apps "x": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${s.metadata.resourceVersion}). The object might have been modified`,
  },
];

for (const c of preconditionCases) {
  test(`delete with preconditions: ${c.name}`, async () => {
    const { store } = fixture('deployments');
    const created = await store.create('ns', objects.deployments!());
    if (c.message === undefined) {
      assert.equal((await store.delete('ns', 'x', { preconditions: c.preconditions(created) })).deleted, true);
      return;
    }
    const err = await failure(store.delete('ns', 'x', { preconditions: c.preconditions(created) }));
    assert.deepEqual([err.code, err.reason, err.message], [409, 'Conflict', c.message(created)]);
    assert.deepEqual(err.details, { name: 'x', group: 'apps', kind: 'Deployment' });
    assert.ok((await store.find('ns', 'x')) !== undefined);
  });
}

// ---- graceful pod deletion ----

interface PodSetup {
  nodeName?: string;
  phase?: string;
  terminationGracePeriodSeconds?: number;
  finalizers?: string[];
}

/** A pod stored as a scheduler and kubelet would have left it. */
async function storedPod(fx: StoreFixture, setup: PodSetup): Promise<KubeObject> {
  const created = await fx.store.create('ns', {
    metadata: { name: 'p', namespace: 'ns', finalizers: setup.finalizers },
    spec: { containers: [{ name: 'c', image: 'busybox' }], terminationGracePeriodSeconds: setup.terminationGracePeriodSeconds },
  });
  const spec = { ...(created.spec as object), nodeName: setup.nodeName };
  return putStored(fx, { ...created, spec, status: { ...(created.status as object), phase: setup.phase ?? 'Pending' } });
}

const bound = { nodeName: 'node-1', phase: 'Running' };

interface GracefulCase {
  name: string;
  pod: PodSetup;
  opts: DeleteOptions;
  /** The grace period the pod keeps; undefined: deleted now. */
  grace?: number;
}

const gracefulCases: GracefulCase[] = [
  { name: 'a pod no node runs goes at once', pod: {}, opts: {} },
  { name: 'a bound running pod waits its terminationGracePeriodSeconds (default 30)', pod: bound, opts: {}, grace: 30 },
  { name: 'a bound pod waits its own terminationGracePeriodSeconds', pod: { ...bound, terminationGracePeriodSeconds: 5 }, opts: {}, grace: 5 },
  { name: 'the grace asked for wins over the pod\'s', pod: bound, opts: { gracePeriodSeconds: 10 }, grace: 10 },
  { name: 'grace 0 deletes a bound pod at once', pod: bound, opts: { gracePeriodSeconds: 0 } },
  { name: 'a negative grace counts as 1 second', pod: bound, opts: { gracePeriodSeconds: -5 }, grace: 1 },
  { name: 'a Succeeded pod goes at once', pod: { nodeName: 'node-1', phase: 'Succeeded' }, opts: {} },
  { name: 'a Failed pod goes at once', pod: { nodeName: 'node-1', phase: 'Failed' }, opts: {} },
  { name: 'a finalizer keeps a pod deleted with grace 0', pod: { ...bound, finalizers: [hold] }, opts: { gracePeriodSeconds: 0 }, grace: 0 },
];

function secondsUntil(ts: string | undefined, from: number): number {
  return Math.round((Date.parse(ts!) - from) / 1000);
}

for (const c of gracefulCases) {
  test(`graceful pod deletion: ${c.name}`, async () => {
    const fx = memoryStore(builtinType('pods'));
    await storedPod(fx, c.pod);
    const now = Date.now();
    const result = await fx.store.delete('ns', 'p', c.opts);
    const stored = await fx.store.find('ns', 'p');
    if (c.grace === undefined) {
      assert.equal(result.deleted, true);
      assert.equal(stored, undefined);
      // Answered as marked for deletion, as upstream (the pod is written with grace 0, then deleted).
      assert.equal(result.object.metadata.deletionGracePeriodSeconds, 0);
      assert.ok(result.object.metadata.deletionTimestamp !== undefined);
      return;
    }
    assert.equal(result.deleted, false);
    assert.deepEqual(result.object, stored);
    assert.equal(stored!.metadata.deletionGracePeriodSeconds, c.grace);
    assert.ok(Math.abs(secondsUntil(stored!.metadata.deletionTimestamp, now) - c.grace) <= 1, stored!.metadata.deletionTimestamp);
  });
}

test('graceful pod deletion: a grace period past 292 years wraps as Go\'s time.Duration does (it was a 500)', async () => {
  const fx = memoryStore(builtinType('pods'));
  await storedPod(fx, bound);
  const now = Date.now();
  const result = await fx.store.delete('ns', 'p', { gracePeriodSeconds: 9e18 });
  assert.equal(result.deleted, false);
  assert.equal(result.object.metadata.deletionGracePeriodSeconds, 9e18);
  const wrapped = Number(BigInt.asIntN(64, 9_000_000_000_000_000_000n * 1_000_000_000n) / 1_000_000_000n);
  assert.ok(Math.abs(secondsUntil(result.object.metadata.deletionTimestamp, now) - wrapped) <= 2, result.object.metadata.deletionTimestamp);
});

interface SequenceCase {
  name: string;
  second: DeleteOptions;
  /** What the second delete leaves: the grace period kept and how much earlier deletionTimestamp is; undefined: deleted. */
  after?: { grace: number; earlierBy: number; written: boolean };
}

const sequenceCases: SequenceCase[] = [
  { name: 'again without a grace: answered as it is, nothing written', second: {}, after: { grace: 30, earlierBy: 0, written: false } },
  { name: 'again with the same grace: answered as it is', second: { gracePeriodSeconds: 30 }, after: { grace: 30, earlierBy: 0, written: false } },
  { name: 'a longer grace cannot extend it', second: { gracePeriodSeconds: 60 }, after: { grace: 30, earlierBy: 0, written: false } },
  { name: 'a shorter grace shortens it', second: { gracePeriodSeconds: 10 }, after: { grace: 10, earlierBy: 20, written: true } },
  { name: 'a pending graceful deletion ignores a change of propagation', second: { propagationPolicy: 'Orphan' }, after: { grace: 30, earlierBy: 0, written: false } },
  { name: 'grace 0 (the kubelet, or --force) deletes it', second: { gracePeriodSeconds: 0 } },
];

for (const c of sequenceCases) {
  test(`graceful pod deletion, a bound pod deleted ${c.name}`, async () => {
    const fx = memoryStore(builtinType('pods'));
    await storedPod(fx, bound);
    const first = await fx.store.delete('ns', 'p');
    const revision = await fx.backend.currentRevision();
    const second: DeleteResult = await fx.store.delete('ns', 'p', c.second);
    const stored = await fx.store.find('ns', 'p');
    if (c.after === undefined) {
      assert.equal(second.deleted, true);
      assert.equal(stored, undefined);
      return;
    }
    assert.equal(second.deleted, false);
    assert.deepEqual(second.object, stored);
    assert.equal(stored!.metadata.deletionGracePeriodSeconds, c.after.grace);
    assert.equal(secondsUntil(first.object.metadata.deletionTimestamp, Date.parse(stored!.metadata.deletionTimestamp!)), c.after.earlierBy);
    assert.equal((await fx.backend.currentRevision()) !== revision, c.after.written);
    assert.equal(stored!.metadata.finalizers, undefined);
  });
}

test('graceful pod deletion: a dry run answers the marked pod and changes nothing', async () => {
  const fx = memoryStore(builtinType('pods'));
  const pod = await storedPod(fx, bound);
  for (const gracePeriodSeconds of [undefined, 0]) {
    const result = await fx.store.delete('ns', 'p', { dryRun: true, gracePeriodSeconds });
    assert.equal(result.deleted, gracePeriodSeconds === 0);
    assert.equal(result.object.metadata.deletionGracePeriodSeconds, gracePeriodSeconds ?? 30);
    assert.deepEqual(await fx.store.find('ns', 'p'), pod);
  }
});

test('graceful pod deletion: Orphan on a bound pod sets both the grace period and the orphan finalizer', async () => {
  const fx = memoryStore(builtinType('pods'));
  await storedPod(fx, bound);
  const result = await fx.store.delete('ns', 'p', { propagationPolicy: 'Orphan', gracePeriodSeconds: 0 });
  assert.equal(result.deleted, false);
  assert.deepEqual(result.object.metadata.finalizers, ['orphan']);
  assert.equal(result.object.metadata.deletionGracePeriodSeconds, 0);
});

test('graceful pod deletion: the resourceVersion precondition holds across the mark and the delete', async () => {
  const fx = memoryStore(builtinType('pods'));
  const pod = await storedPod(fx, bound);
  const result = await fx.store.delete('ns', 'p', { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid, resourceVersion: pod.metadata.resourceVersion } });
  assert.equal(result.deleted, true);
  assert.equal(await fx.store.find('ns', 'p'), undefined);
});

const updateCases: { name: string; pod: PodSetup; opts: DeleteOptions; change: (pod: KubeObject) => KubeObject; subresource?: string; deleted: boolean }[] = [
  {
    name: 'a status update during the grace period keeps the pod',
    pod: bound, opts: {}, subresource: 'status', deleted: false,
    change: (pod) => ({ ...pod, status: { ...(pod.status as object), phase: 'Succeeded' } }),
  },
  {
    name: 'removing the last finalizer during the grace period keeps the pod',
    pod: { ...bound, finalizers: [hold] }, opts: {}, deleted: false,
    change: (pod) => ({ ...pod, metadata: { ...pod.metadata, finalizers: [] } }),
  },
  {
    name: 'removing the last finalizer of a pod deleted with grace 0 deletes it',
    pod: { ...bound, finalizers: [hold] }, opts: { gracePeriodSeconds: 0 }, deleted: true,
    change: (pod) => ({ ...pod, metadata: { ...pod.metadata, finalizers: [] } }),
  },
];

for (const c of updateCases) {
  test(`update of a pod being deleted: ${c.name}`, async () => {
    const fx = memoryStore(builtinType('pods'));
    await storedPod(fx, c.pod);
    const { object } = await fx.store.delete('ns', 'p', c.opts);
    await fx.store.guaranteedUpdate('ns', 'p', undefined, {}, () => c.change(object), { subresource: c.subresource });
    assert.equal((await fx.store.find('ns', 'p')) === undefined, c.deleted);
  });
}
