// Bad Protobuf request bodies through a real server: each answered as kube-apiserver answers
// it, in the words of its decoding (runtime/serializer/protobuf/protobuf.go and the
// gogo-generated Unmarshal methods) under its create and update handlers' transformDecodeError,
// never a 500, a hang or a write. Objects whose decoding succeeds go on as their JSON would.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeProtobufObject } from '../../src/encoding/protobuf/index.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const protobuf = 'application/vnd.kubernetes.protobuf';

// Wire-format builders, independent of the codec under test.
function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}
/** A ten-byte varint of a negative int64, as Go writes int32 and int64 below zero. */
const negative = (n: number): number[] => {
  let big = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  for (let i = 0; i < 9; i++, big >>= 7n) out.push(Number(big & 0x7fn) | 0x80);
  out.push(Number(big));
  return out;
};
const key = (field: number, wireType: number): number[] => varint(field * 8 + wireType);
const int = (field: number, n: number): number[] => [...key(field, 0), ...(n < 0 ? negative(n) : varint(n))];
const bytesField = (field: number, b: number[]): number[] => [...key(field, 2), ...varint(b.length), ...b];
const str = (field: number, s: string): number[] => bytesField(field, [...Buffer.from(s, 'utf8')]);
const msg = (field: number, ...parts: number[][]): number[] => bytesField(field, parts.flat());
const entry = (field: number, k: string, v: string): number[] => msg(field, str(1, k), str(2, v));
const prefix = [0x6b, 0x38, 0x73, 0x00];
const typeMeta = (apiVersion: string, kind: string): number[] => msg(1, str(1, apiVersion), str(2, kind));
const envelope = (apiVersion: string, kind: string, ...raw: number[][]): Buffer => Buffer.from([...prefix, ...typeMeta(apiVersion, kind), ...msg(2, ...raw)]);
const bytes = (...parts: number[][]): Buffer => Buffer.from(parts.flat());
const configMap = (...raw: number[][]): Buffer => envelope('v1', 'ConfigMap', ...raw);
const named = (name: string): number[] => msg(1, str(1, name));
/** A Deployment's spec {1 replicas, 2 selector, 3 template} selecting a=b, of one container `c`, image `i`. */
const deploymentSpec = (...replicas: number[][]): number[] =>
  msg(2, ...replicas, msg(2, entry(1, 'a', 'b')), msg(3, msg(1, entry(11, 'a', 'b')), msg(2, msg(2, str(1, 'c'), str(2, 'i')))));
/** A Pod of one container `c`, image `i`, its resources' limits the entries given. */
const podWithLimits = (...limits: number[][]): Buffer =>
  envelope('v1', 'Pod', named('limits'), msg(2, msg(2, str(1, 'c'), str(2, 'i'), msg(8, ...limits))));

const legacyScheme = 'pkg/api/legacyscheme/scheme.go:30';
const unrecognized = (kind: string, cause: string, summary: string): string =>
  `the object provided is unrecognized (must be of type ${kind}): ${cause} (${summary})`;
const cannotHandle = (kind: string, version: string, into: string, cause: string): string =>
  `${kind} in version "${version}" cannot be handled as a ${into}: ${cause}`;

interface Row {
  name: string;
  method: string;
  path: (ns: string) => string;
  body: Buffer;
  status: number;
  reason?: string;
  /** The whole message, or a JSON body whose answer's message it must equal. */
  message?: string | { asJson: unknown };
  /** Checks of a successful answer's object. */
  check?: (answer: any) => void;
}

