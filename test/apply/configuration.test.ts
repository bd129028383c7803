// What an apply configuration means beyond its leaves, as structured-merge-diff inside
// kube-apiserver reads it: empty maps and structs, explicit nulls, maps emptied by
// removal, and fields the schema does not declare.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StatusError } from '../../src/api/errors.ts';
import { apply } from '../../src/apply/index.ts';
import type { Schema } from '../../src/schema/types.ts';
import { body, ownership, run, thing, thingScope } from './helpers.ts';

const str: Schema = { type: 'string' };
const properties: Record<string, Schema> = {
  spec: {
    type: 'object',
    properties: {
      a: str,
      template: { type: 'object', properties: { x: str, y: str } },
      labels: { type: 'object', additionalProperties: str },
      tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
      items: {
        type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: str, v: str } },
      },
      args: { type: 'array', items: str },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { inner: { type: 'object', properties: { x: str } } } },
      open: { type: 'object' },
    },
  },
};
const typed = thingScope(properties);

describe('an empty map or struct in a configuration', () => {
  test('is owned by the applier itself, as a field with no children', () => {
    const obj = run(typed, [{ apply: 'a', object: thing({ spec: { a: '1', template: {} } }) }]);
    assert.deepEqual(body(obj), { spec: { a: '1', template: {} } });
    assert.deepEqual(ownership(obj), { a: ['.spec.a', '.spec.template'] });
    assert.deepEqual(obj.metadata.managedFields![0]!.fieldsV1, { 'f:spec': { 'f:a': {}, 'f:template': {} } });
  });

  test('applied over a struct with content, owns the struct and leaves the content', () => {
    const obj = run(typed, [
      { apply: 'a', object: thing({ spec: { template: { x: '1' } } }) },
      { apply: 'b', object: thing({ spec: { template: {} } }) },
    ]);
    assert.deepEqual(body(obj), { spec: { template: { x: '1' } } });
    assert.deepEqual(ownership(obj), { a: ['.spec.template.x'], b: ['.spec.template'] });
  });

  test('omitted later, it is removed when nobody else owns it or anything in it', () => {
    const obj = run(typed, [
      { apply: 'a', object: thing({ spec: { a: '1', template: {} } }) },
      { apply: 'a', object: thing({ spec: { a: '1' } }) },
    ]);
    assert.deepEqual(body(obj), { spec: { a: '1' } });
    assert.deepEqual(ownership(obj), { a: ['.spec.a'] });
  });

  test('omitted later, it stays while another manager owns a field in it', () => {
    const obj = run(typed, [
      { apply: 'a', object: thing({ spec: { a: '1', template: {} } }) },
      { update: 'editor', object: thing({ spec: { a: '1', template: { y: '2' } } }) },
      { apply: 'a', object: thing({ spec: { a: '1' } }) },
    ]);
    assert.deepEqual(body(obj), { spec: { a: '1', template: { y: '2' } } });
  });

  test('an empty granular list owns nothing; an empty atomic list is a leaf like any other', () => {
    const obj = run(typed, [{ apply: 'a', object: thing({ spec: { a: '1', tags: [], items: [], args: [] } }) }]);
    assert.deepEqual(ownership(obj), { a: ['.spec.a', '.spec.args'] });
  });
});

describe('a map emptied by removal', () => {
  // structured-merge-diff's RemoveItems leaves null where it removed the last key; a custom
  // resource keeps it, a built-in type's Go value drops it (the Store's business).
  test('is null, and the manager owning the map as a whole still owns it', () => {
    const obj = run(typed, [
      { apply: 'b', object: thing({ spec: { labels: {} } }) },
      { apply: 'a', object: thing({ spec: { a: '1', labels: { k: 'v' } } }) },
      { apply: 'a', object: thing({ spec: { a: '1' } }) },
    ]);
    assert.deepEqual(body(obj), { spec: { a: '1', labels: null } });
    assert.deepEqual(ownership(obj), { a: ['.spec.a'], b: ['.spec.labels'] });
  });

  test('is null, also when nobody else owns anything in it', () => {
    const obj = run(typed, [
      { apply: 'a', object: thing({ spec: { a: '1', items: [{ name: 'i' }], template: { x: '1' } } }) },
      { apply: 'b', object: thing({ spec: { template: { y: '2' } } }) },
      { apply: 'a', object: thing({ spec: { a: '1', template: { y: '2' } } }) },
    ]);
    assert.deepEqual(body(obj), { spec: { a: '1', items: null, template: { y: '2' } } });
  });
});

