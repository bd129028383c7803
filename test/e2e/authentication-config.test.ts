// --authentication-config end to end: two OpenID Connect issuers served over HTTPS with their
// own CA (one found through a discoveryURL), their ID tokens mapped by claim and by CEL as
// kube-apiserver maps them (kubectl auth whoami's SelfSubjectReview), anonymous access to
// the paths the file names only, and the file followed as it changes: a valid change applied,
// an invalid one or one that changes `anonymous` ignored while the last good one serves.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { parseServeFlags } from '../../src/cli/config.ts';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let issuerServer: https.Server;
let base = '';
let caPem = '';
let configFile = '';
let sign: (issuer: string, claims: Record<string, unknown>) => Promise<string>;
const dir = tempDir('plinth-authn-config-');

/** The configuration with issuer A's username prefix, and issuer B when `withB`. */
function configuration(prefix: string, withB: boolean, anonymousPaths = ['/livez', '/readyz']): string {
  const jwt: unknown[] = [{
    issuer: { url: `${base}/a`, audiences: ['plinth'], certificateAuthority: caPem },
    claimMappings: { username: { claim: 'sub', prefix }, groups: { expression: 'claims.roles.split(",").map(r, "a:" + r)' } },
  }];
  if (withB) {
    jwt.push({
      issuer: { url: `${base}/b`, discoveryURL: `${base}/discovery/b`, audiences: ['plinth', 'other'], audienceMatchPolicy: 'MatchAny', certificateAuthority: caPem },
      claimValidationRules: [{ expression: 'claims.hd == "example.com"', message: 'wrong domain' }],
      claimMappings: { username: { expression: '"b:" + claims.preferred_username' }, uid: { claim: 'oid' }, extra: [{ key: 'example.com/team', valueExpression: 'claims.team' }] },
      userValidationRules: [{ expression: "!user.username.startsWith('b:system:')", message: 'no system names' }],
    });
  }
  return JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration', jwt, anonymous: { enabled: true, conditions: anonymousPaths.map((p) => ({ path: p })) } });
}

