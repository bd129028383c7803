// Managed fields reconciled with the schema they are read against, as structured-merge-diff's
// ReconcileFieldSetWithSchema (its typed/reconcile_schema_test.go cases, then whole writes).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFieldsV1, displayPath, encodeFieldsV1 } from '../../src/apply/index.ts';
import { FieldSet } from '../../src/apply/field-set.ts';
import { fieldElement, keyElement, valueElement, type Path } from '../../src/apply/field-path.ts';
import { reconcileWithSchema } from '../../src/apply/reconcile.ts';
import { compileTopology } from '../../src/apply/topology.ts';
import type { Schema } from '../../src/schema/types.ts';
import { ownership, run, thing, thingScope } from './helpers.ts';

const f = fieldElement;

/** The cases' type: a struct, a string set, a list map keyed by keyA and keyB, a string map, and a struct that stays granular. */
function schema(atomic: boolean): Schema {
  const marks = (kind: 'list' | 'map'): Schema => (atomic ? (kind === 'list' ? { 'x-kubernetes-list-type': 'atomic' } : { 'x-kubernetes-map-type': 'atomic' }) : {});
  return {
    type: 'object',
    properties: {
      struct: { type: 'object', properties: { numeric: { type: 'integer' }, string: { type: 'string' } }, ...marks('map') },
      list: { type: 'array', items: { type: 'string' }, ...(atomic ? marks('list') : { 'x-kubernetes-list-type': 'set' }) },
      objectList: {
        type: 'array', items: { type: 'object', properties: { keyA: { type: 'string' }, keyB: { type: 'string' }, value: { type: 'string' } } },
        ...(atomic ? marks('list') : { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['keyA', 'keyB'] }),
      },
      stringMap: { type: 'object', additionalProperties: { type: 'string' }, ...marks('map') },
      unchanged: { type: 'object', properties: { numeric: { type: 'integer' } } },
    },
  };
}

const a1b1 = keyElement(['keyA', 'keyB'], ['a1', 'b1']);
const paths = (set: FieldSet | undefined) => set?.paths().map(displayPath).sort();
/** As read from managedFields: through its FieldsV1, a fresh parse. */
const read = (...p: Path[]) => decodeFieldsV1(JSON.parse(JSON.stringify(encodeFieldsV1(FieldSet.of(...p)))));

describe('reconciling a field set with its schema', () => {
  test('granular to atomic: fields below a node made atomic become the node', () => {
    const old = read([f('struct'), f('numeric')], [f('list'), valueElement('one')], [f('stringMap'), f('key1')], [f('objectList'), a1b1, f('value')], [f('unchanged'), f('numeric')]);
    assert.deepEqual(paths(reconcileWithSchema(old, compileTopology(schema(true)))), ['.list', '.objectList', '.stringMap', '.struct', '.unchanged.numeric']);
  });

  test('nothing changes when the set fits: granular fields of a granular schema, atomic ones of an atomic schema, empty leaves', () => {
    const granular = read([f('struct'), f('numeric')], [f('list'), valueElement('one')], [f('objectList'), a1b1, f('value')], [f('stringMap'), f('key1')], [f('unchanged'), f('numeric')]);
    assert.equal(reconcileWithSchema(granular, compileTopology(schema(false))), undefined);
    const atomic = read([f('struct')], [f('list')], [f('objectList')], [f('unchanged'), f('numeric')]);
    assert.equal(reconcileWithSchema(atomic, compileTopology(schema(true))), undefined);
    // A node made granular is left as it is (upstream no longer widens its owner to what it holds).
    assert.equal(reconcileWithSchema(atomic, compileTopology(schema(false))), undefined);
    const leaves = read([f('struct')], [f('list')], [f('objectList')], [f('objectList'), a1b1], [f('objectList'), a1b1, f('value')], [f('unchanged')]);
    assert.equal(reconcileWithSchema(leaves, compileTopology(schema(false))), undefined);
  });

  test('untyped data is left alone: a schema-less object, preserved unknown fields; declared fields beside them are reconciled', () => {
    assert.equal(reconcileWithSchema(read([f('struct'), f('numeric')]), compileTopology(undefined)), undefined);
    const preserving = (atomic: boolean): Schema => ({
      type: 'object',
      properties: { preserveField: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { list: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': atomic ? 'atomic' : 'set' } } } },
    });
    const old = read([f('preserveField')], [f('preserveField'), f('arbitrary'), f('deep')], [f('preserveField'), f('list')], [f('preserveField'), f('list'), valueElement('one')]);
    assert.deepEqual(paths(reconcileWithSchema(old, compileTopology(preserving(true)))), ['.preserveField', '.preserveField.arbitrary.deep', '.preserveField.list']);
    assert.equal(reconcileWithSchema(old, compileTopology(preserving(false))), undefined);
  });

  test('a set built in process is reconciled as one read from managedFields', () => {
    const built = FieldSet.of([f('struct'), f('string')], [f('unchanged'), f('numeric')]);
    assert.deepEqual(paths(reconcileWithSchema(built, compileTopology(schema(true)))), ['.struct', '.unchanged.numeric']);
  });
});

describe('writes after a schema change', () => {
  const granular = thingScope(schema(false).properties!);
  const atomic = thingScope(schema(true).properties!);

  test('an update reconciles every manager: the applier\'s fields below the list now made atomic become the list', () => {
    const obj = run(granular, [{ apply: 'a', object: thing({ list: ['one', 'two'], struct: { numeric: 1 } }) }]);
    assert.deepEqual(ownership(obj).a, ['.list[="one"]', '.list[="two"]', '.struct.numeric']);
    const after = run(atomic, [{ update: 'editor', object: thing({ list: ['one', 'two'], struct: { numeric: 1 }, unchanged: { numeric: 3 } }) }], obj);
    assert.deepEqual(ownership(after).a, ['.list', '.struct']);
  });

  test('an apply changing the atomic list is then a conflict over the list itself', () => {
    const obj = run(granular, [{ apply: 'a', object: thing({ list: ['one'] }) }]);
    run(atomic, [
      { apply: 'b', object: thing({ list: ['two'] }), conflicts: ['a .list'] },
      { apply: 'b', object: thing({ list: ['two'] }), force: true },
    ], obj);
  });
});
