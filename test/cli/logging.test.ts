// --log-format and -v: klog's text lines or JSON lines; at -v 3 every request is logged as
// upstream's httplog logs it; start and stop are logged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { createLogger } from '../../src/cli/logger.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServerProcess } from '../helpers/server.ts';

test('text lines as klog writes them; JSON lines with ts, v and msg; -v filters', () => {
  const lines: string[] = [];
  const text = createLogger({ format: 'text', verbosity: 2, write: (l) => lines.push(l) });
  text.info('hello');
  text.info('detail', 3);
  text.error('broken');
  assert.equal(lines.length, 2, 'the -v 3 line is not written at -v 2');
  assert.match(lines[0]!, /^I\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ plinth\] hello\n$/);
  assert.match(lines[1]!, /^E\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ plinth\] broken\n$/);
  const json: string[] = [];
  const j = createLogger({ format: 'json', verbosity: 0, write: (l) => json.push(l) });
  j.info('hello');
  j.error('broken');
  const [info, error] = json.map((l) => JSON.parse(l));
  assert.deepEqual(Object.keys(info), ['ts', 'v', 'msg']);
  assert.equal(info.msg, 'hello');
  assert.equal(typeof info.ts, 'number');
  assert.equal(error.err, 'broken');
});

test('plinth serve --log-format json -v 3: JSON lines, one per request, and start and stop', async () => {
  const server = await startServerProcess(['--log-format', 'json', '-v', '3']);
  let log = '';
  server.child.stderr!.on('data', (chunk: Buffer) => void (log += chunk.toString()));
  try {
    const ca = readFileSync(path.join(server.dataDir, 'pki/ca.crt'), 'utf8');
    const token = readFileSync(path.join(server.dataDir, 'tokens.csv'), 'utf8').split(',')[0]!;
    const status = await new Promise<number>((resolve, reject) => {
      https.get(new URL('/api/v1/namespaces/default', server.url), { ca, headers: { authorization: `Bearer ${token}`, 'user-agent': 'logging-test/1.0' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      }).on('error', reject);
    });
    assert.equal(status, 200);
    const line = await eventually(() => {
      const found = log.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)).find((e) => String(e.msg).includes('URI="/api/v1/namespaces/default"'));
      assert.ok(found, log);
      return found;
    });
    // Every request has an audit ID, audited or not (upstream's WithAuditInit), which its line names.
    assert.match(line.msg, /^"HTTP" verb="GET" URI="\/api\/v1\/namespaces\/default" latency="[\d.]+s" userAgent="logging-test\/1\.0" audit-ID="[0-9a-f-]{36}" srcIP="[^"]+" resp=200$/);
  } finally {
    assert.equal(await server.stop(), 0);
  }
  const messages = log.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l).msg);
  assert.ok(messages.includes('plinth shutting down') && messages.includes('plinth stopped'), messages.join('\n'));
});

test('a request slower than the threshold is logged at any verbosity', async () => {
  const { serve } = await import('../../src/cli/serve.ts');
  const { defaultConfig } = await import('../../src/cli/config.ts');
  const { tempDir } = await import('../helpers/server.ts');
  const lines: string[] = [];
  // A threshold of 0: every request is slow.
  const running = await serve({ ...defaultConfig(), storage: 'memory', securePort: 0, dataDir: tempDir(), slowRequestMs: 0 }, (m) => lines.push(m));
  try {
    await new Promise<void>((resolve, reject) => {
      https.get(new URL('/version', running.url), { ca: running.caPem, headers: { authorization: `Bearer ${running.token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      }).on('error', reject);
    });
    await eventually(() => assert.ok(lines.some((l) => /^"Slow request" "HTTP" verb="GET" URI="\/version" latency="[\d.]+s" .*resp=200$/.test(l)), lines.join('\n')));
  } finally {
    await running.close();
  }
});
