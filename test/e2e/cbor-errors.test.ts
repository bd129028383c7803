// CBOR request bodies refused in kube-apiserver's words (the CBORServingAndStorage gate on):
// decoding into a built-in type's Go struct is fxamacker/cbor's, which names the first
// failure in the body whatever its kind (integers out of range, IntOrString, Quantity and
// Time decoding themselves), and strict field validation names an unknown field by its
// index in its map. Custom resources decode into plain data: their unknown fields keep
// their paths.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../../src/cli/config.ts';
import { EncodedCbor, encodeCbor } from '../../src/encoding/cbor.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const cbor = 'application/cbor';
const handled = (kind: string, error: string) => `${kind} in version "v1" cannot be handled as a ${kind}: ${error}`;
const inSpec = (what: string) => handled('Deployment', `cbor: cannot unmarshal ${what.replace(' of type ', ' into Go struct field v1.Deployment.spec of type ')}`);

let server: TestServer;
before(async () => {
  server = await startServer({ featureGates: { ...defaultConfig().featureGates, CBORServingAndStorage: true } });
});
after(async () => {
  await server.stop();
});

/** Sends `value` as a CBOR body; encodeCbor writes keys shorter first, then bytewise, as Kubernetes' encoders do. */
function send(method: string, path: string, value: unknown) {
  return server.request(method, path, { raw: Buffer.from(encodeCbor(value)), headers: { 'content-type': cbor } });
}

function deployment(spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' },
    spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, ...spec },
    ...extra,
  };
}

function withLimits(limits: Record<string, unknown>) {
  return deployment({ template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits } }] } } });
}

