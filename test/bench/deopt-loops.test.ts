// The write path's hot functions reach optimized code and stay there. A function that V8's
// optimizing compilers deoptimize at every call runs in the interpreter for ever: pruning
// did (a member read only for metadata never got type feedback; Maglev compiled it, left
// it at the next resource, compiled it again, 629 times in 3,600 applies), and pruning an
// apply took 58–135 µs in the server instead of 30–46. Counted with --trace-deopt on a
// server process under the profile's requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyOne, configMap, configMapsPath, http2Client, namespace, run } from '../../bench/profile.ts';
import { startServerProcess } from '../helpers/server.ts';

test('no function of the write path is deoptimized over and over under creates, applies, patches and deletes', { timeout: 120_000 }, async (t) => {
  const server = await startServerProcess([], { nodeFlags: ['--trace-deopt'], env: { PLINTH_FROM_SOURCE: '1' } });
  t.after(() => server.stop());
  let trace = '';
  server.child.stdout!.on('data', (chunk: Buffer) => { trace += chunk.toString(); });
  const client = http2Client(server.url, server.dataDir);
  t.after(() => client.close());
  await client.request('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: namespace } }));
  await run(3_000, [201], (i) => client.request('POST', configMapsPath, configMap(i)));
  await run(1_200, [200, 201], (i) => applyOne(client, i));
  await run(1_000, [200], (i) => client.request('PATCH', `/apis/apps/v1/namespaces/${namespace}/deployments/dep-${i % 100}`, JSON.stringify({
    spec: { template: { spec: { containers: [{ name: `c${i % 10}`, image: `registry.example.com/team/app:p${i}` }] } } },
  }), 'application/strategic-merge-patch+json'));
  await run(3_000, [200], (i) => client.request('DELETE', `${configMapsPath}/cm-${i}`));
  const deopts = new Map<string, number>();
  // By name, a getter's whole (`get size`), not `get`.
  for (const [, fn] of trace.matchAll(/bailout \(kind: [^)]*\): begin\. deoptimizing \S+ <JSFunction ([^<>]*?) \(sfi = /g)) deopts.set(fn!, (deopts.get(fn!) ?? 0) + 1);
  assert.ok(trace.includes('bailout'), 'the trace is read');
  const looping = [...deopts].filter(([, count]) => count > 20);
  assert.deepEqual(looping, [], `deoptimized more than 20 times: ${looping.map(([fn, n]) => `${fn} ${n}`).join(', ')}`);
});
