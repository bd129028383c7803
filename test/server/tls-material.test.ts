import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { ensureServingMaterial, servingHosts, type ServingMaterial } from '../../src/server/tls-material.ts';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plinth-tls-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const yearMs = 365 * 24 * 60 * 60 * 1000;

test('first call creates a P-256 CA and a serving certificate in <data-dir>/pki', async (t) => {
  const dir = await tempDir(t);
  const material = await ensureServingMaterial(dir);

  const modes: Record<string, number> = {};
  for (const file of ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key']) {
    modes[file] = (await stat(join(dir, 'pki', file))).mode & 0o777;
  }
  assert.deepEqual(modes, { 'ca.crt': 0o644, 'ca.key': 0o600, 'apiserver.crt': 0o644, 'apiserver.key': 0o600 });
  assert.equal(await readFile(join(dir, 'pki', 'ca.crt'), 'utf8'), material.caPem);
  assert.equal(await readFile(join(dir, 'pki', 'apiserver.crt'), 'utf8'), material.certPem);
  assert.equal(await readFile(join(dir, 'pki', 'apiserver.key'), 'utf8'), material.keyPem);
  assert.match(material.keyPem, /^-----BEGIN PRIVATE KEY-----\n/);

  const ca = new X509Certificate(material.caPem);
  assert.equal(ca.subject, 'CN=plinth-ca');
  assert.equal(ca.issuer, 'CN=plinth-ca');
  assert.equal(ca.ca, true);
  assert.equal(ca.publicKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  assert.ok(ca.verify(ca.publicKey), 'self-signed');
  const caLifetime = Date.parse(ca.validTo) - Date.now();
  assert.ok(caLifetime > 9.9 * yearMs && caLifetime < 10.1 * yearMs, `CA lifetime ${caLifetime / yearMs} years`);

  const cert = new X509Certificate(material.certPem);
  assert.equal(cert.ca, false);
  assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), 'signed by the CA');
  assert.equal(cert.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']); // serverAuth
  const lifetime = Date.parse(cert.validTo) - Date.now();
  assert.ok(lifetime > 0.99 * yearMs && lifetime < 1.01 * yearMs, `serving lifetime ${lifetime / yearMs} years`);
  assert.ok(Date.parse(cert.validFrom) < Date.now() - 30 * 60 * 1000, 'backdated for clock skew');
});

test('later calls return the files as they are', async (t) => {
  const dir = await tempDir(t);
  const first = await ensureServingMaterial(dir);
  const again = await ensureServingMaterial(dir);
  assert.deepEqual(again, first);
});

test('extra hosts are added by reissuing the serving certificate from the same CA', async (t) => {
  const dir = await tempDir(t);
  const first = await ensureServingMaterial(dir);
  const withHosts = await ensureServingMaterial(dir, { hosts: ['Plinth.Example', '10.1.2.3', '[fd00::7]', '0.0.0.0', '::'] });
  assert.equal(withHosts.caPem, first.caPem);
  assert.notEqual(withHosts.certPem, first.certPem);
  const cert = new X509Certificate(withHosts.certPem);
  assert.equal(
    cert.subjectAltName,
    'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:plinth.example, IP Address:10.1.2.3, IP Address:FD00:0:0:0:0:0:0:7',
  );
  assert.ok(cert.checkIssued(new X509Certificate(first.caPem)));
  // The same hosts again, or a subset: nothing to reissue.
  assert.deepEqual(await ensureServingMaterial(dir, { hosts: ['10.1.2.3', 'plinth.example', 'fd00::7'] }), withHosts);
  assert.deepEqual(await ensureServingMaterial(dir), withHosts);
});

