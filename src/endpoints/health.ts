// /healthz, /livez and /readyz with their named checks.
import { methodNotAllowed, notFoundAtChainEnd } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';
import { writeBytes, type HttpResponse } from './http.ts';

/** A named health check; it throws (or rejects) when unhealthy. */
export interface HealthCheck {
  name: string;
  check(): Promise<void> | void;
}

/** Where the outcomes of the checks an endpoint runs go (upstream's SLI metrics, /metrics/slis). */
export interface HealthObserver {
  observe(endpoint: string, check: string, passed: boolean): void;
}

/**
 * `/healthz`, `/livez`, `/readyz` like upstream's healthz package (InstallPathHandler):
 * the endpoint itself answers `ok`, or with `?verbose` one `[+]name ok` line per check then
 * `<endpoint> check passed`; `?exclude=name` skips a check; a failing check answers 500
 * listing `[-]name failed`. `/<endpoint>/<check>` is that check's own handler: `ok`, or 500
 * `internal server error: <its error>`, whatever the query. Any other path under it (a
 * trailing slash, an unknown check, more segments) is registered by nothing: upstream's
 * notfoundhandler answers it, net/http's plain-text 404, whatever the method. The paths
 * registered take GET and HEAD (Plinth's rule: upstream's handlers answer any method).
 * The endpoint itself tells `observer` how each check it ran went (not the excluded ones),
 * as upstream's handleRootHealth records its SLI metrics; a check's own handler does not.
 */
export async function serveHealth(res: HttpResponse, endpoint: string, checks: HealthCheck[], query: URLSearchParams, path: string, method = 'GET', observer?: HealthObserver): Promise<void> {
  const rest = path.slice(path.indexOf(endpoint) + endpoint.length);
  const name = rest.slice(1);
  const check = rest.startsWith('/') ? checks.find((c) => c.name === name) : undefined;
  if (rest !== '' && check === undefined) throw notFoundAtChainEnd();
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed();
  if (check === undefined) return serveRoot(res, endpoint, checks, query, observer);
  try {
    await check.check();
  } catch (err) {
    // Go's http.Error: its text, a newline, and nosniff.
    writeBytes(res, 500, 'text/plain; charset=utf-8', `internal server error: ${(err as Error).message}\n`, { 'X-Content-Type-Options': 'nosniff' });
    return;
  }
  // fmt.Fprint(w, "ok") with no type set: net/http sniffs text.
  writeBytes(res, 200, 'text/plain; charset=utf-8', 'ok');
}

async function serveRoot(res: HttpResponse, endpoint: string, checks: HealthCheck[], query: URLSearchParams, observer: HealthObserver | undefined): Promise<void> {
  const excluded = new Set(query.getAll('exclude'));
  // The checks run together (the storage's health and readiness checks each wait up to their
  // timeout for an unreachable etcd); their lines keep the checks' order.
  const outcomes = await Promise.all(checks.map(async (c) => {
    if (excluded.has(c.name)) return { line: `[+]${c.name} excluded: ok`, ok: true };
    let ok = true;
    try {
      await c.check();
    } catch {
      ok = false;
    }
    observer?.observe(endpoint, c.name, ok);
    return ok ? { line: `[+]${c.name} ok`, ok } : { line: `[-]${c.name} failed: reason withheld`, ok };
  }));
  const lines = outcomes.map((o) => o.line);
  const failed = outcomes.some((o) => !o.ok);
  // What is left of the set once the checks took theirs, sorted (sets.String's List) and %q-quoted.
  const unmatched = [...excluded].filter((name) => !checks.some((c) => c.name === name)).sort();
  if (unmatched.length > 0) lines.push(`warn: some health checks cannot be excluded: no matches for ${unmatched.map(goQuote).join(',')}`);
  const verbose = query.has('verbose') || failed;
  const headers = { 'X-Content-Type-Options': 'nosniff' };
  if (!verbose) {
    writeBytes(res, 200, 'text/plain; charset=utf-8', 'ok', headers);
    return;
  }
  const tail = failed ? `${endpoint} check failed` : `${endpoint} check passed`;
  writeBytes(res, failed ? 500 : 200, 'text/plain; charset=utf-8', `${lines.join('\n')}\n${tail}\n`, headers);
}
