// Managed fields on every write: entries, the writer's name, resets, apply's refusals,
// the 409's format and kubectl's move from client-side to server-side apply.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject, ManagedFieldsEntry } from '../../src/api/types.ts';
import { StatusError } from '../../src/api/errors.ts';
import {
  FieldSet, apply, applyConflictError, decodeFieldsV1, encodeFieldsV1, lastAppliedAnnotation, managerFromUserAgent,
  managerOrUserAgent, updateManagedFields,
} from '../../src/apply/index.ts';
import type { Conflict } from '../../src/apply/index.ts';
import { deployment, deploymentScope, ownership, run, thing, thingScope } from './helpers.ts';

const scope = deploymentScope();

function stored(obj: KubeObject, managedFields: ManagedFieldsEntry[] | undefined): KubeObject {
  const out = structuredClone(obj);
  if (managedFields === undefined) delete out.metadata.managedFields;
  else out.metadata.managedFields = managedFields;
  out.metadata.uid = 'uid-1';
  return out;
}

describe('managedFields entries', () => {
  test('a create records an Update entry with manager, operation, apiVersion, time, fieldsType and fieldsV1', () => {
    const obj = deployment({ replicas: 1 }, { labels: { app: 'x' } });
    assert.deepEqual(updateManagedFields(scope, undefined, obj, 'kubectl-create'), [{
      manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {}, '.': {} } }, 'f:spec': { 'f:replicas': {}, '.': {} } },
    }]);
  });

  test('a write through a subresource names it, and is its own manager', () => {
    const status = deploymentScope({ subresource: 'status' });
    const live = run(scope, [{ apply: 'a', object: deployment({ replicas: 1 }) }]);
    const obj = structuredClone(live);
    obj.status = { replicas: 1 };
    const entries = updateManagedFields(status, live, obj, 'kube-controller-manager')!;
    const entry = entries.find((e) => e.manager === 'kube-controller-manager')!;
    assert.equal(entry.subresource, 'status');
    assert.deepEqual(decodeFieldsV1(entry.fieldsV1).paths().map((p) => p.join('/')), ['f:status', 'f:status/f:replicas']);
  });

  test('a write through a subresource keeps the stored managedFields whatever it sends', () => {
    const status = deploymentScope({ subresource: 'status' });
    const live = run(scope, [{ apply: 'a', object: deployment({ replicas: 1 }) }]);
    const obj = structuredClone(live);
    obj.metadata.managedFields = [{}];
    assert.deepEqual(updateManagedFields(status, live, obj, 'x'), live.metadata.managedFields);
  });

  test('reset fields are not recorded: status written through the main resource', () => {
    const main = deploymentScope({ resetFields: FieldSet.of(['f:status']) });
    const obj = deployment({ replicas: 1 });
    obj.status = { replicas: 3 };
    assert.deepEqual(ownership(stored(obj, updateManagedFields(main, undefined, obj, 'm'))), { 'm (Update)': ['.spec', '.spec.replicas'] });
  });

  test('entries sort as upstream: Apply before Update, then older first, then by manager', () => {
    let live = run(scope, [{ update: 'zeta', object: deployment({ replicas: 1 }) }]);
    const later = deploymentScope({ now: () => new Date('2025-01-01T00:00:00Z') });
    const obj = structuredClone(live);
    (obj.spec as Record<string, unknown>).paused = true;
    live = stored(obj, updateManagedFields(later, live, obj, 'alpha'));
    const r = apply(later, live, deployment({ minReadySeconds: 3 }), 'omega');
    assert.ok(r.ok);
    assert.deepEqual(r.object.metadata.managedFields!.map((e) => `${e.manager} ${e.operation} ${e.time}`), [
      'omega Apply 2025-01-01T00:00:00Z',
      'zeta Update 2024-05-01T10:00:00Z',
      'alpha Update 2025-01-01T00:00:00Z',
    ]);
  });

  test('a write that changes nothing changes no entry', () => {
    const live = run(scope, [{ update: 'a', object: deployment({ replicas: 1 }) }]);
    const later = deploymentScope({ now: () => new Date('2030-01-01T00:00:00Z') });
    assert.deepEqual(updateManagedFields(later, live, structuredClone(live), 'b'), live.metadata.managedFields);
  });

  test('an updater writing again adds to its entry and moves its time', () => {
    const live = run(scope, [{ update: 'a', object: deployment({ replicas: 1 }) }]);
    const later = deploymentScope({ now: () => new Date('2030-01-01T00:00:00Z') });
    const obj = structuredClone(live);
    (obj.spec as Record<string, unknown>).paused = true;
    const out = stored(obj, updateManagedFields(later, live, obj, 'a'));
    assert.deepEqual(ownership(out), { 'a (Update)': ['.spec', '.spec.paused', '.spec.replicas'] });
    assert.equal(out.metadata.managedFields![0]!.time, '2030-01-01T00:00:00Z');
  });

  test('more than ten Update managers: the oldest merge into "ancient-changes"', () => {
    let live: KubeObject | undefined;
    for (let i = 0; i < 12; i++) {
      const s = deploymentScope({ now: () => new Date(Date.UTC(2024, 0, 1, 0, 0, i)) });
      const obj = structuredClone(live ?? deployment({}));
      (obj.spec as Record<string, unknown>)[`f${i}`] = i;
      live = stored(obj, updateManagedFields(s, live, obj, `m${i}`));
    }
    const managers = live!.metadata.managedFields!.map((e) => e.manager);
    assert.equal(managers.length, 10);
    assert.deepEqual(managers.slice(0, 2), ['ancient-changes', 'm3']);
    assert.deepEqual(ownership(live!)['ancient-changes (Update)'], ['.spec', '.spec.f0', '.spec.f1', '.spec.f2']);
  });
});

