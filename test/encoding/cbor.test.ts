// The CBOR codec against bytes written by hand from RFC 8949 and upstream's encode and decode modes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isStatusError } from '../../src/api/index.ts';
import { decodeCbor, decodeCborObject, decodeCborSequence, encodeCbor } from '../../src/encoding/cbor.ts';
import { decodeCborWatchEvents, encodeCborObject, encodeCborWatchEvent } from '../../src/encoding/cbor-objects.ts';

const hex = (h: string): Uint8Array => new Uint8Array(Buffer.from(h.replace(/[\s|]/g, ''), 'hex'));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
/** A byte string head and content for an ASCII string shorter than 24 bytes. */
const bs = (s: string): string => (0x40 + s.length).toString(16) + Buffer.from(s).toString('hex');

describe('CBOR encoding matches upstream bytes', () => {
  const cases: [name: string, value: unknown, expected: string][] = [
    ['empty map', {}, 'a0'],
    ['empty array', [], '80'],
    ['string as byte string', 'a', '4161'],
    ['non-ASCII string as its UTF-8 bytes', 'é', '42c3a9'],
    ['24-byte string takes a one-byte length', 'x'.repeat(24), `5818${'78'.repeat(24)}`],
    ['zero', 0, '00'],
    ['negative zero is the integer zero', -0, '00'],
    ['23 in the initial byte', 23, '17'],
    ['24 in one byte', 24, '1818'],
    ['255 in one byte', 255, '18ff'],
    ['256 in two bytes', 256, '190100'],
    ['65536 in four bytes', 65536, '1a00010000'],
    ['2^32 in eight bytes', 2 ** 32, '1b0000000100000000'],
    ['2^53 in eight bytes', 2 ** 53, '1b0020000000000000'],
    ['-1', -1, '20'],
    ['-24', -24, '37'],
    ['-25', -25, '3818'],
    ['-2^32', -(2 ** 32), '3affffffff'],
    ['int64 minimum', -(2 ** 63), '3b7fffffffffffffff'],
    ['1.5 as half precision', 1.5, 'f93e00'],
    ['-2.5 as half precision', -2.5, 'f9c100'],
    ['4096.5 is too fine for half precision: single', 4096.5, 'fa45800400'],
    ['65504, the largest half, is integral: an integer', 65504, '19ffe0'],
    ['0.5 as half precision', 0.5, 'f93800'],
    ['2^-24, the smallest half subnormal', 2 ** -24, 'f90001'],
    ['2^-25 needs single precision', 2 ** -25, 'fa33000000'],
    ['100000.5 as single precision', 100000.5, 'fa47c35040'],
    ['0.1 needs double precision', 0.1, 'fb3fb999999999999a'],
    ['2^100 is beyond int64: a float, single precision', 2 ** 100, 'fa71800000'],
    ['1e20 is beyond int64: a float, double precision', 1e20, 'fb4415af1d78b58c40'],
    ['true', true, 'f5'],
    ['false', false, 'f4'],
    ['null', null, 'f6'],
    ['a Uint8Array is a Go []byte: tag 22 and a byte string', Uint8Array.of(1, 2), 'd6420102'],
    ['array of mixed items', [1, 'a', null], '83014161f6'],
    ['keys sort shorter first, then bytewise', { b: 1, aa: 3, a: 2, B: 4 }, `a4 ${bs('B')}04 ${bs('a')}02 ${bs('b')}01 ${bs('aa')}03`],
    ['keys sort by UTF-8 bytes, not UTF-16', { 'é': 1, ab: 2, z: 3 }, `a3 ${bs('z')}03 ${bs('ab')}02 42c3a901`],
    ['undefined fields are left out', { a: undefined, b: 1 }, `a1 ${bs('b')}01`],
  ];
  for (const [name, value, expected] of cases) {
    test(name, () => {
      assert.equal(toHex(encodeCbor(value)), `d9d9f7${expected.replace(/\s/g, '')}`);
      assert.equal(toHex(encodeCbor(value, { selfDescribed: false })), expected.replace(/\s/g, ''));
    });
  }


  const refused: [string, unknown, RegExp][] = [
    ['NaN', NaN, /floating-point NaN/],
    ['Infinity', Infinity, /floating-point infinity/],
    ['-Infinity inside a map', { a: -Infinity }, /floating-point infinity/],
  ];
  for (const [name, value, message] of refused) {
    test(`${name} cannot be encoded`, () => assert.throws(() => encodeCbor(value), message));
  }
});