test('servingHosts normalises, deduplicates and rejects non-names', () => {
  const cases: { name: string; extra: string[]; expected: string[] | RegExp }[] = [
    { name: 'defaults only', extra: [], expected: ['localhost', '127.0.0.1', '::1'] },
    { name: 'duplicates of defaults', extra: ['LOCALHOST', '[::1]', '127.0.0.1'], expected: ['localhost', '127.0.0.1', '::1'] },
    { name: 'unspecified bind addresses skipped', extra: ['0.0.0.0', '::', '[::]'], expected: ['localhost', '127.0.0.1', '::1'] },
    { name: 'wildcard DNS name', extra: ['*.apps.example'], expected: ['localhost', '127.0.0.1', '::1', '*.apps.example'] },
    { name: 'a space is not a name', extra: ['my host'], expected: /"my host" is neither an IP address nor a DNS name/ },
    { name: 'a URL is not a name', extra: ['https://x'], expected: /neither an IP address nor a DNS name/ },
    { name: 'IPv6 addresses as written', extra: ['fe80::1', '[::ffff:10.0.0.1]', '2001:DB8::7', '1:2:3:4:5:6:7:8'], expected: ['localhost', '127.0.0.1', '::1', 'fe80::1', '::ffff:10.0.0.1', '2001:DB8::7', '1:2:3:4:5:6:7:8'] },
    { name: 'what only looks like IPv6', extra: ['1::2::3'], expected: /"1::2::3" is neither/ },
    { name: 'an address with a port', extra: ['[::1]:6443'], expected: /neither an IP address nor a DNS name/ },
    { name: 'an IPv6 zone', extra: ['fe80::1%eth0'], expected: /neither an IP address nor a DNS name/ },
    { name: 'an IPv4 address with too many parts', extra: ['1.2.3.4.5'], expected: ['localhost', '127.0.0.1', '::1', '1.2.3.4.5'] },
  ];
  for (const c of cases) {
    if (c.expected instanceof RegExp) assert.throws(() => servingHosts(c.extra), c.expected, c.name);
    else assert.deepEqual(servingHosts(c.extra), c.expected, c.name);
  }
});

test('a missing serving key is replaced, keeping the CA', async (t) => {
  const dir = await tempDir(t);
  const first = await ensureServingMaterial(dir);
  await rm(join(dir, 'pki', 'apiserver.key'));
  const second = await ensureServingMaterial(dir);
  assert.equal(second.caPem, first.caPem);
  assert.notEqual(second.keyPem, first.keyPem);
  assert.ok(new X509Certificate(second.certPem).checkIssued(new X509Certificate(first.caPem)));
});

test('a serving certificate not issued by the CA is replaced', async (t) => {
  const dir = await tempDir(t);
  const other = await ensureServingMaterial(await tempDir(t));
  const first = await ensureServingMaterial(dir);
  await writeFile(join(dir, 'pki', 'apiserver.crt'), other.certPem);
  await writeFile(join(dir, 'pki', 'apiserver.key'), other.keyPem);
  const second = await ensureServingMaterial(dir);
  assert.equal(second.caPem, first.caPem);
  assert.ok(new X509Certificate(second.certPem).verify(new X509Certificate(first.caPem).publicKey));
});

test('a missing CA key with a reissue needed creates a new CA', async (t) => {
  const dir = await tempDir(t);
  const first = await ensureServingMaterial(dir);
  await rm(join(dir, 'pki', 'ca.key'));
  assert.deepEqual(await ensureServingMaterial(dir), first, 'the CA key is not needed to reuse');
  const second = await ensureServingMaterial(dir, { hosts: ['new.example'] });
  assert.notEqual(second.caPem, first.caPem);
  assert.ok(new X509Certificate(second.certPem).checkIssued(new X509Certificate(second.caPem)));
});

test('a CA key that does not belong to the CA certificate is an error, not silently replaced', async (t) => {
  const dir = await tempDir(t);
  await ensureServingMaterial(dir);
  const otherDir = await tempDir(t);
  await ensureServingMaterial(otherDir);
  await writeFile(join(dir, 'pki', 'ca.key'), await readFile(join(otherDir, 'pki', 'ca.key')));
  await assert.rejects(ensureServingMaterial(dir, { hosts: ['new.example'] }), /ca\.key does not belong to .*ca\.crt/);
});

