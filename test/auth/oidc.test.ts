// The OpenID Connect authenticator with an issuer served from memory: discovery, keys,
// claims mapped to users as the legacy --oidc-* flags mean, and the tokens it refuses or
// leaves to other authenticators.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { AuthenticationFailure } from '../../src/auth/authenticate.ts';
import { goTime, jwtAuthenticator, specOfFlags, usernamePrefixOf, type JwtAuthenticatorOptions, type OidcFlags } from '../../src/auth/oidc.ts';

const issuer = 'https://issuer.example';

async function keyPair(kid: string, alg = 'RS256') {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } as JWK, kid, alg };
}

function issuerDocuments(keys: JWK[], fetched: string[]) {
  return async (url: string): Promise<unknown> => {
    fetched.push(url);
    if (url === `${issuer}/.well-known/openid-configuration`) return { issuer, jwks_uri: `${issuer}/keys` };
    if (url === `${issuer}/keys`) return { keys: [...keys] };
    throw new Error(`unexpected ${url}`);
  };
}

async function sign(key: Awaited<ReturnType<typeof keyPair>>, claims: Record<string, unknown>, expiresIn = 3600): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iss: issuer, aud: 'plinth', sub: 'alice-id', exp: now + expiresIn, iat: now, ...claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid })
    .sign(key.privateKey);
}

async function outcome(authenticate: ReturnType<typeof jwtAuthenticator>['authenticate'], token: string): Promise<unknown> {
  try {
    return await authenticate(token, undefined);
  } catch (err) {
    assert.ok(err instanceof AuthenticationFailure, String(err));
    return (err as Error).message;
  }
}

/** An authenticator of the legacy flags' settings (`more`), reading the issuer from memory. */
function fromFlags(keys: JWK[], fetched: string[], more: Partial<OidcFlags & JwtAuthenticatorOptions> = {}) {
  const flags: OidcFlags = { issuerUrl: issuer, clientId: 'plinth', usernameClaim: 'sub', requiredClaims: {}, signingAlgs: ['RS256'], ...more };
  return jwtAuthenticator(specOfFlags(flags), { signingAlgs: flags.signingAlgs, fetchJson: issuerDocuments(keys, fetched), log: () => {}, ...more });
}

test('the legacy flags\' username prefix: the issuer and # before any claim but email; "-" for none', () => {
  assert.equal(usernamePrefixOf({ issuerUrl: issuer, usernameClaim: 'sub' }), `${issuer}#`);
  assert.equal(usernamePrefixOf({ issuerUrl: issuer, usernameClaim: 'email' }), '');
  assert.equal(usernamePrefixOf({ issuerUrl: issuer, usernameClaim: 'sub', usernamePrefix: 'oidc:' }), 'oidc:');
  assert.equal(usernamePrefixOf({ issuerUrl: issuer, usernameClaim: 'sub', usernamePrefix: '-' }), '');
});

test('an ID token of the issuer names its user and groups; others are refused or left to other authenticators', async () => {
  const key = await keyPair('k1');
  const fetched: string[] = [];
  const oidc = fromFlags([key.jwk], fetched, { groupsClaim: 'groups', groupsPrefix: 'oidc:', requiredClaims: { hd: 'example.com' } });
  const early = await sign(key, { hd: 'example.com' });
  assert.equal(await outcome(oidc.authenticate, early), 'oidc: authenticator not initialized');
  await oidc.start();
  assert.deepEqual(fetched, [`${issuer}/.well-known/openid-configuration`, `${issuer}/keys`]);

  assert.deepEqual(await outcome(oidc.authenticate, await sign(key, { hd: 'example.com', groups: ['dev', 'ops'], jti: 'j-1' })), {
    user: { name: `${issuer}#alice-id`, uid: '', groups: ['oidc:dev', 'oidc:ops'], extra: { 'authentication.kubernetes.io/credential-id': ['JTI=j-1'] } },
  });
  // One group as a string.
  assert.deepEqual((await outcome(oidc.authenticate, await sign(key, { hd: 'example.com', groups: 'admins' })) as { user: { groups: string[] } }).user.groups, ['oidc:admins']);

  const refused: [Record<string, unknown>, string][] = [
    [{ hd: 'other.com' }, 'oidc: required claim hd value does not match. Got = other.com, want = example.com'],
    [{}, 'oidc: required claim hd not present in ID token'],
    [{ hd: 'example.com', aud: 'someone-else' }, 'oidc: verify token: oidc: expected audience "plinth" got ["someone-else"]'],
    [{ hd: 'example.com', groups: 5 }, 'oidc: parse groups claim "groups": json: cannot unmarshal number into Go value of type string'],
    [{ hd: 'example.com', sub: 7 }, 'oidc: parse username claims "sub": json: cannot unmarshal number into Go value of type string'],
  ];
  for (const [claims, message] of refused) assert.equal(await outcome(oidc.authenticate, await sign(key, claims)), message, JSON.stringify(claims));
  const expired = await sign(key, { hd: 'example.com' }, -10);
  const exp = JSON.parse(Buffer.from(expired.split('.')[1]!, 'base64url').toString()).exp as number;
  assert.equal(await outcome(oidc.authenticate, expired), `oidc: verify token: oidc: token is expired (Token Expiry: ${goTime(exp)})`);
  // Signed by a key the issuer never published.
  const stranger = await keyPair('k1');
  assert.equal(await outcome(oidc.authenticate, await sign(stranger, { hd: 'example.com' })), 'oidc: verify token: failed to verify signature: failed to verify id token signature');
  // Another issuer's token, or no JWT at all: not this authenticator's.
  assert.equal(await outcome(oidc.authenticate, await sign(key, { iss: 'https://elsewhere.example' })), undefined);
  assert.equal(await outcome(oidc.authenticate, 'not-a-jwt'), undefined);
  oidc.close();
});

