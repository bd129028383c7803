// Managers that wrote through different API versions of one object, as
// structured-merge-diff's multiple_appliers_test.go (TestMultipleAppliersFieldUnsetting)
// drives them: three versions whose struct fields carry the version in their names
// (`scalarField_v1` in v1 is `scalarField_v2` in v2), every combination of versions.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../src/api/types.ts';
import type { ManagedFieldsScope, Topology, Versions } from '../../src/apply/index.ts';
import { apply, compileTopology, decodeFieldsV1, displayPath, updateManagedFields } from '../../src/apply/index.ts';
import { builtinDefinitions } from '../../src/schema/index.ts';
import type { Schema } from '../../src/schema/types.ts';
import { fixedNow } from './helpers.ts';

const str: Schema = { type: 'string' };
const served = ['v1', 'v2', 'v3'];

function topologyOf(version: string): Topology {
  return compileTopology({
    type: 'object',
    properties: {
      apiVersion: str,
      kind: str,
      metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      struct: {
        type: 'object',
        properties: {
          name: str,
          [`scalarField_${version}`]: str,
          [`complexField_${version}`]: { type: 'object', properties: { name: str } },
        },
      },
    },
  }, builtinDefinitions);
}

const topologies = new Map(served.map((v) => [v, topologyOf(v)]));

/** Renames the struct's versioned fields, as the test's converter does. */
function convert(obj: unknown, _from: string, to: string): unknown {
  const o = obj as Record<string, unknown>;
  const out: Record<string, unknown> = { ...o };
  if (o.apiVersion !== undefined) out.apiVersion = to;
  const struct = o.struct as Record<string, unknown> | undefined;
  if (struct !== undefined && struct !== null) {
    out.struct = Object.fromEntries(Object.entries(struct).map(([k, v]) => [k.replace(/_v\d$/, `_${to}`), v]));
  }
  return out;
}

const versions: Versions = { has: (v) => topologies.has(v), convert, topology: (v) => topologies.get(v)! };

function scopeAt(version: string): ManagedFieldsScope {
  return { topology: topologies.get(version)!, apiVersion: version, kind: 'Thing', versions, now: () => fixedNow };
}

type Op = { apply: string; at: string; struct: Record<string, unknown>; force?: boolean; conflicts?: string[] } | { update: string; at: string; struct: Record<string, unknown> };

/** Runs the writes in turn, each through its version: the stored object is read as that version shows it. */
function run(ops: Op[]): { obj: KubeObject; at: string } {
  let live: KubeObject | undefined;
  let at = 'v1';
  for (const op of ops) {
    const current = live === undefined ? undefined : convert(live, at, op.at) as KubeObject;
    const object: KubeObject = { apiVersion: op.at, kind: 'Thing', metadata: { name: 'x', namespace: 'ns' }, struct: op.struct } as KubeObject;
    if ('apply' in op) {
      const r = apply(scopeAt(op.at), current, object, op.apply, { force: op.force ?? false });
      if (!r.ok) {
        assert.ok(op.conflicts, `unexpected conflicts: ${r.conflicts.map((c) => `${c.manager} ${c.field}`).join(', ')}`);
        assert.deepEqual(r.conflicts.map((c) => `${c.manager} ${c.field}`), op.conflicts);
        continue;
      }
      assert.equal(op.conflicts, undefined, 'expected conflicts');
      live = { ...r.object, metadata: { ...r.object.metadata, uid: 'uid-1' } };
    } else {
      const managedFields = updateManagedFields(scopeAt(op.at), current, object, op.update);
      live = { ...object, metadata: { ...object.metadata, uid: 'uid-1', ...(managedFields === undefined ? {} : { managedFields }) } };
    }
    at = op.at;
  }
  return { obj: live!, at };
}

/** Managers as `name@version`, with their fields. */
function owners(obj: KubeObject): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of obj.metadata.managedFields ?? []) out[`${e.manager}@${e.apiVersion}`] = decodeFieldsV1(e.fieldsV1).paths().map(displayPath).sort();
  return out;
}

/** The struct as `version` shows it. */
function structAt(run: { obj: KubeObject; at: string }, version: string): unknown {
  return (convert(run.obj, run.at, version) as { struct?: unknown }).struct;
}

