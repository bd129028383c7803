// The performance goals, measured beside the limit server in one run: the shared
// benchmark client (`../shared/bench/bench.mjs`) drives the limit server (a bare Node
// HTTPS server that does the least work a Kubernetes-shaped server can do: the ceiling
// for a Node API server on this machine) and `plinth serve` on SQLite started as
// `npm start` starts it, with the same scenarios, HTTP/2, 32 concurrent requests. The
// scenarios both servers run (create, get, list) run in turns, the limit's then
// Plinth's, `repeat` times: this VM's speed moves within minutes, so each ratio compares
// two runs made side by side, and the table gives the median of those ratios; the RSS
// figure is the median of Plinth's after each turn's creates. Plinth's own scenarios
// (apply, the fan-out) follow, repeated; then start-up and memory.
// Ratios are what to read: absolute rates move with the machine and its other load.
//
// `BENCH_ONLY=limit npm run bench`; BENCH_REPEAT (default 3) and BENCH_N (default 10000).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { createServer } from 'node:net';
import path from 'node:path';
import { startServer } from '../src/index.ts';
import { repoRoot, startServerProcess, tempDir, type ServerProcess } from '../test/helpers/server.ts';
import { fillDataDir, timeToReady } from './startup.ts';
import { eventWindowFigures } from './watch-memory.ts';

const sharedBench = path.resolve(repoRoot, '../shared/bench');
const clientDir = path.join(repoRoot, '.cache/bench-client');
const repeat = Number(process.env.BENCH_REPEAT ?? 3);
const n = Number(process.env.BENCH_N ?? 10_000);

type Figures = Record<string, Record<string, number | undefined>>;

