// /debug/flags, as kube-apiserver serves it with profiling on (its default): the index page
// for any method and path under it, PUT /debug/flags/v changing the log verbosity of the
// running server at once (klog's Level.Set words for a value it refuses), RBAC on the
// nonResourceURL with the method as its verb.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { createLogger } from '../../src/cli/logger.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, startServerProcess, tempDir, type TestServer } from '../helpers/server.ts';

const tokens = { admin: 'admin-token', carol: 'carol-token' };

function tokenFile(): string {
  const file = path.join(tempDir('plinth-debug-flags-'), 'tokens.csv');
  writeFileSync(file, [`${tokens.admin},admin,admin,"system:masters"`, `${tokens.carol},carol,carol-uid`].join('\n'));
  return file;
}

/** What Go's html/template writes for upstream's index template over the one flag `v`. */
const indexPage = '<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n<body>\n/debug/flags/<br>\n<br>\nflags:<br>\n<table>\n\n<tr>v<br>\n\n</table>\n<br>\nfull flags configurable<br>\n</body>\n</html>\n';

describe('/debug/flags', () => {
  let server: TestServer;
  before(async () => void (server = await startServer({ tokenAuthFile: tokenFile() })));
  after(() => server?.stop());

  const cases = [
    { name: 'the index', method: 'GET', path: '/debug/flags' },
    { name: 'an unknown flag', method: 'GET', path: '/debug/flags/x' },
    { name: 'the prefix itself', method: 'GET', path: '/debug/flags/' },
    { name: 'the flag with a trailing slash (the prefix\'s)', method: 'GET', path: '/debug/flags/v/' },
    { name: 'another method', method: 'POST', path: '/debug/flags/x' },
  ];
  for (const { name, method, path: urlPath } of cases) {
    test(`${method} ${urlPath} (${name}) answers the index page, sniffed as HTML`, async () => {
      const res = await server.request(method, urlPath, { token: tokens.admin });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(res.text, indexPage);
    });
  }

  test('GET /debug/flags/v answers 406 in plain text', async () => {
    const res = await server.request('GET', '/debug/flags/v', { token: tokens.admin });
    assert.equal(res.status, 406);
    assert.equal(res.headers['content-type'], 'text/plain');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.text, 'unsupported http method\n');
  });

  const refused = [
    { name: 'a trailing newline', value: '4\n', error: 'strconv.ParseInt: parsing "4\\n": invalid syntax' },
    { name: 'a word', value: 'x', error: 'strconv.ParseInt: parsing "x": invalid syntax' },
    { name: 'nothing', value: '', error: 'strconv.ParseInt: parsing "": invalid syntax' },
    { name: 'a sign alone', value: '-', error: 'strconv.ParseInt: parsing "-": invalid syntax' },
    { name: 'past int32', value: '2147483648', error: 'strconv.ParseInt: parsing "2147483648": value out of range' },
    { name: 'below int32', value: '-2147483649', error: 'strconv.ParseInt: parsing "-2147483649": value out of range' },
    { name: 'past 2^32 before a letter', value: '4294967296x', error: 'strconv.ParseInt: parsing "4294967296x": value out of range' },
  ];
  for (const { name, value, error } of refused) {
    test(`PUT /debug/flags/v with ${name} answers 400 in Go's words`, async () => {
      const res = await server.request('PUT', '/debug/flags/v', { token: tokens.admin, raw: value });
      assert.equal(res.status, 400);
      assert.equal(res.headers['content-type'], 'text/plain');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.text, `failed set klog.logging.verbosity ${value}: ${error}\n`);
    });
  }

  test('PUT /debug/flags/v takes a signed value', async () => {
    for (const value of ['-1', '+2', '0']) {
      const res = await server.request('PUT', '/debug/flags/v', { token: tokens.admin, raw: value });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.text, `successfully set klog.logging.verbosity to ${value}\n`);
    }
  });

  test('RBAC authorizes the method as the nonResourceURL\'s verb: put sets the flag, the index needs get', async () => {
    const forbidden = await server.request('PUT', '/debug/flags/v', { token: tokens.carol, raw: '4' });
    assert.equal(forbidden.status, 403, forbidden.text);
    assert.equal(forbidden.json.message, 'forbidden: User "carol" cannot put path "/debug/flags/v"');
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'debug-flags-setter' }, rules: [{ nonResourceURLs: ['/debug/flags/v'], verbs: ['put'] }] };
    assert.equal((await server.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { token: tokens.admin, body: role })).status, 201);
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'debug-flags-setter' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'debug-flags-setter' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'carol' }],
    };
    assert.equal((await server.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', { token: tokens.admin, body: binding })).status, 201);
    await eventually(async () => assert.equal((await server.request('PUT', '/debug/flags/v', { token: tokens.carol, raw: '0' })).status, 200));
    const index = await server.request('GET', '/debug/flags', { token: tokens.carol });
    assert.equal(index.status, 403, index.text);
    assert.equal(index.json.message, 'forbidden: User "carol" cannot get path "/debug/flags"');
  });
});

