// ValidatingAdmissionPolicies evaluated as upstream's validating dispatcher and validator do
// (k8s.io/apiserver plugin/policy/validating): which message a failed validation carries,
// bindings that cannot be configured (no params under `Deny`, a paramKind not served)
// denying whatever their validationActions unless failurePolicy is Ignore, and what Audit
// and auditAnnotations write into the request's audit event, on DELETE and dry runs too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '../helpers/eventually.ts';
import { startServer, tempDir, type Response, type TestServer } from '../helpers/server.ts';

const policiesPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const bindingsPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

describe('ValidatingAdmissionPolicy evaluation as upstream\'s', () => {
  let server: TestServer;
  const dir = tempDir('plinth-vap-sweep-');
  const auditLog = path.join(dir, 'audit.log');

  before(async () => {
    writeFileSync(path.join(dir, 'audit-policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    server = await startServer({ auditPolicyFile: path.join(dir, 'audit-policy.yaml'), auditLogPath: auditLog });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A policy over the ConfigMaps of a namespace of its own (named after it), and that namespace. */
  async function policy(name: string, spec: Record<string, unknown>): Promise<string> {
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name, labels: { sweep: name } } } })).status, 201);
    const res = await server.request('POST', policiesPath, {
      body: {
        metadata: { name },
        spec: {
          matchConstraints: {
            resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'DELETE'], resources: ['configmaps'] }],
            namespaceSelector: { matchLabels: { sweep: name } },
          },
          ...spec,
        },
      },
    });
    assert.equal(res.status, 201, res.text);
    return name;
  }

  async function binding(name: string, spec: Record<string, unknown>): Promise<void> {
    const res = await server.request('POST', bindingsPath, { body: { metadata: { name }, spec } });
    assert.equal(res.status, 201, res.text);
  }

  let seq = 0;
  const create = (ns: string, dryRun = false) => server.request('POST', `/api/v1/namespaces/${ns}/configmaps${dryRun ? '?dryRun=All' : ''}`, { body: { metadata: { name: `cm-${++seq}` }, data: { k: 'v' } } });
  /** The first answer once the binding is in force (the policy's answer differs from a plain 201). */
  const enforced = (ns: string, check: (res: Response) => void) => eventually(async () => {
    const res = await create(ns);
    check(res);
    return res;
  });

  /** The annotations of a request's audit event at ResponseComplete. */
  const annotationsOf = (res: Response) => eventually(() => {
    const events = readFileSync(auditLog, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const complete = events.find((e) => e.auditID === res.headers['audit-id'] && e.stage === 'ResponseComplete');
    assert.ok(complete, 'the request\'s event is written');
    return complete.annotations as Record<string, string>;
  });

  const warnings = (res: Response) => String(res.headers.warning ?? '').split(/(?<="), (?=299)/);

  test('a failed validation\'s message: messageExpression before message, trimmed; past 5 KiB or on error, the message; else the expression', async () => {
    const ns = await policy('messages', {
      validations: [
        { expression: 'false', message: 'the message', messageExpression: "' from the expression '" },
        { expression: 'false', message: '  the message, trimmed  ' },
        { expression: 'false', message: 'instead of a long one', messageExpression: `'${'x'.repeat(5 * 1024 + 1)}'` },
        { expression: 'false', message: 'instead of two lines', messageExpression: "'two\\nlines'" },
        { expression: 'false', message: 'instead of an error', messageExpression: 'string(object.data.missing)' },
        { expression: '  1 > 2  ', messageExpression: "'   '" },
      ],
    });
    await binding('messages', { policyName: 'messages', validationActions: ['Warn'] });
    const res = await enforced(ns, (r) => assert.ok(r.headers.warning, r.text));
    assert.equal(res.status, 201, res.text);
    const warned = (message: string) => `299 - "Validation failed for ValidatingAdmissionPolicy 'messages' with binding 'messages': ${message}"`;
    assert.deepEqual(warnings(res), [
      warned('from the expression'),
      warned('the message, trimmed'),
      warned('instead of a long one'),
      warned('instead of two lines'),
      warned('instead of an error'),
      warned('failed expression: 1 > 2'),
    ]);
  });

  test('no params under parameterNotFoundAction Deny denies whatever the binding\'s validationActions; under failurePolicy Ignore it does not', async () => {
    const ns = await policy('no-params', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }] });
    await binding('no-params', { policyName: 'no-params', validationActions: ['Warn', 'Audit'], paramRef: { name: 'absent', parameterNotFoundAction: 'Deny' } });
    const refused = await enforced(ns, (r) => assert.equal(r.status, 422, r.text));
    const message = "ValidatingAdmissionPolicy 'no-params' with binding 'no-params' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction";
    assert.equal(refused.json.reason, 'Invalid');
    assert.equal(refused.json.message, `configmaps "${refused.json.details.name}" is forbidden: ${message}`);
    assert.deepEqual(refused.json.details.causes, [{ message }]);
    assert.equal(refused.headers.warning, undefined, 'a binding that cannot be configured warns of nothing');
    assert.equal((await annotationsOf(refused))['validation.policy.admission.k8s.io/validation_failure'], undefined);

    const current = (await server.request('GET', `${policiesPath}/no-params`)).json;
    current.spec.failurePolicy = 'Ignore';
    assert.equal((await server.request('PUT', `${policiesPath}/no-params`, { body: current })).status, 200);
    await enforced(ns, (r) => assert.equal(r.status, 201, r.text));
  });

  test('a paramKind that is not served denies as the policy\'s failure, naming no binding', async () => {
    const ns = await policy('unserved-params', { paramKind: { apiVersion: 'example.com/v1', kind: 'Missing' }, validations: [{ expression: 'true' }] });
    await binding('unserved-params', { policyName: 'unserved-params', validationActions: ['Warn'], paramRef: { name: 'p', parameterNotFoundAction: 'Allow' } });
    const refused = await enforced(ns, (r) => assert.equal(r.status, 422, r.text));
    const message = "ValidatingAdmissionPolicy 'unserved-params' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Missing'";
    assert.equal(refused.json.message, `configmaps "${refused.json.details.name}" is forbidden: ${message}`);
    assert.deepEqual(refused.json.details.causes, [{ message }]);
  });

  test('Audit and auditAnnotations annotate the audit event; on DELETE object is null and oldObject set; a dry run says so', async () => {
    const ns = await policy('audited', {
      validations: [{ expression: "request.operation != 'DELETE'", messageExpression: "string(object == null) + ' ' + oldObject.metadata.name + ' dryRun=' + string(request.dryRun)" }],
      auditAnnotations: [{ key: 'operation', valueExpression: "'  ' + request.operation + '  '" }, { key: 'none', valueExpression: 'null' }, { key: 'blank', valueExpression: "' '" }],
    });
    await binding('audited', { policyName: 'audited', validationActions: ['Audit'] });
    const created = await eventually(async () => {
      const res = await create(ns);
      assert.equal((await annotationsOf(res))['audited/operation'], 'CREATE', 'the binding is in force');
      return res;
    });
    assert.equal(created.status, 201, created.text);
    const name = created.json.metadata.name;

    const dryRun = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}?dryRun=All`);
    assert.equal(dryRun.status, 200, dryRun.text);
    const failure = (dry: boolean) => JSON.stringify([{ message: `true ${name} dryRun=${dry}`, policy: 'audited', binding: 'audited', expressionIndex: 0, validationActions: ['Audit'] }]);
    const dryAnnotations = await annotationsOf(dryRun);
    assert.equal(dryAnnotations['validation.policy.admission.k8s.io/validation_failure'], failure(true));
    assert.equal(dryAnnotations['audited/operation'], 'DELETE');
    assert.equal(dryAnnotations['audited/none'], undefined);
    assert.equal(dryAnnotations['audited/blank'], undefined);

    const deleted = await server.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/${name}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await annotationsOf(deleted))['validation.policy.admission.k8s.io/validation_failure'], failure(false));
  });
});
