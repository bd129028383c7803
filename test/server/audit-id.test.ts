// Every request has an audit ID, audited or not, as upstream's WithAuditInit gives one: the
// client's Audit-ID when it sends one, else a new UUID, answered as the Audit-Id header.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.stop());

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('without an audit policy every answer carries a new Audit-Id: served, refused, unrouted', async () => {
  const answers = [
    await server.request('GET', '/api/v1/namespaces/default'),
    await server.request('GET', '/api/v1/namespaces/default', { anonymous: true }),
    await server.request('GET', '/api/v1/namespaces/default', { token: 'nobody-has-this' }),
    await server.request('GET', '/no/such/path'),
    await server.request('GET', '/api/v1/namespaces?timeout=x'),
  ];
  assert.deepEqual(answers.map((a) => a.status), [200, 403, 401, 404, 400]);
  const ids = answers.map((a) => String(a.headers['audit-id']));
  for (const id of ids) assert.match(id, uuid);
  assert.equal(new Set(ids).size, ids.length);
});

test('a client\'s Audit-ID is the request\'s', async () => {
  const res = await server.request('GET', '/api/v1/namespaces/default', { headers: { 'Audit-ID': 'from-the-client' } });
  assert.equal(res.headers['audit-id'], 'from-the-client');
});
