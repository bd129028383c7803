// End-to-end watch fan-out over HTTPS/HTTP2 against a server process: BENCH_WATCHERS
// watchers (default 1,000, 100 per HTTP/2 connection: the server's limit) on one namespace while
// BENCH_RATE updates/s (default 200) are written for BENCH_SECONDS (5). Reports events
// delivered, delivery latency p50/p99 (write sent → event line read) and server CPU.
// The client shares the 2 cores with the server, so at high rates it measures the client.
import { readFileSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { startServerProcess, tempDir } from '../test/helpers/server.ts';

const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const SESSIONS = Math.ceil(WATCHERS / 100);

const now = () => performance.timeOrigin + performance.now();

function serverCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function watchHttpBench(): Promise<string[]> {
  const dataDir = tempDir('plinth-bench-watch-');
  const server = await startServerProcess(['--storage', 'memory'], { dataDir });
  try {
    const ca = readFileSync(`${dataDir}/pki/ca.crt`, 'utf8');
    const token = readFileSync(`${dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
    const agent = new https.Agent({ ca, keepAlive: true, maxSockets: 8 });
    const write = (method: string, path: string, body: unknown) => new Promise<void>((resolve, reject) => {
      const req = https.request(new URL(path, server.url), { method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
    await write('POST', '/api/v1/namespaces', { metadata: { name: 'bench' } });
    const objects = 100;
    for (let i = 0; i < objects; i++) await write('POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: `cm-${i}` }, data: { t: '0' } });

    const sessions = Array.from({ length: SESSIONS }, () => http2.connect(server.url, { ca }));
    const latencies: number[] = [];
    let delivered = 0;
    const streams: http2.ClientHttp2Stream[] = [];
    let opened = 0;
    await new Promise<void>((resolve) => {
      for (let w = 0; w < WATCHERS; w++) {
        const stream = sessions[w % SESSIONS]!.request({
          ':path': '/api/v1/namespaces/bench/configmaps?watch=1&resourceVersion=0',
          authorization: `Bearer ${token}`,
        });
        streams.push(stream);
        let skipInitial = objects;
        let rest = '';
        stream.setEncoding('utf8');
        stream.on('response', () => {
          if (++opened === WATCHERS) resolve();
        });
        stream.on('data', (chunk: string) => {
          const text = rest + chunk;
          let start = 0;
          for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
            const line = text.slice(start, nl);
            start = nl + 1;
            if (skipInitial > 0) {
              skipInitial--;
              continue;
            }
            const at = line.indexOf('"t":"');
            if (at < 0) continue;
            const sent = Number(line.slice(at + 5, line.indexOf('"', at + 5)));
            latencies.push(now() - sent);
            delivered++;
          }
          rest = text.slice(start);
        });
        stream.on('error', () => {});
      }
    });

    const cpuBefore = serverCpuSeconds(server.child.pid!);
    const total = RATE * SECONDS;
    const started = now();
    const writes: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      writes.push(write('PATCH', `/api/v1/namespaces/bench/configmaps/cm-${i % objects}`, { data: { t: String(now()) } }));
    }
    await Promise.all(writes);
    const deadline = now() + 10_000;
    while (delivered < total * WATCHERS && now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const elapsed = (now() - started) / 1000;
    const cpu = (serverCpuSeconds(server.child.pid!) - cpuBefore) / elapsed;
    for (const s of streams) s.close();
    for (const s of sessions) s.close();
    agent.destroy();
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
    return [
      `watch over HTTP/2: ${WATCHERS} watchers, ${total} updates at ${RATE}/s`,
      `  delivered ${delivered} of ${total * WATCHERS} events; latency p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms; server CPU ${(cpu * 100).toFixed(0)}% of one core`,
    ];
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) for (const line of await watchHttpBench()) console.log(line);
