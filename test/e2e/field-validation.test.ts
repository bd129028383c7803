// fieldValidation on POST, PUT, merge and JSON PATCH (Ignore, Warn, Strict) with JSON and YAML
// bodies, duplicate fields, Warning headers, and schema type errors, through real HTTPS
// and kubectl 1.33.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '../helpers/server.ts';
import { warningsOf as warnings } from '../helpers/answers.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const newNamespace = () => server.newNamespace('fv');

function deployment(name: string, extra: { spec?: Record<string, unknown>; container?: Record<string, unknown> } = {}) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx', ...extra.container }] } },
      ...extra.spec,
    },
  };
}

const deploymentsPath = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;
const json = { 'content-type': 'application/json' };
const yaml = { 'content-type': 'application/yaml' };
const mergePatch = { 'content-type': 'application/merge-patch+json' };

describe('create', () => {
  test('Warn (the default) drops unknown fields and warns once per field, in document order', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', deploymentsPath(ns), { body: deployment('d', { spec: { foo: 1 }, container: { bar: true } }) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(warnings(res), ['unknown field "spec.template.spec.containers[0].bar"', 'unknown field "spec.foo"']);
    assert.equal(res.json.spec.foo, undefined);
    const stored = (await server.request('GET', `${deploymentsPath(ns)}/d`)).json;
    assert.equal(stored.spec.foo, undefined);
    assert.equal(stored.spec.template.spec.containers[0].bar, undefined);
  });

  test('Ignore drops unknown fields without a word', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `${deploymentsPath(ns)}?fieldValidation=Ignore`, { body: deployment('d', { spec: { foo: 1 } }) });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.warning, undefined);
    assert.equal(res.json.spec.foo, undefined);
  });

  test('Strict refuses unknown fields with 400, listing every one, and stores nothing', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `${deploymentsPath(ns)}?fieldValidation=Strict`, { body: deployment('d', { spec: { foo: 1 }, container: { bar: true } }) });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.reason, 'BadRequest');
    assert.equal(res.json.message,
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].bar", unknown field "spec.foo"');
    assert.equal((await server.request('GET', `${deploymentsPath(ns)}/d`)).status, 404);
  });

  test('Strict refuses unknown metadata fields', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, { body: { metadata: { name: 'c', colour: 'red' } } });
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.message, /strict decoding error: unknown field "metadata.colour"$/);
  });

  test('Strict with a valid body creates', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `${deploymentsPath(ns)}?fieldValidation=Strict`, { body: deployment('d') });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.headers.warning, undefined);
  });

  test('duplicate JSON fields: Warn warns (the last one wins), Strict refuses', async () => {
    const ns = await newNamespace();
    const raw = (name: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"1","b":"2","a":"3"}}`;
    const warned = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { raw: raw('w'), headers: json });
    assert.equal(warned.status, 201, warned.text);
    assert.deepEqual(warnings(warned), ['duplicate field "data.a"']);
    assert.deepEqual(warned.json.data, { a: '3', b: '2' });
    const strict = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, { raw: raw('s'), headers: json });
    assert.equal(strict.status, 400, strict.text);
    assert.equal(strict.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a"');
    const ignored = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Ignore`, { raw: raw('i'), headers: json });
    assert.equal(ignored.status, 201, ignored.text);
    assert.equal(ignored.headers.warning, undefined);
  });

  test('YAML bodies: unknown and duplicate fields, every one listed under Strict', async () => {
    const ns = await newNamespace();
    const body = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: yaml', 'data:', '  a: "1"', '  a: "2"', 'extra: true', ''].join('\n');
    const strict = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, { raw: body, headers: yaml });
    assert.equal(strict.status, 400, strict.text);
    assert.equal(strict.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.a", unknown field "extra"');
    const warned = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Warn`, { raw: body, headers: yaml });
    assert.equal(warned.status, 201, warned.text);
    assert.deepEqual(warnings(warned), ['duplicate field "data.a"', 'unknown field "extra"']);
    assert.deepEqual(warned.json.data, { a: '2' });
  });

  test('an unknown fieldValidation value is 422', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Bogus`, { body: { metadata: { name: 'c' } } });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.reason, 'Invalid');
    assert.deepEqual(res.json.details.causes, [{
      reason: 'FieldValueNotSupported', field: 'fieldValidation', message: 'Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"',
    }]);
  });
});

