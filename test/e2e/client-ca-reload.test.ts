// --client-ca-file followed as upstream's dynamic CA bundle: a changed bundle is trusted from
// the next handshake on and published to extension API servers; one that does not load is
// logged and the trusted one stays.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { defaultConfig } from '../../src/cli/config.ts';
import { serve } from '../../src/cli/serve.ts';
import { ensureClientMaterial } from '../../src/server/tls-material.ts';
import { eventually } from '../helpers/eventually.ts';
import { tempDir } from '../helpers/server.ts';

function replace(file: string, text: string): void {
  writeFileSync(`${file}.new`, text);
  renameSync(`${file}.new`, file);
}

test('a changed --client-ca-file is trusted on new connections and published; one that does not load is not', async (t) => {
  const [dirA, dirB, dataDir] = [tempDir('plinth-ca-a-'), tempDir('plinth-ca-b-'), tempDir()];
  const [a, b] = await Promise.all([ensureClientMaterial(dirA), ensureClientMaterial(dirB)]);
  const caFile = path.join(dataDir, 'client-ca.crt');
  writeFileSync(caFile, a.clientCaPem);
  const logged: string[] = [];
  const running = await serve({ ...defaultConfig(), storage: 'memory', securePort: 0, enableRootCaPublisher: false, dataDir, clientCaFile: caFile }, (m) => logged.push(m));
  t.after(async () => {
    await running.close();
    for (const dir of [dirA, dirB, dataDir]) rmSync(dir, { recursive: true, force: true });
  });
  /** The status a new connection with this client certificate gets. */
  const statusWith = (client: { adminCertPem: string; adminKeyPem: string }) => new Promise<number>((resolve, reject) => {
    https.get({ host: '127.0.0.1', port: running.port, path: '/api/v1/namespaces/default', ca: running.caPem, cert: client.adminCertPem, key: client.adminKeyPem, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });
  const published = async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      https.get({ host: '127.0.0.1', port: running.port, path: '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication', ca: running.caPem, headers: { authorization: `Bearer ${running.token}` }, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => resolve(body));
      }).on('error', reject);
    });
    return (JSON.parse(answer) as { data: Record<string, string> }).data['client-ca-file'];
  };
  assert.deepEqual([await statusWith(a), await statusWith(b)], [200, 401]);
  assert.equal(await published(), a.clientCaPem);

  replace(caFile, b.clientCaPem);
  await eventually(async () => assert.deepEqual([await statusWith(a), await statusWith(b)], [401, 200]));
  await eventually(async () => assert.equal(await published(), b.clientCaPem));
  assert.ok(logged.includes(`Loaded a new CA Bundle and Verifier name="client-ca-bundle::${caFile}"`), logged.join('\n'));

  replace(caFile, 'not a certificate\n');
  await eventually(() => assert.ok(logged.includes(`"client-ca-bundle::${caFile}" failed with : data does not contain any valid RSA or ECDSA certificates`), logged.join('\n')));
  assert.equal(await statusWith(b), 200);
});