describe('CBOR answers for objects and watch events', () => {
  test('a Secret: keys in upstream order, data values as tag 22 byte strings', () => {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: { k: 'aGk=' } };
    const expected = `d9d9f7 a4 ${bs('data')} a1 ${bs('k')} d6 42 6869 ${bs('kind')} ${bs('Secret')}`
      + ` ${bs('metadata')} a1 ${bs('name')} ${bs('x')} ${bs('apiVersion')} ${bs('v1')}`;
    assert.equal(toHex(encodeCborObject(secret)), expected.replace(/\s/g, ''));
  });

  test('a watch event: its own tag, then {type, object} with the object as its own tagged item', () => {
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
    const object = `d9d9f7 a3 ${bs('kind')} ${bs('ConfigMap')} ${bs('metadata')} a1 ${bs('name')} ${bs('c')} ${bs('apiVersion')} ${bs('v1')}`;
    const expected = `d9d9f7 a2 ${bs('type')} ${bs('ADDED')} ${bs('object')} ${object}`;
    const bytes = encodeCborWatchEvent({ type: 'ADDED', object: cm });
    assert.equal(toHex(bytes), expected.replace(/\s/g, ''));
    // A stream is the events one after another (RFC 8742): no framing.
    const stream = Buffer.concat([bytes, encodeCborWatchEvent({ type: 'DELETED', object: cm })]);
    assert.deepEqual(decodeCborWatchEvents(stream), [{ type: 'ADDED', object: cm }, { type: 'DELETED', object: cm }]);
  });

  const pod = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: 'web', namespace: 'default', uid: '5c1d3f0a-0000-4000-8000-000000000001', resourceVersion: '42',
      creationTimestamp: '2024-05-01T10:00:00Z', labels: { app: 'web', 'app.kubernetes.io/name': 'wéb' },
      managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } } }],
    },
    spec: {
      containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], resources: { limits: { cpu: '500m', memory: '128Mi' } } }],
      terminationGracePeriodSeconds: 30, priority: 0, enableServiceLinks: true,
    },
    status: { phase: 'Pending', qosClass: 'Burstable' },
  };
  const deployment = {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', generation: 3 },
    spec: { replicas: 3, selector: { matchLabels: { app: 'd' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
    status: { replicas: 3, conditions: [{ type: 'Available', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z' }] },
  };
  const webhook = {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'w' },
    webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://x', caBundle: 'Y2EtYnVuZGxl' }, sideEffects: 'None', admissionReviewVersions: ['v1'] }],
  };
  const csr = {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'c' },
    spec: { request: 'cmVxdWVzdA==', signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
    status: { certificate: 'Y2VydA==' },
  };
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'foos.example.com' },
    spec: { group: 'example.com', names: { plural: 'foos', kind: 'Foo' }, scope: 'Namespaced', conversion: { strategy: 'Webhook', webhook: { clientConfig: { caBundle: 'Y3JkLWNh' }, conversionReviewVersions: ['v1'] } }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', default: { a: 1.5 } } } }] },
  };
  const secretList = {
    apiVersion: 'v1', kind: 'SecretList', metadata: { resourceVersion: '9' },
    items: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data: { a: 'AAEC', empty: '' } }],
  };
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { text: 'aGk=' }, binaryData: { bin: '/+8=' } };
  const customResource = {
    apiVersion: 'example.com/v1', kind: 'Foo', metadata: { name: 'f' },
    spec: { caBundle: 'bm90LWJ5dGVz', ratio: 0.25, big: 2 ** 60, negative: -7, nested: [[1, 2.5], { deep: { deeper: null } }], flag: false },
  };
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'not found', reason: 'NotFound', details: { name: 'x', kind: 'pods' }, code: 404 };

  const roundTrips: [name: string, obj: Record<string, unknown>, bytesFields: string[]][] = [
    ['Pod', pod, []],
    ['Deployment', deployment, []],
    ['MutatingWebhookConfiguration (caBundle)', webhook, ['Y2EtYnVuZGxl']],
    ['CertificateSigningRequest (request, certificate)', csr, ['cmVxdWVzdA==', 'Y2VydA==']],
    ['CustomResourceDefinition (conversion caBundle)', crd, ['Y3JkLWNh']],
    ['SecretList (data of each item)', secretList, ['AAEC', '']],
    ['ConfigMap (binaryData, not data)', configMap, ['/+8=']],
    ['custom resource (no []byte fields)', customResource, []],
    ['Status', status, []],
  ];
  for (const [name, obj, bytesFields] of roundTrips) {
    test(`${name} round-trips, with its []byte fields as tag 22 byte strings`, () => {
      const bytes = encodeCborObject(obj as never);
      assert.deepEqual(toHex(bytes.subarray(0, 3)), 'd9d9f7');
      assert.deepEqual(decodeCborObject(bytes), obj);
      for (const b64 of bytesFields) {
        const raw = Buffer.from(b64, 'base64');
        const head = (0x40 + raw.length).toString(16).padStart(2, '0');
        assert.ok(toHex(bytes).includes(`d6${head}${raw.toString('hex')}`), `${b64} as tag 22 bytes`);
      }
      // Strings that are not []byte stay byte strings of their text.
      assert.ok(toHex(bytes).includes(bs('kind')));
    });
  }

  test('a custom resource base64-looking string stays a plain byte string', () => {
    const hexed = toHex(encodeCborObject(customResource as never));
    assert.ok(hexed.includes(bs('bm90LWJ5dGVz')));
    assert.ok(!hexed.includes(`d6${bs('not-bytes')}`));
  });
});

