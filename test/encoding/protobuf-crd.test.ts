// CustomResourceDefinitions in Protobuf: a realistic CRD, its list and its watch events
// round-trip unchanged; each JSON form of a schema's one-of types (items, additionalProperties,
// dependencies) and JSON values (default, example, enum) comes back as Go would answer it;
// values of no form are refused where they are.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeList, KubeObject } from '../../src/api/index.ts';
import { isStatusError } from '../../src/api/index.ts';
import {
  decodeProtobufObject, decodeProtobufWatchEvent, encodeProtobufObject, encodeProtobufWatchEvent,
} from '../../src/encoding/protobuf/index.ts';

type Json = Record<string, any>;

/** A CRD as the server stores it: defaults set, status written by the controllers. */
const crontabs: Json = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'crontabs.stable.example.com', uid: '3f1c2d4e-0000-4000-8000-000000000001', resourceVersion: '812', generation: 2,
    creationTimestamp: '2024-05-06T07:08:09Z', annotations: { 'example.com/owner': 'team-a' },
  },
  spec: {
    group: 'stable.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] },
    conversion: {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { namespace: 'conv', name: 'converter', path: '/convert', port: 8443 }, caBundle: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n').toString('base64') },
        conversionReviewVersions: ['v1', 'v1beta1'],
      },
    },
    versions: [
      {
        name: 'v1', served: true, storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A CronTab runs an image on a schedule.',
            required: ['spec'],
            properties: {
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec: {
                type: 'object',
                required: ['cronSpec'],
                'x-kubernetes-validations': [
                  { rule: 'self.replicas <= self.maxReplicas', message: 'replicas beyond maxReplicas', reason: 'FieldValueInvalid', fieldPath: '.replicas' },
                  { rule: 'self.image == oldSelf.image', optionalOldSelf: true, messageExpression: '"image is immutable"' },
                ],
                properties: {
                  cronSpec: { type: 'string', pattern: '^(\\S+ ){4}\\S+$', example: '*/5 * * * *' },
                  image: { type: 'string', default: 'busybox:1.36', minLength: 1, maxLength: 253 },
                  replicas: { type: 'integer', format: 'int32', default: 1, minimum: 0, maximum: 100, exclusiveMaximum: true },
                  ratio: { type: 'number', minimum: -1.5, maximum: 2.25, multipleOf: 0.25 },
                  policy: { type: 'string', enum: ['Allow', 'Forbid', 'Replace'], default: 'Allow' },
                  port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                  labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 63 }, 'x-kubernetes-map-type': 'granular' },
                  settings: { type: 'object', additionalProperties: true, nullable: true },
                  closed: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } },
                  args: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 16, uniqueItems: true, 'x-kubernetes-list-type': 'set' },
                  pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] },
                  containers: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['name'],
                    items: {
                      type: 'object',
                      required: ['name'],
                      properties: {
                        name: { type: 'string' },
                        env: {
                          type: 'array',
                          items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string', default: '' } } },
                        },
                      },
                    },
                  },
                  template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
                  schedule: {
                    type: 'object',
                    default: { timezone: 'UTC', windows: [{ from: 1, to: 5.5 }], paused: false, note: null },
                    example: ['a', 1, true, null, { nested: [] }],
                    properties: { timezone: { type: 'string' }, windows: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } }, paused: { type: 'boolean' }, note: { type: 'string', nullable: true } },
                  },
                },
              },
              status: {
                type: 'object',
                properties: { replicas: { type: 'integer' }, selector: { type: 'string' }, lastRun: { type: 'string', format: 'date-time' } },
              },
            },
          },
        },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: 'Wanted replicas', priority: 1 },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        selectableFields: [{ jsonPath: '.spec.image' }],
      },
      {
        name: 'v1beta1', served: true, storage: false, deprecated: true, deprecationWarning: 'stable.example.com/v1beta1 CronTab is deprecated',
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
  status: {
    conditions: [
      { type: 'NamesAccepted', status: 'True', lastTransitionTime: '2024-05-06T07:08:09Z', reason: 'NoConflicts', message: 'no conflicts found' },
      { type: 'Established', status: 'True', lastTransitionTime: '2024-05-06T07:08:10Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    ],
    acceptedNames: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] },
    storedVersions: ['v1'],
  },
};

const roundTrip = (obj: Json): Json => decodeProtobufObject(encodeProtobufObject(obj as KubeObject));