const group = 'pbbad.example.com';
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
const dryRun = (path: (ns: string) => string) => (ns: string) => `${path(ns)}?dryRun=All`;
const pods = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const deployment = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments/d`;
const widgets = (ns: string) => `/apis/${group}/v1/namespaces/${ns}/widgets`;
/** An envelope whose TypeMeta's length runs past the end. */
const truncated = Buffer.from([...prefix, 0x0a, 0x05]);

const rows: Row[] = [
  // The prefix and the envelope (runtime.Unknown): the kind is not known yet.
  { name: 'an empty body', method: 'POST', path: configMaps, body: Buffer.alloc(0), status: 400, message: unrecognized('ConfigMap', 'empty data', '<empty>') },
  { name: 'a wrong fourth byte of the prefix', method: 'POST', path: configMaps, body: bytes([0x6b, 0x38, 0x73, 0x01, 0x0a, 0x00]), status: 400,
    message: unrecognized('ConfigMap', 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]', '6b3873010a00') },
  { name: 'JSON sent as Protobuf', method: 'POST', path: configMaps, body: Buffer.from('{"kind":"ConfigMap"}'), status: 400,
    message: unrecognized('ConfigMap', 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]', '{"kind":"ConfigMap"}') },
  { name: 'a body past 30 bytes is summarised by its first 30', method: 'POST', path: configMaps, body: Buffer.alloc(40, 0x61), status: 400,
    message: unrecognized('ConfigMap', 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]', `${'61'.repeat(30)} ...`) },
  { name: 'the prefix alone', method: 'POST', path: configMaps, body: Buffer.from(prefix), status: 400, message: unrecognized('ConfigMap', 'empty body', '6b387300') },
  { name: 'a tag cut short', method: 'POST', path: configMaps, body: bytes(prefix, [0x80]), status: 400, message: unrecognized('ConfigMap', 'unexpected EOF', '6b38730080') },
  { name: 'a tag of eleven bytes', method: 'POST', path: configMaps, body: bytes(prefix, Array(10).fill(0xff), [0x01]), status: 400,
    message: unrecognized('ConfigMap', 'proto: integer overflow', `6b387300${'ff'.repeat(10)}01`) },
  { name: 'a length past the end', method: 'POST', path: configMaps, body: bytes(prefix, [0x12, 0x05, 0x01]), status: 400, message: unrecognized('ConfigMap', 'unexpected EOF', '6b387300120501') },
  { name: 'a length of 2^32 + 1', method: 'POST', path: configMaps, body: bytes(prefix, [0x12, 0x81, 0x80, 0x80, 0x80, 0x10]), status: 400,
    message: unrecognized('ConfigMap', 'unexpected EOF', '6b387300128180808010') },
  { name: 'a length with the 64th bit set, negative as Go\'s int', method: 'POST', path: configMaps, body: bytes(prefix, [0x12], Array(9).fill(0xff), [0x01]), status: 400,
    message: unrecognized('ConfigMap', 'proto: negative length found during unmarshaling', `6b38730012${'ff'.repeat(9)}01`) },
  { name: 'TypeMeta of the wrong wire type', method: 'POST', path: configMaps, body: bytes(prefix, int(1, 1)), status: 400,
    message: unrecognized('ConfigMap', 'proto: wrong wireType = 0 for field TypeMeta', '6b3873000801') },
  { name: 'a kind of the wrong wire type', method: 'POST', path: configMaps, body: bytes(prefix, msg(1, int(2, 1))), status: 400,
    message: unrecognized('ConfigMap', 'proto: wrong wireType = 0 for field Kind', '6b3873000a021001') },
  { name: 'field number 0 in the envelope', method: 'POST', path: configMaps, body: bytes(prefix, [0x02]), status: 400,
    message: unrecognized('ConfigMap', 'proto: Unknown: illegal tag 0 (wire type 2)', '6b38730002') },
  { name: 'an end of group in the envelope', method: 'POST', path: configMaps, body: bytes(prefix, [0x0c]), status: 400,
    message: unrecognized('ConfigMap', 'proto: Unknown: wiretype end group for non-group', '6b3873000c') },
  { name: 'an unknown envelope field of wire type 6', method: 'POST', path: configMaps, body: bytes(prefix, [0x2e]), status: 400,
    message: unrecognized('ConfigMap', 'proto: illegal wireType 6', '6b3873002e') },
  { name: 'an unknown envelope field whose group never ends', method: 'POST', path: configMaps, body: bytes(prefix, [0x2b, 0x08, 0x01]), status: 400,
    message: unrecognized('ConfigMap', 'unexpected EOF', '6b3873002b0801') },

  // The kind: what the envelope leaves out is the URL's (copyKindDefaults); a kind the scheme lacks.
  { name: 'an envelope without apiVersion or kind is the URL\'s', method: 'POST', path: dryRun(configMaps), body: envelope('', '', named('e'), entry(2, 'k', 'v')), status: 201,
    check: (cm) => assert.deepEqual([cm.apiVersion, cm.kind, cm.data], ['v1', 'ConfigMap', { k: 'v' }]) },
  { name: 'an apiVersion of more than one slash is the URL\'s too', method: 'POST', path: dryRun(configMaps), body: envelope('a/b/c', 'ConfigMap', named('e')), status: 201,
    check: (cm) => assert.equal(cm.apiVersion, 'v1') },
  { name: 'a kind the scheme does not have', method: 'POST', path: configMaps, body: envelope('v1', 'Widget', named('w')), status: 400,
    message: cannotHandle('Widget', 'v1', 'ConfigMap', `no kind "Widget" is registered for version "v1" in scheme "${legacyScheme}"`) },
  { name: 'a kind in a group that does not have it', method: 'POST', path: configMaps, body: envelope('apps/v1', 'ConfigMap', named('w')), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', `no kind "ConfigMap" is registered for version "apps/v1" in scheme "${legacyScheme}"`) },
  { name: 'a group without its version takes the URL\'s group and version', method: 'POST', path: dryRun(configMaps), body: envelope('apps/', 'ConfigMap', named('e')), status: 201,
    check: (cm) => assert.equal(cm.apiVersion, 'v1') },

  // The object's message: after the kind, in the gogo-generated words of its Go types.
  { name: 'metadata of the wrong wire type', method: 'POST', path: configMaps, body: configMap(int(1, 5)), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'proto: wrong wireType = 0 for field ObjectMeta') },
  { name: 'a name of the wrong wire type', method: 'POST', path: configMaps, body: configMap(msg(1, int(1, 5))), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'proto: wrong wireType = 0 for field Name') },
  { name: 'a Go field name that is not the JSON one capitalised (uid)', method: 'POST', path: configMaps, body: configMap(msg(1, int(5, 1))), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'proto: wrong wireType = 0 for field UID') },
  { name: 'field number 0 in ObjectMeta', method: 'POST', path: configMaps, body: configMap(msg(1, [0x00, 0x01])), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'proto: ObjectMeta: illegal tag 0 (wire type 0)') },
  { name: 'a negative field number, as Go\'s int32 of the tag', method: 'POST', path: configMaps, body: configMap([0xf8, 0xff, 0xff, 0xff, 0x7f, 0x01]), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'proto: ConfigMap: illegal tag -1 (wire type 34359738360)') },
  { name: 'an end of group in the object', method: 'POST', path: configMaps, body: configMap(named('g'), [0x0c]), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'proto: ConfigMap: wiretype end group for non-group') },
  { name: 'a nested message longer than its parent', method: 'POST', path: configMaps, body: configMap([...key(1, 2), 10, ...str(1, 'x')]), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'unexpected EOF') },
  { name: 'a nested message cut inside a varint', method: 'POST', path: configMaps, body: configMap(msg(1, [...key(7, 0), 0x80])), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'unexpected EOF') },
  { name: 'raw JSON in the envelope, whatever its contentType says', method: 'POST', path: configMaps,
    body: bytes(prefix, typeMeta('v1', 'ConfigMap'), bytesField(2, [...Buffer.from('{"metadata":{"name":"j"}}')]), str(4, 'application/json')), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'unexpected EOF') },
  { name: 'a contentEncoding is not looked at', method: 'POST', path: dryRun(configMaps), body: bytes(prefix, typeMeta('v1', 'ConfigMap'), msg(2, named('gz')), str(3, 'gzip')), status: 201,
    check: (cm) => assert.equal(cm.metadata.name, 'gz') },
  { name: 'unknown fields of every wire type, groups included, are skipped', method: 'POST', path: dryRun(configMaps),
    body: configMap(msg(1, str(1, 'u'), int(99, 5), [...key(98, 1), 1, 2, 3, 4, 5, 6, 7, 8], [...key(97, 5), 1, 2, 3, 4], [...key(96, 3), ...int(1, 1), ...key(96, 4)]), int(50, 1)), status: 201,
    check: (cm) => assert.deepEqual(cm.metadata.name, 'u') },
  { name: 'a singular field given twice: the last wins', method: 'POST', path: dryRun(configMaps), body: configMap(msg(1, str(1, 'first'), str(1, 'second'))), status: 201,
    check: (cm) => assert.equal(cm.metadata.name, 'second') },
  { name: 'a map entry without its key is the key "", as the JSON body\'s', method: 'POST', path: configMaps, body: configMap(named('mk'), msg(2, str(2, 'v'))), status: 422,
    message: { asJson: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mk' }, data: { '': 'v' } } } },
  { name: 'a map entry\'s key is read whatever its wire type, as gogo reads it', method: 'POST', path: dryRun(configMaps), body: configMap(named('mw'), msg(2, [...key(1, 0), ...str(0, 'abc').slice(1)], str(2, 'v'))), status: 201,
    check: (cm) => assert.deepEqual(cm.data, { abc: 'v' }) },
  { name: 'invalid UTF-8 in a string is U+FFFD, as Go\'s JSON answer writes it', method: 'POST', path: dryRun(configMaps), body: configMap(named('u8'), msg(2, str(1, 'k'), bytesField(2, [0x61, 0xff, 0x62]))), status: 201,
    check: (cm) => assert.deepEqual(cm.data, { k: 'a\ufffdb' }) },
  { name: 'a negative int32 is validation\'s to refuse, as the JSON body\'s', method: 'POST', path: (ns) => `/apis/apps/v1/namespaces/${ns}/deployments`,
    body: envelope('apps/v1', 'Deployment', named('neg'), deploymentSpec(int(1, -1))), status: 422,
    message: { asJson: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'neg' }, spec: { replicas: -1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } } } },
  { name: 'an int32 past 32 bits keeps its low 32, as Go\'s int32 conversion', method: 'POST', path: dryRun((ns) => `/apis/apps/v1/namespaces/${ns}/deployments`),
    body: envelope('apps/v1', 'Deployment', named('big'), deploymentSpec(int(1, 2 ** 32 + 3))), status: 201,
    check: (d) => assert.equal(d.spec.replicas, 3) },
  { name: 'a Quantity that is not one', method: 'POST', path: dryRun(pods), body: podWithLimits(msg(1, str(1, 'cpu'), msg(2, str(1, 'abc')))), status: 400,
    message: cannotHandle('Pod', 'v1', 'Pod', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'") },
  { name: 'a Quantity of the wrong wire type', method: 'POST', path: dryRun(pods), body: podWithLimits(msg(1, str(1, 'cpu'), msg(2, int(1, 1)))), status: 400,
    message: cannotHandle('Pod', 'v1', 'Pod', 'proto: wrong wireType = 0 for field String_') },
  { name: 'a ResourceList entry without its value is the zero Quantity, "0"', method: 'POST', path: dryRun(pods), body: podWithLimits(msg(1, str(1, 'cpu'))), status: 201,
    check: (pod) => assert.equal(pod.spec.containers[0].resources.limits.cpu, '0') },
  { name: 'a Time of the wrong wire type', method: 'POST', path: configMaps, body: configMap(msg(1, str(1, 't'), int(8, 5))), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'proto: wrong wireType = 0 for field CreationTimestamp') },
  { name: 'a Time\'s seconds of the wrong wire type', method: 'POST', path: configMaps, body: configMap(msg(1, str(1, 't'), msg(8, str(1, 'x')))), status: 400,
    message: cannotHandle('ConfigMap', 'v1', 'ConfigMap', 'proto: wrong wireType = 2 for field Seconds') },
  { name: 'an IntOrString\'s intVal of the wrong wire type', method: 'POST', path: (ns) => `/api/v1/namespaces/${ns}/services`,
    body: envelope('v1', 'Service', named('s'), msg(2, msg(1, int(3, 80), msg(4, str(2, 'x'))))), status: 400,
    message: cannotHandle('Service', 'v1', 'Service', 'proto: wrong wireType = 2 for field IntVal') },

  // Subresources: the kind the subresource takes is the one named.
  { name: 'status: a broken body', method: 'PUT', path: (ns) => `${deployment(ns)}/status`, body: truncated, status: 400, message: unrecognized('Deployment', 'unexpected EOF', '6b3873000a05') },
  { name: 'scale: a broken body', method: 'PUT', path: (ns) => `${deployment(ns)}/scale`, body: truncated, status: 400, message: unrecognized('Scale', 'unexpected EOF', '6b3873000a05') },
  { name: 'scale: an envelope without apiVersion or kind is autoscaling/v1 Scale', method: 'PUT', path: (ns) => `${deployment(ns)}/scale?dryRun=All`,
    body: envelope('', '', named('d'), msg(2, int(1, 4))), status: 200, check: (scale) => assert.deepEqual([scale.kind, scale.spec.replicas], ['Scale', 4]) },
  { name: 'scale: a field of the wrong wire type', method: 'PUT', path: (ns) => `${deployment(ns)}/scale`, body: envelope('autoscaling/v1', 'Scale', named('d'), msg(2, str(1, 'x'))), status: 400,
    message: cannotHandle('Scale', 'v1', 'Scale', 'proto: wrong wireType = 2 for field Replicas') },
  { name: 'binding: a broken body', method: 'POST', path: (ns) => `${pods(ns)}/p/binding`, body: truncated, status: 400, message: unrecognized('Binding', 'unexpected EOF', '6b3873000a05') },
  { name: 'eviction: a broken body', method: 'POST', path: (ns) => `${pods(ns)}/p/eviction`, body: truncated, status: 400, message: unrecognized('Eviction', 'unexpected EOF', '6b3873000a05') },
  { name: 'eviction: an envelope without apiVersion or kind is policy/v1 Eviction', method: 'POST', path: (ns) => `${pods(ns)}/p/eviction?dryRun=All`, body: envelope('', '', named('p')), status: 201 },
  { name: 'token request: a broken body', method: 'POST', path: (ns) => `/api/v1/namespaces/${ns}/serviceaccounts/default/token`, body: truncated, status: 400,
    message: unrecognized('TokenRequest', 'unexpected EOF', '6b3873000a05') },

  // PATCH takes patches, which have no Protobuf form.
  { name: 'PATCH of a built-in type: go-restful\'s 415', method: 'PATCH', path: (ns) => `${configMaps(ns)}/c`, body: configMap(named('c')), status: 415, reason: 'UnsupportedMediaType', message: '415: Unsupported Media Type' },
  { name: 'PATCH of a custom resource: its handler\'s 415 naming the patch types', method: 'PATCH', path: (ns) => `${widgets(ns)}/w`, body: envelope(`${group}/v1`, 'Widget', named('w')), status: 415, reason: 'UnsupportedMediaType',
    message: 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml' },

  // Custom resources: their handler's Protobuf decoder gets an Unstructured it cannot type.
  { name: 'custom resource: create', method: 'POST', path: widgets, body: envelope(`${group}/v1`, 'Widget', named('x')), status: 400,
    message: cannotHandle('Widget', 'v1', 'Widget', "Object 'Kind' is missing in 'object has no kind field '") },
  { name: 'custom resource: an envelope without apiVersion or kind is the URL\'s', method: 'POST', path: widgets, body: envelope('', '', named('x')), status: 400,
    message: cannotHandle('Widget', 'v1', 'Widget', "Object 'Kind' is missing in 'object has no kind field '") },
  { name: 'custom resource: update', method: 'PUT', path: (ns) => `${widgets(ns)}/w`, body: envelope(`${group}/v1`, 'Widget', named('w')), status: 400,
    message: cannotHandle('Widget', 'v1', 'Widget', "Object 'Kind' is missing in 'object has no kind field '") },
  { name: 'custom resource: status', method: 'PUT', path: (ns) => `${widgets(ns)}/w/status`, body: envelope(`${group}/v1`, 'Widget', named('w')), status: 400,
    message: cannotHandle('Widget', 'v1', 'Widget', "Object 'Kind' is missing in 'object has no kind field '") },
  { name: 'custom resource: a broken body fails on its envelope first', method: 'POST', path: widgets, body: Buffer.from([1, 2, 3]), status: 400,
    message: unrecognized('Widget', 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]', '010203') },
  { name: 'custom resource: scale is an autoscaling/v1 Scale, which has Protobuf', method: 'PUT', path: (ns) => `${widgets(ns)}/w/scale?dryRun=All`,
    body: envelope('autoscaling/v1', 'Scale', named('w'), msg(2, int(1, 3))), status: 200, check: (scale) => assert.equal(scale.spec.replicas, 3) },
];

describe('bad Protobuf request bodies', () => {
  let server: TestServer;
  let ns: string;
  before(async () => {
    server = await startServer();
    ns = await server.newNamespace('pb-bad');
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{
          name: 'v1', served: true, storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        }],
      },
    };
    assert.equal((await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd })).status, 201);
    const created = await Promise.all([
      server.request('POST', configMaps(ns), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } }),
      server.request('POST', pods(ns), { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } } }),
      server.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
        raw: Buffer.from(encodeProtobufObject({
          apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
          spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
        } as never)),
        headers: { 'content-type': protobuf },
      }),
    ]);
    for (const res of created) assert.equal(res.status, 201, res.text);
    for (let i = 0; ; i++) {
      const res = await server.request('POST', widgets(ns), { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1 } } });
      if (res.status === 201) break;
      assert.ok(i < 100, `the custom resource is not served: ${res.status} ${res.text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  after(async () => {
    await server?.stop();
  });

  for (const row of rows) {
    test(`${row.name}: ${row.status}`, async () => {
      const res = await server.request(row.method, row.path(ns), { raw: row.body, headers: { 'content-type': protobuf } });
      assert.equal(res.status, row.status, res.text);
      if (row.status >= 400) {
        assert.equal(res.json?.kind, 'Status', res.text);
        assert.equal(res.json.reason, row.reason ?? (row.status === 422 ? 'Invalid' : 'BadRequest'));
        if (typeof row.message === 'string') assert.equal(res.json.message, row.message);
        else if (row.message !== undefined) {
          const asJson = await server.request(row.method, row.path(ns), { body: row.message.asJson });
          assert.equal(asJson.status, row.status, asJson.text);
          assert.equal(res.json.message, asJson.json.message);
        }
      }
      row.check?.(res.json);
    });
  }

  test('nothing a refused body asked for was written', async () => {
    const list = await server.request('GET', configMaps(ns));
    assert.deepEqual(list.json.items.map((cm: any) => cm.metadata.name), ['c']);
    const scale = await server.request('GET', `${deployment(ns)}/scale`);
    assert.equal(scale.json.spec.replicas, 1);
    const widgetList = await server.request('GET', widgets(ns));
    assert.deepEqual(widgetList.json.items.map((w: any) => [w.metadata.name, w.spec.replicas]), [['w', 1]]);
  });
});
