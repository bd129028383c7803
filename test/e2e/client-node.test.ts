// CRUD through @kubernetes/client-node, the official JavaScript client.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let core: CoreV1Api;
let apps: AppsV1Api;
before(async () => {
  server = await startServer();
  const kc = new KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
});
after(async () => {
  await server.stop();
});

test('client-node: namespace and configmap create, read, list, replace, patch, delete', async () => {
  const namespace = 'client-node';
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  const created = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'cfg', labels: { app: 'x' } }, data: { a: '1' } } });
  assert.equal(created.metadata?.namespace, namespace);
  assert.ok(created.metadata?.uid);

  const read = await core.readNamespacedConfigMap({ namespace, name: 'cfg' });
  assert.deepEqual(read.data, { a: '1' });

  const list = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app=x' });
  assert.deepEqual(list.items.map((i) => i.metadata?.name), ['cfg']);

  read.data = { a: '2' };
  const replaced = await core.replaceNamespacedConfigMap({ namespace, name: 'cfg', body: read });
  assert.equal(replaced.data?.a, '2');

  await assert.rejects(core.replaceNamespacedConfigMap({ namespace, name: 'cfg', body: read }), (err: any) => err.code === 409);

  const deleted = await core.deleteNamespacedConfigMap({ namespace, name: 'cfg' });
  assert.equal((deleted as any).status, 'Success');
  await assert.rejects(core.readNamespacedConfigMap({ namespace, name: 'cfg' }), (err: any) => err.code === 404);
});

test('client-node: a Deployment is created with upstream defaults', async () => {
  const created = await apps.createNamespacedDeployment({
    namespace: 'default',
    body: {
      metadata: { name: 'web' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    },
  });
  assert.equal(created.spec?.replicas, 1);
  assert.equal(created.spec?.revisionHistoryLimit, 10);
  assert.equal(created.spec?.progressDeadlineSeconds, 600);
  assert.equal(created.spec?.strategy?.type, 'RollingUpdate');
  assert.equal(created.spec?.template.spec?.restartPolicy, 'Always');
  assert.equal(created.spec?.template.spec?.containers[0]?.imagePullPolicy, 'Always');
  assert.equal(created.metadata?.generation, 1);
  const all = await apps.listDeploymentForAllNamespaces();
  assert.ok(all.items.some((d) => d.metadata?.name === 'web'));
  await apps.deleteNamespacedDeployment({ namespace: 'default', name: 'web' });
});
