// The audit backends' modes (`--audit-log-mode`, `--audit-webhook-mode`), as upstream's: a
// blocking-strict backend that cannot store a request's first event refuses the request
// (upstream's plain-text 500 "failed to store audit event"), a blocking one logs the failure
// and serves; batch mode buffers events before the log; the webhook's blocking modes send
// each event alone, the request waiting for its first.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseServeFlags, UsageError } from '../../src/cli/config.ts';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const dir = tempDir('plinth-audit-modes-');
const policy = path.join(dir, 'policy.yaml');
writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
after(() => rmSync(dir, { recursive: true, force: true }));

const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
const refusal = 'Internal Server Error: "/api/v1/namespaces/default/configmaps": failed to store audit event\n';

test('--audit-log-mode and --audit-log-batch-* are read and checked as upstream\'s, only with a log path', () => {
  const log = ['--audit-log-path=/tmp/x.log'];
  assert.equal(parseServeFlags(log).auditLogMode, 'blocking', 'upstream\'s default for the log');
  assert.equal(parseServeFlags(log).auditLogBatch, undefined);
  assert.deepEqual(parseServeFlags([...log, '--audit-log-mode=batch']).auditLogBatch, { bufferSize: 10_000, maxBatchSize: 1, maxWaitMs: 0 });
  assert.deepEqual(parseServeFlags([...log, '--audit-log-mode=batch', '--audit-log-batch-max-size=50', '--audit-log-batch-max-wait=2s', '--audit-log-batch-throttle-enable',
    '--audit-log-batch-throttle-qps=2.5', '--audit-log-batch-throttle-burst=3']).auditLogBatch, { bufferSize: 10_000, maxBatchSize: 50, maxWaitMs: 2000, throttle: { qps: 2.5, burst: 3 } });
  const refused: Array<[string[], string]> = [
    [['--audit-log-mode=sometimes'], 'invalid audit log mode sometimes, allowed modes are "batch,blocking,blocking-strict"'],
    [['--audit-log-mode=batch', '--audit-log-batch-buffer-size=0'], 'invalid audit batch log buffer size 0, must be a positive number'],
    [['--audit-log-mode=batch', '--audit-log-batch-max-size=-1'], 'invalid audit batch log max batch size -1, must be a positive number'],
    [['--audit-log-mode=batch', '--audit-log-batch-throttle-enable'], 'invalid audit batch log throttle QPS 0, must be a positive number'],
    [['--audit-log-mode=batch', '--audit-log-batch-throttle-enable', '--audit-log-batch-throttle-qps=1'], 'invalid audit batch log throttle burst 0, must be a positive number'],
    [['--audit-log-batch-max-wait=soon'], 'invalid argument "soon" for "--audit-log-batch-max-wait" flag: time: invalid duration "soon"'],
  ];
  for (const [flags, message] of refused) assert.throws(() => parseServeFlags([...log, ...flags]), (err: Error) => err instanceof UsageError && err.message === message, flags.join(' '));
  assert.doesNotThrow(() => parseServeFlags([...log, '--audit-log-mode=blocking', '--audit-log-batch-buffer-size=0']), 'the batch settings are checked in batch mode only');
  assert.doesNotThrow(() => parseServeFlags(['--audit-log-mode=sometimes']), 'nothing is checked without a log');
});

