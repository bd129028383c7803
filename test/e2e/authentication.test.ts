// Authentication end to end: service-account tokens from `kubectl create token`, client-certificate
// kubeconfigs, `kubectl auth whoami`, `kubectl --as`, tokenreviews and the issuer's discovery documents.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { kubectlAt, kubectlBin } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const kubectl133 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const needsKubectl133 = { skip: existsSync(kubectl133) ? false : `kubectl 1.33 is not installed at ${kubectl133}` };
const needsKubectl = { skip: existsSync(kubectlBin) ? false : `kubectl is not installed at ${kubectlBin}` };

let server: TestServer;
before(async () => {
  server = await startServer({ authorizationModes: ['AlwaysAllow'] });
});
after(async () => {
  await server?.stop();
});

const kubectl = (...args: string[]) => kubectlAt(kubectl133, ['--kubeconfig', server.kubeconfigPath], ...args);

async function whoami(token: string): Promise<any> {
  const res = await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
  return res.status === 201 ? res.json.status.userInfo : res.status;
}

async function newAccount(ns: string, name: string): Promise<string> {
  const res = await server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name } } });
  assert.equal(res.status, 201, res.text);
  return res.json.metadata.uid;
}

describe('service-account tokens', needsKubectl133, () => {
  test('kubectl create token gives a token that authenticates as the account until the account is deleted', async () => {
    const ns = await server.newNamespace('sa-token');
    const uid = await newAccount(ns, 'robot');
    const token = (await kubectl('-n', ns, 'create', 'token', 'robot')).trim();
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    assert.equal(claims.iss, 'https://kubernetes.default.svc.cluster.local');
    assert.deepEqual(claims.aud, ['https://kubernetes.default.svc.cluster.local']);
    assert.equal(claims.sub, `system:serviceaccount:${ns}:robot`);
    assert.equal(claims.exp - claims.iat, 3600);
    assert.deepEqual(claims['kubernetes.io'], { namespace: ns, serviceaccount: { name: 'robot', uid } });

    const user = await whoami(token);
    assert.deepEqual(user, {
      username: `system:serviceaccount:${ns}:robot`, uid,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
    });
    // AlwaysAllow: an authenticated account may do anything.
    assert.equal((await server.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts`, { token })).status, 200);

    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/robot`)).status, 200);
    assert.equal(await whoami(token), 401);
    // The same name again is another account: the old token stays refused.
    await newAccount(ns, 'robot');
    assert.equal(await whoami(token), 401);
  });

  test('TokenRequest: audiences, duration, bound pod; refusals as upstream', async () => {
    const ns = await server.newNamespace('sa-request');
    await newAccount(ns, 'robot');
    const pod = await server.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: { metadata: { name: 'p' }, spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'x' }] } } });
    assert.equal(pod.status, 201, pod.text);
    const url = `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`;
    const post = (spec: object) => server.request('POST', url, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec } });

    const bound = await post({ audiences: ['vault'], expirationSeconds: 600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } });
    assert.equal(bound.status, 201, bound.text);
    assert.equal(bound.json.kind, 'TokenRequest');
    assert.deepEqual(bound.json.spec.audiences, ['vault']);
    const claims = JSON.parse(Buffer.from(bound.json.status.token.split('.')[1], 'base64url').toString());
    assert.deepEqual(claims['kubernetes.io'].pod, { name: 'p', uid: pod.json.metadata.uid });
    assert.equal(claims.exp - claims.iat, 600);
    // Meant for vault, not for the API server.
    assert.equal(await whoami(bound.json.status.token), 401);

    const cases: { name: string; spec: object; status: number; message: string }[] = [
      { name: 'too short', spec: { expirationSeconds: 599 }, status: 422, message: 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes' },
      { name: 'unknown kind', spec: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } }, status: 400, message: 'cannot bind token to object of type /v1, Kind=ConfigMap' },
      { name: 'missing pod', spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nope' } }, status: 404, message: 'pods "nope" not found' },
      { name: 'other pod uid', spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'x' } }, status: 409, message: 'Operation cannot be fulfilled on Pod "p": the UID in the bound object reference (x) does not match the UID in record. The object might have been deleted and then recreated' },
    ];
    for (const c of cases) {
      const res = await post(c.spec);
      assert.equal(res.status, c.status, `${c.name}: ${res.text}`);
      assert.equal(res.json.message, c.message, c.name);
    }
    const missing = await server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/ghost/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.message, 'serviceaccounts "ghost" not found');

    // Deleting the bound pod invalidates the token.
    const podToken = await post({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } });
    assert.equal((await whoami(podToken.json.status.token)).extra['authentication.kubernetes.io/pod-name'][0], 'p');
    assert.equal((await server.request('DELETE', `/api/v1/namespaces/${ns}/pods/p?gracePeriodSeconds=0`)).status, 200);
    assert.equal(await whoami(podToken.json.status.token), 401);
  });

  test('tokenreviews answer as upstream for good, foreign-audience and bad tokens', async () => {
    const ns = await server.newNamespace('sa-review');
    const uid = await newAccount(ns, 'robot');
    const token = (await kubectl('-n', ns, 'create', 'token', 'robot', '--audience', 'vault')).trim();
    const review = async (spec: object) => {
      const res = await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec } });
      assert.equal(res.status, 201, res.text);
      return res.json.status;
    };
    const good = await review({ token, audiences: ['vault'] });
    assert.equal(good.authenticated, true);
    assert.deepEqual(good.audiences, ['vault']);
    assert.equal(good.user.username, `system:serviceaccount:${ns}:robot`);
    assert.equal(good.user.uid, uid);
    const wrongAudience = await review({ token });
    assert.equal(wrongAudience.authenticated, undefined, 'false is omitted, as Go writes it');
    assert.match(wrongAudience.error, /token audiences \["vault"\] is invalid for the target audiences \["https:\/\/kubernetes.default.svc.cluster.local"\]/);
    const bad = await review({ token: 'nope' });
    assert.deepEqual(bad, { user: {}, error: 'invalid bearer token' });
    const admin = await review({ token: server.token });
    assert.equal(admin.user.username, 'admin');
    const empty = await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {} } });
    assert.equal(empty.status, 400);
    assert.equal(empty.json.message, 'token is required for TokenReview in authentication');
  });
});

