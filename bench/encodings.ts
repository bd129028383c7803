// Answer encodings against a server process (issue 11), `BENCH_ONLY=encodings`:
// 1. a list of BENCH_ENC_OBJECTS (10,000) small ConfigMaps answered as JSON, Protobuf, CBOR
//    (with the CBORServingAndStorage gate on; "not served" when it answers 406) and a Table:
//    bytes per list, identity and gzip, and time per list measured client-side to the last
//    byte on a keep-alive HTTPS connection (the first list apart: Protobuf messages are
//    encoded on first use and kept), median and p90 of BENCH_ENC_LISTS (15) sequential
//    lists, and the server's CPU per list;
// 2. watch fan-out over HTTP/2: BENCH_ENC_WATCHERS (1,000) watchers on 10 sessions receive
//    BENCH_ENC_RATES updates/s (50, then 200) for BENCH_ENC_SECONDS (3), as JSON lines and
//    as Protobuf frames (4-byte big-endian length + WatchEvent): events delivered, events/s,
//    write → arrival latency p50/p99 (the write's time travels in the ConfigMap's data),
//    server and client CPU. The client shares the 2 cores with the server: at 200/s
//    (200,000 events/s asked) the client is the limit.
import { readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { startServerProcess, tempDir, type ServerProcess } from '../test/helpers/server.ts';

const OBJECTS = Number(process.env.BENCH_ENC_OBJECTS ?? 10_000);
const LISTS = Number(process.env.BENCH_ENC_LISTS ?? 15);
const WATCHERS = Number(process.env.BENCH_ENC_WATCHERS ?? 1000);
const RATES = (process.env.BENCH_ENC_RATES ?? '50,200').split(',').filter((r) => r !== '').map(Number);
const SECONDS = Number(process.env.BENCH_ENC_SECONDS ?? 3);
const SESSIONS = 10;

const encodings = [
  { name: 'JSON', accept: 'application/json' },
  { name: 'Protobuf', accept: 'application/vnd.kubernetes.protobuf' },
  { name: 'CBOR', accept: 'application/cbor' },
  { name: 'Table', accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
];

const now = () => performance.timeOrigin + performance.now();

function serverCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

interface Answer {
  status: number;
  contentType: string;
  contentEncoding: string;
  bytes: number;
  body: Buffer;
  ms: number;
}

function connect(server: ServerProcess) {
  const ca = readFileSync(`${server.dataDir}/pki/ca.crt`, 'utf8');
  const token = readFileSync(`${server.dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 32 });
  const request = (method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) => new Promise<Answer>((resolve, reject) => {
    const started = performance.now();
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json', ...opts.headers };
    if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
    const req = https.request(new URL(path, server.url), { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          contentEncoding: String(res.headers['content-encoding'] ?? 'identity'),
          bytes: body.length,
          body,
          ms: performance.now() - started,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
  });
  return { ca, token, agent, request };
}

type Connection = ReturnType<typeof connect>;

async function createConfigMaps(c: Connection, ns: string, count: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (next < count) {
      const i = next++;
      const res = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { app: 'bench' } }, data: { key: `value-${i}`, other: 'x'.repeat(200) } },
      });
      if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${res.body.toString()}`);
    }
  }));
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(2)} MiB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

interface ListFigures {
  first: Answer;
  median: number;
  p90: number;
  cpuPerList: number;
}

/** One encoding's lists: the first apart, then LISTS sequential ones on the same connection. */
async function measureLists(c: Connection, pid: number, accept: string, gzip: boolean): Promise<ListFigures | string> {
  const headers: Record<string, string> = { accept };
  if (gzip) headers['accept-encoding'] = 'gzip';
  const path = '/api/v1/namespaces/bench/configmaps';
  const first = await c.request('GET', path, { headers });
  if (first.status === 406) return 'not served (406)';
  if (first.status !== 200) return `error ${first.status}: ${first.body.toString().slice(0, 200)}`;
  const wanted = accept.split(';')[0]!;
  if (!first.contentType.startsWith(wanted)) return `answered as ${first.contentType}`;
  if (gzip !== (first.contentEncoding === 'gzip')) return `answered with Content-Encoding ${first.contentEncoding}`;
  const times: number[] = [];
  const cpuBefore = serverCpuMs(pid);
  for (let i = 0; i < LISTS; i++) {
    const res = await c.request('GET', path, { headers });
    // Sizes are not compared: a Table's Age column moves with the clock.
    if (res.status !== 200) throw new Error(`list as ${accept}: ${res.status}`);
    times.push(res.ms);
  }
  const cpuPerList = (serverCpuMs(pid) - cpuBefore) / LISTS;
  times.sort((a, b) => a - b);
  return { first, median: percentile(times, 50), p90: percentile(times, 90), cpuPerList };
}

