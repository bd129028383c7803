// What the event window costs: one ConfigMap of 1 KiB and one of 10 KiB, each
// updated BENCH_UPDATES times (default 20,000) through the real server (in-process,
// SQLite in a temporary data dir, HTTPS), all of it within the watch cache's
// 5-minute window. Reports the growth of RSS and of the JS heap (plus external
// memory) per update, after a full GC, with the server still holding the window.
// Each size runs in a child process of its own: `node --expose-gc bench/watch-memory.ts`.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import https from 'node:https';
import { fileURLToPath } from 'node:url';
import { defaultConfig } from '../src/cli/config.ts';
import { serve } from '../src/cli/serve.ts';
import { tempDir } from '../test/helpers/server.ts';

const UPDATES = Number(process.env.BENCH_UPDATES ?? 20_000);
const SIZES = [1024, 10 * 1024];

/** What one object size costs in the window, per update. */
export interface WindowFigures {
  /** The payload's size, and the object's as the API answers it (its JSON), in bytes. */
  size: number;
  objectBytes: number;
  rssPerUpdate: number;
  heapPerUpdate: number;
  updatesPerSecond: number;
}

/** The figures for each object size: one child process per size (a fresh heap and malloc arena each). */
export function eventWindowFigures(): WindowFigures[] {
  return SIZES.map((size) => {
    const child = spawnSync(process.execPath, ['--expose-gc', '--max-semi-space-size=16', fileURLToPath(import.meta.url), String(size)], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`watch memory bench (${size} B) failed:\n${child.stderr}`);
    return JSON.parse(child.stdout) as WindowFigures;
  });
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** RSS per update for each object size, as lines. */
export function watchMemoryBench(): string[] {
  const lines = [`event window memory: 1 object updated ${UPDATES} times (in-process server, SQLite, HTTPS), after a full GC`];
  for (const f of eventWindowFigures()) {
    lines.push(`  ${String(f.size / 1024).padStart(2)} KiB objects (${kib(f.objectBytes)} as JSON): RSS ${kib(f.rssPerUpdate)} per update, heap+external ${kib(f.heapPerUpdate)} per update (${f.updatesPerSecond} updates/s)`);
  }
  return lines;
}

function settle(): Promise<{ rss: number; heap: number }> {
  const gc = (globalThis as { gc?: () => void }).gc as () => void;
  gc();
  gc();
  return new Promise((resolve) => setTimeout(() => {
    gc();
    const usage = process.memoryUsage();
    resolve({ rss: usage.rss, heap: usage.heapUsed + usage.external });
  }, 200));
}

async function measure(size: number): Promise<WindowFigures> {
  const dataDir = tempDir('plinth-bench-window-');
  const server = await serve({ ...defaultConfig(), dataDir, securePort: 0, storage: 'sqlite' }, () => {});
  const agent = new https.Agent({ ca: server.caPem, keepAlive: true, maxSockets: 1 });
  const request = (method: string, path: string, body: unknown) => new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = https.request(new URL(path, server.url), {
      method, agent, headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
  try {
    await request('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    const path = '/api/v1/namespaces/bench/configmaps';
    // Each version differs from the last throughout, like an object rewritten by a controller.
    const configMap = (i: number, resourceVersion?: string) => ({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', ...(resourceVersion ? { resourceVersion } : {}) },
      data: { payload: `${i}:`.padEnd(size, String.fromCharCode(97 + (i % 26))) },
    });
    let res = await request('POST', path, configMap(0));
    if (res.status !== 201) throw new Error(`create: ${res.status}`);
    const update = async (i: number) => {
      res = await request('PUT', `${path}/cm`, configMap(i, res.body.metadata.resourceVersion));
      if (res.status !== 200) throw new Error(`update ${i}: ${res.status} ${JSON.stringify(res.body)}`);
    };
    // Warm up the request path, so that what grows afterwards is the window.
    for (let i = 1; i <= 500; i++) await update(i);
    const before = await settle();
    const started = performance.now();
    for (let i = 0; i < UPDATES; i++) await update(501 + i);
    const seconds = (performance.now() - started) / 1000;
    const after = await settle();
    const figures: WindowFigures = {
      size,
      objectBytes: Buffer.byteLength(JSON.stringify(res.body)),
      rssPerUpdate: Math.round((after.rss - before.rss) / UPDATES),
      heapPerUpdate: Math.round((after.heap - before.heap) / UPDATES),
      updatesPerSecond: Math.round(UPDATES / seconds),
    };
    return figures;
  } finally {
    agent.destroy();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] !== undefined && import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await measure(Number(process.argv[2]))));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of watchMemoryBench()) console.log(line);
}
