// `npm run bench`: starts a fresh server (a child process, on SQLite in a temporary
// data dir) and reports throughput, latency, memory and start-up time.
// Targets (issue "Foundation"): ready ≤ 300 ms, ≥ 3,000 creates/s, ≥ 10,000 gets/s on 2 cores.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startServerProcess, tempDir } from '../test/helpers/server.ts';
import { applyBench } from './apply.ts';
import { authzBench } from './authz.ts';
import { benchClient, load } from './client.ts';
import { startupBench, timeToReady } from './startup.ts';
import { celBench } from './cel.ts';
import { clusterBench } from './cluster.ts';
import { customResourceBench } from './custom-resources.ts';
import { encodingsBench } from './encodings.ts';
import { etcdBench } from './etcd.ts';
import { idleBench } from './idle.ts';
import { limitBench } from './limit.ts';
import { namespaceDeleteBench } from './namespace-delete.ts';
import { operabilityBench } from './operability.ts';
import { profileBench } from './profile.ts';
import { watchHttpBench } from './watch-http.ts';

const objects = Number(process.env.BENCH_OBJECTS ?? 10_000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);

function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kib / 1024);
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

async function main() {
  // BENCH_ONLY=limit: the performance goals beside the limit server, with the shared benchmark client.
  if (process.env.BENCH_ONLY === 'limit') {
    for (const line of await limitBench()) console.log(line);
    return;
  }
  // BENCH_ONLY=encodings: the answer encodings alone (list sizes and times, watch fan-out in JSON and Protobuf).
  if (process.env.BENCH_ONLY === 'encodings') {
    for (const line of await encodingsBench()) console.log(line);
    return;
  }
  // BENCH_ONLY=etcd: the same CRUD on etcd beside SQLite.
  if (process.env.BENCH_ONLY === 'etcd') {
    for (const line of await etcdBench()) console.log(line);
    return;
  }
  // BENCH_ONLY=cluster: Deployments rolled out by upstream's controllers onto simulated nodes.
  if (process.env.BENCH_ONLY === 'cluster') {
    for (const line of await clusterBench()) console.log(line);
    return;
  }
  // BENCH_ONLY=cel: custom resource creates with 20 CEL rules beside none; compiling 200 rules.
  if (process.env.BENCH_ONLY === 'cel') {
    for (const line of await celBench()) console.log(line);
    return;
  }
  // BENCH_ONLY=operability: gets with audit off and on; in-process start to first answer.
  if (process.env.BENCH_ONLY === 'operability') {
    for (const line of await operabilityBench()) console.log(line);
    return;
  }
  // BENCH_ONLY=namespace-delete: a namespace of owner chains deleted, time until gone and peak RSS.
  if (process.env.BENCH_ONLY === 'namespace-delete') {
    for (const line of await namespaceDeleteBench()) console.log(line);
    return;
  }
  // BENCH_ONLY=profile: where the server's CPU goes per request (BENCH_PROFILE=create|update|get|apply|patch|delete), or what it allocates (BENCH_PROFILE_ALLOC=1).
  if (process.env.BENCH_ONLY === 'profile') {
    for (const line of await profileBench()) console.log(line);
    return;
  }
  // BENCH_ONLY=authz: gets by a user one RoleBinding allows, RBAC beside AlwaysAllow.
  if (process.env.BENCH_ONLY === 'authz') {
    for (const line of await authzBench()) console.log(line);
    return;
  }
  const dataDir = tempDir('plinth-bench-');
  try {
    const server = await startServerProcess([], { dataDir });
    const c = benchClient(server, concurrency);
    const ns = 'bench';
    await c.request('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }));
    const payload = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { app: 'bench' } }, data: { key: `value-${i}`, other: 'x'.repeat(200) } });

    const creates = await load(objects, concurrency, async (i) => {
      const res = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, payload(i));
      if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${res.body}`);
    });
    const gets = await load(objects * 2, concurrency, async (i) => {
      const res = await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/cm-${i % objects}`);
      if (res.status !== 200) throw new Error(`get ${i}: ${res.status}`);
    });
    const listStarted = performance.now();
    const list = await c.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    const listMs = performance.now() - listStarted;
    // The namespace also holds the kube-root-ca.crt ConfigMap every namespace gets.
    if (JSON.parse(list.body).items.filter((item: { metadata: { name: string } }) => item.metadata.name.startsWith('cm-')).length !== objects) throw new Error('list is incomplete');
    // rv=0 lists are served from the watch cache, assembled from each object's cached JSON.
    const cachedLists: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      const res = await c.request('GET', `/api/v1/namespaces/${ns}/configmaps?resourceVersion=0`);
      cachedLists.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`list rv=0: ${res.status}`);
    }
    cachedLists.sort((a, b) => a - b);
    const rss = peakRssMiB(server.child.pid!);
    c.close();
    await server.stop();
    const ready = await timeToReady(dataDir);

    console.log(`plinth bench: ${objects} ConfigMaps, ${concurrency} concurrent clients, HTTPS keep-alive, sqlite`);
    console.log(`  create          ${creates.opsPerSecond} /s   p50 ${fmt(creates.p50)}   p99 ${fmt(creates.p99)}   (aim ≥ 3,000/s)`);
    console.log(`  get             ${gets.opsPerSecond} /s   p50 ${fmt(gets.p50)}   p99 ${fmt(gets.p99)}   (aim ≥ 10,000/s)`);
    console.log(`  list (all)      ${fmt(listMs)} for ${objects} objects, ${(list.body.length / 1048576).toFixed(1)} MiB`);
    console.log(`  list rv=0       ${fmt(cachedLists[10]!)} median of 20 (client-observed, incl. TLS transfer; aim ≤ 20 ms server time)`);
    console.log(`  peak RSS        ${rss} MiB`);
    console.log(`  start → readyz  ${fmt(ready)} on the existing data dir (aim ≤ 300 ms)`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  // BENCH_ONLY=crud stops here: create, get and list alone, to compare two versions quickly.
  if (process.env.BENCH_ONLY === 'crud') return;
  console.log('');
  for (const line of await limitBench()) console.log(line);
  console.log('');
  for (const line of await idleBench()) console.log(line);
  console.log('');
  for (const line of await customResourceBench()) console.log(line);
  console.log('');
  for (const line of await celBench()) console.log(line);
  console.log('');
  for (const line of await operabilityBench()) console.log(line);
  console.log('');
  for (const line of await applyBench()) console.log(line);
  console.log('');
  for (const line of await watchHttpBench()) console.log(line);
  console.log('');
  for (const line of await encodingsBench()) console.log(line);
  console.log('');
  for (const line of await namespaceDeleteBench()) console.log(line);
  console.log('');
  for (const line of await etcdBench()) console.log(line);
  console.log('');
  for (const line of await authzBench()) console.log(line);
  console.log('');
  for (const line of await clusterBench()) console.log(line);
  console.log('');
  for (const line of await startupBench()) console.log(line);
  console.log('');
  // The event window's memory per update is in the goals table (limitBench); `node bench/watch-memory.ts` alone prints it too.
  // The watch cache alone, in-process (it needs --expose-gc for its memory figure).
  spawnSync(process.execPath, ['--expose-gc', fileURLToPath(new URL('./watch-cache.ts', import.meta.url))], { stdio: 'inherit' });
}

await main();
