import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AuthenticationFailure, alwaysAllow, anonymousUser, audienceAgnostic, bearerToken, bearerTokenAuthenticator, clientCertificateAuthenticator, forbiddenError,
  parseTokenFile, requestAuthenticator, tokenFileAuthenticator, unionTokenAuthenticator, type AuthorizationAttributes, type ClientCertificate,
  type TokenAuthenticator,
} from '../../src/auth/index.ts';

const tokens = parseTokenFile('s3cret,admin,admin,"system:masters"\nplain,bob,u2\nalready,carol,u3,"system:authenticated,dev"\n');
const authenticate = requestAuthenticator({
  authenticators: [clientCertificateAuthenticator(), bearerTokenAuthenticator(audienceAgnostic(['api'], tokenFileAuthenticator(tokens)))],
  anonymous: true,
});

const admin = { name: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] };
const bob = { name: 'bob', uid: 'u2', groups: ['system:authenticated'] };

/** The user, 'anonymous', or 'failure' (401). */
async function outcome(headers: Record<string, string>, clientCertificate?: ClientCertificate): Promise<unknown> {
  try {
    const found = await authenticate({ headers, ...(clientCertificate ? { clientCertificate } : {}) });
    if (found === undefined) return undefined;
    return found.user === anonymousUser ? 'anonymous' : found.user;
  } catch (err) {
    if (err instanceof AuthenticationFailure) return 'failure';
    throw err;
  }
}

test('bearer tokens are read from the Authorization header like kube-apiserver', async () => {
  const cases: { name: string; header: string | undefined; expected: unknown }[] = [
    { name: 'no header', header: undefined, expected: 'anonymous' },
    { name: 'empty header', header: '', expected: 'anonymous' },
    { name: 'Bearer token', header: 'Bearer s3cret', expected: admin },
    { name: 'scheme word in any case', header: 'bEARER s3cret', expected: admin },
    { name: 'surrounding whitespace trimmed', header: '  Bearer plain \t', expected: bob },
    { name: 'words after the token are ignored', header: 'Bearer plain extra', expected: bob },
    { name: 'two spaces before the token', header: 'Bearer  s3cret', expected: 'anonymous' },
    { name: 'unknown token', header: 'Bearer nope', expected: 'failure' },
    { name: 'token prefix', header: 'Bearer s3cre', expected: 'failure' },
    { name: 'Basic scheme is no credential of ours', header: 'Basic YWRtaW46czNjcmV0', expected: 'anonymous' },
    { name: 'token without scheme', header: 's3cret', expected: 'anonymous' },
    { name: 'scheme without token', header: 'Bearer', expected: 'anonymous' },
    { name: 'Bearer as a prefix of the scheme', header: 'Bearers s3cret', expected: 'anonymous' },
    { name: 'group already present is not repeated', header: 'Bearer already', expected: { name: 'carol', uid: 'u3', groups: ['system:authenticated', 'dev'] } },
  ];
  for (const c of cases) assert.deepEqual(await outcome(c.header === undefined ? {} : { authorization: c.header }), c.expected, c.name);
});

test('bearerToken extracts the token or nothing', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('Basic abc'), undefined);
});

test('the authenticator does not share or expose the table it was built from', async () => {
  const found = await tokenFileAuthenticator(tokens)('plain', undefined);
  assert.throws(() => found!.user.groups.push('system:masters'));
  assert.deepEqual(tokens.get('plain'), { name: 'bob', uid: 'u2', groups: [] });
});

test('static tokens are good for the API audiences only', async () => {
  const auth = audienceAgnostic(['api', 'other'], tokenFileAuthenticator(tokens));
  assert.deepEqual((await auth('plain', undefined))?.audiences, ['api', 'other']);
  assert.deepEqual((await auth('plain', ['other', 'x']))?.audiences, ['other']);
  assert.equal(await auth('plain', ['vault']), undefined);
});

const cert = (over: Partial<ClientCertificate>): ClientCertificate => ({
  verified: true, commonName: 'jane', organizations: ['dev', 'ops'], fingerprint256: 'AB:CD:01', ...over,
});

