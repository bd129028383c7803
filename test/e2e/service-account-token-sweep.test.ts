// Service-account tokens against kube-apiserver v1.36, bad input and exact answers: POST
// serviceaccounts/<name>/token (the CreateOptions, dry run, the bound object's apiVersion and
// name, the answer's metadata and spec, the claims written and the audit note of the token's
// id), tokenreviews (status and spec as Go writes them), selfsubjectreviews (a new object),
// and the bound-token validator's order of checks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  AuthenticationFailure, issueServiceAccountToken, keyIdOf, serviceAccountTokenAuthenticator,
  type BoundObject, type ServiceAccountKeys, type SigningKey,
} from '../../src/auth/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { legacyRobotToken } from '../helpers/legacy-token.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';
import { patch, startWebhookServer } from '../helpers/webhook-server.ts';

let server: TestServer;
before(async () => {
  server = await startServer({ authorizationModes: ['AlwaysAllow'] });
});
after(async () => {
  await server?.stop();
});

const tokenRequest = (spec: object, metadata: object = {}) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata, spec });
const tokenReview = (spec: object, metadata: object = {}) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata, spec });
const selfSubjectReview = (metadata: object = {}) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata });
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

async function account(ns: string, name = 'robot'): Promise<string> {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } } });
  assert.equal(res.status, 201, res.text);
  return res.json.metadata.uid;
}

async function pod(ns: string, name: string, spec: object = {}): Promise<string> {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'nginx' }], ...spec } } });
  assert.equal(res.status, 201, res.text);
  return res.json.metadata.uid;
}

const requestToken = (ns: string, spec: object, opts: { query?: string; metadata?: object } = {}) =>
  server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/robot/token${opts.query ?? ''}`, { body: tokenRequest(spec, opts.metadata) });

describe('CreateOptions are checked as upstream\'s create handler checks them: 422 before the body is read', () => {
  const rows: { name: string; query: string; message: string }[] = [
    { name: 'a dryRun other than All', query: '?dryRun=Foo', message: 'dryRun: Unsupported value: []string{"Foo"}: supported values: "All"' },
    { name: 'an unknown fieldValidation', query: '?fieldValidation=Bogus', message: 'fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"' },
  ];
  const targets: { name: string; path: (ns: string) => string; body: object }[] = [
    { name: 'serviceaccounts/token', path: (ns) => `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, body: tokenRequest({}) },
    { name: 'tokenreviews', path: () => '/apis/authentication.k8s.io/v1/tokenreviews', body: tokenReview({ token: 'x' }) },
    { name: 'selfsubjectreviews', path: () => '/apis/authentication.k8s.io/v1/selfsubjectreviews', body: selfSubjectReview() },
  ];
  for (const target of targets) {
    for (const row of rows) {
      test(`${target.name}: ${row.name} is 422`, async () => {
        const ns = await server.newNamespace('sa-options');
        await account(ns);
        const res = await server.request('POST', `${target.path(ns)}${row.query}`, { body: target.body });
        assert.equal(res.status, 422, res.text);
        assert.equal(res.json.reason, 'Invalid');
        assert.equal(res.json.message, `CreateOptions.meta.k8s.io "" is invalid: ${row.message}`);
      });
    }
  }
});

test('a dry-run TokenRequest still issues a token (TokenREST stores nothing), and admission is told it is a dry run', async () => {
  const ns = await server.newNamespace('sa-dry-run');
  await account(ns);
  const dry = await requestToken(ns, {}, { query: '?dryRun=All' });
  assert.equal(dry.status, 201, dry.text);
  const review = await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: tokenReview({ token: dry.json.status.token }) });
  assert.equal(review.json.status.authenticated, true, review.text);

  await server.request('PATCH', `/api/v1/namespaces/${ns}`, { raw: JSON.stringify({ metadata: { labels: { sweep: ns } } }), headers: { 'content-type': 'application/merge-patch+json' } });
  const policy = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { body: {
    metadata: { name: `no-dry-tokens-${ns}` },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['serviceaccounts/token'] }], namespaceSelector: { matchLabels: { sweep: ns } } },
      validations: [{ expression: '!request.dryRun', message: 'no dry runs' }],
    },
  } });
  assert.equal(policy.status, 201, policy.text);
  const binding = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { body: {
    metadata: { name: `no-dry-tokens-${ns}` }, spec: { policyName: `no-dry-tokens-${ns}`, validationActions: ['Deny'] },
  } });
  assert.equal(binding.status, 201, binding.text);
  await eventually(async () => {
    const refused = await requestToken(ns, {}, { query: '?dryRun=All' });
    assert.equal(refused.status, 422, refused.text);
    assert.match(refused.json.message, /no dry runs/);
  });
  assert.equal((await requestToken(ns, {})).status, 201);
});

