// `BENCH_ONLY=profile npm run bench`: where `plinth serve` spends its CPU on one kind of
// request, by part of the request flow (profile-categories.ts), per request. The server
// runs as `npm start` runs it, with the inspector on a loopback port; the client sends
// BENCH_N requests (default 20,000; 3,000 applies) over one HTTP/2 connection with 32 in
// flight, as the shared benchmark client does, and the server's CPU profile covers those
// requests alone (after a tenth as many, at most 500, to warm the server up). BENCH_PROFILE picks them: create (ConfigMaps), update (PUT of ConfigMaps
// as read), get, apply (server-side apply of 10-container Deployments, three managers in
// turn, force), patch (a strategic merge patch of such a Deployment: one container's
// image and an annotation, as kubectl set image sends), delete (of ConfigMaps). The profiler slows the server: read the shares, and the figures against
// each other, not against the benchmark's rates. BENCH_PROFILE_OUT=FILE keeps the profile.
// BENCH_PROFILE_ALLOC=1 samples what the requests allocate instead (V8's sampling heap
// profiler, garbage included): bytes per request by the same parts and by function, which
// is what the young generation's collections (and V8's helper threads) pay for.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import { startServerProcess, tempDir } from '../test/helpers/server.ts';
import { cpuBreakdown, type CpuProfile, type CpuProfileNode } from './profile-categories.ts';

type Kind = 'create' | 'update' | 'get' | 'apply' | 'patch' | 'delete';
const kinds: readonly Kind[] = ['create', 'update', 'get', 'apply', 'patch', 'delete'];
const concurrency = 32;
export const namespace = 'profile';

export interface Client {
  request(method: string, path: string, body?: string, contentType?: string): Promise<{ status: number; body: string }>;
  close(): void;
}

export function http2Client(url: string, dataDir: string): Client {
  const token = readFileSync(`${dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
  const session = http2.connect(url, { ca: readFileSync(`${dataDir}/pki/ca.crt`) });
  return {
    request(method, path, body, contentType = 'application/json') {
      return new Promise((resolve, reject) => {
        const stream = session.request({ ':method': method, ':path': path, authorization: `Bearer ${token}`, 'content-type': contentType, accept: 'application/json' });
        let status = 0;
        let text = '';
        stream.setEncoding('utf8');
        stream.on('response', (headers) => { status = Number(headers[':status']); });
        stream.on('data', (chunk: string) => { text += chunk; });
        stream.on('end', () => resolve({ status, body: text }));
        stream.on('error', reject);
        stream.end(body);
      });
    },
    close: () => session.close(),
  };
}

/** `count` requests with `concurrency` in flight; throws on an answer other than `ok`. */
export async function run(count: number, ok: number[], send: (i: number) => Promise<{ status: number; body: string }>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const answer = await send(next++);
      if (!ok.includes(answer.status)) throw new Error(`answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    }
  }));
}

export const configMapsPath = `/api/v1/namespaces/${namespace}/configmaps`;

export function configMap(i: number): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { app: 'profile' } }, data: { key: `value-${i}`, other: 'x'.repeat(600) } });
}

/** The shared benchmark client's apply body: Deployment `d` as manager `m` applies it. */
function deployment(d: number, m: number): string {
  const containers = Array.from({ length: 10 }, (_, c) => ({
    name: `c${c}`,
    image: `registry.example.com/team/app-${c}:v${m}.0.${d}`,
    ports: [{ name: `http-${c}`, containerPort: 8000 + c, protocol: 'TCP' }],
    env: [{ name: 'MANAGER', value: `m${m}` }, { name: 'INDEX', value: String(c) }, { name: 'LOG_LEVEL', value: m === 1 ? 'debug' : 'info' }],
    resources: { requests: { cpu: `${10 + m}m`, memory: '16Mi' }, limits: { cpu: '100m', memory: `${64 + m}Mi` } },
  }));
  return JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: `dep-${d}`, labels: { app: `dep-${d}`, [`managed-by-m${m}`]: 'true' }, annotations: { [`bench/m${m}`]: 'applied' } },
    spec: { replicas: 1 + m, selector: { matchLabels: { app: `dep-${d}` } }, template: { metadata: { labels: { app: `dep-${d}` } }, spec: { containers } } },
  });
}

export function applyOne(client: Client, i: number): Promise<{ status: number; body: string }> {
  const d = i % 100;
  const m = Math.floor(i / 100) % 3;
  return client.request('PATCH', `/apis/apps/v1/namespaces/${namespace}/deployments/dep-${d}?fieldManager=bench-m${m}&force=true`, deployment(d, m), 'application/apply-patch+yaml');
}

