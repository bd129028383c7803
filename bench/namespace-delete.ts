// Deleting a namespace full of owner chains (issue 12), `BENCH_ONLY=namespace-delete`:
// a server process on SQLite; BENCH_NSDEL_OBJECTS (5,000) ConfigMaps in one namespace,
// in chains of BENCH_NSDEL_CHAIN (5) where each owns the next (ownerReferences with
// blockOwnerDeletion), so the namespace controller and the garbage collector both have
// work; then DELETE of the namespace, timed until it is gone (GET answers 404), with the
// server's peak RSS during the deletion (sampled every 20 ms) and before it.
import { readFileSync, rmSync } from 'node:fs';
import { startServerProcess, tempDir } from '../test/helpers/server.ts';
import { benchClient, type BenchClient } from './client.ts';

const OBJECTS = Number(process.env.BENCH_NSDEL_OBJECTS ?? 5000);
const CHAIN = Number(process.env.BENCH_NSDEL_CHAIN ?? 5);
const CONCURRENCY = 16;

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** Creates the chains: link k of chain c is owned by link k-1 (the first link owns the second...). */
async function fill(c: BenchClient, ns: string): Promise<void> {
  const chains = Math.ceil(OBJECTS / CHAIN);
  let next = 0;
  const worker = async () => {
    for (let chain = next++; chain < chains; chain = next++) {
      let owner: { name: string; uid: string } | undefined;
      for (let link = 0; link < CHAIN && chain * CHAIN + link < OBJECTS; link++) {
        const name = `c${chain}-l${link}`;
        const ownerReferences = owner === undefined ? undefined
          : [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.name, uid: owner.uid, blockOwnerDeletion: true }];
        const res = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences }, data: { chain: String(chain), link: String(link) },
        });
        if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.body}`);
        owner = { name, uid: JSON.parse(res.body).metadata.uid };
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export async function namespaceDeleteBench(): Promise<string[]> {
  const dataDir = tempDir('plinth-bench-nsdel-');
  const server = await startServerProcess([], { dataDir });
  const c = benchClient(server, CONCURRENCY);
  try {
    const ns = 'doomed';
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
    const fillStarted = performance.now();
    await fill(c, ns);
    const fillMs = performance.now() - fillStarted;
    const pid = server.child.pid!;
    const before = rssMiB(pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(pid));
    }, 20);
    const started = performance.now();
    const del = await c.request('DELETE', `/api/v1/namespaces/${ns}`);
    if (del.status !== 200) throw new Error(`delete namespace: ${del.status} ${del.body}`);
    for (;;) {
      const res = await c.request('GET', `/api/v1/namespaces/${ns}`);
      if (res.status === 404) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const goneMs = performance.now() - started;
    clearInterval(sampler);
    return [
      `namespace deletion: ${OBJECTS} ConfigMaps in chains of ${CHAIN} (each link owned by the previous, blockOwnerDeletion), SQLite`,
      `  created in ${(fillMs / 1000).toFixed(1)} s; namespace gone ${(goneMs / 1000).toFixed(2)} s after DELETE`,
      `  server RSS before the delete ${before.toFixed(0)} MiB, peak during it ${peak.toFixed(0)} MiB`,
    ];
  } finally {
    c.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
