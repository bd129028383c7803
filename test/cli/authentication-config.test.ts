// --authentication-config: the AuthenticationConfiguration decoded strictly and validated
// with upstream's field paths and words, its expressions compiled, and the JWT
// authenticators it describes mapping claims to users as upstream's (cases after
// upstream's own: claim and expression mappings, extra, claim and user validation rules).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { AuthenticationFailure } from '../../src/auth/authenticate.ts';
import { jwtAuthenticator } from '../../src/auth/oidc.ts';
import { parseAuthenticationConfiguration, sameAnonymous } from '../../src/cli/authentication-config.ts';

const issuer = 'https://auth.example.com';

/** A v1 configuration of the given JWT entries (each completed with the issuer and an audience when it names none). */
function configOf(jwt: Record<string, unknown>[], more: Record<string, unknown> = {}): string {
  const entries = jwt.map((entry) => ({ ...entry, issuer: { url: issuer, audiences: ['my-client'], ...(entry.issuer as object) } }));
  return JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthenticationConfiguration', jwt: entries, ...more });
}

async function refusal(text: string, disallowed: string[] = []): Promise<string> {
  try {
    await parseAuthenticationConfiguration(text, disallowed);
  } catch (err) {
    return (err as Error).message;
  }
  return '(accepted)';
}

const invalid = (detail: string) => `invalid authentication configuration: ${detail}`;
const username = { username: { claim: 'sub', prefix: '' } };
const emailVerifiedRule = 'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression';

test('the configuration is decoded strictly: known versions and kind, no unknown field, Go types', async () => {
  assert.equal(await refusal(''), 'empty config data');
  assert.match(await refusal('{"apiVersion": "apiserver.config.k8s.io/v2", "kind": "AuthenticationConfiguration"}'), /no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io\/v2"/);
  assert.match(await refusal('{"apiVersion": "apiserver.config.k8s.io/v1"}'), /Object 'Kind' is missing/);
  assert.equal(
    await refusal(configOf([{ claimMappings: username, issuer: { colour: 'red' } }], { extra: 1 })),
    // In the order the decoder meets them.
    'strict decoding error: unknown field "jwt[0].issuer.colour", unknown field "extra"',
  );
  assert.equal(
    await refusal(configOf([{ claimMappings: username, issuer: { audiences: 'my-client' } }])),
    'json: cannot unmarshal string into Go struct field Issuer.jwt.issuer.audiences of type []string',
  );
  assert.equal(await refusal(configOf([{ claimMappings: 'sub' }])), 'json: cannot unmarshal string into Go struct field JWTAuthenticator.jwt.claimMappings of type v1.ClaimMappings');
  // YAML, every served version, and no authenticators at all are fine.
  for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
    const loaded = await parseAuthenticationConfiguration(`apiVersion: apiserver.config.k8s.io/${version}\nkind: AuthenticationConfiguration\njwt: []\n`, []);
    assert.deepEqual(loaded.jwt, []);
  }
});

