// Long-lived service account tokens (of Secrets of type kubernetes.io/service-account-token,
// issuer `kubernetes/serviceaccount`), checked as upstream's legacy validator checks them,
// with --service-account-lookup on and off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { AuthenticationFailure, keyIdOf, legacyServiceAccountTokenAuthenticator, type BoundObject, type SigningKey } from '../../src/auth/index.ts';

function keyPair(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { privateKey, key: publicKey, keyId: keyIdOf(publicKey), algorithm: 'RS256' };
}
const ours = keyPair();
const theirs = keyPair();
const now = Date.parse('2030-06-15T12:00:00Z');

/** What kube-controller-manager's token controller writes: upstream's legacy claims, no expiry, no audience. */
function legacyToken(claims: Record<string, unknown> = {}, key = ours): Promise<string> {
  return new SignJWT({
    iss: 'kubernetes/serviceaccount',
    'kubernetes.io/serviceaccount/namespace': 'ns',
    'kubernetes.io/serviceaccount/secret.name': 'robot-token',
    'kubernetes.io/serviceaccount/service-account.name': 'robot',
    'kubernetes.io/serviceaccount/service-account.uid': 'sa-1',
    sub: 'system:serviceaccount:ns:robot',
    ...claims,
  }).setProtectedHeader({ alg: 'RS256', kid: key.keyId }).sign(key.privateKey);
}

interface World { secrets: Map<string, BoundObject>; accounts: Map<string, BoundObject>; marked: string[] }

const uses: string[] = [];

function answer(token: string, world: World, lookup = true) {
  return legacyServiceAccountTokenAuthenticator({
    observe: (use) => uses.push(use),
    keys: async () => ({ signing: ours, verification: [ours] }),
    apiAudiences: ['https://kubernetes.default.svc'],
    lookup,
    now: () => now,
    getter: {
      secret: async (ns, name) => world.secrets.get(`${ns}/${name}`),
      serviceAccount: async (ns, name) => world.accounts.get(`${ns}/${name}`),
      pod: async () => undefined,
      node: async () => undefined,
      markLegacyTokenUsed: async (ns, name, uid, date) => void world.marked.push(`${ns}/${name} ${uid} ${date}`),
    },
  })(token, undefined);
}

async function outcome(token: string, world: World, lookup = true): Promise<string> {
  try {
    const found = await answer(token, world, lookup);
    return found === undefined ? 'not ours' : `${found.user.name} ${found.user.uid} ${found.user.groups.join(',')}`;
  } catch (err) {
    if (err instanceof AuthenticationFailure) return err.message;
    throw err;
  }
}

test('a legacy token authenticates while its Secret holds it and its account exists; each day of use labels the Secret', async () => {
  const token = await legacyToken();
  const world = (secret: Partial<BoundObject> = {}, account: Partial<BoundObject> = {}): World => ({
    secrets: new Map([['ns/robot-token', { uid: 'secret-1', token, ...secret }]]),
    accounts: new Map([['ns/robot', { uid: 'sa-1', ...account }]]),
    marked: [],
  });
  const fine = world();
  assert.equal(await outcome(token, fine), 'system:serviceaccount:ns:robot sa-1 system:serviceaccounts,system:serviceaccounts:ns');
  assert.deepEqual(fine.marked, ['ns/robot-token secret-1 2030-06-15']);
  const usedToday = world({ labels: { 'kubernetes.io/legacy-token-last-used': '2030-06-15' } });
  await outcome(token, usedToday);
  assert.deepEqual(usedToday.marked, [], 'labelled once a day');

  const cases: Array<[string, World, string]> = [
    ['its Secret gone', { ...world(), secrets: new Map() }, 'Token has been invalidated'],
    ['its Secret being deleted', world({ deletionTimestamp: '2030-06-15T00:00:00Z' }), 'Token has been invalidated'],
    ['another token in its Secret', world({ token: 'other' }), "Token does not match server's copy"],
    ['its account gone', { ...world(), accounts: new Map() }, 'serviceaccounts "robot" not found'],
    ['its account being deleted', world({}, { deletionTimestamp: '2030-06-15T00:00:00Z' }), 'ServiceAccount ns/robot has been deleted'],
    ['its account made again', world({}, { uid: 'sa-2' }), 'ServiceAccount UID (sa-2) does not match claim (sa-1)'],
    ['marked invalid by the cleaner', world({ labels: { 'kubernetes.io/legacy-token-invalid-since': '2030-01-01' } }),
      "the token in secret ns/robot-token for service account ns/robot has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the 'kubernetes.io/legacy-token-invalid-since' label from the secret to temporarily allow use of this token"],
  ];
  for (const [name, w, message] of cases) assert.equal(await outcome(token, w), message, name);
  // --service-account-lookup=false: the claims and signature alone.
  assert.equal(await outcome(token, { ...world(), secrets: new Map(), accounts: new Map() }, false), 'system:serviceaccount:ns:robot sa-1 system:serviceaccounts,system:serviceaccounts:ns');
});

