// --tls-cert-file and --tls-private-key-file: the operator's serving certificate, its chain's
// last certificate in the kubeconfig, a changed pair served to new connections, a bad pair
// refused at start and left unserved after it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { defaultConfig } from '../../src/cli/config.ts';
import { serve } from '../../src/cli/serve.ts';
import { ensureServingMaterial, type ServingMaterial } from '../../src/server/tls-material.ts';
import { eventually } from '../helpers/eventually.ts';
import { tempDir } from '../helpers/server.ts';

/** A CA of its own and a serving certificate for 127.0.0.1 it issued. */
async function pair(): Promise<ServingMaterial & { dir: string }> {
  const dir = tempDir('plinth-serving-');
  return { dir, ...(await ensureServingMaterial(dir)) };
}

/** Writes a file as a rename does it, as a mounted Secret changes. */
function replace(file: string, text: string): void {
  writeFileSync(`${file}.new`, text);
  renameSync(`${file}.new`, file);
}

/** The fingerprint of the certificate a new connection is served. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2'] }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;

function get(port: number, ca: string, token: string, agent?: https.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: '/api/v1/namespaces/default', ca, agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

test('the files\' certificate is served, the kubeconfig trusts the chain\'s last certificate, and a changed pair reaches new connections', async (t) => {
  const [first, second] = await Promise.all([pair(), pair()]);
  const dataDir = tempDir();
  const certFile = path.join(dataDir, 'serving.crt');
  const keyFile = path.join(dataDir, 'serving.key');
  writeFileSync(certFile, first.certPem + first.caPem);
  writeFileSync(keyFile, first.keyPem);
  const logged: string[] = [];
  const running = await serve({ ...defaultConfig(), storage: 'memory', securePort: 0, enableRootCaPublisher: false, dataDir, tlsCertFile: certFile, tlsPrivateKeyFile: keyFile }, (m) => logged.push(m));
  t.after(async () => {
    await running.close();
    for (const dir of [dataDir, first.dir, second.dir]) rmSync(dir, { recursive: true, force: true });
  });

  assert.equal(fingerprint(running.caPem), fingerprint(first.caPem));
  const kubeconfig = readFileSync(running.kubeconfigPath, 'utf8');
  const caData = /certificate-authority-data: (\S+)/.exec(kubeconfig)![1]!;
  assert.equal(fingerprint(Buffer.from(caData, 'base64').toString('utf8')), fingerprint(first.caPem));
  assert.equal(await servedFingerprint(running.port), fingerprint(first.certPem));
  const kept = new https.Agent({ keepAlive: true, ca: first.caPem });
  t.after(() => kept.destroy());
  assert.equal(await get(running.port, first.caPem, running.token, kept), 200);

  // A key that does not match: logged, and the served pair stays.
  replace(keyFile, second.keyPem);
  await eventually(() => assert.ok(logged.some((m) => m.includes(`"serving-cert::${certFile}::${keyFile}" failed with : tls: private key does not match public key`)), logged.join('\n')));
  assert.equal(await servedFingerprint(running.port), fingerprint(first.certPem));

  // The certificate catches up: new connections get the new pair; the open one goes on.
  replace(certFile, second.certPem + second.caPem);
  await eventually(async () => assert.equal(await servedFingerprint(running.port), fingerprint(second.certPem)));
  assert.ok(logged.some((m) => m === `Loaded a new cert/key pair name="serving-cert::${certFile}::${keyFile}"`), logged.join('\n'));
  assert.equal(await get(running.port, second.caPem, running.token), 200);
  assert.equal(await get(running.port, first.caPem, running.token, kept), 200);
  await assert.rejects(get(running.port, first.caPem, running.token), /self-signed|unable to verify|certificate/);
});

test('a pair that does not load refuses the start with crypto/tls\'s words', async (t) => {
  const [first, second] = await Promise.all([pair(), pair()]);
  const dataDir = tempDir();
  t.after(() => {
    for (const dir of [dataDir, first.dir, second.dir]) rmSync(dir, { recursive: true, force: true });
  });
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dataDir, name), text);
    return path.join(dataDir, name);
  };
  const start = (cert: string, key: string) => serve({ ...defaultConfig(), storage: 'memory', securePort: 0, dataDir, tlsCertFile: cert, tlsPrivateKeyFile: key }, () => {});
  const cases: Array<[string, string, RegExp]> = [
    [file('a.crt', first.certPem), file('b.key', second.keyPem), /^tls: private key does not match public key$/],
    [file('empty.crt', ''), file('a.key', first.keyPem), /^missing content for serving cert "serving-cert::.*empty\.crt::.*a\.key"$/],
    [file('key-as.crt', first.keyPem), file('a2.key', first.keyPem), /^tls: failed to find any PEM data in certificate input$/],
    [file('a2.crt', first.certPem), file('cert-as.key', first.certPem), /^tls: failed to find any PEM data in key input$/],
    [path.join(dataDir, 'missing.crt'), file('a3.key', first.keyPem), /ENOENT/],
  ];
  for (const [cert, key, message] of cases) await assert.rejects(start(cert, key), (err) => message.test((err as Error).message), `${path.basename(cert)} ${path.basename(key)}`);
});
