// pods/exec, attach and portforward under RBAC with the AuthorizePodWebsocketUpgradeCreatePermission
// gate (beta, on by default since v1.35): a GET (a WebSocket's upgrade) is authorized for `get`
// by the filter and for `create` by the pod registry's Connect (upstream's ensureAuthorizedForVerb,
// 403 `pods "<name>" is forbidden: <reason>`), after the dry run and the options and before the
// pod is read; with the gate off, `get` suffices. Past the checks, the simulated node's kubelet
// is not dialed (500 `error dialing backend`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultConfig, parseServeFlags } from '../../src/cli/config.ts';
import { simulatedNodeAnnotation } from '../../src/registry/builtin/nodes.ts';
import { upgradeThrough } from '../helpers/raw-upgrade.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const tokens = { admin: 'admin-token', getter: 'getter-token', creator: 'creator-token', createOnly: 'create-only-token' };
const dir = tempDir('plinth-connect-authz-');
const tokenFile = path.join(dir, 'tokens.csv');
writeFileSync(tokenFile, [
  `${tokens.admin},admin,admin,"system:masters"`,
  `${tokens.getter},getter,getter-uid`,
  `${tokens.creator},creator,creator-uid`,
  `${tokens.createOnly},create-only,create-only-uid`,
].join('\n'));
after(() => rmSync(dir, { recursive: true, force: true }));

const streams = ['pods/exec', 'pods/attach', 'pods/portforward'];
const dialing = 'error dialing backend: no kubelet is reachable: the node is simulated (node "sim" at sim:10250)';

/** A server whose users may `get` (getter), `get` and `create` (creator) or only `create` pods' streams in one namespace, with a pod on a simulated node. */
async function serverWith(gateOn: boolean | undefined): Promise<{ server: TestServer; ns: string }> {
  const featureGates = { ...defaultConfig().featureGates };
  if (gateOn !== undefined) featureGates.AuthorizePodWebsocketUpgradeCreatePermission = gateOn;
  const server = await startServer({ tokenAuthFile: tokenFile, featureGates });
  const ns = await server.newNamespace('connect-authz');
  const created = async (urlPath: string, body: object) => {
    const res = await server.request('POST', urlPath, { body });
    assert.equal(res.status, 201, res.text);
  };
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const role = (name: string, verbs: string[]) => created(`${rbac}/namespaces/${ns}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources: streams, verbs }],
  });
  const bind = (name: string, user: string) => created(`${rbac}/namespaces/${ns}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: user },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  });
  await role('streams-get', ['get']);
  await role('streams-get-create', ['get', 'create']);
  await role('streams-create', ['create']);
  await bind('streams-get', 'getter');
  await bind('streams-get-create', 'creator');
  await bind('streams-create', 'create-only');
  await created('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'sim', annotations: { [simulatedNodeAnnotation]: 'true' } } });
  await created(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'sim', containers: [{ name: 'c', image: 'busybox' }] } });
  // The bindings are in force once the getter may read exec (a plain GET reaches the handler's 400 or the new 403).
  for (let i = 0; i < 100; i++) {
    const res = await server.request('GET', `/api/v1/namespaces/${ns}/pods/p/attach`, { token: tokens.creator });
    if (res.status !== 403) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { server, ns };
}

interface Row {
  name: string;
  token: keyof typeof tokens;
  /** How the request asks: a WebSocket's GET upgrade, SPDY's POST upgrade, or a plain GET. */
  as: 'websocket' | 'spdy' | 'plain';
  /** Under namespaces/NS/pods/. */
  target: string;
  code: number;
  reason?: string;
  message: string;
  details?: object;
  /** The details' keys in the order they come (upstream's StatusDetails field order). */
  detailsKeys?: string[];
}

/** Sends the row's request: the answer's status, and its Status. */
async function send(server: TestServer, ns: string, row: Row): Promise<{ code: number; status: any }> {
  const target = `/api/v1/namespaces/${ns}/pods/${row.target}`;
  const token = tokens[row.token];
  if (row.as === 'plain') {
    const res = await server.request('GET', target, { token });
    return { code: res.status, status: res.json };
  }
  const websocket = row.as === 'websocket';
  const up = await upgradeThrough(server, target, websocket ? 'websocket' : 'SPDY/3.1', '', websocket ? 'GET' : 'POST', token);
  up.socket.destroy();
  return { code: Number(/^HTTP\/1\.1 (\d{3})/.exec(up.head)?.[1]), status: JSON.parse(up.body) };
}

const forbiddenPod = { code: 403, reason: 'Forbidden', message: 'pods "p" is forbidden: ', details: { name: 'p', kind: 'pods' }, detailsKeys: ['name', 'kind'] };

