// Auditing checked field by field against upstream's audit.k8s.io/v1 Events (k8s.io/apiserver's
// audit filter, request.go, context.go and log backend) and policy reader: the user agent,
// source IPs and audit ID of an event, its stages for long-running requests, its response
// status and objects, its annotations and their order, its JSON; and policies upstream's
// decoder refuses, or loads with a warning.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beginAudit, loadAuditPolicy, truncatingSink, type AuditPolicy, type AuditRequest } from '../../src/server/audit.ts';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/encoding/protobuf/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { legacyRobotToken } from '../helpers/legacy-token.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const policy = `
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: RequestResponse
  omitManagedFields: true
  namespaces: ["trimmed"]
- level: RequestResponse
`;

interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  requestURI: string;
  user: { username?: string };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: Record<string, unknown>;
  requestObject?: any;
  responseObject?: any;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

describe('audit events as upstream writes them', () => {
  let server: TestServer;
  const dir = tempDir('plinth-audit-sweep-');
  const logPath = path.join(dir, 'audit.log');
  const lines = () => readFileSync(logPath, 'utf8').trim().split('\n').filter((l) => l !== '');
  const events = (): AuditEvent[] => lines().map((l) => JSON.parse(l));
  /** The events of one request, once its last stage is written. */
  const eventsOf = (auditID: unknown, stages = 2) => eventually(() => {
    const found = events().filter((e) => e.auditID === auditID);
    assert.equal(found.length, stages, JSON.stringify(found));
    return found;
  });
  const completed = async (auditID: unknown, stages = 2) => (await eventsOf(auditID, stages)).find((e) => e.stage === 'ResponseComplete')!;

  before(async () => {
    writeFileSync(path.join(dir, 'policy.yaml'), policy);
    const tokens = path.join(dir, 'tokens.csv');
    writeFileSync(tokens, ['admin-token,admin,admin,"system:masters"', 'dave-token,dave,dave-uid'].join('\n'));
    server = await startServer({ auditPolicyFile: path.join(dir, 'policy.yaml'), auditLogPath: logPath, tokenAuthFile: tokens });
    for (const ns of ['sweep', 'trimmed', 'watched']) assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } }, token: 'admin-token' })).status, 201);
  });
  after(() => server?.stop());
  const admin = { token: 'admin-token' };

  test('the User-Agent is read as UTF-8 and cut at 1024 bytes with upstream\'s "...TRUNCATED"', async () => {
    // Node hands a header's bytes over as Latin-1; the client sent "é" as UTF-8.
    const agent = Buffer.from(`é${'x'.repeat(1100)}`, 'utf8').toString('latin1');
    const res = await server.request('GET', '/api/v1/namespaces/sweep/configmaps?limit=1', { ...admin, headers: { 'user-agent': agent } });
    assert.equal(res.status, 200);
    const [received, complete] = await eventsOf(res.headers['audit-id']);
    assert.equal(received!.userAgent, `é${'x'.repeat(1022)}...TRUNCATED`);
    assert.equal(complete!.userAgent, received!.userAgent);
    const short = await server.request('GET', '/api/v1/namespaces/sweep/configmaps?limit=2', { ...admin, headers: { 'user-agent': 'kubectl/v1.36.0' } });
    assert.equal((await completed(short.headers['audit-id'])).userAgent, 'kubectl/v1.36.0');
  });

  test('sourceIPs: X-Forwarded-For\'s valid IPs, then X-Real-Ip unless listed, then the connection\'s address; a 401\'s event too', async () => {
    const headers = { 'x-forwarded-for': '10.0.0.1, not-an-ip, ::ffff:10.0.0.2 ,2001:DB8:0:0:0:0:0:1', 'x-real-ip': '10.0.0.3' };
    const res = await server.request('GET', '/api/v1/namespaces/sweep/configmaps?limit=3', { ...admin, headers });
    assert.deepEqual((await completed(res.headers['audit-id'])).sourceIPs, ['10.0.0.1', '10.0.0.2', '2001:db8::1', '10.0.0.3', '127.0.0.1']);
    const listed = await server.request('GET', '/api/v1/namespaces/sweep/configmaps?limit=4', { ...admin, headers: { 'x-forwarded-for': '10.0.0.3', 'x-real-ip': '10.0.0.3' } });
    assert.deepEqual((await completed(listed.headers['audit-id'])).sourceIPs, ['10.0.0.3', '127.0.0.1']);
    const refused = await server.request('GET', '/api/v1/namespaces/sweep/configmaps?limit=5', { token: 'nobody', headers: { 'x-forwarded-for': '10.9.9.9', 'user-agent': '' } });
    assert.equal(refused.status, 401);
    const [failed] = await eventsOf(refused.headers['audit-id'], 1);
    assert.deepEqual(failed!.sourceIPs, ['10.9.9.9', '127.0.0.1']);
    assert.equal('userAgent' in failed!, false, 'an empty user agent is left out (omitempty)');
  });

  test('a create\'s and an update\'s request object is the body as decoded: unknown fields dropped, defaults filled (upstream logs it after decoding)', async () => {
    const deployment = {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'decoded' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } }, unknownField: 1 },
    };
    const created = await server.request('POST', '/apis/apps/v1/namespaces/sweep/deployments', { ...admin, body: deployment });
    assert.equal(created.status, 201, created.text);
    const createEvent = await completed(created.headers['audit-id']);
    const spec = createEvent.requestObject.spec;
    assert.equal(spec.unknownField, undefined);
    assert.equal(spec.replicas, 1);
    assert.deepEqual(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(spec.template.spec.restartPolicy, 'Always');
    assert.equal(spec.template.spec.containers[0].terminationMessagePath, '/dev/termination-log');
    // The server's metadata is not set yet when the body is logged.
    assert.equal(createEvent.requestObject.metadata.uid, undefined);
    const body = { ...created.json, spec: { ...created.json.spec, replicas: 2, unknownField: 2 } };
    delete body.spec.strategy;
    const updated = await server.request('PUT', '/apis/apps/v1/namespaces/sweep/deployments/decoded', { ...admin, body });
    assert.equal(updated.status, 200, updated.text);
    const updateEvent = await completed(updated.headers['audit-id']);
    assert.equal(updateEvent.requestObject.spec.replicas, 2);
    assert.equal(updateEvent.requestObject.spec.unknownField, undefined);
    assert.deepEqual(updateEvent.requestObject.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  });

  test('a client\'s Audit-ID header names the request\'s events and is sent back, as upstream\'s WithAuditInit takes it', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/sweep/configmaps?limit=6', { ...admin, headers: { 'Audit-ID': 'client-chosen-id' } });
    assert.equal(res.headers['audit-id'], 'client-chosen-id');
    assert.deepEqual((await eventsOf('client-chosen-id')).map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
  });

  test('a watch is audited at RequestReceived, ResponseStarted and ResponseComplete; its events are no response object', async () => {
    assert.equal((await server.request('POST', '/api/v1/namespaces/watched/configmaps', { ...admin, body: { metadata: { name: 'only' } } })).status, 201);
    // One event (the ADDED of the one ConfigMap) and the watch ends.
    const res = await server.request('GET', '/api/v1/namespaces/watched/configmaps?watch=true&resourceVersion=0&timeoutSeconds=1', admin);
    assert.equal(res.status, 200);
    assert.equal(res.text.trim().split('\n').length, 1);
    const found = await eventsOf(res.headers['audit-id'], 3);
    assert.deepEqual(found.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    const [received, started, complete] = found;
    assert.equal(received!.stageTimestamp, received!.requestReceivedTimestamp, 'RequestReceived\'s stage time is the request\'s arrival');
    assert.deepEqual(started!.responseStatus, { metadata: {}, code: 200 });
    assert.deepEqual(complete!.responseStatus, { metadata: {}, code: 200 });
    assert.equal(complete!.responseObject, undefined);
    // A short request has no ResponseStarted event.
    const list = await server.request('GET', '/api/v1/namespaces/watched/configmaps', admin);
    assert.deepEqual((await eventsOf(list.headers['audit-id'])).map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
  });

  test('a refused watch\'s ResponseStarted event carries its Status, as the answer is written whole', async () => {
    const res = await server.request('GET', '/api/v1/namespaces/watched/configmaps?watch=true', { token: 'dave-token' });
    assert.equal(res.status, 403);
    const [, started, complete] = await eventsOf(res.headers['audit-id'], 3);
    assert.equal(started!.stage, 'ResponseStarted');
    const forbidden = {
      metadata: {}, status: 'Failure', message: 'configmaps is forbidden: User "dave" cannot watch resource "configmaps" in API group "" in the namespace "watched"',
      reason: 'Forbidden', details: { kind: 'configmaps' }, code: 403,
    };
    assert.deepEqual(started!.responseStatus, forbidden);
    assert.deepEqual(complete!.responseStatus, forbidden);
  });

  test('responseStatus copies a Status answer\'s status, message, reason and details: a delete\'s Success, a 404\'s details', async () => {
    const created = await server.request('POST', '/api/v1/namespaces/sweep/configmaps', { ...admin, body: { metadata: { name: 'gone' } } });
    assert.equal(created.status, 201);
    const deleted = await server.request('DELETE', '/api/v1/namespaces/sweep/configmaps/gone', admin);
    assert.equal(deleted.status, 200);
    assert.deepEqual((await completed(deleted.headers['audit-id'])).responseStatus, {
      metadata: {}, status: 'Success', details: { name: 'gone', kind: 'configmaps', uid: created.json.metadata.uid }, code: 200,
    });
    const missing = await server.request('GET', '/api/v1/namespaces/sweep/configmaps/gone', admin);
    assert.deepEqual((await completed(missing.headers['audit-id'])).responseStatus, {
      metadata: {}, status: 'Failure', message: 'configmaps "gone" not found', reason: 'NotFound', details: { name: 'gone', kind: 'configmaps' }, code: 404,
    });
    // A successful answer that is an object: the code alone.
    const got = await server.request('GET', '/api/v1/namespaces/sweep/configmaps?limit=7', admin);
    assert.deepEqual((await completed(got.headers['audit-id'])).responseStatus, { metadata: {}, code: 200 });
  });

  test('the authorization decision and its reason annotate the events after the first, as upstream\'s authorization filter adds them', async () => {
    const allowed = await server.request('GET', '/api', { token: 'dave-token' });
    assert.equal(allowed.status, 200);
    const [received, complete] = await eventsOf(allowed.headers['audit-id']);
    assert.equal(received!.annotations, undefined, 'RequestReceived comes before authorization');
    assert.deepEqual(complete!.annotations, {
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"',
    });
    const masters = await server.request('GET', '/api/v1/namespaces/sweep/configmaps?limit=8', admin);
    assert.deepEqual((await completed(masters.headers['audit-id'])).annotations, { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' });
    const refused = await server.request('GET', '/api/v1/namespaces/sweep/secrets', { token: 'dave-token' });
    assert.equal(refused.status, 403);
    assert.deepEqual((await completed(refused.headers['audit-id'])).annotations, { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' });
  });

  test('each line is JSON as Go\'s encoder writes it: <, > and & escaped', async () => {
    const created = await server.request('POST', '/api/v1/namespaces/sweep/configmaps?fieldManager=a%26b', { ...admin, body: { metadata: { name: 'escaped' }, data: { html: '<b>&</b>' } } });
    assert.equal(created.status, 201);
    const auditID = String(created.headers['audit-id']);
    await eventsOf(auditID);
    const line = lines().find((l) => l.includes(auditID) && l.includes('"ResponseComplete"'))!;
    assert.ok(line.includes('"requestURI":"/api/v1/namespaces/sweep/configmaps?fieldManager=a%26b"'), line);
    assert.ok(line.includes('"html":"\\u003cb\\u003e\\u0026\\u003c/b\\u003e"'), line);
    assert.ok(!/[<>&]/.test(line), line);
    const query = await server.request('GET', '/api/v1/namespaces/sweep/configmaps?limit=9&labelSelector=a', admin);
    assert.ok(lines().some((l) => l.includes('"requestURI":"/api/v1/namespaces/sweep/configmaps?limit=9\\u0026labelSelector=a"')), String(query.headers['audit-id']));
  });

  test('a non-resource answer that is no API object (/version) is no response object; a discovery document is', async () => {
    const version = await server.request('GET', '/version', admin);
    assert.equal(version.status, 200);
    const versionEvent = await completed(version.headers['audit-id']);
    assert.equal(versionEvent.responseObject, undefined);
    assert.deepEqual(versionEvent.responseStatus, { metadata: {}, code: 200 });
    const api = await server.request('GET', '/api', admin);
    assert.equal((await completed(api.headers['audit-id'])).responseObject?.kind, 'APIVersions');
  });

  test('a gzipped answer is read for its event\'s response object', async () => {
    const big = 'z'.repeat(300_000);
    assert.equal((await server.request('POST', '/api/v1/namespaces/sweep/configmaps', { ...admin, body: { metadata: { name: 'big' }, data: { big } } })).status, 201);
    const got = await server.request('GET', '/api/v1/namespaces/sweep/configmaps/big', { ...admin, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(got.headers['content-encoding'], 'gzip');
    assert.equal((await completed(got.headers['audit-id'])).responseObject?.data?.big, big);
  });

  test('omitManagedFields strips a Table\'s row objects too, as upstream\'s copyWithoutManagedFields', async () => {
    assert.equal((await server.request('POST', '/api/v1/namespaces/trimmed/configmaps?fieldManager=sweep', { ...admin, body: { metadata: { name: 't' }, data: { a: '1' } } })).status, 201);
    const table = await server.request('GET', '/api/v1/namespaces/trimmed/configmaps?includeObject=Object', { ...admin, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.equal(table.json.kind, 'Table');
    assert.ok(table.json.rows[0].object.metadata.managedFields, 'the answer has them');
    const logged = (await completed(table.headers['audit-id'])).responseObject;
    assert.equal(logged.kind, 'Table');
    assert.equal(logged.rows[0].object.metadata.name, 't');
    assert.equal(logged.rows[0].object.metadata.managedFields, undefined);
  });
});

test('what authentication noted annotates the RequestReceived event too, as upstream\'s audit filter comes after it', async () => {
  const dataDir = tempDir('plinth-audit-sweep-authn-');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyFile = path.join(dataDir, 'sa.key');
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(path.join(dataDir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  const auditLog = path.join(dataDir, 'audit.log');
  const server = await startServer({
    dataDir, serviceAccountSigningKeyFile: keyFile, serviceAccountKeyFiles: [keyFile], auditPolicyFile: path.join(dataDir, 'policy.yaml'), auditLogPath: auditLog,
  });
  try {
    const ns = await server.newNamespace('authn');
    const { token } = await legacyRobotToken(server, privateKey, ns);
    const review = await server.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { token, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    assert.equal(review.status, 201, review.text);
    const received = await eventually(() => {
      const found = readFileSync(auditLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as AuditEvent)
        .find((e) => e.auditID === review.headers['audit-id'] && e.stage === 'RequestReceived');
      assert.ok(found);
      return found;
    });
    assert.deepEqual(received.annotations, { 'authentication.k8s.io/legacy-token': `system:serviceaccount:${ns}:robot`, 'authentication.k8s.io/legacy-token-manual-secret': 'robot-token' });
  } finally {
    await server.stop();
  }
});

/** A response as the audit hooks see it, for requests audited without a server. */
function fakeResponse() {
  const headers = new Map<string, unknown>();
  return Object.assign(new EventEmitter(), {
    statusCode: 200, headersSent: false,
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    write: (..._chunk: unknown[]) => true,
    end(..._chunk: unknown[]) {},
  });
}

const everything: AuditPolicy = { rules: [{ level: 'Metadata', users: [], userGroups: [], verbs: [], resources: [], namespaces: [], nonResourceURLs: [], omitStages: [] }], omitStages: [], omitManagedFields: false };
const request = (user: AuditRequest['user']): AuditRequest => ({
  url: '/api/v1/namespaces/default/pods', verb: 'list', userAgent: undefined, sourceIP: '127.0.0.1', user, apiVersion: 'v1',
  attributes: { user, verb: 'list', resourceRequest: true, path: '/api/v1/namespaces/default/pods', group: '', resource: 'pods', subresource: '', namespace: 'default', name: '' },
});

test('annotations and a user\'s extra are written in key order, as Go writes a map; an annotation keeps its first value', () => {
  const written: Record<string, any>[] = [];
  const res = fakeResponse();
  const user = { name: 'alice', uid: '', groups: [], extra: { zeta: ['1'], alpha: ['2'] } };
  const hooks = beginAudit(everything, { write: (e) => written.push(e as Record<string, any>) > 0, flush() {} }, request(user), res)!;
  hooks.annotate('z.example.com/last', 'z');
  hooks.annotate('a.example.com/first', 'a');
  hooks.annotate('a.example.com/first', 'changed');
  res.end();
  res.emit('close');
  const complete = written.find((e) => e.stage === 'ResponseComplete')!;
  assert.deepEqual(Object.entries(complete.annotations), [['a.example.com/first', 'a'], ['z.example.com/last', 'z']]);
  assert.deepEqual(Object.keys(complete.user.extra), ['alpha', 'zeta']);
});

test('a truncated event\'s annotations keep their place and key order, its truncation mark among them', () => {
  const written: Record<string, any>[] = [];
  const sink = truncatingSink({ write: (e) => written.push(e as Record<string, any>) > 0, flush() {} }, { maxEventSize: 1000, maxBatchSize: 1000 }, () => {});
  sink.write({
    kind: 'Event', level: 'Request', auditID: 'a', stage: 'ResponseComplete', requestObject: { data: 'x'.repeat(2000) },
    requestReceivedTimestamp: 't', stageTimestamp: 't', annotations: { 'authorization.k8s.io/decision': 'allow' }, authenticationMetadata: { impersonationConstraint: 'impersonate:user-info' },
  });
  assert.deepEqual(Object.keys(written[0]!).slice(-2), ['annotations', 'authenticationMetadata']);
  assert.deepEqual(Object.keys(written[0]!.annotations), ['audit.k8s.io/truncated', 'authorization.k8s.io/decision']);
});

test('a Protobuf answer is read with the decoder handed in: a refusal\'s Status, a RequestResponse event\'s object', () => {
  const full: AuditPolicy = { ...everything, rules: [{ ...everything.rules[0]!, level: 'RequestResponse' }] };
  const answer = (object: Parameters<typeof encodeProtobufObject>[0], code: number) => {
    const written: Record<string, any>[] = [];
    const res = fakeResponse();
    const user = { name: 'alice', uid: '', groups: [] };
    beginAudit(full, { write: (e) => written.push(e as Record<string, any>) > 0, flush() {} }, { ...request(user), verb: 'get' }, res, decodeProtobufObject);
    res.setHeader('content-type', 'application/vnd.kubernetes.protobuf');
    res.statusCode = code;
    res.end(Buffer.from(encodeProtobufObject(object)));
    res.emit('close');
    return written.find((e) => e.stage === 'ResponseComplete')!;
  };
  const status = {
    apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'pods "p" not found', reason: 'NotFound', details: { name: 'p', kind: 'pods' }, code: 404,
  };
  assert.deepEqual(answer(status, 404).responseStatus, { metadata: {}, status: 'Failure', message: 'pods "p" not found', reason: 'NotFound', details: { name: 'p', kind: 'pods' }, code: 404 });
  const configMap = answer({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, data: { a: '1' } }, 200);
  assert.deepEqual(configMap.responseStatus, { metadata: {}, code: 200 });
  assert.deepEqual(configMap.responseObject.data, { a: '1' });
});

test('a request that closes with nothing written is audited with upstream\'s "Connection closed early" status', () => {
  const written: Record<string, any>[] = [];
  const res = fakeResponse();
  beginAudit(everything, { write: (e) => written.push(e as Record<string, any>) > 0, flush() {} }, request({ name: 'alice', uid: '', groups: [] }), res);
  res.emit('close');
  assert.deepEqual(written.map((e) => [e.stage, e.responseStatus]), [
    ['RequestReceived', undefined],
    ['ResponseComplete', { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 }],
  ]);
});

test('policies upstream\'s decoder refuses, or loads with a warning, in its words', async () => {
  const dir = tempDir('plinth-audit-sweep-policy-');
  const file = path.join(dir, 'policy.yaml');
  const scheme = 'in scheme "pkg/audit/scheme.go:31"';
  const refused: [string, string][] = [
    ['rules:\n- level: None\n', 'unknown group version field audit.k8s.io/__internal, Kind=Policy in policy'],
    ['kind: Policy\nrules:\n- level: None\n', 'unknown group version field audit.k8s.io/__internal, Kind=Policy in policy'],
    ['apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n', `failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1" ${scheme}`],
    ['apiVersion: v1\nkind: Policy\nrules:\n- level: None\n', `failed decoding: no kind "Policy" is registered for version "v1" ${scheme}`],
    ['apiVersion: audit.k8s.io/v1\nkind: Nope\nrules:\n- level: None\n', `failed decoding: no kind "Nope" is registered for version "audit.k8s.io/v1" ${scheme}`],
    ['- level: None\n', 'failed decoding: couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: none\n', 'failed decoding: json: cannot unmarshal string into Go struct field Policy.rules of type []v1.PolicyRule'],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: 5\n', 'failed decoding: json: cannot unmarshal number into Go struct field PolicyRule.rules.level of type v1.Level'],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources: [{group: "", resources: "pods"}]\n',
      'failed decoding: json: cannot unmarshal string into Go struct field GroupResources.rules.resources.resources of type []string'],
  ];
  for (const [text, message] of refused) {
    writeFileSync(file, text);
    await assert.rejects(loadAuditPolicy(file), (err: Error) => {
      assert.equal(err.message, `${message}: from file ${file}`);
      return true;
    });
  }
  // The kind may be left out: the decoder defaults it.
  writeFileSync(file, 'apiVersion: audit.k8s.io/v1\nrules:\n- level: Metadata\n');
  assert.equal((await loadAuditPolicy(file)).rules[0]!.level, 'Metadata');
  // Fields it does not know: loaded leniently, with upstream's warning; a key given twice is the last one.
  const warnings: string[] = [];
  writeFileSync(file, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  verb: [get]\n  resources: [{group: "", resource: [pods]}]\n- level: Request\n  level: Metadata\n');
  const lenient = await loadAuditPolicy(file, (m) => warnings.push(m));
  assert.deepEqual(lenient.rules.map((r) => [r.level, r.verbs]), [['None', []], ['Metadata', []]]);
  assert.deepEqual(warnings, ['Audit policy contains errors, falling back to lenient decoding: strict decoding error: unknown field "rules[0].verb", unknown field "rules[0].resources[0].resource"']);
});
