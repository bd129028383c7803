// A cluster that moves (issue 15), `BENCH_ONLY=cluster`: a server process on SQLite with
// BENCH_CLUSTER_NODES (20) simulated nodes, upstream's kube-controller-manager and
// kube-scheduler (from ../shared/bin, with a client rate limit of 1,000 requests/s
// instead of their default 20 and 50, which alone would take a minute for 1,000 pods),
// then BENCH_CLUSTER_DEPLOYMENTS (10) Deployments of BENCH_CLUSTER_REPLICAS (100)
// replicas: seconds until every pod is Running, and the server's CPU seconds and peak
// RSS meanwhile.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startServerProcess, tempDir } from '../test/helpers/server.ts';
import { startControllerManager, startScheduler, upstreamComponentsUnavailable } from '../test/helpers/upstream-components.ts';
import { benchClient } from './client.ts';

const NODES = Number(process.env.BENCH_CLUSTER_NODES ?? 20);
const DEPLOYMENTS = Number(process.env.BENCH_CLUSTER_DEPLOYMENTS ?? 10);
const REPLICAS = Number(process.env.BENCH_CLUSTER_REPLICAS ?? 100);

/** The process's user + system CPU seconds so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

export async function clusterBench(): Promise<string[]> {
  const missing = upstreamComponentsUnavailable();
  if (missing !== undefined) return [`cluster: skipped (${missing})`];
  const dataDir = tempDir('plinth-bench-cluster-');
  const server = await startServerProcess(['--simulated-nodes', String(NODES)], { dataDir });
  const c = benchClient(server, 8);
  const limits = ['--kube-api-qps=1000', '--kube-api-burst=1000'];
  try {
    // The signing key the controller manager needs is made on first use.
    await c.request('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { spec: {} });
    const pki = (file: string) => path.join(dataDir, 'pki', file);
    const controllerManager = startControllerManager({ kubeconfig: server.kubeconfigPath, serviceAccountKeyFile: pki('sa.key'), rootCaFile: pki('ca.crt'), extraArgs: limits });
    const scheduler = startScheduler({ kubeconfig: server.kubeconfigPath, extraArgs: limits });
    try {
      const ns = 'bench-cluster';
      await c.request('POST', '/api/v1/namespaces', { metadata: { name: ns } });
      // Both hold their leases before the clock starts, so start-up is not counted.
      for (;;) {
        const leases = JSON.parse((await c.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases')).body).items.map((l: { metadata: { name: string } }) => l.metadata.name);
        if (leases.includes('kube-controller-manager') && leases.includes('kube-scheduler')) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const pid = server.child.pid!;
      const cpuBefore = cpuSeconds(pid);
      let peak = rssMiB(pid);
      const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 100);
      const started = performance.now();
      for (let d = 0; d < DEPLOYMENTS; d++) {
        const res = await c.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
          apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: `app-${d}` },
          spec: {
            replicas: REPLICAS, selector: { matchLabels: { app: `app-${d}` } },
            template: { metadata: { labels: { app: `app-${d}` } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] } },
          },
        });
        if (res.status !== 201) throw new Error(`deployment ${d}: ${res.status} ${res.body}`);
      }
      const total = DEPLOYMENTS * REPLICAS;
      let running = 0;
      const deadline = Date.now() + 600_000;
      while (running < total) {
        if (Date.now() > deadline) throw new Error(`only ${running} of ${total} pods Running after 10 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 250));
        const list = await c.request('GET', `/api/v1/namespaces/${ns}/pods?fieldSelector=status.phase=Running&resourceVersion=0`);
        running = JSON.parse(list.body).items.length;
      }
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      const cpu = cpuSeconds(pid) - cpuBefore;
      return [
        `cluster: ${DEPLOYMENTS} Deployments × ${REPLICAS} replicas on ${NODES} simulated nodes, upstream kube-controller-manager and kube-scheduler (client limit 1,000/s), SQLite`,
        `  all ${total} pods Running after ${seconds.toFixed(1)} s; Plinth used ${cpu.toFixed(1)} CPU s meanwhile (${Math.round((100 * cpu) / seconds)}% of a core), peak RSS ${Math.round(peak)} MiB`,
      ];
    } finally {
      await Promise.all([controllerManager.stop(), scheduler.stop()]);
    }
  } finally {
    c.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