test('issuers are validated as upstream: https URLs without user, query or fragment, unique, not a service-account issuer', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ url: '' }, 'jwt[0].issuer.url: Required value'],
    [{ url: 'invalid-url' }, 'jwt[0].issuer.url: Invalid value: "invalid-url": URL scheme must be https'],
    [{ url: 'https://issuer-url:invalid-port' }, 'jwt[0].issuer.url: Invalid value: "https://issuer-url:invalid-port": parse "https://issuer-url:invalid-port": invalid port ":invalid-port" after host'],
    [{ url: 'https://user:pass@issuer-url' }, 'jwt[0].issuer.url: Invalid value: "https://user:pass@issuer-url": URL must not contain a username or password'],
    [{ url: 'https://issuer-url?query' }, 'jwt[0].issuer.url: Invalid value: "https://issuer-url?query": URL must not contain a query'],
    [{ url: 'https://issuer-url#fragment' }, 'jwt[0].issuer.url: Invalid value: "https://issuer-url#fragment": URL must not contain a fragment'],
    [{ discoveryURL: `${issuer}///` }, `jwt[0].issuer.discoveryURL: Invalid value: "${issuer}///": discoveryURL must be different from URL`],
    [{ discoveryURL: 'http://oidc.svc' }, 'jwt[0].issuer.discoveryURL: Invalid value: "http://oidc.svc": URL scheme must be https'],
    [{ audiences: [] }, 'jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required'],
    [{ audiences: [''] }, 'jwt[0].issuer.audiences[0]: Required value'],
    [{ audiences: ['a', 'a'], audienceMatchPolicy: 'MatchAny' }, 'jwt[0].issuer.audiences[1]: Duplicate value: "a"'],
    [{ audiences: ['a', 'b'] }, 'jwt[0].issuer.audienceMatchPolicy: Invalid value: "": audienceMatchPolicy must be MatchAny for multiple audiences'],
    [{ audiences: ['a'], audienceMatchPolicy: 'MatchExact' }, 'jwt[0].issuer.audienceMatchPolicy: Invalid value: "MatchExact": audienceMatchPolicy must be empty or MatchAny for single audience'],
    [{ certificateAuthority: 'invalid' }, 'jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates'],
    [{ egressSelectorType: 'elsewhere' }, 'jwt[0].issuer.egressSelectorType: Invalid value: "elsewhere": egress selector must be either controlplane or cluster'],
  ];
  for (const [issuerFields, message] of cases) assert.equal(await refusal(configOf([{ issuer: issuerFields, claimMappings: username }])), invalid(message), JSON.stringify(issuerFields));
  assert.equal(
    await refusal(configOf([{ claimMappings: username }]), ['a', 'https://auth.example.com', 'b']),
    invalid('jwt[0].issuer.url: Invalid value: "https://auth.example.com": URL must not overlap with disallowed issuers: [a b https://auth.example.com]'),
  );
  assert.equal(await refusal(configOf([{ claimMappings: username }, { claimMappings: username }])), invalid('jwt[1].issuer.url: Duplicate value: "https://auth.example.com"'));
  const discoveryURL = 'https://discovery-url/.well-known/openid-configuration';
  assert.equal(
    await refusal(configOf([{ claimMappings: username, issuer: { discoveryURL } }, { claimMappings: username, issuer: { url: 'https://other.example.com', discoveryURL } }])),
    invalid(`jwt[1].issuer.discoveryURL: Duplicate value: "${discoveryURL}"`),
  );
  // Several errors at once, as Go's aggregate prints them.
  assert.equal(
    await refusal(configOf([{ issuer: { url: 'http://x', audiences: [] }, claimMappings: username }])),
    invalid('[jwt[0].issuer.url: Invalid value: "http://x": URL scheme must be https, jwt[0].issuer.audiences: Required value: at least one jwt[0].issuer.audiences is required]'),
  );
});

