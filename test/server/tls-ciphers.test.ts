// The TLS suite a client gets, chosen by the server's order as Go's servers choose:
// AES-128-GCM for TLS 1.3 whatever the client's order, ChaCha20 for a client that lists
// it first, and what a client offers when it offers one suite only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import tls from 'node:tls';
import { defaultConfig } from '../../src/cli/config.ts';
import { serve, type RunningServer } from '../../src/cli/serve.ts';
import { tempDir } from '../helpers/server.ts';

let server: RunningServer;
let dataDir: string;
before(async () => {
  dataDir = tempDir();
  server = await serve({ ...defaultConfig(), storage: 'memory', securePort: 0, dataDir, controllers: [] }, () => {});
});
after(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The suite and protocol a TLS client with these options negotiates. */
function negotiated(opts: tls.ConnectionOptions): Promise<{ name: string; version: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: server.caPem, ALPNProtocols: ['h2'], ...opts }, () => {
      const { name, version } = socket.getCipher();
      socket.destroy();
      resolve({ name, version });
    });
    socket.on('error', reject);
  });
}

test('TLS 1.3: AES-128-GCM though a Node client lists AES-256-GCM first', async () => {
  assert.match(tls.DEFAULT_CIPHERS, /^TLS_AES_256_GCM_SHA384:/, 'the client\'s own order');
  assert.deepEqual(await negotiated({}), { name: 'TLS_AES_128_GCM_SHA256', version: 'TLSv1.3' });
});

test('TLS 1.3: ChaCha20 for a client that lists it first; the one suite a client offers', async () => {
  assert.equal((await negotiated({ ciphers: 'TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256' })).name, 'TLS_CHACHA20_POLY1305_SHA256');
  assert.equal((await negotiated({ ciphers: 'TLS_AES_256_GCM_SHA384' })).name, 'TLS_AES_256_GCM_SHA384');
});

test('TLS 1.2: an AES-128-GCM suite', async () => {
  const { name, version } = await negotiated({ maxVersion: 'TLSv1.2' });
  assert.equal(version, 'TLSv1.2');
  assert.match(name, /^ECDHE-(RSA|ECDSA)-AES128-GCM-SHA256$/);
});
