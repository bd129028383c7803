// The same server on etcd beside SQLite (issue 14), `BENCH_ONLY=etcd`: a server process on
// each, BENCH_ETCD_OBJECTS (5,000) small ConfigMaps created, got twice each, updated once
// each, then a consistent list (on etcd it goes to etcd) and a list at resourceVersion=0
// (from the watch cache), with 32 clients on HTTPS keep-alive; and the server's RSS.
// One etcd member (Debian's etcd-server) on loopback, data on /dev/shm as the tests do.
import { readFileSync, rmSync } from 'node:fs';
import { etcdUnavailable, startEtcd } from '../test/helpers/etcd.ts';
import { startServerProcess, tempDir } from '../test/helpers/server.ts';
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

export async function etcdBench(): Promise<string[]> {
  const missing = etcdUnavailable();
  if (missing !== undefined) return [`etcd beside SQLite: skipped (${missing})`];
  const etcd = await startEtcd();
  try {
    return [
      `etcd beside SQLite: ${OBJECTS} ConfigMaps, ${CONCURRENCY} concurrent clients, HTTPS keep-alive, one server process each`,
      ...(await crud('sqlite', [])),
      ...(await crud('etcd (one member, 3.4)', ['--storage', 'etcd', '--etcd-servers', etcd.url])),
    ];
  } finally {
    await etcd.stop();
  }
}