test('TokenREST reads the TokenRequest as mutating admission left it', async () => {
  const ns = await server.newNamespace('sa-mutated');
  await account(ns);
  const hooks = await startWebhookServer();
  const name = `longer-tokens-${ns}`;
  try {
    hooks.handle('/longer', (review) => {
      assert.equal(review.request.subResource, 'token');
      return patch([{ op: 'add', path: '/spec/expirationSeconds', value: 1800 }, { op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }]);
    });
    const config = await server.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', { body: {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name },
      webhooks: [{
        name: 'longer.tokens.example.com', clientConfig: { url: `${hooks.url}/longer`, caBundle: hooks.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['serviceaccounts/token'] }],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } }, sideEffects: 'None', admissionReviewVersions: ['v1'],
      }],
    } });
    assert.equal(config.status, 201, config.text);
    await eventually(async () => {
      const res = await requestToken(ns, { expirationSeconds: 600 });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json.spec.expirationSeconds, 1800);
      assert.deepEqual(res.json.metadata.labels, { mutated: 'yes' });
      const claims = claimsOf(res.json.status.token);
      assert.equal(claims.exp - claims.iat, 1800);
    });
  } finally {
    await server.request('DELETE', `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${name}`);
    await hooks.close();
  }
});

describe('the bound object\'s apiVersion is read as upstream\'s schema.FromAPIVersionAndKind: only the group counts', () => {
  const rows: { name: string; ref: object; status: number; message?: string; bound?: 'pod' | 'secret' }[] = [
    { name: 'an apiVersion with two slashes names no group: the Pod is bound', ref: { kind: 'Pod', apiVersion: 'a/b/c', name: 'p' }, status: 201, bound: 'pod' },
    { name: 'an apiVersion with two slashes is left out of the refusal', ref: { kind: 'ConfigMap', apiVersion: 'a/b/c', name: 'x' }, status: 400, message: 'cannot bind token to object of type /, Kind=ConfigMap' },
    { name: 'another version of the core group binds the Pod', ref: { kind: 'Pod', apiVersion: 'v2', name: 'p' }, status: 201, bound: 'pod' },
    { name: 'no apiVersion binds the Secret', ref: { kind: 'Secret', name: 's' }, status: 201, bound: 'secret' },
    { name: 'a Pod of another group is refused', ref: { kind: 'Pod', apiVersion: 'apps/v1', name: 'p' }, status: 400, message: 'cannot bind token to object of type apps/v1, Kind=Pod' },
    { name: 'an empty reference is refused', ref: {}, status: 400, message: 'cannot bind token to object of type /, Kind=' },
  ];
  for (const row of rows) {
    test(`${row.name}: ${row.status}`, async () => {
      const ns = await server.newNamespace('sa-ref-version');
      await account(ns);
      const podUid = await pod(ns, 'p');
      const secret = await server.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } } });
      assert.equal(secret.status, 201, secret.text);
      const res = await requestToken(ns, { boundObjectRef: row.ref });
      assert.equal(res.status, row.status, res.text);
      if (row.message !== undefined) assert.equal(res.json.message, row.message);
      if (row.bound === 'pod') assert.deepEqual(claimsOf(res.json.status.token)['kubernetes.io'].pod, { name: 'p', uid: podUid });
      if (row.bound === 'secret') assert.deepEqual(claimsOf(res.json.status.token)['kubernetes.io'].secret, { name: 's', uid: secret.json.metadata.uid });
    });
  }
});

