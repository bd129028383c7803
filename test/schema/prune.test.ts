import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { builtinDefinitions } from '../../src/schema/builtin/index.ts';
import { schemaRef } from '../../src/schema/builtin/index.ts';
import { prune, type PruneOptions } from '../../src/schema/prune.ts';
import type { Schema } from '../../src/schema/types.ts';

const obj = (properties: Record<string, Schema>, extra: Partial<Schema> = {}): Schema => ({ type: 'object', properties, ...extra });

interface Case {
  name: string;
  schema: Schema;
  value: Record<string, unknown>;
  opts?: PruneOptions;
  /** The value afterwards. */
  want: unknown;
  unknown: string[];
}

describe('prune', () => {
  const cases: Case[] = [
    { name: 'an unknown field is dropped and reported', schema: obj({ spec: obj({ a: { type: 'string' } }) }),
      value: { spec: { a: 'x', foo: 1 } }, want: { spec: { a: 'x' } }, unknown: ['spec.foo'] },
    { name: 'an unknown field at the root', schema: obj({ spec: obj({}) }), value: { spec: {}, extra: true }, want: { spec: {} }, unknown: ['extra'] },
    { name: 'unknown fields in list items carry the index', schema: obj({ l: { type: 'array', items: obj({ n: { type: 'string' } }) } }),
      value: { l: [{ n: 'a' }, { n: 'b', x: 1, y: 2 }] }, want: { l: [{ n: 'a' }, { n: 'b' }] }, unknown: ['l[1].x', 'l[1].y'] },
    { name: 'unknown fields in map values carry the key', schema: obj({ m: { type: 'object', additionalProperties: obj({ v: { type: 'string' } }) } }),
      value: { m: { k: { v: 'a', w: 'b' } } }, want: { m: { k: { v: 'a' } } }, unknown: ['m.k.w'] },
    { name: 'preserve-unknown-fields keeps what is not specified', schema: obj({ x: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }),
      value: { x: { anything: { deep: [1, { a: 2 }] } } }, want: { x: { anything: { deep: [1, { a: 2 }] } } }, unknown: [] },
    { name: 'preserve-unknown-fields still prunes inside specified properties',
      schema: obj({ x: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: obj({ a: { type: 'string' } }) } } }),
      value: { x: { other: 1, known: { a: 'x', b: 'y' } } }, want: { x: { other: 1, known: { a: 'x' } } }, unknown: ['x.known.b'] },
    { name: 'a schema-less object loses all its fields', schema: obj({ o: { type: 'object' } }), value: { o: { a: 1 } }, want: { o: {} }, unknown: ['o.a'] },
    { name: 'additionalProperties: true keeps everything', schema: obj({ o: { type: 'object', additionalProperties: true } }), value: { o: { a: { b: 1 } } }, want: { o: { a: { b: 1 } } }, unknown: [] },
    { name: 'scalars are left for validation', schema: obj({ n: { type: 'integer' } }), value: { n: 'x' }, want: { n: 'x' }, unknown: [] },
    { name: 'a null where null is not allowed is dropped unreported', schema: obj({ s: { type: 'string' }, t: { type: 'string', nullable: true } }),
      value: { s: null, t: null }, want: { t: null }, unknown: [] },
    { name: 'a null map value where null is not allowed is dropped unreported, as for properties',
      schema: obj({ m: { type: 'object', additionalProperties: { type: 'string' } }, n: { type: 'object', additionalProperties: { type: 'string', nullable: true } } }),
      value: { m: { a: null, b: 'x' }, n: { a: null } }, want: { m: { b: 'x' }, n: { a: null } }, unknown: [] },
    { name: 'keepNulls leaves them, but not in metadata', schema: obj({ s: { type: 'string' }, m: { type: 'object', additionalProperties: { type: 'string' } } }),
      opts: { isResourceRoot: true, keepNulls: true },
      value: { metadata: { name: 'a', labels: null }, s: null, m: { a: null } }, want: { metadata: { name: 'a' }, s: null, m: { a: null } }, unknown: [] },
    { name: 'a null with a default stays for defaulting', schema: obj({ s: { type: 'string', default: 'd' } }), value: { s: null }, want: { s: null }, unknown: [] },
    { name: 'an embedded resource keeps apiVersion and kind, and metadata loses only what ObjectMeta lacks',
      schema: obj({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: obj({}) } } }),
      value: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', labels: { a: 'b' }, bogus: 1 }, spec: { z: 1 }, other: 2 } },
      want: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', labels: { a: 'b' } }, spec: {} } },
      unknown: ['template.metadata.bogus', 'template.spec.z', 'template.other'] },
    { name: 'a resource root is pruned like an embedded resource', schema: obj({ spec: obj({}) }), opts: { isResourceRoot: true },
      value: { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a', foo: 'bar' }, spec: {}, status: {} },
      want: { apiVersion: 'x/v1', kind: 'X', metadata: { name: 'a' }, spec: {} }, unknown: ['metadata.foo', 'status'] },
    { name: 'keepUnknown reports without removing', schema: obj({ a: { type: 'string' } }), opts: { keepUnknown: true },
      value: { a: 'x', b: 'y', c: null }, want: { a: 'x', b: 'y', c: null }, unknown: ['b', 'c'] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const value = structuredClone(c.value);
      assert.deepEqual(prune({}, c.schema, value, c.opts), c.unknown);
      assert.deepEqual(value, c.want);
    });
  }
});

describe('prune: built-in schemas', () => {
  const defs = builtinDefinitions;
  const deployment = { $ref: schemaRef('io.k8s.api.apps.v1.Deployment') };

  test('unknown fields of a Deployment, paths as upstream reports them', () => {
    const value = {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'd', creationTimestamp: null, bogus: 1 },
      spec: {
        foo: 1,
        selector: { matchLabels: { app: 'a' } },
        template: {
          metadata: { labels: { app: 'a' }, nope: true },
          spec: { containers: [{ name: 'c', image: 'i', foo: 'bar', resources: { limits: { cpu: '1' } } }] },
        },
      },
    };
    assert.deepEqual(prune(defs, deployment, value, { isResourceRoot: true }), [
      'metadata.bogus', 'spec.foo', 'spec.template.metadata.nope', 'spec.template.spec.containers[0].foo',
    ]);
    assert.deepEqual(value.metadata, { name: 'd' });
    assert.deepEqual(value.spec.template.spec.containers[0], { name: 'c', image: 'i', resources: { limits: { cpu: '1' } } });
  });

  test('managedFields keep their FieldsV1 content', () => {
    const value = {
      metadata: { name: 'd', managedFields: [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }] },
    };
    const before = structuredClone(value);
    assert.deepEqual(prune(defs, deployment, value, { isResourceRoot: true }), []);
    assert.deepEqual(value, before);
  });

  test('an omitempty scalar\'s zero is left out; a zero of another type stays, for validation to refuse', () => {
    const pod = { $ref: schemaRef('io.k8s.api.core.v1.Pod') };
    const value = { spec: { hostPID: false, hostIPC: '', hostNetwork: 0, nodeName: '', dnsPolicy: 0, priority: 0, containers: [] } };
    prune(defs, pod, value, { isResourceRoot: true });
    assert.deepEqual(value.spec, { hostIPC: '', hostNetwork: 0, dnsPolicy: 0, priority: 0, containers: [] });
  });
});