describe('CBOR decoding follows upstream decode mode', () => {
  const accepted: [name: string, input: string, expected: unknown][] = [
    ['text string', '6161', 'a'],
    ['byte string', '4161', 'a'],
    ['empty byte string', '40', ''],
    ['self-described tag around a map', 'd9d9f7a1416101', { a: 1 }],
    ['tag 22 byte string reads as base64', 'd6426869', 'aGk='],
    ['tag 21 byte string reads as base64url without padding', 'd543fbff00', '-_8A'],
    ['tag 23 byte string reads as hex', 'd742abcd', 'abcd'],
    ['tag 22 around a text string is the text', 'd66161', 'a'],
    ['unrecognized tag gives its content', 'c48221196ab3', [-2, 27315]],
    ['tag 0 RFC 3339 text string', 'c074323030362d30312d30325431353a30343a30355a', '2006-01-02T15:04:05Z'],
    ['tag 1 epoch seconds', 'c11a43b940e5', '2006-01-02T15:04:05Z'],
    ['indefinite-length text string', '7f616161626163ff', 'abc'],
    ['indefinite-length byte string', '5f41614162ff', 'ab'],
    ['indefinite-length array', '9f0102ff', [1, 2]],
    ['nested indefinite-length map', 'bf6141bf616101616202ffff', { A: { a: 1, b: 2 } }],
    ['map keys in any order', 'a2416202416101', { b: 2, a: 1 }],
    ['byte and text string keys mixed', 'a2416101616202', { a: 1, b: 2 }],
    ['half precision', 'f94200', 3],
    ['single precision', 'fa40000000', 2],
    ['double precision', 'fb3fb999999999999a', 0.1],
    ['int64 maximum', '1b7fffffffffffffff', 2 ** 63],
    ['int64 minimum', '3b7fffffffffffffff', -(2 ** 63)],
    ['integers in a longer head than needed', '1900 01', 1],
    ['false, true, null', '83f4f5f6', [false, true, null]],
    ['a __proto__ key is an own field', 'a1495f5f70726f746f5f5f01', JSON.parse('{"__proto__":1}')],
    ['64 levels of arrays', `${'81'.repeat(63)}80`, JSON.parse(`${'['.repeat(64)}${']'.repeat(64)}`)],
    ['the self-described tag and 63 levels of arrays', `d9d9f7${'81'.repeat(62)}80`, JSON.parse(`${'['.repeat(63)}${']'.repeat(63)}`)],
  ];
  for (const [name, input, expected] of accepted) {
    test(`accepts ${name}`, () => assert.deepEqual(decodeCbor(hex(input)), expected));
  }

  const refused: [name: string, input: string, message: string][] = [
    ['an empty body', '', 'EOF'],
    ['a truncated map', 'd9d9f7a1', 'unexpected EOF'],
    ['a truncated string', '4261', 'unexpected EOF'],
    ['a truncated head', '1a0001', 'unexpected EOF'],
    ['a string longer than the body (no allocation)', '5bffffffffffffffff', 'unexpected EOF'],
    ['trailing bytes', '0000', 'cbor: 1 bytes of extraneous data starting at index 1'],
    ['duplicate text string keys', 'a2614101614102', 'cbor: found duplicate map key "A" at map element index 1'],
    ['duplicate byte and text string keys', 'a2414101614102', 'cbor: found duplicate map key "A" at map element index 1'],
    ['duplicate keys split into chunks differently', 'a25f426865436c6c6fff015f416844656c6c6fff02', 'cbor: found duplicate map key "hello" at map element index 1'],
    // Go's "\"%v\"": the key between quotes as it is, a quote and a backslash unescaped.
    ['duplicate keys with a quote and a backslash', 'a2 43 615c22 01 43 615c22 02', 'cbor: found duplicate map key "a\\"" at map element index 1'],
    ['an integer key', 'a10101', 'cbor: cannot unmarshal positive integer into Go value of type string'],
    ['a float key', 'a1fb40091eb851eb851f63706965', 'cbor: cannot unmarshal primitives into Go value of type string'],
    ['invalid UTF-8 in a text string', '6180', 'cbor: invalid UTF-8 string'],
    ['an unsigned integer beyond int64', '1bffffffffffffffff', "cbor: cannot unmarshal positive integer into Go value of type int64 (18446744073709551615 overflows Go's int64)"],
    ['a negative integer beyond int64', '3bffffffffffffffff', "cbor: cannot unmarshal negative integer into Go value of type int64 (-18446744073709551616 overflows Go's int64)"],
    ['NaN', 'f97e00', 'cbor: data item of cbor type primitives is not accepted by protocol: floating-point NaN'],
    ['infinity', 'fa7f800000', 'cbor: data item of cbor type primitives is not accepted by protocol: floating-point infinity'],
    ['negative infinity', 'fbfff0000000000000', 'cbor: data item of cbor type primitives is not accepted by protocol: floating-point infinity'],
    ['undefined', 'f7', 'cbor: data item of cbor type primitives is not accepted by protocol: simple value 23 is not recognized'],
    ['simple value 0', 'e0', 'cbor: data item of cbor type primitives is not accepted by protocol: simple value 0 is not recognized'],
    ['simple value 32', 'f820', 'cbor: data item of cbor type primitives is not accepted by protocol: simple value 32 is not recognized'],
    ['a reserved simple value', 'f818', 'cbor: invalid simple value 24 for type primitives'],
    ['a break outside an indefinite item', 'ff', 'cbor: unexpected "break" code'],
    ['reserved additional information', '1c', 'cbor: invalid additional information 28 for type positive integer'],
    ['an indefinite-length integer', '1f', 'cbor: invalid additional information 31 for type positive integer'],
    ['an indefinite-length tag', 'df', 'cbor: invalid additional information 31 for type tag'],
    ['a text chunk in an indefinite byte string', '5f6161ff', 'cbor: wrong element type UTF-8 text string for indefinite-length byte string'],
    ['an unsigned bignum', 'c249010000000000000000', 'cbor: data item of cbor type tag is not accepted by protocol: bignum'],
    ['tag 0 around a byte string', 'c054323030362d30312d30325431353a30343a30355a', 'cbor: tag number 0 must be followed by text string, got byte string'],
    ['65 levels of arrays', `${'81'.repeat(64)}80`, 'cbor: exceeded max nested level 64'],
    ['the self-described tag and 64 levels of arrays', `d9d9f7${'81'.repeat(63)}80`, 'cbor: exceeded max nested level 64'],
    ['an array of 1025 elements', `990401${'00'.repeat(1025)}`, 'cbor: exceeded max number of elements 1024 for CBOR array'],
    ['an array declaring four billion elements (no allocation)', '9affffffff', 'cbor: exceeded max number of elements 1024 for CBOR array'],
    ['an indefinite array of 1025 elements', `9f${'00'.repeat(1025)}ff`, 'cbor: exceeded max number of elements 1024 for CBOR array'],
    ['a map of 1025 pairs', 'b90401', 'cbor: exceeded max number of key-value pairs 1024 for CBOR map'],
  ];
  for (const [name, input, message] of refused) {
    test(`refuses ${name} with a 400`, () => {
      assert.throws(() => decodeCbor(hex(input)), (err: unknown) => {
        assert.ok(isStatusError(err));
        assert.equal(err.code, 400);
        assert.equal(err.reason, 'BadRequest');
        assert.equal(err.message, message);
        return true;
      });
    });
  }

  test('an object body must be a map', () => {
    assert.throws(() => decodeCborObject(hex('d9d9f78101')), /cannot unmarshal array into Go value of type map\[string\]interface \{\}/);
    assert.deepEqual(decodeCborObject(hex('a0')), {});
  });

  test('a sequence decodes item after item; a truncated last item is refused', () => {
    assert.deepEqual(decodeCborSequence(hex('d9d9f7a0 01 6161')), [{}, 1, 'a']);
    assert.deepEqual(decodeCborSequence(new Uint8Array(0)), []);
    assert.throws(() => decodeCborSequence(hex('01a1')), /unexpected EOF/);
  });
});