describe('an explicit null', () => {
  test('replaces a leaf, owned by the applier, and a conflict with its owner as any other value', () => {
    const obj = run(typed, [
      { apply: 'a', object: thing({ spec: { a: '1', template: { x: '1' } } }) },
      { apply: 'b', object: thing({ spec: { a: null } }), conflicts: ['a .spec.a'] },
      { apply: 'a', object: thing({ spec: { a: null, template: { x: null } } }) },
    ]);
    assert.deepEqual(body(obj), { spec: { a: null, template: { x: null } } });
    assert.deepEqual(ownership(obj), { a: ['.spec.a', '.spec.template.x'] });
  });

  test('for a map owns the map and leaves its keys', () => {
    const obj = run(typed, [
      { apply: 'a', object: thing({ spec: { labels: { k: 'v' } } }) },
      { apply: 'b', object: thing({ spec: { labels: null, template: null } }) },
    ]);
    assert.deepEqual(body(obj), { spec: { labels: { k: 'v' }, template: null } });
    assert.deepEqual(ownership(obj), { a: ['.spec.labels.k'], b: ['.spec.labels', '.spec.template'] });
  });
});

describe('a null where the live object has nothing', () => {
  const config = thing({ spec: { a: '1', template: { x: null } } });
  const at = (day: number, extra = {}) => thingScope(properties, { now: () => new Date(`2024-05-0${day}T10:00:00Z`), ...extra });
  const applyTwice = (extra: { keepsNulls?: boolean }) => {
    const first = apply(at(1, extra), undefined, structuredClone(config), 'a');
    assert.ok(first.ok);
    // The Store drops the null from a built-in object (its Go value has none).
    const stored = structuredClone(first.object) as { spec: { template: Record<string, unknown> } } & typeof first.object;
    if (extra.keepsNulls !== true) delete stored.spec.template.x;
    const again = apply(at(2, extra), { ...stored, metadata: { ...stored.metadata, uid: 'u' } }, structuredClone(config), 'a');
    assert.ok(again.ok);
    return again;
  };

  test('changes nothing in a built-in type: kubectl\'s creationTimestamp: null in templates re-applies as a no-op', () => {
    const again = applyTwice({});
    assert.equal(again.changed, false);
    assert.equal(again.object.metadata.managedFields![0]!.time, '2024-05-01T10:00:00Z');
  });

  test('is kept and unchanged in a custom resource', () => {
    const again = applyTwice({ keepsNulls: true });
    assert.equal(again.changed, false);
    assert.deepEqual(body(again.object), { spec: { a: '1', template: { x: null } } });
  });
});

