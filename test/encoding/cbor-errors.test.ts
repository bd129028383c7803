// CBOR bodies decoded into built-in types' Go structs as upstream's CBOR serializer does it
// (fxamacker/cbor, apimachinery's decode modes): the first failure in the body's order in
// its words (integers out of range, floats for integers, IntOrString, Quantity and Time
// decoding themselves, ObjectMeta), and strict decoding's unknown field by its index.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cborTypeAt, decodeCbor, EncodedCbor, encodeCbor } from '../../src/encoding/cbor.ts';
import { quantityFormatError } from '../../src/api/quantity.ts';
import { builtinDefinitions, cborDecodeError, cborObjectMetaDecodeError, cborUnknownField, schemaRef } from '../../src/schema/index.ts';

const schemaOf = (name: string) => ({ $ref: schemaRef(name) });
const deployment = schemaOf('io.k8s.api.apps.v1.Deployment');
const service = schemaOf('io.k8s.api.core.v1.Service');
const secret = schemaOf('io.k8s.api.core.v1.Secret');
const event = schemaOf('io.k8s.api.events.v1.Event');
const hex = (text: string) => new EncodedCbor(Buffer.from(text.replace(/\s/g, ''), 'hex'));
/** A CBOR text string; encodeCbor writes strings as byte strings, as Kubernetes' encoders do. */
const text = (s: string) => new EncodedCbor(Buffer.concat([Buffer.from([0x60 | s.length]), Buffer.from(s)]));
const spec = (fields: Record<string, unknown>) => ({ spec: { selector: { matchLabels: { a: 'b' } }, ...fields } });
const container = (fields: Record<string, unknown>) => spec({ template: { spec: { containers: [{ name: 'c', image: 'i', ...fields }] } } });
const rollingUpdate = (maxSurge: unknown) => spec({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge } } });
const inSpec = (error: string) => `cbor: cannot unmarshal ${error.replace(' of type ', ' into Go struct field v1.Deployment.spec of type ')}`;

function decodeError(schema: object, value: unknown): string | undefined {
  const body = encodeCbor(value);
  return cborDecodeError(builtinDefinitions, schema, decodeCbor(body), (path) => cborTypeAt(body, path));
}