/** The shared client copied beside the checkout with its own dependencies (`npm ci` once, from its lock file). */
function prepareClient(): void {
  mkdirSync(clientDir, { recursive: true });
  for (const entry of ['bench.mjs', 'limit-server.mjs', 'lib', 'package.json', 'package-lock.json']) {
    cpSync(path.join(sharedBench, entry), path.join(clientDir, entry), { recursive: true });
  }
  if (!existsSync(path.join(clientDir, 'node_modules/undici'))) {
    execFileSync('npm', ['ci', '--silent', '--no-audit', '--no-fund'], { cwd: clientDir, stdio: 'inherit' });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs bench.mjs against a kubeconfig; answers each scenario's medians. */
function runClient(kubeconfig: string, scenarios: string, pid: string, out: string, extra: string[] = [], repeats = repeat): Figures {
  const args = [
    path.join(clientDir, 'bench.mjs'), '--kubeconfig', kubeconfig, '--scenario', scenarios, '--n', String(n),
    '--concurrency', '32', '--proto', 'h2', '--repeat', String(repeats), '--pid', pid, '--json', out, ...extra,
  ];
  const run = spawnSync(process.execPath, args, { cwd: clientDir, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0) throw new Error(`bench.mjs ${scenarios} exited with ${run.status}`);
  // Each scenario's medians; the rss scenario keeps its figures under `rss`.
  const result = JSON.parse(readFileSync(out, 'utf8')) as { scenarios: Record<string, { median?: Record<string, number>; rss?: Record<string, number> }> };
  return Object.fromEntries(Object.entries(result.scenarios).map(([name, s]) => [name, { ...s.median, ...s.rss }]));
}

/** Waits until something answers /readyz on the port (its certificate is not checked: only whether it serves). */
async function untilServing(port: number): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      https.get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      }).on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing serves on port ${port} after 20 s`);
}

/** The limit server, serving until stopped. */
async function startLimitServer(work: string): Promise<{ kubeconfig: string; pid: number; stop(): void }> {
  const port = await freePort();
  const dir = path.join(work, 'limit');
  const child = spawn(process.execPath, [path.join(clientDir, 'limit-server.mjs'), '--port', String(port), '--dir', dir, '--items', String(n)], { stdio: 'ignore' });
  try {
    await untilServing(port);
  } catch (err) {
    child.kill();
    throw err;
  }
  return { kubeconfig: path.join(dir, 'kubeconfig'), pid: child.pid!, stop: () => child.kill() };
}

/** The scenarios both servers run, one repeat each, taken in turns: the figures of each turn, limit and Plinth. */
function sideBySide(limit: { kubeconfig: string; pid: number }, plinth: ServerProcess, work: string): Array<{ limit: Figures; plinth: Figures }> {
  const turns: Array<{ limit: Figures; plinth: Figures }> = [];
  for (let i = 0; i < repeat; i++) {
    turns.push({
      limit: runClient(limit.kubeconfig, 'create,get,list', `limit=${limit.pid}`, path.join(work, `limit-${i}.json`), [], 1),
      // rss: the RSS right after this turn's creates.
      plinth: runClient(plinth.kubeconfigPath, 'create,get,list,rss', `plinth=${plinth.child.pid}`, path.join(work, `plinth-${i}.json`), [], 1),
    });
  }
  return turns;
}

/**
 * The fan-out scenario (1,000 watchers at 500 updates/s) against a bare Node HTTP/2 server
 * that writes each event to every watch and nothing else (watch-limit.ts): its ceiling.
 */
async function watchLimitFigures(work: string): Promise<Figures> {
  const port = await freePort();
  const dir = path.join(work, 'watch-limit');
  const child = spawn(process.execPath, [path.join(repoRoot, 'bench/watch-limit.ts'), '--port', String(port), '--dir', dir], { stdio: 'ignore' });
  try {
    await untilServing(port);
    return runClient(path.join(dir, 'kubeconfig'), 'watch', `limit=${child.pid}`, path.join(work, 'watch-limit.json'), ['--watchers', '1000', '--watch-extra-rates', '']);
  } finally {
    child.kill();
  }
}

function readyzStatus(server: { url: string; caCert: string; token: string }): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    https.get(new URL('/readyz', server.url), { ca: server.caCert, headers: { authorization: `Bearer ${server.token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
}

/** In-process startServer() (memory storage, fresh data dir) to its first 200 on /readyz: milliseconds, each start. */
async function libraryStarts(count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const server = await startServer();
    // Until the first 200: /readyz waits for the steps after serving too (the policies' informers).
    while (await readyzStatus(server) !== 200) await new Promise((resolve) => setTimeout(resolve, 2));
    times.push(performance.now() - started);
    await server.close();
  }
  return times;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One line of the goals table: the figure, the limit's, the ratio or bound, and whether the goal holds. */
function row(name: string, plinth: string, limit: string, ratio: string, goal: string, holds: boolean | undefined): string {
  const verdict = holds === undefined ? '?' : holds ? 'yes' : 'no';
  return `  ${name.padEnd(34)} ${plinth.padStart(12)} ${limit.padStart(12)} ${ratio.padStart(8)}   ${goal.padEnd(26)} ${verdict}`;
}

export async function limitBench(): Promise<string[]> {
  if (!existsSync(path.join(sharedBench, 'bench.mjs'))) return [`goals beside the limit server: skipped, no shared benchmark client at ${sharedBench}`];
  prepareClient();
  const work = tempDir('plinth-bench-limit-');
  try {
    const server = await startServerProcess([], { dataDir: path.join(work, 'plinth') });
    let turns: Array<{ limit: Figures; plinth: Figures }>;
    let watchLimit: Figures;
    let plinth: Figures;
    try {
      const limitServer = await startLimitServer(work);
      try {
        turns = sideBySide(limitServer, server, work);
      } finally {
        limitServer.stop();
      }
      watchLimit = await watchLimitFigures(work);
      plinth = runClient(server.kubeconfigPath, 'apply,watch', `plinth=${server.child.pid}`, path.join(work, 'plinth.json'));
    } finally {
      await server.stop();
    }
    const fig = (f: Figures, scenario: string, key: string) => f[scenario]?.[key];
    /** The median of the turns' figures on one side, and of the turns' ratios (Plinth's over the limit's). */
    const paired = (scenario: string, key: string) => {
      const known = (values: Array<number | undefined>) => values.filter((v): v is number => v !== undefined);
      const mine = known(turns.map((t) => fig(t.plinth, scenario, key)));
      const theirs = known(turns.map((t) => fig(t.limit, scenario, key)));
      const ratios = known(turns.map((t) => {
        const p = fig(t.plinth, scenario, key);
        const l = fig(t.limit, scenario, key);
        return p !== undefined && l !== undefined ? p / l : undefined;
      }));
      const mid = (values: number[]) => (values.length === 0 ? undefined : median(values));
      return { plinth: mid(mine), limit: mid(theirs), ratio: mid(ratios), ratios };
    };
    const lines = [`goals beside the limit server (shared client, h2, c=32, ${n} ConfigMaps; Plinth on SQLite as npm start runs it; create, get and list in ${repeat} turns, the limit's run then Plinth's, ratios the median of the turns'; the rest the median of ${repeat})`];
    lines.push(`  ${'figure'.padEnd(34)} ${'plinth'.padStart(12)} ${'limit'.padStart(12)} ${'ratio'.padStart(8)}   ${'goal'.padEnd(26)} holds`);
    const turnRatios = (ratios: number[], show: (r: number) => string) => lines.push(`  ${''.padEnd(34)} ${''.padStart(12)} ${'each turn'.padStart(12)}   ${ratios.map(show).join(', ')}`);
    const percentOf = (r: number) => `${(r * 100).toFixed(0)}%`;
    const rate = (name: string, scenario: string, goal: number) => {
      const { plinth: p, limit: l, ratio: r, ratios } = paired(scenario, 'ops_s');
      lines.push(row(name, `${p ?? '-'}/s`, `${l ?? '-'}/s`, r === undefined ? '-' : percentOf(r), `≥ ${goal * 100}% of the limit`, r === undefined ? undefined : r >= goal));
      turnRatios(ratios, percentOf);
    };
    rate('create ConfigMap', 'create', 0.5);
    rate('get ConfigMap', 'get', 0.8);
    for (const [what, key] of [['identity', 'rvunset_identity.median_ms'], ['gzip', 'rvunset_gzip.median_ms']] as const) {
      const { plinth: p, limit: l, ratio: r, ratios } = paired('list', key);
      const times = (x: number) => `${x.toFixed(2)}×`;
      lines.push(row(`list ${n} ConfigMaps, ${what}`, `${p ?? '-'} ms`, `${l ?? '-'} ms`, r === undefined ? '-' : times(r), 'within 1.5× of the limit', r === undefined ? undefined : r <= 1.5));
      turnRatios(ratios, times);
    }
    const apply = fig(plinth, 'apply', 'ops_s');
    const create = paired('create', 'ops_s').plinth;
    const applyShare = apply !== undefined && create !== undefined ? apply / create : undefined;
    lines.push(row('server-side apply, 10 containers', `${apply ?? '-'}/s`, '', applyShare === undefined ? '-' : `${(applyShare * 100).toFixed(0)}%`, '≥ 33% of Plinth\'s create', applyShare === undefined ? undefined : applyShare >= 1 / 3));
    // The limit column: the bare fan-out server's p99 and share delivered, over the connections the client opens at 100 streams each.
    const fanOut = (f: Figures) => {
      const watch = f['watch-1000'] ?? {};
      return { delivered: watch.delivered_frac, p99: watch.lat_p99_ms === undefined ? undefined : Math.round(watch.lat_p99_ms) };
    };
    const percent = (share: number | undefined) => (share === undefined ? '-' : `${(share * 100).toFixed(0)}%`);
    const { delivered, p99 } = fanOut(plinth);
    const bare = fanOut(watchLimit);
    lines.push(row('watch, 1,000 watchers × 500/s', `p99 ${p99 ?? '-'} ms`, `p99 ${bare.p99 ?? '-'} ms`, percent(delivered), 'all delivered, p99 ≤ 200 ms', delivered === undefined || p99 === undefined ? undefined : delivered === 1 && p99 <= 200));
    lines.push(`  ${''.padEnd(34)} ${''.padStart(12)} ${`${percent(bare.delivered)} deliv.`.padStart(12)}   (the limit: a bare fan-out server, bench/watch-limit.ts)`);
    // Taken before the applies and the fan-out, whose peak (a thousand watch streams' buffers) the process keeps.
    const rss = paired('rss', 'plinth.after_create_median_mib').plinth;
    lines.push(row(`RSS with ${n} ConfigMaps`, `${rss ?? '-'} MiB`, '', '', '≤ 150 MiB', rss === undefined ? undefined : rss <= 150));

    const starts = await libraryStarts(9);
    lines.push(row('startServer() → /readyz, empty', `${median(starts).toFixed(0)} ms`, '', '', '≤ 100 ms', median(starts) <= 100));
    const dataDir = tempDir('plinth-bench-start10k-');
    try {
      await fillDataDir(dataDir, 10_000);
      await timeToReady(dataDir); // fills Node's compile cache and the page cache; not counted
      const ready: number[] = [];
      for (let i = 0; i < 5; i++) ready.push(await timeToReady(dataDir));
      lines.push(row('plinth serve → /readyz, 10k stored', `${median(ready).toFixed(0)} ms`, '', '', '≤ 300 ms', median(ready) <= 300));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // One object updated 20,000 times within the window: what the process grows by per update, after a full collection.
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    for (const f of eventWindowFigures()) {
      const ratio = f.rssPerUpdate / f.objectBytes;
      lines.push(row(`event window, ${kib(f.objectBytes)} objects`, `${kib(f.rssPerUpdate)}/upd.`, '', `${ratio.toFixed(2)}×`, 'RSS ≤ 2× the object', ratio <= 2));
      lines.push(`  ${''.padEnd(34)} ${`heap ${kib(f.heapPerUpdate)}`.padStart(12)} ${''.padStart(12)} ${`${(f.heapPerUpdate / f.objectBytes).toFixed(2)}×`.padStart(8)}   (the JS heap and its buffers alone)`);
    }
    return lines;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.main) for (const line of await limitBench()) console.log(line);
