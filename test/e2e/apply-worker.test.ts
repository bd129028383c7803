// Server-side applies of built-in workloads on the worker thread (registry/apply-offload):
// the same requests to a server whose worker takes every apply it may and to one without
// a worker answer and store the same, conflicts, errors, warnings and admission included.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type Response, type TestServer } from '../helpers/server.ts';
import { allow, startWebhookServer } from '../helpers/webhook-server.ts';

const applyType = 'application/apply-patch+yaml';

function deployment(name: string, manager: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const containers = Array.from({ length: 3 }, (_, c) => ({
    name: `c${c}`, image: `registry.example.com/app-${c}:v${manager}`,
    env: [{ name: 'MANAGER', value: `m${manager}` }],
    resources: { limits: { memory: `${64 + manager}Mi` } },
  }));
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name, labels: { app: name, [`by-m${manager}`]: 'true' } },
    spec: { replicas: 1 + manager, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers } } },
    ...extra,
  };
}

/**
 * What two servers may differ in: identity, times and revisions, and so the order of the
 * managed fields' entries (by time, to the second).
 */
function comparable(obj: Record<string, any>): unknown {
  const { uid: _uid, creationTimestamp: _created, resourceVersion: _rv, ...metadata } = obj.metadata;
  metadata.managedFields = metadata.managedFields?.map(({ time: _time, ...entry }: Record<string, unknown>) => entry)
    .sort((a: { manager: string }, b: { manager: string }) => (a.manager < b.manager ? -1 : 1));
  return { ...obj, metadata };
}

function answerOf(res: Response): unknown {
  return { status: res.status, warning: res.headers.warning, body: res.json?.kind === 'Status' ? res.json : comparable(res.json) };
}