test('client certificates name CN and O groups once the handshake verified them; a bad one is 401 unless other credentials name a user', async () => {
  const jane = { name: 'jane', uid: '', groups: ['dev', 'ops', 'system:authenticated'], extra: { 'authentication.kubernetes.io/credential-id': ['X509SHA256=abcd01'] } };
  const cases: { name: string; cert: ClientCertificate; header?: string; expected: unknown }[] = [
    { name: 'verified certificate', cert: cert({}), expected: jane },
    { name: 'certificate wins over a token', cert: cert({}), header: 'Bearer s3cret', expected: jane },
    { name: 'client auth usage', cert: cert({ extendedKeyUsage: ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'] }), expected: jane },
    { name: 'server auth usage only', cert: cert({ extendedKeyUsage: ['1.3.6.1.5.5.7.3.1'] }), expected: 'failure' },
    { name: 'not signed by the client CA', cert: cert({ verified: false, verificationError: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }), expected: 'failure' },
    { name: 'not signed by the client CA, with a good token: the token names the user (upstream\'s union)', cert: cert({ verified: false }), header: 'Bearer s3cret', expected: admin },
    { name: 'not signed by the client CA, with a bad token', cert: cert({ verified: false }), header: 'Bearer nope', expected: 'failure' },
    { name: 'expired', cert: cert({ verified: false, verificationError: 'CERT_HAS_EXPIRED' }), expected: 'failure' },
    { name: 'no common name: the token decides', cert: cert({ commonName: '' }), header: 'Bearer plain', expected: bob },
    { name: 'no common name and nothing else: anonymous', cert: cert({ commonName: '' }), expected: 'anonymous' },
  ];
  for (const c of cases) assert.deepEqual(await outcome(c.header ? { authorization: c.header } : {}, c.cert), c.expected, c.name);
});

test('without anonymous access, a request with no credentials names nobody', async () => {
  const strict = requestAuthenticator({ authenticators: [bearerTokenAuthenticator(tokenFileAuthenticator(tokens))], anonymous: false });
  assert.equal(await strict({ headers: {} }), undefined);
  assert.deepEqual((await strict({ headers: { authorization: 'Bearer plain' } }))?.user, bob);
});

test('a token table or a certificate answers at once, without a promise; a lookup behind them answers in its own time', async () => {
  const known = authenticate({ headers: { authorization: 'Bearer plain' } });
  assert.ok(!(known instanceof Promise));
  assert.deepEqual(known?.user, bob);
  assert.ok(!(authenticate({ headers: {} }) instanceof Promise), 'anonymous');
  assert.throws(() => authenticate({ headers: { authorization: 'Bearer wrong' } }), AuthenticationFailure);

  // A slow authenticator after the table, and one that fails: tried in order, failures joined as before.
  const slow: TokenAuthenticator = async (token) => (token === 'late' ? { user: { name: 'late', uid: '', groups: [] } } : undefined);
  const failing: TokenAuthenticator = async () => {
    throw new AuthenticationFailure('token expired');
  };
  const union = requestAuthenticator({
    authenticators: [bearerTokenAuthenticator(unionTokenAuthenticator([tokenFileAuthenticator(tokens), failing, slow]))], anonymous: true,
  });
  const late = union({ headers: { authorization: 'Bearer late' } });
  assert.ok(late instanceof Promise);
  assert.deepEqual((await late)?.user, { name: 'late', uid: '', groups: ['system:authenticated'] });
  assert.deepEqual((await union({ headers: { authorization: 'Bearer plain' } }))?.user, bob);
  await assert.rejects(Promise.resolve().then(() => union({ headers: { authorization: 'Bearer nobody' } })), (err: unknown) => err instanceof AuthenticationFailure && err.message === '[invalid bearer token, token expired]');
});

const attributes = (over: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({
  verb: 'get', group: '', resource: '', subresource: '', namespace: '', name: '', path: '', ...over,
});

test('alwaysAllow allows everything', () => {
  assert.deepEqual(alwaysAllow.authorize(bob, attributes({ verb: 'delete', resource: 'namespaces', name: 'kube-system' })), { decision: 'Allow' });
});

test('forbiddenError words denials like kube-apiserver', () => {
  const cases: { name: string; attrs: AuthorizationAttributes; reason?: string; message: string; details: object }[] = [
    {
      name: 'named namespaced resource',
      attrs: attributes({ verb: 'get', resource: 'pods', namespace: 'dev', name: 'web', path: '/api/v1/namespaces/dev/pods/web' }),
      message: 'pods "web" is forbidden: User "bob" cannot get resource "pods" in API group "" in the namespace "dev"',
      details: { name: 'web', kind: 'pods' },
    },
    {
      name: 'collection in a group at cluster scope',
      attrs: attributes({ verb: 'list', group: 'rbac.authorization.k8s.io', resource: 'clusterroles' }),
      message: 'clusterroles.rbac.authorization.k8s.io is forbidden: User "bob" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
      details: { group: 'rbac.authorization.k8s.io', kind: 'clusterroles' },
    },
    {
      name: 'subresource',
      attrs: attributes({ verb: 'update', group: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'a', name: 'd' }),
      message: 'deployments.apps "d" is forbidden: User "bob" cannot update resource "deployments/scale" in API group "apps" in the namespace "a"',
      details: { group: 'apps', kind: 'deployments', name: 'd' },
    },
    {
      name: 'non-resource path with a reason',
      attrs: attributes({ verb: 'get', path: '/metrics' }),
      reason: 'no RBAC policy matched',
      message: 'forbidden: User "bob" cannot get path "/metrics": no RBAC policy matched',
      details: {},
    },
  ];
  for (const c of cases) {
    const status = forbiddenError(bob, c.attrs, c.reason).toStatus();
    assert.equal(status.code, 403, c.name);
    assert.equal(status.reason, 'Forbidden', c.name);
    assert.equal(status.message, c.message, c.name);
    assert.deepEqual(status.details, c.details, c.name);
  }
});
