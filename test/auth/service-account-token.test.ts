import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  AuthenticationFailure, impersonate, issueServiceAccountToken, keyIdOf, loadServiceAccountKeys, serviceAccountTokenAuthenticator, serviceAccountTokenIssuer,
  type Authorizer, type BoundObject, type ServiceAccountKeys, type SigningKey,
} from '../../src/auth/index.ts';

function keysOf(): { keys: ServiceAccountKeys; signing: SigningKey } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signing: SigningKey = { privateKey, key: publicKey, keyId: keyIdOf(publicKey), algorithm: 'RS256' };
  return { keys: { signing, verification: [signing] }, signing };
}

const ours = keysOf();
const theirs = keysOf();
const issuer = 'https://kubernetes.default.svc.cluster.local';
const now = Date.parse('2030-01-01T00:00:00Z');

interface World {
  serviceAccounts: Map<string, BoundObject>;
  pods: Map<string, BoundObject>;
}

function authenticator(world: World, at = now) {
  return serviceAccountTokenAuthenticator({
    issuers: [issuer],
    keys: async () => ours.keys,
    apiAudiences: [issuer],
    now: () => at,
    getter: {
      serviceAccount: async (ns, name) => world.serviceAccounts.get(`${ns}/${name}`),
      pod: async (ns, name) => world.pods.get(`${ns}/${name}`),
      secret: async () => undefined,
      node: async () => undefined,
    },
  });
}

const request = { namespace: 'ns', serviceAccount: { name: 'robot', uid: 'sa-1' }, audiences: [issuer], expirationSeconds: 3600 };

/** The user name, or the failure's message, or 'not ours' when the authenticator does not recognise the token. */
async function outcome(token: string, world: World, opts: { at?: number; audiences?: string[] } = {}): Promise<string> {
  try {
    const found = await authenticator(world, opts.at)(token, opts.audiences);
    return found === undefined ? 'not ours' : found.user.name;
  } catch (err) {
    if (err instanceof AuthenticationFailure) return err.message;
    throw err;
  }
}

