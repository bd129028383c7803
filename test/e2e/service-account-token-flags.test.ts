// The service-account token flags beyond keys and issuers: --service-account-max-token-expiration
// (a longer TokenRequest shortened, with upstream's warning), --service-account-extend-token-expiration
// (a kubelet's 3607 s projected token valid a year, or not), --service-account-jwks-uri and
// --external-hostname (the key set's URL in the OpenID discovery document).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../helpers/server.ts';

/** A TokenRequest's answer, its token's lifetime (exp - iat) and the warning header. */
async function requestToken(server: TestServer, spec: Record<string, unknown>): Promise<{ status: number; expirationSeconds: number; lifetime: number; warning: string | undefined }> {
  const answer = await server.request('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec } });
  assert.equal(answer.status, 201, answer.text);
  const claims = JSON.parse(Buffer.from(answer.json.status.token.split('.')[1], 'base64url').toString('utf8'));
  const warning = answer.headers.warning;
  return { status: answer.status, expirationSeconds: answer.json.spec.expirationSeconds, lifetime: claims.exp - claims.iat, warning: typeof warning === 'string' ? warning : undefined };
}

async function podBound(server: TestServer, name: string): Promise<Record<string, unknown>> {
  const pod = await server.request('POST', '/api/v1/namespaces/default/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx' }] } } });
  assert.equal(pod.status, 201, pod.text);
  return { expirationSeconds: 3607, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name, uid: pod.json.metadata.uid } };
}

test('--service-account-max-token-expiration shortens a longer request with upstream\'s warning; a kubelet\'s projected token is still extended', async (t) => {
  const server = await startServer({ serviceAccountMaxTokenExpirationSeconds: 7200 });
  t.after(() => server.stop());
  const long = await requestToken(server, { expirationSeconds: 86_400 });
  assert.deepEqual(long, { status: 201, expirationSeconds: 7200, lifetime: 7200, warning: '299 - "requested expiration of 86400 seconds shortened to 7200 seconds"' });
  const short = await requestToken(server, { expirationSeconds: 3600 });
  assert.deepEqual(short, { status: 201, expirationSeconds: 3600, lifetime: 3600, warning: undefined });
  const projected = await requestToken(server, await podBound(server, 'kubelet-token'));
  assert.deepEqual(projected, { status: 201, expirationSeconds: 3607, lifetime: 365 * 24 * 3600, warning: undefined });
});

test('--service-account-extend-token-expiration=false: a projected token lives the 3607 s asked', async (t) => {
  const server = await startServer({ serviceAccountExtendTokenExpiration: false });
  t.after(() => server.stop());
  const projected = await requestToken(server, await podBound(server, 'not-extended'));
  assert.equal(projected.lifetime, 3607);
});

test('the discovery document\'s jwks_uri: the external host and port by default, --external-hostname, or --service-account-jwks-uri', async (t) => {
  const jwksUri = async (overrides: Parameters<typeof startServer>[0]) => {
    const server = await startServer(overrides);
    t.after(() => server.stop());
    const doc = await server.request('GET', '/.well-known/openid-configuration');
    assert.equal(doc.status, 200, doc.text);
    return { uri: doc.json.jwks_uri as string, port: server.port };
  };
  const plain = await jwksUri({});
  assert.equal(plain.uri, `https://127.0.0.1:${plain.port}/openid/v1/jwks`);
  const advertised = await jwksUri({ advertiseAddress: 'fd00::5' });
  assert.equal(advertised.uri, `https://[fd00::5]:${advertised.port}/openid/v1/jwks`);
  const external = await jwksUri({ externalHostname: 'api.example.test' });
  assert.equal(external.uri, `https://api.example.test:${external.port}/openid/v1/jwks`);
  assert.equal((await jwksUri({ serviceAccountJwksUri: 'https://keys.example.test/jwks.json' })).uri, 'https://keys.example.test/jwks.json');
});