describe('who the writer is', () => {
  const agents: [string, string][] = [
    ['kubectl/v1.33.1 (linux/amd64) kubernetes/abc', 'kubectl'],
    ['Go-http-client/2.0', 'Go-http-client'],
    ['kube-controller-manager/v1.30.0 (linux/arm64) kubernetes/x/leader-election', 'kube-controller-manager'],
    ['my tool', 'my tool'],
    ['bad\u0007chars\u0000/1', 'badchars'],
    ['', ''],
    ['x'.repeat(200), 'x'.repeat(128)],
    ['é'.repeat(100), 'é'.repeat(64)],
  ];
  for (const [agent, manager] of agents) {
    test(`User-Agent ${JSON.stringify(agent.slice(0, 40))} → ${JSON.stringify(manager.slice(0, 20))}`, () => {
      assert.equal(managerFromUserAgent(agent), manager);
    });
  }

  test('fieldManager wins over the User-Agent', () => {
    assert.equal(managerOrUserAgent('helm', 'kubectl/v1.33.1'), 'helm');
    assert.equal(managerOrUserAgent(undefined, 'kubectl/v1.33.1'), 'kubectl');
  });

  test('a write with no name at all is recorded as "unknown"', () => {
    assert.equal(updateManagedFields(scope, undefined, deployment({ replicas: 1 }), '')![0]!.manager, 'unknown');
  });
});