describe('managers of different API versions', () => {
  for (const v1 of served) for (const v2 of served) for (const v3 of served) {
    describe(`${v1}, ${v2}, ${v3}`, () => {
      test('a field its sole applier stops applying, through another version, goes', () => {
        const r = run([
          { apply: 'apply-one', at: v1, struct: { name: 'a', [`scalarField_${v1}`]: 'a' } },
          { apply: 'apply-one', at: v2, struct: { name: 'a' } },
        ]);
        assert.deepEqual(structAt(r, v3), { name: 'a' });
        assert.deepEqual(owners(r.obj), { [`apply-one@${v2}`]: ['.struct.name'] });
      });

      test('a field another applier of another version owns stays', () => {
        const r = run([
          { apply: 'apply-one', at: v1, struct: { name: 'a', [`scalarField_${v1}`]: 'a' } },
          { apply: 'apply-two', at: v2, struct: { [`scalarField_${v2}`]: 'a' } },
          { apply: 'apply-one', at: v3, struct: { name: 'a' } },
        ]);
        assert.deepEqual(structAt(r, v3), { name: 'a', [`scalarField_${v3}`]: 'a' });
        assert.deepEqual(owners(r.obj), { [`apply-one@${v3}`]: ['.struct.name'], [`apply-two@${v2}`]: [`.struct.scalarField_${v2}`] });
      });

      test('a field an updater of another version owns stays', () => {
        const r = run([
          { update: 'updater', at: v1, struct: { name: 'a', [`scalarField_${v1}`]: 'a' } },
          { apply: 'applier', at: v2, struct: { name: 'a', [`scalarField_${v2}`]: 'a' } },
          { apply: 'applier', at: v3, struct: { name: 'a' } },
        ]);
        assert.deepEqual(structAt(r, v3), { name: 'a', [`scalarField_${v3}`]: 'a' });
        assert.deepEqual(owners(r.obj), {
          [`applier@${v3}`]: ['.struct.name'],
          [`updater@${v1}`]: ['.struct', '.struct.name', `.struct.scalarField_${v1}`],
        });
      });

      test('an updater of another version takes the field it changes', () => {
        const r = run([
          { apply: 'applier', at: v1, struct: { name: 'a', [`scalarField_${v1}`]: 'a' } },
          { update: 'updater', at: v2, struct: { name: 'a', [`scalarField_${v2}`]: 'b' } },
        ]);
        assert.deepEqual(structAt(r, v3), { name: 'a', [`scalarField_${v3}`]: 'b' });
        assert.deepEqual(owners(r.obj), { [`applier@${v1}`]: ['.struct.name'], [`updater@${v2}`]: [`.struct.scalarField_${v2}`] });
      });

      test('a struct another applier of another version owns a field in stays', () => {
        const r = run([
          { apply: 'apply-one', at: v1, struct: { name: 'a', [`complexField_${v1}`]: { name: 'b' } } },
          { apply: 'apply-two', at: v2, struct: { [`complexField_${v2}`]: { name: 'b' } } },
          { apply: 'apply-one', at: v3, struct: { name: 'a' } },
        ]);
        assert.deepEqual(structAt(r, v3), { name: 'a', [`complexField_${v3}`]: { name: 'b' } });
        assert.deepEqual(owners(r.obj), { [`apply-one@${v3}`]: ['.struct.name'], [`apply-two@${v2}`]: [`.struct.complexField_${v2}.name`] });
      });

      test('changing a value an applier of another version owns is a conflict naming its field as it owns it', () => {
        const r = run([
          { apply: 'apply-one', at: v1, struct: { name: 'a', [`scalarField_${v1}`]: 'a' } },
          { apply: 'apply-two', at: v2, struct: { [`scalarField_${v2}`]: 'b' }, conflicts: [`apply-one .struct.scalarField_${v1}`] },
          { apply: 'apply-two', at: v3, struct: { [`scalarField_${v3}`]: 'b' }, force: true },
        ]);
        assert.deepEqual(structAt(r, 'v1'), { name: 'a', scalarField_v1: 'b' });
        assert.deepEqual(owners(r.obj), { [`apply-one@${v1}`]: ['.struct.name'], [`apply-two@${v3}`]: [`.struct.scalarField_${v3}`] });
      });
    });
  }

  test('a manager of a version the object is no longer served at is dropped at the next write', () => {
    const r = run([
      { apply: 'apply-one', at: 'v1', struct: { name: 'a' } },
      { update: 'updater', at: 'v2', struct: { name: 'a', scalarField_v2: 'x' } },
    ]);
    const gone = { ...r.obj, metadata: { ...r.obj.metadata, managedFields: r.obj.metadata.managedFields!.map((e) => (e.manager === 'apply-one' ? { ...e, apiVersion: 'v0' } : e)) } };
    // A write that changes nothing drops it too, as upstream's updater converts for every manager.
    const same = structuredClone(gone);
    delete (same.metadata as { managedFields?: unknown }).managedFields;
    const managedFields = updateManagedFields(scopeAt('v2'), gone, same, 'updater');
    assert.deepEqual(managedFields?.map((e) => `${e.manager}@${e.apiVersion}`), ['updater@v2']);
    const applied = apply(scopeAt('v2'), gone, { apiVersion: 'v2', kind: 'Thing', metadata: { name: 'x', namespace: 'ns' }, struct: { name: 'a' } }, 'apply-two');
    assert.ok(applied.ok);
    assert.deepEqual(owners(applied.object), { 'apply-two@v2': ['.struct.name'], 'updater@v2': ['.struct.scalarField_v2'] });
  });
});
