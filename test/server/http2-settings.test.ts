// HTTP/2 as kube-apiserver sizes it: the streams a client may open per connection, and
// how much of a request body may be in flight per stream and per connection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { rmSync } from 'node:fs';
import { defaultConfig } from '../../src/cli/config.ts';
import { serve, type RunningServer } from '../../src/cli/serve.ts';
import { eventually } from '../helpers/eventually.ts';
import { tempDir } from '../helpers/server.ts';

/** The settings and connection window a client sees once the server's first frames arrived. */
async function seenByClient(server: RunningServer): Promise<{ settings: http2.Settings; connectionWindow: number }> {
  const session = http2.connect(server.url, { ca: server.caPem });
  session.on('error', () => {});
  try {
    const settings = await new Promise<http2.Settings>((resolve) => session.once('remoteSettings', resolve));
    // The connection's window grows by a WINDOW_UPDATE sent after the settings; one answered request has seen it.
    await new Promise<void>((resolve, reject) => {
      const stream = session.request({ ':path': '/version' });
      stream.on('error', reject).resume().on('end', resolve);
    });
    return { settings, connectionWindow: session.state.remoteWindowSize! };
  } finally {
    session.destroy();
  }
}

describe('HTTP/2 settings', () => {
  const servers: RunningServer[] = [];
  const dirs: string[] = [];
  const start = async (http2MaxStreamsPerConnection: number) => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const server = await serve({ ...defaultConfig(), storage: 'memory', securePort: 0, dataDir, controllers: [], http2MaxStreamsPerConnection }, () => {});
    servers.push(server);
    return server;
  };
  let byDefault: RunningServer;
  let raised: RunningServer;
  before(async () => {
    byDefault = await start(0);
    raised = await start(250);
  });
  after(async () => {
    for (const server of servers) await server.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test('by default: 100 streams per connection, 256 KiB per stream and frame, 100 × 256 KiB per connection', async () => {
    const { settings } = await seenByClient(byDefault);
    assert.equal(settings.maxConcurrentStreams, 100);
    assert.equal(settings.initialWindowSize, 256 * 1024);
    assert.equal(settings.maxFrameSize, 256 * 1024);
    await eventually(async () => assert.equal((await seenByClient(byDefault)).connectionWindow, 100 * 256 * 1024), { what: 'the connection window' });
  });

  test('--http2-max-streams-per-connection sets the streams, and the connection window with them', async () => {
    const { settings } = await seenByClient(raised);
    assert.equal(settings.maxConcurrentStreams, 250);
    assert.equal(settings.initialWindowSize, 256 * 1024);
    await eventually(async () => assert.equal((await seenByClient(raised)).connectionWindow, 250 * 256 * 1024), { what: 'the connection window' });
  });

  test('a body larger than a stream\'s window arrives whole', async () => {
    const session = http2.connect(byDefault.url, { ca: byDefault.caPem });
    session.on('error', () => {});
    try {
      const value = 'x'.repeat(900 * 1024);
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'large' }, data: { value } });
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': '/api/v1/namespaces/default/configmaps', authorization: `Bearer ${byDefault.token}`, 'content-type': 'application/json' });
        let status = 0;
        let text = '';
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status, text })).on('error', reject);
        stream.end(body);
      });
      assert.equal(answer.status, 201, answer.text);
      assert.equal(JSON.parse(answer.text).data.value.length, value.length);
    } finally {
      session.destroy();
    }
  });
});
