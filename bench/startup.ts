// Start-up on existing data: fills a data dir with N ConfigMaps of ~1 KiB straight
// through the sqlite backend (once per size), then times `plinth serve` from spawn to
// the first `/readyz` that answers 200, several runs, and reports the median.
import { readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { encodeForStorage } from '../src/registry/codec.ts';
import { SqliteBackend } from '../src/storage/index.ts';
import { startServerProcess, tempDir } from '../test/helpers/server.ts';

const sizes = (process.env.BENCH_STARTUP_SIZES ?? '10000,50000,100000').split(',').map(Number);
const runs = Number(process.env.BENCH_STARTUP_RUNS ?? 5);

/** Writes a namespace and `count` ConfigMaps of ~1 KiB each into a fresh sqlite data dir. */
export async function fillDataDir(dataDir: string, count: number): Promise<void> {
  const backend = new SqliteBackend(path.join(dataDir, 'plinth.db'), { synchronous: 'normal' });
  const now = new Date().toISOString();
  const meta = (name: string, namespace?: string) => ({
    name, ...(namespace ? { namespace } : {}), uid: randomUUID(), creationTimestamp: now,
    managedFields: [{ manager: 'bench', operation: 'Update' as const, apiVersion: 'v1', time: now, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:key': {}, 'f:other': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } } }],
  });
  await backend.create('/registry/namespaces/bench', encodeForStorage({ apiVersion: 'v1', kind: 'Namespace', metadata: meta('bench'), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }));
  const batch = 1_000;
  for (let start = 0; start < count; start += batch) {
    const writes: Promise<number>[] = [];
    for (let i = start; i < Math.min(count, start + batch); i++) {
      const name = `cm-${String(i).padStart(6, '0')}`;
      const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...meta(name, 'bench'), labels: { app: 'bench' } }, data: { key: `value-${i}`, other: 'x'.repeat(640) } };
      writes.push(backend.create(`/registry/configmaps/bench/${name}`, encodeForStorage(object)));
    }
    await Promise.all(writes);
  }
  await backend.close();
}

/** Milliseconds from spawning `plinth serve` on `dataDir` to its first 200 on /readyz. */
export async function timeToReady(dataDir: string): Promise<number> {
  return (await startupTimes(dataDir, false)).ready;
}

/**
 * From spawning `plinth serve` on `dataDir`: to the first 200 on /readyz, and (when
 * `loaded`) to the first answer of a ConfigMap list with a label selector, which is
 * served once the ConfigMaps' watch cache has loaded (a selector list waits for it).
 */
async function startupTimes(dataDir: string, loaded: boolean): Promise<{ ready: number; loaded: number }> {
  const started = performance.now();
  const server = await startServerProcess([], { dataDir });
  const caPem = readFileSync(`${dataDir}/pki/ca.crt`, 'utf8');
  const token = readFileSync(`${dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
  const agent = new https.Agent({ ca: caPem, keepAlive: true });
  const get = (urlPath: string) => new Promise<number>((resolve) => {
    https.get(new URL(urlPath, server.url), { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', () => resolve(0));
  });
  for (;;) {
    if ((await get('/readyz')) === 200) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  const ready = performance.now() - started;
  let cacheLoaded = NaN;
  if (loaded) {
    const status = await get('/api/v1/configmaps?labelSelector=absent%3Dlabel');
    if (status !== 200) throw new Error(`selector list: ${status}`);
    cacheLoaded = performance.now() - started;
  }
  agent.destroy();
  await server.stop();
  return { ready, loaded: cacheLoaded };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function startupBench(): Promise<string[]> {
  const lines = [`start → /readyz on stored ConfigMaps of ~1 KiB (sqlite), median of ${runs} starts; then → a selector list of ConfigMaps answers (their cache has loaded)`];
  for (const size of sizes) {
    const dataDir = tempDir('plinth-bench-startup-');
    try {
      await fillDataDir(dataDir, size);
      // The first start fills Node's compile cache and the page cache; it is not counted.
      await timeToReady(dataDir);
      const runsOf: { ready: number; loaded: number }[] = [];
      for (let i = 0; i < runs; i++) runsOf.push(await startupTimes(dataDir, true));
      const ready = runsOf.map((r) => r.ready);
      lines.push(`  ${String(size).padStart(7)} objects   ready ${median(ready).toFixed(0)} ms (${ready.map((t) => t.toFixed(0)).join(', ')})   ConfigMaps cache loaded ${median(runsOf.map((r) => r.loaded)).toFixed(0)} ms`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return lines;
}

if (import.meta.main) for (const line of await startupBench()) console.log(line);