test('email as the username: no prefix, and email_verified must not be false; a rotated key is fetched again; an algorithm not allowed is refused', async () => {
  const old = await keyPair('old');
  const keys = [old.jwk];
  const fetched: string[] = [];
  let clock = Date.now();
  const oidc = fromFlags(keys, fetched, { usernameClaim: 'email', now: () => clock });
  await oidc.start();
  assert.deepEqual(await outcome(oidc.authenticate, await sign(old, { email: 'alice@example.com', email_verified: true })), { user: { name: 'alice@example.com', uid: '', groups: [] } });
  assert.equal(await outcome(oidc.authenticate, await sign(old, { email: 'alice@example.com', email_verified: false })), 'oidc: email not verified');
  assert.equal((await outcome(oidc.authenticate, await sign(old, { email: 'bob@example.com' })) as { user: { name: string } }).user.name, 'bob@example.com');

  const rotated = await keyPair('new');
  keys.push(rotated.jwk);
  clock += 11_000;
  assert.equal((await outcome(oidc.authenticate, await sign(rotated, { email: 'carol@example.com' })) as { user: { name: string } }).user.name, 'carol@example.com');
  assert.equal(fetched.filter((url) => url.endsWith('/keys')).length, 2);

  const ec = await keyPair('ec', 'ES256');
  keys.push(ec.jwk);
  assert.equal(await outcome(oidc.authenticate, await sign(ec, { email: 'dave@example.com' })), 'oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["RS256"] got "ES256"');
  oidc.close();
});

test('a discovery document naming another issuer is not trusted', async () => {
  const logged: string[] = [];
  const oidc = fromFlags([], [], {
    fetchJson: async () => ({ issuer: 'https://impostor.example', jwks_uri: 'https://impostor.example/keys' }),
    log: (message: string) => {
      logged.push(message);
      oidc.close();
    },
  });
  await oidc.start();
  assert.deepEqual(logged, ['oidc authenticator: initializing plugin: oidc: issuer did not match the issuer returned by provider, expected "https://issuer.example" got "https://impostor.example"']);
});

test('times past what a Date holds are refused as expired or not yet valid, not thrown', async () => {
  const key = await keyPair('k1');
  const oidc = fromFlags([key.jwk], []);
  await oidc.start();
  assert.equal(await outcome(oidc.authenticate, await sign(key, { exp: -1e20 })), 'oidc: verify token: oidc: token is expired (Token Expiry: -100000000000000000000)');
  assert.match(await outcome(oidc.authenticate, await sign(key, { nbf: 1e20 })) as string, /before the nbf \(not before\) time: 100000000000000000000$/);
  oidc.close();
});

