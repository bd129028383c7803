// Short requests' deadlines: `--request-timeout` and the `timeout` parameter, answered 504 as
// upstream's timeout filter answers them, audited with what the handler went on to write;
// long-running requests are not cut.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import path from 'node:path';
import { RequestDeadlines } from '../../src/server/request-deadlines.ts';
import type { HttpResponse } from '../../src/endpoints/http.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';
import { allow, startWebhookServer } from '../helpers/webhook-server.ts';
import { eventually } from '../helpers/eventually.ts';
import { sample } from '../helpers/metrics.ts';

const timedOut = '{"metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allotted timeout","reason":"Timeout","details":{},"code":504}\n';

/** A create whose body never ends: its handler waits until the client gives up. */
function stalledCreate(server: TestServer, query: string): Promise<{ status: number; headers: Record<string, unknown>; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(`/api/v1/namespaces/default/configmaps${query}`, server.url), {
      method: 'POST', ca: server.caPem, agent: false,
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', 'content-length': 1000 },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write('{"apiVersion":"v1","kind":"ConfigMap",');
  });
}

describe('a server with a 600 ms --request-timeout', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ requestTimeoutMs: 600 });
  });
  after(() => server.stop());

  test('a request still running at its deadline is answered 504 as upstream\'s timeout filter answers', async () => {
    const answer = await stalledCreate(server, '');
    assert.equal(answer.status, 504);
    assert.equal(answer.body, timedOut);
    assert.equal(answer.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(answer.headers['cache-control'], 'no-cache, private');
    // The body still coming, the connection ends after the answer.
    assert.equal(answer.headers.connection, 'close');
    // What the filters after the timeout filter set goes with the handler's answer.
    assert.equal(answer.headers['x-kubernetes-pf-flowschema-uid'], undefined);
    assert.ok(answer.ms >= 550, `answered after ${answer.ms} ms`);
    // The server goes on serving.
    assert.equal((await server.request('GET', '/api/v1/namespaces/default')).status, 200);
    // Counted as a request ended in self-defense, beside its 504 in the request counter.
    const metrics = (await server.request('GET', '/metrics')).text;
    const labels = { verb: 'POST', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver', code: '504' };
    assert.ok(sample(metrics, 'apiserver_request_terminations_total', labels) >= 1, metrics.split('\n').filter((l) => l.includes('terminations')).join('\n'));
    assert.ok(sample(metrics, 'apiserver_request_total', { ...labels, dry_run: '' }) >= 1);
  });

  test('a shorter `timeout` parameter shortens it; zero, a longer one or one not above zero leave it', async () => {
    const short = await stalledCreate(server, '?timeout=150ms');
    assert.equal(short.status, 504);
    assert.ok(short.ms < 550, `answered after ${short.ms} ms`);
    for (const timeout of ['0s', '1h', '-1s']) {
      const answer = await stalledCreate(server, `?timeout=${timeout}`);
      assert.equal(answer.status, 504, timeout);
      assert.ok(answer.ms >= 550, `${timeout}: answered after ${answer.ms} ms`);
    }
  });

  test('a malformed `timeout` is still refused 400 before anything runs', async () => {
    const answer = await server.request('GET', '/api/v1/namespaces?timeout=5');
    assert.equal(answer.status, 400);
    assert.equal(answer.json.message, 'invalid timeout specified in the request URL - time: missing unit in duration "5"');
  });

  test('over HTTP/2 too', async () => {
    const session = http2.connect(server.url, { ca: server.caPem });
    try {
      const stream = session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps?timeout=200ms', authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });
      stream.write('{"apiVersion":"v1",');
      const [headers, body] = await new Promise<[http2.IncomingHttpHeaders, string]>((resolve, reject) => {
        let headers: http2.IncomingHttpHeaders = {};
        const chunks: Buffer[] = [];
        stream.on('response', (h) => (headers = h));
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => resolve([headers, Buffer.concat(chunks).toString('utf8')]));
        stream.on('error', reject);
      });
      assert.equal(headers[':status'], 504);
      assert.equal(headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(body, timedOut);
      stream.close();
    } finally {
      session.close();
    }
  });

  test('watches are long-running: not cut at the deadline', async () => {
    const url = new URL('/api/v1/namespaces/default/configmaps?watch=1', server.url);
    const req = https.request(url, { ca: server.caPem, agent: false, headers: { authorization: `Bearer ${server.token}` } });
    const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      req.on('response', resolve);
      req.on('error', reject);
      req.end();
    });
    assert.equal(response.statusCode, 200);
    let ended = false;
    response.on('end', () => (ended = true));
    response.resume();
    await new Promise((resolve) => setTimeout(resolve, 900));
    assert.equal(ended, false);
    req.destroy();
  });
});

test('a handler still reading a body at its deadline is let go: the server stops without waiting for it', async () => {
  const server = await startServer({ requestTimeoutMs: 200 });
  try {
    assert.equal((await stalledCreate(server, '')).status, 504);
  } finally {
    // Stopping waits for the requests in flight, up to its 10 s grace: the stalled create was one, for good.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopped = await Promise.race([server.stop().then(() => 'stopped'), new Promise((resolve) => (timer = setTimeout(resolve, 5000, 'still waiting')))]);
    clearTimeout(timer);
    assert.equal(stopped, 'stopped');
  }
});