describe('the bound object\'s name is refused as the registry\'s key function refuses it: 400 before any lookup', () => {
  const names: { name: string; message: string }[] = [
    { name: '', message: 'Name parameter required.' },
    { name: '..', message: 'Name parameter invalid: "..": may not be \'..\'' },
    { name: 'a/b', message: 'Name parameter invalid: "a/b": may not contain \'/\'' },
    { name: 'a%b', message: 'Name parameter invalid: "a%b": may not contain \'%\'' },
  ];
  for (const kind of ['Pod', 'Secret', 'Node']) {
    for (const row of names) {
      test(`${kind} named ${JSON.stringify(row.name)}`, async () => {
        const ns = await server.newNamespace('sa-ref-name');
        await account(ns);
        const res = await requestToken(ns, { boundObjectRef: { kind, apiVersion: 'v1', name: row.name } });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json.reason, 'BadRequest');
        assert.equal(res.json.message, row.message);
      });
    }
  }
});

test('the TokenRequest answer keeps the request\'s metadata, sets the account\'s name, namespace and uid, and writes an absent boundObjectRef as null', async () => {
  const ns = await server.newNamespace('sa-answer');
  const uid = await account(ns);
  const res = await requestToken(ns, { expirationSeconds: 1200 }, { metadata: { labels: { team: 'a' }, annotations: { note: 'b' } } });
  assert.equal(res.status, 201, res.text);
  const { creationTimestamp, ...metadata } = res.json.metadata;
  assert.deepEqual(metadata, { name: 'robot', namespace: ns, uid, labels: { team: 'a' }, annotations: { note: 'b' } });
  assert.deepEqual(Object.keys(res.json.metadata), ['name', 'namespace', 'uid', 'creationTimestamp', 'labels', 'annotations'], 'Go\'s order');
  assert.deepEqual(res.json.spec, { audiences: ['https://kubernetes.default.svc.cluster.local'], expirationSeconds: 1200, boundObjectRef: null });
  assert.equal((Date.parse(res.json.status.expirationTimestamp) - Date.parse(creationTimestamp)) / 1000, 1200);
  const claims = claimsOf(res.json.status.token);
  assert.equal(claims.exp - claims.iat, 1200);
});

test('a token\'s kubernetes.io claims are written as go-jose writes them: keys sorted, an unknown uid left out', async () => {
  const ns = await server.newNamespace('sa-claims');
  const uid = await account(ns);
  // The pod runs on a node that has no Node object: the token names the node by its name alone.
  const podUid = await pod(ns, 'p', { nodeName: `ghost-${ns}` });
  const res = await requestToken(ns, { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } });
  assert.equal(res.status, 201, res.text);
  const claims = claimsOf(res.json.status.token);
  assert.deepEqual(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
  assert.deepEqual(Object.keys(claims['kubernetes.io']), ['namespace', 'node', 'pod', 'serviceaccount']);
  assert.deepEqual(claims['kubernetes.io'], { namespace: ns, node: { name: `ghost-${ns}` }, pod: { name: 'p', uid: podUid }, serviceaccount: { name: 'robot', uid } });
  const review = await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: tokenReview({ token: res.json.status.token }) });
  assert.deepEqual(review.json.status.user.extra, {
    'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`],
    'authentication.kubernetes.io/node-name': [`ghost-${ns}`],
    'authentication.kubernetes.io/pod-name': ['p'],
    'authentication.kubernetes.io/pod-uid': [podUid],
  });
});

