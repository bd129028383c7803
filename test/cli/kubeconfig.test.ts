import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { KubeConfig, VersionApi } from '@kubernetes/client-node';
import { writeKubeconfig } from '../../src/cli/kubeconfig.ts';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { bearerTokenAuthenticator, ensureAdminToken, parseTokenFile, tokenFileAuthenticator } from '../../src/auth/index.ts';

const kubectl = '/usr/bin/kubectl';
const run = promisify(execFile);

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plinth-kubeconfig-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function haveKubectl(): Promise<boolean> {
  try {
    await access(kubectl);
    return true;
  } catch {
    return false;
  }
}

const caPem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const options = { server: 'https://127.0.0.1:6443', caPem, token: 'tok-en_123' };

test('the kubeconfig is a v1 Config with one cluster, user and context named plinth', async (t) => {
  const path = join(await tempDir(t), 'kubeconfig');
  await writeKubeconfig(path, options);
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  assert.deepEqual(parse(await readFile(path, 'utf8')), {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'plinth', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'plinth', user: { token: 'tok-en_123' } }],
    contexts: [{ name: 'plinth', context: { cluster: 'plinth', user: 'plinth' } }],
    'current-context': 'plinth',
    preferences: {},
  });
});

test('a name other than plinth names every entry and the current context', async (t) => {
  const path = join(await tempDir(t), 'kubeconfig');
  await writeKubeconfig(path, { ...options, name: 'dev' });
  const doc = parse(await readFile(path, 'utf8'));
  assert.equal(doc['current-context'], 'dev');
  assert.deepEqual(doc.contexts, [{ name: 'dev', context: { cluster: 'dev', user: 'dev' } }]);
});

test('rewriting replaces the file whole, keeps it private and leaves no temporary files', async (t) => {
  const dir = await tempDir(t);
  const path = join(dir, 'kubeconfig');
  await writeFile(path, 'old', { mode: 0o644 });
  await writeKubeconfig(path, options);
  await writeKubeconfig(path, { ...options, token: 'second' });
  assert.equal(parse(await readFile(path, 'utf8')).users[0].user.token, 'second');
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  assert.deepEqual(await readdir(dir), ['kubeconfig']);
});

test('@kubernetes/client-node loads the kubeconfig', async (t) => {
  const path = join(await tempDir(t), 'kubeconfig');
  await writeKubeconfig(path, options);
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  assert.equal(kc.getCurrentContext(), 'plinth');
  assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
  assert.equal(kc.getCurrentCluster()?.caData, Buffer.from(caPem).toString('base64'));
  assert.equal(kc.getCurrentUser()?.token, 'tok-en_123');
});

test('kubectl reads the kubeconfig (needs /usr/bin/kubectl)', async (t) => {
  if (!(await haveKubectl())) {
    t.skip('kubectl is not installed at /usr/bin/kubectl');
    return;
  }
  const path = join(await tempDir(t), 'kubeconfig');
  await writeKubeconfig(path, options);
  const { stdout } = await run(kubectl, ['--kubeconfig', path, 'config', 'view', '--raw', '-o', 'json']);
  const config = JSON.parse(stdout);
  assert.equal(config['current-context'], 'plinth');
  assert.equal(config.clusters[0].cluster.server, 'https://127.0.0.1:6443');
  assert.equal(Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), caPem);
  assert.equal(config.users[0].user.token, 'tok-en_123');
});

