// Start-up and idle memory on an empty data dir: spawns `plinth serve` (from this checkout,
// or the one named by BENCH_REPO, to compare two versions on the same machine in one
// run), times spawn → first 200 on /readyz, then reads the idle process's RSS once the
// background cache loading has settled. Median of several starts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** CPU time (user + system) the process has used, in ms: steadier than wall time on a noisy machine. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function readyz(url: string, ca: string): Promise<number> {
  return new Promise((resolve) => {
    https.get(new URL('/readyz', url), { ca }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', () => resolve(0));
  });
}

/** One start: milliseconds to ready, and RSS in MiB after `settleMs` idle. */
async function startOnce(repo: string, dataDir: string, settleMs: number): Promise<{ readyMs: number; cpu: number; rss: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--max-semi-space-size=16', path.join(repo, 'src/cli/main.cjs'), 'serve', '--data-dir', dataDir, '--secure-port', '0'], {
    cwd: repo, stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let log = '';
      child.stderr.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        const match = /serving on (https:\/\/\S+)/.exec(log);
        if (match) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`server exited:\n${log}`)));
    });
    const ca = readFileSync(path.join(dataDir, 'pki/ca.crt'), 'utf8');
    while ((await readyz(url, ca)) !== 200) await new Promise((r) => setTimeout(r, 2));
    const readyMs = performance.now() - started;
    const cpu = cpuMs(child.pid!);
    await new Promise((r) => setTimeout(r, settleMs));
    return { readyMs, cpu, rss: rssMiB(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export async function idleBench(repo = process.env.BENCH_REPO ?? here, runs = Number(process.env.BENCH_IDLE_RUNS ?? 7)): Promise<string[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'plinth-idle-'));
  try {
    await startOnce(repo, dataDir, 0); // the first start writes certificates and the database
    const results = [];
    for (let i = 0; i < runs; i++) results.push(await startOnce(repo, dataDir, 3_000));
    return [
      `start → /readyz, empty data dir (median of ${runs}): ${median(results.map((r) => r.readyMs)).toFixed(0)} ms`,
      `CPU used by then (median of ${runs}): ${median(results.map((r) => r.cpu)).toFixed(0)} ms`,
      `idle RSS 3 s after ready (median of ${runs}): ${median(results.map((r) => r.rss)).toFixed(1)} MiB`,
    ];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const line of await idleBench()) console.log(line);
}
