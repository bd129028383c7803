// The garbage collector's dependency graph, with plain objects: what each informer event
// does to the graph and which objects it asks the collector to look at.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, OwnerReference } from '../../src/api/index.ts';
import { DependencyGraph, diffReferences, type GraphNode } from '../../src/controllers/gc-graph.ts';

interface Recorded {
  deletes: string[];
  orphans: string[];
  invalid: string[];
}

function newGraph(): { graph: DependencyGraph; seen: Recorded; reset(): void } {
  const seen: Recorded = { deletes: [], orphans: [], invalid: [] };
  const graph = new DependencyGraph({
    attemptToDelete: (node) => seen.deletes.push(node.identity.name),
    attemptToOrphan: (node) => seen.orphans.push(node.identity.name),
    invalidNamespace: (dep, ref) => seen.invalid.push(`${dep.identity.name}->${ref.name}`),
  });
  return { graph, seen, reset: () => Object.assign(seen, { deletes: [], orphans: [], invalid: [] }) };
}

function cm(name: string, opts: { ns?: string; owners?: OwnerReference[]; finalizers?: string[]; deleting?: boolean } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name, namespace: opts.ns ?? 'ns', uid: `uid-${name}`,
      ...(opts.owners ? { ownerReferences: opts.owners } : {}),
      ...(opts.finalizers ? { finalizers: opts.finalizers } : {}),
      ...(opts.deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}),
    },
  };
}

function ref(name: string, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid: `uid-${name}`, ...extra };
}

const observe = (graph: DependencyGraph, object: KubeObject, old?: KubeObject) => graph.observe(object, 'v1', 'ConfigMap', old);

function dependentsOf(node: GraphNode | undefined): string[] {
  return [...(node?.dependents ?? [])].map((d) => d.identity.name).sort();
}

describe('building the graph', () => {
  test('a dependent seen before its owner makes a virtual owner node, looked at once; the owner seen later makes it real', () => {
    const { graph, seen } = newGraph();
    observe(graph, cm('child', { owners: [ref('owner')] }));
    const virtual = graph.get('uid-owner');
    assert.equal(virtual?.observed, false);
    assert.deepEqual(dependentsOf(virtual), ['child']);
    assert.deepEqual(seen.deletes, ['owner']);
    observe(graph, cm('owner'));
    assert.equal(graph.get('uid-owner'), virtual, 'the same node');
    assert.equal(virtual!.observed, true);
    assert.deepEqual(seen.deletes, ['owner'], 'nothing more to look at');
  });

  test('an owner seen before its dependent: nothing to look at', () => {
    const { graph, seen } = newGraph();
    observe(graph, cm('owner'));
    observe(graph, cm('child', { owners: [ref('owner')] }));
    assert.deepEqual(dependentsOf(graph.get('uid-owner')), ['child']);
    assert.deepEqual(seen, { deletes: [], orphans: [], invalid: [] });
  });

  test('an owner deleted: its dependents are looked at, and it leaves the graph', () => {
    const { graph, seen } = newGraph();
    observe(graph, cm('owner'));
    observe(graph, cm('a', { owners: [ref('owner')] }));
    observe(graph, cm('b', { owners: [ref('owner')] }));
    graph.observeDeleted(cm('owner'));
    assert.equal(graph.get('uid-owner'), undefined);
    assert.deepEqual(seen.deletes.sort(), ['a', 'b']);
  });

  test('a dependent deleted leaves its owners\' dependents; an owner deleting in foreground is looked at again', () => {
    const { graph, seen, reset } = newGraph();
    observe(graph, cm('owner', { finalizers: ['foregroundDeletion'] }));
    observe(graph, cm('child', { owners: [ref('owner', { blockOwnerDeletion: true })] }));
    observe(graph, cm('owner', { finalizers: ['foregroundDeletion'], deleting: true }), cm('owner', { finalizers: ['foregroundDeletion'] }));
    reset();
    graph.observeDeleted(cm('child', { owners: [ref('owner', { blockOwnerDeletion: true })] }));
    assert.deepEqual(dependentsOf(graph.get('uid-owner')), []);
    assert.deepEqual(seen.deletes, ['owner']);
  });

  test('references added and removed by an update move the dependent between owners', () => {
    const { graph } = newGraph();
    observe(graph, cm('a'));
    observe(graph, cm('b'));
    observe(graph, cm('child', { owners: [ref('a')] }));
    observe(graph, cm('child', { owners: [ref('b')] }), cm('child', { owners: [ref('a')] }));
    assert.deepEqual(dependentsOf(graph.get('uid-a')), []);
    assert.deepEqual(dependentsOf(graph.get('uid-b')), ['child']);
  });

  test('a virtual node found absent goes, and its dependents are looked at; an observed node stays', () => {
    const { graph, seen, reset } = newGraph();
    observe(graph, cm('child', { owners: [ref('ghost')] }));
    reset();
    graph.virtualDelete(graph.get('uid-ghost')!.identity);
    assert.equal(graph.get('uid-ghost'), undefined);
    assert.deepEqual(seen.deletes, ['child']);
    observe(graph, cm('real'));
    graph.virtualDelete(graph.get('uid-real')!.identity);
    assert.ok(graph.get('uid-real'));
  });
});