test('claim validation rules, claim mappings and user validation rules are validated and compiled as upstream', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ claimValidationRules: [{}], claimMappings: username }, 'jwt[0].claimValidationRules[0]: Required value: claim or expression is required'],
    [{ claimValidationRules: [{ claim: 'c', expression: 'e' }], claimMappings: username }, `jwt[0].claimValidationRules[0]: Invalid value: "c": claim and expression can't both be set`],
    [{ claimValidationRules: [{ claim: 'c', message: 'm' }], claimMappings: username }, 'jwt[0].claimValidationRules[0].message: Invalid value: "m": may not be specified when claim is set'],
    [{ claimValidationRules: [{ expression: "claims.foo == 'bar'", requiredValue: 'v' }], claimMappings: username }, 'jwt[0].claimValidationRules[0].requiredValue: Invalid value: "v": may not be specified when expression is set'],
    [{ claimValidationRules: [{ claim: 'c' }, { claim: 'c' }], claimMappings: username }, 'jwt[0].claimValidationRules[1].claim: Duplicate value: "c"'],
    [{ claimValidationRules: [{ expression: "claims.foo == 'bar'" }, { expression: "claims.foo == 'bar'" }], claimMappings: username }, `jwt[0].claimValidationRules[1].expression: Duplicate value: "claims.foo == 'bar'"`],
    [{ claimValidationRules: [{ expression: 'claims.foo' }], claimMappings: username }, 'jwt[0].claimValidationRules[0].expression: Invalid value: "claims.foo": must evaluate to bool'],
    [{ claimMappings: { username: { prefix: 'p' } } }, 'jwt[0].claimMappings.username: Required value: claim or expression is required'],
    [{ claimMappings: { username: { claim: 'c', expression: 'claims.u' } } }, `jwt[0].claimMappings.username: Invalid value: "": claim and expression can't both be set`],
    [{ claimMappings: { username: { expression: 'claims.u', prefix: 'p' } } }, 'jwt[0].claimMappings.username.prefix: Invalid value: "p": may not be specified when expression is set'],
    [{ claimMappings: { username: { claim: 'c' } } }, 'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing'],
    [{ claimMappings: { ...username, groups: { claim: 'g' } } }, 'jwt[0].claimMappings.groups.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing'],
    [{ claimMappings: { ...username, uid: { claim: 'u', expression: 'claims.uid' } } }, `jwt[0].claimMappings.uid: Invalid value: "": claim and expression can't both be set`],
    [{ claimMappings: { ...username, extra: [{ key: '', valueExpression: 'claims.x' }] } }, 'jwt[0].claimMappings.extra[0].key: Required value'],
    [{ claimMappings: { ...username, extra: [{ key: 'foo', valueExpression: 'claims.x' }] } }, 'jwt[0].claimMappings.extra[0].key: Invalid value: "foo": must be a domain-prefixed path (such as "acme.io/foo")'],
    [{ claimMappings: { ...username, extra: [{ key: 'example.org/Foo', valueExpression: 'claims.x' }] } }, 'jwt[0].claimMappings.extra[0].key: Invalid value: "example.org/Foo": must be lowercase'],
    [{ claimMappings: { ...username, extra: [{ key: 'sub.kubernetes.io/foo', valueExpression: 'claims.x' }] } }, 'jwt[0].claimMappings.extra[0].key: Invalid value: "sub.kubernetes.io/foo": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use'],
    [{ claimMappings: { ...username, extra: [{ key: 'example.org/foo', valueExpression: '' }] } }, 'jwt[0].claimMappings.extra[0].valueExpression: Required value'],
    [{ claimMappings: { ...username, extra: [{ key: 'example.org/foo', valueExpression: 'claims.a' }, { key: 'example.org/foo', valueExpression: 'claims.b' }] } }, 'jwt[0].claimMappings.extra[1].key: Duplicate value: "example.org/foo"'],
    [{ claimMappings: { username: { expression: 'claims.email' } } }, `jwt[0].claimMappings.username.expression: Invalid value: "claims.email": ${emailVerifiedRule}`],
    [{ claimMappings: { username: { expression: "['yay', string(claims.email), 'panda'].join(' ')" } } }, `jwt[0].claimMappings.username.expression: Invalid value: "['yay', string(claims.email), 'panda'].join(' ')": ${emailVerifiedRule}`],
    [{ claimMappings: { username: { expression: 'claims.?email.orValue("")' } } }, `jwt[0].claimMappings.username.expression: Invalid value: "claims.?email.orValue(\\"\\")": ${emailVerifiedRule}`],
    [{ claimMappings: username, userValidationRules: [{}] }, 'jwt[0].userValidationRules[0].expression: Required value'],
    [{ claimMappings: username, userValidationRules: [{ expression: "user.username == 'foo'" }, { expression: "user.username == 'foo'" }] }, `jwt[0].userValidationRules[1].expression: Duplicate value: "user.username == 'foo'"`],
    [{ claimMappings: username, userValidationRules: [{ expression: 'user.username' }] }, 'jwt[0].userValidationRules[0].expression: Invalid value: "user.username": must evaluate to bool'],
  ];
  for (const [jwt, message] of cases) assert.equal(await refusal(configOf([jwt])), invalid(message), JSON.stringify(jwt));
  // Expressions that do not compile: cel-go's words are not cel-js's, but upstream's frame is.
  assert.match(await refusal(configOf([{ claimMappings: { username: { expression: 'claims.x +' } } }])), /^invalid authentication configuration: jwt\[0\]\.claimMappings\.username\.expression: Invalid value: "claims.x \+": compilation failed: ERROR: <input>/);
  assert.equal(
    await refusal(configOf([{ claimMappings: username, userValidationRules: [{ expression: "user.name == 'x'" }] }])),
    invalid(`jwt[0].userValidationRules[0].expression: Invalid value: "user.name == 'x'": compilation failed: ERROR: <input>:1:5: undefined field 'name'\n | user.name == 'x'\n | ....^`),
  );
  // Using claims.email is fine once claims.email_verified is read anywhere, or for a field that only starts with "email".
  for (const jwt of [
    { claimValidationRules: [{ expression: 'string(claims.email_verified) == "panda"' }], claimMappings: { username: { expression: 'claims.email' } } },
    { claimMappings: { username: { expression: 'claims.email' }, extra: [{ key: 'panda.io/foo', valueExpression: 'claims.?email_verified' }] } },
    { claimMappings: { username: { expression: 'claims.?email_verified.orValue(true) ? claims.email : claims.sub' } } },
    { claimMappings: { username: { expression: 'claims.email_' } } },
    { claimMappings: { username: { expression: 'claims.other.claims.email' } } },
  ]) assert.equal(await refusal(configOf([jwt])), '(accepted)', JSON.stringify(jwt));
});