describe('applies on the worker thread', () => {
  let offloading: TestServer;
  let plain: TestServer;
  const servers = () => [offloading, plain];

  before(async () => {
    [offloading, plain] = await Promise.all([startServer({ applyWorkerAfter: 0 }), startServer({ applyWorkerAfter: -1 })]);
    for (const server of servers()) {
      const ns = await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'w' } } });
      assert.equal(ns.status, 201, ns.text);
    }
  });
  after(async () => {
    await Promise.all(servers().map((s) => s?.stop()));
  });

  /** The same apply to both servers; their answers, which must agree. */
  async function applyBoth(name: string, body: unknown, query: string, headers: Record<string, string> = {}): Promise<Response> {
    const path = `/apis/apps/v1/namespaces/w/deployments/${name}?${query}`;
    const [a, b] = await Promise.all(servers().map((s) => s.request('PATCH', path, { raw: JSON.stringify(body), headers: { 'content-type': applyType, ...headers } })));
    assert.deepEqual(answerOf(a!), answerOf(b!), `the answers to ${query}`);
    return a!;
  }

  async function sameStored(name: string): Promise<void> {
    const [a, b] = await Promise.all(servers().map((s) => s.request('GET', `/apis/apps/v1/namespaces/w/deployments/${name}`)));
    assert.equal(a!.status, 200, a!.text);
    assert.deepEqual(comparable(a!.json), comparable(b!.json));
  }

  test('managers applying in turn, forced and not, store and answer alike', async () => {
    // The first apply creates (on the main thread) and starts the worker.
    assert.equal((await applyBoth('web', deployment('web', 0), 'fieldManager=m0')).status, 201);
    assert.equal(await offloading.applyWorker!.whenReady(), true, 'the worker started');
    const before = offloading.applyWorker!.applied;
    for (let round = 0; round < 2; round++) {
      for (const manager of [1, 2, 0]) {
        const res = await applyBoth('web', deployment('web', manager), `fieldManager=m${manager}&force=true`);
        assert.equal(res.status, 200, res.text);
      }
    }
    // Without force, another manager's image is a conflict, answered from the main thread.
    const conflict = await applyBoth('web', deployment('web', 1), 'fieldManager=m1');
    assert.equal(conflict.status, 409, conflict.text);
    await sameStored('web');
    assert.ok(offloading.applyWorker!.applied >= before + 6, `the worker applied (${offloading.applyWorker!.applied - before})`);
  });

  test('the worker starts from the object it wrote only while that is what is stored', async () => {
    assert.equal((await applyBoth('kept', deployment('kept', 0), 'fieldManager=m0')).status, 201);
    assert.equal(await offloading.applyWorker!.whenReady(), true);
    assert.equal((await applyBoth('kept', deployment('kept', 1), 'fieldManager=m1&force=true')).status, 200);
    const reused = offloading.applyWorker!.reused;
    assert.equal((await applyBoth('kept', deployment('kept', 2), 'fieldManager=m2&force=true')).status, 200);
    assert.equal(offloading.applyWorker!.reused, reused + 1, 'the second apply started from what the worker wrote');
    // Another write in between: the next apply starts from what that stored.
    for (const server of servers()) {
      const patched = await server.request('PATCH', '/apis/apps/v1/namespaces/w/deployments/kept?fieldManager=editor', {
        raw: JSON.stringify({ metadata: { labels: { edited: 'yes' } }, spec: { template: { spec: { containers: [{ name: 'c0', image: 'edited' }] } } } }),
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
      });
      assert.equal(patched.status, 200, patched.text);
    }
    const applied = offloading.applyWorker!.applied;
    const res = await applyBoth('kept', deployment('kept', 1), 'fieldManager=m1&force=true');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.metadata.labels.edited, 'yes');
    assert.equal(offloading.applyWorker!.applied, applied + 1);
    assert.equal(offloading.applyWorker!.reused, reused + 1, 'not from the kept object');
    await sameStored('kept');
  });

  test('an invalid apply is refused alike; a duplicate field warns alike; another form of answer is the same object', async () => {
    assert.equal((await applyBoth('api', deployment('api', 0), 'fieldManager=m0')).status, 201);
    const invalid = await applyBoth('api', deployment('api', 1, { spec: { replicas: -1, selector: { matchLabels: { app: 'api' } }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'c0', image: 'x' }] } } } }), 'fieldManager=m1&force=true');
    assert.equal(invalid.status, 422, invalid.text);
    const applied = offloading.applyWorker!.applied;
    // A key given twice: warned of under fieldValidation=Warn, the last value kept.
    const twice = JSON.stringify(deployment('api', 1)).replace('"replicas":2', '"replicas":5,"replicas":2');
    const [a, b] = await Promise.all(servers().map((s) => s.request('PATCH', '/apis/apps/v1/namespaces/w/deployments/api?fieldManager=m1&force=true&fieldValidation=Warn', {
      raw: twice, headers: { 'content-type': applyType },
    })));
    assert.deepEqual(answerOf(a!), answerOf(b!));
    assert.equal(a!.status, 200, a!.text);
    assert.equal(a!.headers.warning, '299 - "duplicate field \\"spec.replicas\\""');
    assert.ok(offloading.applyWorker!.applied > applied, 'the worker applied it, and its warning came back');
    const yaml = await Promise.all(servers().map((s) => s.request('PATCH', '/apis/apps/v1/namespaces/w/deployments/api?fieldManager=m2&force=true', {
      raw: JSON.stringify(deployment('api', 2)), headers: { 'content-type': applyType, accept: 'application/yaml' },
    })));
    assert.equal(yaml[0]!.status, 200, yaml[0]!.text);
    // Keys sorted, as kube-apiserver's YAML serializer writes them.
    assert.match(yaml[0]!.text, /^apiVersion: apps\/v1\nkind: Deployment\n/);
    assert.equal(yaml[0]!.text.replace(/(uid|creationTimestamp|resourceVersion|time): .*\n/g, ''), yaml[1]!.text.replace(/(uid|creationTimestamp|resourceVersion|time): .*\n/g, ''));
    await sameStored('api');
  });

  test('the worker decodes the body itself; what it cannot take is answered from the main thread alike', async () => {
    assert.equal((await applyBoth('body', deployment('body', 0), 'fieldManager=m0')).status, 201);
    assert.equal(await offloading.applyWorker!.whenReady(), true);
    // The answers agree but for the objects' uids, times and resourceVersions (each server
    // counts its own writes, background ones too), which a strict error's message quotes.
    const withoutIdentity = (res: Response) => JSON.stringify(answerOf(res)).replace(/\\+"(uid|creationTimestamp|time|resourceVersion)\\+":\\+"[^"\\]*\\+"/g, '');
    const raw = async (text: string, query: string) => {
      const [a, b] = await Promise.all(servers().map((s) => s.request('PATCH', `/apis/apps/v1/namespaces/w/deployments/body?${query}`, { raw: text, headers: { 'content-type': applyType } })));
      assert.equal(withoutIdentity(a!), withoutIdentity(b!), `${query}: ${text.slice(0, 60)}`);
      return a!;
    };
    const before = offloading.applyWorker!.applied;
    const malformed = await raw('{"apiVersion": "apps/v1", "kind": ', 'fieldManager=m1&force=true');
    assert.equal(malformed.status, 400, malformed.text);
    const otherName = await raw(JSON.stringify(deployment('other', 1)), 'fieldManager=m1&force=true');
    assert.equal(otherName.status, 400, otherName.text);
    assert.match(otherName.json.message, /does not match the name on the URL/);
    const elsewhere = await raw(JSON.stringify(deployment('body', 1, { metadata: { name: 'body', namespace: 'elsewhere' } })), 'fieldManager=m1&force=true');
    assert.equal(elsewhere.status, 400, elsewhere.text);
    const twice = JSON.stringify(deployment('body', 1)).replace('"replicas":2', '"replicas":5,"replicas":2');
    const strict = await raw(twice, 'fieldManager=m1&force=true&fieldValidation=Strict');
    assert.equal(strict.status, 422, strict.text);
    assert.match(strict.json.message, /strict decoding error: duplicate field "spec.replicas"$/);
    assert.equal(offloading.applyWorker!.applied, before, 'none of those was done on the worker');
    // YAML that is not JSON: the worker loads the YAML library and applies it.
    const yaml = [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata:', '  name: body', 'spec:', '  replicas: 3',
      '  selector:', '    matchLabels: {app: body}', '  template:', '    metadata:', '      labels: {app: body}',
      '    spec:', '      containers:', '      - name: c0', '        image: from-yaml', '',
    ].join('\n');
    const fromYaml = await raw(yaml, 'fieldManager=yaml&force=true');
    assert.equal(fromYaml.status, 200, fromYaml.text);
    assert.equal(fromYaml.json.spec.template.spec.containers.find((c: { name: string }) => c.name === 'c0').image, 'from-yaml');
    assert.equal(offloading.applyWorker!.applied, before + 1, 'the YAML apply ran on the worker');
    await sameStored('body');
  });

  test('a watch sees what the worker applied', async () => {
    assert.equal((await applyBoth('watched', deployment('watched', 0), 'fieldManager=m0')).status, 201);
    const list = await offloading.request('GET', '/apis/apps/v1/namespaces/w/deployments?fieldSelector=metadata.name%3Dwatched');
    const rv = list.json.metadata.resourceVersion;
    const applied = await applyBoth('watched', deployment('watched', 1), 'fieldManager=m1&force=true');
    const events = await offloading.request('GET', `/apis/apps/v1/namespaces/w/deployments?watch=1&fieldSelector=metadata.name%3Dwatched&resourceVersion=${rv}&timeoutSeconds=1`);
    const lines = events.text.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((e) => [e.type, e.object.metadata.resourceVersion]), [['MODIFIED', applied.json.metadata.resourceVersion]]);
    assert.deepEqual(lines[0].object, applied.json);
  });

  test('admission sees the object the worker made: a validating policy refuses it alike', async () => {
    for (const server of servers()) {
      const policy = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
        body: {
          metadata: { name: 'few-replicas' },
          spec: {
            failurePolicy: 'Fail',
            matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['deployments'] }] },
            validations: [{ expression: 'object.spec.replicas <= 2', message: 'at most 2 replicas' }],
          },
        },
      });
      assert.equal(policy.status, 201, policy.text);
      const binding = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
        body: { metadata: { name: 'few-replicas' }, spec: { policyName: 'few-replicas', validationActions: ['Deny'] } },
      });
      assert.equal(binding.status, 201, binding.text);
    }
    assert.equal((await applyBoth('db', deployment('db', 0), 'fieldManager=m0')).status, 201);
    // Manager 2 asks for 3 replicas: refused once the policy is in force on both.
    const refused = await eventually(async () => {
      const res = await applyBoth('db', deployment('db', 2), 'fieldManager=m2&force=true');
      assert.equal(res.status, 422, res.text);
      return res;
    }, { what: 'the policy to be in force' });
    assert.match(refused.json.message, /at most 2 replicas/);
    assert.equal((await applyBoth('db', deployment('db', 1), 'fieldManager=m1&force=true')).status, 200);
    await sameStored('db');
  });

  test('the garbage collector follows what the worker applied: a dependent goes with its owner', async () => {
    // The collector reads the metadata view the worker made of the object it wrote.
    const owners = await Promise.all(servers().map((s) => s.request('POST', '/api/v1/namespaces/w/configmaps', { body: { metadata: { name: 'owner' } } })));
    for (const owner of owners) assert.equal(owner.status, 201, owner.text);
    const owned = (server: number, manager: number) => deployment('owned', manager, {
      metadata: { name: 'owned', labels: { app: 'owned' }, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owners[server]!.json.metadata.uid }] },
    });
    const applyTo = async (server: number, manager: number) => {
      const res = await servers()[server]!.request('PATCH', `/apis/apps/v1/namespaces/w/deployments/owned?fieldManager=m${manager}&force=true`, {
        raw: JSON.stringify(owned(server, manager)), headers: { 'content-type': applyType },
      });
      assert.ok(res.status === 200 || res.status === 201, res.text);
    };
    // Managers 0 and 1 only: the policy the test before made refuses manager 2's three replicas.
    for (const manager of [0, 1, 0]) await Promise.all([0, 1].map((server) => applyTo(server, manager)));
    assert.equal(await offloading.applyWorker!.whenReady(), true);
    const applied = offloading.applyWorker!.applied;
    await applyTo(0, 1);
    assert.equal(offloading.applyWorker!.applied, applied + 1, 'the last apply ran on the worker');
    for (const server of servers()) {
      assert.equal((await server.request('DELETE', '/api/v1/namespaces/w/configmaps/owner')).status, 200);
      await eventually(async () => {
        const res = await server.request('GET', '/apis/apps/v1/namespaces/w/deployments/owned');
        assert.equal(res.status, 404, res.text);
      }, { what: 'the dependent to be collected' });
    }
  });

  test('once the worker is gone, the main thread applies', async () => {
    assert.equal((await applyBoth('after', deployment('after', 0), 'fieldManager=m0')).status, 201);
    await offloading.applyWorker!.close();
    assert.equal(await offloading.applyWorker!.whenReady(), false);
    const applied = offloading.applyWorker!.applied;
    assert.equal((await applyBoth('after', deployment('after', 1), 'fieldManager=m1&force=true')).status, 200);
    assert.equal(offloading.applyWorker!.applied, applied);
    await sameStored('after');
  });
});