describe('TokenRequest with values of the wrong type', () => {
  const decodeError = (what: string, field: string, type: string) =>
    `TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal ${what} into Go struct field ${field} of type ${type}`;
  const ref = (fields: object) => ({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', ...fields } });
  const rows: { name: string; spec: unknown; message: string }[] = [
    { name: 'boundObjectRef.apiVersion a number', spec: ref({ apiVersion: 5 }), message: decodeError('number', 'BoundObjectReference.spec.boundObjectRef.apiVersion', 'string') },
    { name: 'boundObjectRef.kind a bool', spec: ref({ kind: true }), message: decodeError('bool', 'BoundObjectReference.spec.boundObjectRef.kind', 'string') },
    { name: 'boundObjectRef.name a list', spec: ref({ name: [] }), message: decodeError('array', 'BoundObjectReference.spec.boundObjectRef.name', 'string') },
    { name: 'boundObjectRef.uid an object', spec: ref({ uid: {} }), message: decodeError('object', 'BoundObjectReference.spec.boundObjectRef.uid', 'types.UID') },
    { name: 'boundObjectRef a string', spec: { boundObjectRef: 'p' }, message: decodeError('string', 'TokenRequestSpec.spec.boundObjectRef', 'v1.BoundObjectReference') },
    { name: 'audiences a string', spec: { audiences: 'vault' }, message: decodeError('string', 'TokenRequestSpec.spec.audiences', '[]string') },
    { name: 'audiences with a number in it', spec: { audiences: ['vault', 1] }, message: decodeError('number', 'TokenRequestSpec.spec.audiences', 'string') },
    { name: 'expirationSeconds a string', spec: { expirationSeconds: '3600' }, message: decodeError('string', 'TokenRequestSpec.spec.expirationSeconds', 'int64') },
    { name: 'expirationSeconds a fraction', spec: { expirationSeconds: 3600.5 }, message: decodeError('number 3600.5', 'TokenRequestSpec.spec.expirationSeconds', 'int64') },
    { name: 'expirationSeconds a bool', spec: { expirationSeconds: true }, message: decodeError('bool', 'TokenRequestSpec.spec.expirationSeconds', 'int64') },
    { name: 'spec a list', spec: [], message: decodeError('array', 'TokenRequest.spec', 'v1.TokenRequestSpec') },
    { name: 'the first wrong value is the one named', spec: { expirationSeconds: 'x', ...ref({ apiVersion: 5 }) }, message: decodeError('string', 'TokenRequestSpec.spec.expirationSeconds', 'int64') },
  ];
  for (const row of rows) {
    test(`${row.name} is 400`, async () => {
      const ns = await server.newNamespace('sa-decode');
      await newAccount(ns, 'robot');
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: row.spec } });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.json.kind, 'Status');
      assert.equal(res.json.message, row.message);
    });
  }

  test('the body is decoded before the account is looked up', async () => {
    const res = await server.request('POST', '/api/v1/namespaces/default/serviceaccounts/ghost/token', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: ref({ apiVersion: 5 }) } });
    assert.equal(res.status, 400, res.text);
  });

  test('null members are unset', async () => {
    const ns = await server.newNamespace('sa-decode');
    await newAccount(ns, 'robot');
    const res = await server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: null, expirationSeconds: null, boundObjectRef: null } } });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.spec, { audiences: ['https://kubernetes.default.svc.cluster.local'], expirationSeconds: 3600, boundObjectRef: null });
  });
});