describe('deletion transitions', () => {
  const cases: { name: string; old?: KubeObject; current: KubeObject; deletes: string[]; orphans: string[]; deletingDependents: boolean }[] = [
    { name: 'deleted with the orphan finalizer: orphan', old: cm('owner', { finalizers: ['orphan'] }), current: cm('owner', { finalizers: ['orphan'], deleting: true }), deletes: [], orphans: ['owner'], deletingDependents: false },
    { name: 'first seen deleting with the orphan finalizer (a restart): orphan', current: cm('owner', { finalizers: ['orphan'], deleting: true }), deletes: [], orphans: ['owner'], deletingDependents: false },
    { name: 'deleted with foregroundDeletion: its dependents and itself looked at', old: cm('owner', { finalizers: ['foregroundDeletion'] }), current: cm('owner', { finalizers: ['foregroundDeletion'], deleting: true }), deletes: ['child', 'owner'], orphans: [], deletingDependents: true },
    { name: 'already deleting, updated again: nothing new', old: cm('owner', { finalizers: ['orphan', 'x/y'], deleting: true }), current: cm('owner', { finalizers: ['orphan'], deleting: true }), deletes: [], orphans: [], deletingDependents: false },
    { name: 'deleted with another finalizer only: nothing to do', old: cm('owner', { finalizers: ['x/y'] }), current: cm('owner', { finalizers: ['x/y'], deleting: true }), deletes: [], orphans: [], deletingDependents: false },
    { name: 'a finalizer added without deletion: nothing to do', old: cm('owner'), current: cm('owner', { finalizers: ['orphan'] }), deletes: [], orphans: [], deletingDependents: false },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const { graph, seen, reset } = newGraph();
      if (c.old !== undefined) observe(graph, c.old);
      observe(graph, cm('child', { owners: [ref('owner')] }));
      reset();
      observe(graph, c.current, c.old);
      assert.deepEqual(seen.deletes.sort(), c.deletes);
      assert.deepEqual(seen.orphans, c.orphans);
      assert.equal(graph.get('uid-owner')!.deletingDependents, c.deletingDependents);
    });
  }
});

