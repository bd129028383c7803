// The special core endpoints and the objects every cluster has from the start: binding a
// pod, the subresources that would reach a kubelet answering at once, componentstatuses,
// CSR approval, ephemeral containers, and the kubernetes Service, flowcontrol and APIService
// objects made at start-up (again, unchanged, after a restart).
import tls from 'node:tls';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const kubectlBin = '/usr/bin/kubectl';
const noKubectl = existsSync(kubectlBin) ? false : `kubectl is not installed at ${kubectlBin}`;

let server: TestServer;
const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));

/** Runs kubectl; answers its exit code, output and how long it took. */
async function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  try {
    const { stdout, stderr } = await run(kubectlBin, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', cacheDir, ...args], { timeout: 30_000 });
    return { code: 0, stdout, stderr, ms: Date.now() - started };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '', ms: Date.now() - started };
  }
}

function pod(name: string, containers = [{ name: 'c', image: 'busybox' }]) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers } };
}

function binding(name: string, node: string) {
  return { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } };
}

before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('binding pods', () => {
  test('pods/binding sets the node and PodScheduled; a second binding is 409', async () => {
    const ns = await server.newNamespace('bind');
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') })).status, 201);
    const bound = await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding('p', 'node-1') });
    assert.equal(bound.status, 201, bound.text);
    assert.deepEqual(bound.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const got = (await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json;
    assert.equal(got.spec.nodeName, 'node-1');
    const scheduled = got.status.conditions.find((c: { type: string }) => c.type === 'PodScheduled');
    assert.equal(scheduled.status, 'True');

    const again = await server.request('POST', `/api/v1/namespaces/${ns}/bindings`, { body: binding('p', 'node-2') });
    assert.equal(again.status, 409, again.text);
    assert.equal(again.json.message, 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "node-1"');
  });

  test('binding to a node with topology labels copies its zone and region onto the pod (PodTopologyLabels), over the pod\'s own', async () => {
    const ns = await server.newNamespace('bind-topology');
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'zoned', labels: { 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r1', 'kubernetes.io/hostname': 'zoned' } } };
    assert.equal((await server.request('POST', '/api/v1/nodes', { body: node })).status, 201);
    const labelled = { ...pod('p'), metadata: { name: 'p', labels: { app: 'web', 'topology.kubernetes.io/zone': 'mine' } } };
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: labelled })).status, 201);
    assert.equal((await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding('p', 'zoned') })).status, 201);
    const got = (await server.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).json;
    assert.deepEqual(got.metadata.labels, { app: 'web', 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r1' });
    // Created on the node: the same at create.
    const direct = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { ...pod('q'), spec: { ...pod('q').spec, nodeName: 'zoned' } } });
    assert.equal(direct.status, 201, direct.text);
    assert.equal(direct.json.metadata.labels['topology.kubernetes.io/region'], 'r1');
  });

  const refusals: [string, string, (ns: string) => unknown, number, string][] = [
    ['a missing pod', 'pods/ghost/binding', () => binding('ghost', 'n'), 404, 'pods "ghost" not found'],
    ['a target without a name', 'pods/q/binding', () => ({ ...binding('q', ''), target: { kind: 'Node' } }), 422, 'Binding "q" is invalid: target.name: Required value'],
    ['a target of another kind', 'pods/q/binding', () => binding('q', 'n') && { ...binding('q', 'n'), target: { kind: 'Pod', name: 'n' } }, 422,
      'Binding "q" is invalid: target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"'],
    ['a name that is not the URL\'s', 'pods/q/binding', () => binding('other', 'n'), 400, 'name in URL does not match name in Binding object'],
  ];
  for (const [name, subpath, body, code, message] of refusals) {
    test(`refuses ${name}`, async () => {
      const ns = await server.newNamespace('bind-no');
      await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('q') });
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/${subpath}`, { body: body(ns) });
      assert.equal(res.status, code, res.text);
      assert.equal(res.json.message, message);
    });
  }

  test('bindings takes only POST', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/default/bindings');
    assert.equal(res.status, 405);
  });
});

describe('subresources that need a kubelet answer at once, or as soon as it refuses', { skip: noKubectl }, () => {
  test('kubectl logs and exec print the error and fail, without hanging', async () => {
    const ns = await server.newNamespace('kubelet');
    await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') });

    // Not scheduled: upstream streams an empty log; exec needs a host.
    const emptyLog = await kubectl('-n', ns, 'logs', 'p');
    assert.equal(emptyLog.code, 0, emptyLog.stderr);
    assert.equal(emptyLog.stdout, '');
    const unscheduled = await kubectl('-n', ns, 'exec', 'p', '--', 'ls');
    assert.notEqual(unscheduled.code, 0);
    assert.match(unscheduled.stderr, /pod p does not have a host assigned/);

    await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding('p', 'node-1') });
    // A node whose kubelet is not there: nothing listens on its port.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    await server.request('POST', '/api/v1/nodes', {
      body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } },
    });
    const cases: [string[], RegExp][] = [
      [['logs', 'p'], new RegExp(`Get "https://127\\.0\\.0\\.1:${port}/containerLogs/[^/]+/p/c": dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused`)],
      // kubectl's WebSocket exec, which Plinth runs on the kubelet over SPDY as upstream's stream translator: client-go's words.
      [['exec', 'p', '--', 'ls'], new RegExp(`Internal error occurred: error sending request: Post "https://127\\.0\\.0\\.1:${port}/exec/${ns}/p/c\\?command=ls&error=1&output=1": dial tcp 127\\.0\\.0\\.1:${port}: connect: connection refused`)],
      [['logs', 'p', '-c', 'nope'], /container nope is not valid for pod p/],
    ];
    for (const [args, expected] of cases) {
      const res = await kubectl('-n', ns, ...args);
      assert.notEqual(res.code, 0, `kubectl ${args.join(' ')} succeeded`);
      assert.match(res.stderr, expected);
      assert.ok(res.ms < 10_000, `kubectl ${args.join(' ')} took ${res.ms} ms`);
    }
  });

  const direct: [string, string, number, string][] = [
    ['a bound pod whose node does not exist', 'namespaces/NS/pods/p/exec?command=ls', 404, 'nodes "node-x" not found'],
    ['a pod proxy without a pod IP', 'namespaces/NS/pods/p/proxy/', 400, 'address not allowed'],
    // A service without a selector has no Endpoints upstream (its endpoints controller makes none).
    ['a service proxy without endpoints', 'namespaces/NS/services/s/proxy/path', 404, 'endpoints "s" not found'],
    ['a node proxy', 'nodes/node-x/proxy/metrics', 404, 'nodes "node-x" not found'],
  ];
  for (const [name, subpath, code, message] of direct) {
    test(name, async () => {
      const ns = await server.newNamespace('connect');
      await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') });
      await server.request('POST', `/api/v1/namespaces/${ns}/pods/p/binding`, { body: binding('p', 'node-x') });
      await server.request('POST', `/api/v1/namespaces/${ns}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] } } });
      const res = await server.request('GET', `/api/v1/${subpath.replace('NS', ns)}`);
      assert.equal(res.status, code, res.text);
      assert.equal(res.json.message, message);
    });
  }
});

