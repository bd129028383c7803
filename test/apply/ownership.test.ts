// Issue 5's field ownership table, one test per row, on a Deployment.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ManagedFieldsScope } from '../../src/apply/index.ts';
import { apply, compileTopology } from '../../src/apply/index.ts';
import { builtinDefinitions } from '../../src/schema/index.ts';
import type { Schema } from '../../src/schema/types.ts';
import { deployment, deploymentScope, fixedNow, ownership, run } from './helpers.ts';

const scope = deploymentScope();
const spec = (fields: Record<string, unknown>) => deployment(fields);

describe('field ownership', () => {
  test('B applying a different value to an A-owned field without force is a conflict naming the field and owner', () => {
    const obj = run(scope, [
      { apply: 'a', object: spec({ replicas: 3 }) },
      { apply: 'b', object: spec({ replicas: 5 }), conflicts: ['a .spec.replicas'] },
    ]);
    assert.equal(obj.spec && (obj.spec as { replicas: number }).replicas, 3);
    assert.deepEqual(ownership(obj), { a: ['.spec.replicas'] });
  });

  test('with force B alone owns the field and it leaves the other managers', () => {
    const obj = run(scope, [
      { apply: 'a', object: spec({ replicas: 3, minReadySeconds: 5 }) },
      { apply: 'b', object: spec({ replicas: 5 }), force: true },
    ]);
    assert.equal((obj.spec as { replicas: number }).replicas, 5);
    assert.deepEqual(ownership(obj), { a: ['.spec.minReadySeconds'], b: ['.spec.replicas'] });
  });

  test('B omitting an A-owned field keeps the value, and A keeps owning it', () => {
    const obj = run(scope, [
      { apply: 'a', object: spec({ replicas: 3, minReadySeconds: 5 }) },
      { apply: 'b', object: spec({ paused: true }) },
    ]);
    assert.deepEqual(obj.spec, { replicas: 3, minReadySeconds: 5, paused: true });
    assert.deepEqual(ownership(obj), { a: ['.spec.minReadySeconds', '.spec.replicas'], b: ['.spec.paused'] });
  });

  test('B applying the value A applied makes the field shared', () => {
    const obj = run(scope, [
      { apply: 'a', object: spec({ replicas: 3 }) },
      { apply: 'b', object: spec({ replicas: 3 }) },
    ]);
    assert.deepEqual(ownership(obj), { a: ['.spec.replicas'], b: ['.spec.replicas'] });
  });

  test('a sharer changing a shared value is a conflict with the other sharer', () => {
    run(scope, [
      { apply: 'a', object: spec({ replicas: 3 }) },
      { apply: 'b', object: spec({ replicas: 3 }) },
      { apply: 'a', object: spec({ replicas: 4 }), conflicts: ['b .spec.replicas'] },
    ]);
  });

  test('a sharer omitting a shared field leaves the value to the others', () => {
    const obj = run(scope, [
      { apply: 'a', object: spec({ replicas: 3, paused: true }) },
      { apply: 'b', object: spec({ replicas: 3 }) },
      { apply: 'a', object: spec({ paused: true }) },
    ]);
    assert.deepEqual(obj.spec, { replicas: 3, paused: true });
    assert.deepEqual(ownership(obj), { a: ['.spec.paused'], b: ['.spec.replicas'] });
  });

  test('a non-apply write changing an A-owned value takes it without conflict, as an Update', () => {
    const first = run(scope, [{ apply: 'a', object: spec({ replicas: 3, minReadySeconds: 5 }) }]);
    const edited = structuredClone(first);
    (edited.spec as { replicas: number }).replicas = 7;
    const obj = run(scope, [{ update: 'kubectl-edit', object: edited }], first);
    assert.deepEqual(ownership(obj), { a: ['.spec.minReadySeconds'], 'kubectl-edit (Update)': ['.spec.replicas'] });
    const entry = obj.metadata.managedFields!.find((e) => e.manager === 'kubectl-edit')!;
    assert.equal(entry.operation, 'Update');
    assert.equal(entry.apiVersion, 'apps/v1');
  });

  test('B omitting a field only B owns removes the field', () => {
    const obj = run(scope, [
      { apply: 'b', object: spec({ replicas: 3, paused: true }) },
      { apply: 'b', object: spec({ replicas: 3 }) },
    ]);
    assert.deepEqual(obj.spec, { replicas: 3 });
    assert.deepEqual(ownership(obj), { b: ['.spec.replicas'] });
  });

  test('a manager that owns nothing any more disappears from managedFields', () => {
    const obj = run(scope, [
      { apply: 'a', object: spec({ replicas: 3 }) },
      { apply: 'b', object: spec({ replicas: 5 }), force: true },
    ]);
    assert.deepEqual(ownership(obj), { b: ['.spec.replicas'] });
  });
});

