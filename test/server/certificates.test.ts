import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificate, issuerOf, newKeyPair, toPem } from '../../src/server/certificates.ts';

const hourMs = 60 * 60 * 1000;

async function newCa(notAfter = new Date(Date.now() + 24 * hourMs)) {
  const keys = await newKeyPair();
  const der = createCertificate({ subject: { commonName: 'test-ca' }, publicKey: keys.publicKey, selfSigningKey: keys.privateKey, usage: 'ca', notBefore: new Date(Date.now() - hourMs), notAfter });
  return { der, cert: new X509Certificate(der), issuer: issuerOf(der, keys.privateKey) };
}

function openssl(args: string[], files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'plinth-cert-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return execFileSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a CA certifies itself with the extensions a CA needs', async () => {
  const ca = await newCa();
  assert.equal(ca.cert.subject, 'CN=test-ca');
  assert.equal(ca.cert.issuer, 'CN=test-ca');
  assert.equal(ca.cert.ca, true);
  assert.ok(ca.cert.verify(ca.cert.publicKey));
  assert.ok(/^[0-9A-F]{32}$/.test(ca.cert.serialNumber), `serial ${ca.cert.serialNumber}`);
  const text = openssl(['x509', '-in', 'ca.crt', '-noout', '-text'], { 'ca.crt': toPem('CERTIFICATE', ca.der) });
  assert.match(text, /Version: 3 \(0x2\)/);
  assert.match(text, /Signature Algorithm: ecdsa-with-SHA256/);
  assert.match(text, /X509v3 Basic Constraints: critical\s+CA:TRUE/);
  assert.match(text, /X509v3 Key Usage: critical\s+Digital Signature, Certificate Sign, CRL Sign/);
  assert.match(text, /X509v3 Subject Key Identifier:/);
  assert.doesNotMatch(text, /Authority Key Identifier/);
  assert.equal(ca.issuer.keyId?.length, 20, 'the subject key identifier is read back from the certificate');
});

test('a serving certificate names its hosts and chains to its CA', async () => {
  const ca = await newCa();
  const keys = await newKeyPair();
  const notBefore = new Date(Date.now() - hourMs);
  const der = createCertificate({
    subject: { commonName: 'server' }, publicKey: keys.publicKey, issuer: ca.issuer, usage: 'server', notBefore, notAfter: new Date(Date.now() + hourMs),
    hosts: ['localhost', '127.0.0.1', '::1', 'fd00::7', '::ffff:10.0.0.1', '1:2:3:4:5:6:7:8', '*.apps.example'],
  });
  const cert = new X509Certificate(der);
  assert.ok(cert.checkIssued(ca.cert) && cert.verify(ca.cert.publicKey));
  assert.ok(cert.checkPrivateKey(keys.privateKey));
  assert.equal(cert.ca, false);
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.equal(cert.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:FD00:0:0:0:0:0:0:7, IP Address:0:0:0:0:0:FFFF:A00:1, IP Address:1:2:3:4:5:6:7:8, DNS:*.apps.example');
  assert.equal(Date.parse(cert.validFrom), Math.floor(notBefore.getTime() / 1000) * 1000, 'whole seconds');
  const pems = { 'ca.crt': toPem('CERTIFICATE', ca.der), 'leaf.crt': toPem('CERTIFICATE', der) };
  assert.match(openssl(['verify', '-CAfile', 'ca.crt', '-purpose', 'sslserver', 'leaf.crt'], pems), /leaf.crt: OK/);
  const text = openssl(['x509', '-in', 'leaf.crt', '-noout', '-text'], pems);
  assert.match(text, /X509v3 Basic Constraints: critical\s+CA:FALSE/);
  assert.match(text, /X509v3 Key Usage: critical\s+Digital Signature\n/);
  const caKeyId = [...ca.issuer.keyId!].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
  assert.match(text, new RegExp(`X509v3 Authority Key Identifier:\\s+(keyid:)?${caKeyId}`));
});

test('a client certificate carries its user and groups as written, whatever their characters', async () => {
  const ca = await newCa();
  const keys = await newKeyPair();
  const der = createCertificate({
    subject: { commonName: 'jane@example.com, "x"=y', organizations: ['system:masters', 'dev_team', 'équipe'] }, publicKey: keys.publicKey, issuer: ca.issuer,
    usage: 'client', notBefore: new Date(Date.now() - hourMs), notAfter: new Date(Date.now() + hourMs),
  });
  const cert = new X509Certificate(der);
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);
  const subject = openssl(['x509', '-in', 'leaf.crt', '-noout', '-subject', '-nameopt', 'RFC2253,-esc_msb'], { 'leaf.crt': toPem('CERTIFICATE', der) });
  assert.equal(subject.trim(), 'subject=O=équipe,O=dev_team,O=system:masters,CN=jane@example.com\\, \\"x\\"=y');
  assert.match(openssl(['verify', '-CAfile', 'ca.crt', '-purpose', 'sslclient', 'leaf.crt'], { 'ca.crt': toPem('CERTIFICATE', ca.der), 'leaf.crt': toPem('CERTIFICATE', der) }), /OK/);
});

test('validity past 2049 is written as GeneralizedTime', async () => {
  const ca = await newCa(new Date(Date.UTC(2051, 0, 2, 3, 4, 5)));
  assert.equal(Date.parse(ca.cert.validTo), Date.UTC(2051, 0, 2, 3, 4, 5));
});

test('a certificate needs a signer', async () => {
  const keys = await newKeyPair();
  assert.throws(() => createCertificate({ subject: { commonName: 'x' }, publicKey: keys.publicKey, usage: 'ca', notBefore: new Date(), notAfter: new Date() }), /needs an issuer or a key/);
});
