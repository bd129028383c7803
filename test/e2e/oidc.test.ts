// --oidc-* end to end: an OpenID Connect issuer served over HTTPS with its own CA, Plinth
// started with the legacy flags' settings, an ID token of the issuer authenticating as
// kube-apiserver maps it (kubectl auth whoami's SelfSubjectReview), a forged one 401.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { parseServeFlags } from '../../src/cli/config.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let issuerServer: https.Server;
let issuer = '';
let sign: (claims: Record<string, unknown>) => Promise<string>;

before(async () => {
  const dir = tempDir('plinth-oidc-issuer-');
  const material = await ensureServingMaterial(dir);
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  issuerServer = https.createServer({ cert: material.certPem, key: material.keyPem }, (req, res) => {
    const body = req.url === '/.well-known/openid-configuration' ? { issuer, jwks_uri: `${issuer}/keys` } : req.url === '/keys' ? { keys: [jwk] } : undefined;
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  issuer = `https://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  const caFile = path.join(dir, 'issuer-ca.crt');
  writeFileSync(caFile, material.caPem);
  sign = (claims) => new SignJWT({ iss: issuer, aud: 'plinth', exp: Math.floor(Date.now() / 1000) + 600, ...claims }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey);
  // The flags as kube-apiserver takes them.
  const { oidc } = parseServeFlags([`--oidc-issuer-url=${issuer}`, '--oidc-client-id=plinth', '--oidc-groups-claim=groups', '--oidc-groups-prefix=oidc:', `--oidc-ca-file=${caFile}`]);
  server = await startServer({ oidc });
});
after(async () => {
  await server?.stop();
  issuerServer?.close();
});

const whoami = (token: string) => server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
  token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
});

test('an ID token of the issuer authenticates as <issuer>#<sub> with its prefixed groups; a forged or foreign one is 401', async () => {
  const token = await sign({ sub: 'alice', groups: ['dev'] });
  let res = await whoami(token);
  // The discovery document is read in the background after start.
  for (let i = 0; i < 100 && res.status === 401; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    res = await whoami(token);
  }
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(res.json.status.userInfo, { username: `${issuer}#alice`, groups: ['oidc:dev', 'system:authenticated'] });

  const forged = `${token.split('.').slice(0, 2).join('.')}.${Buffer.from('not the signature').toString('base64url')}`;
  const refused = await whoami(forged);
  assert.equal(refused.status, 401);
  assert.equal(refused.json.message, 'Unauthorized');
  assert.equal((await whoami(await sign({ sub: 'bob', aud: 'other' }))).status, 401);
  // The server's own token file still works beside it.
  assert.equal((await server.request('GET', '/api/v1/namespaces')).status, 200);
});

test('--oidc-* flags: issuer and client together, https only', () => {
  assert.throws(() => parseServeFlags(['--oidc-issuer-url=https://issuer.example']), /oidc-issuer-url and oidc-client-id must be specified together/);
  assert.throws(() => parseServeFlags(['--oidc-issuer-url=http://issuer.example', '--oidc-client-id=x']), /URL scheme must be https/);
  assert.throws(() => parseServeFlags(['--oidc-groups-claim=groups']), /needs --oidc-issuer-url/);
  assert.throws(() => parseServeFlags(['--oidc-issuer-url=https://i.example', '--oidc-client-id=x', '--oidc-signing-algs=HS256']), /unsupported signing algorithm "HS256"/);
  assert.deepEqual(parseServeFlags(['--oidc-issuer-url=https://i.example', '--oidc-client-id=x', '--oidc-required-claim=hd=example.com', '--oidc-required-claim', 'tier=gold']).oidc, {
    issuerUrl: 'https://i.example', clientId: 'x', usernameClaim: 'sub', requiredClaims: { hd: 'example.com', tier: 'gold' }, signingAlgs: ['RS256'],
  });
});
