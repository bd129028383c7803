// Watch cache micro-benchmark (not a test): `node --expose-gc bench/watch-cache.ts`
// (re-runs itself with --expose-gc when needed). In-process, over a MemoryBackend:
//   - fan-out: 1,000 watchers on one namespace while 1,000 updates/s are written;
//     every watcher must get every event; delivery latency p50/p99 (write call to
//     the watcher's for-await body), and CPU used. Target (issue 3): p99 <= 100 ms.
//   - list of 10,000 ConfigMaps at the current revision (time to produce the items;
//     target: well under the 20 ms server time of the whole request), a paginated
//     list at a past revision (snapshot), and inserts into the sorted structure at
//     100,000 keys.
//   - memory per 10,000 cached ConfigMaps (~300 B of data each).
// Environment: BENCH_WATCHERS (1000), BENCH_RATE (writes/s, 1000), BENCH_SECONDS (5).

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { WatchCache, type CacheWatcher } from '../src/cache/index.ts';
import { SortedEntries } from '../src/cache/sorted-entries.ts';
import type { KubeObject } from '../src/api/index.ts';
import { MemoryBackend, type KeyValue } from '../src/storage/index.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PREFIX = '/registry/configmaps/';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function configMap(namespace: string, name: string, generation: number): Uint8Array {
  return encoder.encode(JSON.stringify({
    metadata: { name, namespace, uid: `00000000-0000-0000-0000-${String(generation).padStart(12, '0')}`, creationTimestamp: '2024-01-01T00:00:00Z', labels: { app: 'bench' } },
    data: { payload: 'x'.repeat(300), generation: String(generation) },
  }));
}

function decode(kv: KeyValue): KubeObject {
  const object = JSON.parse(decoder.decode(kv.value)) as KubeObject;
  object.apiVersion = 'v1';
  object.kind = 'ConfigMap';
  object.metadata.resourceVersion = String(kv.modRevision);
  return object;
}

function newCache(backend: MemoryBackend, opts: { watcherQueueLimit?: number } = {}): WatchCache {
  return new WatchCache({ backend, prefix: PREFIX, decode, bookmark: { kind: 'ConfigMap', apiVersion: 'v1' }, ...opts });
}

function percentile(sorted: Float64Array | number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const ms = (n: number): string => `${n.toFixed(2)} ms`;

async function fanOut(): Promise<void> {
  const backend = new MemoryBackend();
  const keys = Array.from({ length: 1000 }, (_, i) => `${PREFIX}bench/cm-${i}`);
  for (const [i, key] of keys.entries()) await backend.create(key, configMap('bench', `cm-${i}`, 0));
  const cache = newCache(backend);
  await cache.start();

  const total = RATE * SECONDS;
  const firstRevision = cache.revision + 1;
  const sentAt = new Float64Array(total);
  const latencies = new Float64Array(total * WATCHERS);
  let recorded = 0;
  let lost = 0;
  const watchers: CacheWatcher[] = [];
  const readers = Array.from({ length: WATCHERS }, async () => {
    const watcher = cache.watch({ prefix: `${PREFIX}bench/`, fromRevision: cache.revision });
    watchers.push(watcher);
    let expected = firstRevision;
    for await (const event of watcher) {
      const now = performance.now();
      if (event.revision !== expected) lost++;
      expected = event.revision + 1;
      latencies[recorded++] = now - (sentAt[event.revision - firstRevision] as number);
      if (event.revision === firstRevision + total - 1) break;
    }
  });

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let written = 0;
  const modRevisions = new Map<string, number>(keys.map((k) => [k, 0]));
  for (const key of keys) modRevisions.set(key, (await backend.get(key))?.modRevision as number);
  // Writes in 10 ms ticks, each catching up to the schedule.
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE));
      while (written < due) {
        const key = keys[written % keys.length] as string;
        sentAt[written] = performance.now();
        const expect = modRevisions.get(key) as number;
        // MemoryBackend writes apply synchronously; the promise only reports the revision.
        void backend.update(key, configMap('bench', key.slice(key.lastIndexOf('/') + 1), written + 1), expect);
        modRevisions.set(key, firstRevision + written);
        written++;
      }
      if (written < total) setTimeout(tick, 10);
      else resolve();
    };
    tick();
  });
  await Promise.all(readers);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  cache.close();
  await backend.close();

  const sorted = latencies.subarray(0, recorded).sort();
  console.log(`fan-out: ${WATCHERS} watchers, ${total} updates at ${RATE}/s over ${elapsed.toFixed(1)} s`);
  console.log(`  delivered ${recorded} of ${total * WATCHERS} events (${lost} gaps)`);
  console.log(`  latency p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted[sorted.length - 1] as number)}`);
  console.log(`  CPU ${(((cpu.user + cpu.system) / 1e6 / elapsed) * 100).toFixed(0)}% of one core (watch cache, backend and the consuming loops together)`);
}