test('service-account tokens are refused as upstream refuses them', async () => {
  const world = (): World => ({ serviceAccounts: new Map([['ns/robot', { uid: 'sa-1' }]]), pods: new Map([['ns/p', { uid: 'pod-1' }]]) });
  const good = (await issueServiceAccountToken(ours.signing, issuer, request, now)).token;
  const [header, payload] = good.split('.');
  const cases: { name: string; token: () => Promise<string>; world?: World; at?: number; audiences?: string[]; expected: string }[] = [
    { name: 'a good token', token: async () => good, expected: 'system:serviceaccount:ns:robot' },
    { name: 'expired (beyond the minute of leeway)', token: async () => good, at: now + 3661_000, expected: 'service account token has expired' },
    { name: 'within the leeway after expiry', token: async () => good, at: now + 3659_000, expected: 'system:serviceaccount:ns:robot' },
    { name: 'not valid yet', token: async () => good, at: now - 120_000, expected: 'service account token is not valid yet' },
    {
      name: 'another audience', token: async () => (await issueServiceAccountToken(ours.signing, issuer, { ...request, audiences: ['vault'] }, now)).token,
      expected: 'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]',
    },
    { name: 'another audience, asked for', token: async () => (await issueServiceAccountToken(ours.signing, issuer, { ...request, audiences: ['vault'] }, now)).token, audiences: ['vault'], expected: 'system:serviceaccount:ns:robot' },
    { name: 'another issuer is not ours', token: async () => (await issueServiceAccountToken(ours.signing, 'https://elsewhere', request, now)).token, expected: 'not ours' },
    { name: 'signed by a key of someone else (same kid)', token: async () => (await issueServiceAccountToken({ ...theirs.signing, keyId: ours.signing.keyId }, issuer, request, now)).token, expected: 'go-jose/go-jose: error in cryptographic primitive' },
    { name: 'signed by an unknown key', token: async () => (await issueServiceAccountToken(theirs.signing, issuer, request, now)).token, expected: 'invalid signature, no keys found' },
    {
      name: 'claims changed after signing',
      token: async () => {
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
        claims.sub = 'system:serviceaccount:kube-system:admin';
        return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${good.split('.')[2]}`;
      },
      expected: 'go-jose/go-jose: error in cryptographic primitive',
    },
    { name: 'the account deleted', token: async () => good, world: { serviceAccounts: new Map(), pods: new Map() }, expected: 'serviceaccounts "robot" not found' },
    { name: 'the account recreated with another uid', token: async () => good, world: { serviceAccounts: new Map([['ns/robot', { uid: 'sa-2' }]]), pods: new Map() }, expected: 'service account UID (sa-2) does not match claim (sa-1)' },
    {
      name: 'the account deleted long enough ago', token: async () => good,
      world: { serviceAccounts: new Map([['ns/robot', { uid: 'sa-1', deletionTimestamp: new Date(now - 120_000).toISOString() }]]), pods: new Map() },
      expected: 'service account ns/robot has been deleted',
    },
    { name: 'bound to a pod that exists', token: async () => (await issueServiceAccountToken(ours.signing, issuer, { ...request, pod: { name: 'p', uid: 'pod-1' } }, now)).token, expected: 'system:serviceaccount:ns:robot' },
    { name: 'bound to a pod that is gone', token: async () => (await issueServiceAccountToken(ours.signing, issuer, { ...request, pod: { name: 'q', uid: 'pod-9' } }, now)).token, expected: 'service account token has been invalidated' },
    { name: 'bound to a pod recreated', token: async () => (await issueServiceAccountToken(ours.signing, issuer, { ...request, pod: { name: 'p', uid: 'pod-0' } }, now)).token, expected: 'pod UID (pod-1) does not match service account pod ref claim (pod-0)' },
    { name: 'not a JWT', token: async () => 'static-token', expected: 'not ours' },
  ];
  for (const c of cases) {
    assert.equal(await outcome(await c.token(), c.world ?? world(), { ...(c.at !== undefined ? { at: c.at } : {}), ...(c.audiences ? { audiences: c.audiences } : {}) }), c.expected, c.name);
  }
});

test('a pod-bound token names the pod and node in the user extra, and the jti as credential id', async () => {
  const world: World = { serviceAccounts: new Map([['ns/robot', { uid: 'sa-1' }]]), pods: new Map([['ns/p', { uid: 'pod-1' }]]) };
  const { token, jti } = await issueServiceAccountToken(ours.signing, issuer, { ...request, pod: { name: 'p', uid: 'pod-1' }, node: { name: 'n', uid: 'node-1' } }, now);
  const found = await authenticator(world)(token, undefined);
  assert.deepEqual(found, {
    audiences: [issuer],
    user: {
      name: 'system:serviceaccount:ns:robot', uid: 'sa-1', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
      extra: {
        'authentication.kubernetes.io/pod-name': ['p'], 'authentication.kubernetes.io/pod-uid': ['pod-1'],
        'authentication.kubernetes.io/node-name': ['n'], 'authentication.kubernetes.io/node-uid': ['node-1'],
        'authentication.kubernetes.io/credential-id': [`JTI=${jti}`],
      },
    },
  });
});

test('a projected-volume token (3607 s, pod-bound, API audiences) is valid a year with warnafter, as upstream extends it', async () => {
  const issue = serviceAccountTokenIssuer({ issuer, keys: async () => ours.keys, apiAudiences: [issuer] });
  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  const projected = claimsOf((await issue({ ...request, expirationSeconds: 3607, pod: { name: 'p', uid: 'pod-1' } })).token);
  assert.equal(projected.exp - projected.iat, 365 * 24 * 3600);
  assert.equal(projected['kubernetes.io'].warnafter - projected.iat, 3607);
  const plain = claimsOf((await issue({ ...request, expirationSeconds: 3607 })).token);
  assert.equal(plain.exp - plain.iat, 3607);
  assert.equal(plain['kubernetes.io'].warnafter, undefined);
});

test('a token used past its warnafter is stale: noted for the audit and counted, as upstream\'s validator does', async () => {
  const uses: string[] = [];
  const world: World = { serviceAccounts: new Map([['ns/robot', { uid: 'sa-1' }]]), pods: new Map([['ns/p', { uid: 'pod-1' }]]) };
  const authenticate = (at: number) => serviceAccountTokenAuthenticator({
    issuers: [issuer], keys: async () => ours.keys, apiAudiences: [issuer], now: () => at, observe: (use) => uses.push(use),
    getter: { serviceAccount: async (ns, name) => world.serviceAccounts.get(`${ns}/${name}`), pod: async (ns, name) => world.pods.get(`${ns}/${name}`), secret: async () => undefined, node: async () => undefined },
  });
  const { token } = await issueServiceAccountToken(ours.signing, issuer, { ...request, pod: { name: 'p', uid: 'pod-1' }, expirationSeconds: 365 * 24 * 3600, warnAfterSeconds: 3607 }, now);
  assert.equal((await authenticate(now + 3600 * 1000)(token, undefined))?.auditAnnotations, undefined, 'within its warnafter');
  const stale = await authenticate(now + 7207 * 1000)(token, undefined);
  assert.deepEqual(stale?.auditAnnotations, { 'authentication.k8s.io/stale-token': 'subject: system:serviceaccount:ns:robot, seconds after warning threshold: 3600' });
  assert.deepEqual(uses, ['valid', 'stale']);
  // A token without warnafter is neither.
  await authenticate(now)((await issueServiceAccountToken(ours.signing, issuer, request, now)).token, undefined);
  assert.deepEqual(uses, ['valid', 'stale']);
});

test('key files: the signing key verifies by default; --service-account-key-file keys replace it; the key id is upstream\'s', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sa-keys-'));
  try {
    const created = await loadServiceAccountKeys({ dataDir: dir });
    assert.equal(created.signing.algorithm, 'RS256');
    assert.deepEqual(created.verification.map((k) => k.keyId), [created.signing.keyId]);
    // The same file gives the same key on the next start.
    assert.equal((await loadServiceAccountKeys({ dataDir: dir })).signing.keyId, created.signing.keyId);
    const pub = path.join(dir, 'other.pub');
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(pub, publicKey.export({ type: 'spki', format: 'pem' }) as string + (created.signing.key.export({ type: 'spki', format: 'pem' }) as string));
    const withFiles = await loadServiceAccountKeys({ dataDir: dir, keyFiles: [pub] });
    assert.deepEqual(withFiles.verification.map((k) => k.algorithm), ['ES256', 'RS256']);
    // sha256 of the DER SubjectPublicKeyInfo, unpadded base64url.
    assert.match(created.signing.keyId, /^[A-Za-z0-9_-]{43}$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('impersonation asks the authorizer for each thing impersonated and refuses with upstream\'s message', async () => {
  const asked: string[] = [];
  const onlyUsers: Authorizer = {
    authorize(_user, a) {
      asked.push(`${a.verb} ${a.group}/${a.resource}${a.subresource ? '/' + a.subresource : ''} ${a.namespace}/${a.name}`);
      return { decision: a.resource === 'groups' ? 'NoOpinion' : 'Allow' };
    },
  };
  const bob = { name: 'bob', uid: '', groups: ['system:authenticated'] };
  const jane = await impersonate(bob, ['Impersonate-User', 'jane', 'Impersonate-Uid', 'u-1', 'Impersonate-Extra-Example.com%2Fscopes', 'view', 'Impersonate-Extra-example.com%2fscopes', 'edit'], onlyUsers);
  assert.deepEqual(jane, { name: 'jane', uid: 'u-1', groups: ['system:authenticated'], extra: { 'example.com/scopes': ['view', 'edit'] } });
  assert.deepEqual(asked, [
    'impersonate /users /jane',
    'impersonate authentication.k8s.io/uids /u-1',
    'impersonate authentication.k8s.io/userextras/example.com/scopes /view',
    'impersonate authentication.k8s.io/userextras/example.com/scopes /edit',
  ]);
  await assert.rejects(impersonate(bob, ['Impersonate-User', 'jane', 'Impersonate-Group', 'dev'], onlyUsers), {
    code: 403, message: 'groups "dev" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope',
  });
  await assert.rejects(impersonate(bob, ['Impersonate-User', 'system:serviceaccount:ns:robot'], { authorize: () => ({ decision: 'NoOpinion' }) }), {
    code: 403, message: 'serviceaccounts "robot" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns"',
  });
  const anonymous = await impersonate(bob, ['Impersonate-User', 'system:anonymous'], onlyUsers);
  assert.deepEqual(anonymous?.groups, ['system:unauthenticated']);
  // An empty Impersonate-User asks for nothing: the request stays bob's, as upstream.
  assert.equal(await impersonate(bob, ['Impersonate-User', ''], onlyUsers), undefined);
});
