// pods/resize: in-place changes of containers' cpu and memory, as kube-apiserver v1.36
// serves them (upstream's resize strategy and ValidatePodResize), kubectl's
// `patch --subresource resize` and LimitRanger on resizes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServer, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const kubectlBin = '/usr/bin/kubectl';
const noKubectl = existsSync(kubectlBin) ? false : `kubectl is not installed at ${kubectlBin}`;

let server: TestServer;
const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));

before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

const smp = { 'content-type': 'application/strategic-merge-patch+json' };

function burstable(name: string) {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'a' } },
    spec: {
      containers: [{
        name: 'c', image: 'busybox',
        resources: { requests: { cpu: '100m', memory: '64Mi', 'ephemeral-storage': '1Gi' }, limits: { cpu: '200m', memory: '128Mi' } },
        resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
      }],
      initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '50m' } } }],
    },
  };
}

async function createPod(ns: string, body: unknown) {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

describe('pods/resize', () => {
  test('discovery lists it with get, patch and update on Pod', async () => {
    const res = await server.request('GET', '/api/v1');
    const names = res.json.resources.map((r: { name: string }) => r.name);
    assert.ok(names.includes('pods/resize'), names.join(' '));
    const resize = res.json.resources.find((r: { name: string }) => r.name === 'pods/resize');
    assert.equal(resize.kind, 'Pod');
    assert.deepEqual([...resize.verbs].sort(), ['get', 'patch', 'update']);
  });

  test('a patch changes cpu and memory, bumps the generation and drops everything else it sends', async () => {
    const ns = await server.newNamespace('resize');
    const created = await createPod(ns, burstable('p'));
    assert.equal(created.metadata.generation, 1);
    const url = `/api/v1/namespaces/${ns}/pods/p/resize`;
    const got = await server.request('GET', url);
    assert.equal(got.status, 200);
    assert.equal(got.json.kind, 'Pod');

    const res = await server.request('PATCH', url, {
      headers: smp,
      body: {
        metadata: { labels: { app: 'b' }, annotations: { x: 'y' } },
        spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '150m', memory: '96Mi' }, limits: { cpu: '300m' } } }], activeDeadlineSeconds: 5 },
      },
    });
    assert.equal(res.status, 200, res.text);
    const c = res.json.spec.containers[0];
    assert.deepEqual(c.resources.requests, { cpu: '150m', memory: '96Mi', 'ephemeral-storage': '1Gi' });
    assert.deepEqual(c.resources.limits, { cpu: '300m', memory: '128Mi' });
    assert.equal(c.image, 'busybox', 'only resources change through pods/resize');
    assert.equal(res.json.spec.activeDeadlineSeconds, undefined);
    assert.deepEqual(res.json.metadata.labels, { app: 'a' });
    assert.equal(res.json.metadata.annotations, undefined);
    assert.equal(res.json.metadata.generation, 2);
    assert.equal(res.json.status.qosClass, 'Burstable');

    // The same values again change nothing: no new generation, no new resourceVersion.
    const again = await server.request('PATCH', url, { headers: smp, body: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '150m' } } }] } } });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.metadata.generation, 2);
    assert.equal(again.json.metadata.resourceVersion, res.json.metadata.resourceVersion);

    // PUT of the whole pod, an init container resized.
    const pod = again.json;
    pod.spec.initContainers[0].resources.requests.cpu = '75m';
    const put = await server.request('PUT', url, { body: pod });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.spec.initContainers[0].resources.requests.cpu, '75m');
    assert.equal(put.json.metadata.generation, 3);

    // The main resource still refuses resource changes.
    const main = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p`, { headers: smp, body: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } } });
    assert.equal(main.status, 422, main.text);
    assert.match(main.json.message, /pod updates may not change fields other than/);
  });

  test('what may not change, with upstream\'s messages', async () => {
    const ns = await server.newNamespace('resize-invalid');
    await createPod(ns, burstable('p'));
    const url = `/api/v1/namespaces/${ns}/pods/p/resize`;
    const patch = (spec: unknown) => server.request('PATCH', url, { headers: smp, body: { spec } });

    const other = await patch({ containers: [{ name: 'c', resources: { requests: { 'ephemeral-storage': '2Gi' } } }] });
    assert.equal(other.status, 422, other.text);
    assert.deepEqual(other.json.details.causes, [{ reason: 'FieldValueForbidden', field: 'spec', message: 'Forbidden: only cpu and memory resources are mutable' }]);

    const removed = await server.request('PATCH', url, {
      headers: { 'content-type': 'application/json-patch+json' },
      body: [{ op: 'remove', path: '/spec/containers/0/resources/limits/memory' }],
    });
    assert.equal(removed.status, 422, removed.text);
    assert.match(removed.json.message, /spec\.containers\[0\]\.resources\.limits: Forbidden: resource limits cannot be removed/);

    const policy = await patch({ containers: [{ name: 'c', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }] }] });
    assert.equal(policy.status, 422, policy.text);
    assert.match(policy.json.message, /spec: Forbidden: only cpu and memory resources are mutable/);

    const renamed = await server.request('PATCH', url, {
      headers: { 'content-type': 'application/json-patch+json' },
      body: [{ op: 'replace', path: '/spec/containers/0/name', value: 'd' }],
    });
    assert.equal(renamed.status, 422, renamed.text);
    assert.match(renamed.json.message, /spec\.containers\[0\]\.name: Forbidden: containers may not be renamed or reordered on resize/);

    const added = await patch({ containers: [{ name: 'c2', image: 'busybox' }] });
    assert.equal(added.status, 422, added.text);
    assert.match(added.json.message, /spec\.containers: Forbidden: containers may not be added or removed on resize/);

    const tooMuch = await patch({ containers: [{ name: 'c', resources: { requests: { cpu: '500m' } } }] });
    assert.equal(tooMuch.status, 422, tooMuch.text);
    assert.match(tooMuch.json.message, /spec\.containers\[0\]\.resources\.requests: Invalid value: "500m": must be less than or equal to cpu limit of 200m/);
  });

  test('the QoS class may not change, a static pod may not be resized', async () => {
    const ns = await server.newNamespace('resize-qos');
    const guaranteed = { cpu: '100m', memory: '64Mi' };
    const created = await createPod(ns, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'g' }, spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: guaranteed, limits: guaranteed } }] } });
    assert.equal(created.status.qosClass, 'Guaranteed');
    const url = `/api/v1/namespaces/${ns}/pods/g/resize`;
    const qos = await server.request('PATCH', url, { headers: smp, body: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '50m' } } }] } } });
    assert.equal(qos.status, 422, qos.text);
    assert.deepEqual(qos.json.details.causes, [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing' }]);
    const both = await server.request('PATCH', url, { headers: smp, body: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '200m' }, limits: { cpu: '200m' } } }] } } });
    assert.equal(both.status, 200, both.text);
    assert.equal(both.json.spec.containers[0].resources.limits.cpu, '200m');

    await createPod(ns, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 's', annotations: { 'kubernetes.io/config.mirror': 'x' } }, spec: { nodeName: 'static-node', containers: [{ name: 'c', image: 'busybox' }] } });
    const mirror = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/s/resize`, { headers: smp, body: { spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] } } });
    assert.equal(mirror.status, 422, mirror.text);
    assert.deepEqual(mirror.json.details.causes, [{ reason: 'FieldValueForbidden', field: '', message: 'Forbidden: static pods cannot be resized' }]);

    assert.equal((await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/missing/resize`, { headers: smp, body: { spec: {} } })).status, 404);
    assert.equal((await server.request('POST', url, { body: {} })).status, 405);
  });

  test('resize policies are validated on create', async () => {
    const ns = await server.newNamespace('resize-policy');
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' },
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'c', image: 'busybox', resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'RestartContainer' }, { resourceName: 'cpu', restartPolicy: 'NotRequired' }, { resourceName: 'gpu', restartPolicy: 'Sometimes' }] }],
          initContainers: [{ name: 'i', image: 'busybox', resizePolicy: [{ resourceName: 'memory', restartPolicy: 'RestartContainer' }] }],
        },
      },
    });
    assert.equal(res.status, 422, res.text);
    const messages = res.json.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
    assert.ok(messages.includes("spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be 'NotRequired' when pod `restartPolicy` is 'Never'"), messages.join('\n'));
    assert.ok(messages.includes('spec.containers[0].resizePolicy[1]: Duplicate value: "cpu"'), messages.join('\n'));
    assert.ok(messages.includes('spec.containers[0].resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory"'), messages.join('\n'));
    assert.ok(messages.includes('spec.containers[0].resizePolicy: Unsupported value: "Sometimes": supported values: "NotRequired", "RestartContainer"'), messages.join('\n'));
    assert.ok(messages.includes("spec.initContainers[0].resizePolicy[0].restartPolicy: Invalid value: \"RestartContainer\": must not be set to 'RestartContainer' for non-sidecar initContainers"), messages.join('\n'));
  });

  test('LimitRanger checks and defaults a resize, without its annotation', async () => {
    const ns = await server.newNamespace('resize-limits');
    await createPod(ns, burstable('p'));
    const lr = await server.request('POST', `/api/v1/namespaces/${ns}/limitranges`, {
      body: { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' }, default: { cpu: '300m' } }] } },
    });
    assert.equal(lr.status, 201, lr.text);
    const url = `/api/v1/namespaces/${ns}/pods/p/resize`;
    const over = await server.request('PATCH', url, { headers: smp, body: { spec: { containers: [{ name: 'c', resources: { limits: { cpu: '2' } } }] } } });
    assert.equal(over.status, 403, over.text);
    assert.equal(over.json.message, 'pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
    const within = await server.request('PATCH', url, { headers: smp, body: { spec: { containers: [{ name: 'c', resources: { limits: { cpu: '500m' } } }] } } });
    assert.equal(within.status, 200, within.text);
    assert.equal(within.json.spec.containers[0].resources.limits.cpu, '500m');
    // The init container had no cpu limit: the range's default fills it in.
    assert.deepEqual(within.json.spec.initContainers[0].resources, { requests: { cpu: '50m' }, limits: { cpu: '300m' } });
    assert.equal(within.json.metadata.annotations?.['kubernetes.io/limit-ranger'], undefined);
  });

  test('kubectl patch --subresource resize', { skip: noKubectl }, async () => {
    const ns = await server.newNamespace('resize-kubectl');
    await createPod(ns, burstable('p'));
    const { stdout } = await run(kubectlBin, [
      '--kubeconfig', server.kubeconfigPath, '--cache-dir', cacheDir, '-n', ns, 'patch', 'pod', 'p', '--subresource', 'resize',
      '-p', '{"spec":{"containers":[{"name":"c","resources":{"requests":{"memory":"100Mi"}}}]}}', '-o', 'jsonpath={.spec.containers[0].resources.requests.memory} {.metadata.generation}',
    ], { timeout: 30_000 });
    assert.equal(stdout, '100Mi 2');
  });
});

describe('pods/ephemeralcontainers', () => {
  test('adding an ephemeral container bumps the generation', async () => {
    const ns = await server.newNamespace('ephemeral-generation');
    await createPod(ns, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    const res = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p/ephemeralcontainers`, {
      headers: smp, body: { spec: { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] } },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json.metadata.generation, 2);
  });
});