describe('fields the schema does not declare', () => {
  const refused = (scope: typeof typed, object: Record<string, unknown>, meta?: Record<string, unknown>): string => {
    try {
      apply(scope, undefined, thing(object, meta), 'a');
    } catch (err) {
      assert.ok(err instanceof StatusError, String(err));
      assert.equal(err.code, 500);
      return err.message;
    }
    assert.fail('the apply was accepted');
  };
  const prefix = 'failed to create typed patch object (ns/x; /v1, Kind=Thing): ';

  const rows: { name: string; object: Record<string, unknown>; error: string }[] = [
    { name: 'a field of a struct', object: { spec: { bogus: 1 } }, error: '.spec.bogus: field not declared in schema' },
    { name: 'a top-level field', object: { bogus: {} }, error: '.bogus: field not declared in schema' },
    { name: 'a field of metadata', object: { metadata: { name: 'x', namespace: 'ns', bogus: 'x' } }, error: '.metadata.bogus: field not declared in schema' },
    { name: 'a field of a list item', object: { spec: { items: [{ name: 'a', bogus: 'x' }] } }, error: '.spec.items[name="a"].bogus: field not declared in schema' },
    { name: 'a field in a struct inside preserved unknown fields', object: { spec: { free: { inner: { x: '1' } } } }, error: '' },
    {
      name: 'one per struct, in several structs',
      object: { spec: { template: { nope: 1 }, bogus: 1, a: 'after the first undeclared field of a struct, nothing more of it is looked at' } },
      error: 'errors:\n  .spec.template.nope: field not declared in schema\n  .spec.bogus: field not declared in schema',
    },
  ];
  for (const row of rows) {
    test(row.name, () => {
      if (row.error === '') {
        assert.doesNotThrow(() => apply(typed, undefined, thing(row.object), 'a'));
        return;
      }
      assert.equal(refused(typed, row.object), prefix + row.error);
    });
  }

  test('keys of a map, of preserved unknown fields and of an object without properties are not refused', () => {
    const r = apply(typed, undefined, thing({ spec: { labels: { any: 'v' }, free: { p: { q: 1 }, inner: { x: '1', extra: [1] } }, open: { z: { w: 1 } } } }), 'a');
    assert.equal(r.ok, true);
  });

  test('a list item without identity in a list the live object lacks is the configuration\'s fault', () => {
    assert.equal(refused(typed, { spec: { items: ['a'] } }), `${prefix}.spec.items: element 0: associative list with keys may not have non-map elements`);
  });

  test('a cluster-scoped object names no namespace', () => {
    assert.equal(
      refused(typed, { spec: { bogus: 1 } }, { namespace: undefined }),
      'failed to create typed patch object (/x; /v1, Kind=Thing): .spec.bogus: field not declared in schema',
    );
  });
});

describe('a configuration that is not a mapping', () => {
  const rows: { name: string; applied: unknown; message: string }[] = [
    { name: 'a list does not decode into a map', applied: [1], message: 'error decoding YAML: json: cannot unmarshal array into Go value of type map[string]interface {}' },
    { name: 'a string does not decode into a map', applied: 'x', message: 'error decoding YAML: json: cannot unmarshal string into Go value of type map[string]interface {}' },
    { name: 'null decodes into an empty map, which names no type', applied: null, message: 'invalid object type: /, Kind=' },
  ];
  for (const row of rows) {
    test(`${row.name}: 400`, () => {
      assert.throws(() => apply(typed, undefined, row.applied, 'a'), (err: unknown) => {
        assert.ok(err instanceof StatusError, String(err));
        assert.equal(err.code, 400);
        assert.equal(err.message, row.message);
        return true;
      });
    });
  }
});

describe('metadata strings, maps and lists holding another kind of value', () => {
  const prefix = 'failed to create typed patch object (ns/x; /v1, Kind=Thing): ';
  const rows: { name: string; applied: Record<string, unknown>; error: string }[] = [
    { name: 'metadata a string', applied: { apiVersion: 'v1', kind: 'Thing', metadata: 'x' }, error: 'failed to create typed patch object (/; /v1, Kind=Thing): .metadata: expected map, got &{x}' },
    { name: 'labels a list', applied: thing({}, { labels: [] }), error: `${prefix}.metadata.labels: expected map, got &{[]}` },
    { name: 'a label value a number', applied: thing({}, { labels: { a: 1 } }), error: `${prefix}.metadata.labels.a: expected string, got &value.valueUnstructured{Value:1}` },
    { name: 'finalizers a string', applied: thing({}, { finalizers: 'x' }), error: `${prefix}.metadata.finalizers: expected list, got &{x}` },
    { name: 'ownerReferences a map', applied: thing({}, { ownerReferences: { a: 1 } }), error: `${prefix}.metadata.ownerReferences: expected list, got &{map[a:1]}` },
    { name: 'generateName a map', applied: thing({}, { generateName: { a: 1 } }), error: `${prefix}.metadata.generateName: expected string, got &value.valueUnstructured{Value:{"a":1}}` },
    { name: 'uid a number', applied: thing({}, { uid: 7 }), error: `${prefix}.metadata.uid: expected string, got &value.valueUnstructured{Value:7}` },
  ];
  for (const row of rows) {
    test(`${row.name}: 500, as upstream's typed conversion fails`, () => {
      assert.throws(() => apply(typed, undefined, row.applied, 'a'), (err: unknown) => {
        assert.ok(err instanceof StatusError, String(err));
        assert.equal(err.code, 500);
        assert.equal(err.message, row.error);
        return true;
      });
    });
  }
});

