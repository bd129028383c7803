// Drives sequences of applies and updates through the apply module, and shows managed
// fields as readable paths.

import assert from 'node:assert/strict';
import type { KubeObject, ManagedFieldsEntry } from '../../src/api/types.ts';
import type { ManagedFieldsScope } from '../../src/apply/index.ts';
import { apply, compileTopology, decodeFieldsV1, displayPath, updateManagedFields } from '../../src/apply/index.ts';
import type { Schema } from '../../src/schema/types.ts';
import { builtinDefinitions } from '../../src/schema/index.ts';

export const fixedNow = new Date('2024-05-01T10:00:00Z');

/** A scope over a custom schema for kind Thing in v1. */
export function thingScope(properties: Record<string, Schema>, extra: Partial<ManagedFieldsScope> = {}): ManagedFieldsScope {
  const schema: Schema = {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
      ...properties,
    },
  };
  return { topology: compileTopology(schema, builtinDefinitions), apiVersion: 'v1', kind: 'Thing', now: () => fixedNow, ...extra };
}

export function deploymentScope(extra: Partial<ManagedFieldsScope> = {}): ManagedFieldsScope {
  return {
    topology: compileTopology(builtinDefinitions['io.k8s.api.apps.v1.Deployment'], builtinDefinitions),
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    now: () => fixedNow,
    ...extra,
  };
}

export function thing(body: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'x', namespace: 'ns', ...meta }, ...body };
}

export function deployment(spec: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns', ...meta }, spec };
}

export type Op =
  | { apply: string; object: KubeObject; force?: boolean; conflicts?: string[] }
  | { update: string; object: KubeObject };

/**
 * Runs the operations in turn on one object, as the Store would: applies merge into the
 * stored object, updates replace it. An apply expected to conflict must name the
 * conflicting fields as `manager field` strings, and leaves the object unchanged.
 */
export function run(scope: ManagedFieldsScope, ops: Op[], start?: KubeObject): KubeObject {
  let live = start;
  for (const op of ops) {
    if ('apply' in op) {
      const r = apply(scope, live, structuredClone(op.object), op.apply, { force: op.force ?? false });
      if (!r.ok) {
        assert.ok(op.conflicts, `unexpected conflicts for ${op.apply}: ${r.conflicts.map((c) => `${c.manager} ${c.field}`).join(', ')}`);
        assert.deepEqual(r.conflicts.map((c) => `${c.manager} ${c.field}`), op.conflicts);
        continue;
      }
      assert.equal(op.conflicts, undefined, `expected conflicts for ${op.apply}`);
      live = { ...r.object, metadata: { ...r.object.metadata, uid: 'uid-1' } };
    } else {
      const obj = structuredClone(op.object);
      const managedFields = updateManagedFields(scope, live, obj, op.update);
      if (managedFields === undefined) delete obj.metadata.managedFields;
      else obj.metadata.managedFields = managedFields;
      live = { ...obj, metadata: { ...obj.metadata, uid: 'uid-1' } };
    }
  }
  assert.ok(live, 'no object');
  return live;
}

function entryLabel(e: ManagedFieldsEntry): string {
  return e.operation === 'Apply' ? `${e.manager}` : `${e.manager} (${e.operation}${e.subresource ? ' ' + e.subresource : ''})`;
}

/** Managers and their fields, sorted: `{ "a": [".spec.x"], "b (Update)": [...] }`. */
export function ownership(obj: KubeObject): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of obj.metadata.managedFields ?? []) {
    out[entryLabel(e)] = decodeFieldsV1(e.fieldsV1).paths().map(displayPath).sort();
  }
  return out;
}

/** The object without metadata, for comparing contents. */
export function body(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}
