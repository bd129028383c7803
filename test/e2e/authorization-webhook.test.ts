// Webhook authorization end to end, against an HTTPS webhook with its own CA described by a
// kubeconfig: the legacy flags (`--authorization-mode Webhook,RBAC` and
// `--authorization-webhook-*`) and an AuthorizationConfiguration (`--authorization-config`:
// match conditions, failure policy, the file followed as it changes). The SubjectAccessReview
// the webhook gets, its decisions and reasons, the cache, a webhook that fails, and /metrics.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ensureServingMaterial } from '../../src/server/tls-material.ts';
import { startServer, tempDir } from '../helpers/server.ts';

const dir = tempDir('plinth-authz-webhook-');
const tokens = { admin: 'admin-token-1', alice: 'alice-token-1', bob: 'bob-token-1', mallory: 'mallory-token-1' };
const tokenFile = path.join(dir, 'tokens.csv');
writeFileSync(tokenFile, `${tokens.admin},admin,admin,"system:masters"\n${tokens.alice},alice,alice-uid,"dev,qa"\n${tokens.bob},bob,bob-uid\n${tokens.mallory},mallory,mallory-uid\n`);

interface Received { url: string; authorization: string | undefined; body: { apiVersion: string; kind: string; spec: Record<string, any> } }
let webhook: https.Server;
let received: Received[] = [];
/** What the webhook answers; a number is an error status with a plain body. */
let decide: (spec: Record<string, any>) => Record<string, unknown> | number = () => ({ allowed: false });
let kubeconfig = '';

before(async () => {
  const material = await ensureServingMaterial(dir);
  webhook = https.createServer({ cert: material.certPem, key: material.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received['body'];
      received.push({ url: req.url ?? '', authorization: req.headers.authorization, body });
      const status = decide(body.spec);
      if (typeof status === 'number') {
        res.writeHead(status, { 'content-type': 'text/plain' }).end('no');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: body.apiVersion, kind: 'SubjectAccessReview', status }));
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  const port = (webhook.address() as AddressInfo).port;
  kubeconfig = path.join(dir, 'authz-webhook.kubeconfig');
  writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config',
    'clusters:', '- name: authz', '  cluster:', `    server: https://127.0.0.1:${port}/authorize`, `    certificate-authority-data: ${Buffer.from(material.caPem).toString('base64')}`,
    'users:', '- name: apiserver', '  user:', '    token: webhook-secret',
    'contexts:', '- name: webhook', '  context: {cluster: authz, user: apiserver}', 'current-context: webhook', '',
  ].join('\n'));
});
after(() => {
  webhook?.close();
});

/** alice may read ConfigMaps, mallory is denied everything, anyone else has no opinion from the webhook. */
function policy(spec: Record<string, any>): Record<string, unknown> {
  if (spec.user === 'mallory') return { allowed: false, denied: true, reason: 'mallory is banned' };
  if (spec.user === 'alice' && spec.resourceAttributes?.resource === 'configmaps') return { allowed: true, reason: 'alice reads configmaps' };
  return { allowed: false, reason: 'the webhook has no opinion' };
}