test('a TokenReview whose audiences or token are of the wrong type is 400, not echoed', async () => {
  const review = (spec: unknown) => server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec } });
  const decodeError = (what: string, field: string, type: string) =>
    `TokenReview in version "v1" cannot be handled as a TokenReview: json: cannot unmarshal ${what} into Go struct field ${field} of type ${type}`;
  for (const [spec, message] of [
    [{ token: 'abc', audiences: 1.5 }, decodeError('number', 'TokenReviewSpec.spec.audiences', '[]string')],
    [{ token: 'abc', audiences: ['a', true] }, decodeError('bool', 'TokenReviewSpec.spec.audiences', 'string')],
    [{ token: 5 }, decodeError('number', 'TokenReviewSpec.spec.token', 'string')],
  ] as const) {
    const res = await review(spec);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.json.message, message);
  }
});

describe('who is asking', needsKubectl133, () => {
  test('kubectl auth whoami shows the admin of the token kubeconfig', async () => {
    const out = await kubectl('auth', 'whoami', '-o', 'json');
    assert.deepEqual(JSON.parse(out).status.userInfo, { username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] });
  });

  test('kubectl works with a client-certificate kubeconfig (the admin certificate in the data dir)', async () => {
    const cert = server.adminCertificate!;
    const kubeconfig = path.join(server.dataDir, 'cert.kubeconfig');
    writeFileSync(kubeconfig, stringify({
      apiVersion: 'v1', kind: 'Config', 'current-context': 'c',
      clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caPem).toString('base64') } }],
      users: [{ name: 'c', user: { 'client-certificate-data': Buffer.from(cert.certPem).toString('base64'), 'client-key-data': Buffer.from(cert.keyPem).toString('base64') } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'c' } }],
    }), { mode: 0o600 });
    const user = JSON.parse(await kubectlAt(kubectl133, ['--kubeconfig', kubeconfig], 'auth', 'whoami', '-o', 'json')).status.userInfo;
    assert.equal(user.username, 'kubernetes-admin');
    assert.deepEqual(user.groups, ['system:masters', 'system:authenticated']);
    assert.match(user.extra['authentication.kubernetes.io/credential-id'][0], /^X509SHA256=[0-9a-f]{64}$/);
    assert.match(await kubectlAt(kubectl133, ['--kubeconfig', kubeconfig], 'get', 'namespaces', 'default', '-o', 'name'), /namespace\/default/);
  });

  test('kubectl --as and --as-group act as the impersonated user', async () => {
    const out = await kubectl('auth', 'whoami', '-o', 'json', '--as', 'jane', '--as-group', 'dev', '--as-group', 'ops', '--as-uid', 'u-1');
    assert.deepEqual(JSON.parse(out).status.userInfo, { username: 'jane', uid: 'u-1', groups: ['dev', 'ops', 'system:authenticated'] });
    const sa = JSON.parse(await kubectl('auth', 'whoami', '-o', 'json', '--as', 'system:serviceaccount:default:default')).status.userInfo;
    assert.deepEqual(sa.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
  });

  test('impersonation headers without a user are refused', async () => {
    const res = await server.request('GET', '/api/v1/namespaces', { headers: { 'impersonate-group': 'dev' } });
    assert.equal(res.status, 400);
    assert.equal(res.json.message, 'requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"dev"}, Extra:map[string][]string(nil)} without impersonating a user name');
  });
});