describe('cborDecodeError: the first failure in the body, in fxamacker/cbor\'s words', () => {
  const cases: { name: string; schema?: object; body: unknown; error: string | undefined }[] = [
    { name: 'an int32 beyond its range overflows it', body: spec({ replicas: 3_000_000_000 }),
      error: inSpec('positive integer of type int32 (3000000000 overflows int32)') },
    { name: 'a negative int32 beyond its range', body: spec({ replicas: -3_000_000_000 }),
      error: inSpec('negative integer of type int32 (-3000000000 overflows int32)') },
    { name: 'an int64 takes what an int32 cannot', schema: schemaOf('io.k8s.api.core.v1.Pod'), body: { spec: { activeDeadlineSeconds: 2 ** 40, containers: [] } }, error: undefined },
    { name: 'a float for an integer, even 2.0', body: spec({ replicas: hex('f9 4000') }), error: inSpec('primitives of type int32') },
    { name: 'a bool for an integer', body: spec({ replicas: true }), error: inSpec('primitives of type int32') },
    { name: 'IntOrString: a bool is no int32', body: rollingUpdate(true), error: inSpec('primitives of type int32') },
    { name: 'IntOrString: a map is no int32', body: rollingUpdate({ a: 1 }), error: inSpec('map of type int32') },
    { name: 'IntOrString: an array is no int32', body: rollingUpdate([1]), error: inSpec('array of type int32') },
    { name: 'IntOrString: an integer beyond an int32', body: rollingUpdate(3_000_000_000), error: inSpec('positive integer of type int32 (3000000000 overflows int32)') },
    { name: 'IntOrString: a float', body: rollingUpdate(2.5), error: inSpec('primitives of type int32') },
    { name: 'IntOrString: a string or an int32', body: spec({ strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: text('1') } }, minReadySeconds: 5 }), error: undefined },
    { name: 'IntOrString: a Service\'s targetPort', schema: service, body: { spec: { ports: [{ port: 80, targetPort: true }] } },
      error: 'cbor: cannot unmarshal primitives into Go struct field v1.Service.spec of type int32' },
    { name: 'Quantity: a bool is no string', body: container({ resources: { limits: { cpu: true } } }), error: inSpec('primitives of type string') },
    { name: 'Quantity: a number is no string in CBOR', body: container({ resources: { requests: { memory: 2 } } }), error: inSpec('positive integer of type string') },
    { name: 'Quantity: a string it cannot parse', body: container({ resources: { limits: { cpu: 'abc' } } }), error: quantityFormatError },
    { name: 'Quantity: byte and text strings', body: container({ resources: { limits: { cpu: '1' }, requests: { cpu: text(' 500m ') } } }), error: undefined },
    { name: 'Time: a number is no string', body: { status: { conditions: [{ type: 'Available', status: 'True', lastUpdateTime: 5 }] } },
      error: 'cbor: cannot unmarshal positive integer into Go struct field v1.Deployment.status of type string' },
    { name: 'Time: a string it cannot parse', body: { metadata: { creationTimestamp: 'garbage' } },
      error: 'parsing time "garbage" as "2006-01-02T15:04:05Z07:00": cannot parse "garbage" as "2006"' },
    { name: 'MicroTime: its own layout', schema: event, body: { eventTime: '2024-01-01T00:00:00Z' },
      error: 'parsing time "2024-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"' },
    { name: 'metadata: a number for the name', body: { metadata: { name: 5 } },
      error: 'cbor: cannot unmarshal positive integer into Go struct field v1.Deployment.metadata of type string' },
    { name: 'metadata: a label\'s value', body: { metadata: { labels: { a: -1 } } },
      error: 'cbor: cannot unmarshal negative integer into Go struct field v1.Deployment.metadata of type string' },
    { name: 'metadata: labels a string', body: { metadata: { labels: 'x' } },
      error: 'cbor: cannot unmarshal byte string into Go struct field v1.Deployment.metadata of type map[string]string' },
    { name: 'metadata: an owner reference\'s controller', body: { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'K', name: 'n', uid: 'u', controller: text('yes') }] } },
      error: 'cbor: cannot unmarshal UTF-8 text string into Go struct field v1.Deployment.metadata of type bool' },
    { name: 'metadata: the generation', body: { metadata: { generation: 'x' } },
      error: 'cbor: cannot unmarshal byte string into Go struct field v1.Deployment.metadata of type int64' },
    { name: 'metadata: a uid names types.UID', body: { metadata: { uid: 5 } },
      error: 'cbor: cannot unmarshal positive integer into Go struct field v1.Deployment.metadata of type types.UID' },
    { name: 'metadata: the creation time a number', body: { metadata: { creationTimestamp: 5 } },
      error: 'cbor: cannot unmarshal positive integer into Go struct field v1.Deployment.metadata of type string' },
    { name: '[]byte: a text string is no []byte', schema: secret, body: { data: { a: text('aGk=') } },
      error: 'cbor: cannot unmarshal UTF-8 text string into Go struct field v1.Secret.data of type []uint8' },
    { name: '[]byte: an untagged byte string holds base64', schema: secret, body: { data: { a: 'a b' } },
      error: 'cbor: failed to decode base64 from byte string: illegal base64 data at input byte 1' },
    { name: '[]byte: tag 22 bytes, and base64 bytes', schema: secret, body: { data: { a: Uint8Array.of(0, 255), b: 'aGk=' } }, error: undefined },
    { name: 'an array for a struct says why', body: { spec: { template: [1] } },
      error: inSpec('array of type v1.PodTemplateSpec (cannot decode CBOR array to struct without toarray option)') },
    // Keys in the order encodeCbor writes them: shorter first, then bytewise.
    { name: 'the body\'s first, whatever its kind: spec before metadata', body: { metadata: { name: 5 }, spec: { replicas: 3_000_000_000 } },
      error: inSpec('positive integer of type int32 (3000000000 overflows int32)') },
    { name: 'the body\'s first: a type error before an IntOrString\'s', body: spec({ paused: 1, strategy: { rollingUpdate: { maxSurge: true } } }),
      error: inSpec('positive integer of type bool') },
    { name: 'the body\'s first: a quantity\'s parse error before metadata\'s type error', body: { ...container({ resources: { limits: { cpu: 'abc' } } }), kind: 'Deployment', metadata: { generation: 'x' } },
      error: quantityFormatError },
    { name: 'nulls decode to nothing', body: { metadata: { name: null, labels: null }, spec: { replicas: null, strategy: { rollingUpdate: { maxSurge: null } } } }, error: undefined },
    { name: 'well-typed: no error', body: spec({ replicas: 3, paused: false, strategy: { rollingUpdate: { maxSurge: 1 } } }), error: undefined },
  ];
  for (const c of cases) test(c.name, () => assert.equal(decodeError(c.schema ?? deployment, c.body), c.error));

  test('an integer the server wrote (no item in the body) is read by its value', () => {
    const body = encodeCbor(spec({}));
    const value = decodeCbor(body) as { spec: Record<string, unknown> };
    value.spec.replicas = 3_000_000_000;
    assert.equal(cborDecodeError(builtinDefinitions, deployment, value, (path) => cborTypeAt(body, path)), inSpec('positive integer of type int32 (3000000000 overflows int32)'));
  });

  test('a quantity the Store wrote as a string is still the body\'s number', () => {
    const body = encodeCbor(container({ resources: { limits: { cpu: 2 } } }));
    const value = decodeCbor(body) as any;
    value.spec.template.spec.containers[0].resources.limits.cpu = '2';
    assert.equal(cborDecodeError(builtinDefinitions, deployment, value, (path) => cborTypeAt(body, path)), inSpec('positive integer of type string'));
  });
});