/** What the requests profiled need first, and the requests themselves. */
async function prepare(kind: Kind, client: Client, n: number): Promise<(i: number) => Promise<{ status: number; body: string }>> {
  switch (kind) {
    case 'create':
      return (i) => client.request('POST', configMapsPath, configMap(i));
    case 'get': {
      const objects = Math.min(n, 2_000);
      await run(objects, [201], (i) => client.request('POST', configMapsPath, configMap(i)));
      return (i) => client.request('GET', `${configMapsPath}/cm-${i % objects}`);
    }
    case 'update': {
      const read: string[] = [];
      await run(n, [201], async (i) => {
        const answer = await client.request('POST', configMapsPath, configMap(i));
        read[i] = answer.body;
        return answer;
      });
      return (i) => {
        const object = JSON.parse(read[i]!) as { metadata: { name: string }; data: Record<string, string> };
        object.data.key = `updated-${i}`;
        object.data.updated = 'true';
        return client.request('PUT', `${configMapsPath}/${object.metadata.name}`, JSON.stringify(object));
      };
    }
    case 'apply':
      // Every Deployment applied by each manager once: the profiled applies move fields between them.
      await run(300, [200, 201], (i) => applyOne(client, i));
      return (i) => applyOne(client, i + 300);
    case 'delete':
      await run(n, [201], (i) => client.request('POST', configMapsPath, configMap(i)));
      return (i) => client.request('DELETE', `${configMapsPath}/cm-${i}`);
    case 'patch':
      // kubectl set image's strategic merge patch: one container's image, and an annotation.
      await run(100, [201], (d) => client.request('POST', `/apis/apps/v1/namespaces/${namespace}/deployments`, deployment(d, 0)));
      return (i) => client.request('PATCH', `/apis/apps/v1/namespaces/${namespace}/deployments/dep-${i % 100}`, JSON.stringify({
        metadata: { annotations: { 'bench/patched': String(i) } },
        spec: { template: { spec: { containers: [{ name: `c${i % 10}`, image: `registry.example.com/team/app:p${i}` }] } } },
      }), 'application/strategic-merge-patch+json');
  }
}

interface Inspector {
  call(method: string, params?: object): Promise<Record<string, unknown>>;
  close(): void;
}

async function inspector(webSocketUrl: string): Promise<Inspector> {
  const socket = new WebSocket(webSocketUrl);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', reject, { once: true });
  });
  let id = 0;
  const waiting = new Map<number, (result: Record<string, unknown>) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? {});
  });
  return {
    call(method, params = {}) {
      return new Promise((resolve) => {
        const my = ++id;
        waiting.set(my, resolve);
        socket.send(JSON.stringify({ id: my, method, params }));
      });
    },
    close: () => socket.close(),
  };
}

/** A sampling heap profile's tree (HeapProfiler.stopSampling): each node's bytes allocated by that frame itself. */
interface HeapProfileNode {
  id: number;
  callFrame: CpuProfileNode['callFrame'];
  selfSize: number;
  children: HeapProfileNode[];
}

/** What the n requests allocate, garbage included, by part of the request flow and by function: bytes per request. */
async function allocationLines(session: Inspector, kind: Kind, n: number, requests: () => Promise<void>): Promise<string[]> {
  await session.call('HeapProfiler.enable');
  await session.call('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  const started = performance.now();
  await requests();
  const ms = performance.now() - started;
  const { profile } = await session.call('HeapProfiler.stopSampling');
  session.close();
  if (process.env.BENCH_PROFILE_OUT !== undefined) writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(profile));
  // The tree as a CPU profile whose samples weigh bytes, so that the CPU profile's categories apply.
  const nodes: CpuProfileNode[] = [];
  const samples: number[] = [];
  const weights: number[] = [];
  const visit = (node: HeapProfileNode) => {
    nodes.push({ id: node.id, callFrame: node.callFrame, children: node.children.map((c) => c.id) });
    if (node.selfSize > 0) {
      samples.push(node.id);
      weights.push(node.selfSize);
    }
    node.children.forEach(visit);
  };
  visit((profile as { head: HeapProfileNode }).head);
  const breakdown = cpuBreakdown({ nodes, samples, timeDeltas: weights });
  const perOp = (bytes: number) => `${(bytes / n / 1024).toFixed(1).padStart(6)} KiB`;
  return [
    `allocation of ${n} ${kind} requests (HTTP/2, ${concurrency} in flight), sampled: ${(n / ms * 1000).toFixed(0)}/s, ${perOp(breakdown.busyUs).trim()} per request`,
    ...breakdown.categories.map((c) => `  ${c.name.padEnd(38)} ${(100 * c.us / breakdown.busyUs).toFixed(1).padStart(5)}% ${perOp(c.us)}`),
    'functions by what they allocate themselves:',
    ...breakdown.functions.slice(0, 25).map((f) => `  ${(100 * f.us / breakdown.busyUs).toFixed(1).padStart(5)}% ${perOp(f.us)}  ${f.name}`),
  ];
}

async function serverCpuUs(session: Inspector): Promise<number> {
  const { result } = await session.call('Runtime.evaluate', { expression: '(() => { const u = process.cpuUsage(); return u.user + u.system; })()', returnByValue: true });
  return (result as { value: number }).value;
}

