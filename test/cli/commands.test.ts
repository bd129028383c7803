// `plinth` subcommands: version answers what /version does; unknown commands are usage errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { versionInfo } from '../../src/endpoints/version.ts';
import { plinthVersion } from '../../src/cli/serve.ts';
import { repoRoot } from '../helpers/server.ts';

const run = promisify(execFile);
const main = path.join(repoRoot, 'src/cli/main.cjs');

test('plinth version prints the version /version answers', async () => {
  const { stdout } = await run(process.execPath, [main, 'version']);
  assert.deepEqual(JSON.parse(stdout), versionInfo(plinthVersion));
});

test('an unknown command is a usage error (exit 2)', async () => {
  await assert.rejects(run(process.execPath, [main, 'frobnicate']), (err: { code?: number; stderr?: string }) => err.code === 2 && /unknown command "frobnicate"/.test(err.stderr ?? ''));
});

test('plinth kubeconfig --user --groups mints a client certificate the server authenticates', async () => {
  const { startServer } = await import('../helpers/server.ts');
  const { parse } = await import('yaml');
  const https = await import('node:https');
  const server = await startServer();
  // A plain name, and one with the characters a distinguished name's text form escapes (and UTF-8).
  const cases = [{ user: 'erin', groups: 'devs,qa', want: ['devs', 'qa'] }, { user: 'jane, "j" <x>+y=z;\\', groups: 'dev_team,équipe', want: ['dev_team', 'équipe'] }];
  try {
    for (const { user: name, groups, want } of cases) {
      const { stdout } = await run(process.execPath, [main, 'kubeconfig', '--user', name, '--groups', groups, '--data-dir', server.dataDir]);
      const config = parse(stdout);
      assert.equal(config.clusters[0].cluster.server, server.url);
      const user = config.users[0].user;
      const cert = Buffer.from(user['client-certificate-data'], 'base64');
      const key = Buffer.from(user['client-key-data'], 'base64');
      const ca = Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64');
      const review = await new Promise<any>((resolve, reject) => {
        const req = https.request(new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server.url), { method: 'POST', cert, key, ca, headers: { 'content-type': 'application/json' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }));
      });
      assert.equal(review.status.userInfo.username, name);
      assert.deepEqual(review.status.userInfo.groups, [...want, 'system:authenticated']);
    }
  } finally {
    await server.stop();
  }
  await assert.rejects(run(process.execPath, [main, 'kubeconfig']), (err: { code?: number; stderr?: string }) => err.code === 2 && /--user is required/.test(err.stderr ?? ''));
  // A data dir no server made: no CA is minted (a running server would not trust it), a usage error instead.
  const empty = (await import('../helpers/server.ts')).tempDir('plinth-kubeconfig-empty-');
  await assert.rejects(
    run(process.execPath, [main, 'kubeconfig', '--user', 'erin', '--data-dir', empty, '--server', 'https://127.0.0.1:6443']),
    (err: { code?: number; stderr?: string }) => err.code === 2 && /^plinth: no serving CA in .*: start the server on this data dir once/.test(err.stderr ?? ''),
  );
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(path.join(empty, 'pki'));
  writeFileSync(path.join(empty, 'pki/ca.crt'), 'not checked here');
  await assert.rejects(
    run(process.execPath, [main, 'kubeconfig', '--user', 'erin', '--data-dir', empty, '--server', 'https://127.0.0.1:6443']),
    (err: { code?: number; stderr?: string }) => err.code === 2 && /^plinth: no usable client CA and key in .*pki: start the server on this data dir once/.test(err.stderr ?? ''),
  );
});