describe('the ServiceAccount admission plugin', () => {
  test('pods get the projected token volume in every container, unless automount is off', async () => {
    const ns = await server.newNamespace('sa-volume');
    const create = async (name: string, spec: object) => {
      const res = await server.request('POST', `/api/v1/namespaces/${ns}/pods?fieldManager=kubectl-create`, { body: { metadata: { name }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } } });
      assert.equal(res.status, 201, res.text);
      managedFields = res.json.metadata.managedFields;
      return res.json.spec;
    };
    let managedFields: any;
    const spec = await create('mounted', { initContainers: [{ name: 'i', image: 'x' }] });
    // What admission adds is no one's: upstream records the writer's fields before it.
    const owned = managedFields[0].fieldsV1['f:spec'];
    assert.equal(owned['f:volumes'], undefined);
    assert.equal(owned['f:serviceAccountName'], undefined);
    assert.equal(owned['f:containers']['k:{"name":"c"}']['f:volumeMounts'], undefined);
    assert.deepEqual(owned['f:containers']['k:{"name":"c"}']['f:image'], {}, 'the writer\'s own fields are');
    const volume = spec.volumes.find((v: any) => v.name.startsWith('kube-api-access-'));
    assert.match(volume.name, /^kube-api-access-[a-z0-9]{5}$/);
    assert.deepEqual(volume.projected, {
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    });
    for (const container of [...spec.initContainers, ...spec.containers]) {
      assert.deepEqual(container.volumeMounts, [{ name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    }
    assert.equal((await create('off', { automountServiceAccountToken: false })).volumes, undefined);
    const account = await server.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name: 'quiet' }, automountServiceAccountToken: false } });
    assert.equal(account.status, 201);
    assert.equal((await create('quiet', { serviceAccountName: 'quiet' })).volumes, undefined);
  });
});

describe('anonymous requests and discovery of the issuer', () => {
  test('requests without credentials reach only the public paths (AlwaysAllow); bad credentials are 401', async () => {
    assert.equal((await server.request('GET', '/version', { anonymous: true })).status, 200);
    assert.equal((await server.request('GET', '/api', { anonymous: true })).status, 401);
    assert.equal((await server.request('GET', '/version', { token: 'wrong' })).status, 401);
  });

  test('/.well-known/openid-configuration and /openid/v1/jwks describe the issuer and its keys', async () => {
    const config = await server.request('GET', '/.well-known/openid-configuration');
    assert.equal(config.status, 200, config.text);
    assert.equal(config.headers['content-type'], 'application/json');
    assert.deepEqual(config.json, {
      issuer: 'https://kubernetes.default.svc.cluster.local',
      jwks_uri: `${server.url}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwks = await server.request('GET', '/openid/v1/jwks');
    assert.equal(jwks.status, 200);
    assert.equal(jwks.headers['content-type'], 'application/jwk-set+json');
    assert.equal(jwks.json.keys.length, 1);
    assert.deepEqual(Object.keys(jwks.json.keys[0]), ['use', 'kty', 'kid', 'alg', 'n', 'e']);
    // A token's kid names the published key.
    const token = (await server.request('POST', '/api/v1/namespaces/default/serviceaccounts/default/token', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } })).json.status.token;
    assert.equal(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid, jwks.json.keys[0].kid);
    assert.equal((await server.request('GET', '/openid/v1/jwks', { anonymous: true })).status, 401);
  });
});

describe('kubectl 1.32', needsKubectl, () => {
  test('kubectl create token and get with it', async () => {
    const token = (await kubectlAt(kubectlBin, ['--kubeconfig', server.kubeconfigPath], '-n', 'default', 'create', 'token', 'default')).trim();
    const out = await kubectlAt(kubectlBin, ['--server', server.url, '--certificate-authority', path.join(server.dataDir, 'pki', 'ca.crt'), '--token', token], 'get', 'namespace', 'default', '-o', 'name');
    assert.equal(out.trim(), 'namespace/default');
  });
});