describe('decoding failures: fxamacker/cbor\'s words, the first in the body', () => {
  test('an integer beyond an int32 overflows it, in a create and in an update', async () => {
    const ns = await server.newNamespace('cbor-errors');
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await send('POST', path, deployment({ replicas: 3_000_000_000 }));
    assert.equal(created.status, 400, created.text);
    assert.equal(created.json.reason, 'BadRequest');
    assert.equal(created.json.message, inSpec('positive integer of type int32 (3000000000 overflows int32)'));
    assert.equal((await send('POST', path, deployment({ replicas: 1 }))).status, 201);
    const updated = await send('PUT', `${path}/d`, deployment({ replicas: -3_000_000_000 }));
    assert.equal(updated.status, 400, updated.text);
    assert.equal(updated.json.message, inSpec('negative integer of type int32 (-3000000000 overflows int32)'));
  });

  test('a float item holding an integer (2.0) is no int32: fillFloat\'s refusal, where JSON-shaped data reads 2', async () => {
    const ns = await server.newNamespace('cbor-errors');
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    // encodeCbor writes 2 as an integer: 1.5 is written as a half float (f9 3e 00), made 2.0 (f9 40 00).
    const bytes = Buffer.from(encodeCbor(deployment({ replicas: 1.5 })));
    const at = bytes.indexOf(Buffer.from([0xf9, 0x3e, 0x00]));
    assert.ok(at > 0);
    bytes[at + 1] = 0x40;
    const res = await server.request('POST', path, { raw: bytes, headers: { 'content-type': cbor } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, inSpec('primitives of type int32'));
    assert.equal((await send('POST', path, deployment({ replicas: 2 }))).status, 201, 'an integer item is taken');
  });

  test('metadata of the wrong type is named by the object\'s struct, in CBOR\'s words; a custom resource\'s keeps JSON\'s', async () => {
    const ns = await server.newNamespace('cbor-errors');
    const res = await send('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment({}, { metadata: { name: 'd', labels: { app: 7 } } }));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, handled('Deployment', 'cbor: cannot unmarshal positive integer into Go struct field v1.Deployment.metadata of type string'));
    const cm = await send('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 7 } });
    assert.equal(cm.json.message, handled('ConfigMap', 'cbor: cannot unmarshal positive integer into Go struct field v1.ConfigMap.metadata of type string'));
  });

  test('a float for an integer is a primitive', async () => {
    const ns = await server.newNamespace('cbor-errors');
    const res = await send('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment({ replicas: 1.5 }));
    assert.equal(res.json.message, inSpec('primitives of type int32'));
  });

  test('IntOrString decodes itself as an int32, named by the outermost field', async () => {
    const ns = await server.newNamespace('cbor-errors');
    const service = await send('POST', `/api/v1/namespaces/${ns}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort: true }] } });
    assert.equal(service.status, 400, service.text);
    assert.equal(service.json.message, handled('Service', 'cbor: cannot unmarshal primitives into Go struct field v1.Service.spec of type int32'));
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const rollingUpdate = (maxSurge: unknown) => deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge } } });
    assert.equal((await send('POST', path, rollingUpdate({ a: 1 }))).json.message, inSpec('map of type int32'));
    assert.equal((await send('POST', path, rollingUpdate(3_000_000_000))).json.message, inSpec('positive integer of type int32 (3000000000 overflows int32)'));
    assert.equal((await send('POST', path, rollingUpdate('25%'))).status, 201);
  });

  test('Quantity and Time decode a string: another item is no string, a bad string fails their parse', async () => {
    const ns = await server.newNamespace('cbor-errors');
    const path = `/apis/apps/v1/namespaces/${ns}/deployments?dryRun=All`;
    const bool = await send('POST', path, withLimits({ cpu: true }));
    assert.equal(bool.status, 400, bool.text);
    assert.equal(bool.json.message, inSpec('primitives of type string'));
    const unparsed = await send('POST', path, withLimits({ cpu: 'abc' }));
    assert.equal(unparsed.json.message, handled('Deployment', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"));
    const time = await send('POST', path, deployment({}, { status: { conditions: [{ type: 'Available', status: 'True', lastUpdateTime: 5 }] } }));
    assert.equal(time.status, 400, time.text);
    assert.equal(time.json.message, handled('Deployment', 'cbor: cannot unmarshal positive integer into Go struct field v1.Deployment.status of type string'));
  });

  test('the body\'s first failure, whatever its kind (JSON\'s decoder stops at an IntOrString\'s)', async () => {
    const ns = await server.newNamespace('cbor-errors');
    // spec's keys: paused, selector, strategy, template.
    const res = await send('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, deployment({ paused: 1, strategy: { rollingUpdate: { maxSurge: true } } }));
    assert.equal(res.json.message, inSpec('positive integer of type bool'));
  });
});

describe('strict field validation: the unknown field by its index in its map', () => {
  // spec's keys: replicas, selector, template, zzzzzzzzzzz.
  const unknown = deployment({ replicas: 1, zzzzzzzzzzz: 1 });

  test('Strict refuses it; Warn warns of it; Ignore says nothing', async () => {
    const ns = await server.newNamespace('cbor-errors');
    const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const strict = await send('POST', `${path}?fieldValidation=Strict`, unknown);
    assert.equal(strict.status, 400, strict.text);
    assert.equal(strict.json.message, handled('Deployment', 'strict decoding error: cbor: found unknown field at map element index 3'));
    const warned = await send('POST', `${path}?fieldValidation=Warn`, unknown);
    assert.equal(warned.status, 201, warned.text);
    assert.equal(warned.headers.warning, '299 - "cbor: found unknown field at map element index 3"');
    assert.equal(warned.json.spec.zzzzzzzzzzz, undefined);
    const ignored = await send('PUT', `${path}/d?fieldValidation=Ignore`, unknown);
    assert.equal(ignored.status, 200, ignored.text);
    assert.equal(ignored.headers.warning, undefined);
  });

  test('a value the Go type cannot take fails first; a map\'s own unknown key wins over one deeper', async () => {
    const ns = await server.newNamespace('cbor-errors');
    const path = `/apis/apps/v1/namespaces/${ns}/deployments?fieldValidation=Strict`;
    const typed = await send('POST', path, deployment({ replicas: new EncodedCbor(Buffer.from('f94000', 'hex')), zzzzzzzzzzz: 1 }));
    assert.equal(typed.json.message, inSpec('primitives of type int32'));
    // The root's keys: kind, spec, metadata, apiVersion, zzzzzzzzzzzzz.
    const root = await send('POST', path, deployment({ bogus: 1 }, { zzzzzzzzzzzzz: 1 }));
    assert.equal(root.json.message, handled('Deployment', 'strict decoding error: cbor: found unknown field at map element index 4'));
  });

  test('the index is the body\'s, whatever decoding leaves out before it', async () => {
    const ns = await server.newNamespace('cbor-errors');
    // spec's keys: paused (false: Go's omitempty leaves it out), selector, template, zzzzzzzzzzz.
    const res = await send('POST', `/apis/apps/v1/namespaces/${ns}/deployments?fieldValidation=Warn`, deployment({ paused: false, zzzzzzzzzzz: 1 }));
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.warning, '299 - "cbor: found unknown field at map element index 3"');
  });

  test('custom resources decode into plain data: their unknown fields keep their paths', async () => {
    const group = 'cbor-errors.example.com';
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
      spec: {
        group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
      },
    };
    assert.equal((await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    const ns = await server.newNamespace('cbor-errors');
    const res = await eventually(async () => {
      const answer = await send('POST', `/apis/${group}/v1/namespaces/${ns}/widgets?fieldValidation=Strict`, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1, bogus: 1 } });
      assert.notEqual(answer.status, 404, answer.text);
      return answer;
    });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, handled('Widget', 'strict decoding error: unknown field "spec.bogus"'));
  });
});
