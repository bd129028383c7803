// ValidatingAdmissionPolicies and their bindings enforced: validations denying, warning
// and auditing as the binding's validationActions say, parameters from a paramRef (by
// name and by selector, parameterNotFoundAction), matchConditions, variables,
// messageExpression, reason, and failurePolicy for expressions that cannot be evaluated.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const policiesPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const bindingsPath = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

describe('ValidatingAdmissionPolicy', () => {
  let server: TestServer;
  let seq = 0;

  before(async () => void (server = await startServer()));
  after(() => server?.stop());

  /** A namespace of the test's own, which the policy's namespaceSelector picks. */
  async function namespace(): Promise<string> {
    const name = `vap-${++seq}`;
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name, labels: { vap: name } } } })).status, 201);
    return name;
  }

  async function policy(name: string, ns: string, spec: Record<string, unknown>): Promise<void> {
    const body = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }],
          namespaceSelector: { matchLabels: { vap: ns } },
        },
        ...spec,
      },
    };
    const res = await server.request('POST', policiesPath, { body });
    assert.equal(res.status, 201, res.text);
  }

  async function binding(name: string, spec: Record<string, unknown>): Promise<void> {
    const res = await server.request('POST', bindingsPath, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec } });
    assert.equal(res.status, 201, res.text);
  }

  const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, data });
  const create = (ns: string, body: unknown) => server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body });

  test('Deny refuses with upstream\'s message and reason; Warn warns; Audit lets it through', async () => {
    const ns = await namespace();
    await policy('size-limit', ns, { validations: [{ expression: "size(object.data) <= 2", message: 'at most two keys' }] });
    await binding('size-limit-deny', { policyName: 'size-limit', validationActions: ['Deny'] });
    const refused = await eventually(async () => {
      const res = await create(ns, configMap('big', { a: '1', b: '2', c: '3' }));
      assert.equal(res.status, 422, res.text);
      return res;
    });
    const message = "ValidatingAdmissionPolicy 'size-limit' with binding 'size-limit-deny' denied request: at most two keys";
    assert.equal(refused.json.reason, 'Invalid');
    assert.equal(refused.json.message, `configmaps "big" is forbidden: ${message}`);
    assert.deepEqual(refused.json.details, { name: 'big', kind: 'configmaps', causes: [{ message }] });
    assert.equal((await create(ns, configMap('small', { a: '1' }))).status, 201);

    await server.request('DELETE', `${bindingsPath}/size-limit-deny`);
    await binding('size-limit-warn', { policyName: 'size-limit', validationActions: ['Warn', 'Audit'] });
    await eventually(async () => {
      const res = await create(ns, configMap(`warned-${++seq}`, { a: '1', b: '2', c: '3' }));
      assert.equal(res.status, 201, res.text);
      assert.equal(res.headers.warning, "299 - \"Validation failed for ValidatingAdmissionPolicy 'size-limit' with binding 'size-limit-warn': at most two keys\"");
    });
    await server.request('DELETE', `${bindingsPath}/size-limit-warn`);
  });

  test('a policy for autoscaling/v2 checks a v1 HorizontalPodAutoscaler as v2 (matchPolicy Equivalent); Exact does not', async () => {
    const ns = await namespace();
    const v2Only = (matchPolicy: string) => ({
      matchConstraints: {
        resourceRules: [{ apiGroups: ['autoscaling'], apiVersions: ['v2'], operations: ['CREATE'], resources: ['horizontalpodautoscalers'] }],
        namespaceSelector: { matchLabels: { vap: ns } },
        matchPolicy,
      },
    });
    // v2's metrics list exists only in the converted object; request names both kinds.
    await policy(`hpa-cpu-${ns}`, ns, {
      ...v2Only('Equivalent'),
      validations: [{
        expression: "object.spec.metrics.all(m, m.resource.target.averageUtilization <= 80)",
        messageExpression: "'as ' + request.kind.version + ' asked as ' + request.requestKind.version + ': at most 80%'",
      }],
    });
    await binding(`hpa-cpu-${ns}`, { policyName: `hpa-cpu-${ns}`, validationActions: ['Deny'] });
    await policy(`hpa-exact-${ns}`, ns, { ...v2Only('Exact'), validations: [{ expression: 'false', message: 'exact matched' }] });
    await binding(`hpa-exact-${ns}`, { policyName: `hpa-exact-${ns}`, validationActions: ['Deny'] });
    const hpa = (name: string, cpu: number) => ({
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3, targetCPUUtilizationPercentage: cpu },
    });
    const refused = await eventually(async () => {
      const res = await server.request('POST', `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`, { body: hpa(`hot-${++seq}`, 95) });
      assert.equal(res.status, 422, res.text);
      return res;
    });
    assert.match(refused.json.message, /denied request: as v2 asked as v1: at most 80%$/);
    const fine = await server.request('POST', `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`, { body: hpa('cool', 50) });
    assert.equal(fine.status, 201, fine.text);
  });

  test('params from a paramRef: by name, by selector, and parameterNotFoundAction', async () => {
    const ns = await namespace();
    // The parameters live where the policy does not look (a namespace without its label).
    const paramsNs = `${ns}-params`;
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: paramsNs } } })).status, 201);
    await policy('max-keys', ns, {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConditions: [{ name: 'not-exempt', expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }],
      variables: [{ name: 'limit', expression: "int(params.data.max)" }],
      validations: [{ expression: 'size(object.data) <= variables.limit', messageExpression: "'at most ' + string(variables.limit) + ' keys, got ' + string(size(object.data))", reason: 'Forbidden' }],
    });
    await binding('max-keys-by-name', { policyName: 'max-keys', validationActions: ['Deny'], paramRef: { name: 'limits', namespace: paramsNs, parameterNotFoundAction: 'Deny' } });
    // No params yet: denied, as parameterNotFoundAction says.
    const missing = await eventually(async () => {
      const res = await create(ns, configMap('first', { a: '1' }));
      assert.equal(res.status, 422, res.text);
      return res;
    });
    assert.match(missing.json.message, /no params found for policy binding with `Deny` parameterNotFoundAction$/);
    assert.equal((await create(paramsNs, configMap('limits', { max: '1' }))).status, 201);
    const tooMany = await create(ns, configMap('second', { a: '1', b: '2' }));
    assert.equal(tooMany.status, 403, tooMany.text);
    assert.equal(tooMany.json.reason, 'Forbidden');
    assert.match(tooMany.json.message, /denied request: at most 1 keys, got 2$/);
    assert.equal((await create(ns, configMap('third', { a: '1' }))).status, 201);
    assert.equal((await create(ns, configMap('exempted', { a: '1', b: '2' }, { exempt: 'yes' }))).status, 201, 'a false match condition: not checked');
    await server.request('DELETE', `${bindingsPath}/max-keys-by-name`);

    // By selector: every matching ConfigMap is a parameter set, and each must pass.
    await binding('max-keys-by-selector', {
      policyName: 'max-keys', validationActions: ['Deny'],
      paramRef: { selector: { matchLabels: { role: 'limit' } }, namespace: paramsNs, parameterNotFoundAction: 'Allow' },
    });
    await eventually(async () => assert.equal((await create(ns, configMap(`free-${++seq}`, { a: '1', b: '2' }))).status, 201, 'no params, Allow'));
    assert.equal((await create(paramsNs, configMap('limits-loose', { max: '5' }, { role: 'limit' }))).status, 201);
    assert.equal((await create(paramsNs, configMap('limits-tight', { max: '2' }, { role: 'limit' }))).status, 201);
    const overTight = await create(ns, configMap('three', { a: '1', b: '2', c: '3' }));
    assert.equal(overTight.status, 403, overTight.text);
    assert.match(overTight.json.message, /at most 2 keys, got 3$/);
    await server.request('DELETE', `${bindingsPath}/max-keys-by-selector`);
  });

  test('failurePolicy: an expression that cannot be evaluated denies under Fail, is skipped under Ignore', async () => {
    const ns = await namespace();
    await policy('needs-label', ns, { failurePolicy: 'Fail', validations: [{ expression: "object.metadata.labels['team'] != ''" }] });
    await binding('needs-label', { policyName: 'needs-label', validationActions: ['Deny'] });
    const failed = await eventually(async () => {
      const res = await create(ns, configMap('unlabelled', {}, { other: 'x' }));
      assert.equal(res.status, 422, res.text);
      return res;
    });
    // cel-go's words for a missing key (cel-js says "No such key").
    assert.match(failed.json.message, /denied request: expression 'object\.metadata\.labels\['team'\] != ''' resulted in error: no such key: team$/);
    const empty = await create(ns, configMap('empty-team', {}, { team: '' }));
    assert.equal(empty.status, 422, empty.text);
    assert.match(empty.json.message, /denied request: failed expression: object\.metadata\.labels\['team'\] != ''$/);

    const current = (await server.request('GET', `${policiesPath}/needs-label`)).json;
    current.spec.failurePolicy = 'Ignore';
    assert.equal((await server.request('PUT', `${policiesPath}/needs-label`, { body: current })).status, 200);
    await eventually(async () => assert.equal((await create(ns, configMap(`ignored-${++seq}`, {}, { other: 'x' }))).status, 201));
  });

  test('type checking against the matched kinds is reported in the policy\'s status', async () => {
    const body = {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'typed' },
      spec: {
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }] },
        validations: [
          { expression: 'object.spec.replicas <= 5' },
          { expression: 'object.spec.replica <= 5', messageExpression: "'too many: ' + string(object.spec.replicas)" },
          // Well typed against a Deployment: objects are nullable, a Quantity is dyn.
          { expression: "(oldObject == null || object.metadata.name == oldObject.metadata.name) && object.spec.template.spec.containers.all(c, !has(c.resources.limits) || !('cpu' in c.resources.limits) || c.resources.limits.cpu != '0')" },
        ],
        // A string or null: a string and null do not join (cel-go finds no overload for '_?_:_').
        auditAnnotations: [{ key: 'replicas', valueExpression: "object.spec.replicas == 'three' ? 'three' : ''" }],
      },
    };
    assert.equal((await server.request('POST', policiesPath, { body })).status, 201);
    const status = await eventually(async () => {
      const res = await server.request('GET', `${policiesPath}/typed`);
      assert.equal(res.json.status?.observedGeneration, 1, JSON.stringify(res.json.status));
      return res.json.status;
    });
    assert.deepEqual(status.typeChecking, {
      expressionWarnings: [{
        fieldRef: 'spec.validations[1].expression',
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n | object.spec.replica <= 5\n | ...........^",
      }, {
        // Types as upstream's checker gives them: replicas is an int.
        fieldRef: 'spec.auditAnnotations[0].valueExpression',
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(int, string)'\n | object.spec.replicas == 'three' ? 'three' : ''\n | .....................^",
      }],
    });
    // Fixed: a new generation, checked again, no warnings.
    const current = (await server.request('GET', `${policiesPath}/typed`)).json;
    current.spec.validations[1].expression = 'object.spec.replicas >= 1';
    current.spec.auditAnnotations[0].valueExpression = "object.spec.replicas == 3 ? 'three' : ''";
    assert.equal((await server.request('PUT', `${policiesPath}/typed`, { body: current })).status, 200);
    await eventually(async () => {
      const res = await server.request('GET', `${policiesPath}/typed`);
      assert.equal(res.json.status?.observedGeneration, 2);
      assert.deepEqual(res.json.status.typeChecking, {});
    });
  });

  test('expressions that do not compile refuse the policy with 422', async () => {
    const res = await server.request('POST', policiesPath, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'broken' },
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
          variables: [{ name: 'v', expression: 'object.' }],
          validations: [{ expression: 'size(object.data) <', messageExpression: "'unterminated" }],
        },
      },
    });
    assert.equal(res.status, 422, res.text);
    const fields = res.json.details.causes.map((c: { field: string; message: string }) => [c.field, c.message.replace(/ERROR: <input>: .*/, 'ERROR: <input>: …')]);
    assert.deepEqual(fields, [
      ['spec.variables[0].expression', 'Invalid value: "object.": compilation failed: ERROR: <input>: …'],
      ['spec.validations[0].expression', 'Invalid value: "size(object.data) <": compilation failed: ERROR: <input>: …'],
      ['spec.validations[0].messageExpression', 'Invalid value: "\'unterminated": compilation failed: ERROR: <input>: …'],
    ]);
  });

  test('a field the AdmissionRequest type lacks refuses the policy: request is typed, object stays dyn', async () => {
    const res = await server.request('POST', policiesPath, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'untyped-request' },
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
          matchConditions: [{ name: 'user', expression: "request.user == 'x'" }],
          validations: [{ expression: "object.anything == 1 && request.userInfo.username != ''" }, { expression: "request.operation == 'CREATE'", messageExpression: 'request.verb' }],
        },
      },
    });
    assert.equal(res.status, 422, res.text);
    assert.deepEqual(res.json.details.causes.map((c: { field: string; message: string }) => [c.field, c.message]), [
      ['spec.matchConditions[0].expression', `Invalid value: "request.user == 'x'": compilation failed: ERROR: <input>:1:8: undefined field 'user'\n | request.user == 'x'\n | .......^`],
      ['spec.validations[1].messageExpression', 'Invalid value: "request.verb": compilation failed: ERROR: <input>:1:8: undefined field \'verb\'\n | request.verb\n | .......^'],
    ]);
  });

  test('expressions of the wrong type refuse the policy as upstream\'s compiler words it', async () => {
    const res = await server.request('POST', policiesPath, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'mistyped' },
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
          validations: [{ expression: 'object.data', messageExpression: '0 == 0' }, { expression: 'true', messageExpression: "'fine'" }],
          auditAnnotations: [{ key: 'a', valueExpression: 'true' }, { key: 'b', valueExpression: 'null' }, { key: 'c', valueExpression: "object.x ? 'x' : null" }, { key: 'd', valueExpression: ' object.x in [1, 2, ' }],
        },
      },
    });
    assert.equal(res.status, 422, res.text);
    const causes = res.json.details.causes.map((c: { field: string; message: string }) => [c.field, c.message.replace(/ERROR: <input>: .*/s, 'ERROR: <input>: …')]);
    assert.deepEqual(causes, [
      ['spec.validations[0].expression', 'Invalid value: "object.data": must evaluate to bool'],
      ['spec.validations[0].messageExpression', 'Invalid value: "0 == 0": must evaluate to string'],
      ['spec.auditAnnotations[0].valueExpression', 'Invalid value: "true": must evaluate to one of [string null_type]'],
      // A string and null do not join in a conditional (cel-go's checker: '_?_:_' applied to '(bool, string, null)').
      ['spec.auditAnnotations[2].valueExpression', `Invalid value: "object.x ? 'x' : null": compilation failed: ERROR: <input>:1:10: found no matching overload for '_?_:_' applied to '(bool, string, null)'\n | object.x ? 'x' : null\n | .........^`],
      // Compiled trimmed, shown as written.
      ['spec.auditAnnotations[3].valueExpression', 'Invalid value: " object.x in [1, 2, ": compilation failed: ERROR: <input>: …'],
    ]);
  });

  test('requests outside the policy\'s constraints or the binding\'s matchResources are not checked', async () => {
    const ns = await namespace();
    await policy('no-data', ns, { validations: [{ expression: '!has(object.data)' }] });
    await binding('no-data', {
      policyName: 'no-data', validationActions: ['Deny'],
      matchResources: { objectSelector: { matchLabels: { checked: 'yes' } } },
    });
    await eventually(async () => assert.equal((await create(ns, configMap(`checked-${++seq}`, { a: '1' }, { checked: 'yes' }))).status, 422));
    assert.equal((await create(ns, configMap('unchecked', { a: '1' }))).status, 201, 'outside the binding\'s matchResources');
    const other = await namespace();
    assert.equal((await create(other, configMap('elsewhere', { a: '1' }, { checked: 'yes' }))).status, 201, 'outside the policy\'s namespaceSelector');
  });
});