describe('apply', () => {
  test('creates the object when there is none, owning exactly what it applied', () => {
    const r = apply(scope, undefined, deployment({ replicas: 2 }, { labels: { app: 'x' } }), 'kubectl');
    assert.ok(r.ok);
    assert.equal(r.changed, true);
    assert.deepEqual(ownership(r.object), { kubectl: ['.metadata.labels.app', '.spec.replicas'] });
    assert.deepEqual(r.object.metadata.managedFields, [{
      manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:replicas': {} } },
    }]);
  });

  test('applied twice changes nothing the second time, entry time included', () => {
    const config = deployment({ replicas: 2, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } });
    const first = run(scope, [{ apply: 'kubectl', object: config }]);
    const later = deploymentScope({ now: () => new Date('2030-01-01T00:00:00Z') });
    const r = apply(later, first, structuredClone(config), 'kubectl');
    assert.ok(r.ok);
    assert.equal(r.changed, false);
    assert.deepEqual(r.object, first);
  });

  test('a changing apply stamps its entry with the write time in seconds', () => {
    const first = run(scope, [{ apply: 'kubectl', object: deployment({ replicas: 2 }) }]);
    const later = deploymentScope({ now: () => new Date('2030-01-01T00:00:00.789Z') });
    const r = apply(later, first, deployment({ replicas: 3 }), 'kubectl');
    assert.ok(r.ok);
    assert.equal(r.object.metadata.managedFields![0]!.time, '2030-01-01T00:00:00Z');
  });

  test('a conflict with an Update manager names its API version', () => {
    const created = run(scope, [{ update: 'kube-controller-manager', object: deployment({ replicas: 1 }) }]);
    const r = apply(scope, created, deployment({ replicas: 4 }), 'kubectl');
    assert.ok(!r.ok);
    assert.deepEqual(r.conflicts.map((c) => [c.manager, c.operation, c.apiVersion, c.field]), [
      ['kube-controller-manager', 'Update', 'apps/v1', '.spec.replicas'],
    ]);
  });

  test('applying another apiVersion keeps one Apply entry, now with that apiVersion', () => {
    const spec: Schema = { type: 'object', properties: { size: { type: 'integer' } } };
    const one = widgetScope({ spec }, 'example.com/v1');
    const two = widgetScope({ spec }, 'example.com/v2');
    let r = apply(one, undefined, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } }, 'm');
    assert.ok(r.ok);
    r = apply(two, { ...r.object, metadata: { ...r.object.metadata, uid: 'u' } }, { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 2 } }, 'm');
    assert.ok(r.ok);
    assert.deepEqual(r.object.metadata.managedFields!.map((e) => [e.manager, e.operation, e.apiVersion]), [['m', 'Apply', 'example.com/v2']]);
  });
});

function widgetScope(properties: Record<string, Schema>, apiVersion: string): ManagedFieldsScope {
  const schema: Schema = {
    type: 'object',
    properties: { ...properties, apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' } },
  };
  return { topology: compileTopology(schema, builtinDefinitions), apiVersion, kind: 'Widget', now: () => fixedNow };
}