async function listBench(c: Connection, server: ServerProcess): Promise<string[]> {
  const pid = server.child.pid!;
  const check = await c.request('GET', '/api/v1/namespaces/bench/configmaps');
  // The namespace also holds the kube-root-ca.crt ConfigMap every namespace gets.
  const count = (JSON.parse(check.body.toString()) as { items: { metadata: { name: string } }[] }).items.filter((item) => item.metadata.name !== 'kube-root-ca.crt').length;
  if (count !== OBJECTS) throw new Error(`the list has ${count} items, not ${OBJECTS}`);
  const lines = [
    `list of ${OBJECTS} ConfigMaps by answer encoding: HTTPS keep-alive, client-observed time to the last byte; median/p90 of ${LISTS} after the first; server CPU per list`,
    '',
    '| Accept | gzip | bytes | first list | median | p90 | server CPU/list |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const encoding of encodings) {
    for (const gzip of [false, true]) {
      const figures = await measureLists(c, pid, encoding.accept, gzip);
      const label = gzip ? 'gzip' : '—';
      if (typeof figures === 'string') lines.push(`| ${encoding.name} | ${label} | ${figures} | | | | |`);
      else lines.push(`| ${encoding.name} | ${label} | ${mib(figures.first.bytes)} | ${ms(figures.first.ms)} | ${ms(figures.median)} | ${ms(figures.p90)} | ${ms(figures.cpuPerList)} |`);
    }
  }
  return lines;
}

/** Where the write's time starts in an event: the ConfigMap's data value `@<ms since epoch>;`. */
const marker = Buffer.from('@t');
const terminator = ';'.charCodeAt(0);

/** Reads the write time after `at` (the marker's position) in `bytes`. */
function sentAt(bytes: Buffer, at: number): number {
  const end = bytes.indexOf(terminator, at);
  return Number(bytes.toString('latin1', at + marker.length, end));
}

interface WatchFigures {
  delivered: number;
  expected: number;
  eventsPerSecond: number;
  p50: number;
  p99: number;
  cpu: number;
  clientCpu: number;
}