describe('resetting managedFields', () => {
  const live = run(scope, [{ apply: 'a', object: deployment({ replicas: 1 }) }]);

  test('[{}] clears them, and the same write records nothing (upstream skips objects without them)', () => {
    const obj = structuredClone(live);
    obj.metadata.managedFields = [{}];
    (obj.spec as Record<string, unknown>).replicas = 2;
    assert.equal(updateManagedFields(scope, live, obj, 'kubectl-patch'), undefined);
  });

  test('after a reset, non-apply writes record nothing until the next apply', () => {
    const reset = stored(live, undefined);
    const obj = structuredClone(reset);
    (obj.spec as Record<string, unknown>).replicas = 5;
    assert.equal(updateManagedFields(scope, reset, obj, 'editor'), undefined);
  });

  test('the next apply after a reset first gives every existing field to "before-first-apply"', () => {
    const reset = stored(deployment({ replicas: 1, paused: true }), undefined);
    const r = apply(scope, reset, deployment({ replicas: 1 }), 'kubectl');
    assert.ok(r.ok);
    // `.spec` itself too: the fields are taken from an empty object (upstream starts from the
    // Go type's zero value, whose spec is already there).
    assert.deepEqual(ownership(r.object), {
      kubectl: ['.spec.replicas'],
      'before-first-apply (Update)': ['.spec', '.spec.paused', '.spec.replicas'],
    });
  });

  test('an empty list does not reset them (Plinth differs from kube-apiserver here on purpose)', () => {
    const obj = structuredClone(live);
    obj.metadata.managedFields = [];
    assert.deepEqual(updateManagedFields(scope, live, obj, 'x'), live.metadata.managedFields);
  });

  test('no managedFields in the write keeps the stored ones', () => {
    const obj = structuredClone(live);
    delete obj.metadata.managedFields;
    assert.deepEqual(updateManagedFields(scope, live, obj, 'x'), live.metadata.managedFields);
  });

  test('managedFields the write sets replace the stored ones', () => {
    const obj = structuredClone(live);
    const mine: ManagedFieldsEntry[] = [{ manager: 'other', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
    obj.metadata.managedFields = mine;
    assert.deepEqual(updateManagedFields(scope, live, obj, 'x'), mine);
  });

  test('unreadable managedFields in the write keep the stored ones', () => {
    const obj = structuredClone(live);
    obj.metadata.managedFields = [{ manager: 'x', operation: 'Bogus' as 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }];
    assert.deepEqual(updateManagedFields(scope, live, obj, 'x'), live.metadata.managedFields);
  });
});

describe('apply refuses', () => {
  const cases: { name: string; body: unknown; status: number; message: string }[] = [
    {
      name: 'managedFields in the configuration (400)',
      body: deployment({}, { managedFields: [] }), status: 400, message: 'metadata.managedFields must be nil',
    },
    {
      name: 'another kind (400)',
      body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'd' } }, status: 400, message: 'invalid object type: apps/v1, Kind=ReplicaSet',
    },
    {
      name: 'no apiVersion (400)',
      body: { kind: 'Deployment', metadata: { name: 'd' } }, status: 400, message: 'invalid object type: /, Kind=Deployment',
    },
    {
      name: 'a list item repeating a key (500, as upstream)',
      body: deployment({ template: { spec: { containers: [{ name: 'c' }, { name: 'c' }] } } }), status: 500,
      message: 'failed to create typed patch object (ns/d; apps/v1, Kind=Deployment): .spec.template.spec.containers: duplicate entries for key [name="c"]',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.throws(() => apply(scope, undefined, c.body, 'kubectl'), (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, c.status);
        assert.equal(err.message, c.message);
        return true;
      });
    });
  }
});

describe('objects whose fields have no identity', () => {
  const broken = stored(deployment({ template: { spec: { containers: [{ image: 'no-name' }] } } }), [{
    manager: 'a', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } },
  }]);

  test('a non-apply write keeps the stored managedFields, as upstream\'s UpdateNoErrors', () => {
    const obj = structuredClone(broken);
    (obj.spec as Record<string, unknown>).replicas = 2;
    assert.deepEqual(updateManagedFields(scope, broken, obj, 'x'), broken.metadata.managedFields);
  });

  test('an apply into that list fails with upstream\'s 500 about the live object (one elsewhere goes through)', () => {
    assert.ok(apply(scope, broken, deployment({ replicas: 2 }), 'a').ok);
    const config = deployment({ template: { spec: { containers: [{ name: 'c', image: 'i' }] } } });
    assert.throws(() => apply(scope, broken, config, 'a'), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 500);
      assert.equal(err.message, 'failed to create typed live object (ns/d; apps/v1, Kind=Deployment): .spec.template.spec.containers: element 0: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)');
      return true;
    });
  });
});

