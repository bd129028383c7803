// The same server on etcd beside SQLite (issue 14), `BENCH_ONLY=etcd`: a server process on
// each, BENCH_ETCD_OBJECTS (5,000) small ConfigMaps created, got twice each, updated once
// each, then a consistent list (on etcd it goes to etcd) and a list at resourceVersion=0
// (from the watch cache), with 32 clients on HTTPS keep-alive; and the server's RSS.
// One etcd member (Debian's etcd-server) on loopback, data on /dev/shm as the tests do.
// Then two replicas on a three-member cluster: how long a write through A takes to reach
// a watch on B, and each replica's RSS.
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { etcdUnavailable, startEtcd, startEtcdCluster } from '../test/helpers/etcd.ts';
import { startServerProcess, tempDir, type ServerProcess } from '../test/helpers/server.ts';
import { benchClient, load, type LoadResult } from './client.ts';

const OBJECTS = Number(process.env.BENCH_ETCD_OBJECTS ?? 5000);
const CONCURRENCY = 32;

/** One load as a line: ops/s and latency percentiles. */
function line(r: LoadResult): string {
  return `${String(r.opsPerSecond).padStart(6)} /s   p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms`;
}

function rssMiB(pid: number): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
}

async function crud(name: string, args: string[]): Promise<string[]> {
  const dataDir = tempDir('plinth-bench-etcd-');
  const server = await startServerProcess(args, { dataDir });
  const c = benchClient(server, CONCURRENCY);
  try {
    const ns = 'bench';
    await c.request('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }));
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const body = (i: number, value: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { key: value, other: 'x'.repeat(200) } });
    const create = await load(OBJECTS, CONCURRENCY, async (i) => {
      const res = await c.request('POST', base, body(i, `v${i}`));
      if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${res.body}`);
    });
    const get = await load(OBJECTS * 2, CONCURRENCY, async (i) => {
      const res = await c.request('GET', `${base}/cm-${i % OBJECTS}`);
      if (res.status !== 200) throw new Error(`get ${i}: ${res.status}`);
    });
    const update = await load(OBJECTS, CONCURRENCY, async (i) => {
      const res = await c.request('PUT', `${base}/cm-${i}`, body(i, `w${i}`));
      if (res.status !== 200) throw new Error(`update ${i}: ${res.status} ${res.body}`);
    });
    const timed = async (path: string) => {
      const samples: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        const res = await c.request('GET', path);
        samples.push(performance.now() - t);
        if (res.status !== 200 || JSON.parse(res.body).items.length < OBJECTS) throw new Error(`list ${path}: ${res.status}`);
      }
      return samples.sort((a, b) => a - b)[2]!.toFixed(1);
    };
    const consistent = await timed(base);
    const cached = await timed(`${base}?resourceVersion=0`);
    return [
      `  ${name}`,
      `    create   ${line(create)}`,
      `    get      ${line(get)}`,
      `    update   ${line(update)}`,
      `    list     consistent ${consistent} ms, resourceVersion=0 ${cached} ms (median of 5, ${OBJECTS} objects)`,
      `    RSS      ${rssMiB(server.child.pid!)} MiB`,
    ];
  } finally {
    c.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const WATCH_WRITES = Number(process.env.BENCH_ETCD_WATCH_WRITES ?? 2000);
const WATCH_WRITERS = 4;

/** Opens a watch on `server` and calls `onEvent` with each event's object name as it arrives. */
function watchNames(server: ServerProcess, path: string, onEvent: (name: string) => void): Promise<() => void> {
  const ca = readFileSync(`${server.dataDir}/pki/ca.crt`, 'utf8');
  const token = readFileSync(`${server.dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
  return new Promise((resolve, reject) => {
    const req = https.get(new URL(path, server.url), { ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`watch: ${res.statusCode}`));
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
          const event = JSON.parse(pending.slice(0, nl)) as { object: { metadata: { name: string } } };
          pending = pending.slice(nl + 1);
          onEvent(event.object.metadata.name);
        }
      });
      resolve(() => req.destroy());
    });
    req.on('error', reject);
  });
}

/** Two replicas on a three-member cluster: write on A, event on B. */
async function acrossReplicas(urls: string[]): Promise<string[]> {
  const dirs = [tempDir('plinth-bench-ha-'), tempDir('plinth-bench-ha-')];
  const args = ['--storage', 'etcd', '--etcd-servers', urls.join(',')];
  const [a, b] = [await startServerProcess(args, { dataDir: dirs[0]! }), await startServerProcess(args, { dataDir: dirs[1]! })] as const;
  const c = benchClient(a, WATCH_WRITERS);
  try {
    const ns = 'bench-ha';
    await c.request('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }));
    const first = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, JSON.stringify({ metadata: { name: 'start' } }));
    const sent = new Map<string, number>();
    const latencies: number[] = [];
    let settle: () => void = () => {};
    const allSeen = new Promise<void>((resolve) => (settle = resolve));
    const stop = await watchNames(b, `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${JSON.parse(first.body).metadata.resourceVersion}`, (name) => {
      const at = sent.get(name);
      if (at === undefined) return;
      latencies.push(performance.now() - at);
      if (latencies.length === WATCH_WRITES) settle();
    });
    const writes = await load(WATCH_WRITES, WATCH_WRITERS, async (i) => {
      sent.set(`w-${i}`, performance.now());
      const res = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, JSON.stringify({ metadata: { name: `w-${i}` }, data: { n: String(i) } }));
      if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${res.body}`);
    });
    await Promise.race([allSeen, new Promise((_, reject) => setTimeout(() => reject(new Error(`B saw ${latencies.length} of ${WATCH_WRITES} events`)), 30_000))]);
    stop();
    latencies.sort((x, y) => x - y);
    const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(1);
    return [
      `  two replicas on three etcd members: ${WATCH_WRITES} creates through A (${WATCH_WRITERS} in flight, ${writes.opsPerSecond}/s), a watch on B`,
      `    write sent on A → event on B   p50 ${at(50)} ms   p99 ${at(99)} ms   (every event arrived)`,
      `    RSS      A ${rssMiB(a.child.pid!)} MiB, B ${rssMiB(b.child.pid!)} MiB`,
    ];
  } finally {
    c.close();
    await Promise.all([a.stop(), b.stop()]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

export async function etcdBench(): Promise<string[]> {
  const missing = etcdUnavailable();
  if (missing !== undefined) return [`etcd beside SQLite: skipped (${missing})`];
  const lines: string[] = [];
  const etcd = await startEtcd();
  try {
    lines.push(
      `etcd beside SQLite: ${OBJECTS} ConfigMaps, ${CONCURRENCY} concurrent clients, HTTPS keep-alive, one server process each`,
      ...(await crud('sqlite', [])),
      ...(await crud('etcd (one member, 3.4)', ['--storage', 'etcd', '--etcd-servers', etcd.url])),
    );
  } finally {
    await etcd.stop();
  }
  const cluster = await startEtcdCluster({ size: 3 });
  try {
    lines.push(...(await acrossReplicas(cluster.urls)));
  } finally {
    await cluster.stop();
  }
  return lines;
}
