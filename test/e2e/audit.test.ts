// --audit-policy-file and --audit-log-path: events as audit.k8s.io/v1 JSON lines, levels
// and stages as the policy's first matching rule says, by user, group, verb, resource,
// namespace and non-resource URL; refused requests audited too; rotation by size.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { AuditLog } from '../../src/server/audit.ts';
import { encodeProtobufObject } from '../../src/encoding/protobuf/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir, type TestServer } from '../helpers/server.ts';

const policy = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
- level: None
  users: ["quiet"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
  namespaces: ["full"]
- level: Request
  verbs: ["create", "update", "patch"]
  resources:
  - group: ""
    resources: ["secrets"]
- level: Metadata
  omitStages: []
`;

interface AuditEvent {
  level: string;
  stage: string;
  auditID: string;
  verb: string;
  requestURI: string;
  user: { username: string; groups?: string[] };
  objectRef?: Record<string, string>;
  responseStatus?: { code: number; status?: string; reason?: string; message?: string };
  requestObject?: any;
  responseObject?: any;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}

describe('audit', () => {
  let server: TestServer;
  const dir = tempDir('plinth-audit-');
  const logPath = path.join(dir, 'audit.log');
  const events = (): AuditEvent[] => readFileSync(logPath, 'utf8').trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  const tokens = path.join(dir, 'tokens.csv');

  before(async () => {
    writeFileSync(path.join(dir, 'policy.yaml'), policy);
    writeFileSync(tokens, ['admin-token,admin,admin,"system:masters"', 'quiet-token,quiet,quiet-uid', 'dave-token,dave,dave-uid'].join('\n'));
    server = await startServer({ auditPolicyFile: path.join(dir, 'policy.yaml'), auditLogPath: logPath, tokenAuthFile: tokens });
  });
  after(() => server?.stop());

  test('levels and stages follow the first matching rule', async () => {
    const admin = { token: 'admin-token' };
    for (const ns of ['full', 'plain']) assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } }, ...admin })).status, 201);
    const created = await server.request('POST', '/api/v1/namespaces/full/configmaps', { body: { metadata: { name: 'c' }, data: { a: '1' } }, ...admin });
    assert.equal(created.status, 201);
    const auditId = created.headers['audit-id'];
    assert.match(String(auditId), /^[0-9a-f-]{36}$/);
    assert.equal((await server.request('POST', '/api/v1/namespaces/plain/secrets', { body: { metadata: { name: 's' }, stringData: { k: 'v' } }, ...admin })).status, 201);
    assert.equal((await server.request('GET', '/api/v1/namespaces/plain/configmaps', { ...admin })).status, 200);
    assert.equal((await server.request('GET', '/api/v1/namespaces/plain/configmaps', { token: 'quiet-token' })).status, 403);
    assert.equal((await server.request('GET', '/api/v1/namespaces/plain/secrets/s', { token: 'dave-token' })).status, 403);
    assert.equal((await server.request('GET', '/healthz', { ...admin })).status, 200);

    await eventually(() => assert.ok(events().some((e) => e.user.username === 'dave' && e.stage === 'ResponseComplete')));
    const all = events();
    // RequestResponse for configmaps in "full": both objects; RequestReceived omitted by the policy.
    const full = all.filter((e) => e.auditID === auditId);
    assert.deepEqual(full.map((e) => [e.level, e.stage]), [['RequestResponse', 'ResponseComplete']]);
    const [event] = full;
    assert.equal(event!.verb, 'create');
    assert.equal(event!.requestURI, '/api/v1/namespaces/full/configmaps');
    // The object's name comes from the request body, as upstream's LogRequestObject completes the reference.
    assert.deepEqual(event!.objectRef, { resource: 'configmaps', namespace: 'full', name: 'c', apiVersion: 'v1' });
    assert.deepEqual(Object.keys(event!).slice(0, 6), ['kind', 'apiVersion', 'level', 'auditID', 'stage', 'requestURI']);
    assert.deepEqual(event!.responseStatus, { metadata: {}, code: 201 });
    assert.deepEqual(event!.requestObject.data, { a: '1' });
    assert.equal(event!.responseObject.metadata.name, 'c');
    assert.match(event!.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // Request for secret writes: the request, not the answer.
    const secret = all.find((e) => e.objectRef?.resource === 'secrets' && e.verb === 'create')!;
    assert.equal(secret.level, 'Request');
    // As decoded: v1's conversion folds stringData into data (upstream logs the decoded object).
    assert.equal(secret.requestObject.stringData, undefined);
    assert.deepEqual(secret.requestObject.data, { k: 'dg==' });
    assert.equal(secret.responseObject, undefined);
    // Metadata for the rest: no bodies, but a create's reference still named from its body.
    const namespace = all.find((e) => e.objectRef?.resource === 'namespaces' && e.verb === 'create' && e.stage === 'ResponseComplete')!;
    assert.equal(namespace.level, 'Metadata');
    assert.deepEqual(namespace.objectRef, { resource: 'namespaces', name: 'full', apiVersion: 'v1' });
    assert.equal(namespace.requestObject, undefined);
    const list = all.filter((e) => e.verb === 'list' && e.user.username === 'admin' && e.objectRef?.namespace === 'plain');
    assert.ok(list.length >= 1);
    assert.ok(list.every((e) => e.level === 'Metadata' && e.requestObject === undefined && e.responseObject === undefined));
    // A refused request is audited with its Status.
    const refused = all.find((e) => e.user.username === 'dave')!;
    assert.equal(refused.responseStatus!.code, 403);
    assert.equal(refused.responseStatus!.reason, 'Forbidden');
    assert.match(refused.responseStatus!.message!, /secrets "s" is forbidden: User "dave" cannot get resource "secrets"/);
    // Level None: no events.
    assert.ok(!all.some((e) => e.user.username === 'quiet'));
    assert.ok(!all.some((e) => e.requestURI === '/healthz'));
  });

  test('impersonation is audited as upstream orders its filters: the policy matches the authenticated user, a refused impersonation is logged', async () => {
    // admin (system:masters) as "quiet", whom a None rule silences: the rules match admin, the requester.
    const granted = await server.request('GET', '/api/v1/namespaces/plain/configmaps?limit=7', { token: 'admin-token', headers: { 'Impersonate-User': 'quiet', 'Impersonate-Group': 'system:masters' } });
    assert.equal(granted.status, 200);
    // dave may not impersonate: refused before authorization, and audited.
    const refused = await server.request('GET', '/api/v1/namespaces/plain/configmaps?limit=8', { token: 'dave-token', headers: { 'Impersonate-User': 'admin' } });
    assert.equal(refused.status, 403);
    await eventually(() => assert.equal(events().filter((e) => e.requestURI.endsWith('limit=8') && e.stage === 'ResponseComplete').length, 1));
    const impersonating = events().filter((e) => e.requestURI.endsWith('limit=7'));
    assert.deepEqual(impersonating.map((e) => [e.stage, e.user.username, (e as { impersonatedUser?: { username: string } }).impersonatedUser?.username]),
      [['ResponseComplete', 'admin', 'quiet']], 'logged (RequestReceived is omitted by this policy)');
    const denied = events().find((e) => e.requestURI.endsWith('limit=8') && e.stage === 'ResponseComplete')!;
    assert.equal(denied.user.username, 'dave');
    assert.equal((denied as { impersonatedUser?: unknown }).impersonatedUser, undefined);
    assert.deepEqual([denied.responseStatus!.code, denied.responseStatus!.reason], [403, 'Forbidden']);
    // v1.36's constrained impersonation answers the first mode's refusal, not the legacy verb's.
    assert.equal(denied.responseStatus!.message!, 'configmaps is forbidden: User "dave" cannot impersonate-on:user-info:list resource "configmaps" in API group "" in the namespace "plain"');
  });

  test('an impersonation a constrained verb granted names it in authenticationMetadata; one the legacy verb granted does not', async () => {
    // admin may do anything: as jane, the user-info mode grants first; with system:masters asked
    // for, no constrained mode may, and the legacy `impersonate` does.
    const constrained = await server.request('GET', '/api/v1/namespaces/plain/configmaps?limit=10', { token: 'admin-token', headers: { 'Impersonate-User': 'jane' } });
    assert.equal(constrained.json.message, 'configmaps is forbidden: User "jane" cannot list resource "configmaps" in API group "" in the namespace "plain"', 'jane herself may not');
    const legacy = await server.request('GET', '/api/v1/namespaces/plain/configmaps?limit=11', { token: 'admin-token', headers: { 'Impersonate-User': 'jane', 'Impersonate-Group': 'system:masters' } });
    assert.equal(legacy.status, 200);
    const completed = (limit: string) => eventually(() => {
      const found = events().filter((e) => e.requestURI.endsWith(limit) && e.stage === 'ResponseComplete');
      assert.equal(found.length, 1);
      return found[0] as { impersonatedUser?: { username: string }; authenticationMetadata?: unknown };
    });
    const first = await completed('limit=10');
    assert.equal(first.impersonatedUser?.username, 'jane');
    assert.deepEqual(first.authenticationMetadata, { impersonationConstraint: 'impersonate:user-info' });
    assert.deepEqual(Object.keys(first).slice(-1), ['authenticationMetadata'], 'the event\'s last field');
    const second = await completed('limit=11');
    assert.equal(second.impersonatedUser?.username, 'jane');
    assert.equal(second.authenticationMetadata, undefined);
  });

  test('a request whose credentials name nobody is audited as upstream\'s failed-authentication audit logs it', async () => {
    const refused = await server.request('GET', '/api/v1/namespaces/plain/configmaps?limit=9', { token: 'no-such-token' });
    assert.equal(refused.status, 401);
    const auditId = String(refused.headers['audit-id']);
    assert.match(auditId, /^[0-9a-f-]{36}$/);
    const logged = await eventually(() => {
      const found = events().filter((e) => e.auditID === auditId);
      assert.equal(found.length, 1);
      return found[0]!;
    });
    assert.equal(logged.stage, 'ResponseStarted');
    assert.equal(logged.level, 'Metadata');
    assert.deepEqual(logged.user, {});
    assert.deepEqual(logged.responseStatus, { metadata: {}, message: 'Authentication failed, attempted: bearer', code: 401 });
    assert.deepEqual(logged.objectRef, { resource: 'configmaps', namespace: 'plain', apiVersion: 'v1' });
  });

  test('a ValidatingAdmissionPolicy\'s Audit action and auditAnnotations go into the event\'s annotations', async () => {
    const admin = { token: 'admin-token' };
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'audited', labels: { audited: 'yes' } } }, ...admin })).status, 201);
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'one-key' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }], namespaceSelector: { matchLabels: { audited: 'yes' } } },
        validations: [{ expression: 'size(object.data) <= 1', message: 'one key at most' }],
        auditAnnotations: [{ key: 'keys', valueExpression: 'string(size(object.data))' }],
      },
    };
    assert.equal((await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', { body: policy, ...admin })).status, 201);
    const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'one-key' }, spec: { policyName: 'one-key', validationActions: ['Audit'] } };
    assert.equal((await server.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', { body: binding, ...admin })).status, 201);
    // The policy reaches the admission plugin through a watch: retried until it applies.
    const event = await eventually(async () => {
      const res = await server.request('POST', '/api/v1/namespaces/audited/configmaps', { body: { metadata: { generateName: 'two-' }, data: { a: '1', b: '2' } }, ...admin });
      assert.equal(res.status, 201, 'Audit does not refuse');
      const found = await eventually(() => {
        const e = events().find((x: any) => x.auditID === res.headers['audit-id'] && x.stage === 'ResponseComplete');
        assert.ok(e);
        return e as any;
      });
      assert.ok(found.annotations?.['validation.policy.admission.k8s.io/validation_failure'], JSON.stringify(found));
      return found;
    });
    assert.equal(event.annotations['one-key/keys'], '2');
    assert.deepEqual(JSON.parse(event.annotations['validation.policy.admission.k8s.io/validation_failure']), [
      { message: 'one key at most', policy: 'one-key', binding: 'one-key', expressionIndex: 0, validationActions: ['Audit'] },
    ]);
  });

  test('a request to a deprecated API is marked k8s.io/deprecated in its event', async () => {
    const admin = { token: 'admin-token' };
    const deprecated = await server.request('GET', '/api/v1/namespaces/default/endpoints', admin);
    const current = await server.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', admin);
    const complete = (res: typeof deprecated) => eventually(() => {
      const e = events().find((x: any) => x.auditID === res.headers['audit-id'] && x.stage === 'ResponseComplete');
      assert.ok(e);
      return e as any;
    });
    assert.equal((await complete(deprecated)).annotations?.['k8s.io/deprecated'], 'true');
    assert.equal((await complete(current)).annotations?.['k8s.io/deprecated'], undefined);
  });

  test('the log rotates by size, keeping --audit-log-maxbackup files', () => {
    const rotating = path.join(tempDir('plinth-audit-rotate-'), 'audit.log');
    const log = new AuditLog({ path: rotating, maxSizeMB: 1, maxBackups: 2, maxAgeDays: 0 });
    const big = { kind: 'Event', padding: 'x'.repeat(100_000) };
    for (let i = 0; i < 45; i++) {
      log.write(big);
      log.flush();
    }
    const files = readdirSync(path.dirname(rotating)).sort();
    assert.ok(files.includes('audit.log'));
    const backups = files.filter((f) => /^audit-.*\.log$/.test(f));
    assert.ok(backups.length >= 1 && backups.length <= 2, files.join(', '));
    assert.ok(readFileSync(rotating).length <= 1024 * 1024);
  });

  test('--audit-log-compress gzips the rotated files, their events intact', async () => {
    const rotating = path.join(tempDir('plinth-audit-gzip-'), 'audit.log');
    const log = new AuditLog({ path: rotating, maxSizeMB: 1, maxBackups: 3, maxAgeDays: 0, compress: true });
    for (let i = 0; i < 25; i++) {
      log.write({ kind: 'Event', n: i, padding: 'x'.repeat(100_000) });
      log.flush();
    }
    const gzipped = await eventually(() => {
      const files = readdirSync(path.dirname(rotating));
      assert.deepEqual(files.filter((f) => /^audit-.*\.log$/.test(f)), [], files.join(', '));
      const found = files.filter((f) => /^audit-.*\.log\.gz$/.test(f)).sort();
      assert.ok(found.length >= 1 && found.length <= 3, files.join(', '));
      return found;
    });
    const first = gunzipSync(readFileSync(path.join(path.dirname(rotating), gzipped[0]!))).toString('utf8').trim().split('\n').map((line) => JSON.parse(line) as { n: number });
    assert.ok(first.length > 0 && first.every((event, i) => i === 0 || event.n === first[i - 1]!.n + 1));
  });
});

test('a policy file that is not an audit Policy, or not a valid one, fails the start with upstream\'s words', async () => {
  const { serve } = await import('../../src/cli/serve.ts');
  const { defaultConfig, UsageError } = await import('../../src/cli/config.ts');
  const dir = tempDir('plinth-audit-bad-');
  const file = path.join(dir, 'policy.yaml');
  for (const [text, message] of [
    ['kind: Nope\n', /failed decoding: no kind "Nope" is registered for the internal version of group "audit\.k8s\.io" in scheme "pkg\/audit\/scheme\.go:31": from file /],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n', /rules\[0\]\.level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse": from file /],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  omitStages: [Later]\n', /rules\[0\]\.omitStages\[0\]: Invalid value: "Later": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic: from file/],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Never]\nrules:\n- nonResourceURLs: ["healthz", "/a*b"]\n  namespaces: [x]\n  resources: [{group: "Bad_Group", resourceNames: [n]}]\n',
      /^--audit-policy-file: \[omitStages\[0\]: Invalid value: "Never": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic, rules\[0\]\.level: Required value, rules\[0\]\.nonResourceURLs\[0\]: Invalid value: "healthz": non-resource URL rules must begin with a '\/' character, rules\[0\]\.nonResourceURLs\[1\]: Invalid value: "\/a\*b": non-resource URL wildcards '\*' must be the final character of the rule, rules\[0\]\.resources\.group: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain .*, rules\[0\]\.resources\.resourceNames: Invalid value: \["n"\]: using resourceNames requires at least one resource, rules\[0\]\.nonResourceURLs: Invalid value: \["healthz","\/a\*b"\]: rules cannot apply to both regular resources and non-resource URLs\]: from file /],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\n', /loaded illegal policy with 0 rules: from file /],
  ] as const) {
    writeFileSync(file, text);
    await assert.rejects(
      serve({ ...defaultConfig(), storage: 'memory', securePort: 0, dataDir: dir, auditPolicyFile: file, auditLogPath: path.join(dir, 'audit.log') }, () => {}),
      (err: Error) => err instanceof UsageError && /^--audit-policy-file: /.test(err.message) && message.test(err.message),
    );
  }
});

test('--audit-log-format legacy writes upstream\'s one-line text; --audit-log-truncate-* drops the objects of large events', async (t) => {
  const dir = tempDir('plinth-audit-legacy-');
  writeFileSync(path.join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: RequestResponse\n  resources: [{group: "", resources: ["configmaps"]}]\n');
  const legacyLog = path.join(dir, 'legacy.log');
  const legacy = await startServer({ auditPolicyFile: path.join(dir, 'policy.yaml'), auditLogPath: legacyLog, auditLogFormat: 'legacy' });
  t.after(() => legacy.stop());
  assert.equal((await legacy.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'l' } } })).status, 201);
  const line = await eventually(() => {
    const found = readFileSync(legacyLog, 'utf8').split('\n').find((l) => l.includes('method="create"'));
    assert.ok(found);
    return found;
  });
  assert.match(line, /^\d{4}-\d\d-\d\dT[\d:.]+Z AUDIT: id="[0-9a-f-]{36}" stage="ResponseComplete" ip="127\.0\.0\.1" method="create" user="[^"]+" groups=".*" as="<self>" asgroups="<lookup>" user-agent="[^"]*" namespace="default" uri="\/api\/v1\/namespaces\/default\/configmaps" response="201"$/);

  const jsonLog = path.join(dir, 'truncated.log');
  const truncating = await startServer({ auditPolicyFile: path.join(dir, 'policy.yaml'), auditLogPath: jsonLog, auditLogTruncate: { maxEventSize: 3000, maxBatchSize: 3000 } });
  t.after(() => truncating.stop());
  assert.equal((await truncating.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'small' }, data: { a: '1' } } })).status, 201);
  assert.equal((await truncating.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'big' }, data: { a: 'x'.repeat(4000) } } })).status, 201);
  const events = await eventually(() => {
    const found = readFileSync(jsonLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditEvent & { annotations?: Record<string, string> }).filter((e) => e.verb === 'create');
    assert.equal(found.length, 2);
    return found;
  });
  const [small, big] = [events.find((e) => e.objectRef?.name === 'small')!, events.find((e) => e.objectRef?.name === 'big')!];
  assert.equal(small.requestObject.data.a, '1');
  assert.equal(small.annotations?.['audit.k8s.io/truncated'], undefined);
  assert.equal(big.requestObject, undefined);
  assert.equal(big.responseObject, undefined);
  assert.equal(big.annotations?.['audit.k8s.io/truncated'], 'true');
});

test('a Protobuf body is audited as a JSON one: the request object decoded, the reference named from it', async (t) => {
  const dir = tempDir('plinth-audit-protobuf-');
  writeFileSync(path.join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Request\n  resources: [{group: "", resources: ["secrets"]}]\n- level: Metadata\n');
  const logPath = path.join(dir, 'audit.log');
  const server = await startServer({ auditPolicyFile: path.join(dir, 'policy.yaml'), auditLogPath: logPath });
  t.after(() => server.stop());
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token', namespace: 'default' }, data: { k: Buffer.from('v').toString('base64') } };
  const created = await server.request('POST', '/api/v1/namespaces/default/secrets', { raw: Buffer.from(encodeProtobufObject(secret)), headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } });
  assert.equal(created.status, 201, created.text);
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { a: '1' } };
  assert.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', { raw: Buffer.from(encodeProtobufObject(configMap)), headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } })).status, 201);
  const events = await eventually(() => {
    const found = readFileSync(logPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditEvent).filter((e) => e.verb === 'create');
    assert.equal(found.length, 2);
    return found;
  });
  const [secretEvent, configMapEvent] = [events.find((e) => e.objectRef?.resource === 'secrets')!, events.find((e) => e.objectRef?.resource === 'configmaps')!];
  assert.equal(secretEvent.objectRef?.name, 'token');
  assert.deepEqual(secretEvent.requestObject.data, { k: 'dg==' });
  assert.equal(configMapEvent.level, 'Metadata');
  assert.equal(configMapEvent.objectRef?.name, 'settings');
  assert.equal(configMapEvent.requestObject, undefined);
});