test('legacy claims are checked as upstream\'s validator checks them; other issuers are not ours', async () => {
  const world: World = { secrets: new Map(), accounts: new Map(), marked: [] };
  const cases: Array<[string, Promise<string>, string]> = [
    ['no subject', legacyToken({ sub: '' }), 'sub claim is missing'],
    ['no namespace', legacyToken({ 'kubernetes.io/serviceaccount/namespace': '' }), 'namespace claim is missing'],
    ['no secret', legacyToken({ 'kubernetes.io/serviceaccount/secret.name': '' }), 'secretName claim is missing'],
    ['no account', legacyToken({ 'kubernetes.io/serviceaccount/service-account.name': '' }), 'serviceAccountName claim is missing'],
    ['no uid', legacyToken({ 'kubernetes.io/serviceaccount/service-account.uid': '' }), 'serviceAccountUID claim is missing'],
    ['a subject of another account', legacyToken({ sub: 'system:serviceaccount:ns:other' }), 'sub claim is invalid'],
    ['signed by another key', legacyToken({}, theirs), 'invalid signature, no keys found'],
    ['another issuer', legacyToken({ iss: 'https://issuer.example' }), 'not ours'],
  ];
  for (const [name, token, expected] of cases) assert.equal(await outcome(await token, world, false), expected, name);
});

test('a legacy token is noted for the audit and, when its account generated it, warned of, as upstream\'s tracking does', async () => {
  const token = await legacyToken();
  const world = (secretNames: string[]): World => ({
    secrets: new Map([['ns/robot-token', { uid: 'secret-1', token }]]), accounts: new Map([['ns/robot', { uid: 'sa-1', secretNames }]]), marked: [],
  });
  const manual = await answer(token, world([]));
  assert.deepEqual(manual?.auditAnnotations, { 'authentication.k8s.io/legacy-token': 'system:serviceaccount:ns:robot', 'authentication.k8s.io/legacy-token-manual-secret': 'robot-token' });
  assert.equal(manual?.warnings, undefined);
  uses.length = 0;
  const generated = await answer(token, world(['robot-token']));
  assert.deepEqual(uses, ['legacy', 'legacy_auto'], 'counted as upstream\'s metrics count them');
  assert.deepEqual(generated?.auditAnnotations, { 'authentication.k8s.io/legacy-token': 'system:serviceaccount:ns:robot', 'authentication.k8s.io/legacy-token-autogenerated-secret': 'robot-token' });
  assert.deepEqual(generated?.warnings, ['Use tokens from the TokenRequest API or manually created secret-based tokens instead of auto-generated secret-based tokens.']);
  assert.deepEqual((await answer(token, world([]), false))?.auditAnnotations, { 'authentication.k8s.io/legacy-token': 'system:serviceaccount:ns:robot' }, 'without lookup, only the token\'s kind');
});