before(async () => {
  const material = await ensureServingMaterial(dir);
  caPem = material.caPem;
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  issuerServer = https.createServer({ cert: material.certPem, key: material.keyPem }, (req, res) => {
    const documents: Record<string, unknown> = {
      '/a/.well-known/openid-configuration': { issuer: `${base}/a`, jwks_uri: `${base}/keys` },
      '/discovery/b': { issuer: `${base}/b`, jwks_uri: `${base}/keys` },
      '/keys': { keys: [jwk] },
    };
    const body = documents[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  sign = (issuer, claims) => new SignJWT({ iss: issuer, aud: 'plinth', exp: Math.floor(Date.now() / 1000) + 600, ...claims }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey);
  configFile = path.join(dir, 'authentication.json');
  writeFileSync(configFile, configuration('a:', true));
  server = await startServer({ authenticationConfig: configFile });
});
after(async () => {
  await server?.stop();
  issuerServer?.close();
});

const whoami = (token: string) => server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
  token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
});

/** Asks until `done` holds of the answer (the issuers are read, and the file reloaded, in the background). */
async function eventually(token: () => Promise<string>, done: (res: Awaited<ReturnType<typeof whoami>>) => boolean) {
  let res = await whoami(await token());
  for (let i = 0; i < 250 && !done(res); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    res = await whoami(await token());
  }
  return res;
}

test('each issuer\'s tokens authenticate as its mappings say; its rules refuse the rest', async () => {
  const a = await eventually(() => sign(`${base}/a`, { sub: 'alice', roles: 'dev,ops' }), (res) => res.status === 201);
  assert.equal(a.status, 201, a.text);
  assert.deepEqual(a.json.status.userInfo, { username: 'a:alice', groups: ['a:dev', 'a:ops', 'system:authenticated'] });

  const bClaims = { preferred_username: 'bob', hd: 'example.com', oid: 'u-1', team: ['blue', ''], aud: ['other'] };
  const b = await eventually(() => sign(`${base}/b`, bClaims), (res) => res.status === 201);
  assert.equal(b.status, 201, b.text);
  assert.deepEqual(b.json.status.userInfo, { username: 'b:bob', uid: 'u-1', groups: ['system:authenticated'], extra: { 'example.com/team': ['blue'] } });

  for (const claims of [{ ...bClaims, hd: 'example.org' }, { ...bClaims, preferred_username: 'system:admin' }, { ...bClaims, aud: 'someone-else' }]) {
    const refused = await whoami(await sign(`${base}/b`, claims));
    assert.equal(refused.status, 401, JSON.stringify(claims));
  }
  // A token naming an issuer the file does not have is nobody's; the server's own token file still works.
  assert.equal((await whoami(await sign(`${base}/c`, { sub: 'carol' }))).status, 401);
  assert.equal((await server.request('GET', '/api/v1/namespaces')).status, 200);
});

test('anonymous requests reach only the paths the file names', async () => {
  assert.equal((await server.request('GET', '/livez', { anonymous: true })).status, 200);
  assert.equal((await server.request('GET', '/readyz', { anonymous: true })).status, 200);
  // Elsewhere a request without credentials is not anonymous but unauthenticated: 401.
  for (const urlPath of ['/version', '/api', '/healthz']) assert.equal((await server.request('GET', urlPath, { anonymous: true })).status, 401, urlPath);
});

test('the file is followed: a valid change applies; an invalid one, or one changing anonymous, leaves the last good one serving', async () => {
  const alice = () => sign(`${base}/a`, { sub: 'alice', roles: 'dev' });
  writeFileSync(configFile, configuration('a2:', false));
  let res = await eventually(alice, (r) => r.json?.status?.userInfo?.username === 'a2:alice');
  assert.equal(res.json.status.userInfo.username, 'a2:alice');
  // Issuer B went with the change.
  assert.equal((await whoami(await sign(`${base}/b`, { preferred_username: 'bob', hd: 'example.com', oid: 'u-1' }))).status, 401);

  writeFileSync(configFile, '{"apiVersion": "apiserver.config.k8s.io/v1", "kind": "AuthenticationConfiguration", "jwt": [{"issuer": {"url": "http://insecure"}}]}');
  writeFileSync(configFile, configuration('a3:', false, ['/livez']));
  await new Promise((resolve) => setTimeout(resolve, 300));
  res = await whoami(await alice());
  assert.equal(res.json.status.userInfo.username, 'a2:alice');
  assert.equal((await server.request('GET', '/readyz', { anonymous: true })).status, 200);

  // The next good file applies.
  writeFileSync(configFile, configuration('a4:', false));
  res = await eventually(alice, (r) => r.json?.status?.userInfo?.username === 'a4:alice');
  assert.equal(res.json.status.userInfo.username, 'a4:alice');
});

test('a configuration that does not load, or conflicts with flags, refuses the start with upstream\'s words', async () => {
  const bad = path.join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration', jwt: [{ issuer: { url: 'https://x.example', audiences: [] }, claimMappings: { username: { claim: 'sub' } } }] }));
  await assert.rejects(startServer({ authenticationConfig: bad }), {
    message: 'invalid authentication configuration: [jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required, jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing]',
  });
  await assert.rejects(startServer({ authenticationConfig: path.join(dir, 'missing.json') }), /failed to load authentication configuration from file ".*missing.json": ENOENT/);
  // An issuer that is the service-account issuer is refused.
  writeFileSync(bad, JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration', jwt: [{ issuer: { url: 'https://kubernetes.default.svc.cluster.local', audiences: ['x'] }, claimMappings: { username: { claim: 'sub', prefix: '' } } }] }));
  await assert.rejects(startServer({ authenticationConfig: bad }), /URL must not overlap with disallowed issuers: \[https:\/\/kubernetes.default.svc.cluster.local\]/);
  // --anonymous-auth and the file's anonymous exclude each other, as do the --oidc-* flags and the file.
  await assert.rejects(startServer({ authenticationConfig: configFile, anonymousAuthFlagSet: true }), {
    message: 'anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file',
  });
  assert.throws(() => parseServeFlags([`--authentication-config=${configFile}`, '--oidc-issuer-url=https://i.example']), /authentication-config file and oidc-\* flags are mutually exclusive/);
  assert.equal(parseServeFlags(['--anonymous-auth=false']).anonymousAuthFlagSet, true);
  assert.equal(parseServeFlags([`--authentication-config=${configFile}`]).authenticationConfig, configFile);
});

test('/metrics: the reloads by outcome, the configuration in use, and each issuer\'s authentications and key fetches', async () => {
  const text = (await server.request('GET', '/metrics')).text;
  const sha = (data: string) => `sha256:${createHash('sha256').update(data).digest('hex')}`;
  const count = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 'NaN');
  // Two files applied (a2, a4) and one or two refused (the insecure issuer and the changed
  // anonymous, written back to back: a reload may find the second already there).
  assert.equal(count(/apiserver_authentication_config_controller_automatic_reloads_total\{status="success",apiserver_id_hash="sha256:[0-9a-f]{64}"\} (\d+)/), 2, text);
  assert.ok(count(/apiserver_authentication_config_controller_automatic_reloads_total\{status="failure",apiserver_id_hash="sha256:[0-9a-f]{64}"\} (\d+)/) >= 1);
  assert.match(text, /apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{status="success",apiserver_id_hash="sha256:[0-9a-f]{64}"\} \d/);
  assert.ok(text.includes(`apiserver_authentication_config_controller_last_config_info{apiserver_id_hash`), text);
  assert.match(text, new RegExp(`apiserver_authentication_config_controller_last_config_info\\{apiserver_id_hash="sha256:[0-9a-f]{64}",hash="${sha(readFileSync(configFile, 'utf8'))}"\\} 1`));
  const issuerA = sha(`${base}/a`);
  assert.ok(count(new RegExp(`apiserver_authentication_jwt_authenticator_latency_seconds_count\\{jwt_issuer_hash="${issuerA}",result="success"\\} (\\d+)`)) >= 4);
  assert.ok(count(new RegExp(`apiserver_authentication_jwt_authenticator_latency_seconds_count\\{jwt_issuer_hash="${sha(`${base}/b`)}",result="failure"\\} (\\d+)`)) >= 3);
  assert.match(text, new RegExp(`apiserver_authentication_jwt_authenticator_jwks_fetch_last_timestamp_seconds\\{jwt_issuer_hash="${issuerA}",apiserver_id_hash="sha256:[0-9a-f]{64}",result="success"\\} \\d`));
  assert.match(text, new RegExp(`apiserver_authentication_jwt_authenticator_jwks_fetch_last_key_set_info\\{jwt_issuer_hash="${issuerA}",apiserver_id_hash="sha256:[0-9a-f]{64}",hash="sha256:[0-9a-f]{64}"\\} 1`));
});
