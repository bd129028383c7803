import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compare, displayPath, fieldsOf, merge } from '../../src/apply/index.ts';
import type { FieldSet } from '../../src/apply/index.ts';
import { mergeApplied } from '../../src/apply/merge.ts';
import { deepEqual } from '../../src/api/json.ts';
import type { Schema } from '../../src/schema/types.ts';
import { body, ownership, run, thing, thingScope } from './helpers.ts';

const str: Schema = { type: 'string' };
const set = (items: Schema): Schema => ({ type: 'array', items, 'x-kubernetes-list-type': 'set' });
const listMap = (properties: Record<string, Schema>, keys: string[]): Schema => ({
  type: 'array', items: { type: 'object', properties }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys,
});

const scope = thingScope({
  spec: {
    type: 'object',
    properties: {
      a: str,
      n: { type: 'integer' },
      labels: { type: 'object', additionalProperties: str },
      tags: set(str),
      items: listMap({ name: str, v: str, tags: set(str) }, ['name']),
      whole: { type: 'array', items: str },
      frozen: { type: 'object', properties: { x: str, y: str }, 'x-kubernetes-map-type': 'atomic' },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
});
const t = scope.topology;

describe('merge', () => {
  const rows: { name: string; live: unknown; applied: unknown; merged: unknown }[] = [
    { name: 'the configuration\'s leaves win, other fields stay', live: { spec: { a: '1', n: 1 } }, applied: { spec: { a: '2' } }, merged: { spec: { a: '2', n: 1 } } },
    { name: 'an explicit null replaces a leaf (a built-in type\'s Go value drops it later)', live: { spec: { a: '1', n: 1 } }, applied: { spec: { a: null } }, merged: { spec: { a: null, n: 1 } } },
    { name: 'an explicit null for a granular map changes nothing in it', live: { spec: { labels: { x: '1' } } }, applied: { spec: { labels: null } }, merged: { spec: { labels: { x: '1' } } } },
    { name: 'an atomic list is replaced', live: { spec: { whole: ['a', 'b'] } }, applied: { spec: { whole: ['c'] } }, merged: { spec: { whole: ['c'] } } },
    { name: 'an atomic struct is replaced', live: { spec: { frozen: { x: '1' } } }, applied: { spec: { frozen: { y: '2' } } }, merged: { spec: { frozen: { y: '2' } } } },
    { name: 'an empty map applied where there is none is kept', live: { spec: {} }, applied: { spec: { labels: {} } }, merged: { spec: { labels: {} } } },
    {
      name: 'list maps merge items by key, and the fields of shared items',
      live: { spec: { items: [{ name: 'a', v: '1' }, { name: 'b', v: '2' }] } },
      applied: { spec: { items: [{ name: 'b', tags: ['t'] }, { name: 'c' }] } },
      merged: { spec: { items: [{ name: 'a', v: '1' }, { name: 'b', v: '2', tags: ['t'] }, { name: 'c' }] } },
    },
    {
      // structured-merge-diff's walk: live items it does not name stay where they were
      // relative to the named ones it has passed.
      name: 'items the configuration orders differently come in its order',
      live: { spec: { items: [{ name: 'a' }, { name: 'b' }, { name: 'x' }] } },
      applied: { spec: { items: [{ name: 'b' }, { name: 'a' }] } },
      merged: { spec: { items: [{ name: 'b' }, { name: 'x' }, { name: 'a' }] } },
    },
    {
      name: 'a live list with a repeated key: the configuration\'s item replaces the repeats',
      live: { spec: { items: [{ name: 'a', v: '1' }, { name: 'a', v: '2' }, { name: 'b' }] } },
      applied: { spec: { items: [{ name: 'a', v: '3' }] } },
      merged: { spec: { items: [{ name: 'a', v: '3' }, { name: 'b' }] } },
    },
  ];
  for (const row of rows) {
    test(row.name, () => assert.deepEqual(merge(row.live, row.applied, t), row.merged));
  }

  test('the result shares no object with the live value', () => {
    const live = { spec: { labels: { x: '1' }, items: [{ name: 'a', tags: ['t'] }] } };
    const merged = merge(live, { spec: { a: '1' } }, t) as typeof live;
    merged.spec.labels.x = 'changed';
    merged.spec.items[0]!.tags.push('u');
    assert.deepEqual(live, { spec: { labels: { x: '1' }, items: [{ name: 'a', tags: ['t'] }] } });
  });
});

describe('removing what an applier stopped applying', () => {
  // structured-merge-diff merge/multiple_appliers_test.go, TestMultipleAppliersNestedType.
  const nested = thingScope({ listOfLists: listMap({ name: str, value: set(str) }, ['name']) });

  test('a dropped item stays for the applier still applying it; the dropped applier\'s values inside it go', () => {
    const obj = run(nested, [
      { apply: 'apply-one', object: thing({ listOfLists: [{ name: 'a' }, { name: 'b', value: ['c'] }] }) },
      { apply: 'apply-two', object: thing({ listOfLists: [{ name: 'b', value: ['d'] }] }) },
      { update: 'controller', object: thing({ listOfLists: [{ name: 'a' }, { name: 'b', value: ['c', 'd', 'e'] }] }) },
      { apply: 'apply-one', object: thing({ listOfLists: [{ name: 'a' }] }) },
    ]);
    assert.deepEqual(body(obj), { listOfLists: [{ name: 'a' }, { name: 'b', value: ['d', 'e'] }] });
    assert.deepEqual(ownership(obj), {
      'apply-one': ['.listOfLists[name="a"]', '.listOfLists[name="a"].name'],
      'apply-two': ['.listOfLists[name="b"]', '.listOfLists[name="b"].name', '.listOfLists[name="b"].value[="d"]'],
      'controller (Update)': ['.listOfLists[name="b"].value[="e"]'],
    });
  });

  test('a dropped item nobody else applies goes whole, even with an updater\'s value inside', () => {
    const obj = run(nested, [
      { apply: 'apply-one', object: thing({ listOfLists: [{ name: 'a' }, { name: 'b', value: ['c'] }] }) },
      { apply: 'apply-two', object: thing({ listOfLists: [{ name: 'a', value: ['b'] }] }) },
      { update: 'controller', object: thing({ listOfLists: [{ name: 'a', value: ['b'] }, { name: 'b', value: ['c', 'd'] }] }) },
      { apply: 'apply-one', object: thing({ listOfLists: [{ name: 'a' }] }) },
    ]);
    assert.deepEqual(body(obj), { listOfLists: [{ name: 'a', value: ['b'] }] });
  });

  test('a struct stays with what others set in it; only what the applier owned in it goes', () => {
    const obj = run(scope, [
      { apply: 'a', object: thing({ spec: { a: '1', labels: { k: 'v' } } }) },
      { update: 'defaulter', object: thing({ spec: { a: '1', n: 5, labels: { k: 'v' } } }) },
      { apply: 'a', object: thing({}) },
    ]);
    assert.deepEqual(body(obj), { spec: { n: 5, labels: null } });
  });

  // structured-merge-diff merge/multiple_appliers_test.go, unset_scalar_shared_with_updater
  // (one version): an Update manager's fields are added back after pruning, as an applier's.
  test('a value the applier stops applying stays while an updater owns it', () => {
    const obj = run(scope, [
      { update: 'updater', object: thing({ spec: { a: '1', labels: { k: 'v' } } }) },
      { apply: 'applier', object: thing({ spec: { a: '1', labels: { k: 'v' }, n: 2 } }) },
      { apply: 'applier', object: thing({ spec: { n: 2 } }) },
    ]);
    assert.deepEqual(body(obj), { spec: { a: '1', labels: { k: 'v' }, n: 2 } });
    assert.deepEqual(ownership(obj), {
      applier: ['.spec.n'],
      'updater (Update)': ['.spec', '.spec.a', '.spec.labels', '.spec.labels.k'],
    });
  });

  test('a map emptied by removals is null, as RemoveItems leaves it', () => {
    const obj = run(scope, [
      { apply: 'a', object: thing({ spec: { a: '1', labels: { k: 'v' } } }) },
      { apply: 'a', object: thing({ spec: { a: '1' } }) },
    ]);
    assert.deepEqual(body(obj), { spec: { a: '1', labels: null } });
  });
});

describe('the single-walk apply merge agrees with merge, fieldsOf and compare', () => {
  // A small deterministic generator of values for the schema above.
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const pick = <T>(xs: T[]): T => xs[rand(xs.length)]!;
  const maybe = (v: () => unknown): unknown => (rand(3) === 0 ? undefined : v());
  const names = ['a', 'b', 'c', 'd'];
  const gen = (): Record<string, unknown> => {
    const spec: Record<string, unknown> = {};
    const fields: [string, () => unknown][] = [
      ['a', () => pick(['1', '2', null])],
      ['n', () => pick([1, 2])],
      ['labels', () => Object.fromEntries(names.filter(() => rand(2) === 0).map((k) => [k, pick(['x', 'y'])]))],
      ['tags', () => names.filter(() => rand(2) === 0)],
      ['items', () => names.filter(() => rand(2) === 0).map((name) => ({ name, ...(rand(2) ? { v: pick(['1', '2']) } : {}), ...(rand(2) ? { tags: names.filter(() => rand(2) === 0) } : {}) })).sort(() => rand(3) - 1)],
      ['whole', () => names.filter(() => rand(2) === 0)],
      ['frozen', () => (rand(2) ? { x: pick(['1', '2']) } : { y: '1' })],
      ['free', () => ({ p: pick([1, 'q', [1], { r: 1 }]), ...(rand(2) ? { s: { t: pick([1, 2]) } } : {}) })],
    ];
    for (const [k, f] of fields) {
      const v = maybe(f);
      if (v !== undefined) spec[k] = v;
    }
    return rand(5) === 0 ? {} : { spec };
  };
  const show = (s: FieldSet) => s.paths().map(displayPath).sort();

  for (let i = 0; i < 300; i++) {
    const live = gen();
    const applied = gen();
    test(`case ${i}`, () => {
      const m = mergeApplied(live, applied, t);
      assert.deepEqual(m.merged, merge(live, applied, t));
      assert.deepEqual(show(m.applied), show(fieldsOf(applied, t)));
      const c = compare(live, m.merged, t);
      assert.deepEqual(show(m.diff.added), show(c.added), 'added');
      assert.deepEqual(show(m.diff.removed), show(c.removed), 'removed');
      assert.deepEqual(show(m.diff.modified), show(c.modified), 'modified');
      const differs = !c.added.isEmpty() || !c.removed.isEmpty() || !c.modified.isEmpty();
      assert.equal(differs || m.reordered, !deepEqual(live, m.merged), 'changed');
    });
  }
});