describe('conflict Status', () => {
  const conflict = (manager: string, operation: 'Apply' | 'Update', field: string, extra: Partial<Conflict> = {}): Conflict => ({
    manager, operation, field, path: [], id: JSON.stringify({ manager, operation }), ...(operation === 'Update' ? { apiVersion: 'apps/v1' } : {}), ...extra,
  });

  test('one conflict: the message kubectl prints, one FieldManagerConflict cause', () => {
    const status = applyConflictError([conflict('kubectl-client-side-apply', 'Update', '.spec.replicas')]).toStatus();
    assert.deepEqual(status, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 409, reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }] },
    });
  });

  test('several conflicts: grouped by manager, one cause per field', () => {
    const status = applyConflictError([
      conflict('a', 'Apply', '.spec.replicas'),
      conflict('a', 'Apply', '.spec.template.spec.containers[name="nginx"].image'),
      conflict('b', 'Update', '.spec.paused', { subresource: 'scale' }),
    ]).toStatus();
    assert.equal(status.message, 'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image\nconflicts with "b" with subresource "scale" using apps/v1:\n- .spec.paused');
    assert.deepEqual(status.details!.causes!.map((c) => [c.message, c.field]), [
      ['conflict with "a"', '.spec.replicas'],
      ['conflict with "a"', '.spec.template.spec.containers[name="nginx"].image'],
      ['conflict with "b" with subresource "scale" using apps/v1', '.spec.paused'],
    ]);
  });

  test('apply conflicts come sorted by manager with fields named like upstream', () => {
    const live = run(scope, [
      { apply: 'b', object: deployment({ replicas: 1, template: { spec: { containers: [{ name: 'nginx', image: 'n:1' }] } } }) },
      { apply: 'a', object: deployment({ replicas: 1 }) },
    ]);
    const r = apply(scope, live, deployment({ replicas: 2, template: { spec: { containers: [{ name: 'nginx', image: 'n:2' }] } } }), 'c');
    assert.ok(!r.ok);
    assert.equal(applyConflictError(r.conflicts).message,
      'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.replicas\nconflicts with "b":\n- .spec.replicas\n- .spec.template.spec.containers[name="nginx"].image');
  });
});