describe('blocking dependents', () => {
  const cases: { name: string; before: OwnerReference; after: OwnerReference[]; ownerLookedAt: boolean }[] = [
    { name: 'a blocking reference removed', before: ref('owner', { blockOwnerDeletion: true }), after: [], ownerLookedAt: true },
    { name: 'a blocking reference made non-blocking', before: ref('owner', { blockOwnerDeletion: true }), after: [ref('owner', { blockOwnerDeletion: false })], ownerLookedAt: true },
    { name: 'a non-blocking reference removed', before: ref('owner'), after: [], ownerLookedAt: false },
    { name: 'a blocking reference changing its controller flag only', before: ref('owner', { blockOwnerDeletion: true }), after: [ref('owner', { blockOwnerDeletion: true, controller: true })], ownerLookedAt: false },
  ];
  for (const c of cases) {
    test(`${c.name}: the owner ${c.ownerLookedAt ? 'is' : 'is not'} looked at`, () => {
      const { graph, seen, reset } = newGraph();
      observe(graph, cm('owner'));
      observe(graph, cm('child', { owners: [c.before] }));
      reset();
      observe(graph, cm('child', { owners: c.after }), cm('child', { owners: [c.before] }));
      assert.deepEqual(seen.deletes, c.ownerLookedAt ? ['owner'] : []);
      assert.deepEqual(graph.get('uid-child')!.owners, c.after, 'the node keeps the current references');
    });
  }

  test('blockingDependents lists only the dependents that block', () => {
    const { graph } = newGraph();
    observe(graph, cm('owner'));
    observe(graph, cm('a', { owners: [ref('owner', { blockOwnerDeletion: true })] }));
    observe(graph, cm('b', { owners: [ref('owner')] }));
    observe(graph, cm('c', { owners: [ref('owner', { blockOwnerDeletion: false })] }));
    assert.deepEqual(graph.get('uid-owner')!.blockingDependents().map((d) => d.identity.name), ['a']);
  });
});

describe('invalid namespaces', () => {
  test('a dependent naming an observed owner of another namespace: reported and looked at', () => {
    const { graph, seen } = newGraph();
    observe(graph, cm('owner', { ns: 'a' }));
    observe(graph, cm('child', { ns: 'b', owners: [ref('owner')] }));
    assert.deepEqual(seen.invalid, ['child->owner']);
    assert.deepEqual(seen.deletes, ['child']);
  });

  test('the bad dependent seen before its owner: reported when the owner is seen', () => {
    const { graph, seen, reset } = newGraph();
    observe(graph, cm('child', { ns: 'b', owners: [ref('owner')] }));
    reset();
    observe(graph, cm('owner', { ns: 'a' }));
    assert.deepEqual(seen.invalid, ['child->owner']);
    assert.deepEqual(seen.deletes, ['child']);
  });

  test('a cluster-scoped dependent naming an observed namespaced owner: reported', () => {
    const { graph, seen } = newGraph();
    observe(graph, cm('owner', { ns: 'a' }));
    observe(graph, cm('child', { ns: '', owners: [ref('owner')] }));
    assert.deepEqual(seen.invalid, ['child->owner']);
  });

  test('a cluster-scoped owner named from any namespace: fine', () => {
    const { graph, seen } = newGraph();
    observe(graph, cm('owner', { ns: '' }));
    observe(graph, cm('child', { ns: 'b', owners: [ref('owner')] }));
    assert.deepEqual(seen, { deletes: [], orphans: [], invalid: [] });
  });
});

describe('diffReferences', () => {
  const cases: { name: string; old: OwnerReference[]; current: OwnerReference[]; added: string[]; removed: string[]; unblocked: string[] }[] = [
    { name: 'nothing changed', old: [ref('a')], current: [ref('a')], added: [], removed: [], unblocked: [] },
    { name: 'one added, one removed', old: [ref('a')], current: [ref('b')], added: ['b'], removed: ['a'], unblocked: [] },
    { name: 'unblocked by false', old: [ref('a', { blockOwnerDeletion: true })], current: [ref('a', { blockOwnerDeletion: false })], added: [], removed: [], unblocked: ['a'] },
    { name: 'unblocked by leaving it out', old: [ref('a', { blockOwnerDeletion: true })], current: [ref('a')], added: [], removed: [], unblocked: ['a'] },
    { name: 'blocked', old: [ref('a')], current: [ref('a', { blockOwnerDeletion: true })], added: [], removed: [], unblocked: [] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const diff = diffReferences(c.old, c.current);
      assert.deepEqual(diff.added.map((r) => r.name), c.added);
      assert.deepEqual(diff.removed.map((r) => r.name), c.removed);
      assert.deepEqual(diff.unblocked.map((r) => r.name), c.unblocked);
    });
  }
});
