// The server process: durability across kill -9, graceful shutdown on SIGTERM/SIGINT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { httpsRequest, startServerProcess, tempDir, type ServerProcess } from '../helpers/server.ts';

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
    // Writers keep going until the process dies under them.
    const writers = Array.from({ length: 16 }, async () => {
      for (;;) {
        const name = `cm-${i++}`;
        try {
          const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name }, data: { n: name } });
          if (res.status === 201) answered.push(name);
        } catch {
          return;
        }
      }
    });
    while (answered.length < 300) await new Promise((r) => setTimeout(r, 5));
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

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal}: in-flight requests finish, then the process exits 0`, async () => {
    const server = await startServerProcess();
    const c = clientFor(server);
    const inFlight = Array.from({ length: 20 }, (_, n) =>
      c.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `s-${n}` }, data: { a: 'b' } }).then((r) => r.status, () => 'refused'));
    // Let the requests reach the server before the signal.
    await new Promise((r) => setTimeout(r, 20));
    const code = await server.stop(signal);
    const statuses = await Promise.all(inFlight);
    c.close();
    assert.equal(code, 0);
    // A request is answered or was never accepted; none is cut off with a 5xx.
    for (const status of statuses) assert.ok(status === 201 || status === 'refused', String(status));
  });
}
