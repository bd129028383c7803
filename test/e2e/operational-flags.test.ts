// kube-apiserver's operational flags that change what a server does: --permit-port-sharing
// (SO_REUSEPORT: a second server binds the same port) and --disabled-metrics (left out of
// /metrics, Node's default metrics too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';
import { freePort } from '../helpers/free-port.ts';


test('--permit-port-sharing lets a second server bind the same port; without it the bind fails', async () => {
  const port = await freePort();
  const servers: TestServer[] = [];
  try {
    servers.push(await startServer({ securePort: port, permitPortSharing: true }));
    servers.push(await startServer({ securePort: port, permitPortSharing: true }));
    assert.deepEqual(servers.map((s) => s.port), [port, port]);
    await assert.rejects(startServer({ securePort: port }), /EADDRINUSE/);
  } finally {
    for (const server of servers) await server.stop();
  }
});

test('--disabled-metrics leaves the named metrics out of /metrics', async (t) => {
  const server = await startServer({ disabledMetrics: ['apiserver_request_total', 'process_cpu_seconds_total'] });
  t.after(() => server.stop());
  await server.request('GET', '/api/v1/namespaces');
  const text = (await server.request('GET', '/metrics')).text;
  assert.doesNotMatch(text, /^apiserver_request_total/m);
  assert.doesNotMatch(text, /^process_cpu_seconds_total/m, 'Node\'s default metrics too');
  assert.match(text, /^apiserver_request_duration_seconds_bucket/m, 'the others stay');
  assert.match(text, /^process_resident_memory_bytes/m);
});