test('a request past its deadline writes nothing: a webhook is called with what is left of it, and a write after it is refused', async () => {
  const [server, hooks] = await Promise.all([startServer(), startWebhookServer()]);
  try {
    const ns = await server.newNamespace('late');
    // Slower than the request may take; failing open, so that only the deadline stops the write.
    hooks.handle('/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return allow();
    });
    const configured = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { body: {
      metadata: { name: `slow-${ns}` },
      webhooks: [{
        name: 'slow.example.com', clientConfig: { url: `${hooks.url}/slow`, caBundle: hooks.caBundle }, failurePolicy: 'Ignore', timeoutSeconds: 10,
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      }],
    } });
    assert.equal(configured.status, 201, configured.text);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    await eventually(async () => {
      const res = await server.request('POST', `${path}?timeout=400ms`, { body: { metadata: { name: `probe-${Math.random().toString(36).slice(2)}` } } });
      assert.equal(res.status, 504, res.text);
    }, { what: 'the webhook to be called' });
    // Told the time left, rounded up to a second, not its own 10 s.
    assert.equal(hooks.received('/slow').at(-1)!.query, 'timeout=1s');
    // Its call was cut at the deadline and, failing open, the create went on: to be refused.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual((await server.request('GET', path)).json.items, []);
  } finally {
    await Promise.all([server.stop(), hooks.close()]);
  }
});

test('a body that arrives after the deadline\'s 504 is not created', async () => {
  const server = await startServer();
  const session = http2.connect(server.url, { ca: server.caPem });
  try {
    const stream = session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps?timeout=200ms', authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });
    stream.write('{"apiVersion":"v1","kind":"ConfigMap",');
    const status = await new Promise<number>((resolve) => stream.once('response', (headers) => resolve(Number(headers[':status']))));
    assert.equal(status, 504);
    stream.end('"metadata":{"name":"late"}}');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps/late')).status, 404);
  } finally {
    session.close();
    await server.stop();
  }
});