const gateOnRows: Row[] = [
  { name: 'exec over WebSocket with get alone is refused: create is authorized too', token: 'getter', as: 'websocket', target: 'p/exec?command=ls&stdout=1', ...forbiddenPod },
  { name: 'attach over WebSocket with get alone is refused', token: 'getter', as: 'websocket', target: 'p/attach?container=c&stdout=1', ...forbiddenPod },
  { name: 'portforward over WebSocket with get alone is refused', token: 'getter', as: 'websocket', target: 'p/portforward?ports=80', ...forbiddenPod },
  { name: 'a plain GET of exec with get alone is refused before the upgrade is asked for', token: 'getter', as: 'plain', target: 'p/exec?command=ls', ...forbiddenPod },
  { name: 'the create check comes before the pod is read: a missing pod is 403, not 404', token: 'getter', as: 'websocket', target: 'nope/exec?command=ls&stdout=1', ...forbiddenPod, message: 'pods "nope" is forbidden: ', details: { name: 'nope', kind: 'pods' } },
  { name: 'the create check comes before the container is checked', token: 'getter', as: 'websocket', target: 'p/exec?command=ls&container=nope', ...forbiddenPod },
  { name: 'the options decode before the create check: bad ports are 400', token: 'getter', as: 'websocket', target: 'p/portforward?ports=x',
    code: 400, reason: 'BadRequest', message: 'cannot convert to []int32: strconv.ParseUint: parsing "x": invalid syntax' },
  { name: 'a dry run is refused before the create check', token: 'getter', as: 'websocket', target: 'p/exec?command=ls&dryRun=All', code: 400, reason: 'BadRequest', message: 'dryRun is not supported' },
  { name: 'exec over SPDY (POST) with get alone is the filter\'s 403 for create', token: 'getter', as: 'spdy', target: 'p/exec?command=ls&stdout=1',
    code: 403, reason: 'Forbidden', message: `pods "p" is forbidden: User "getter" cannot create resource "pods/exec" in API group "" in the namespace "NS"`, details: { name: 'p', kind: 'pods' } },
  { name: 'exec over WebSocket with get and create goes on to the node', token: 'creator', as: 'websocket', target: 'p/exec?command=ls&stdout=1', code: 500, message: dialing },
  { name: 'attach over WebSocket with get and create goes on to the node', token: 'creator', as: 'websocket', target: 'p/attach?container=c&stdout=1', code: 500, message: dialing },
  { name: 'portforward over WebSocket with get and create goes on to the node', token: 'creator', as: 'websocket', target: 'p/portforward?ports=80', code: 500, message: dialing },
  { name: 'exec over SPDY with get and create goes on to the node', token: 'creator', as: 'spdy', target: 'p/exec?command=ls&stdout=1', code: 500, message: dialing },
  { name: 'exec over SPDY with create alone goes on to the node (its verb is create already)', token: 'createOnly', as: 'spdy', target: 'p/exec?command=ls&stdout=1', code: 500, message: dialing },
  { name: 'exec over WebSocket with create alone is the filter\'s 403 for get', token: 'createOnly', as: 'websocket', target: 'p/exec?command=ls&stdout=1',
    code: 403, reason: 'Forbidden', message: `pods "p" is forbidden: User "create-only" cannot get resource "pods/exec" in API group "" in the namespace "NS"`, details: { name: 'p', kind: 'pods' } },
  { name: 'the cluster admin goes on to the node', token: 'admin', as: 'websocket', target: 'p/exec?command=ls&stdout=1', code: 500, message: dialing },
];

const gateOffRows: Row[] = [
  { name: 'exec over WebSocket with get alone goes on to the node', token: 'getter', as: 'websocket', target: 'p/exec?command=ls&stdout=1', code: 500, message: dialing },
  { name: 'portforward over WebSocket with get alone goes on to the node', token: 'getter', as: 'websocket', target: 'p/portforward?ports=80', code: 500, message: dialing },
  { name: 'a plain GET of exec with get alone is the handler\'s 400', token: 'getter', as: 'plain', target: 'p/exec?command=ls', code: 400, reason: 'BadRequest', message: 'Upgrade request required' },
  { name: 'exec over SPDY with get alone is still the filter\'s 403 for create', token: 'getter', as: 'spdy', target: 'p/exec?command=ls&stdout=1',
    code: 403, reason: 'Forbidden', message: `pods "p" is forbidden: User "getter" cannot create resource "pods/exec" in API group "" in the namespace "NS"` },
];

function runRows(gate: boolean | undefined, rows: Row[]): void {
  let server: TestServer;
  let ns = '';
  before(async () => {
    ({ server, ns } = await serverWith(gate));
  });
  after(() => server?.stop());
  for (const row of rows) {
    test(`${row.name}: ${row.code}`, async () => {
      const { code, status } = await send(server, ns, row);
      assert.equal(code, row.code, JSON.stringify(status));
      assert.deepEqual([status.reason ?? '', status.message], [row.reason ?? '', row.message.replace('"NS"', JSON.stringify(ns))]);
      if (row.details !== undefined) assert.deepEqual(status.details, row.details);
      if (row.detailsKeys !== undefined) assert.deepEqual(Object.keys(status.details), row.detailsKeys);
    });
  }
}

describe('AuthorizePodWebsocketUpgradeCreatePermission at its default (on)', () => runRows(undefined, gateOnRows));
describe('AuthorizePodWebsocketUpgradeCreatePermission=false', () => runRows(false, gateOffRows));

test('the gate is kube-apiserver v1.36\'s: beta, on by default; AllBeta=false and its name turn it off', () => {
  assert.equal(parseServeFlags([]).featureGates.AuthorizePodWebsocketUpgradeCreatePermission, true);
  assert.equal(parseServeFlags(['--feature-gates=AllBeta=false']).featureGates.AuthorizePodWebsocketUpgradeCreatePermission, false);
  assert.equal(parseServeFlags(['--feature-gates=AuthorizePodWebsocketUpgradeCreatePermission=false']).featureGates.AuthorizePodWebsocketUpgradeCreatePermission, false);
});
