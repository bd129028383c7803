// The audit log's legacy format (upstream's audit.EventString) and the truncate backend
// (`--audit-<backend>-truncate-*`): objects dropped from events over the size, annotated,
// events still too large dropped with upstream's plugin error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { legacyEventString, truncatingSink } from '../../src/server/audit.ts';

const event = {
  kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: 'a1b2', stage: 'ResponseComplete',
  requestURI: '/api/v1/namespaces/dev/configmaps?fieldManager=kubectl', verb: 'create',
  user: { username: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'] },
  sourceIPs: ['10.0.0.7', '127.0.0.1'], userAgent: 'kubectl/v1.32.0 (linux/amd64) "quoted"',
  objectRef: { resource: 'configmaps', namespace: 'dev', name: 'c', apiVersion: 'v1' },
  responseStatus: { metadata: {}, code: 201 },
  requestObject: { data: { a: 'x'.repeat(2000) } }, responseObject: { data: { a: 'x'.repeat(2000) } },
  requestReceivedTimestamp: '2026-11-30T20:01:02.120000Z', stageTimestamp: '2026-11-30T20:01:02.130000Z',
};

test('the legacy line: upstream\'s fields, quoting and placeholders', () => {
  assert.equal(legacyEventString(event),
    '2026-11-30T20:01:02.12Z AUDIT: id="a1b2" stage="ResponseComplete" ip="10.0.0.7" method="create" user="alice" groups="\\"dev\\",\\"system:authenticated\\"" '
    + 'as="<self>" asgroups="<lookup>" user-agent="kubectl/v1.32.0 (linux/amd64) \\"quoted\\"" namespace="dev" uri="/api/v1/namespaces/dev/configmaps?fieldManager=kubectl" response="201"');
  const bare = { auditID: 'x', stage: 'RequestReceived', verb: 'get', requestURI: '/healthz', user: { username: 'system:anonymous' }, impersonatedUser: { username: 'bob', groups: ['g'] }, requestReceivedTimestamp: '2026-11-30T20:01:02.000000Z' };
  assert.equal(legacyEventString(bare),
    '2026-11-30T20:01:02Z AUDIT: id="x" stage="RequestReceived" ip="<unknown>" method="get" user="system:anonymous" groups="<none>" as="bob" asgroups="\\"g\\"" user-agent="" namespace="<none>" uri="/healthz" response="<deferred>"');
});

test('truncation: objects dropped and the event annotated over the size; Metadata events and events still too large dropped', () => {
  const written: Record<string, unknown>[] = [];
  const logged: string[] = [];
  const sink = truncatingSink({ write: (e) => written.push(e as Record<string, unknown>) > 0, flush: () => {} }, { maxEventSize: 1500, maxBatchSize: 10_000 }, (m) => logged.push(m));
  const small = { ...event, requestObject: { a: 1 }, responseObject: { b: 2 } };
  sink.write(small);
  assert.equal(written[0], small, 'an event within the size goes on as it is');
  sink.write(event);
  assert.equal(written[1]!.requestObject, undefined);
  assert.equal(written[1]!.responseObject, undefined);
  assert.deepEqual(written[1]!.annotations, { 'audit.k8s.io/truncated': 'true' });
  assert.equal(Object.keys(written[1]!).at(-1), 'annotations');
  sink.write({ ...event, level: 'Metadata', annotations: { big: 'y'.repeat(2000) } });
  sink.write({ ...event, annotations: { big: 'y'.repeat(2000) } });
  assert.equal(written.length, 2);
  assert.equal(logged.length, 2);
  assert.match(logged[1]!, /^Error in audit plugin 'truncate' affecting 1 audit events: event is too large even after truncating\nImpacted events:\n2026-11-30T20:01:02.12Z AUDIT: id="a1b2"/);
});

test('policy rules match resources as upstream\'s checker: the group exactly, resource/* its subresources and itself', async () => {
  const { writeFileSync } = await import('node:fs');
  const path = await import('node:path');
  const { tempDir } = await import('../helpers/server.ts');
  const { auditDecision, loadAuditPolicy } = await import('../../src/server/audit.ts');
  const file = path.join(tempDir('plinth-audit-rules-'), 'policy.yaml');
  writeFileSync(file, [
    'apiVersion: audit.k8s.io/v1', 'kind: Policy', 'rules:',
    '- level: RequestResponse', '  resources: [{group: "", resources: ["pods/*"]}]',
    '- level: Request', '  resources: [{group: "apps", resources: ["deployments"], resourceNames: ["web"]}]',
    '- level: Metadata', '  resources: [{group: "apps"}]',
    '- level: None',
  ].join('\n'));
  const policy = await loadAuditPolicy(file);
  const level = (a: { group?: string; resource: string; subresource?: string; name?: string }) => auditDecision(policy, {
    verb: 'get', group: a.group ?? '', resource: a.resource, subresource: a.subresource ?? '', namespace: 'default', name: a.name ?? '', path: '',
    user: { name: 'u', groups: [] }, resourceRequest: true,
  }).level;
  assert.equal(level({ resource: 'pods', subresource: 'log' }), 'RequestResponse');
  assert.equal(level({ resource: 'pods' }), 'RequestResponse', 'pods/* matches pods too');
  assert.equal(level({ group: 'apps', resource: 'deployments', name: 'web' }), 'Request');
  assert.equal(level({ group: 'apps', resource: 'deployments', name: 'other' }), 'Metadata', 'a group without resources matches all of its resources');
  assert.equal(level({ group: 'batch', resource: 'jobs' }), 'None');
  assert.equal(level({ resource: 'configmaps' }), 'None');
  // A group of "*" is no wildcard upstream: such a policy does not load.
  writeFileSync(file, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: "*", resources: ["*"]}]\n');
  await assert.rejects(loadAuditPolicy(file), /rules\[0\]\.resources\.group: Invalid value: "\*": a lowercase RFC 1123 subdomain/);
});