test('distributed claims: the groups claim resolved from its source\'s endpoint, verified as a token of its issuer, as upstream', async () => {
  const key = await keyPair('k1');
  const other = await keyPair('k2');
  const otherIssuer = 'https://claims.example';
  const fetched: string[] = [];
  const asked: { url: string; accessToken: string | undefined }[] = [];
  let answer: () => Promise<string> = async () => '';
  const oidc = jwtAuthenticator(specOfFlags({ issuerUrl: issuer, clientId: 'plinth', usernameClaim: 'sub', usernamePrefix: '-', groupsClaim: 'groups', requiredClaims: {}, signingAlgs: ['RS256'] }), {
    signingAlgs: ['RS256'], log: () => {},
    fetchJson: async (url) => {
      fetched.push(url);
      if (url === `${issuer}/.well-known/openid-configuration`) return { issuer, jwks_uri: `${issuer}/keys` };
      if (url === `${issuer}/keys`) return { keys: [key.jwk] };
      if (url === `${otherIssuer}/.well-known/openid-configuration`) return { issuer: otherIssuer, jwks_uri: `${otherIssuer}/keys` };
      if (url === `${otherIssuer}/keys`) return { keys: [other.jwk] };
      throw new Error(`unexpected ${url}`);
    },
    fetchClaimToken: async (url, accessToken) => {
      asked.push({ url, accessToken });
      return answer();
    },
  });
  await oidc.start();
  const sources = { _claim_names: { groups: 'src1' }, _claim_sources: { src1: { endpoint: `${issuer}/groups`, access_token: 'groups_token' } } };
  const distributed = (claims: Record<string, unknown>, by = key) => async () => sign(by, { sub: undefined, ...claims });

  answer = distributed({ groups: ['team1', 'team2'] });
  assert.deepEqual(await outcome(oidc.authenticate, await sign(key, sources)), { user: { name: 'alice-id', uid: '', groups: ['team1', 'team2'] } });
  assert.deepEqual(asked, [{ url: `${issuer}/groups`, accessToken: 'groups_token' }]);
  // A string is one group, as in the token itself.
  answer = distributed({ groups: 'team1' });
  assert.deepEqual((await outcome(oidc.authenticate, await sign(key, sources)) as { user: { groups: string[] } }).user.groups, ['team1']);
  // The token's own claim wins: the endpoint is not asked.
  const before = asked.length;
  assert.deepEqual((await outcome(oidc.authenticate, await sign(key, { ...sources, groups: 'team0' })) as { user: { groups: string[] } }).user.groups, ['team0']);
  assert.equal(asked.length, before);
  // An aggregated claim (a JWT inline, no endpoint) is ignored.
  assert.deepEqual((await outcome(oidc.authenticate, await sign(key, { _claim_names: { groups: 'src1' }, _claim_sources: { src1: { JWT: 'some.jwt.token' } } })) as { user: { groups: string[] } }).user.groups, []);

  const refused: [Record<string, unknown>, () => Promise<string>, string][] = [
    [{ _claim_names: { groups: 'nonexistent' }, _claim_sources: sources._claim_sources }, distributed({ groups: ['x'] }), 'oidc: verify token: oidc: source does not exist'],
    [{ _claim_names: { groups: 'src1' } }, distributed({ groups: ['x'] }), 'oidc: verify token: oidc: source does not exist'],
    [sources, distributed({}), `oidc: could not expand distributed claims: jwt returned by distributed claim endpoint "${issuer}/groups" did not contain claim: groups`],
    [sources, distributed({ groups: ['x'], aud: 'your-client' }), 'oidc: could not expand distributed claims: verify distributed claim token: oidc: expected audience "plinth" got ["your-client"]'],
    [sources, async () => {
      throw new Error(`Get "${issuer}/groups": some unexpected oidc error`);
    }, `oidc: could not expand distributed claims: while getting distributed claim "groups": Get "${issuer}/groups": some unexpected oidc error`],
  ];
  for (const [claims, distributedAnswer, message] of refused) {
    answer = distributedAnswer;
    assert.equal(await outcome(oidc.authenticate, await sign(key, claims)), message, JSON.stringify(claims));
  }

  // A distributed token of another issuer: its keys are read on first use, as upstream's async verifier.
  answer = distributed({ iss: otherIssuer, groups: ['far'] }, other);
  assert.equal(await outcome(oidc.authenticate, await sign(key, sources)), `oidc: could not expand distributed claims: verifying untrusted issuer ${otherIssuer} failed: verifier not initialized for issuer: "${otherIssuer}"`);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual((await outcome(oidc.authenticate, await sign(key, sources)) as { user: { groups: string[] } }).user.groups, ['far']);
  oidc.close();
});
