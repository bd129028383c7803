// --tls-sni-cert-key: a certificate served to clients that ask for one of its names (the
// names given, else the certificate's own; a wildcard for any first label), the serving
// certificate for other names and none; the files followed as they change; files that do
// not load fail the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { parseServeFlags, UsageError } from '../../src/cli/config.ts';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir } from '../helpers/server.ts';

/** The fingerprint of the certificate the server presents for `servername` (none: no SNI). */
function presented(port: number, servername?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...(servername !== undefined ? { servername } : {}) }, () => {
      resolve(socket.getPeerX509Certificate()!.fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

test('certificates are chosen by the name a client asks for', async (t) => {
  const dir = tempDir('plinth-sni-');
  const files = async (name: string, hosts: string[]) => {
    const material = await ensureServingMaterial(path.join(dir, name), { hosts });
    const certFile = path.join(dir, `${name}.crt`);
    const keyFile = path.join(dir, `${name}.key`);
    writeFileSync(certFile, material.certPem);
    writeFileSync(keyFile, material.keyPem);
    return { certFile, keyFile, fingerprint: new X509Certificate(material.certPem).fingerprint256 };
  };
  const own = await files('own', ['alt.example', '*.wild.example']);
  const named = await files('named', ['unrelated.example']);
  const { tlsSniCertKeys } = parseServeFlags([
    `--tls-sni-cert-key=${own.certFile},${own.keyFile}`,
    `--tls-sni-cert-key=${named.certFile},${named.keyFile}:named.example,alt.example`,
  ]);
  const server = await startServer({ tlsSniCertKeys });
  t.after(() => server.stop());
  const serving = await presented(server.port);
  assert.notEqual(serving, own.fingerprint);
  assert.equal(await presented(server.port, 'alt.example'), own.fingerprint, 'the certificate\'s own name; the first to name it serves it');
  assert.equal(await presented(server.port, 'ALT.example'), own.fingerprint, 'names compare without case');
  assert.equal(await presented(server.port, 'api.wild.example'), own.fingerprint, 'a wildcard of the certificate');
  assert.equal(await presented(server.port, 'named.example'), named.fingerprint, 'a name given on the flag');
  assert.equal(await presented(server.port, 'unrelated.example'), serving, 'a certificate with names given serves only those');
  assert.equal(await presented(server.port, 'other.example'), serving, 'any other name: the serving certificate');

  // The files followed: a new pair is served to new connections, its names read again.
  const renewed = await ensureServingMaterial(path.join(dir, 'renewed'), { hosts: ['alt2.example'] });
  for (const [file, text] of [[own.keyFile, renewed.keyPem], [own.certFile, renewed.certPem]] as const) {
    writeFileSync(`${file}.new`, text);
    renameSync(`${file}.new`, file);
  }
  const renewedFingerprint = new X509Certificate(renewed.certPem).fingerprint256;
  await eventually(async () => assert.equal(await presented(server.port, 'alt2.example'), renewedFingerprint));
  assert.equal(await presented(server.port, 'alt.example'), named.fingerprint, 'the old name now falls to the next certificate naming it');

  await assert.rejects(startServer({ tlsSniCertKeys: [{ certFile: own.certFile, keyFile: named.keyFile, names: [] }] }),
    (err: Error) => err instanceof UsageError && err.message === 'failed to load SNI cert and key: tls: private key does not match public key');
});

test('--tls-sni-cert-key is read as upstream\'s NamedCertKey flag', () => {
  assert.deepEqual(parseServeFlags(['--tls-sni-cert-key', ' a.crt , a.key : x.example, *.y.example ']).tlsSniCertKeys, [{ certFile: 'a.crt', keyFile: 'a.key', names: ['x.example', '*.y.example'] }]);
  for (const [given, reason] of [['a.crt,a.key:', 'empty names list is not allowed'], ['a.crt', 'expected comma separated certificate and key file paths'], ['a,b,c', 'expected comma separated certificate and key file paths']]) {
    assert.throws(() => parseServeFlags([`--tls-sni-cert-key=${given}`]), { message: `invalid argument ${JSON.stringify(given)} for "--tls-sni-cert-key" flag: ${reason}` }, given);
  }
});
