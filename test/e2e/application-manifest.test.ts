// A typical application's install manifest (test/e2e/fixtures/application.yaml: every
// kind a chart or operator brings) through kubectl: client-side apply, server-side apply,
// `get all`, `describe` of every kind, and delete.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../helpers/server.ts';
import { kubectlAt } from '../helpers/kubectl.ts';

const bin = '/usr/bin/kubectl';
const skip = existsSync(bin) ? false : `kubectl is not installed at ${bin}`;
const manifest = path.join(import.meta.dirname, 'fixtures/application.yaml');

const objectCount = readFileSync(manifest, 'utf8').split('\n---\n').length;

/** Every kind in the manifest, as `kubectl describe` names it, with one object's name. */
const kinds: [resource: string, name: string, namespaced: boolean][] = [
  ['namespace', 'shop', false], ['priorityclass', 'shop-critical', false], ['storageclass', 'shop-fast', false],
  ['customresourcedefinition', 'carts.shop.example.com', false], ['serviceaccount', 'storefront', true],
  ['role', 'storefront', true], ['rolebinding', 'storefront', true], ['clusterrole', 'shop-cart-reader', false],
  ['clusterrolebinding', 'shop-cart-reader', false], ['configmap', 'storefront-config', true], ['secret', 'storefront-db', true],
  ['limitrange', 'defaults', true], ['resourcequota', 'compute', true], ['persistentvolumeclaim', 'uploads', true],
  ['deployment', 'storefront', true], ['statefulset', 'db', true], ['daemonset', 'log-agent', true], ['job', 'migrate', true],
  ['cronjob', 'cleanup', true], ['service', 'storefront', true], ['ingressclass', 'shop-nginx', false], ['ingress', 'storefront', true],
  ['networkpolicy', 'db-from-storefront', true], ['poddisruptionbudget', 'storefront', true],
  ['horizontalpodautoscaler', 'storefront', true], ['validatingwebhookconfiguration', 'carts.shop.example.com', false],
  ['mutatingwebhookconfiguration', 'carts.shop.example.com', false],
];

let server: ServerProcess;
let cacheDir: string;
before(async () => {
  if (skip !== false) return;
  server = await startServerProcess();
  cacheDir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-cache-'));
});
after(async () => {
  await server?.stop();
  if (cacheDir !== undefined) rmSync(cacheDir, { recursive: true, force: true });
});

const kubectl = (...args: string[]) => kubectlAt(bin, ['--kubeconfig', server.kubeconfigPath, '--cache-dir', cacheDir], ...args);

async function describeEvery(): Promise<void> {
  for (const [resource, name, namespaced] of kinds) {
    const out = await kubectl('describe', resource, name, ...(namespaced ? ['-n', 'shop'] : []));
    assert.match(out, new RegExp(`^Name:\\s+${name.replaceAll('.', '\\.')}$`, 'm'), `describe ${resource}`);
  }
}

async function deleteAll(): Promise<void> {
  await kubectl('delete', '-f', manifest, '--ignore-not-found', '--wait=true');
  for (const [resource, name, namespaced] of kinds) {
    if (resource === 'namespace') continue;
    const out = await kubectl('get', resource, name, '--ignore-not-found', ...(namespaced ? ['-n', 'shop'] : []));
    assert.equal(out, '', `${resource} ${name} is gone`);
  }
}

test('client-side apply creates every object, a second apply changes nothing, get all and describe show them', { skip }, async (t) => {
  t.after(() => kubectl('delete', '-f', manifest, '--ignore-not-found', '--wait=true'));
  const created = await kubectl('apply', '-f', manifest);
  assert.equal(created.trim().split('\n').length, objectCount, created);
  for (const line of created.trim().split('\n')) assert.match(line, / created$/);
  // A second apply sends no patch, but where kubectl's three-way merge always finds one,
  // with kube-apiserver too: a Secret's stringData (stored as data), a selector with patch
  // strategy "replace" (PodDisruptionBudget), and lists without a merge key the server
  // defaults: webhooks' rules (scope "*"), a StatefulSet's volumeClaimTemplates (apiVersion,
  // kind, volumeMode, status.phase); and a zero the manifest gives an omitempty field, which
  // is not stored (a PriorityClass's globalDefault: false).
  const again = await kubectl('apply', '-f', manifest);
  const reapplied = new Set(['secret/storefront-db', 'poddisruptionbudget.policy/storefront', 'statefulset.apps/db',
    'priorityclass.scheduling.k8s.io/shop-critical',
    'validatingwebhookconfiguration.admissionregistration.k8s.io/carts.shop.example.com',
    'mutatingwebhookconfiguration.admissionregistration.k8s.io/carts.shop.example.com']);
  for (const line of again.trim().split('\n')) {
    const [object, outcome] = line.split(' ');
    assert.equal(outcome, reapplied.has(object!) ? 'configured' : 'unchanged', line);
  }

  const all = await kubectl('get', 'all', '-n', 'shop');
  for (const name of ['service/storefront', 'service/db', 'deployment.apps/storefront', 'statefulset.apps/db', 'daemonset.apps/log-agent',
    'job.batch/migrate', 'cronjob.batch/cleanup', 'horizontalpodautoscaler.autoscaling/storefront']) {
    assert.match(all, new RegExp(`^${name.replaceAll('.', '\\.')}\\s`, 'm'), `get all shows ${name}`);
  }
  await describeEvery();

  // Server-side apply over client-side apply takes over kubectl's fields. The webhooks'
  // `rules` are atomic lists the server defaulted (scope "*"), so their last-applied value
  // no longer matches and upstream reports a conflict there too: force takes them.
  const applied = await kubectl('apply', '--server-side', '--force-conflicts', '-f', manifest);
  for (const line of applied.trim().split('\n')) assert.match(line, / serverside-applied$/, applied);
  const deployment = JSON.parse(await kubectl('get', 'deployment', 'storefront', '-n', 'shop', '-o', 'json', '--show-managed-fields')) as { metadata: { managedFields: { manager: string; operation: string }[] } };
  assert.ok(deployment.metadata.managedFields.some((m) => m.manager === 'kubectl' && m.operation === 'Apply'));
  await deleteAll();
});

test('server-side apply creates every object, again without conflicts, and delete removes them', { skip }, async (t) => {
  t.after(() => kubectl('delete', '-f', manifest, '--ignore-not-found', '--wait=true'));
  const applied = await kubectl('apply', '--server-side', '-f', manifest);
  assert.equal(applied.trim().split('\n').length, objectCount, applied);
  for (const line of applied.trim().split('\n')) assert.match(line, / serverside-applied$/, applied);
  await kubectl('apply', '--server-side', '-f', manifest);
  await describeEvery();
  const statefulSet = JSON.parse(await kubectl('get', 'statefulset', 'db', '-n', 'shop', '-o', 'json')) as { spec: { volumeClaimTemplates: { metadata: { name: string } }[] } };
  assert.equal(statefulSet.spec.volumeClaimTemplates[0]!.metadata.name, 'data');
  await deleteAll();
});