describe('update', () => {
  test('Warn, Ignore and Strict on PUT', async () => {
    const ns = await newNamespace();
    const created = (await server.request('POST', deploymentsPath(ns), { body: deployment('d') })).json;
    const changed = { ...created, spec: { ...created.spec, replicas: 2, foo: 'bar' } };
    const warned = await server.request('PUT', `${deploymentsPath(ns)}/d`, { body: changed });
    assert.equal(warned.status, 200, warned.text);
    assert.deepEqual(warnings(warned), ['unknown field "spec.foo"']);
    assert.equal(warned.json.spec.replicas, 2);
    assert.equal(warned.json.spec.foo, undefined);

    const again = { ...warned.json, spec: { ...warned.json.spec, replicas: 3, foo: 'bar' } };
    const strict = await server.request('PUT', `${deploymentsPath(ns)}/d?fieldValidation=Strict`, { body: again });
    assert.equal(strict.status, 400, strict.text);
    assert.equal(strict.json.message, 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"');
    assert.equal((await server.request('GET', `${deploymentsPath(ns)}/d`)).json.spec.replicas, 2);

    const ignored = await server.request('PUT', `${deploymentsPath(ns)}/d?fieldValidation=Ignore`, { body: again });
    assert.equal(ignored.status, 200, ignored.text);
    assert.equal(ignored.headers.warning, undefined);
    assert.equal(ignored.json.spec.replicas, 3);
  });

  test('a YAML PUT with a duplicate field under Strict is 400', async () => {
    const ns = await newNamespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' } } });
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  name: c\n';
    const res = await server.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c?fieldValidation=Strict`, { raw: body, headers: yaml });
    assert.equal(res.status, 400, res.text);
    assert.match(res.json.message, /strict decoding error: duplicate field "metadata.name"$/);
  });

  test('an unknown fieldValidation value on PUT is 422', async () => {
    const ns = await newNamespace();
    const res = await server.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c?fieldValidation=strict`, { body: { metadata: { name: 'c' } } });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.details.causes[0].field, 'fieldValidation');
  });
});