describe('a CustomResourceDefinition round-trips through Protobuf', () => {
  test('a realistic CRD comes back unchanged, from its data and from its JSON text', () => {
    assert.deepEqual(roundTrip(crontabs), crontabs);
    assert.deepEqual(roundTrip(JSON.parse(JSON.stringify(crontabs))), crontabs);
    // Encoding what was decoded gives the same bytes.
    const bytes = encodeProtobufObject(crontabs as KubeObject);
    assert.deepEqual(encodeProtobufObject(decodeProtobufObject(bytes)), bytes);
  });

  test('a CustomResourceDefinitionList: items without kind and apiVersion, as in Go', () => {
    const { apiVersion: _a, kind: _k, ...item } = crontabs;
    const list = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinitionList', metadata: { resourceVersion: '900' }, items: [crontabs, crontabs] };
    assert.deepEqual(roundTrip(list), { ...list, items: [item, item] });
    assert.equal(decodeProtobufObject(encodeProtobufObject(list as unknown as KubeList)).kind, 'CustomResourceDefinitionList');
  });

  test('a watch event of a CRD', () => {
    const event = { type: 'MODIFIED' as const, object: crontabs as KubeObject };
    assert.deepEqual(decodeProtobufWatchEvent(encodeProtobufWatchEvent(event)), event);
  });
});

/** The schema of a one-version CRD, through Protobuf and back. */
function schemaRoundTrip(schema: Json): Json {
  const crd = structuredClone(crontabs);
  crd.spec.versions = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }];
  return roundTrip(crd).spec.versions[0].schema.openAPIV3Schema;
}

describe('the JSON forms of a schema\'s fields, as Go answers them after a Protobuf round trip', () => {
  const cases: [name: string, schema: Json, expected: Json][] = [
    ['items: a schema', { type: 'array', items: { type: 'string' } }, { type: 'array', items: { type: 'string' } }],
    ['items: a list of schemas', { type: 'array', items: [{ type: 'string' }, {}] }, { type: 'array', items: [{ type: 'string' }, {}] }],
    ['items: an empty list is no list nor schema (Go answers null)', { type: 'array', items: [] }, { type: 'array' }],
    ['items: an empty schema stays a schema', { type: 'array', items: {} }, { type: 'array', items: {} }],
    ['additionalProperties: true', { type: 'object', additionalProperties: true }, { type: 'object', additionalProperties: true }],
    ['additionalProperties: false', { type: 'object', additionalProperties: false }, { type: 'object', additionalProperties: false }],
    ['additionalProperties: a schema', { type: 'object', additionalProperties: { type: 'integer' } }, { type: 'object', additionalProperties: { type: 'integer' } }],
    ['additionalProperties: an empty schema', { type: 'object', additionalProperties: {} }, { type: 'object', additionalProperties: {} }],
    ['additionalItems: a bool and a schema', { additionalItems: false, not: { additionalItems: { type: 'string' } } }, { additionalItems: false, not: { additionalItems: { type: 'string' } } }],
    ['dependencies: strings and a schema, in one map', { dependencies: { a: ['b', 'c'], d: { required: ['e'] } } }, { dependencies: { a: ['b', 'c'], d: { required: ['e'] } } }],
    ['dependencies: an empty list is null', { dependencies: { a: [] } }, { dependencies: { a: null } }],
    ['default: every kind of JSON value', { default: { s: 'x', n: -2.5, i: 7, b: false, z: null, l: [1, [2], { '': {} }] } }, { default: { s: 'x', n: -2.5, i: 7, b: false, z: null, l: [1, [2], { '': {} }] } }],
    ['default and example: false and 0 are values', { default: false, example: 0 }, { default: false, example: 0 }],
    ['default: null is no default', { default: null }, {}],
    ['enum: values of every kind, null included', { enum: ['a', 1, 2.5, true, null, { k: 'v' }, ['x']] }, { enum: ['a', 1, 2.5, true, null, { k: 'v' }, ['x']] }],
    ['maximum, minimum, multipleOf: doubles, zero kept (pointers)', { maximum: 0, minimum: -1e-7, multipleOf: 1e21 }, { maximum: 0, minimum: -1e-7, multipleOf: 1e21 }],
    ['lengths and counts: int64 pointers, zero kept', { minLength: 0, maxItems: 5_000_000_000, minProperties: 0 }, { minLength: 0, maxItems: 5_000_000_000, minProperties: 0 }],
    ['$ref, $schema, id, title, externalDocs', { $ref: '#/definitions/a', $schema: 'http://json-schema.org/draft-04/schema#', id: 'x', title: 'T', externalDocs: { url: 'https://example.com' } },
      { $ref: '#/definitions/a', $schema: 'http://json-schema.org/draft-04/schema#', id: 'x', title: 'T', externalDocs: { url: 'https://example.com' } }],
    ['allOf, oneOf, anyOf, not, definitions, patternProperties', {
      allOf: [{ minimum: 1 }], oneOf: [{ type: 'string' }, { type: 'integer' }], anyOf: [{}], not: { type: 'null' },
      definitions: { a: { type: 'string' } }, patternProperties: { '^x-': { type: 'string' } },
    }, {
      allOf: [{ minimum: 1 }], oneOf: [{ type: 'string' }, { type: 'integer' }], anyOf: [{}], not: { type: 'null' },
      definitions: { a: { type: 'string' } }, patternProperties: { '^x-': { type: 'string' } },
    }],
    ['x-kubernetes-preserve-unknown-fields: false is kept (a pointer); the other false flags are not', {
      'x-kubernetes-preserve-unknown-fields': false, 'x-kubernetes-embedded-resource': false, nullable: false, uniqueItems: false,
    }, { 'x-kubernetes-preserve-unknown-fields': false }],
    ['schemas nested 100 deep through properties and items', nest(100), nest(100)],
  ];
  for (const [name, schema, expected] of cases) {
    test(name, () => {
      assert.deepEqual(schemaRoundTrip(schema), expected);
    });
  }
});

