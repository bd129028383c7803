// The same server on etcd beside SQLite (issue 14), `BENCH_ONLY=etcd`: a server process on
// each, BENCH_ETCD_OBJECTS (5,000) small ConfigMaps created, got twice each, updated once
// each, then a consistent list (on etcd it goes to etcd) and a list at resourceVersion=0
// (from the watch cache), with 32 clients on HTTPS keep-alive; and the server's RSS.
// One etcd member (Debian's etcd-server) on loopback, data on /dev/shm as the tests do.
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { etcdUnavailable, startEtcd } from '../test/helpers/etcd.ts';
import { startServerProcess, tempDir, type ServerProcess } from '../test/helpers/server.ts';

const OBJECTS = Number(process.env.BENCH_ETCD_OBJECTS ?? 5000);
const CONCURRENCY = 32;

function client(server: ServerProcess) {
  const ca = readFileSync(`${server.dataDir}/pki/ca.crt`, 'utf8');
  const token = readFileSync(`${server.dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: CONCURRENCY });
  return {
    request(method: string, path: string, body?: string): Promise<{ status: number; body: string }> {
      return new Promise((resolve, reject) => {
        const req = https.request(new URL(path, server.url), {
          method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
        }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

async function load(total: number, op: (i: number) => Promise<void>): Promise<string> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < total) {
      const i = next++;
      const t = performance.now();
      await op(i);
      latencies.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(1);
  return `${String(Math.round(total / seconds)).padStart(6)} /s   p50 ${at(50)} ms   p99 ${at(99)} ms`;
}

function rssMiB(pid: number): number {
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);
}

async function crud(name: string, args: string[]): Promise<string[]> {
  const dataDir = tempDir('plinth-bench-etcd-');
  const server = await startServerProcess(args, { dataDir });
  const c = client(server);
  try {
    const ns = 'bench';
    await c.request('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } }));
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const body = (i: number, value: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { key: value, other: 'x'.repeat(200) } });
    const create = await load(OBJECTS, async (i) => {
      const res = await c.request('POST', base, body(i, `v${i}`));
      if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${res.body}`);
    });
    const get = await load(OBJECTS * 2, async (i) => {
      const res = await c.request('GET', `${base}/cm-${i % OBJECTS}`);
      if (res.status !== 200) throw new Error(`get ${i}: ${res.status}`);
    });
    const update = await load(OBJECTS, async (i) => {
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
      `    create   ${create}`,
      `    get      ${get}`,
      `    update   ${update}`,
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
