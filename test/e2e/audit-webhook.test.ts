// The audit webhook backend end to end (`--audit-webhook-*`): audit events reach an HTTPS
// webhook described by a kubeconfig as audit.k8s.io EventLists, in batches of at most the
// batch size, a partial one once its oldest event has waited; a webhook answering 500 is
// asked again; events also go to the log when both are configured.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseServeFlags } from '../../src/cli/config.ts';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const dir = tempDir('plinth-audit-webhook-');
let server: TestServer;
let webhook: https.Server;
const batches: { kind: string; apiVersion: string; items: { kind: string; verb: string; stage: string; requestURI: string }[] }[] = [];
let failures = 2;
let refused = 0;

before(async () => {
  const material = await ensureServingMaterial(dir);
  webhook = https.createServer({ cert: material.certPem, key: material.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // The first two batches are answered 500: they are sent again.
      if (failures > 0) {
        failures--;
        refused++;
        res.writeHead(500).end('try again');
        return;
      }
      batches.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const kubeconfig = path.join(dir, 'audit-webhook.kubeconfig');
  writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config',
    'clusters:', '- name: audit', '  cluster:', `    server: https://127.0.0.1:${(webhook.address() as AddressInfo).port}/audit`, `    certificate-authority-data: ${Buffer.from(material.caPem).toString('base64')}`,
    'contexts:', '- name: audit', '  context: {cluster: audit}', 'current-context: audit', '',
  ].join('\n'));
  const policy = path.join(dir, 'policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n');
  const { auditWebhook } = parseServeFlags([
    `--audit-webhook-config-file=${kubeconfig}`, '--audit-webhook-batch-max-size=5', '--audit-webhook-batch-max-wait=100ms', '--audit-webhook-initial-backoff=10ms',
  ]);
  server = await startServer({ auditPolicyFile: policy, auditLogPath: path.join(dir, 'audit.log'), auditWebhook });
});
after(async () => {
  await server?.stop();
  webhook?.close();
});

test('audit events reach the webhook as EventLists in batches of at most the batch size, and the log too', async () => {
  for (let i = 0; i < 12; i++) assert.equal((await server.request('GET', `/api/v1/namespaces/default/configmaps?limit=${i + 1}`)).status, 200);
  const received = await eventually(() => {
    const items = batches.flatMap((b) => b.items).filter((e) => e.requestURI.startsWith('/api/v1/namespaces/default/configmaps?limit='));
    assert.equal(items.length, 12);
    return items;
  });
  for (const batch of batches) {
    assert.equal(batch.kind, 'EventList');
    assert.equal(batch.apiVersion, 'audit.k8s.io/v1');
    assert.ok(batch.items.length <= 5, `a batch of ${batch.items.length}`);
  }
  assert.ok(received.every((e) => e.kind === 'Event' && e.verb === 'list' && e.stage === 'ResponseComplete'));
  // The two refused batches were sent again: nothing was lost.
  assert.equal(refused, 2);
  const logged = readFileSync(path.join(dir, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  assert.equal(logged.filter((e: { requestURI: string }) => e.requestURI.startsWith('/api/v1/namespaces/default/configmaps?limit=')).length, 12);
});

test('--audit-webhook-* flags are checked as upstream checks them', () => {
  assert.throws(() => parseServeFlags(['--audit-webhook-config-file=/k', '--audit-webhook-mode=sometimes']), /invalid audit webhook mode sometimes, allowed modes are "batch,blocking,blocking-strict"/);
  assert.throws(() => parseServeFlags(['--audit-webhook-config-file=/k', '--audit-webhook-batch-max-size=0']), { message: 'invalid audit batch webhook max batch size 0, must be a positive number' });
  assert.throws(() => parseServeFlags(['--audit-webhook-config-file=/k', '--audit-webhook-batch-buffer-size=x']),
    { message: 'invalid argument "x" for "--audit-webhook-batch-buffer-size" flag: strconv.ParseInt: parsing "x": invalid syntax' });
  assert.throws(() => parseServeFlags(['--audit-webhook-config-file=/k', '--audit-webhook-batch-throttle-qps=-1']), { message: 'invalid audit batch webhook throttle QPS -1, must be a positive number' });
  assert.deepEqual(parseServeFlags(['--audit-webhook-config-file=/k']).auditWebhook, {
    configFile: '/k', mode: 'batch', batch: { bufferSize: 10_000, maxBatchSize: 400, maxWaitMs: 30_000, throttle: { qps: 10, burst: 15 } }, version: 'audit.k8s.io/v1', initialBackoffMs: 10_000,
  });
  assert.equal(parseServeFlags(['--audit-webhook-config-file=/k', '--audit-webhook-batch-throttle-enable=false']).auditWebhook!.batch!.throttle, undefined);
  // The blocking modes leave the batch settings unchecked, as upstream.
  assert.deepEqual(parseServeFlags(['--audit-webhook-config-file=/k', '--audit-webhook-mode=blocking-strict', '--audit-webhook-batch-max-size=0']).auditWebhook, {
    configFile: '/k', mode: 'blocking-strict', version: 'audit.k8s.io/v1', initialBackoffMs: 10_000,
  });
});