test('--authorization-mode Webhook,RBAC: the webhook is asked first, its answers cached; system:masters never asks it', async () => {
  received = [];
  decide = policy;
  const server = await startServer({
    tokenAuthFile: tokenFile, authorizationModes: ['Webhook', 'RBAC'],
    authorizationWebhook: { configFile: kubeconfig, version: 'v1beta1', authorizedTtlMs: 300_000, unauthorizedTtlMs: 30_000 },
  });
  try {
    const list = (token: string, ns = 'default') => server.request('GET', `/api/v1/namespaces/${ns}/configmaps?labelSelector=app%3Dweb`, { token });
    assert.equal((await list(tokens.alice)).status, 200);
    assert.equal(received.length, 1);
    const [first] = received;
    assert.equal(first!.url, '/authorize?timeout=30s');
    assert.equal(first!.authorization, 'Bearer webhook-secret');
    assert.equal(first!.body.apiVersion, 'authorization.k8s.io/v1beta1');
    assert.equal(first!.body.kind, 'SubjectAccessReview');
    // v1beta1 names the groups `group`; the label selector goes as requirements.
    assert.deepEqual(first!.body.spec, {
      resourceAttributes: { namespace: 'default', verb: 'list', version: 'v1', resource: 'configmaps', labelSelector: { requirements: [{ key: 'app', operator: 'In', values: ['web'] }] } },
      user: 'alice', group: ['dev', 'qa', 'system:authenticated'], uid: 'alice-uid',
    });
    // The same request again: answered from the cache.
    assert.equal((await list(tokens.alice)).status, 200);
    assert.equal(received.length, 1);

    const denied = await list(tokens.mallory);
    assert.equal(denied.status, 403);
    assert.equal(denied.json.message, 'configmaps is forbidden: User "mallory" cannot list resource "configmaps" in API group "" in the namespace "default": mallory is banned');
    // No opinion: RBAC decides (and refuses bob), the reasons joined.
    const refused = await list(tokens.bob);
    assert.equal(refused.status, 403);
    assert.match(refused.json.message, /: the webhook has no opinion/);
    const before = received.length;
    assert.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal(received.length, before);

    // A webhook that fails, with failurePolicy NoOpinion: RBAC allows what it allows; otherwise a 500 naming the error.
    decide = () => 404;
    const failed = await list(tokens.bob, 'kube-public');
    assert.equal(failed.status, 500);
    assert.equal(failed.text, 'Internal Server Error: "/api/v1/namespaces/kube-public/configmaps?labelSelector=app%3Dweb": the server could not find the requested resource\n');
    // An access review tells the error in evaluationError.
    const review = await server.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'carol', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'x' } } },
    });
    assert.equal(review.status, 201);
    assert.equal(review.json.status.allowed, false);
    assert.equal(review.json.status.evaluationError, 'the server could not find the requested resource');
    // A webhook cannot list a user's rules: the rules review says it is incomplete.
    const rules = await server.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { token: tokens.bob, body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } } });
    assert.equal(rules.json.status.incomplete, true);
    assert.match(rules.json.status.evaluationError, /webhook authorizer does not support user rule resolution/);

    const metrics = (await server.request('GET', '/metrics')).text;
    assert.match(metrics, /apiserver_authorization_decisions_total\{type="Webhook",name="default",decision="allowed"\} 2/);
    assert.match(metrics, /apiserver_authorization_decisions_total\{type="Webhook",name="default",decision="denied"\} 1/);
    assert.match(metrics, /apiserver_authorization_webhook_evaluations_total\{name="default",result="success"\} \d/);
    assert.match(metrics, /apiserver_authorization_webhook_evaluations_fail_open_total\{name="default",result="error"\} \d/);
  } finally {
    await server.stop();
  }
});

function authorizationConfig(authorizers: unknown[]): string {
  return JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AuthorizationConfiguration', authorizers });
}

const webhookEntry = (more: Record<string, unknown> = {}) => ({
  type: 'Webhook', name: 'webhook.example.com',
  webhook: {
    timeout: '3s', subjectAccessReviewVersion: 'v1', matchConditionSubjectAccessReviewVersion: 'v1', failurePolicy: 'Deny',
    connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: kubeconfig },
    matchConditions: [{ expression: "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'webhooked'" }],
    ...more,
  },
});