describe('an audited request cut off at its deadline', () => {
  // What the audit records of it: upstream's audit filter is inside its timeout filter, so its
  // event has what the handler went on to write (the timeout filter refusing it), never the
  // 504 the client got, and its ResponseComplete stage comes when the handler returns.
  interface AuditEvent { auditID: string; stage: string; responseStatus?: Record<string, unknown>; responseObject?: Record<string, unknown> }
  const dir = tempDir('plinth-deadline-audit-');
  const logPath = path.join(dir, 'audit.log');
  const events = (auditID: unknown): AuditEvent[] => readFileSync(logPath, 'utf8').split('\n').filter((l) => l !== '')
    .map((l) => JSON.parse(l) as AuditEvent).filter((e) => e.auditID === auditID);
  let server: TestServer;
  let hooks: Awaited<ReturnType<typeof startWebhookServer>>;
  before(async () => {
    writeFileSync(path.join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n  resources: [{group: "", resources: [configmaps]}]\n- level: None\n');
    [server, hooks] = await Promise.all([startServer({ auditPolicyFile: path.join(dir, 'policy.yaml'), auditLogPath: logPath }), startWebhookServer()]);
  });
  after(async () => {
    await Promise.all([server?.stop(), hooks?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A webhook slower than the requests may take, on creates of configmaps in a new namespace. */
  async function slowWebhookNamespace(failurePolicy: 'Fail' | 'Ignore'): Promise<string> {
    const ns = await server.newNamespace(`slow-${failurePolicy.toLowerCase()}`);
    hooks.handle(`/${ns}`, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return allow();
    });
    const configured = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { body: {
      metadata: { name: ns },
      webhooks: [{
        name: `${ns}.example.com`, clientConfig: { url: `${hooks.url}/${ns}`, caBundle: hooks.caBundle }, failurePolicy, timeoutSeconds: 10,
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      }],
    } });
    assert.equal(configured.status, 201, configured.text);
    return ns;
  }

  /** A create answered by the timeout filter's 504 (once the webhook is called), and its audit events. */
  async function cutOffCreate(ns: string): Promise<AuditEvent[]> {
    const answer = await eventually(async () => {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps?timeout=400ms`, { body: { metadata: { name: `late-${Math.random().toString(36).slice(2)}` } } });
      assert.equal(res.text, timedOut, `${res.status} ${res.text}`);
      return res;
    }, { what: 'the webhook to be called' });
    const auditID = answer.headers['audit-id'];
    await eventually(() => assert.ok(events(auditID).some((e) => e.stage === 'ResponseComplete')), { what: 'the event' });
    // Its webhook call and the handler were cut at the deadline: nothing comes after the one event.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const all = events(auditID);
    assert.deepEqual(all.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
    return all;
  }

  test('the handler\'s error after the deadline is what the event records: a webhook failing closed, 500', async () => {
    const [, complete] = await cutOffCreate(await slowWebhookNamespace('Fail'));
    const status = complete!.responseStatus!;
    assert.equal(status.code, 500);
    assert.equal(status.status, 'Failure');
    assert.equal(status.reason, 'InternalError');
    assert.match(String(status.message), /^Internal error occurred: failed calling webhook "slow-fail-\d+\.example\.com": .*context deadline exceeded$/);
    // At RequestResponse, the Status the handler wrote.
    assert.equal(complete!.responseObject?.kind, 'Status');
    assert.equal(complete!.responseObject?.code, 500);
  });

  test('failing open, the handler goes on and its refused write is recorded, in its words rather than the timeout filter\'s', async () => {
    const [, complete] = await cutOffCreate(await slowWebhookNamespace('Ignore'));
    const status = complete!.responseStatus!;
    assert.equal(status.code, 504);
    assert.equal(status.reason, 'Timeout');
    assert.match(String(status.message), /^Timeout: request did not complete within requested timeout - context deadline exceeded$/);
    assert.equal(complete!.responseObject?.kind, 'Status');
  });

  test('its ResponseComplete event waits for the handler: a body still coming past the 504', async () => {
    const session = http2.connect(server.url, { ca: server.caPem });
    try {
      const ns = await server.newNamespace('stalled');
      const stream = session.request({ ':method': 'POST', ':path': `/api/v1/namespaces/${ns}/configmaps?timeout=200ms`, authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });
      stream.write('{"apiVersion":"v1","kind":"ConfigMap",');
      const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
      assert.equal(headers[':status'], 504);
      const auditID = headers['audit-id'];
      // The handler still waits for the body: no ResponseComplete event yet.
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(events(auditID).map((e) => e.stage), ['RequestReceived']);
      stream.end('"metadata":{"name":"late"}}');
      // Its write refused past the deadline, as the handler answered it.
      await eventually(() => assert.equal(events(auditID).find((e) => e.stage === 'ResponseComplete')?.responseStatus?.reason, 'Timeout'), { what: 'the event' });
    } finally {
      session.close();
    }
  });
});

/** A response as the deadlines see it, recording what is done to it. */
function fakeResponse(opts: { headersSent?: boolean; http2?: boolean } = {}) {
  const calls: string[] = [];
  const headers = new Map<string, unknown>([['audit-id', 'a'], ['x-kubernetes-pf-flowschema-uid', 'u'], ['warning', 'w']]);
  const res = {
    statusCode: 200, headersSent: opts.headersSent ?? false, writableEnded: false,
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    getHeaderNames: () => [...headers.keys()],
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
    writeHead: (status: number) => calls.push(`writeHead ${status}`),
    write: () => { calls.push('write'); return true; },
    end: (body?: string) => { calls.push(`end ${body === undefined ? '' : 'body'}`); res.writableEnded = true; },
    once: () => undefined,
    destroy: () => calls.push('destroy'),
    ...(opts.http2 === true ? { stream: { cork() {}, close: (code: number) => calls.push(`close ${code}`) } } : {}),
  };
  return { res: res as unknown as HttpResponse & { writableEnded: boolean }, calls, headers };
}

test('a request ended before its deadline is not answered again', async () => {
  const deadlines = new RequestDeadlines(30);
  const { res, calls } = fakeResponse();
  const deadline = deadlines.start(res, null);
  deadlines.end(deadline);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(calls, []);
  assert.equal(deadline.timedOut, false);
  deadlines.stop();
});

test('at its deadline a response keeps only the outer filters\' headers, and takes no more writes', async () => {
  const deadlines = new RequestDeadlines(20);
  const { res, calls, headers } = fakeResponse();
  const deadline = deadlines.start(res, null);
  await eventually(() => assert.equal(deadline.timedOut, true), { what: 'the deadline' });
  assert.deepEqual(calls, ['writeHead 504', 'end body']);
  assert.deepEqual([...headers.keys()], ['audit-id']);
  // The handler, still running, writes nothing more (nor throws for its headers being sent).
  res.setHeader('Warning', 'late');
  res.writeHead(201);
  assert.equal(res.write('x'), true);
  res.end('late');
  assert.deepEqual(calls, ['writeHead 504', 'end body']);
  deadlines.stop();
});

test('an answer under way at its deadline is cut off: the HTTP/2 stream reset, the HTTP/1.1 connection closed', async () => {
  const deadlines = new RequestDeadlines(300);
  const h2 = fakeResponse({ headersSent: true, http2: true });
  const h1 = fakeResponse({ headersSent: true });
  deadlines.start(h2.res, null);
  deadlines.start(h1.res, null);
  // A shorter deadline after a longer one re-arms the timer for it.
  const short = fakeResponse();
  deadlines.start(short.res, '5ms');
  await eventually(() => assert.deepEqual(short.calls, ['writeHead 504', 'end body']), { what: 'the short deadline' });
  assert.deepEqual(h2.calls, []);
  await eventually(() => {
    assert.deepEqual(h2.calls, ['close 2']);
    assert.deepEqual(h1.calls, ['destroy']);
  }, { what: 'the longer deadlines' });
  deadlines.stop();
});