async function lists(): Promise<void> {
  const backend = new MemoryBackend();
  for (let i = 0; i < 10_000; i++) await backend.create(`${PREFIX}ns-${i % 10}/cm-${i}`, configMap(`ns-${i % 10}`, `cm-${i}`, 0));
  const cache = newCache(backend);
  await cache.start();
  const runs = 50;
  const time = (fn: () => void): number => {
    fn();
    const t = performance.now();
    for (let i = 0; i < runs; i++) fn();
    return (performance.now() - t) / runs;
  };
  let bytes = 0;
  const whole = time(() => {
    const list = cache.list({ prefix: PREFIX });
    bytes = 0;
    for (const item of list?.items ?? []) bytes += item.json.byteLength;
  });
  console.log(`list 10,000 ConfigMaps at the current revision: ${ms(whole)} (items and their ${(bytes / 1e6).toFixed(1)} MB of cached JSON)`);
  const withPredicate = time(() => cache.list({ prefix: PREFIX, predicate: (o) => o.metadata.labels?.app === 'bench' }));
  console.log(`  with a label predicate: ${ms(withPredicate)}`);
  const chunk = time(() => cache.list({ prefix: PREFIX, startAfter: `${PREFIX}ns-5/cm-5555`, limit: 500 }));
  console.log(`  one chunk of 500 from the middle: ${ms(chunk)}`);

  // A snapshot: the revision before 2,000 updates, read in chunks of 500.
  const past = cache.revision;
  for (let i = 0; i < 2000; i++) {
    const key = `${PREFIX}ns-${i % 10}/cm-${i}`;
    const kv = await backend.get(key);
    await backend.update(key, configMap(`ns-${i % 10}`, `cm-${i}`, 1), kv?.modRevision as number);
  }
  await cache.waitUntilFresh();
  const chunked = time(() => {
    let startAfter: string | undefined;
    for (;;) {
      const list = cache.list({ prefix: PREFIX, revision: past, startAfter, limit: 500 });
      if (list === undefined) throw new Error('snapshot unavailable');
      if (!list.more) break;
      startAfter = list.items[list.items.length - 1]?.key;
    }
  });
  console.log(`  all 10,000 in chunks of 500 at a revision 2,000 updates old: ${ms(chunked)} for the 20 chunks`);
  cache.close();
  await backend.close();

  const sortedKeys = new SortedEntries<{ key: string }>();
  const n = 100_000;
  const names = Array.from({ length: n }, (_, i) => `${PREFIX}ns-${i % 100}/cm-${(i * 7919) % n}`);
  let t = performance.now();
  for (const key of names) sortedKeys.set({ key });
  const insertAll = (performance.now() - t) / n;
  const extra = Array.from({ length: 10_000 }, (_, i) => `${PREFIX}ns-${i % 100}/new-${i}`);
  t = performance.now();
  for (const key of extra) sortedKeys.set({ key });
  const insert = (performance.now() - t) / extra.length;
  t = performance.now();
  for (const key of extra) sortedKeys.delete(key);
  const remove = (performance.now() - t) / extra.length;
  t = performance.now();
  for (let i = 0; i < 10_000; i++) sortedKeys.countBetween(names[i] as string, undefined);
  const count = (performance.now() - t) / 10_000;
  console.log(`sorted keys at 100,000: insert ${(insert * 1000).toFixed(2)} µs, delete ${(remove * 1000).toFixed(2)} µs, rank/count ${(count * 1000).toFixed(2)} µs (building 100,000: ${(insertAll * 1000).toFixed(2)} µs each)`);
}

function heap(): number {
  (gc as () => void)();
  (gc as () => void)();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

async function memory(): Promise<void> {
  const backend = new MemoryBackend();
  for (let i = 0; i < 10_000; i++) await backend.create(`${PREFIX}ns-${i % 10}/cm-${i}`, configMap(`ns-${i % 10}`, `cm-${i}`, 0));
  const before = heap();
  const cache = newCache(backend);
  await cache.start();
  const after = heap();
  const json = cache.list({ prefix: PREFIX })?.items.reduce((sum, item) => sum + item.json.byteLength, 0) ?? 0;
  console.log(`memory: ${((after - before) / 1e6).toFixed(1)} MB per 10,000 cached ConfigMaps (${Math.round((after - before) / 10_000)} B each, of which ${Math.round(json / 10_000)} B of JSON)`);
  // And what 10,000 updates keep in the history window (each superseded version stays for it).
  for (let i = 0; i < 10_000; i++) {
    const key = `${PREFIX}ns-${i % 10}/cm-${i}`;
    const kv = await backend.get(key);
    await backend.update(key, configMap(`ns-${i % 10}`, `cm-${i}`, 1), kv?.modRevision as number);
  }
  await cache.waitUntilFresh();
  // A later task, as the server's next request would be: the engine keeps what a task
  // made weakly referenced alive until the task ends (superseded states' decoded objects).
  await new Promise((resolve) => setImmediate(resolve));
  const withHistory = heap();
  console.log(`  + 10,000 updates in the history window: ${((withHistory - after) / 1e6).toFixed(1)} MB (${Math.round((withHistory - after) / 10_000)} B per event)`);
  cache.close();
  await backend.close();
}

await fanOut();
await lists();
await memory();