/** A schema `depth` levels deep, alternating properties and items. */
function nest(depth: number): Json {
  let schema: Json = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = i % 2 === 0 ? { type: 'array', items: schema } : { type: 'object', properties: { [`p${i}`]: schema } };
  return schema;
}

describe('values of no form are refused', () => {
  const cases: [name: string, schema: Json, message: RegExp][] = [
    ['additionalProperties: a string', { additionalProperties: 'yes' }, /at spec\.versions\.schema\.openAPIV3Schema\.additionalProperties: expected a boolean or a schema/],
    ['items: a number', { items: 3 }, /at spec\.versions\.schema\.openAPIV3Schema\.items: expected a schema or a list of schemas/],
    ['dependencies: a bool', { dependencies: { a: true } }, /dependencies: expected a schema or a list of strings/],
    ['maximum: a string', { maximum: '3' }, /maximum: expected a number/],
    ['nested: items of properties', { properties: { a: { items: 'x' } } }, /openAPIV3Schema\.properties\.items: expected a schema/],
  ];
  for (const [name, schema, message] of cases) {
    test(`${name}: encoding fails with a 500 naming the field`, () => {
      try {
        schemaRoundTrip(schema);
        assert.fail('encoded');
      } catch (err) {
        assert.ok(isStatusError(err), String(err));
        assert.equal(err.code, 500);
        assert.match(err.message, message);
      }
    });
  }
});

describe('Protobuf CRD bodies Go could not answer are a 400', () => {
  /** The bytes of a CRD whose schema holds `marker`, with the marker's bytes replaced by `bad` (same length). */
  function corrupt(schema: Json, marker: Buffer, bad: Buffer): Uint8Array {
    const crd = structuredClone(crontabs);
    crd.spec.versions = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }];
    const bytes = Buffer.from(encodeProtobufObject(crd as KubeObject));
    const at = bytes.indexOf(marker);
    assert.ok(at >= 0 && bytes.indexOf(marker, at + 1) < 0, 'the marker is there once');
    bad.copy(bytes, at);
    return bytes;
  }
  const double = (x: number): Buffer => {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(x);
    return b;
  };
  const cases: [name: string, body: Uint8Array, message: RegExp][] = [
    // Converting to the internal type unmarshals the text (Convert_v1_JSON_To_apiextensions_JSON): Go's json words.
    ['a default that is not JSON', corrupt({ default: 12345 }, Buffer.from('12345'), Buffer.from('{nope')), /^invalid character 'n' looking for beginning of object key string$/],
    ['a maximum that is NaN', corrupt({ maximum: 1.375 }, double(1.375), double(NaN)), /NaN is not a JSON number/],
    ['a minimum that is infinite', corrupt({ minimum: 1.375 }, double(1.375), double(-Infinity)), /-Infinity is not a JSON number/],
  ];
  for (const [name, body, message] of cases) {
    test(name, () => {
      try {
        decodeProtobufObject(body);
        assert.fail('decoded');
      } catch (err) {
        assert.ok(isStatusError(err), String(err));
        assert.equal(err.code, 400);
        assert.match(err.message, message);
      }
    });
  }
});
