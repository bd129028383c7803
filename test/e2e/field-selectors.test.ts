// Field selectors of the built-in types and custom resources on list and watch: the labels
// each type's field label conversion accepts (pkg/apis/*/v1/conversion.go), what its
// selectable fields hold (pkg/registry/*/strategy.go), and the words of a refusal.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../helpers/eventually.ts';
import { openStream, startServer, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const namespace = () => server.newNamespace('fields');
const names = (list: any) => list.items.map((i: any) => i.metadata.name);

async function list(urlPath: string, fieldSelector: string): Promise<any> {
  const res = await server.request('GET', `${urlPath}?fieldSelector=${encodeURIComponent(fieldSelector)}`);
  assert.equal(res.status, 200, res.text);
  return res.json;
}

async function refused(urlPath: string, fieldSelector: string, message: string): Promise<void> {
  const res = await server.request('GET', `${urlPath}?fieldSelector=${encodeURIComponent(fieldSelector)}`);
  assert.equal(res.status, 400, res.text);
  assert.equal(res.json.reason, 'BadRequest');
  assert.equal(res.json.message, message);
}

async function create(urlPath: string, body: unknown): Promise<any> {
  const res = await server.request('POST', urlPath, { body });
  assert.equal(res.status, 201, res.text);
  return res.json;
}

const podTemplate = { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };

describe('jobs: status.successful, refused in batch/v1 words', () => {
  test('status.successful is the count of succeeded pods, 0 until there is one', async () => {
    const ns = await namespace();
    const jobs = `/apis/batch/v1/namespaces/${ns}/jobs`;
    await create(jobs, { metadata: { name: 'j' }, spec: { template: podTemplate } });
    assert.deepEqual(names(await list(jobs, 'status.successful=0')), ['j']);
    assert.deepEqual(names(await list(jobs, 'status.successful=1')), []);
    assert.deepEqual(names(await list(jobs, 'status.successful!=1,metadata.namespace=' + ns)), ['j']);
  });

  test('a watch on status.successful sees the job when it starts to match', async () => {
    const ns = await namespace();
    const jobs = `/apis/batch/v1/namespaces/${ns}/jobs`;
    const job = await create(jobs, { metadata: { name: 'j' }, spec: { template: podTemplate } });
    const stream = await openStream(server, `${jobs}?watch=1&resourceVersion=${job.metadata.resourceVersion}&fieldSelector=status.successful%3D1`);
    try {
      assert.equal(stream.status, 200);
      const res = await server.request('PATCH', `${jobs}/j/status`, {
        body: { status: { succeeded: 1, startTime: '2024-01-01T00:00:00Z' } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      assert.equal(res.status, 200, res.text);
      const event = await stream.next();
      assert.equal(event.type, 'ADDED');
      assert.equal(event.object.status.succeeded, 1);
    } finally {
      stream.close();
    }
  });

  test('another label is refused with the Job conversion\'s own words', async () => {
    const ns = await namespace();
    await refused(`/apis/batch/v1/namespaces/${ns}/jobs`, 'spec.parallelism=1', 'field label "spec.parallelism" not supported for Job');
  });
});

describe('replicationcontrollers and replicasets: status.replicas', () => {
  test('core/v1 converts status.replicas for ReplicationControllers', async () => {
    const ns = await namespace();
    const rcs = `/api/v1/namespaces/${ns}/replicationcontrollers`;
    await create(rcs, { metadata: { name: 'rc' }, spec: { replicas: 0, selector: { app: 'x' }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } } });
    assert.deepEqual(names(await list(rcs, 'status.replicas=0')), ['rc']);
    assert.deepEqual(names(await list(rcs, 'status.replicas=2')), []);
    await refused(rcs, 'spec.replicas=0', 'field label not supported: spec.replicas');
  });

  test('apps/v1 converts no label beyond metadata for ReplicaSets', async () => {
    const ns = await namespace();
    await refused(`/apis/apps/v1/namespaces/${ns}/replicasets`, 'status.replicas=0', '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });
});

describe('pods: the legacy spec.host', () => {
  test('selects on spec.nodeName', async () => {
    const ns = await namespace();
    const pods = `/api/v1/namespaces/${ns}/pods`;
    await create(pods, { metadata: { name: 'on-a' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'busybox' }] } });
    await create(pods, { metadata: { name: 'on-b' }, spec: { nodeName: 'node-b', containers: [{ name: 'c', image: 'busybox' }] } });
    assert.deepEqual(names(await list(pods, 'spec.host=node-a')), ['on-a']);
    assert.deepEqual(names(await list(pods, 'spec.host!=node-a')), ['on-b']);
  });
});

describe('certificatesigningrequests: spec.signerName', () => {
  const dir = tempDir('csr-fields-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('selects on the signer; metadata.namespace is not a label of the cluster-scoped type', async () => {
    const keyFile = path.join(dir, 'k.key');
    const csrFile = path.join(dir, 'k.csr');
    await promisify(execFile)('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-subj', '/CN=fields', '-out', csrFile]);
    const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
    await create(csrs, {
      metadata: { name: 'fields-csr' },
      spec: { request: readFileSync(csrFile).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
    });
    assert.ok(names(await list(csrs, 'spec.signerName=kubernetes.io/kube-apiserver-client')).includes('fields-csr'));
    assert.ok(!names(await list(csrs, 'spec.signerName=example.com/other')).includes('fields-csr'));
    await refused(csrs, 'metadata.namespace=x', 'field label not supported: metadata.namespace');
  });
});

describe('custom resources: metadata.namespace only when namespaced', () => {
  const crd = (scope: string, plural: string) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.fields.example.com` },
    spec: {
      group: 'fields.example.com',
      scope,
      names: { plural, singular: plural.slice(0, -1), kind: plural === 'globals' ? 'Global' : 'Local', listKind: plural === 'globals' ? 'GlobalList' : 'LocalList' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' } } } } } },
        selectableFields: [{ jsonPath: '.spec.color' }],
      }],
    },
  });

  async function establish(body: any): Promise<void> {
    await create('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body);
    await eventually(async () => {
      const res = await server.request('GET', `/apis/fields.example.com/v1/${body.spec.names.plural}`);
      assert.equal(res.status, 200, res.text);
    });
  }

  test('a cluster-scoped resource refuses metadata.namespace like upstream\'s crConverter', async () => {
    await establish(crd('Cluster', 'globals'));
    const globals = '/apis/fields.example.com/v1/globals';
    await create(globals, { apiVersion: 'fields.example.com/v1', kind: 'Global', metadata: { name: 'g' }, spec: { color: 'red' } });
    assert.deepEqual(names(await list(globals, 'spec.color=red,metadata.name=g')), ['g']);
    await refused(globals, 'metadata.namespace=', 'field label not supported: metadata.namespace');
  });

  test('a namespaced resource accepts it', async () => {
    await establish(crd('Namespaced', 'locals'));
    const ns = await namespace();
    const locals = `/apis/fields.example.com/v1/namespaces/${ns}/locals`;
    await create(locals, { apiVersion: 'fields.example.com/v1', kind: 'Local', metadata: { name: 'l' }, spec: { color: 'blue' } });
    assert.deepEqual(names(await list(locals, `metadata.namespace=${ns},spec.color=blue`)), ['l']);
  });
});
