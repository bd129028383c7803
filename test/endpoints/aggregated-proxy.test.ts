// The aggregator's proxy on its own: an upgrade to an extension server that cannot be reached
// (the end-to-end tests, test/e2e/aggregation.test.ts, reach a real one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { PassThrough } from 'node:stream';
import { proxyToExtension } from '../../src/endpoints/aggregated-proxy.ts';
import type { HttpRequest, HttpResponse } from '../../src/endpoints/http.ts';
import { offerConnection } from '../../src/endpoints/upgrade.ts';
import { freePort } from '../helpers/free-port.ts';

/** An answer written through the response interface the handlers use. */
function recordingResponse(): HttpResponse & { recorded: { status: number; headers: Record<string, string>; body: string } } {
  const recorded = { status: 200, headers: {} as Record<string, string>, body: '' };
  return {
    recorded,
    headersSent: false,
    get statusCode() { return recorded.status; },
    set statusCode(code: number) { recorded.status = code; },
    setHeader(name: string, value: string) { recorded.headers[name.toLowerCase()] = value; },
    end(text?: string) { recorded.body += text ?? ''; },
  } as unknown as HttpResponse & { recorded: typeof recorded };
}

test('an upgrade to an extension server that cannot be reached is upstream\'s plain-text 503, its connection left to the server', async () => {
  const port = await freePort();
  const req = {
    method: 'GET', url: '/apis/example.dev/v1/namespaces/n/things/t/console',
    headers: { connection: 'Upgrade', upgrade: 'websocket' }, rawHeaders: ['Connection', 'Upgrade', 'Upgrade', 'websocket'],
  } as unknown as HttpRequest;
  const socket = new PassThrough();
  offerConnection(req, socket, Buffer.alloc(0));
  const res = recordingResponse();
  const agent = new https.Agent();
  try {
    await proxyToExtension(req, res, { origin: `https://127.0.0.1:${port}`, agent }, { name: 'alice', uid: '', groups: [] }, { forwardRedirects: false, track: () => () => {} });
  } finally {
    agent.destroy();
  }
  assert.equal(res.recorded.status, 503);
  assert.equal(res.recorded.body, `error dialing backend: dial tcp 127.0.0.1:${port}: connect: connection refused\n`);
  assert.equal(res.recorded.headers['content-type'], 'text/plain; charset=utf-8');
  // Not taken: the server answers on it and closes it as for any answer.
  assert.equal(socket.destroyed, false);
});
