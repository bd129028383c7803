// The healthz package's handlers, case by case: a check's own path, the endpoint with its
// checks, and what is registered by nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isStatusError } from '../../src/api/index.ts';
import type { HttpResponse } from '../../src/endpoints/http.ts';
import { serveHealth, type HealthCheck } from '../../src/endpoints/health.ts';

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

async function get(path: string, checks: HealthCheck[], method = 'GET'): Promise<Answer | { thrown: unknown }> {
  const answer: Answer = { status: 0, headers: {}, body: '' };
  const res = {
    writeHead(status: number, h: Record<string, unknown> = {}) {
      answer.status = status;
      answer.headers = h;
    },
    end(chunk?: string | Uint8Array) {
      if (chunk !== undefined) answer.body = Buffer.from(chunk).toString();
    },
  } as unknown as HttpResponse;
  const [pathname, search = ''] = path.split('?');
  const endpoint = pathname!.split('/')[1]!;
  try {
    await serveHealth(res, endpoint, checks, new URLSearchParams(search), pathname!, method);
  } catch (err) {
    return { thrown: err };
  }
  return answer;
}

const checks: HealthCheck[] = [
  { name: 'ping', check: () => {} },
  { name: 'etcd', check: () => { throw new Error('etcd client connection not yet established'); } },
];

const cases: { name: string; path: string; status: number; body?: string; nosniff?: boolean }[] = [
  { name: 'a failing check\'s own path: http.Error\'s 500 with the check\'s error', path: '/readyz/etcd', status: 500, body: 'internal server error: etcd client connection not yet established\n', nosniff: true },
  { name: 'a failing check\'s own path ignores exclude', path: '/readyz/etcd?exclude=etcd', status: 500, body: 'internal server error: etcd client connection not yet established\n', nosniff: true },
  { name: 'a passing check\'s own path: ok, sniffed as text, no nosniff', path: '/readyz/ping?verbose', status: 200, body: 'ok', nosniff: false },
  { name: 'the endpoint with a failing check: always verbose, reasons withheld', path: '/readyz', status: 500, body: '[+]ping ok\n[-]etcd failed: reason withheld\nreadyz check failed\n', nosniff: true },
  { name: 'the endpoint with the failing check excluded', path: '/readyz?exclude=etcd', status: 200, body: 'ok', nosniff: true },
];

for (const c of cases) {
  test(c.name, async () => {
    const answer = await get(c.path, checks) as Answer;
    assert.equal(answer.status, c.status);
    if (c.body !== undefined) assert.equal(answer.body, c.body);
    assert.equal(answer.headers['Content-Type'], 'text/plain; charset=utf-8');
    assert.equal(answer.headers['X-Content-Type-Options'], c.nosniff ? 'nosniff' : undefined);
  });
}

for (const path of ['/readyz/', '/readyz/nope', '/readyz/ping/x']) {
  for (const method of ['GET', 'POST', 'DELETE']) {
    test(`${method} ${path} is registered by nothing: the notfoundhandler's plain-text 404`, async () => {
      const { thrown } = await get(path, checks, method) as { thrown: unknown };
      assert.ok(isStatusError(thrown));
      assert.deepEqual([thrown.code, thrown.plainText], [404, '404 page not found\n']);
    });
  }
}

for (const path of ['/readyz', '/readyz/ping']) {
  test(`POST ${path} is a registered path's 405`, async () => {
    const { thrown } = await get(path, checks, 'POST') as { thrown: unknown };
    assert.ok(isStatusError(thrown));
    assert.deepEqual([thrown.code, thrown.reason, thrown.plainText], [405, 'MethodNotAllowed', undefined]);
  });
}