test('anonymous: conditions only when enabled; a reload may not change it', async () => {
  assert.equal(
    await refusal(configOf([], { anonymous: { enabled: false, conditions: [{ path: '/livez' }] } })),
    invalid('anonymous.conditions: Invalid value: [{"Path":"/livez"}]: enabled should be set to true when conditions are defined'),
  );
  const loaded = await parseAuthenticationConfiguration(configOf([], { anonymous: { enabled: true, conditions: [{ path: '/livez' }] } }), []);
  assert.deepEqual(loaded.anonymous, { enabled: true, conditions: [{ path: '/livez' }] });
  assert.ok(sameAnonymous(loaded.anonymous, { enabled: true, conditions: [{ path: '/livez' }] }));
  assert.ok(!sameAnonymous(loaded.anonymous, undefined));
  assert.ok(!sameAnonymous(loaded.anonymous, { enabled: true, conditions: [] }));
});

// ---- The authenticators the configuration describes, with an issuer served from memory. ----

const key = await (async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' } as JWK };
})();

async function authenticatorOf(jwt: Record<string, unknown>) {
  const [entry] = (await parseAuthenticationConfiguration(configOf([jwt]), [])).jwt;
  const fetchJson = async (url: string) => (url.endsWith('/keys') ? { keys: [key.jwk] } : { issuer, jwks_uri: `${issuer}/keys` });
  const authenticator = jwtAuthenticator(entry!.spec, { signingAlgs: ['RS256'], fetchJson, log: () => {} });
  await authenticator.start();
  return async (claims: Record<string, unknown>): Promise<unknown> => {
    const token = await new SignJWT({ iss: issuer, aud: 'my-client', exp: Math.floor(Date.now() / 1000) + 600, ...claims }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(key.privateKey);
    try {
      return (await authenticator.authenticate(token, undefined))?.user;
    } catch (err) {
      assert.ok(err instanceof AuthenticationFailure, String(err));
      return (err as Error).message;
    }
  };
}

const turtle = {
  foo: {
    1: 'a', 2: 'b', other1: { bit1: true, bit2: false, bit3: 1 },
    bar: { 3: 'c', 4: 'd', other1: { bit1: true, bit2: false, bit3: 1 }, baz: { 5: 'e', 6: 'f', panda: ['snorlax', '007', 'santa', 'claus'], other1: { bit1: true, bit2: false, bit3: 1 } } },
  },
};
const turtleConfig = (groupsExpression: string) => ({
  claimValidationRules: [{ expression: 'claims.turtle.foo.other1.bit1 && !claims.turtle.foo.bar.other1.bit2' }],
  claimMappings: {
    username: { expression: 'claims.turtle.foo.bar.baz.panda[0]' },
    groups: { expression: groupsExpression },
    uid: { expression: 'claims.turtle.foo.bar.baz.panda[1]' },
    extra: [
      { key: 'bio.snorlax.org/1', valueExpression: 'string(claims.turtle.foo.bar.other1.bit2)' },
      { key: 'bio.snorlax.org/2', valueExpression: 'string(claims.turtle.foo.bar.baz.other1.bit3)' },
      { key: 'bio.snorlax.org/3', valueExpression: "[string(claims.turtle.foo.bar.baz.other1.bit1)] + ['a', 'b', 'c']" },
    ],
  },
  userValidationRules: [
    { expression: 'user.username != "bad"' }, { expression: 'user.uid == "007"' }, { expression: '"claus" in user.groups' },
    { expression: 'user.extra["bio.snorlax.org/3"].size() == 4' },
  ],
});
const turtleExtra = { 'bio.snorlax.org/1': ['false'], 'bio.snorlax.org/2': ['1'], 'bio.snorlax.org/3': ['true', 'a', 'b', 'c'] };

test('expressions map deeply nested claims to the user, and the rules check claims and user', async () => {
  let as = await authenticatorOf(turtleConfig('claims.turtle.foo.bar.baz.panda'));
  assert.deepEqual(await as({ turtle }), { name: 'snorlax', uid: '007', groups: ['snorlax', '007', 'santa', 'claus'], extra: turtleExtra });
  as = await authenticatorOf(turtleConfig("claims.turtle.foo.bar.baz.?a.b.c.d.orValue([ 'claus' ])"));
  assert.deepEqual(await as({ turtle }), { name: 'snorlax', uid: '007', groups: ['claus'], extra: turtleExtra });
  as = await authenticatorOf(turtleConfig('claims.turtle.foo.bar.baz.a.b.c.d'));
  assert.equal(await as({ turtle }), "oidc: error evaluating group claim expression: expression 'claims.turtle.foo.bar.baz.a.b.c.d' resulted in error: no such key: a");

  as = await authenticatorOf({ claimMappings: { username: { claim: 'username', prefix: 'oidc:' }, groups: { expression: '(claims.roles.split(",") + claims.other_roles.split(",")).map(role, "groups:" + role)' } } });
  assert.deepEqual(await as({ username: 'jane', roles: 'foo,bar', other_roles: 'baz,qux' }), { name: 'oidc:jane', uid: '', groups: ['groups:foo', 'groups:bar', 'groups:baz', 'groups:qux'] });

  as = await authenticatorOf({ claimMappings: { username: { expression: 'claims.username' }, uid: { claim: 'uid' }, extra: [{ key: 'example.org/foo', valueExpression: 'claims.foo' }, { key: 'example.org/bar', valueExpression: 'claims.bar' }] } });
  // An empty string leaves its key out; a jti is the credential id.
  assert.deepEqual(await as({ username: 'jane', uid: '1234', foo: '', bar: ['baz', 'qux'], jti: 'j1' }), {
    name: 'jane', uid: '1234', groups: [], extra: { 'example.org/bar': ['baz', 'qux'], 'authentication.kubernetes.io/credential-id': ['JTI=j1'] },
  });
  assert.equal(await as({ username: 'jane' }), 'oidc: parse uid claim "uid": claim not present');

  as = await authenticatorOf({
    claimMappings: { username: { expression: 'claims.username' }, extra: [{ key: 'example.org/admin', valueExpression: '(has(claims.is_admin) && claims.is_admin) ? "true":""' }] },
    claimValidationRules: [{ expression: 'claims.hd == "example.com"', message: 'hd claim must be example.com' }, { claim: 'tier', requiredValue: 'gold' }],
  });
  assert.deepEqual(await as({ username: 'jane', hd: 'example.com', tier: 'gold', is_admin: true }), { name: 'jane', uid: '', groups: [], extra: { 'example.org/admin': ['true'] } });
  assert.equal(await as({ username: 'jane', hd: 'example.org', tier: 'gold' }), `oidc: error evaluating claim validation expression: validation expression 'claims.hd == "example.com"' failed: hd claim must be example.com`);
  assert.equal(await as({ username: 'jane', tier: 'gold' }), `oidc: error evaluating claim validation expression: expression 'claims.hd == "example.com"' resulted in error: no such key: hd`);
  // The claim rules are checked before the expressions, as upstream.
  assert.equal(await as({ username: 'jane', hd: 'example.org', tier: 'silver' }), 'oidc: required claim tier value does not match. Got = silver, want = gold');

  as = await authenticatorOf({
    claimMappings: { username: { claim: 'username', prefix: 'system:' } },
    userValidationRules: [{ expression: "!user.username.startsWith('system:')", message: 'username cannot used reserved system: prefix' }],
  });
  assert.equal(await as({ username: 'jane' }), "oidc: error evaluating user info validation rule: validation expression '!user.username.startsWith('system:')' failed: username cannot used reserved system: prefix");

  as = await authenticatorOf({ claimMappings: { username: { expression: 'claims.n' }, groups: { expression: 'claims.groups' } } });
  assert.equal(await as({ n: 5 }), 'oidc: error evaluating username claim expression: username claim expression must return a string');
  assert.equal(await as({ n: 'jane', groups: [1] }), 'oidc: error evaluating group claim expression: expression must return a string or a list of strings');
  // A null groups value names none.
  assert.deepEqual(await as({ n: 'jane', groups: null }), { name: 'jane', uid: '', groups: [] });
});

test('several audiences: a token for any one of them', async () => {
  const as = await authenticatorOf({ issuer: { audiences: ['my-client', 'random-client'], audienceMatchPolicy: 'MatchAny' }, claimMappings: { username: { claim: 'username', prefix: '' } } });
  assert.deepEqual(await as({ username: 'jane', aud: ['random-client', 'x'] }), { name: 'jane', uid: '', groups: [] });
  assert.equal(await as({ username: 'jane', aud: 'not-my-client' }), 'oidc: verify token: oidc: expected audience in ["my-client" "random-client"] got ["not-my-client"]');
});