describe('componentstatuses', { skip: noKubectl }, () => {
  test('kubectl get cs shows etcd-0 healthy and the unreachable scheduler and controller manager', async () => {
    const res = await kubectl('get', 'cs');
    assert.equal(res.code, 0, res.stderr);
    const lines = res.stdout.trim().split('\n');
    assert.match(lines[0]!, /^NAME\s+STATUS\s+MESSAGE\s+ERROR$/);
    assert.match(res.stdout, /etcd-0\s+Healthy\s+ok/);
    assert.match(res.stdout, /scheduler\s+Unhealthy\s+Get "https:\/\/127\.0\.0\.1:10259\/healthz": dial tcp 127\.0\.0\.1:10259: connect: connection refused/);
    assert.match(res.stdout, /controller-manager\s+Unhealthy/);
    assert.match(res.stderr, /v1 ComponentStatus is deprecated in v1\.19\+/);
  });

  test('a list is filtered by label and field selectors, as upstream\'s componentstatus List', async () => {
    const names = async (query: string) => {
      const res = await server.request('GET', `/api/v1/componentstatuses?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.json.items.map((c: { metadata: { name: string } }) => c.metadata.name);
    };
    assert.deepEqual(await names('fieldSelector=metadata.name%3Detcd-0'), ['etcd-0']);
    assert.deepEqual((await names('fieldSelector=metadata.namespace%3D')).length, 3);
    assert.deepEqual(await names('labelSelector=a%3Db'), []);
    assert.equal((await server.request('GET', '/api/v1/componentstatuses?fieldSelector=foo%3Dbar')).status, 400);
  });

  test('get by name, and a name that is no component', async () => {
    const one = await server.request('GET', '/api/v1/componentstatuses/etcd-0');
    assert.equal(one.status, 200);
    assert.deepEqual(one.json.conditions, [{ type: 'Healthy', status: 'True', message: 'ok' }]);
    const missing = await server.request('GET', '/api/v1/componentstatuses/nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message, 'componentstatus "nope" not found');
    assert.deepEqual(missing.json.details, { name: 'nope', kind: 'componentstatus' });
    assert.equal((await server.request('POST', '/api/v1/componentstatuses', { body: { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' } } })).status, 405);
  });
});

describe('deprecated built-in APIs', () => {
  test('every request to v1 Endpoints is warned of its deprecation, errors included; EndpointSlices are not', async () => {
    const ns = await server.newNamespace('deprecated');
    const warning = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"';
    const created = await server.request('POST', `/api/v1/namespaces/${ns}/endpoints`, { body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e' } } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.warning, warning);
    for (const [method, url] of [['GET', `/api/v1/namespaces/${ns}/endpoints`], ['GET', '/api/v1/endpoints'], ['GET', `/api/v1/namespaces/${ns}/endpoints/missing`], ['DELETE', `/api/v1/namespaces/${ns}/endpoints/e`]] as const) {
      const res = await server.request(method, url);
      assert.equal(res.headers.warning, warning, `${method} ${url}: ${res.status}`);
    }
    assert.equal((await server.request('GET', `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`)).headers.warning, undefined);
    assert.equal((await server.request('GET', '/api/v1/componentstatuses/etcd-0')).headers.warning, '299 - "v1 ComponentStatus is deprecated in v1.19+"');
  });
});

describe('pods/ephemeralcontainers', () => {
  test('adds an ephemeral container; existing ones may not change; nothing else changes', async () => {
    const ns = await server.newNamespace('ephemeral');
    await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('p') });
    const url = `/api/v1/namespaces/${ns}/pods/p/ephemeralcontainers`;
    const current = (await server.request('GET', url)).json;
    current.spec.ephemeralContainers = [{ name: 'debugger', image: 'busybox', targetContainerName: 'c' }];
    current.spec.containers[0].image = 'nginx';
    const added = await server.request('PUT', url, { body: current });
    assert.equal(added.status, 200, added.text);
    assert.equal(added.json.spec.ephemeralContainers[0].name, 'debugger');
    assert.equal(added.json.spec.ephemeralContainers[0].terminationMessagePolicy, 'File');
    assert.equal(added.json.spec.containers[0].image, 'busybox', 'only ephemeral containers change through this subresource');

    const changed = await server.request('PATCH', url, {
      body: { spec: { ephemeralContainers: [{ name: 'debugger', image: 'alpine' }] } },
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(changed.status, 422, changed.text);
    assert.match(changed.json.message, /existing ephemeral containers "debugger" may not be changed/);

    const invalid = await server.request('PATCH', url, {
      body: { spec: { ephemeralContainers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80 }] }] } },
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(invalid.status, 422, invalid.text);
    assert.match(invalid.json.message, /spec\.ephemeralContainers\[\d\]\.name: Duplicate value: "c"/);
    assert.match(invalid.json.message, /spec\.ephemeralContainers\[\d\]\.ports: Forbidden: cannot be set for an Ephemeral Container/);

    // The pod, with its ephemeral container, is updated as any other (only its create may not set one).
    const labelled = await server.request('PATCH', `/api/v1/namespaces/${ns}/pods/p`, {
      body: { metadata: { labels: { debugged: 'yes' } } }, headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(labelled.status, 200, labelled.text);
    const replaced = await server.request('PUT', `/api/v1/namespaces/${ns}/pods/p`, { body: { ...labelled.json, metadata: { ...labelled.json.metadata, annotations: { a: 'b' } } } });
    assert.equal(replaced.status, 200, replaced.text);
  });

  test('a bound pod with scheduling gates is refused on create only', async () => {
    const ns = await server.newNamespace('gated');
    const gated = { ...pod('g'), spec: { ...pod('g').spec, nodeName: 'n1', schedulingGates: [{ name: 'example.com/wait' }] } };
    const refused = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: gated });
    assert.equal(refused.status, 422, refused.text);
    assert.match(refused.json.message, /spec\.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared/);
  });
});

describe('CertificateSigningRequest approval', () => {
  const dir = tempDir('csr-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function createCsr(name: string) {
    await run('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', path.join(dir, `${name}.key`), '-subj', `/CN=${name}`, '-out', path.join(dir, `${name}.csr`)]);
    const request = readFileSync(path.join(dir, `${name}.csr`)).toString('base64');
    const res = await server.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      body: { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], username: 'someone-else' } },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.spec.username, 'admin', 'the requestor is who created it');
    return res.json;
  }

  test('PUT approval adds the Approved condition and nothing else', async () => {
    const csr = await createCsr('alice');
    csr.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Manual', message: 'ok' }] };
    csr.spec.usages = ['server auth'];
    const res = await server.request('PUT', '/apis/certificates.k8s.io/v1/certificatesigningrequests/alice/approval', { body: csr });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.json.spec.usages, ['client auth']);
    assert.equal(res.json.status.conditions[0].type, 'Approved');
    assert.ok(res.json.status.conditions[0].lastUpdateTime);
    const denied = structuredClone(res.json);
    denied.status.conditions.push({ type: 'Denied', status: 'True' });
    const both = await server.request('PUT', '/apis/certificates.k8s.io/v1/certificatesigningrequests/alice/approval', { body: denied });
    assert.equal(both.status, 422);
    assert.match(both.json.message, /Approved and Denied conditions are mutually exclusive/);
  });

  // kubectl sends the CSR as Protobuf.
  test('kubectl certificate approve, then get csr', { skip: noKubectl }, async () => {
    await createCsr('bob');
    const approve = await kubectl('certificate', 'approve', 'bob');
    assert.equal(approve.code, 0, approve.stderr);
    const get = await kubectl('get', 'csr', 'bob');
    assert.match(get.stdout, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION/);
    assert.match(get.stdout, /bob\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+admin\s+<none>\s+Approved/);
  });

  test('kubectl get csr shows the pending request', { skip: noKubectl }, async () => {
    await createCsr('carol');
    const get = await kubectl('get', 'csr', 'carol');
    assert.equal(get.code, 0, get.stderr);
    assert.match(get.stdout, /carol\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+admin\s+<none>\s+Pending/);
  });
});

describe('objects every cluster has', () => {
  test('the kubernetes Service, its Endpoints and EndpointSlice point at Plinth', async () => {
    const svc = (await server.request('GET', '/api/v1/namespaces/default/services/kubernetes')).json;
    assert.equal(svc.spec.clusterIP, '10.96.0.1');
    assert.deepEqual(svc.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: server.port }]);
    assert.deepEqual(svc.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
    const ep = (await server.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).json;
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: server.port, protocol: 'TCP' }] }]);
    const slice = (await server.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).json;
    assert.equal(slice.addressType, 'IPv4');
    assert.deepEqual(slice.endpoints[0].addresses, ['127.0.0.1']);
    assert.deepEqual(slice.ports, [{ name: 'https', port: server.port, protocol: 'TCP' }]);
  });

  test('flowcontrol\'s mandatory and suggested objects', async () => {
    const schemas = (await server.request('GET', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas')).json.items;
    assert.deepEqual(schemas.map((s: { metadata: { name: string }; spec: { matchingPrecedence: number; priorityLevelConfiguration: { name: string } } }) => [s.metadata.name, s.spec.matchingPrecedence, s.spec.priorityLevelConfiguration.name]), [
      ['catch-all', 10000, 'catch-all'], ['endpoint-controller', 150, 'workload-high'], ['exempt', 1, 'exempt'], ['global-default', 9900, 'global-default'],
      ['kube-controller-manager', 800, 'workload-high'], ['kube-scheduler', 800, 'workload-high'], ['kube-system-service-accounts', 900, 'workload-high'],
      ['probes', 2, 'exempt'], ['service-accounts', 9000, 'workload-low'], ['system-leader-election', 100, 'leader-election'], ['system-node-high', 400, 'node-high'],
      ['system-nodes', 500, 'system'], ['workload-leader-election', 200, 'leader-election'],
    ]);
    const levels = (await server.request('GET', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations')).json.items;
    assert.deepEqual(levels.map((l: { metadata: { name: string }; spec: { type: string; limited?: { nominalConcurrencyShares: number; lendablePercent: number } } }) => [l.metadata.name, l.spec.type, l.spec.limited?.nominalConcurrencyShares, l.spec.limited?.lendablePercent]), [
      ['catch-all', 'Limited', 5, 0], ['exempt', 'Exempt', undefined, undefined], ['global-default', 'Limited', 20, 50], ['leader-election', 'Limited', 10, 0],
      ['node-high', 'Limited', 40, 25], ['system', 'Limited', 30, 33], ['workload-high', 'Limited', 40, 50], ['workload-low', 'Limited', 100, 90],
    ]);
  });

  test('the legacy token tracking ConfigMap, as kube-controller-manager\'s legacy token cleaner reads it', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/kube-apiserver-legacy-service-account-token-tracking');
    assert.equal(res.status, 200, res.text);
    assert.match(res.json.data.since, /^\d{4}-\d{2}-\d{2}$/);
  });

  test('a Local APIService per served group version', async () => {
    const items = (await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices')).json.items as { metadata: { name: string }; spec: Record<string, unknown>; status: { conditions: { type: string; status: string; reason: string }[] } }[];
    const core = items.find((a) => a.metadata.name === 'v1.');
    assert.ok(core);
    // The core group's empty name is not written (group is omitempty), as upstream's v1. shows.
    assert.deepEqual(core.spec, { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 });
    assert.deepEqual(core.status.conditions.map((c) => [c.type, c.status, c.reason]), [['Available', 'True', 'Local']]);
    assert.ok(items.some((a) => a.metadata.name === 'v1.apps'));
    const table = await server.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps', { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
    assert.deepEqual(table.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Service', 'Available', 'Age']);
    assert.deepEqual(table.json.rows[0].cells.slice(0, 3), ['v1.apps', 'Local', 'True']);
  });

  test('--advertise-address is the kubernetes Service\'s endpoint, discovery\'s server address and in the serving certificate', async () => {
    for (const [address, family, serverAddress] of [['10.20.30.40', 'IPv4', '10.20.30.40'], ['2001:db8::7', 'IPv6', '[2001:db8::7]']] as const) {
      const advertised = await startServer({ advertiseAddress: address });
      try {
        const slice = (await advertised.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).json;
        assert.deepEqual([slice.addressType, slice.endpoints[0].addresses], [family, [address]]);
        const ep = (await advertised.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).json;
        assert.deepEqual(ep.subsets[0].addresses, [{ ip: address }]);
        const api = (await advertised.request('GET', '/api')).json;
        assert.deepEqual(api.serverAddressByClientCIDRs, [{ clientCIDR: '0.0.0.0/0', serverAddress: `${serverAddress}:${advertised.port}` }]);
        const san = await new Promise<string>((resolve, reject) => {
          const socket = tls.connect({ host: '127.0.0.1', port: advertised.port, ca: advertised.caPem }, () => {
            resolve(socket.getPeerCertificate().subjectaltname ?? '');
            socket.end();
          }).on('error', reject);
        });
        assert.ok(san.split(', ').includes(`IP Address:${address.replace('2001:db8::7', '2001:DB8:0:0:0:0:0:7')}`), san);
      } finally {
        await advertised.stop();
      }
    }
  });

  // The objects exist when the server serves; moving them to the new port follows right
  // after, as upstream's bootstrap controller reconciles them in the background.
  test('a restart on the same data keeps them and follows the new port', async () => {
    const dataDir = tempDir();
    const first = await startServer({ storage: 'sqlite', dataDir });
    const before = (await first.request('GET', '/api/v1/namespaces/default/services/kubernetes')).json;
    const schemaBefore = (await first.request('GET', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt')).json;
    await first.stop();
    const second = await startServer({ storage: 'sqlite', dataDir });
    try {
      const after = (await second.request('GET', '/api/v1/namespaces/default/services/kubernetes')).json;
      assert.equal(after.metadata.uid, before.metadata.uid);
      await eventually(async () => {
        const moved = (await second.request('GET', '/api/v1/namespaces/default/services/kubernetes')).json;
        assert.equal(moved.spec.ports[0].targetPort, second.port);
        const slice = (await second.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).json;
        assert.equal(slice.ports[0].port, second.port);
      });
      const schemaAfter = (await second.request('GET', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/exempt')).json;
      assert.equal(schemaAfter.metadata.resourceVersion, schemaBefore.metadata.resourceVersion);
    } finally {
      await second.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