/** The embedded storage's syncs so far, from /metrics: how many, and their seconds, on the loop and on the thread pool. */
async function walSyncs(client: Client): Promise<{ loop: { count: number; seconds: number }; pool: { count: number; seconds: number } }> {
  const { status, body } = await client.request('GET', '/metrics');
  if (status !== 200) throw new Error(`/metrics answered ${status}`);
  const value = (suffix: string, where: string) => Number(new RegExp(`^plinth_storage_wal_sync_duration_seconds_${suffix}\\{where="${where}"\\} (\\S+)$`, 'm').exec(body)?.[1] ?? 0);
  return {
    loop: { count: value('count', 'loop'), seconds: value('sum', 'loop') },
    pool: { count: value('count', 'thread_pool'), seconds: value('sum', 'thread_pool') },
  };
}

export async function profileBench(): Promise<string[]> {
  const kind = (process.env.BENCH_PROFILE ?? 'create') as Kind;
  if (!kinds.includes(kind)) throw new Error(`BENCH_PROFILE must be one of ${kinds.join(', ')}`);
  const n = Number(process.env.BENCH_N ?? (kind === 'apply' ? 3_000 : 20_000));
  if (!Number.isInteger(n) || n <= 0) throw new Error(`BENCH_N must be a positive whole number of requests, not ${process.env.BENCH_N}`);
  const dataDir = tempDir('plinth-profile-');
  // From the sources: the start-up bundle is one file, and the categories go by source file.
  const server = await startServerProcess([], { dataDir, nodeFlags: ['--inspect=127.0.0.1:0'], env: { PLINTH_FROM_SOURCE: '1' } });
  const client = http2Client(server.url, dataDir);
  try {
    const debuggerUrl = /Debugger listening on (ws:\/\/\S+)/.exec(server.startLog)?.[1];
    if (debuggerUrl === undefined) throw new Error(`no inspector address in the server's log:\n${server.startLog}`);
    const session = await inspector(debuggerUrl);
    await client.request('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: namespace } }));
    // Requests of the kind profiled first, so that modules loading on first use and code
    // compiling do not land in the profile (indices past those profiled).
    const warm = Math.min(500, Math.ceil(n / 10));
    const send = await prepare(kind, client, n + warm);
    await run(warm, kind === 'create' ? [201] : [200, 201], (i) => send(n + i));
    if (process.env.BENCH_PROFILE_ALLOC === '1') return await allocationLines(session, kind, n, () => run(n, kind === 'create' ? [201] : [200, 201], send));
    await session.call('Profiler.enable');
    await session.call('Profiler.setSamplingInterval', { interval: 200 });
    const syncsBefore = await walSyncs(client);
    const cpuBefore = await serverCpuUs(session);
    await session.call('Profiler.start');
    const started = performance.now();
    await run(n, kind === 'create' ? [201] : [200, 201], send);
    const ms = performance.now() - started;
    const { profile } = await session.call('Profiler.stop');
    const cpuUs = (await serverCpuUs(session)) - cpuBefore;
    session.close();
    const syncsAfter = await walSyncs(client);
    // BENCH_PROFILE_OUT=file.cpuprofile keeps the profile, for a flame graph (Chrome's DevTools, speedscope).
    if (process.env.BENCH_PROFILE_OUT !== undefined) writeFileSync(process.env.BENCH_PROFILE_OUT, JSON.stringify(profile));
    const breakdown = cpuBreakdown(profile as unknown as CpuProfile);
    const perOp = (us: number) => `${(us / n).toFixed(0).padStart(6)} µs`;
    const lines = [
      `profile of ${n} ${kind} requests (HTTP/2, ${concurrency} in flight), the profiler on: ${(n / ms * 1000).toFixed(0)}/s, server CPU ${perOp(cpuUs).trim()} per request (all threads)`,
      `main thread busy ${(breakdown.busyUs / 1000).toFixed(0)} of ${(breakdown.totalUs / 1000).toFixed(0)} ms: ${perOp(breakdown.busyUs).trim()} per request`,
      ...breakdown.categories.map((c) => `  ${c.name.padEnd(38)} ${(100 * c.us / breakdown.busyUs).toFixed(1).padStart(5)}% ${perOp(c.us)}`),
      // The profiler stretches the samples of a thread blocked in a system call: the syncs counted by the server itself.
      ...(['loop', 'pool'] as const).flatMap((where) => {
        const count = syncsAfter[where].count - syncsBefore[where].count;
        const us = (syncsAfter[where].seconds - syncsBefore[where].seconds) * 1e6;
        return count === 0 ? [] : [`  WAL syncs ${where === 'loop' ? 'on the loop' : 'on the thread pool'}, counted: ${count} (one per ${(n / count).toFixed(1)} requests, ${(us / count / 1000).toFixed(2)} ms each), ${perOp(us).trim()} per request`];
      }),
      'functions by their own time:',
      ...breakdown.functions.slice(0, 20).map((f) => `  ${(100 * f.us / breakdown.busyUs).toFixed(1).padStart(5)}% ${perOp(f.us)}  ${f.name}`),
    ];
    return lines;
  } finally {
    client.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
