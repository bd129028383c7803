import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { builtinDefinitions } from '../../src/schema/builtin/index.ts';
import { schemaRef } from '../../src/schema/builtin/index.ts';
import { applyDefaults } from '../../src/schema/defaults.ts';
import type { Definitions, Schema } from '../../src/schema/types.ts';

const obj = (properties: Record<string, Schema>, extra: Partial<Schema> = {}): Schema => ({ type: 'object', properties, ...extra });

interface Case {
  name: string;
  schema: Schema;
  defs?: Definitions;
  value: unknown;
  want: unknown;
}

describe('applyDefaults', () => {
  const cases: Case[] = [
    { name: 'a missing field gets its default', schema: obj({ a: { type: 'string', default: 'x' } }), value: {}, want: { a: 'x' } },
    { name: 'a given field keeps its value', schema: obj({ a: { type: 'string', default: 'x' } }), value: { a: 'y' }, want: { a: 'y' } },
    { name: 'a null that allows no null gets the default', schema: obj({ a: { type: 'string', default: 'x' } }), value: { a: null }, want: { a: 'x' } },
    { name: 'a nullable null stays null', schema: obj({ a: { type: 'string', default: 'x', nullable: true } }), value: { a: null }, want: { a: null } },
    { name: 'defaults apply in list items', schema: obj({ l: { type: 'array', items: obj({ p: { type: 'string', default: 'TCP' } }) } }),
      value: { l: [{}, { p: 'UDP' }] }, want: { l: [{ p: 'TCP' }, { p: 'UDP' }] } },
    { name: 'defaults apply in map values', schema: obj({ m: { type: 'object', additionalProperties: obj({ v: { type: 'integer', default: 1 } }) } }),
      value: { m: { a: {}, b: { v: 2 } } }, want: { m: { a: { v: 1 }, b: { v: 2 } } } },
    { name: 'a defaulted object is defaulted further', schema: obj({ o: { ...obj({ inner: { type: 'string', default: 'deep' } }), default: {} } }),
      value: {}, want: { o: { inner: 'deep' } } },
    { name: 'a missing parent is not created for its children\'s defaults', schema: obj({ o: obj({ inner: { type: 'string', default: 'deep' } }) }),
      value: {}, want: {} },
    { name: 'defaults are copies', schema: obj({ a: { type: 'array', items: { type: 'string' }, default: ['x'] }, b: { type: 'array', items: { type: 'string' }, default: ['x'] } }),
      value: {}, want: { a: ['x'], b: ['x'] } },
    { name: 'a default behind a $ref', defs: { Port: { type: 'string', default: 'TCP' } }, schema: obj({ p: { $ref: '#/components/schemas/Port' } }),
      value: {}, want: { p: 'TCP' } },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const value = structuredClone(c.value);
      applyDefaults(c.defs ?? {}, c.schema, value);
      assert.deepEqual(value, c.want);
    });
  }

  test('a default is not shared between objects', () => {
    const schema = obj({ a: { type: 'object', additionalProperties: { type: 'string' }, default: { k: 'v' } } });
    const one: Record<string, any> = {};
    const two: Record<string, any> = {};
    applyDefaults({}, schema, one);
    applyDefaults({}, schema, two);
    one.a.k = 'changed';
    assert.equal(two.a.k, 'v');
    assert.equal(schema.properties!.a!.default && (schema.properties!.a!.default as any).k, 'v');
  });

  test('built-in: container ports default their protocol to TCP', () => {
    const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] }] } };
    applyDefaults(builtinDefinitions, { $ref: schemaRef('io.k8s.api.core.v1.Pod') }, pod);
    assert.deepEqual(pod.spec.containers[0]!.ports, [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 53, protocol: 'UDP' }]);
  });
});