describe('merge patch', () => {
  test('Warn drops and warns; Ignore drops silently', async () => {
    const ns = await newNamespace();
    await server.request('POST', deploymentsPath(ns), { body: deployment('d') });
    const warned = await server.request('PATCH', `${deploymentsPath(ns)}/d`, { raw: '{"spec":{"replicas":4,"foo":1}}', headers: mergePatch });
    assert.equal(warned.status, 200, warned.text);
    assert.deepEqual(warnings(warned), ['unknown field "spec.foo"']);
    assert.equal(warned.json.spec.replicas, 4);
    assert.equal(warned.json.spec.foo, undefined);
    const ignored = await server.request('PATCH', `${deploymentsPath(ns)}/d?fieldValidation=Ignore`, { raw: '{"spec":{"replicas":5,"foo":1}}', headers: mergePatch });
    assert.equal(ignored.status, 200, ignored.text);
    assert.equal(ignored.headers.warning, undefined);
    assert.equal(ignored.json.spec.replicas, 5);
  });

  test('Strict refuses with 422 naming the patched object, as upstream\'s patcher', async () => {
    const ns = await newNamespace();
    await server.request('POST', deploymentsPath(ns), { body: deployment('d') });
    const res = await server.request('PATCH', `${deploymentsPath(ns)}/d?fieldValidation=Strict`, {
      raw: '{"spec":{"replicas":4,"foo":1,"template":{"spec":{"containers":[{"name":"c","image":"i","bar":2}]}}}}', headers: mergePatch,
    });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.reason, 'Invalid');
    const [cause] = res.json.details.causes;
    assert.equal(cause.field, 'patch');
    assert.equal(cause.reason, 'FieldValueInvalid');
    assert.match(cause.message, /^Invalid value: "\{.*\\"foo\\":1.*\}": strict decoding error: unknown field "spec\.template\.spec\.containers\[0\]\.bar", unknown field "spec\.foo"$/);
    assert.match(res.json.message, /^ "" is invalid: patch: Invalid value: /);
    assert.equal((await server.request('GET', `${deploymentsPath(ns)}/d`)).json.spec.replicas, 1);
  });

  test('duplicate fields in the patch: warned under Warn, refused under Strict', async () => {
    const ns = await newNamespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' } } });
    const raw = '{"data":{"k":"1","k":"2"}}';
    const warned = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c`, { raw, headers: mergePatch });
    assert.equal(warned.status, 200, warned.text);
    assert.deepEqual(warnings(warned), ['duplicate field "data.k"']);
    assert.deepEqual(warned.json.data, { k: '2' });
    const strict = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c?fieldValidation=Strict`, { raw, headers: mergePatch });
    assert.equal(strict.status, 422, strict.text);
    assert.match(strict.json.details.causes[0].message, /strict decoding error: duplicate field "data\.k"$/);
  });

  test('an unknown fieldValidation value on PATCH is 422', async () => {
    const ns = await newNamespace();
    const res = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c?fieldValidation=Loud`, { raw: '{}', headers: mergePatch });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.details.kind, 'PatchOptions');
  });
});

describe('JSON patch', () => {
  const jsonPatch = { 'content-type': 'application/json-patch+json' };
  // Upstream's field validation integration test's JSON patch: an unknown member in the
  // first operation, a duplicate path in the second, then unknown fields in the result.
  const ops = `[
    {"op": "add", "path": "/spec/unknown1", "value": "val1", "foo":"bar"},
    {"op": "add", "path": "/spec/unknown2", "path": "/spec/unknown3", "value": "val1"},
    {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe"},
    {"op": "add", "path": "/spec/unknownDupe", "value": "valDupe2"},
    {"op": "add", "path": "/spec/paused", "value": true},
    {"op": "add", "path": "/spec/paused", "value": false},
    {"op": "add", "path": "/spec/template/spec/containers/0/unknownNested", "value": "val1"},
    {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Always"},
    {"op": "add", "path": "/spec/template/spec/containers/0/imagePullPolicy", "value": "Never"}
  ]`;
  const expected = [
    'json patch unknown field "[0].foo"',
    'json patch duplicate field "[1].path"',
    'unknown field "spec.template.spec.containers[0].unknownNested"',
    'unknown field "spec.unknown1"',
    'unknown field "spec.unknown3"',
    'unknown field "spec.unknownDupe"',
  ];

  test('the operations\' own unknown and duplicate members are warned of first, under Warn and by default', async () => {
    const ns = await newNamespace();
    await server.request('POST', deploymentsPath(ns), { body: deployment('d') });
    for (const query of ['', '?fieldValidation=Warn']) {
      const res = await server.request('PATCH', `${deploymentsPath(ns)}/d${query}`, { raw: ops, headers: jsonPatch });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(warnings(res), expected);
      assert.equal(res.json.spec.paused, undefined); // false, omitted as Go omits it
      assert.equal(res.json.spec.template.spec.containers[0].imagePullPolicy, 'Never');
    }
    const ignored = await server.request('PATCH', `${deploymentsPath(ns)}/d?fieldValidation=Ignore`, { raw: ops, headers: jsonPatch });
    assert.equal(ignored.status, 200, ignored.text);
    assert.deepEqual(warnings(ignored), []);
  });

  test('Strict refuses with 422 on the patch, the operations\' errors before the object\'s', async () => {
    const ns = await newNamespace();
    await server.request('POST', deploymentsPath(ns), { body: deployment('d') });
    const res = await server.request('PATCH', `${deploymentsPath(ns)}/d?fieldValidation=Strict`, { raw: ops, headers: jsonPatch });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.details.causes[0].field, 'patch');
    assert.ok(res.json.details.causes[0].message.endsWith(`: strict decoding error: ${expected.join(', ')}`), res.json.details.causes[0].message);
    assert.equal((await server.request('GET', `${deploymentsPath(ns)}/d`)).json.spec.paused, undefined);
  });

  test('an operation\'s members are matched case-sensitively; keys twice in a value are duplicates, an unknown member twice is said once', async () => {
    const ns = await newNamespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' } } });
    const raw = '[{"op":"add","path":"/data","value":{"k":"1","k":"2"},"Op":"x","extra":1,"extra":2}]';
    const warned = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c`, { raw, headers: jsonPatch });
    assert.equal(warned.status, 200, warned.text);
    assert.deepEqual(warnings(warned), ['json patch duplicate field "[0].value.k"', 'json patch unknown field "[0].Op"', 'json patch unknown field "[0].extra"']);
    assert.deepEqual(warned.json.data, { k: '2' });
  });

  test('through /scale the same', async () => {
    const ns = await newNamespace();
    await server.request('POST', deploymentsPath(ns), { body: deployment('d') });
    const raw = '[{"op":"replace","path":"/spec/replicas","value":3,"foo":1}]';
    const warned = await server.request('PATCH', `${deploymentsPath(ns)}/d/scale`, { raw, headers: jsonPatch });
    assert.equal(warned.status, 200, warned.text);
    assert.deepEqual(warnings(warned), ['json patch unknown field "[0].foo"']);
    const strict = await server.request('PATCH', `${deploymentsPath(ns)}/d/scale?fieldValidation=Strict`, { raw, headers: jsonPatch });
    assert.equal(strict.status, 422, strict.text);
    assert.match(strict.json.details.causes[0].message, /strict decoding error: json patch unknown field "\[0\]\.foo"$/);
  });
});

