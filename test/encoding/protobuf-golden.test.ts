// The Protobuf encoder against bytes it did not write: request bodies upstream's Go client
// (kube-controller-manager) sent (golden/), and messages assembled here byte by byte from
// the field numbers of upstream's generated.proto files, with helpers of this file only.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { KubeList, KubeObject, Status, WatchEventType } from '../../src/api/index.ts';
import {
  decodeProtobufObject, decodeProtobufWatchEvent, encodeProtobufObject, encodeProtobufRaw, encodeProtobufWatchEvent,
  protobufEnvelope, protobufList, protobufWatchEvent,
} from '../../src/encoding/protobuf/index.ts';

// Protobuf wire format, by hand: varints, tags (field << 3 | wire type), length-delimited fields.
const varint = (n: number): number[] => {
  const out: number[] = [];
  let v = BigInt.asUintN(64, BigInt(n));
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  return [...out, Number(v)];
};
const tag = (field: number, wire: 0 | 2): number[] => varint(field * 8 + wire);
const int = (field: number, n: number): number[] => [...tag(field, 0), ...varint(n)];
const bool = (field: number, b: boolean): number[] => int(field, b ? 1 : 0);
const bytes = (field: number, b: readonly number[]): number[] => [...tag(field, 2), ...varint(b.length), ...b];
const str = (field: number, s: string): number[] => bytes(field, [...Buffer.from(s, 'utf8')]);
const msg = (field: number, ...parts: number[][]): number[] => bytes(field, parts.flat());
/** A map<string, string> entry. */
const entry = (field: number, key: string, value: string): number[] => msg(field, str(1, key), str(2, value));
/** "k8s\0", then runtime.Unknown {1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType}. */
const envelope = (apiVersion: string, kind: string, ...raw: number[][]): number[] => [
  0x6b, 0x38, 0x73, 0x00, ...msg(1, str(1, apiVersion), str(2, kind)), ...msg(2, ...raw), ...str(3, ''), ...str(4, ''),
];
/** meta/v1 Time is a Timestamp {1 seconds, 2 nanos}; both written when set, nothing for the zero time. */
const time = (field: number, iso?: string): number[] => (iso === undefined ? msg(field) : msg(field, int(1, Date.parse(iso) / 1000), int(2, 0)));
/**
 * meta/v1 ObjectMeta: the Go value fields 1 name, 2 generateName, 3 namespace, 4 selfLink,
 * 5 uid, 6 resourceVersion, 7 generation, 8 creationTimestamp always; 11 labels and 12
 * annotations one entry per key, in key order.
 */
const objectMeta = (field: number, m: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; creationTimestamp?: string }, ...maps: number[][]): number[] =>
  msg(field, str(1, m.name ?? ''), str(2, ''), str(3, m.namespace ?? ''), str(4, ''), str(5, m.uid ?? ''), str(6, m.resourceVersion ?? ''),
    int(7, 0), time(8, m.creationTimestamp), ...maps);
/** meta/v1 ListMeta {1 selfLink, 2 resourceVersion, 3 continue, 4 *remainingItemCount}. */
const listMeta = (field: number, resourceVersion: string): number[] => msg(field, str(1, ''), str(2, resourceVersion), str(3, ''));
/** A double: wire type 1, eight bytes little-endian. */
const double = (field: number, x: number): number[] => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return [...varint(field * 8 + 1), ...b];
};
/**
 * apiextensions/v1 JSONSchemaProps: the Go value fields 1 id, 2 $schema, 4 description,
 * 5 type, 6 format, 7 title, 10 exclusiveMaximum, 12 exclusiveMinimum, 15 pattern,
 * 18 uniqueItems, 37 nullable, 39 x-kubernetes-embedded-resource, 40
 * x-kubernetes-int-or-string always; the others (pointers, lists, maps) as `set` gives
 * them, by field number.
 */
const schemaProps = (field: number, type: string, set: Record<number, number[]> = {}): number[] => {
  const fields: Record<number, number[]> = {
    1: str(1, ''), 2: str(2, ''), 4: str(4, ''), 5: str(5, type), 6: str(6, ''), 7: str(7, ''), 10: bool(10, false),
    12: bool(12, false), 15: str(15, ''), 18: bool(18, false), 37: bool(37, false), 39: bool(39, false), 40: bool(40, false), ...set,
  };
  return msg(field, ...Object.keys(fields).map(Number).sort((x, y) => x - y).map((n) => fields[n]!));
};
/** apiextensions/v1 JSON {1 raw}: the value's JSON text. */
const jsonValue = (field: number, value: unknown): number[] => msg(field, str(1, JSON.stringify(value)));

