// The server process: durability across kill -9, graceful shutdown on SIGTERM/SIGINT.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { eventually } from '../helpers/eventually.ts';
import { httpsRequest, startServerProcess, tempDir, type ServerProcess } from '../helpers/server.ts';
import { allow, startWebhookServer, type WebhookServer } from '../helpers/webhook-server.ts';

function clientFor(server: ServerProcess) {
  const caPem = readFileSync(`${server.dataDir}/pki/ca.crt`, 'utf8');
  const token = readFileSync(`${server.dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
  const agent = new https.Agent({ ca: caPem, keepAlive: true, maxSockets: 16 });
  return {
    request: (method: string, path: string, body?: unknown) => httpsRequest(agent, server.url, token, method, path, { body }),
    close: () => agent.destroy(),
  };
}

test('every answered write survives kill -9 of the server (sqlite)', async () => {
  const dataDir = tempDir();
  try {
    const first = await startServerProcess([], { dataDir });
    const c = clientFor(first);
    const answered: string[] = [];
    let i = 0;
    let enough!: () => void;
    const answeredEnough = new Promise<void>((resolve) => (enough = resolve));
    // Writers keep going until the process dies under them.
    const writers = Array.from({ length: 16 }, async () => {
      for (;;) {
        const name = `cm-${i++}`;
        try {
          const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name }, data: { n: name } });
          if (res.status === 201 && answered.push(name) === 300) enough();
        } catch {
          return;
        }
      }
    });
    await Promise.race([answeredEnough, Promise.all(writers).then(() => assert.fail(`the writers stopped after ${answered.length} answers`))]);
    first.child.kill('SIGKILL');
    await Promise.all(writers);
    c.close();
    await first.exited;

    const second = await startServerProcess([], { dataDir });
    const c2 = clientFor(second);
    const list = (await c2.request('GET', '/api/v1/namespaces/default/configmaps')).json;
    const stored = new Set(list.items.map((item: any) => item.metadata.name));
    const lost = answered.filter((name) => !stored.has(name));
    assert.deepEqual(lost, [], `${lost.length} of ${answered.length} answered writes were lost`);
    c2.close();
    assert.equal(await second.stop(), 0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Resolves when the process writes a line matching `pattern` to stderr from now on. */
function logged(server: ServerProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    let log = '';
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (!pattern.test(log)) return;
      server.child.stderr!.off('data', onData);
      resolve();
    };
    server.child.stderr!.on('data', onData);
  });
}

// One webhook server for the signal tests, made while the first one's server starts.
let hooksStarted: Promise<WebhookServer> | undefined;
after(async () => {
  await (await hooksStarted)?.close();
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal}: every request in flight is answered, then the process exits 0`, async () => {
    hooksStarted ??= startWebhookServer();
    const [hooks, server] = await Promise.all([hooksStarted, startServerProcess()]);
    const c = clientFor(server);
    const hold = `/hold-${signal}`;
    // A webhook that holds each review until released: a request waiting there is in
    // flight in the server, so the test knows every one arrived before the signal.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    hooks.handle(hold, async () => {
      await held;
      return allow();
    });
    try {
      const config = {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'hold' },
        webhooks: [{
          name: 'hold.example.com', clientConfig: { url: `${hooks.url}${hold}`, caBundle: hooks.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { held: 'true' } }, sideEffects: 'None', admissionReviewVersions: ['v1'], timeoutSeconds: 30,
        }],
      };
      const webhooks = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
      assert.equal((await c.request('POST', webhooks, config)).status, 201);
      // Admission reads configurations from the watch cache, as a list at resourceVersion 0 does.
      await eventually(async () => assert.equal((await c.request('GET', `${webhooks}?resourceVersion=0`)).json.items.length, 1));

      const count = 8;
      const inFlight = Array.from({ length: count }, (_, n) =>
        c.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `s-${n}`, labels: { held: 'true' } }, data: { n: String(n) } })
          .then((r) => [r.status, r.json?.metadata?.name, r.json?.data?.n], (err: Error) => [err.message]));
      await eventually(() => assert.equal(hooks.received(hold).length, count));
      const shuttingDown = logged(server, /shutting down/);
      const stopped = server.stop(signal);
      await Promise.race([shuttingDown, server.exited]);
      release();
      assert.equal(await stopped, 0);
      assert.deepEqual(await Promise.all(inFlight), Array.from({ length: count }, (_, n) => [201, `s-${n}`, String(n)]));
    } finally {
      release();
      c.close();
      await server.stop();
    }
  });
}
