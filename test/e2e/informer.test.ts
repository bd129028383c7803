// A @kubernetes/client-node informer and `kubectl get -w` against a real server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let kc: KubeConfig;
before(async () => {
  server = await startServer({ watchBookmarkIntervalMs: 500 });
  kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
});
after(async () => {
  await server.stop();
});

/** Waits until the informer has recorded every one of `expected`. */
const seen = (events: string[], ...expected: string[]) => eventually(() => assert.deepEqual(expected.filter((e) => !events.includes(e)), [], `events so far: ${events.join(', ')}`));

test('a client-node informer sees add, update and delete, and loses nothing across a reconnect', async () => {
  const core = kc.makeApiClient(CoreV1Api);
  const namespace = 'informer';
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'before' }, data: { v: '0' } } });

  const events: string[] = [];
  const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`,
    () => core.listNamespacedConfigMap({ namespace }));
  informer.on('add', (o) => events.push(`add ${o.metadata?.name} ${o.data?.v}`));
  informer.on('update', (o) => events.push(`update ${o.metadata?.name} ${o.data?.v}`));
  informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
  await informer.start();
  try {
    await seen(events, 'add before 0');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'x' }, data: { v: '1' } } });
    await seen(events, 'add x 1');
    await core.patchNamespacedConfigMap({ namespace, name: 'x', body: { data: { v: '2' } } },
      { headers: { 'Content-Type': 'application/merge-patch+json' } } as never).catch(async () => {
      const cur = await core.readNamespacedConfigMap({ namespace, name: 'x' });
      cur.data = { v: '2' };
      await core.replaceNamespacedConfigMap({ namespace, name: 'x', body: cur });
    });
    await seen(events, 'update x 2');

    // Drop the watch: the informer reconnects from the last resourceVersion it saw.
    // Writes made while it is disconnected must all arrive.
    await informer.stop();
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'while-away' }, data: { v: '3' } } });
    await core.deleteNamespacedConfigMap({ namespace, name: 'x' });
    await informer.start();
    await seen(events, 'add while-away 3', 'delete x');
    const cached = informer.list().map((o) => o.metadata?.name).sort();
    assert.deepEqual(cached, ['before', 'while-away']);
  } finally {
    await informer.stop();
  }
});

const kubectl133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
test('kubectl get -w prints changes as they happen', { skip: existsSync(kubectl133) ? false : `${kubectl133} is not installed` }, async () => {
  await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'getw' } } });
  await server.request('POST', '/api/v1/namespaces/getw/configmaps', { body: { metadata: { name: 'first' }, data: { a: '1' } } });
  const child = spawn(kubectl133, ['--kubeconfig', server.kubeconfigPath, '-n', 'getw', 'get', 'cm', '-w', '--output-watch-events'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { out += c.toString(); });
  try {
    await eventually(() => assert.match(out, /first/));
    await server.request('POST', '/api/v1/namespaces/getw/configmaps', { body: { metadata: { name: 'second' }, data: { a: '1' } } });
    await eventually(() => assert.match(out, /ADDED\s+second/));
    await server.request('DELETE', '/api/v1/namespaces/getw/configmaps/second');
    await eventually(() => assert.match(out, /DELETED\s+second/));
  } finally {
    child.kill();
  }
});
