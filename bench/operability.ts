// `BENCH_ONLY=operability npm run bench`: what operability costs. Gets per second with the
// audit log off and with every request audited at Metadata (metrics are always on); and
// an in-process server (startServer(): memory storage, a temporary data dir) from the
// call to its first answered request, median and p99 over 50 starts.
import { writeFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { startServer } from '../src/index.ts';
import { startServerProcess, tempDir } from '../test/helpers/server.ts';
import { benchClient, load } from './client.ts';

const objects = Number(process.env.BENCH_OBJECTS ?? 5_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);
const starts = Number(process.env.BENCH_STARTS ?? 50);

async function getRate(args: string[]): Promise<number> {
  const dataDir = tempDir('plinth-bench-ops-');
  const server = await startServerProcess(args, { dataDir });
  const c = benchClient(server, concurrency);
  try {
    await load(200, concurrency, async (i) => {
      const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: `cm-${i}` }, data: { k: 'v' } }));
      if (res.status !== 201) throw new Error(`create: ${res.status}`);
    });
    const gets = await load(objects * 2, concurrency, async (i) => {
      const res = await c.request('GET', `/api/v1/namespaces/default/configmaps/cm-${i % 200}`);
      if (res.status !== 200) throw new Error(`get: ${res.status}`);
    });
    return gets.opsPerSecond;
  } finally {
    c.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function inProcessStarts(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < starts; i++) {
    const started = performance.now();
    const server = await startServer();
    await new Promise<void>((resolve, reject) => {
      https.get(new URL('/api/v1/namespaces/default', server.url), { ca: server.caCert, headers: { authorization: `Bearer ${server.token}` } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`first request: ${res.statusCode}`))));
      }).on('error', reject);
    });
    times.push(performance.now() - started);
    await server.close();
  }
  return times.sort((a, b) => a - b);
}

/** startServer()'s reset() after a test made 500 ConfigMaps in a namespace of its own: milliseconds, median of 10. */
async function resetTimes(): Promise<number> {
  const server = await startServer();
  const times: number[] = [];
  try {
    const post = (path: string, body: unknown) => new Promise<void>((resolve, reject) => {
      const req = https.request(new URL(path, server.url), { method: 'POST', ca: server.caCert, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`create: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
    for (let round = 0; round < 10; round++) {
      await post('/api/v1/namespaces', { metadata: { name: 'scratch' } });
      for (let i = 0; i < 500; i += 50) await Promise.all(Array.from({ length: 50 }, (_, j) => post('/api/v1/namespaces/scratch/configmaps', { metadata: { name: `c${i + j}` } })));
      const started = performance.now();
      await server.reset();
      times.push(performance.now() - started);
    }
  } finally {
    await server.close();
  }
  return times.sort((a, b) => a - b)[5]!;
}

export async function operabilityBench(): Promise<string[]> {
  const policyDir = tempDir('plinth-bench-audit-');
  const policy = path.join(policyDir, 'policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  const off = await getRate([]);
  const audited = await getRate(['--audit-policy-file', policy, '--audit-log-path', path.join(policyDir, 'audit.log')]);
  rmSync(policyDir, { recursive: true, force: true });
  const times = await inProcessStarts();
  const reset = await resetTimes();
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return [
    `operability: ${objects * 2} gets, ${concurrency} concurrent clients, sqlite (metrics always on)`,
    `  get, audit off                 ${off} /s`,
    `  get, every request audited     ${audited} /s   ${Math.round((audited / off) * 100)}% (Metadata level, a JSON line per stage to a file)`,
    `  in-process startServer() → first answer   median ${at(0.5).toFixed(0)} ms   p99 ${at(0.99).toFixed(0)} ms over ${times.length} starts (memory storage)`,
    `  reset() after 501 objects made     ${reset.toFixed(1)} ms (median of 10)`,
  ];
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  for (const line of await operabilityBench()) console.log(line);
}