async function watchRun(c: Connection, server: ServerProcess, name: string, accept: string, rate: number): Promise<WatchFigures | string> {
  const objects = 100;
  const ns = `watch-${name.toLowerCase()}-${rate}`;
  await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
  for (let i = 0; i < objects; i++) await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: `cm-${i}` }, data: { t: '0' } } });
  const listed = await c.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`);
  const rv = (JSON.parse(listed.body.toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

  const protobuf = accept.startsWith('application/vnd.kubernetes.protobuf');
  const sessions = Array.from({ length: SESSIONS }, () => http2.connect(server.url, { ca: c.ca }));
  const latencies: number[] = [];
  let delivered = 0;
  let lastArrival = 0;
  const streams: http2.ClientHttp2Stream[] = [];
  const arrived = (bytes: Buffer, from: number, to: number) => {
    const at = bytes.indexOf(marker, from);
    if (at < 0 || at >= to) return;
    lastArrival = now();
    latencies.push(lastArrival - sentAt(bytes, at));
    delivered++;
  };
  let refused: string | undefined;
  await new Promise<void>((resolve, reject) => {
    let opened = 0;
    for (let w = 0; w < WATCHERS; w++) {
      const stream = sessions[w % SESSIONS]!.request({
        ':path': `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`,
        authorization: `Bearer ${c.token}`,
        accept,
      });
      streams.push(stream);
      let rest: Buffer = Buffer.alloc(0);
      stream.on('response', (headers) => {
        const status = headers[':status'];
        const type = String(headers['content-type'] ?? '');
        if (status !== 200) refused ??= status === 406 ? 'not served (406)' : `error ${status}`;
        else if (protobuf !== type.startsWith('application/vnd.kubernetes.protobuf')) refused ??= `answered as ${type}`;
        if (++opened === WATCHERS) resolve();
      });
      stream.on('data', (chunk: Buffer) => {
        const bytes = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
        let start = 0;
        if (protobuf) {
          while (bytes.length - start >= 4) {
            const end = start + 4 + bytes.readUInt32BE(start);
            if (end > bytes.length) break;
            arrived(bytes, start + 4, end);
            start = end;
          }
        } else {
          for (let nl = bytes.indexOf(10, start); nl >= 0; nl = bytes.indexOf(10, start)) {
            arrived(bytes, start, nl);
            start = nl + 1;
          }
        }
        rest = bytes.subarray(start);
      });
      stream.on('error', reject);
    }
  });
  try {
    if (refused !== undefined) return refused;
    const pid = server.child.pid!;
    const cpuBefore = serverCpuMs(pid);
    const clientBefore = process.cpuUsage();
    const total = rate * SECONDS;
    const started = now();
    const writes: Promise<Answer>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / rate;
      const wait = due - now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      writes.push(c.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/cm-${i % objects}`, {
        headers: { 'content-type': 'application/merge-patch+json' },
        body: { data: { t: `@t${now()};` } },
      }));
    }
    for (const res of await Promise.all(writes)) if (res.status !== 200) throw new Error(`patch: ${res.status} ${res.body.toString()}`);
    const deadline = now() + 15_000;
    while (delivered < total * WATCHERS && now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const cpuMs = serverCpuMs(pid) - cpuBefore;
    const clientUsage = process.cpuUsage(clientBefore);
    const seconds = ((delivered > 0 ? lastArrival : now()) - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      delivered,
      expected: total * WATCHERS,
      eventsPerSecond: delivered / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      cpu: cpuMs / 1000 / seconds,
      clientCpu: (clientUsage.user + clientUsage.system) / 1e6 / seconds,
    };
  } finally {
    for (const s of streams) s.close();
    for (const s of sessions) s.close();
  }
}

async function watchBench(c: Connection, server: ServerProcess): Promise<string[]> {
  const lines = [
    `watch fan-out over HTTP/2: ${WATCHERS} watchers on ${SESSIONS} sessions, ConfigMap updates for ${SECONDS} s; latency from the write sent to the event read; CPU over the run, in cores`,
    '',
    '| stream | updates/s | delivered | events/s | latency p50 | p99 | server CPU | client CPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const rate of RATES) {
    for (const [name, accept] of [['JSON', 'application/json'], ['Protobuf', 'application/vnd.kubernetes.protobuf;stream=watch']] as const) {
      const f = await watchRun(c, server, name, accept, rate);
      if (typeof f === 'string') lines.push(`| ${name} | ${rate} | ${f} | | | | | |`);
      else lines.push(`| ${name} | ${rate} | ${f.delivered} of ${f.expected} | ${Math.round(f.eventsPerSecond)} | ${ms(f.p50)} | ${ms(f.p99)} | ${f.cpu.toFixed(2)} | ${f.clientCpu.toFixed(2)} |`);
    }
  }
  return lines;
}

export async function encodingsBench(): Promise<string[]> {
  const dataDir = tempDir('plinth-bench-encodings-');
  const server = await startServerProcess(['--storage', 'memory', '--feature-gates', 'CBORServingAndStorage=true'], { dataDir });
  const c = connect(server);
  try {
    await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'bench' } } });
    await createConfigMaps(c, 'bench', OBJECTS);
    const lines = await listBench(c, server);
    lines.push('');
    lines.push(...await watchBench(c, server));
    return lines;
  } finally {
    c.agent.destroy();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) for (const line of await encodingsBench()) console.log(line);