test('--authorization-config: match conditions choose what the webhook is asked; failurePolicy Deny; the file followed as it changes', async () => {
  received = [];
  decide = policy;
  const file = path.join(dir, 'authorization.json');
  writeFileSync(file, authorizationConfig([webhookEntry(), { type: 'RBAC', name: 'rbac' }]));
  const server = await startServer({ tokenAuthFile: tokenFile, authorizationConfig: file });
  try {
    const get = (token: string, ns: string) => server.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token });
    // Excluded by the match condition: RBAC alone refuses alice.
    assert.equal((await get(tokens.alice, 'default')).status, 403);
    assert.equal(received.length, 0);
    assert.equal((await get(tokens.alice, 'webhooked')).status, 200);
    assert.equal(received.length, 1);
    assert.equal(received[0]!.body.apiVersion, 'authorization.k8s.io/v1');
    assert.deepEqual(received[0]!.body.spec.groups, ['dev', 'qa', 'system:authenticated']);

    // failurePolicy Deny: a webhook that fails denies, and the error makes it a 500.
    decide = () => 404;
    const failed = await get(tokens.bob, 'webhooked');
    assert.equal(failed.status, 500);
    assert.match(failed.text, /^Internal Server Error: "\/api\/v1\/namespaces\/webhooked\/configmaps": the server could not find the requested resource/);
    decide = policy;

    // A reload that adds Node (not there at start) is refused; the chain stays.
    writeFileSync(file, authorizationConfig([{ type: 'Node', name: 'node' }, { type: 'RBAC', name: 'rbac' }]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await get(tokens.alice, 'webhooked')).status, 200);
    // Without the webhook, RBAC alone decides.
    writeFileSync(file, authorizationConfig([{ type: 'RBAC', name: 'rbac' }]));
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      // A new namespace each time: the webhook's cache cannot answer.
      status = (await get(tokens.alice, 'webhooked')).status;
    }
    assert.equal(status, 403);
    const metrics = (await server.request('GET', '/metrics')).text;
    assert.match(metrics, /apiserver_authorization_config_controller_automatic_reloads_total\{status="success",apiserver_id_hash="sha256:[0-9a-f]{64}"\} 1/);
    assert.match(metrics, /apiserver_authorization_config_controller_automatic_reloads_total\{status="failure",apiserver_id_hash="sha256:[0-9a-f]{64}"\} 1/);
    assert.match(metrics, /apiserver_authorization_match_condition_exclusions_total\{type="Webhook",name="webhook.example.com"\} 1/);
    assert.match(metrics, /apiserver_authorization_decisions_total\{type="Webhook",name="webhook.example.com",decision="denied"\} 1/);
  } finally {
    await server.stop();
  }
});

test('an AuthorizationConfiguration that does not load refuses the start with upstream\'s words', async () => {
  const file = path.join(dir, 'bad-authorization.json');
  const refused = async (authorizers: unknown[], message: string | RegExp) => {
    writeFileSync(file, authorizationConfig(authorizers));
    await assert.rejects(startServer({ authorizationConfig: file }), (err: Error) => (typeof message === 'string' ? err.message === message : message.test(err.message)), JSON.stringify(authorizers));
  };
  await refused([], 'failed to load AuthorizationConfiguration from file: authorizers: Required value: at least one authorization mode must be defined');
  await refused([{ type: 'RBAC', name: 'foo' }], 'failed to load AuthorizationConfiguration from file: expected name rbac for authorizer RBAC instead of foo');
  await refused([{ type: 'ABAC', name: 'abac' }], /authorizers\[0\]\.type: Unsupported value: "ABAC": supported values: "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"/);
  await refused([{ type: 'RBAC', name: 'rbac' }, { type: 'RBAC', name: 'rbac2' }], /authorizers\[1\]\.type: Duplicate value: "RBAC"/);
  await refused([{ type: 'Webhook', name: 'w' }], /authorizers\[0\]\.webhook: Required value: required when type=Webhook/);
  await refused([webhookEntry({ timeout: '45s', failurePolicy: 'Maybe', subjectAccessReviewVersion: '' })],
    'failed to load AuthorizationConfiguration from file: [authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s, authorizers[0].subjectAccessReviewVersion: Required value, authorizers[0].failurePolicy: Unsupported value: "Maybe": supported values: "NoOpinion", "Deny"]');
  await refused([webhookEntry({ connectionInfo: { type: 'KubeConfigFile', kubeConfigFile: 'relative.kubeconfig' } })], /authorizers\[0\]\.connectionInfo\.kubeConfigFile: Invalid value: "relative.kubeconfig": must be an absolute path/);
  await refused([webhookEntry({ matchConditions: [{ expression: 'request.user' }] })], /authorizers\[0\]\.matchConditions\[0\]\.expression: Invalid value: "request.user": must evaluate to bool/);
  await refused([webhookEntry({ matchConditions: [{ expression: "request.nothing == 'x'" }] })], /compilation failed: ERROR: <input>:1:8: undefined field 'nothing'/);
  writeFileSync(file, '{"apiVersion": "apiserver.config.k8s.io/v1", "kind": "AuthorizationConfiguration", "authorizers": [{"type": "RBAC", "name": "rbac", "color": "red"}]}');
  await assert.rejects(startServer({ authorizationConfig: file }), { message: 'failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "authorizers[0].color"' });
});
