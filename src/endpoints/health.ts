// /healthz, /livez and /readyz with their named checks.
import { writeBytes, type HttpResponse } from './http.ts';

/** A named health check; it throws (or rejects) when unhealthy. */
export interface HealthCheck {
  name: string;
  check(): Promise<void> | void;
}

/**
 * `/healthz`, `/livez`, `/readyz` like upstream's healthz package: `ok`, or with
 * `?verbose` one `[+]name ok` line per check then `<endpoint> check passed`;
 * `?exclude=name` skips a check; a failing check answers 500 listing `[-]name failed`.
 */
export async function serveHealth(res: HttpResponse, endpoint: string, checks: HealthCheck[], query: URLSearchParams, path: string): Promise<void> {
  const excluded = new Set(query.getAll('exclude'));
  // `/readyz/<check>` runs that check alone.
  const single = path.split('/').filter((p) => p !== '')[1];
  const selected = single === undefined ? checks : checks.filter((c) => c.name === single);
  if (selected.length === 0) {
    writeBytes(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
    return;
  }
  // The checks run together (the storage's health and readiness checks each wait up to their
  // timeout for an unreachable etcd); their lines keep the checks' order.
  const outcomes = await Promise.all(selected.map(async (c) => {
    if (excluded.has(c.name)) return { line: `[+]${c.name} excluded: ok`, ok: true };
    try {
      await c.check();
      return { line: `[+]${c.name} ok`, ok: true };
    } catch {
      return { line: `[-]${c.name} failed: reason withheld`, ok: false };
    }
  }));
  const lines = outcomes.map((o) => o.line);
  const failed = outcomes.some((o) => !o.ok);
  const unmatched = [...excluded].filter((name) => !checks.some((c) => c.name === name));
  if (unmatched.length > 0) lines.push(`warn: some health checks cannot be excluded: no matches for ${unmatched.map((n) => `"${n}"`).join(',')}`);
  const verbose = query.has('verbose') || failed;
  const headers = { 'X-Content-Type-Options': 'nosniff' };
  if (!verbose) {
    writeBytes(res, 200, 'text/plain; charset=utf-8', 'ok', headers);
    return;
  }
  const tail = failed ? `${endpoint} check failed` : `${endpoint} check passed`;
  writeBytes(res, failed ? 500 : 200, 'text/plain; charset=utf-8', `${lines.join('\n')}\n${tail}\n`, headers);
}