describe('applies a mutating webhook would see', () => {
  test('go to the main thread, where the webhook sees the object before the server prepares it (the generation not yet bumped)', async () => {
    const [server, hooks] = await Promise.all([startServer({ applyWorkerAfter: 0 }), startWebhookServer()]);
    try {
      assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'w' } } })).status, 201);
      const apply = async (manager: number) => {
        const res = await server.request('PATCH', `/apis/apps/v1/namespaces/w/deployments/seen?fieldManager=m${manager}&force=true`, {
          raw: JSON.stringify(deployment('seen', manager)), headers: { 'content-type': applyType },
        });
        assert.ok(res.status === 200 || res.status === 201, res.text);
        return res;
      };
      await apply(0);
      assert.equal(await server.applyWorker!.whenReady(), true, 'the worker started');
      const generations: number[] = [];
      hooks.handle('/see', (review) => {
        generations.push(review.request.object.metadata.generation);
        return allow();
      });
      const configurations = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
      const configured = await server.request('POST', configurations, {
        body: {
          metadata: { name: 'see' },
          webhooks: [{
            name: 'see.example.com', clientConfig: { url: `${hooks.url}/see`, caBundle: hooks.caBundle },
            rules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }],
            sideEffects: 'None', admissionReviewVersions: ['v1'],
          }],
        },
      });
      assert.equal(configured.status, 201, configured.text);
      // The webhook plugin reads configurations from the watch cache.
      const cached = async () => (await server.request('GET', `${configurations}?resourceVersion=0`)).json.items.length > 0;
      await eventually(async () => assert.ok(await cached()), { what: 'the configuration in the cache' });
      const applied = server.applyWorker!.applied;
      const res = await apply(1);
      assert.deepEqual(generations, [1], 'the generation as stored, bumped only after the mutating phase');
      assert.equal(res.json.metadata.generation, 2);
      assert.equal(server.applyWorker!.applied, applied, 'no apply ran on the worker');

      assert.equal((await server.request('DELETE', `${configurations}/see`)).status, 200);
      await eventually(async () => assert.ok(!(await cached())), { what: 'the configuration gone from the cache' });
      await apply(2);
      assert.equal(server.applyWorker!.applied, applied + 1, 'the worker applies again');
    } finally {
      await Promise.all([server.stop(), hooks.close()]);
    }
  });
});