test('a corrupt CA certificate is an error naming the file', async (t) => {
  const dir = await tempDir(t);
  await ensureServingMaterial(dir);
  await writeFile(join(dir, 'pki', 'ca.crt'), 'not a certificate');
  await assert.rejects(ensureServingMaterial(dir), /ca\.crt is not a PEM certificate/);
});

function listen(server: http2.Http2SecureServer, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function httpsGet(options: https.RequestOptions & ConnectionOptions): Promise<{ status: number; body: string; alpn: string | false | null }> {
  return new Promise((resolve, reject) => {
    const req = https.get({ ...options, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, alpn: (res.socket as TLSSocket).alpnProtocol }));
    });
    req.on('error', reject);
  });
}

function http2Get(authority: string, options: http2.SecureClientSessionOptions): Promise<{ status: number; body: string; alpn: string | undefined }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(authority, options);
    session.on('error', reject);
    const req = session.request({ ':path': '/readyz' });
    let status = 0;
    let body = '';
    req.setEncoding('utf8');
    req.on('response', (headers) => (status = Number(headers[':status'])));
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const alpn = session.alpnProtocol;
      session.close();
      resolve({ status, body, alpn });
    });
    req.on('error', reject);
  });
}

async function serve(t: { after(fn: () => Promise<void>): void }, material: ServingMaterial, host: string): Promise<number> {
  const server = http2.createSecureServer({ cert: material.certPem, key: material.keyPem, allowHTTP1: true }, (req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end('ok');
  });
  const port = await listen(server, host);
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return port;
}

test('a real TLS server with the material is trusted through the CA alone, by IP and by name', async (t) => {
  const material = await ensureServingMaterial(await tempDir(t));
  const port = await serve(t, material, '127.0.0.1');
  const ca = material.caPem;

  const byIp = await httpsGet({ host: '127.0.0.1', port, path: '/readyz', ca, ALPNProtocols: ['http/1.1'] });
  assert.deepEqual([byIp.status, byIp.body, byIp.alpn], [200, 'ok', 'http/1.1']);

  const byName = await httpsGet({ host: '127.0.0.1', servername: 'localhost', port, path: '/readyz', ca });
  assert.deepEqual([byName.status, byName.body], [200, 'ok']);

  const h2ByIp = await http2Get(`https://127.0.0.1:${port}`, { ca });
  assert.deepEqual([h2ByIp.status, h2ByIp.body, h2ByIp.alpn], [200, 'ok', 'h2']);

  const h2ByName = await http2Get(`https://127.0.0.1:${port}`, { ca, servername: 'localhost' });
  assert.deepEqual([h2ByName.status, h2ByName.body, h2ByName.alpn], [200, 'ok', 'h2']);
});

test('the server certificate is refused for a name it does not cover or without the CA', async (t) => {
  const material = await ensureServingMaterial(await tempDir(t));
  const port = await serve(t, material, '127.0.0.1');

  await assert.rejects(httpsGet({ host: '127.0.0.1', servername: 'example.com', port, path: '/', ca: material.caPem }), {
    code: 'ERR_TLS_CERT_ALTNAME_INVALID',
  });
  await assert.rejects(httpsGet({ host: '127.0.0.1', port, path: '/' }), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  const otherCa = (await ensureServingMaterial(await tempDir(t))).caPem;
  await assert.rejects(httpsGet({ host: '127.0.0.1', port, path: '/', ca: otherCa }), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
});

test('the server certificate verifies on the IPv6 loopback ::1', async (t) => {
  const material = await ensureServingMaterial(await tempDir(t));
  let port: number;
  try {
    port = await serve(t, material, '::1');
  } catch (err) {
    t.skip(`no IPv6 loopback here: ${(err as Error).message}`);
    return;
  }
  const res = await httpsGet({ host: '::1', port, path: '/readyz', ca: material.caPem });
  assert.deepEqual([res.status, res.body], [200, 'ok']);
});