describe('CBOR codec properties', () => {
  // JSON values as JSON.parse gives them (no -0, which CBOR's integer zero cannot keep).
  const json = fc.jsonValue({ maxDepth: 8 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

  test('JSON values round-trip', () => {
    fc.assert(fc.property(json, (value) => {
      assert.deepEqual(decodeCbor(encodeCbor(value)), value);
    }), { numRuns: 300 });
  });

  test('encoding is deterministic whatever the key insertion order', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.integer()), (record) => {
      const reversed = Object.fromEntries(Object.entries(record).reverse());
      assert.deepEqual(encodeCbor(reversed), encodeCbor(record));
    }), { numRuns: 200 });
  });

  const onlyBadRequests = (bytes: Uint8Array): void => {
    try {
      decodeCbor(bytes);
    } catch (err) {
      if (!isStatusError(err) || err.code !== 400) throw err;
    }
  };

  test('random bytes decode or answer 400, never anything else', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => onlyBadRequests(bytes)), { numRuns: 3000 });
  });

  test('damaged encodings (truncated, bytes changed) decode or answer 400', () => {
    fc.assert(fc.property(json, fc.nat(), fc.nat(255), (value, at, byte) => {
      const bytes = encodeCbor(value);
      onlyBadRequests(bytes.subarray(0, at % bytes.length));
      const changed = bytes.slice();
      changed[at % changed.length] = byte;
      onlyBadRequests(changed);
    }), { numRuns: 1000 });
  });
});