describe('client-side apply to server-side apply', () => {
  const config = (replicas: number, image: string) => deployment({
    replicas,
    selector: { matchLabels: { app: 'x' } },
    template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'nginx', image }] } },
  });

  /** What `kubectl apply` (client-side) stores on create: the annotation, then defaults. */
  function createdByClientSideApply(): KubeObject {
    const obj = config(3, 'nginx:1');
    obj.metadata.annotations = { [lastAppliedAnnotation]: JSON.stringify(config(3, 'nginx:1')) + '\n' };
    (obj.spec as Record<string, unknown>).revisionHistoryLimit = 10;
    return stored(obj, updateManagedFields(scope, undefined, obj, 'kubectl-client-side-apply'));
  }

  /** client-go's csaupgrade.UpgradeManagedFields, which kubectl sends as a JSON patch after its first server-side apply. */
  function upgraded(obj: KubeObject): KubeObject {
    const entries = structuredClone(obj.metadata.managedFields ?? []);
    const isCSA = (e: ManagedFieldsEntry) => e.manager === 'kubectl-client-side-apply' && e.operation === 'Update' && !e.subresource;
    let target = entries.findIndex((e) => e.manager === 'kubectl' && e.operation === 'Apply' && !e.subresource);
    if (target < 0) {
      target = entries.findIndex(isCSA);
      entries[target] = { ...entries[target], manager: 'kubectl', operation: 'Apply' };
    }
    const csa = entries.find((e) => isCSA(e) && e.apiVersion === entries[target]!.apiVersion);
    if (csa) entries[target]!.fieldsV1 = encodeFieldsV1(decodeFieldsV1(entries[target]!.fieldsV1).union(decodeFieldsV1(csa.fieldsV1)));
    const out = structuredClone(obj);
    out.metadata.managedFields = entries.filter((e) => !isCSA(e));
    return stored(out, updateManagedFields(scope, obj, out, 'kubectl'));
  }

  test('kubectl apply --server-side after client-side apply raises no conflict and updates the annotation', () => {
    const live = createdByClientSideApply();
    const r = apply(scope, live, config(5, 'nginx:1'), 'kubectl');
    assert.ok(r.ok, 'no conflicts');
    assert.equal((r.object.spec as { replicas: number }).replicas, 5);
    assert.ok(!ownership(r.object)['kubectl-client-side-apply (Update)']!.includes('.spec.replicas'), 'replicas taken from the client-side manager');
  });

  test('the annotation holds the applied configuration as Go encodes it: keys sorted, newline-terminated', () => {
    const live = createdByClientSideApply();
    const r = apply(scope, live, config(5, 'nginx:1'), 'kubectl');
    assert.ok(r.ok);
    assert.equal(r.object.metadata.annotations![lastAppliedAnnotation],
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns"},"spec":{"replicas":5,"selector":{"matchLabels":{"app":"x"}},' +
      '"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"image":"nginx:1","name":"nginx"}]}}}}\n');
  });

  test('after kubectl moves the client-side fields to its Apply entry, omitted fields go away', () => {
    const live = createdByClientSideApply();
    const r = apply(scope, live, config(3, 'nginx:1'), 'kubectl');
    assert.ok(r.ok);
    const migrated = upgraded(stored(r.object, r.object.metadata.managedFields));
    assert.deepEqual(Object.keys(ownership(migrated)), ['kubectl']);
    const dropped = config(3, 'nginx:1');
    delete (dropped.spec as Record<string, unknown>).replicas;
    const after = apply(scope, migrated, dropped, 'kubectl');
    assert.ok(after.ok);
    assert.equal((after.object.spec as Record<string, unknown>).replicas, undefined);
    // So does a default client-side apply came to own: the Store's defaulting sets it again
    // (client-go's csaupgrade names this caveat).
    assert.equal((after.object.spec as Record<string, unknown>).revisionHistoryLimit, undefined);
  });

  test('a field changed since the last client-side apply still conflicts', () => {
    const live = createdByClientSideApply();
    const scaled = structuredClone(live);
    (scaled.spec as Record<string, unknown>).replicas = 7;
    const afterScale = stored(scaled, updateManagedFields(scope, live, scaled, 'kubectl-scale'));
    const r = apply(scope, afterScale, config(5, 'nginx:2'), 'kubectl');
    assert.ok(!r.ok);
    assert.deepEqual(r.conflicts.map((c) => `${c.manager} ${c.field}`), ['kubectl-scale .spec.replicas']);
  });

  test('the annotation is dropped rather than pass 256 KiB of annotations', () => {
    const live = createdByClientSideApply();
    const big = config(3, 'nginx:1');
    big.metadata.annotations = { big: 'x'.repeat(200 * 1024) };
    const r = apply(scope, live, big, 'kubectl');
    assert.ok(r.ok);
    assert.equal(r.object.metadata.annotations![lastAppliedAnnotation], undefined);
    assert.equal((r.object.metadata.annotations!.big as string).length, 200 * 1024);
  });

  test('only the manager "kubectl" is forgiven', () => {
    const live = createdByClientSideApply();
    const r = apply(scope, live, config(5, 'nginx:1'), 'helm');
    assert.ok(!r.ok);
    assert.deepEqual(r.conflicts.map((c) => `${c.manager} ${c.field}`), ['kubectl-client-side-apply .spec.replicas']);
  });
});

describe('custom resources', () => {
  test('unstructured fields: a nested map owned as granular keys, a list whole', () => {
    const s = thingScope({ spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } });
    const obj = run(s, [
      { apply: 'a', object: thing({ spec: { config: { debug: true }, hosts: ['a'] } }) },
      { apply: 'b', object: thing({ spec: { config: { level: 3 } } }) },
    ]);
    assert.deepEqual(obj.spec, { config: { debug: true, level: 3 }, hosts: ['a'] });
    assert.deepEqual(ownership(obj), {
      a: ['.spec.config', '.spec.config.debug', '.spec.hosts'],
      b: ['.spec.config', '.spec.config.level'],
    });
  });
});