test('a log write that fails is reported and dropped, never thrown; a directory that went is made again', async () => {
  const { mkdirSync, readFileSync, rmSync } = await import('node:fs');
  const path = await import('node:path');
  const { tempDir } = await import('../helpers/server.ts');
  const { AuditLog } = await import('../../src/server/audit.ts');
  const dir = tempDir('plinth-audit-fail-');
  const nested = path.join(dir, 'gone', 'audit.log');
  const errors: string[] = [];
  const log = new AuditLog({ path: nested, maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0, onError: (m) => errors.push(m) });
  log.write({ auditID: 'a', stage: 'ResponseComplete', verb: 'get', requestURI: '/x', user: { username: 'u' }, requestReceivedTimestamp: '2026-11-30T00:00:00.000000Z' });
  log.flush();
  rmSync(path.join(dir, 'gone'), { recursive: true });
  log.write({ auditID: 'b' });
  log.flush();
  assert.match(readFileSync(nested, 'utf8'), /"auditID":"b"/);
  // A path that cannot be written (a directory) reports the events instead of crashing.
  const blocked = path.join(dir, 'blocked');
  mkdirSync(blocked);
  const broken = new AuditLog({ path: blocked, maxSizeMB: 0, maxBackups: 0, maxAgeDays: 0, onError: (m) => errors.push(m) });
  broken.write({ auditID: 'c', stage: 'ResponseComplete', verb: 'create', requestURI: '/y', user: { username: 'alice' }, requestReceivedTimestamp: '2026-11-30T00:00:00.000000Z' });
  assert.doesNotThrow(() => broken.flush());
  assert.equal(errors.length, 1);
  assert.match(errors[0]!, /^Error in audit plugin 'log' affecting 1 audit events: EISDIR.*\nImpacted events:\n2026-11-30T00:00:00Z AUDIT: id="c" stage="ResponseComplete"/);
});
