// dryRun=All on POST, PUT, PATCH and DELETE: every stage runs (defaulting, validation,
// generated names, admission), nothing is stored and nothing else happens, and the answer
// is what the real request answers, but for uid and resourceVersion as upstream.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openStream, startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const newNamespace = () => server.newNamespace('dry');

function deployment(name: string) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] } },
    },
  };
}

/** An object without what differs between two requests that both succeed. */
function comparable(obj: any): any {
  const copy = structuredClone(obj);
  delete copy.metadata.uid;
  delete copy.metadata.resourceVersion;
  delete copy.metadata.creationTimestamp;
  // Seconds: the dry run and the real request may fall on either side of one.
  for (const entry of copy.metadata.managedFields ?? []) delete entry.time;
  return copy;
}

const deploymentsPath = (ns: string) => `/apis/apps/v1/namespaces/${ns}/deployments`;
const mergePatch = { 'content-type': 'application/merge-patch+json' };

describe('dry-run create', () => {
  test('answers what a real create answers, but for uid, resourceVersion and time, and stores nothing', async () => {
    const ns = await newNamespace();
    const dry = await server.request('POST', `${deploymentsPath(ns)}?dryRun=All`, { body: deployment('d') });
    assert.equal(dry.status, 201, dry.text);
    assert.equal(dry.json.metadata.resourceVersion, undefined);
    assert.match(dry.json.metadata.uid, /^[0-9a-f-]{36}$/);
    // Defaulting ran: the strategy's and the schema's.
    assert.equal(dry.json.spec.replicas, 1);
    assert.equal(dry.json.spec.strategy.type, 'RollingUpdate');
    assert.equal(dry.json.spec.template.spec.containers[0].ports[0].protocol, 'TCP');
    assert.equal((await server.request('GET', `${deploymentsPath(ns)}/d`)).status, 404);
    assert.equal((await server.request('GET', deploymentsPath(ns))).json.items.length, 0);

    const real = await server.request('POST', deploymentsPath(ns), { body: deployment('d') });
    assert.equal(real.status, 201, real.text);
    assert.deepEqual(comparable(dry.json), comparable(real.json));
    assert.notEqual(dry.json.metadata.uid, real.json.metadata.uid);
  });

  test('a generated name is generated', async () => {
    const ns = await newNamespace();
    const dry = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: { metadata: { generateName: 'cfg-' } } });
    assert.equal(dry.status, 201, dry.text);
    assert.match(dry.json.metadata.name, /^cfg-[a-z0-9]{5}$/);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/${dry.json.metadata.name}`)).status, 404);
  });

  test('validation runs: an invalid object is 422 and a taken name is 409', async () => {
    const ns = await newNamespace();
    const invalid = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: { metadata: { name: 'Not_Valid' } } });
    assert.equal(invalid.status, 422, invalid.text);
    const types = await server.request('POST', `${deploymentsPath(ns)}?dryRun=All`, { body: { ...deployment('d'), spec: { ...deployment('d').spec, replicas: 'x' } } });
    // A value of the wrong type fails decoding: 400, as without dryRun.
    assert.equal(types.status, 400, types.text);
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'taken' } } })).status, 201);
    const taken = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: { metadata: { name: 'taken' } } });
    assert.equal(taken.status, 409, taken.text);
    assert.equal(taken.json.reason, 'AlreadyExists');
  });

  test('field validation runs: Strict refuses unknown fields on a dry run too', async () => {
    const ns = await newNamespace();
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All&fieldValidation=Strict`, { body: { metadata: { name: 'c' }, bogus: 1 } });
    assert.equal(res.status, 400, res.text);
  });

  test('admission runs: no dry-run create in a namespace that does not exist', async () => {
    const res = await server.request('POST', '/api/v1/namespaces/no-such-namespace/configmaps?dryRun=All', { body: { metadata: { name: 'c' } } });
    assert.equal(res.status, 404, res.text);
    assert.equal(res.json.reason, 'NotFound');
  });

  test('a watch sees nothing of a dry run', async () => {
    const ns = await newNamespace();
    const list = await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    const watch = await openStream(server, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${list.json.metadata.resourceVersion}`);
    try {
      assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: { metadata: { name: 'ghost' } } })).status, 201);
      assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'real' } } })).status, 201);
      const event = await watch.next();
      assert.equal(event.type, 'ADDED');
      assert.equal(event.object.metadata.name, 'real');
    } finally {
      watch.close();
    }
  });

  test('a Service\'s ClusterIP is shown but not taken', async () => {
    const ns = await newNamespace();
    const body = { metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } };
    const dry = await server.request('POST', `/api/v1/namespaces/${ns}/services?dryRun=All`, { body });
    assert.equal(dry.status, 201, dry.text);
    assert.ok(dry.json.spec.clusterIP);
    const real = await server.request('POST', `/api/v1/namespaces/${ns}/services`, { body: { ...body, spec: { ...body.spec, clusterIP: dry.json.spec.clusterIP } } });
    assert.equal(real.status, 201, real.text);
  });
});

describe('dry-run update and patch', () => {
  test('PUT answers the updated object at the stored resourceVersion and stores nothing', async () => {
    const ns = await newNamespace();
    const created = (await server.request('POST', deploymentsPath(ns), { body: deployment('d') })).json;
    const changed = { ...created, spec: { ...created.spec, replicas: 5 } };
    const dry = await server.request('PUT', `${deploymentsPath(ns)}/d?dryRun=All`, { body: changed });
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.json.spec.replicas, 5);
    assert.equal(dry.json.metadata.generation, 2);
    assert.equal(dry.json.metadata.resourceVersion, created.metadata.resourceVersion);
    const stored = (await server.request('GET', `${deploymentsPath(ns)}/d`)).json;
    assert.deepEqual(stored, created);

    const real = await server.request('PUT', `${deploymentsPath(ns)}/d`, { body: changed });
    assert.equal(real.status, 200, real.text);
    assert.deepEqual(comparable(dry.json), comparable(real.json));
    assert.equal(dry.json.metadata.uid, real.json.metadata.uid);
  });

  test('a merge patch answers the patched object and stores nothing', async () => {
    const ns = await newNamespace();
    const created = (await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' }, data: { a: '1' } } })).json;
    const dry = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c?dryRun=All`, { raw: '{"data":{"b":"2"}}', headers: mergePatch });
    assert.equal(dry.status, 200, dry.text);
    assert.deepEqual(dry.json.data, { a: '1', b: '2' });
    assert.equal(dry.json.metadata.resourceVersion, created.metadata.resourceVersion);
    assert.deepEqual((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).json, created);
    const real = await server.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c`, { raw: '{"data":{"b":"2"}}', headers: mergePatch });
    assert.deepEqual(comparable(dry.json), comparable(real.json));
  });

  test('validation runs on a dry-run update', async () => {
    const ns = await newNamespace();
    await server.request('POST', deploymentsPath(ns), { body: deployment('d') });
    const res = await server.request('PATCH', `${deploymentsPath(ns)}/d?dryRun=All`, { raw: '{"spec":{"replicas":-1}}', headers: mergePatch });
    assert.equal(res.status, 422, res.text);
    assert.equal(res.json.details.causes[0].field, 'spec.replicas');
  });

  test('an unknown dryRun value is 422 on every write', async () => {
    const ns = await newNamespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' } } });
    const requests: [string, string, Record<string, unknown>][] = [
      ['PUT', `/api/v1/namespaces/${ns}/configmaps/c?dryRun=Some`, { body: { metadata: { name: 'c' } } }],
      ['PATCH', `/api/v1/namespaces/${ns}/configmaps/c?dryRun=Some`, { raw: '{}', headers: mergePatch }],
      ['DELETE', `/api/v1/namespaces/${ns}/configmaps/c?dryRun=Some`, {}],
    ];
    for (const [method, url, opts] of requests) {
      const res = await server.request(method, url, opts);
      assert.equal(res.status, 422, `${method}: ${res.text}`);
      assert.equal(res.json.details.causes[0].field, 'dryRun');
    }
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status, 200);
  });
});

describe('dry-run delete', () => {
  test('answers as the real delete would, and the object stays', async () => {
    const ns = await newNamespace();
    const created = (await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' } } })).json;
    const dry = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/c?dryRun=All`);
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.json.kind, 'Status');
    assert.equal(dry.json.details.uid, created.metadata.uid);
    assert.deepEqual((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).json, created);
    const real = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/c`);
    assert.deepEqual(real.json, dry.json);
  });

  test('dryRun in the DeleteOptions body counts too', async () => {
    const ns = await newNamespace();
    await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'c' } } });
    const raw = JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] });
    const dry = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/c`, {
      raw, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(raw)) },
    });
    assert.equal(dry.status, 200, dry.text);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status, 200);
  });

  test('a namespace stays Active after a dry-run delete', async () => {
    const ns = await newNamespace();
    const dry = await server.request('DELETE', `/api/v1/namespaces/${ns}?dryRun=All`);
    assert.ok(dry.status === 200 || dry.status === 202, dry.text);
    const got = await server.request('GET', `/api/v1/namespaces/${ns}`);
    assert.equal(got.json.status.phase, 'Active');
    assert.equal(got.json.metadata.deletionTimestamp, undefined);
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'still-open' } } })).status, 201);
  });

  test('a delete collection dry run deletes nothing', async () => {
    const ns = await newNamespace();
    for (const name of ['a', 'b']) await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name } } });
    const dry = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`);
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.json.items.length, 2);
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json.items.length, 2);
  });
});

const kubectl133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
describe('kubectl 1.33 --dry-run=server', { skip: existsSync(kubectl133) ? false : `kubectl 1.33 is not installed at ${kubectl133}` }, () => {
  const run = promisify(execFile);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dry-kubectl-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const kubectl = async (...args: string[]) =>
    (await run(kubectl133, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', path.join(dir, 'cache'), ...args], { timeout: 30_000 })).stdout;
  const manifest = (ns: string) => {
    const file = path.join(dir, `${ns}.yaml`);
    writeFileSync(file, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${ns}
data: {color: blue}
`);
    return file;
  };
  const stored = async (ns: string) => [
    ...(await server.request('GET', deploymentsPath(ns))).json.items,
    ...(await server.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json.items,
  ];

  test('create --dry-run=server answers the defaulted objects and persists nothing', async () => {
    const ns = await newNamespace();
    // One JSON document per object, one after the other.
    const out = await kubectl('create', '-f', manifest(ns), '--dry-run=server', '-o', 'json');
    const items = JSON.parse(`[${out.trim().replace(/\n\}\n\{/g, '\n},\n{')}]`);
    assert.equal(items.length, 2);
    const web = items.find((i: any) => i.kind === 'Deployment');
    assert.equal(web.spec.replicas, 1);
    assert.equal(web.spec.template.spec.containers[0].terminationMessagePath, '/dev/termination-log');
    assert.deepEqual(await stored(ns), []);
  });

  test('apply --dry-run=server persists nothing', async () => {
    const ns = await newNamespace();
    const out = await kubectl('apply', '-f', manifest(ns), '--dry-run=server');
    assert.match(out, /deployment\.apps\/web created \(server dry run\)/);
    assert.match(out, /configmap\/settings created \(server dry run\)/);
    assert.deepEqual(await stored(ns), []);
  });
});