test('a reviewed user\'s extra keys are written sorted, as Go writes a map', async () => {
  const ns = await server.newNamespace('sa-extra');
  await account(ns);
  const node = await server.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${ns}` } } });
  assert.equal(node.status, 201, node.text);
  await pod(ns, 'p', { nodeName: `node-${ns}` });
  const { token } = (await requestToken(ns, { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } })).json.status;
  const sorted = [
    'authentication.kubernetes.io/credential-id', 'authentication.kubernetes.io/node-name', 'authentication.kubernetes.io/node-uid',
    'authentication.kubernetes.io/pod-name', 'authentication.kubernetes.io/pod-uid',
  ];
  const review = await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: tokenReview({ token }) });
  assert.deepEqual(Object.keys(review.json.status.user.extra), sorted);
  const whoami = await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token, body: selfSubjectReview() });
  assert.deepEqual(Object.keys(whoami.json.status.userInfo.extra), sorted);
  const impersonated = await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    headers: { 'impersonate-user': 'jane', 'impersonate-extra-zeta': 'z', 'impersonate-extra-alpha': 'a' }, body: selfSubjectReview(),
  });
  assert.equal(impersonated.status, 201, impersonated.text);
  assert.deepEqual(Object.keys(impersonated.json.status.userInfo.extra), ['alpha', 'zeta']);
});

describe('TokenReview answers as Go writes the TokenReview', () => {
  test('a refused token: `authenticated` left out (false), `user` written empty, the error', async () => {
    const res = await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: tokenReview({ token: 'nope', audiences: [] }) });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.status, { user: {}, error: 'invalid bearer token' });
    assert.deepEqual(res.json.spec, { token: 'nope' }, 'an empty audiences list is omitted');
  });

  test('a token bound to a deleted pod: its words, not authenticated', async () => {
    const ns = await server.newNamespace('sa-review-deleted');
    await account(ns);
    await pod(ns, 'p');
    const { token } = (await requestToken(ns, { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } })).json.status;
    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/p?gracePeriodSeconds=0`)).status, 200);
    const res = await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: tokenReview({ token }) });
    // The request authenticator's words (the bearer token's refusal joined with the validator's).
    assert.deepEqual(res.json.status, { user: {}, error: '[invalid bearer token, service account token has been invalidated]' });
  });

  test('the metadata sent comes back but for the system fields the create handler wipes', async () => {
    const res = await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: tokenReview({ token: server.token }, { labels: { a: 'b' }, resourceVersion: '5', uid: 'u', name: 'n', creationTimestamp: '2020-01-01T00:00:00Z' }),
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.metadata, { name: 'n', resourceVersion: '5', labels: { a: 'b' } });
    assert.deepEqual(Object.keys(res.json.metadata), ['name', 'resourceVersion', 'labels']);
    assert.equal(res.json.status.authenticated, true);
  });

  test('a legacy Secret-based token: reviewed as the validator allows it, its Secret labelled with the day of use, no warning', async () => {
    const dataDir = tempDir('plinth-sa-sweep-legacy-');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keyFile = path.join(dataDir, 'sa.key');
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const legacy = await startServer({ dataDir, serviceAccountSigningKeyFile: keyFile, serviceAccountKeyFiles: [keyFile], authorizationModes: ['AlwaysAllow'] });
    try {
      const ns = await legacy.newNamespace('legacy');
      const { token, uid } = await legacyRobotToken(legacy, privateKey, ns);
      const res = await legacy.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: tokenReview({ token }) });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.json.status, {
        authenticated: true,
        user: { username: `system:serviceaccount:${ns}:robot`, uid, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'] },
        audiences: ['https://kubernetes.default.svc.cluster.local'],
      });
      assert.equal(res.headers.warning, undefined);
      const secret = (await legacy.request('GET', `/api/v1/namespaces/${ns}/secrets/robot-token`)).json;
      assert.equal(secret.metadata.labels['kubernetes.io/legacy-token-last-used'], new Date().toISOString().slice(0, 10));
    } finally {
      await legacy.stop();
    }
  });
});

test('a SelfSubjectReview is a new object: none of the request\'s metadata, created now', async () => {
  const before = Date.now() - 1000;
  const res = await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { body: selfSubjectReview({ name: 'x', labels: { a: 'b' }, annotations: { c: 'd' } }) });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(Object.keys(res.json.metadata), ['creationTimestamp']);
  assert.ok(Date.parse(res.json.metadata.creationTimestamp) >= before);
  assert.equal(res.json.status.userInfo.username, 'admin');
});

test('the TokenRequest\'s audit event notes the issued token\'s id (ServiceAccountTokenJTI)', async () => {
  const dataDir = tempDir('plinth-sa-sweep-audit-');
  const policy = path.join(dataDir, 'policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n');
  const auditLog = path.join(dataDir, 'audit.log');
  const audited = await startServer({ dataDir, auditPolicyFile: policy, auditLogPath: auditLog, authorizationModes: ['AlwaysAllow'] });
  try {
    const res = await audited.request('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { body: tokenRequest({}) });
    assert.equal(res.status, 201, res.text);
    const { jti } = claimsOf(res.json.status.token);
    const event = await eventually(() => {
      const found = readFileSync(auditLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line)).find((e) => e.auditID === res.headers['audit-id'] && e.stage === 'ResponseComplete');
      assert.ok(found !== undefined);
      return found;
    });
    assert.equal(event.annotations['authentication.kubernetes.io/issued-credential-id'], `JTI=${jti}`);
  } finally {
    await audited.stop();
  }
});