describe('strategic merge patch', () => {
  const strategicPatch = { 'content-type': 'application/strategic-merge-patch+json' };

  test('Strict refuses with 422 naming the patch as Go prints the decoded map, as upstream\'s applyPatchToObject', async () => {
    const ns = await newNamespace();
    await server.request('POST', deploymentsPath(ns), { body: deployment('d') });
    const res = await server.request('PATCH', `${deploymentsPath(ns)}/d?fieldValidation=Strict`, { raw: '{"spec":{"replicas":4,"foo":"x y"}}', headers: strategicPatch });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.message, ' "" is invalid: patch: Invalid value: "map[spec:map[foo:x y replicas:4]]": strict decoding error: unknown field "spec.foo"');
    assert.deepEqual(res.json.details.causes, [{
      reason: 'FieldValueInvalid', field: 'patch', message: 'Invalid value: "map[spec:map[foo:x y replicas:4]]": strict decoding error: unknown field "spec.foo"',
    }]);
  });

  test('a body that is not JSON is 400 in Go\'s words, without the "error decoding patch" of the other types', async () => {
    const ns = await newNamespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' } } });
    const strategic = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c`, { raw: '{bad json', headers: strategicPatch });
    assert.equal(strategic.status, 400, strategic.text);
    assert.equal(strategic.json.message, "invalid character 'b' looking for beginning of object key string");
    const merge = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c`, { raw: '{bad json', headers: mergePatch });
    assert.equal(merge.json.message, "error decoding patch: invalid character 'b' looking for beginning of object key string");
    const ignored = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c?fieldValidation=Ignore`, { raw: '{bad json', headers: mergePatch });
    assert.equal(ignored.json.message, 'Invalid JSON Patch');
  });

  test('through /scale the same: the directive words a body that is not JSON, Strict names the strategic patch', async () => {
    const ns = await newNamespace();
    await server.request('POST', deploymentsPath(ns), { body: deployment('d') });
    const scale = `${deploymentsPath(ns)}/d/scale`;
    const ignored = await server.request('PATCH', `${scale}?fieldValidation=Ignore`, { raw: '{bad json', headers: mergePatch });
    assert.equal(ignored.status, 400, ignored.text);
    assert.equal(ignored.json.message, 'Invalid JSON Patch');
    const strict = await server.request('PATCH', `${scale}?fieldValidation=Strict`, { raw: '{"spec":{"replicas":2,"foo":1}}', headers: strategicPatch });
    assert.equal(strict.status, 422, strict.text);
    assert.equal(strict.json.details.causes[0].message, 'Invalid value: "map[spec:map[foo:1 replicas:2]]": strict decoding error: unknown field "spec.foo"');
  });
});

describe('type validation', () => {
  // Decoding into the Go type fails on a value of another kind, before anything validates
  // it: 400 in the decoder's words, its first error in the body's order (upstream's
  // create and update handlers' transformDecodeError).
  const decodeError = (kind: string, error: string) => `${kind} in version "v1" cannot be handled as a ${kind}: ${error}`;

  test('a string in an integer field is 400, as Go\'s decoding answers it', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', deploymentsPath(ns), { body: deployment('d', { spec: { replicas: 'three' } }) });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.reason, 'BadRequest');
    assert.equal(res.json.message, decodeError('Deployment', 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'));
  });

  test('the first type error in the body is named: struct, path without indices, Go type', async () => {
    const ns = await newNamespace();
    const cases: [unknown, string][] = [
      [{ containers: [{ name: 'c', image: 'i', ports: [{ containerPort: '80' }] }], hostNetwork: 'yes' },
        'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'],
      [{ hostNetwork: 'yes', containers: [{ name: 'c', image: 'i', ports: [{ containerPort: '80' }] }] },
        'json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool'],
      [{ containers: [{ name: 'c', image: 'i', env: [{ name: 'A', value: 1 }] }] },
        'json: cannot unmarshal number into Go struct field EnvVar.spec.containers.env.value of type string'],
      [{ containers: [{ name: 'c', image: 'i', args: 'x' }] }, 'json: cannot unmarshal string into Go struct field Container.spec.containers.args of type []string'],
      [{ containers: ['c'] }, 'json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type v1.Container'],
      [{ containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 1.5 }] }] },
        'json: cannot unmarshal number 1.5 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'],
      [{ containers: [{ name: 'c', image: 'i', resources: { limits: 'x' } }] },
        'json: cannot unmarshal string into Go struct field ResourceRequirements.spec.containers.resources.limits of type v1.ResourceList'],
      [{ containers: [{ name: 'c', image: 'i' }], nodeSelector: { a: true } }, 'json: cannot unmarshal bool into Go struct field PodSpec.spec.nodeSelector of type string'],
      // Named types by their names, as Go's reflect prints them.
      [{ containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, protocol: 6 }] }] },
        'json: cannot unmarshal number into Go struct field ContainerPort.spec.containers.ports.protocol of type v1.Protocol'],
      [{ containers: [{ name: 'c', image: 'i', imagePullPolicy: true }] },
        'json: cannot unmarshal bool into Go struct field Container.spec.containers.imagePullPolicy of type v1.PullPolicy'],
      [{ containers: [{ name: 'c', image: 'i', securityContext: { capabilities: { drop: 'ALL' } } }] },
        'json: cannot unmarshal string into Go struct field Capabilities.spec.containers.securityContext.capabilities.drop of type []v1.Capability'],
      // Quantity decodes itself: any JSON but a string or a number fails its parse.
      [{ containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: true } } }] },
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"],
    ];
    for (const [spec, error] of cases) {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'p' }, spec } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.message, decodeError('Pod', error));
    }
  });

  test('a null in a list or a map is the zero value Go decodes it to', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', args: ['a', null], ports: [null] }] } },
    });
    // The zero ContainerPort has no port: the type's own validation says so.
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.details.causes.map((c: { field: string }) => c.field), ['spec.containers[0].ports[0].containerPort']);
    const ok = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', args: ['a', null] }], nodeSelector: { a: null } } },
    });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(ok.json.spec.containers[0].args, ['a', '']);
    assert.deepEqual(ok.json.spec.nodeSelector, { a: '' });
    const configMap = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' }, data: { a: null, b: 'x' } } });
    assert.equal(configMap.status, 201, configMap.text);
    assert.deepEqual(configMap.json.data, { a: '', b: 'x' });
  });

  test('a type error fails decoding before the type\'s own validation runs', async () => {
    const ns = await newNamespace();
    const body = deployment('d', { spec: { replicas: 'x' } });
    body.spec.template.metadata.labels = { app: 'other' };
    const res = await server.request('POST', deploymentsPath(ns), { body });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, decodeError('Deployment', 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'));
  });

  test('a required field the strategy reports is listed once', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'p' }, spec: {} } });
    assert.equal(res.status, 422, res.text);
    const fields = res.json.details.causes.map((c: { field: string }) => c.field);
    assert.deepEqual(fields.filter((f: string) => f === 'spec.containers'), ['spec.containers']);
  });

  test('required fields from the schema: a Deployment without selector and template', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', deploymentsPath(ns), { body: { metadata: { name: 'd' }, spec: {} } });
    assert.equal(res.status, 422, res.text);
    const causes = res.json.details.causes.map((c: { field: string; reason: string }) => `${c.field} ${c.reason}`);
    assert.ok(causes.includes('spec.selector FieldValueRequired'), causes.join('\n'));
    assert.equal(causes.filter((c: string) => c.startsWith('spec.selector ')).length, 1, causes.join('\n'));
  });

  test('a type error through PUT is 400; through a merge patch 422 on the patched object (upstream\'s patcher)', async () => {
    const ns = await newNamespace();
    const created = (await server.request('POST', deploymentsPath(ns), { body: deployment('d') })).json;
    const put = await server.request('PUT', `${deploymentsPath(ns)}/d`, { body: { ...created, spec: { ...created.spec, paused: 'no' } } });
    assert.equal(put.status, 400, put.text);
    assert.equal(put.json.message, decodeError('Deployment', 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool'));
    const patch = await server.request('PATCH', `${deploymentsPath(ns)}/d`, { raw: '{"spec":{"minReadySeconds":{"s":1}}}', headers: mergePatch });
    assert.equal(patch.status, 422, patch.text);
    assert.equal(patch.json.details.causes.length, 1);
    assert.equal(patch.json.details.causes[0].field, 'patch');
    assert.match(patch.json.details.causes[0].message, /: json: cannot unmarshal object into Go struct field DeploymentSpec\.spec\.minReadySeconds of type int32$/);
  });

  test('kubectl\'s creationTimestamp: null and other nulls in optional fields are fine', async () => {
    const ns = await newNamespace();
    const body = deployment('d', { spec: { strategy: null, replicas: null } });
    (body.metadata as Record<string, unknown>).creationTimestamp = null;
    const res = await server.request('POST', `${deploymentsPath(ns)}?fieldValidation=Strict`, { body });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.spec.replicas, 1);
  });
});

describe('what the server stores', () => {
  // A field a strategy sets but the schema lacks would be an unknown field in every later
  // Strict patch: the server's own objects must pass their schema.
  test('a Strict merge patch and a Strict PUT of what was stored succeed for every kind', async () => {
    const ns = await newNamespace();
    const objects: [string, Record<string, unknown>][] = [
      [`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'c' }, data: { a: 'b' }, binaryData: { b: 'AQI=' } }],
      [`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: 's' }, stringData: { a: 'b' } }],
      [`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'sa' } }],
      [`/api/v1/namespaces/${ns}/services`, { metadata: { name: 'svc' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } }],
      [`/api/v1/namespaces/${ns}/pods`, { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }], livenessProbe: { grpc: { port: 1 } } }] } }],
      [`/api/v1/namespaces/${ns}/endpoints`, { metadata: { name: 'e' }, subsets: [{ addresses: [{ ip: '10.1.1.1' }], ports: [{ port: 80 }] }] }],
      [`/api/v1/namespaces/${ns}/events`, { metadata: { name: 'ev' }, involvedObject: { kind: 'Pod', name: 'p', namespace: ns }, reason: 'X', message: 'y' }],
      [`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, { metadata: { name: 'l' }, spec: { holderIdentity: 'a' } }],
      [deploymentsPath(ns), deployment('d')],
      ['/api/v1/nodes', { metadata: { name: `node-${ns}` } }],
    ];
    for (const [collection, body] of objects) {
      const created = await server.request('POST', `${collection}?fieldValidation=Strict`, { body });
      assert.equal(created.status, 201, `${collection}: ${created.text}`);
      const item = `${collection}/${created.json.metadata.name}`;
      const patched = await server.request('PATCH', `${item}?fieldValidation=Strict`, { raw: '{"metadata":{"labels":{"x":"y"}}}', headers: mergePatch });
      assert.equal(patched.status, 200, `${item}: ${patched.text}`);
      const put = await server.request('PUT', `${item}?fieldValidation=Strict`, { body: patched.json });
      assert.equal(put.status, 200, `${item}: ${put.text}`);
      // No unknown or duplicate field to warn of; v1 Endpoints warn of their deprecation on every request.
      assert.equal(put.headers.warning, collection.endsWith('/endpoints') ? '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"' : undefined, item);
    }
  });
});

const kubectl133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
describe('kubectl 1.33', { skip: existsSync(kubectl133) ? false : `kubectl 1.33 is not installed at ${kubectl133}` }, () => {
  const run = promisify(execFile);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fv-kubectl-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const kubectl = (...args: string[]) =>
    run(kubectl133, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', path.join(dir, 'cache'), ...args], { timeout: 30_000 });

  test('create -f of a manifest with an unknown field fails, as with kube-apiserver', async () => {
    const ns = await newNamespace();
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad
  namespace: ${ns}
spec:
  selector:
    matchLabels: {app: bad}
  template:
    metadata:
      labels: {app: bad}
    spec:
      containers:
      - name: app
        image: nginx
        imagePullPolicyy: Always
`);
    await assert.rejects(kubectl('create', '-f', file), (err: { stderr?: string }) => {
      assert.match(err.stderr ?? '', /unknown field "spec\.template\.spec\.containers\[0\]\.imagePullPolicyy"/);
      return true;
    });
    assert.equal((await server.request('GET', `${deploymentsPath(ns)}/bad`)).status, 404);
  });

  test('create -f --validate=warn of a manifest with an unknown field creates, warning about it', async () => {
    const ns = await newNamespace();
    const file = path.join(dir, 'lenient.yaml');
    writeFileSync(file, `apiVersion: v1
kind: ConfigMap
metadata:
  name: lenient
  namespace: ${ns}
data: {a: "1"}
colour: red
`);
    const { stderr } = await kubectl('create', '-f', file, '--validate=warn');
    assert.match(stderr, /unknown field "colour"/);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/lenient`)).status, 200);
  });
});
