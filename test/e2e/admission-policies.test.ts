// Validating admission policies and bindings over HTTP: kubectl apply of valid ones (with
// upstream's defaults filled in), kubectl get's columns, and 422 with upstream's messages
// for invalid ones.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl as run, needsKubectl } from '../helpers/kubectl.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const group = '/apis/admissionregistration.k8s.io/v1';

let server: TestServer;
let dir: string;
before(async () => {
  server = await startServer();
  dir = mkdtempSync(join(tmpdir(), 'policies-'));
});
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const kubectl = (...args: string[]) => run(server, ...args);

const manifest = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
    message: "at most 5 replicas"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit
  validationActions: [Deny, Audit]
  paramRef:
    name: limits
    namespace: default
`;

describe('admission policies', needsKubectl, () => {
  test('kubectl apply of a valid policy and binding; defaults filled in; kubectl get columns', async () => {
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, manifest);
    const applied = await kubectl('apply', '-f', file);
    assert.match(applied, /validatingadmissionpolicy\.admissionregistration\.k8s\.io\/replica-limit created/);
    assert.match(applied, /validatingadmissionpolicybinding\.admissionregistration\.k8s\.io\/replica-limit-binding created/);

    const policy = (await server.request('GET', `${group}/validatingadmissionpolicies/replica-limit`)).json as { metadata: { generation: number }; spec: Record<string, any> };
    assert.equal(policy.metadata.generation, 1);
    assert.equal(policy.spec.failurePolicy, 'Fail');
    assert.equal(policy.spec.matchConstraints.matchPolicy, 'Equivalent');
    assert.deepEqual(policy.spec.matchConstraints.namespaceSelector, {});
    assert.equal(policy.spec.matchConstraints.resourceRules[0].scope, '*');
    const binding = (await server.request('GET', `${group}/validatingadmissionpolicybindings/replica-limit-binding`)).json as { spec: Record<string, any> };
    assert.equal(binding.spec.paramRef.parameterNotFoundAction, 'Deny');

    // Applying the same file again resends the rules (a list kubectl replaces whole, and the
    // stored one has its scope defaulted) but changes nothing once defaulted: the generation stays.
    await kubectl('apply', '-f', file);
    const again = (await server.request('GET', `${group}/validatingadmissionpolicies/replica-limit`)).json as { metadata: { generation: number } };
    assert.equal(again.metadata.generation, 1);

    const out = await kubectl('get', 'validatingadmissionpolicies', 'replica-limit');
    assert.deepEqual(out.split('\n')[0]!.trim().split(/\s{2,}/), ['NAME', 'VALIDATIONS', 'PARAMKIND', 'AGE']);
    assert.match(out, /^replica-limit\s+1\s+v1\/ConfigMap\s+\d+s$/m);
    const bindings = await kubectl('get', 'validatingadmissionpolicybindings', 'replica-limit-binding');
    assert.deepEqual(bindings.split('\n')[0]!.trim().split(/\s{2,}/), ['NAME', 'POLICYNAME', 'PARAMREF', 'AGE']);
    assert.match(bindings, /^replica-limit-binding\s+replica-limit\s+default\/limits\s+\d+s$/m);
  });

  const invalid: [string, string, object, string[]][] = [
    ['a policy without validations', 'validatingadmissionpolicies',
      { kind: 'ValidatingAdmissionPolicy', metadata: { name: 'bad-policy' }, spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] } } },
      ['spec.validations: Required value: validations or auditAnnotations must contain at least one item', 'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item']],
    ['a policy with a multi-line message and an unknown reason', 'validatingadmissionpolicies',
      { kind: 'ValidatingAdmissionPolicy', metadata: { name: 'bad-message' }, spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }, validations: [{ expression: 'true', message: 'a\nb', reason: 'Gone' }] } },
      ['spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks', 'spec.validations[0].reason: Unsupported value: "Gone": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"']],
    ['a binding with Deny and Warn', 'validatingadmissionpolicybindings',
      { kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'bad-binding' }, spec: { policyName: 'replica-limit', validationActions: ['Deny', 'Warn'] } },
      ['spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)']],
    ['a mutating policy matching DELETE without mutations', 'mutatingadmissionpolicies',
      { kind: 'MutatingAdmissionPolicy', metadata: { name: 'bad-mutating' }, spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE'], resources: ['pods'] }] } } },
      ['spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"', 'spec.mutations: Required value: mutations must contain at least one item', 'spec.reinvocationPolicy: Required value']],
    // Upstream declares params only with a paramKind, and no authorizer in a messageExpression.
    ['a policy without paramKind naming params, and authorizer in a messageExpression', 'validatingadmissionpolicies',
      { kind: 'ValidatingAdmissionPolicy', metadata: { name: 'no-params' }, spec: {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
        matchConditions: [{ name: 'm', expression: 'params != null' }],
        validations: [{ expression: 'params != null', messageExpression: "authorizer == null ? '' : 'x'" }],
      } },
      [
        "spec.matchConditions[0].expression: Invalid value: \"params != null\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params != null\n | ^",
        "spec.validations[0].expression: Invalid value: \"params != null\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params != null\n | ^",
        "spec.validations[0].messageExpression: Invalid value: \"authorizer == null ? '' : 'x'\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer == null ? '' : 'x'\n | ^",
      ]],
  ];
  for (const [name, resource, body, expected] of invalid) {
    test(`${name}: 422 with upstream's messages`, async () => {
      const res = await server.request('POST', `${group}/${resource}`, { body: { apiVersion: 'admissionregistration.k8s.io/v1', ...body } });
      assert.equal(res.status, 422, res.text);
      const status = res.json as { reason: string; details: { causes: { field: string; message: string }[] } };
      assert.equal(status.reason, 'Invalid');
      assert.deepEqual(status.details.causes.map((c) => `${c.field}: ${c.message}`), expected);
    });
  }
});
