// One row per topology marker: the fields a value sets, and how two appliers' values merge.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileTopology, displayPath, fieldsOf } from '../../src/apply/index.ts';
import { builtinDefinitions } from '../../src/schema/index.ts';
import type { Schema } from '../../src/schema/types.ts';
import { body, ownership, run, thing, thingScope } from './helpers.ts';

const str: Schema = { type: 'string' };
const int: Schema = { type: 'integer' };
const item = (properties: Record<string, Schema>): Schema => ({ type: 'object', properties });

interface Row {
  name: string;
  schema: Record<string, Schema>;
  /** A value and the fields it sets. */
  value: Record<string, unknown>;
  fields: string[];
  /** What `a` then `b` apply, and the merged result (or b's conflicts). */
  a?: Record<string, unknown>;
  b?: Record<string, unknown>;
  merged?: Record<string, unknown>;
  conflicts?: string[];
}

const rows: Row[] = [
  {
    name: 'x-kubernetes-list-type atomic: the list is one field, replaced whole',
    schema: { list: { type: 'array', items: str, 'x-kubernetes-list-type': 'atomic' } },
    value: { list: ['a', 'b'] },
    fields: ['.list'],
    a: { list: ['a', 'b'] },
    b: { list: ['c'] },
    conflicts: ['a .list'],
  },
  {
    name: 'x-kubernetes-list-type set: each value is a field; appliers add their values',
    schema: { list: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' } },
    value: { list: ['a', 'b'] },
    fields: ['.list[="a"]', '.list[="b"]'],
    a: { list: ['a', 'b'] },
    b: { list: ['c', 'a'] },
    // structured-merge-diff's order: the configuration's items where it puts them, then the rest.
    merged: { list: ['c', 'a', 'b'] },
  },
  {
    name: 'x-kubernetes-list-type map with several x-kubernetes-list-map-keys: items by all keys',
    schema: {
      ports: {
        type: 'array', items: item({ port: int, protocol: str, name: str }),
        'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['protocol', 'port'],
      },
    },
    value: { ports: [{ port: 80, protocol: 'TCP', name: 'http' }] },
    fields: ['.ports[port=80,protocol="TCP"]', '.ports[port=80,protocol="TCP"].name', '.ports[port=80,protocol="TCP"].port', '.ports[port=80,protocol="TCP"].protocol'],
    a: { ports: [{ port: 80, protocol: 'TCP', name: 'http' }] },
    b: { ports: [{ port: 80, protocol: 'UDP', name: 'dns' }] },
    merged: { ports: [{ port: 80, protocol: 'TCP', name: 'http' }, { port: 80, protocol: 'UDP', name: 'dns' }] },
  },
  {
    name: 'list map: an item missing a key field takes the field\'s schema default',
    schema: {
      ports: {
        type: 'array', items: item({ port: int, protocol: { type: 'string', default: 'TCP' } }),
        'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port', 'protocol'],
      },
    },
    value: { ports: [{ port: 53 }] },
    fields: ['.ports[port=53,protocol="TCP"]', '.ports[port=53,protocol="TCP"].port'],
  },
  {
    name: 'list map: appliers merge fields of the same item, conflicting only on a value they both set',
    schema: { items: { type: 'array', items: item({ name: str, x: str, y: str }), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } },
    value: { items: [{ name: 'n', x: '1' }] },
    fields: ['.items[name="n"]', '.items[name="n"].name', '.items[name="n"].x'],
    a: { items: [{ name: 'n', x: '1' }] },
    b: { items: [{ name: 'n', y: '2' }] },
    merged: { items: [{ name: 'n', x: '1', y: '2' }] },
  },
  {
    name: 'x-kubernetes-map-type atomic on a struct: one field, replaced whole',
    schema: { selector: { type: 'object', properties: { a: str, b: str }, 'x-kubernetes-map-type': 'atomic' } },
    value: { selector: { a: '1' } },
    fields: ['.selector'],
    a: { selector: { a: '1' } },
    b: { selector: { b: '2' } },
    conflicts: ['a .selector'],
  },
  {
    name: 'x-kubernetes-map-type atomic on a map: one field',
    schema: { labels: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' } },
    value: { labels: { a: '1', b: '2' } },
    fields: ['.labels'],
  },
  {
    name: 'x-kubernetes-map-type granular (the default) on a map: each key is a field; appliers add keys',
    schema: { labels: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'granular' } },
    value: { labels: { a: '1' } },
    fields: ['.labels.a'],
    a: { labels: { a: '1' } },
    b: { labels: { b: '2' } },
    merged: { labels: { a: '1', b: '2' } },
  },
  {
    name: 'granular struct: declared fields below are fields, the struct itself is not',
    schema: { spec: item({ a: str, inner: item({ b: str }) }) },
    value: { spec: { a: '1', inner: { b: '2' } } },
    fields: ['.spec.a', '.spec.inner.b'],
    a: { spec: { a: '1' } },
    b: { spec: { inner: { b: '2' } } },
    merged: { spec: { a: '1', inner: { b: '2' } } },
  },
  {
    name: 'map of objects: each key is a field itself, and so is what is below it',
    schema: { byName: { type: 'object', additionalProperties: item({ v: str }) } },
    value: { byName: { k: { v: '1' } } },
    fields: ['.byName.k', '.byName.k.v'],
  },
  {
    name: 'atomic is recursive: nothing below an atomic list is tracked or merged',
    schema: {
      rules: {
        type: 'array', 'x-kubernetes-list-type': 'atomic',
        items: { type: 'object', properties: { verbs: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' }, name: str } },
      },
    },
    value: { rules: [{ name: 'r', verbs: ['get'] }] },
    fields: ['.rules'],
    a: { rules: [{ name: 'r', verbs: ['get'] }] },
    b: { rules: [{ name: 'r', verbs: ['get', 'list'] }] },
    conflicts: ['a .rules'],
  },
  {
    name: 'built-in patchStrategy merge with patchMergeKey makes a list map keyed by the merge key',
    schema: { env: { type: 'array', items: item({ name: str, value: str }), 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'name' } },
    value: { env: [{ name: 'A', value: '1' }] },
    fields: ['.env[name="A"]', '.env[name="A"].name', '.env[name="A"].value'],
    a: { env: [{ name: 'A', value: '1' }] },
    b: { env: [{ name: 'B', value: '2' }] },
    merged: { env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
  },
  {
    name: 'built-in patchStrategy merge on a list of scalars makes a set',
    schema: { finalizers: { type: 'array', items: str, 'x-kubernetes-patch-strategy': 'merge' } },
    value: { finalizers: ['f'] },
    fields: ['.finalizers[="f"]'],
  },
  {
    name: 'built-in patchStrategy merge,retainKeys with a merge key is a list map too',
    schema: { volumes: { type: 'array', items: item({ name: str }), 'x-kubernetes-patch-strategy': 'merge,retainKeys', 'x-kubernetes-patch-merge-key': 'name' } },
    value: { volumes: [{ name: 'v' }] },
    fields: ['.volumes[name="v"]', '.volumes[name="v"].name'],
  },
  {
    name: 'a list without markers (or with patchStrategy retainKeys only) is atomic',
    schema: { plain: { type: 'array', items: str }, retained: { type: 'array', items: str, 'x-kubernetes-patch-strategy': 'retainKeys' } },
    value: { plain: ['a'], retained: ['b'] },
    fields: ['.plain', '.retained'],
  },
  {
    name: 'x-kubernetes-list-type wins over the patch strategy',
    schema: { hostIPs: { type: 'array', items: item({ ip: str }), 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'ip' } },
    value: { hostIPs: [{ ip: '1.2.3.4' }] },
    fields: ['.hostIPs'],
  },
  {
    name: 'unstructured data (x-kubernetes-preserve-unknown-fields): maps granular, each key a field; lists atomic',
    schema: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    value: { spec: { a: { b: 1, list: [{ c: 1 }] } } },
    fields: ['.spec.a', '.spec.a.b', '.spec.a.list'],
    a: { spec: { a: { b: 1 } } },
    b: { spec: { a: { c: 2 }, list: [1] } },
    merged: { spec: { a: { b: 1, c: 2 }, list: [1] } },
  },
  {
    name: 'a field the schema does not declare is untyped',
    schema: {},
    value: { extra: { x: [1, 2] } },
    fields: ['.extra', '.extra.x'],
  },
  {
    name: 'int-or-string and Quantity-like oneOf fields are leaves',
    schema: { port: { 'x-kubernetes-int-or-string': true }, amount: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
    value: { port: 'http', amount: '1Gi' },
    fields: ['.amount', '.port'],
  },
];

describe('topology', () => {
  for (const row of rows) {
    test(row.name, () => {
      const scope = thingScope(row.schema);
      const got = fieldsOf(thing(row.value), scope.topology).paths().map(displayPath);
      const expected = ['.apiVersion', '.kind', '.metadata.name', '.metadata.namespace', ...row.fields];
      assert.deepEqual(got.sort(), expected.sort());
      if (row.a === undefined || row.b === undefined) return;
      const obj = run(scope, [
        { apply: 'a', object: thing(row.a) },
        row.conflicts ? { apply: 'b', object: thing(row.b), conflicts: row.conflicts } : { apply: 'b', object: thing(row.b) },
      ]);
      assert.deepEqual(body(obj), row.conflicts ? row.a : row.merged);
    });
  }

  test('markers written beside a $ref win over the referenced definition', () => {
    const defs = {
      ...builtinDefinitions,
      'example.Selector': { type: 'object', properties: { a: str } } as Schema,
    };
    const schema: Schema = {
      type: 'object',
      properties: { sel: { $ref: '#/components/schemas/example.Selector', 'x-kubernetes-map-type': 'atomic' }, plain: { $ref: '#/components/schemas/example.Selector' } },
    };
    const t = compileTopology(schema, defs);
    assert.deepEqual(fieldsOf({ sel: { a: '1' }, plain: { a: '1' } }, t).paths().map(displayPath).sort(), ['.plain.a', '.sel']);
  });

  test('built-in Deployment: containers by name, ports by containerPort and protocol, selector atomic', () => {
    const t = compileTopology(builtinDefinitions['io.k8s.api.apps.v1.Deployment'], builtinDefinitions);
    const d = {
      spec: {
        selector: { matchLabels: { app: 'x' } },
        template: { spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }], args: ['-v'] }] } },
      },
    };
    assert.deepEqual(fieldsOf(d, t).paths().map(displayPath), [
      '.spec.selector',
      '.spec.template.spec.containers[name="c"]',
      '.spec.template.spec.containers[name="c"].args',
      '.spec.template.spec.containers[name="c"].name',
      '.spec.template.spec.containers[name="c"].ports[containerPort=80,protocol="TCP"]',
      '.spec.template.spec.containers[name="c"].ports[containerPort=80,protocol="TCP"].containerPort',
    ]);
  });

  test('metadata: labels granular, finalizers a set, ownerReferences by uid with atomic items', () => {
    const scope = thingScope({});
    const obj = thing({}, { labels: { a: '1' }, finalizers: ['f'], ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u1' }] });
    assert.deepEqual(fieldsOf(obj, scope.topology).paths().map(displayPath).sort().filter((p) => !/^\.(apiVersion|kind|metadata\.name|metadata\.namespace)$/.test(p)), [
      '.metadata.finalizers[="f"]',
      '.metadata.labels.a',
      '.metadata.ownerReferences[uid="u1"]',
    ]);
  });

  test('an applied list item without its key, or repeating one, is refused with upstream\'s words', () => {
    const scope = thingScope({ items: { type: 'array', items: item({ name: str }), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } });
    assert.throws(() => fieldsOf({ items: [{ name: 'a' }, { name: 'a' }, {}] }, scope.topology), {
      message: 'errors:\n  .items: duplicate entries for key [name="a"]\n  .items: element 2: associative list with keys has an element that omits key field "name" (and doesn\'t have default value)',
    });
  });

  test('an applier dropping list items removes only those no other applier applies', () => {
    // structured-merge-diff merge/multiple_appliers_test.go "remove_one_keep_one".
    const scope = thingScope({ list: { type: 'array', items: item({ name: str }), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] } });
    const obj = run(scope, [
      { apply: 'apply-one', object: thing({ list: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }) },
      { apply: 'apply-two', object: thing({ list: [{ name: 'c' }, { name: 'd' }] }) },
      { apply: 'apply-one', object: thing({ list: [{ name: 'a' }] }) },
    ]);
    assert.deepEqual(body(obj), { list: [{ name: 'a' }, { name: 'c' }, { name: 'd' }] });
    assert.deepEqual(ownership(obj), {
      'apply-one': ['.list[name="a"]', '.list[name="a"].name'],
      'apply-two': ['.list[name="c"]', '.list[name="c"].name', '.list[name="d"]', '.list[name="d"].name'],
    });
  });
});