test('the issuer\'s JWK Set writes an EC key\'s members in go-jose\'s order (crv before alg)', async () => {
  const dataDir = tempDir('plinth-sa-sweep-ec-');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyFile = path.join(dataDir, 'sa-ec.key');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const ec = await startServer({ dataDir, serviceAccountSigningKeyFile: keyFile, authorizationModes: ['AlwaysAllow'] });
  try {
    const jwks = await ec.request('GET', '/openid/v1/jwks');
    assert.equal(jwks.status, 200, jwks.text);
    assert.deepEqual(Object.keys(jwks.json.keys[0]), ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y']);
    assert.equal(jwks.json.keys[0].alg, 'ES256');
  } finally {
    await ec.stop();
  }
});

describe('the bound-token validator checks as upstream\'s: not before, then expiry; a bound object\'s uid before its deletion', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signing: SigningKey = { privateKey, key: publicKey, keyId: keyIdOf(publicKey), algorithm: 'RS256' };
  const keys: ServiceAccountKeys = { signing, verification: [signing] };
  const issuer = 'https://kubernetes.default.svc.cluster.local';
  const now = Date.parse('2030-01-01T00:00:00Z');
  const longAgo = new Date(now - 3600_000).toISOString();
  const request = { namespace: 'ns', serviceAccount: { name: 'robot', uid: 'sa-1' }, audiences: [issuer], expirationSeconds: 3600 };
  const outcome = async (token: string, objects: { pod?: BoundObject; secret?: BoundObject; node?: BoundObject }) => {
    const authenticate = serviceAccountTokenAuthenticator({
      issuers: [issuer], keys: async () => keys, apiAudiences: [issuer], now: () => now,
      getter: { serviceAccount: async () => ({ uid: 'sa-1' }), pod: async () => objects.pod, secret: async () => objects.secret, node: async () => objects.node },
    });
    try {
      return (await authenticate(token, undefined))?.user.name ?? 'not ours';
    } catch (err) {
      if (err instanceof AuthenticationFailure) return err.message;
      throw err;
    }
  };

  test('a token not valid yet and already expired is "not valid yet"', async () => {
    // Issued an hour ahead for minus two hours: nbf in the future, exp in the past.
    const { token } = await issueServiceAccountToken(signing, issuer, { ...request, expirationSeconds: -7200 }, now + 3600_000);
    assert.equal(await outcome(token, {}), 'service account token is not valid yet');
  });

  const rows: { name: string; bind: object; objects: { pod?: BoundObject; secret?: BoundObject; node?: BoundObject }; expected: string }[] = [
    { name: 'a pod recreated and being deleted', bind: { pod: { name: 'p', uid: 'pod-1' } }, objects: { pod: { uid: 'pod-2', deletionTimestamp: longAgo } }, expected: 'pod UID (pod-2) does not match service account pod ref claim (pod-1)' },
    { name: 'a secret recreated and being deleted', bind: { secret: { name: 's', uid: 'secret-1' } }, objects: { secret: { uid: 'secret-2', deletionTimestamp: longAgo } }, expected: 'secret UID (secret-2) does not match service account secret ref claim (secret-1)' },
    { name: 'a node recreated and being deleted', bind: { node: { name: 'n', uid: 'node-1' } }, objects: { node: { uid: 'node-2', deletionTimestamp: longAgo } }, expected: 'node UID (node-2) does not match service account node ref claim (node-1)' },
    { name: 'the same pod, deleted long enough ago', bind: { pod: { name: 'p', uid: 'pod-1' } }, objects: { pod: { uid: 'pod-1', deletionTimestamp: longAgo } }, expected: 'service account token has been invalidated' },
  ];
  for (const row of rows) {
    test(`${row.name}: ${row.expected}`, async () => {
      const { token } = await issueServiceAccountToken(signing, issuer, { ...request, ...row.bind }, now);
      assert.equal(await outcome(token, row.objects), row.expected);
    });
  }
});