describe('the log backend', () => {
  const start = async (name: string, flags: string[]) => {
    const logPath = path.join(dir, name, 'audit.log');
    const { auditLogMode, auditLogBatch } = parseServeFlags([`--audit-log-path=${logPath}`, ...flags]);
    const errors: string[] = [];
    const server = await startServer({ auditPolicyFile: policy, auditLogPath: logPath, auditLogMode, ...(auditLogBatch !== undefined ? { auditLogBatch } : {}) });
    return { server, logPath, errors };
  };
  /** The log file replaced by a directory: every append fails (EISDIR) until it is removed. */
  const breakLog = (logPath: string) => {
    rmSync(logPath, { force: true });
    mkdirSync(logPath, { recursive: true });
  };
  const logged = (logPath: string) => readFileSync(logPath, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { stage: string; verb: string; objectRef?: { name?: string } });

  test('blocking-strict: a request whose first event cannot be written is refused, and served again once it can', async (t) => {
    const { server, logPath } = await start('strict', ['--audit-log-mode=blocking-strict']);
    t.after(() => server.stop());
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('a') })).status, 201);
    // The first event has no name yet: the body names the object afterwards, as upstream's.
    assert.deepEqual(logged(logPath).filter((e) => e.verb === 'create').map((e) => `${e.objectRef?.name} ${e.stage}`), ['undefined RequestReceived', 'a ResponseComplete'], 'written at once');
    breakLog(logPath);
    const refused = await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('b') });
    assert.equal(refused.status, 500);
    assert.equal(refused.text, refusal);
    assert.match(String(refused.headers['content-type']), /^text\/plain/);
    assert.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps/b')).status, 500, 'nothing is served while it cannot be written');
    rmSync(logPath, { recursive: true });
    assert.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps/b')).status, 404, 'b was never created');
  });

  test('blocking (the default): a failed write does not stop the request', async (t) => {
    const { server, logPath } = await start('blocking', []);
    t.after(() => server.stop());
    breakLog(logPath);
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('c') })).status, 201);
  });

  test('batch: events go to the log through the buffer, in order', async (t) => {
    const { server, logPath } = await start('batch', ['--audit-log-mode=batch', '--audit-log-batch-max-size=4', '--audit-log-batch-max-wait=50ms']);
    t.after(() => server.stop());
    for (const name of ['d1', 'd2', 'd3']) assert.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap(name) })).status, 201);
    await eventually(() => assert.deepEqual(logged(logPath).filter((e) => e.verb === 'create').map((e) => `${e.objectRef?.name} ${e.stage}`),
      ['undefined RequestReceived', 'd1 ResponseComplete', 'undefined RequestReceived', 'd2 ResponseComplete', 'undefined RequestReceived', 'd3 ResponseComplete']));
    // An impersonating request: the impersonated user is named from the stage after the first, as upstream's filters order it.
    const headers = { 'Impersonate-User': 'erin', 'Impersonate-Group': 'system:masters' };
    assert.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps/d1', { headers })).status, 200);
    await eventually(() => assert.deepEqual(logged(logPath).filter((e) => e.verb === 'get' && e.objectRef?.name === 'd1')
      .map((e) => `${e.stage} ${(e as { impersonatedUser?: { username: string } }).impersonatedUser?.username}`), ['RequestReceived undefined', 'ResponseComplete erin']));
  });
});

describe('the webhook backend\'s blocking modes', () => {
  let webhook: https.Server;
  let kubeconfig: string;
  let failing = false;
  const lists: { items: { stage: string; requestURI: string }[] }[] = [];
  before(async () => {
    const material = await ensureServingMaterial(path.join(dir, 'webhook'));
    webhook = https.createServer({ cert: material.certPem, key: material.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (failing) {
          res.writeHead(500).end('down');
          return;
        }
        lists.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    kubeconfig = path.join(dir, 'webhook.kubeconfig');
    writeFileSync(kubeconfig, [
      'apiVersion: v1', 'kind: Config',
      'clusters:', '- name: audit', '  cluster:', `    server: https://127.0.0.1:${(webhook.address() as AddressInfo).port}/audit`, `    certificate-authority-data: ${Buffer.from(material.caPem).toString('base64')}`,
      'contexts:', '- name: audit', '  context: {cluster: audit}', 'current-context: audit', '',
    ].join('\n'));
  });
  after(() => webhook?.close());
  const start = (mode: string) => {
    const { auditWebhook } = parseServeFlags([`--audit-webhook-config-file=${kubeconfig}`, `--audit-webhook-mode=${mode}`, '--audit-webhook-initial-backoff=5ms']);
    return startServer({ auditPolicyFile: policy, auditWebhook });
  };

  test('blocking: each event is sent alone, the first before the request is served; a webhook that fails does not stop requests', async (t) => {
    const server: TestServer = await start('blocking');
    t.after(() => server.stop());
    lists.length = 0;
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('w1') })).status, 201);
    assert.ok(lists.some((l) => l.items[0]!.stage === 'RequestReceived' && l.items[0]!.requestURI === '/api/v1/namespaces/default/configmaps'), 'the first event was sent before the answer');
    await eventually(() => assert.equal(lists.length, 2));
    assert.ok(lists.every((l) => l.items.length === 1));
    failing = true;
    t.after(() => {
      failing = false;
    });
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('w2') })).status, 201);
  });

  test('blocking-strict: a request whose first event the webhook did not take is refused', async (t) => {
    const server: TestServer = await start('blocking-strict');
    t.after(() => server.stop());
    failing = true;
    t.after(() => {
      failing = false;
    });
    const refused = await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('w3') });
    assert.equal(refused.status, 500);
    assert.equal(refused.text, refusal);
    failing = false;
    assert.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('w3') })).status, 201);
  });
});
