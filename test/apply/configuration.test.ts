// What an apply configuration means beyond its leaves, as structured-merge-diff inside
// kube-apiserver reads it: empty maps and structs, explicit nulls, maps emptied by
// removal, and fields the schema does not declare.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StatusError } from '../../src/api/errors.ts';
import { apply } from '../../src/apply/index.ts';
import type { Schema } from '../../src/schema/types.ts';
import { thing, thingScope } from './helpers.ts';

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
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { inner: { type: 'object', properties: { x: str } } } },
      open: { type: 'object' },
    },
  },
};
const typed = thingScope(properties);

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

  test('a cluster-scoped object names no namespace', () => {
    assert.equal(
      refused(typed, { spec: { bogus: 1 } }, { namespace: undefined }),
      'failed to create typed patch object (/x; /v1, Kind=Thing): .spec.bogus: field not declared in schema',
    );
  });
});