test('the logger filters by its verbosity as it is when a line is written', () => {
  const lines: string[] = [];
  const logger = createLogger({ format: 'text', verbosity: 0, write: (l) => lines.push(l) });
  logger.info('hidden', 3);
  logger.verbosity.level = 3;
  logger.info('shown', 3);
  logger.verbosity.level = -1;
  logger.info('klog.Info is written whatever the verbosity');
  assert.deepEqual(lines.map((l) => l.replace(/^.*plinth\] /, '')), ['shown\n', 'klog.Info is written whatever the verbosity\n']);
});

test('plinth serve: PUT /debug/flags/v 4 logs every request from then on, 0 stops it', async () => {
  const server = await startServerProcess(['-v', '0']);
  let log = '';
  server.child.stderr!.on('data', (chunk: Buffer) => void (log += chunk.toString()));
  try {
    const ca = readFileSync(path.join(server.dataDir, 'pki/ca.crt'), 'utf8');
    const token = readFileSync(path.join(server.dataDir, 'tokens.csv'), 'utf8').split(',')[0]!;
    const request = (method: string, urlPath: string, body = '') => new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = https.request(new URL(urlPath, server.url), { method, ca, headers: { authorization: `Bearer ${token}`, 'user-agent': 'debug-flags-test/1.0' } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => void (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      }).on('error', reject);
      req.end(body);
    });
    const logged = (uri: string) => log.includes(`URI="${uri}"`);

    assert.equal((await request('GET', '/version?before')).status, 200);
    assert.deepEqual(await request('PUT', '/debug/flags/v', '4'), { status: 200, text: 'successfully set klog.logging.verbosity to 4\n' });
    assert.equal((await request('GET', '/version?at-4')).status, 200);
    await eventually(() => assert.match(log, /"HTTP" verb="GET" URI="\/version\?at-4" latency="[\d.]+s" userAgent="debug-flags-test\/1\.0" audit-ID="[0-9a-f-]{36}" srcIP="[^"]+" resp=200\n/));
    assert.equal((await request('PUT', '/debug/flags/v', '0')).status, 200);
    assert.equal((await request('GET', '/version?at-0')).status, 200);
    // Set back to 3 to see a later request logged: the one between, at 0, was not.
    assert.equal((await request('PUT', '/debug/flags/v', '3')).status, 200);
    assert.equal((await request('GET', '/version?at-3')).status, 200);
    await eventually(() => assert.ok(logged('/version?at-3'), log));
    assert.ok(!logged('/version?before') && !logged('/version?at-0'), log);
  } finally {
    await server.stop();
  }
});

test('--profiling=false: no /debug/flags, and DELETE on /metrics and /metrics/slis answers the metrics, as upstream\'s handlers without profiling', async (t) => {
  const server = await startServer({ profiling: false });
  t.after(() => server.stop());
  assert.equal((await server.request('PUT', '/debug/flags/v', { raw: '4', headers: { 'content-type': 'text/plain' } })).status, 404);
  assert.equal((await server.request('GET', '/debug/flags')).status, 404);
  assert.equal((await server.request('GET', '/readyz')).status, 200);
  for (const pathname of ['/metrics', '/metrics/slis']) {
    const res = await server.request('DELETE', pathname);
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.text, 'metrics reset\n');
    assert.match(res.text, /^# HELP /m, pathname);
  }
  // Nothing was reset: the readiness probe's series is still there.
  assert.match((await server.request('GET', '/metrics/slis')).text, /^kubernetes_healthchecks_total\{name="etcd",status="success",type="readyz"\} [1-9]/m);
});
