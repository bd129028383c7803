// Server-side apply through the whole server: a Deployment with 10 containers applied by
// 3 managers in turn (each owns the image of its own containers), 32 concurrent clients
// over HTTPS, sqlite. Aim (issue 5): ≥ 2,000 applies/s on 2 cores; reports p99.
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { startServerProcess, tempDir } from '../test/helpers/server.ts';

const APPLIES = Number(process.env.BENCH_APPLIES ?? 6000);
const CONCURRENCY = 32;
const DEPLOYMENTS = 64;

function deployment(name: string, manager: number, round: number): string {
  const containers = Array.from({ length: 10 }, (_, i) => ({
    name: `c${i}`,
    // Each manager sets the images of its own containers and names the others' without images.
    ...(i % 3 === manager ? { image: `registry.example/app-${i}:${round}` } : {}),
  }));
  return JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, labels: { [`managed-by-${manager}`]: 'yes' } },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: manager === 0 ? containers.map((c, i) => ({ ...c, image: c.image ?? `registry.example/app-${i}:0` })) : containers } } },
  });
}

export async function applyBench(): Promise<string[]> {
  const dataDir = tempDir('plinth-bench-apply-');
  const server = await startServerProcess([], { dataDir });
  try {
    const ca = readFileSync(`${dataDir}/pki/ca.crt`, 'utf8');
    const token = readFileSync(`${dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
    const agent = new https.Agent({ ca, keepAlive: true, maxSockets: CONCURRENCY });
    const applyOnce = (name: string, manager: number, round: number) => new Promise<number>((resolve, reject) => {
      const req = https.request(new URL(`/apis/apps/v1/namespaces/default/deployments/${name}?fieldManager=manager-${manager}&force=true`, server.url), {
        method: 'PATCH', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/apply-patch+yaml' },
      }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(deployment(name, manager, round));
    });
    for (let d = 0; d < DEPLOYMENTS; d++) {
      const status = await applyOnce(`web-${d}`, 0, 0);
      if (status !== 201) throw new Error(`first apply: ${status}`);
    }
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < APPLIES) {
        const i = next++;
        const t = performance.now();
        const status = await applyOnce(`web-${i % DEPLOYMENTS}`, Math.floor(i / DEPLOYMENTS) % 3, i);
        if (status !== 200) throw new Error(`apply ${i}: ${status}`);
        latencies.push(performance.now() - t);
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    agent.destroy();
    latencies.sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor((q / 100) * latencies.length))]!.toFixed(1);
    return [`server-side apply: Deployment with 10 containers, 3 managers in turn, ${CONCURRENCY} clients`,
      `  ${Math.round(APPLIES / seconds)} applies/s   p50 ${p(50)} ms   p99 ${p(99)} ms   (aim ≥ 2,000/s)`];
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) for (const line of await applyBench()) console.log(line);