const golden = (file: string): Uint8Array => new Uint8Array(readFileSync(new URL(`golden/${file}`, import.meta.url)));
const hex = (b: Uint8Array | number[]): string => Buffer.from(b).toString('hex');

describe('Protobuf bodies upstream\'s Go client sent encode back to the same bytes', () => {
  const captured: [file: string, apiVersion: string, kind: string, check: (obj: any) => void][] = [
    ['lease.pb', 'coordination.k8s.io/v1', 'Lease', (o) => {
      assert.equal(o.spec.leaseDurationSeconds, 15);
      assert.match(o.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      assert.equal(o.metadata.managedFields[0].fieldsType, 'FieldsV1');
    }],
    ['event.pb', 'v1', 'Event', (o) => assert.equal(o.reason, 'LeaderElection')],
    ['configmap.pb', 'v1', 'ConfigMap', (o) => assert.equal(o.metadata.name, 'kube-root-ca.crt')],
    ['serviceaccount.pb', 'v1', 'ServiceAccount', (o) => assert.equal(o.metadata.name, 'default')],
    ['replicaset.pb', 'apps/v1', 'ReplicaSet', (o) => assert.equal(o.metadata.ownerReferences[0].kind, 'Deployment')],
    ['deployment.pb', 'apps/v1', 'Deployment', (o) => {
      assert.equal(o.spec.strategy.rollingUpdate.maxSurge, '25%');
      assert.deepEqual(o.spec.template.spec.containers[0].resources.limits, { cpu: '500m', memory: '128Mi' });
    }],
    ['pod.pb', 'v1', 'Pod', (o) => {
      assert.equal(o.metadata.generateName, 'web-5bfd4bb59-');
      assert.equal(o.spec.terminationGracePeriodSeconds, 30);
    }],
  ];
  for (const [file, apiVersion, kind, check] of captured) {
    test(`${kind} (${file})`, () => {
      const bytes = golden(file);
      const obj = decodeProtobufObject(bytes);
      assert.equal(obj.apiVersion, apiVersion);
      assert.equal(obj.kind, kind);
      check(obj);
      assert.equal(hex(encodeProtobufObject(obj)), hex(bytes));
      // From JSON text, as the object comes out of storage.
      assert.equal(hex(encodeProtobufObject(JSON.parse(JSON.stringify(obj)))), hex(bytes));
      assert.equal(hex(protobufEnvelope(apiVersion, kind, encodeProtobufRaw(obj))), hex(bytes));
    });
  }
});

describe('Protobuf messages assembled by hand from generated.proto', () => {
  const cases: [name: string, obj: KubeObject | KubeList | Status, expected: number[]][] = [
    ['a ConfigMapList with one item (ConfigMapList {1 metadata, 2 items}; ConfigMap {1 metadata, 2 data, 3 binaryData, 4 *immutable})', {
      apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '42' },
      items: [{
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'default', uid: 'u-1', resourceVersion: '41', creationTimestamp: '2024-01-02T03:04:05Z' },
        data: { b: '2', a: '1' },
      }],
    } as KubeList, envelope('v1', 'ConfigMapList',
      listMeta(1, '42'),
      msg(2,
        objectMeta(1, { name: 'a', namespace: 'default', uid: 'u-1', resourceVersion: '41', creationTimestamp: '2024-01-02T03:04:05Z' }),
        entry(2, 'a', '1'), entry(2, 'b', '2')))],
    ['a Status NotFound with details (Status {1 metadata, 2 status, 3 message, 4 reason, 5 *details, 6 code})', {
      apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'configmaps "missing" not found',
      reason: 'NotFound', details: { name: 'missing', kind: 'configmaps' }, code: 404,
    } as Status, envelope('v1', 'Status',
      listMeta(1, ''), str(2, 'Failure'), str(3, 'configmaps "missing" not found'), str(4, 'NotFound'),
      // StatusDetails {1 name, 2 group, 3 kind, 4 causes, 5 retryAfterSeconds, 6 uid}
      msg(5, str(1, 'missing'), str(2, ''), str(3, 'configmaps'), int(5, 0), str(6, '')),
      int(6, 404))],
    ['a Status Invalid with a cause (StatusCause {1 reason, 2 message, 3 field})', {
      apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'ConfigMap "x" is invalid', reason: 'Invalid',
      details: { name: 'x', kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value', field: 'data' }] }, code: 422,
    } as Status, envelope('v1', 'Status',
      listMeta(1, ''), str(2, 'Failure'), str(3, 'ConfigMap "x" is invalid'), str(4, 'Invalid'),
      msg(5, str(1, 'x'), str(2, ''), str(3, 'ConfigMap'), msg(4, str(1, 'FieldValueInvalid'), str(2, 'Invalid value'), str(3, 'data')), int(5, 0), str(6, '')),
      int(6, 422))],
    ['a Namespace (Namespace {1 metadata, 2 spec {1 finalizers}, 3 status {1 phase, 2 conditions}})', {
      apiVersion: 'v1', kind: 'Namespace',
      metadata: { name: 'golden', labels: { 'kubernetes.io/metadata.name': 'golden' } },
      spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' },
    } as KubeObject, envelope('v1', 'Namespace',
      objectMeta(1, { name: 'golden' }, entry(11, 'kubernetes.io/metadata.name', 'golden')),
      msg(2, str(1, 'kubernetes')),
      msg(3, str(1, 'Active')))],
    ['a Namespace without spec or status: value messages are written empty', {
      apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bare' },
    } as KubeObject, envelope('v1', 'Namespace', objectMeta(1, { name: 'bare' }), msg(2), msg(3, str(1, '')))],
    ['map keys in Go string order, bytewise UTF-8 (U+FF01 before U+1F600, unlike UTF-16 order)', {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'k', annotations: { '\u{1F600}': 'b', '\uFF01': 'a' } }, immutable: false,
    } as KubeObject, envelope('v1', 'ConfigMap',
      objectMeta(1, { name: 'k' }, entry(12, '\uFF01', 'a'), entry(12, '\u{1F600}', 'b')),
      bool(4, false))],
    ['a Lease: pointer scalars and MicroTimes only when set (LeaseSpec {1 *holderIdentity, 2 *leaseDurationSeconds, 3 *acquireTime, 4 *renewTime})', {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' },
      spec: { leaseDurationSeconds: 0, renewTime: '2024-01-02T03:04:05.123456Z' },
    } as KubeObject, envelope('coordination.k8s.io/v1', 'Lease',
      objectMeta(1, { name: 'l' }),
      msg(2, int(2, 0), msg(4, int(1, Date.parse('2024-01-02T03:04:05Z') / 1000), int(2, 123456000))))],
  ];
  for (const [name, obj, expected] of cases) {
    test(name, () => {
      assert.equal(hex(encodeProtobufObject(obj)), hex(expected));
    });
  }

  test('a CustomResourceDefinition: schema forms, JSON values and doubles (apiextensions/v1 generated.proto)', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'ws.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'ws', kind: 'W' },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                status: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-preserve-unknown-fields': true },
                spec: {
                  type: 'object', additionalProperties: false,
                  properties: {
                    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, 'x-kubernetes-list-type': 'set' },
                    size: { type: 'integer', default: 3, maximum: 10.5 },
                  },
                },
              },
            },
          },
        }],
      },
    } as unknown as KubeObject;
    const expected = envelope('apiextensions.k8s.io/v1', 'CustomResourceDefinition',
      objectMeta(1, { name: 'ws.example.com' }),
      // CustomResourceDefinitionSpec {1 group, 3 names, 4 scope, 7 versions, 9 *conversion, 10 preserveUnknownFields}
      msg(2,
        str(1, 'example.com'),
        // CustomResourceDefinitionNames {1 plural, 2 singular, 3 shortNames, 4 kind, 5 listKind, 6 categories}
        msg(3, str(1, 'ws'), str(2, ''), str(4, 'W'), str(5, '')),
        str(4, 'Namespaced'),
        // CustomResourceDefinitionVersion {1 name, 2 served, 3 storage, 4 *schema {1 *openAPIV3Schema}, 5 *subresources, 6 columns, 7 deprecated}
        msg(7, str(1, 'v1'), bool(2, true), bool(3, true),
          msg(4, schemaProps(1, 'object', {
            // 29 properties, entries in key order
            29: [
              ...msg(29, str(1, 'spec'), schemaProps(2, 'object', {
                29: [
                  // 8 *default JSON, 9 *maximum double
                  ...msg(29, str(1, 'size'), schemaProps(2, 'integer', { 8: jsonValue(8, 3), 9: double(9, 10.5) })),
                  // 24 *items JSONSchemaPropsOrArray {1 *schema, 2 jSONSchemas}; 20 enum, one JSON each; 42 *x-kubernetes-list-type
                  ...msg(29, str(1, 'tags'), schemaProps(2, 'array', {
                    24: msg(24, schemaProps(1, 'string', { 20: [...jsonValue(20, 'a'), ...jsonValue(20, 'b')] })),
                    42: str(42, 'set'),
                  })),
                ],
                // 30 *additionalProperties JSONSchemaPropsOrBool {1 allows, 2 *schema}
                30: msg(30, bool(1, false)),
              })),
              ...msg(29, str(1, 'status'), schemaProps(2, 'object', {
                // a schema allows: Go sets allows with it
                30: msg(30, bool(1, true), schemaProps(2, 'string')),
                // 38 *x-kubernetes-preserve-unknown-fields
                38: bool(38, true),
              })),
            ],
          })),
          bool(7, false)),
        bool(10, false)),
      // CustomResourceDefinitionStatus {1 conditions, 2 acceptedNames, 3 storedVersions, 4 observedGeneration}
      msg(3, msg(2, str(1, ''), str(2, ''), str(4, ''), str(5, '')), int(4, 0)));
    assert.equal(hex(encodeProtobufObject(crd)), hex(expected));
    // Back as Go would answer it: the empty status's names are Go values without omitempty,
    // its lists without omitempty nil, written null.
    assert.deepEqual(decodeProtobufObject(Uint8Array.from(expected)), { ...crd, status: { acceptedNames: { plural: '', kind: '' }, conditions: null, storedVersions: null } });
  });

  test('a WatchEvent ADDED of a ConfigMap (WatchEvent {1 type, 2 object RawExtension {1 raw: the envelope}})', () => {
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', resourceVersion: '7' }, data: { k: 'v' } } as KubeObject;
    const inner = envelope('v1', 'ConfigMap', objectMeta(1, { name: 'a', namespace: 'default', resourceVersion: '7' }), entry(2, 'k', 'v'));
    const expected = [...str(1, 'ADDED'), ...msg(2, bytes(1, inner))];
    assert.equal(hex(encodeProtobufWatchEvent({ type: 'ADDED', object })), hex(expected));
    assert.equal(hex(protobufWatchEvent('ADDED', Uint8Array.from(inner))), hex(expected));
    assert.deepEqual(decodeProtobufWatchEvent(Uint8Array.from(expected)), { type: 'ADDED', object });
  });
});