describe('cborObjectMetaDecodeError: metadata alone, named by the object it is in', () => {
  test('the outermost field is metadata', () => {
    const body = encodeCbor({ metadata: { name: 'n', finalizers: [1] } });
    const value = decodeCbor(body) as { metadata: unknown };
    assert.equal(cborObjectMetaDecodeError(builtinDefinitions, value.metadata, (path) => cborTypeAt(body, path), 'v1.ConfigMap'),
      'cbor: cannot unmarshal positive integer into Go struct field v1.ConfigMap.metadata of type string');
    const fine = encodeCbor({ metadata: { name: 'n' } });
    assert.equal(cborObjectMetaDecodeError(builtinDefinitions, (decodeCbor(fine) as { metadata: unknown }).metadata, (path) => cborTypeAt(fine, path), 'v1.ConfigMap'), undefined);
  });
});

describe('cborUnknownField: strict decoding\'s unknown field, by its index in its map', () => {
  const containers = (fields: Record<string, unknown>) => ({ template: { spec: { containers: [{ name: 'c', image: 'i' }, { name: 'd', ...fields }] } } });
  const cases: { name: string; body: unknown; error: string | undefined }[] = [
    // spec's keys in the body: replicas, selector, template, zzzzzzzzzzz.
    { name: 'its index among its map\'s entries', body: spec({ replicas: 1, template: {}, zzzzzzzzzzz: 1 }), error: 'cbor: found unknown field at map element index 3' },
    // The second container's keys: name, bogus, image.
    { name: 'in a list\'s item: that item\'s map', body: spec(containers({ image: 'i', bogus: 1 })), error: 'cbor: found unknown field at map element index 1' },
    { name: 'in metadata', body: { metadata: { name: 'n', bogus: 1 } }, error: 'cbor: found unknown field at map element index 1' },
    // The root: kind, spec, metadata, apiVersion, zzzzzzzzzzzzz.
    { name: 'a map\'s own unknown key wins over one deeper in an earlier field', body: { kind: 'Deployment', spec: { bogus: 1 }, metadata: {}, apiVersion: 'apps/v1', zzzzzzzzzzzzz: 1 },
      error: 'cbor: found unknown field at map element index 4' },
    { name: 'else the first field\'s in the body', body: { spec: { bogus: 1 }, metadata: { name: 'n', zzzzz: 1 } }, error: 'cbor: found unknown field at map element index 0' },
    { name: 'Go maps and values decoding themselves have none', body: { metadata: { labels: { any: 'x' }, managedFields: [{ fieldsV1: { 'f:x': {} } }] } }, error: undefined },
    { name: 'a key differing in case is unknown', body: spec({ Replicas: 1 }), error: 'cbor: found unknown field at map element index 0' },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(cborUnknownField(builtinDefinitions, deployment, decodeCbor(encodeCbor(c.body))), c.error));
  }
});

describe('cborTypeAt reads a body once for all its items', () => {
  // {_ "a": 1, 24("b"): 1.0, "c": [_ "x"(text)]} behind the self-described tag.
  const body = Buffer.from('d9d9f7 bf 6161 01 d818 6162 f93c00 6163 9f 6178 ff ff'.replace(/\s/g, ''), 'hex');
  const cases: [path: (string | number)[], type: string | undefined][] = [
    [['a'], 'positive integer'], [['b'], 'primitives'], [['c'], 'array'], [['c', 0], 'UTF-8 text string'], [['c', 1], undefined], [['d'], undefined],
  ];
  for (const [path, type] of cases) {
    test(`indefinite lengths and tagged keys: at ${JSON.stringify(path)}, ${type}`, () => {
      assert.deepEqual(decodeCbor(body), { a: 1, b: 1, c: ['x'] });
      assert.equal(cborTypeAt(body, path), type);
    });
  }
});