describe('values of another kind than their schema\'s', () => {
  const scope = thingScope({
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', format: 'int32' },
        ratio: { type: 'number' },
        paused: { type: 'boolean' },
        name: str,
        port: { 'x-kubernetes-int-or-string': true },
        labels: { type: 'object', additionalProperties: str },
        args: { type: 'array', items: str },
        tags: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
        items: {
          type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: str, v: str } },
        },
        template: { type: 'object', properties: { x: str } },
      },
    },
  });
  const prefix = 'failed to create typed patch object (ns/x; /v1, Kind=Thing): ';
  const rows: { name: string; spec: Record<string, unknown>; error: string }[] = [
    { name: 'a string for an integer', spec: { replicas: 'x' }, error: '.spec.replicas: expected numeric (int or float), got string' },
    { name: 'a map for a number', spec: { ratio: { a: 1 } }, error: '.spec.ratio: expected numeric (int or float), got map[string]interface {}' },
    { name: 'a number for a string', spec: { name: 1 }, error: '.spec.name: expected string, got &value.valueUnstructured{Value:1}' },
    { name: 'a list for a string', spec: { name: [1, 'a'] }, error: '.spec.name: expected string, got &value.valueUnstructured{Value:[]interface {}{1, "a"}}' },
    { name: 'a string for a boolean', spec: { paused: 'no' }, error: '.spec.paused: expected boolean, got &{no}' },
    { name: 'a map for an IntOrString', spec: { port: { a: 1 } }, error: '.spec.port: expected any scalar, got &{map[a:1]}' },
    { name: 'a map value', spec: { labels: { a: true } }, error: '.spec.labels.a: expected string, got &value.valueUnstructured{Value:true}' },
    { name: 'a string for a list', spec: { args: 'x' }, error: '.spec.args: expected list, got &{x}' },
    { name: 'a list for a struct', spec: { template: ['x'] }, error: '.spec.template: expected map, got &{[x]}' },
    { name: 'an atomic list\'s item', spec: { args: ['a', 2] }, error: '.spec.args[1]: expected string, got &value.valueUnstructured{Value:2}' },
    { name: 'a list map item\'s field', spec: { items: [{ name: 'a', v: false }] }, error: '.spec.items[name="a"].v: expected string, got &value.valueUnstructured{Value:false}' },
    {
      name: 'every one, in the configuration\'s order', spec: { paused: 1, replicas: true },
      error: 'errors:\n  .spec.paused: expected boolean, got &{1}\n  .spec.replicas: expected numeric (int or float), got bool',
    },
  ];
  for (const row of rows) {
    test(`${row.name}: 500, as upstream's typed conversion fails`, () => {
      assert.throws(() => apply(scope, undefined, thing({ spec: row.spec }), 'a'), (err: unknown) => {
        assert.ok(err instanceof StatusError, String(err));
        assert.equal(err.code, 500);
        assert.equal(err.message, prefix + row.error);
        return true;
      });
    });
  }

  test('null fits every kind, and an item without identity is left to the merge', () => {
    assert.doesNotThrow(() => apply(scope, undefined, thing({ spec: { replicas: null, name: null, args: null, template: null } }), 'a'));
    assert.throws(() => apply(scope, undefined, thing({ spec: { items: ['x'] } }), 'a'), /element 0: associative list with keys may not have non-map elements$/);
  });
});
