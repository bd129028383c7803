// The warnings upstream's Secret and ServiceAccount strategies give: a kubernetes.io/tls
// Secret whose certificate and key Go's tls.X509KeyPair refuses (its error, word for word),
// and a ServiceAccount newly given the deprecated mountable-secrets annotation; and a
// ServiceAccount's secret references kept to their names (cleanSecretReferences).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { KubeObject } from '../../../src/api/index.ts';
import { x509KeyPairError } from '../../../src/registry/builtin/tls-key-pair.ts';
import { createCertificate, toPem } from '../../../src/server/certificates.ts';
import { builtinType, memoryStore, withWarnings } from '../../helpers/store.ts';

const ec = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const signer = ec().privateKey;

function certificatePem(publicKey: KeyObject): string {
  const now = Date.now();
  return toPem('CERTIFICATE', createCertificate({
    subject: { commonName: 'example.com' }, publicKey, notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000), usage: 'server', selfSigningKey: signer,
  }));
}

const keyPem = (key: KeyObject, type: 'pkcs8' | 'pkcs1' | 'sec1' = 'pkcs8') => key.export({ type, format: 'pem' }) as string;
const pair = (cert: string, key: string) => x509KeyPairError(Buffer.from(cert), Buffer.from(key));

test('a certificate and its own key make a pair, whatever the key encoding Go reads', () => {
  const e = ec();
  assert.equal(pair(certificatePem(e.publicKey), keyPem(e.privateKey)), undefined);
  assert.equal(pair(certificatePem(e.publicKey), keyPem(e.privateKey, 'sec1')), undefined);
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
  assert.equal(pair(certificatePem(rsa.publicKey), keyPem(rsa.privateKey, 'pkcs1')), undefined);
  const ed = generateKeyPairSync('ed25519');
  assert.equal(pair(certificatePem(ed.publicKey), keyPem(ed.privateKey)), undefined);
  assert.equal(pair(`junk before\n${certificatePem(e.publicKey)}`, `-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n${keyPem(e.privateKey, 'sec1')}`), undefined);
});

test("tls.X509KeyPair's errors", () => {
  const e = ec();
  const cert = certificatePem(e.publicKey);
  const key = keyPem(e.privateKey);
  assert.equal(pair('', key), 'tls: failed to find any PEM data in certificate input');
  assert.equal(pair(key, cert), 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched');
  assert.equal(pair('-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n-----BEGIN BAR-----\nAAAA\n-----END BAR-----\n', key),
    'tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [FOO BAR]');
  assert.equal(pair(cert, ''), 'tls: failed to find any PEM data in key input');
  assert.equal(pair(cert, cert), 'tls: found a certificate rather than a key in the PEM for the private key');
  assert.equal(pair(cert, `${cert}-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n`),
    'tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [CERTIFICATE FOO]');
  assert.equal(pair(cert, keyPem(ec().privateKey)), 'tls: private key does not match public key');
  assert.equal(pair(cert, keyPem(generateKeyPairSync('ed25519').privateKey)), 'tls: private key type does not match public key type');
  assert.equal(pair(cert, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'), 'tls: failed to parse private key');
  assert.equal(pair(cert, keyPem(generateKeyPairSync('x25519').privateKey)), 'tls: found unknown private key type in PKCS#8 wrapping');
  assert.equal(pair('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', key), 'x509: malformed certificate');
  // Curves Go's crypto/x509 does not parse (and which no JWK names): its error, never a throw.
  const brainpool = generateKeyPairSync('ec', { namedCurve: 'brainpoolP256r1' });
  assert.equal(pair(certificatePem(brainpool.publicKey), keyPem(brainpool.privateKey)), 'x509: unsupported elliptic curve');
  assert.equal(pair(cert, keyPem(brainpool.privateKey)), 'tls: failed to parse private key');
  const p224 = generateKeyPairSync('ec', { namedCurve: 'secp224r1' });
  assert.equal(pair(certificatePem(p224.publicKey), keyPem(p224.privateKey)), undefined);
  assert.equal(pair(certificatePem(p224.publicKey), keyPem(generateKeyPairSync('ec', { namedCurve: 'secp224r1' }).privateKey)), 'tls: private key does not match public key');
});

const secret = (type: string, data: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'ns' }, type, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) });

test('a TLS Secret whose key does not match its certificate is stored, with the error as a warning, on create and update', async () => {
  const e = ec();
  const cert = certificatePem(e.publicKey);
  const { store } = memoryStore(builtinType('secrets'));
  const bad = await withWarnings(() => store.create('ns', secret('kubernetes.io/tls', { 'tls.crt': cert, 'tls.key': keyPem(ec().privateKey) })));
  assert.deepEqual(bad.warnings, ['tls: private key does not match public key']);
  const fixed = await withWarnings(() => store.update('ns', 's', secret('kubernetes.io/tls', { 'tls.crt': cert, 'tls.key': keyPem(e.privateKey) })));
  assert.deepEqual(fixed.warnings, []);
  const opaque = await withWarnings(() => store.create('ns', { ...secret('Opaque', { 'tls.crt': 'x', 'tls.key': 'y' }), metadata: { name: 'o', namespace: 'ns' } }));
  assert.deepEqual(opaque.warnings, [], 'only kubernetes.io/tls Secrets are checked');
});

const serviceAccount = (annotations: Record<string, string> = {}, secrets?: unknown[]): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'ns', annotations }, ...(secrets === undefined ? {} : { secrets }) });

test('a ServiceAccount newly given kubernetes.io/enforce-mountable-secrets is warned of its deprecation; one that had it is not', async () => {
  const { store } = memoryStore(builtinType('serviceaccounts'));
  const warning = 'metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets';
  assert.deepEqual((await withWarnings(() => store.create('ns', serviceAccount()))).warnings, []);
  assert.deepEqual((await withWarnings(() => store.update('ns', 'sa', serviceAccount({ 'kubernetes.io/enforce-mountable-secrets': 'true' })))).warnings, [warning]);
  assert.deepEqual((await withWarnings(() => store.update('ns', 'sa', serviceAccount({ 'kubernetes.io/enforce-mountable-secrets': 'false' })))).warnings, []);
  const { store: other } = memoryStore(builtinType('serviceaccounts'));
  assert.deepEqual((await withWarnings(() => other.create('ns', serviceAccount({ 'kubernetes.io/enforce-mountable-secrets': '' })))).warnings, [warning]);
});

test("a ServiceAccount's secret references keep only their names", async () => {
  const { store } = memoryStore(builtinType('serviceaccounts'));
  const created = await store.create('ns', serviceAccount({}, [{ name: 'token', namespace: 'elsewhere', uid: 'u', kind: 'Secret' }, { kind: 'Secret' }]));
  assert.deepEqual(created.secrets, [{ name: 'token' }, {}]);
  const updated = await store.update('ns', 'sa', { ...created, secrets: [{ name: 'other', apiVersion: 'v1', fieldPath: 'x' }] });
  assert.deepEqual(updated.object.secrets, [{ name: 'other' }]);
});

test('a certificate of a megabyte of BEGIN lines is no PEM data, found in linear time (it took seconds, blocking the server)', { timeout: 30_000 }, () => {
  const e = ec();
  const lines = '-----BEGIN CERTIFICATE-----\n'.repeat(37_000);
  assert.equal(pair(lines, keyPem(e.privateKey)), 'tls: failed to find any PEM data in certificate input');
  assert.equal(pair(certificatePem(e.publicKey), lines), 'tls: failed to find any PEM data in key input');
});