/** A stand-in API server that answers /version for the admin token, as kube-apiserver would. */
async function versionServer(t: { after(fn: () => Promise<void>): void }, dataDir: string): Promise<{ url: string; caPem: string; token: string }> {
  const material = await ensureServingMaterial(dataDir);
  const { token, path } = await ensureAdminToken(dataDir);
  const authenticate = bearerTokenAuthenticator(tokenFileAuthenticator(parseTokenFile(await readFile(path, 'utf8'), path)));
  const server = https.createServer({ cert: material.certPem, key: material.keyPem }, async (req, res) => {
    const user = (await Promise.resolve().then(() => authenticate({ headers: req.headers })).catch(() => undefined))?.user;
    res.setHeader('content-type', 'application/json');
    if (user === undefined) {
      res.statusCode = 401;
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
      return;
    }
    res.end(JSON.stringify({ major: '1', minor: '32', gitVersion: `v1.32.0-plinth+${user.name}`, platform: 'linux/amd64' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem: material.caPem, token };
}

test('kubectl trusts the generated CA and authenticates with the admin token (needs /usr/bin/kubectl)', async (t) => {
  if (!(await haveKubectl())) {
    t.skip('kubectl is not installed at /usr/bin/kubectl');
    return;
  }
  const dir = await tempDir(t);
  const server = await versionServer(t, dir);
  const path = join(dir, 'kubeconfig');
  await writeKubeconfig(path, { server: server.url, caPem: server.caPem, token: server.token });
  const { stdout } = await run(kubectl, ['--kubeconfig', path, 'version', '-o', 'json', '--request-timeout=10s']);
  assert.equal(JSON.parse(stdout).serverVersion.gitVersion, 'v1.32.0-plinth+admin');

  // The same server by name: the certificate covers localhost too.
  await writeKubeconfig(path, { server: server.url.replace('127.0.0.1', 'localhost'), caPem: server.caPem, token: server.token });
  const byName = await run(kubectl, ['--kubeconfig', path, 'version', '-o', 'json', '--request-timeout=10s']).catch((err: Error) => err);
  if (byName instanceof Error) {
    // localhost may resolve to ::1 first where nothing listens; what matters is that TLS did not fail.
    assert.doesNotMatch(byName.message, /x509|certificate/i);
    t.diagnostic(`by name: ${byName.message}`);
  } else {
    assert.equal(JSON.parse(byName.stdout).serverVersion.gitVersion, 'v1.32.0-plinth+admin');
  }

  await writeKubeconfig(path, { server: server.url, caPem: server.caPem, token: 'wrong' });
  await assert.rejects(run(kubectl, ['--kubeconfig', path, 'version', '-o', 'json', '--request-timeout=10s']), /Unauthorized|must be logged in/);
});

test('@kubernetes/client-node trusts the generated CA and authenticates with the admin token', async (t) => {
  const dir = await tempDir(t);
  const server = await versionServer(t, dir);
  const path = join(dir, 'kubeconfig');
  await writeKubeconfig(path, { server: server.url, caPem: server.caPem, token: server.token });
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  const version = await kc.makeApiClient(VersionApi).getCode();
  assert.equal(version.gitVersion, 'v1.32.0-plinth+admin');
});

test('names and values that YAML would read otherwise come back as written', async (t) => {
  const path = join(await tempDir(t), 'kubeconfig');
  const odd = ['yes', '0x1F', 'null', '~', '- a', 'a: b', '#c', '"q" \\ \'s\'', 'ü ☃', ' lead', 'tab\there', 'multi\nline', '*ref', '&anchor', '!tag', '{}', '[x]', '@at', '%p', '12:30'];
  for (const name of odd) {
    await writeKubeconfig(path, { ...options, name, token: name, server: `https://[::1]:6443/${name}` });
    const doc = parse(await readFile(path, 'utf8'));
    assert.equal(doc['current-context'], name);
    assert.deepEqual(doc.clusters, [{ name, cluster: { server: `https://[::1]:6443/${name}`, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }]);
    assert.deepEqual(doc.users, [{ name, user: { token: name } }]);
    assert.deepEqual(doc.contexts, [{ name, context: { cluster: name, user: name } }]);
  }
  await writeKubeconfig(path, { server: options.server, caPem });
  assert.deepEqual(parse(await readFile(path, 'utf8')).users, [{ name: 'plinth', user: {} }]);
  await writeKubeconfig(path, { server: options.server, caPem, clientCertificate: { certPem: 'C\n', keyPem: 'K\n' } });
  assert.deepEqual(parse(await readFile(path, 'utf8')).users, [{ name: 'plinth', user: { 'client-certificate-data': 'Qwo=', 'client-key-data': 'Swo=' } }]);
});
