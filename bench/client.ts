// What the benchmarks share: an HTTPS keep-alive client of a server process (as its admin,
// or with another token), and a load loop with a fixed number of requests in flight.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { ServerProcess } from '../test/helpers/server.ts';

export interface Answer {
  status: number;
  body: string;
}

export interface BenchClient {
  /** A request; a body that is not a string is sent as JSON. */
  request(method: string, path: string, body?: unknown): Promise<Answer>;
  close(): void;
}

/** A client of `server` with up to `sockets` connections, as its admin unless `token` says otherwise. */
export function benchClient(server: ServerProcess, sockets: number, token?: string): BenchClient {
  const ca = readFileSync(`${server.dataDir}/pki/ca.crt`, 'utf8');
  const bearer = token ?? readFileSync(`${server.dataDir}/tokens.csv`, 'utf8').split(',')[0]!;
  const agent = new https.Agent({ ca, keepAlive: true, maxSockets: sockets });
  return {
    request(method, path, body) {
      return new Promise((resolve, reject) => {
        const req = https.request(new URL(path, server.url), {
          method, agent, headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json' },
        }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        });
        req.on('error', reject);
        req.end(body === undefined || typeof body === 'string' ? body : JSON.stringify(body));
      });
    },
    close: () => agent.destroy(),
  };
}

export interface LoadResult {
  opsPerSecond: number;
  p50: number;
  p99: number;
}

/** `total` operations with `concurrency` in flight: ops/s and latency percentiles (ms). */
export async function load(total: number, concurrency: number, op: (i: number) => Promise<void>): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) {
      const i = next++;
      const t = performance.now();
      await op(i);
      latencies.push(performance.now() - t);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  return { opsPerSecond: Math.round(total / seconds), p50: at(50), p99: at(99) };
}