describe('answers built from already-encoded messages equal the full encoder\'s', () => {
  const pod = decodeProtobufObject(golden('pod.pb'));
  const configMap = decodeProtobufObject(golden('configmap.pb'));
  const items = [configMap, { ...configMap, metadata: { ...configMap.metadata, name: 'second', namespace: 'other' } }];

  const lists: [name: string, list: KubeList][] = [
    ['a list with items and a continue token', { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '9', continue: 'abc', remainingItemCount: 3 }, items } as KubeList],
    ['an empty list', { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '1' }, items: [] } as KubeList],
    ['a list without metadata', { apiVersion: 'v1', kind: 'ConfigMapList', items } as unknown as KubeList],
  ];
  for (const [name, list] of lists) {
    test(`protobufList: ${name}`, () => {
      const raws = list.items.map((item) => encodeProtobufRaw(item));
      assert.equal(hex(protobufList(list.apiVersion!, list.kind!, list.metadata, raws)), hex(encodeProtobufObject(list)));
    });
  }

  const events: [WatchEventType, KubeObject][] = [['ADDED', pod], ['MODIFIED', configMap], ['DELETED', pod]];
  for (const [type, object] of events) {
    test(`protobufWatchEvent: ${type} ${object.kind}`, () => {
      const envelopeBytes = protobufEnvelope(object.apiVersion!, object.kind!, encodeProtobufRaw(object));
      assert.equal(hex(protobufWatchEvent(type, envelopeBytes)), hex(encodeProtobufWatchEvent({ type, object })));
    });
  }

  test('protobufList refuses a kind that is not a list', () => {
    assert.throws(() => protobufList('v1', 'ConfigMap', {}, []), /not a list/);
  });
});
