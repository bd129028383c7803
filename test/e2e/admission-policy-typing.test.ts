// Admission policies' expressions type-checked when a policy is written, as upstream's
// policy validation compiles them (pkg/apis/admissionregistration/validation, k8s.io/apiserver
// plugin/cel): each variable declared for the expressions after it with its expression's type
// (CompositedCompiler.CompileAndStoreVariable), `request` and `namespaceObject` of upstream's
// types (BuildRequestType, BuildNamespaceType). A type error is 422 in cel-go's words; a
// well-typed expression is accepted, and enforced as before.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/eventually.ts';
import { startServer, type TestServer } from '../helpers/server.ts';

const validatingPolicies = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const validatingBindings = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const mutatingPolicies = '/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies';

type Cause = { field: string; message: string };

describe('admission policy expressions typed as upstream\'s policy validation types them', () => {
  let server: TestServer;
  let seq = 0;
  before(async () => void (server = await startServer()));
  after(() => server?.stop());

  const matchConstraints = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] };
  const validating = (spec: Record<string, unknown>) => server.request('POST', validatingPolicies, { body: { metadata: { name: `typed-${++seq}` }, spec: { matchConstraints, ...spec } } });
  const mutating = (spec: Record<string, unknown>) => server.request('POST', mutatingPolicies, {
    body: { metadata: { name: `typed-${++seq}` }, spec: { matchConstraints, reinvocationPolicy: 'Never', ...spec } },
  });
  /** cel-go's checker error: the position, the message, the line and a caret under the column. */
  const checkerError = (expression: string, column: number, message: string) => `ERROR: <input>:1:${column}: ${message}\n | ${expression}\n | ${'.'.repeat(column - 1)}^`;
  const refusal = (expression: string, column: number, message: string) => `Invalid value: ${JSON.stringify(expression)}: compilation failed: ${checkerError(expression, column, message)}`;
  const causes = (res: { json: { details?: { causes?: Cause[] } } }) => (res.json.details?.causes ?? []).map((c) => [c.field, c.message]);

  const variables = [
    { name: 'size', expression: 'size(object.data)' },
    { name: 'name', expression: "'cm-' + object.metadata.name" },
    { name: 'keys', expression: 'object.data.map(k, k)' },
    { name: 'user', expression: 'request.userInfo.username' },
    { name: 'kind', expression: 'request.kind' },
  ];

  const refused: Array<{ name: string; spec: Record<string, unknown>; causes: Array<[string, string]> }> = [
    {
      name: 'a variable compared with a value of another type',
      spec: { variables, validations: [{ expression: "variables.size > 'a'" }] },
      causes: [['spec.validations[0].expression', refusal("variables.size > 'a'", 16, "found no matching overload for '_>_' applied to '(int, string)'")]],
    },
    {
      name: 'a string variable added to an int',
      spec: { variables, validations: [{ expression: 'variables.name + 1 == 2' }] },
      causes: [['spec.validations[0].expression', refusal('variables.name + 1 == 2', 16, "found no matching overload for '_+_' applied to '(string, int)'")]],
    },
    {
      name: 'two variables of different types compared',
      spec: { variables, validations: [{ expression: 'variables.keys.size() == variables.name' }] },
      causes: [['spec.validations[0].expression', refusal('variables.keys.size() == variables.name', 23, "found no matching overload for '_==_' applied to '(int, string)'")]],
    },
    {
      name: 'a variable typed from request, in a messageExpression and an audit annotation',
      spec: {
        variables,
        validations: [{ expression: 'true', messageExpression: "variables.user + 1 == 'x'" }],
        auditAnnotations: [{ key: 'size', valueExpression: "variables.size + 'x'" }],
      },
      causes: [
        ['spec.validations[0].messageExpression', refusal("variables.user + 1 == 'x'", 16, "found no matching overload for '_+_' applied to '(string, int)'")],
        ['spec.auditAnnotations[0].valueExpression', refusal("variables.size + 'x'", 16, "found no matching overload for '_+_' applied to '(int, string)'")],
      ],
    },
    {
      name: 'a variable of the policy read before it is declared, or one it does not have',
      spec: {
        variables: [{ name: 'bar', expression: 'variables.foo + 1' }, { name: 'foo', expression: '1 + 1' }],
        validations: [{ expression: 'variables.foo > 1' }, { expression: 'variables.replicas == 2' }, { expression: 'has(variables.other)' }],
      },
      causes: [
        ['spec.variables[0].expression', refusal('variables.foo + 1', 10, "undefined field 'foo'")],
        ['spec.validations[1].expression', refusal('variables.replicas == 2', 10, "undefined field 'replicas'")],
        ['spec.validations[2].expression', refusal('has(variables.other)', 14, "undefined field 'other'")],
      ],
    },
    {
      name: 'variables named by a policy that has none',
      spec: { validations: [{ expression: 'variables.a == 1' }] },
      causes: [['spec.validations[0].expression', refusal('variables.a == 1', 1, "undeclared reference to 'variables' (in container '')")]],
    },
    {
      name: 'request\'s and namespaceObject\'s fields used as another type',
      spec: {
        matchConditions: [{ name: 'named', expression: 'request.name + 1 == 2' }],
        validations: [{ expression: "request.dryRun == 'x'" }, { expression: "namespaceObject.metadata.labels == 'x'" }, { expression: 'request.kind == 1' }],
      },
      causes: [
        ['spec.matchConditions[0].expression', refusal('request.name + 1 == 2', 14, "found no matching overload for '_+_' applied to '(string, int)'")],
        ['spec.validations[0].expression', refusal("request.dryRun == 'x'", 16, "found no matching overload for '_==_' applied to '(bool, string)'")],
        ['spec.validations[1].expression', refusal("namespaceObject.metadata.labels == 'x'", 33, "found no matching overload for '_==_' applied to '(map(string, string), string)'")],
        ['spec.validations[2].expression', refusal('request.kind == 1', 14, "found no matching overload for '_==_' applied to '(kubernetes.GroupVersionKind, int)'")],
      ],
    },
  ];

  for (const c of refused) {
    test(`${c.name} refuses the ValidatingAdmissionPolicy (422)`, async () => {
      const res = await validating(c.spec);
      assert.equal(res.status, 422, res.text);
      assert.deepEqual(causes(res), c.causes);
    });
  }

  test('well-typed expressions over variables and request are accepted, request\'s fields with their own types', async () => {
    const res = await validating({
      variables: [...variables, { name: 'alias', expression: 'variables.size' }],
      validations: [
        { expression: 'variables.alias <= 2 && variables.keys.size() == variables.size', messageExpression: "variables.name + ' has ' + string(variables.size) + ' keys'" },
        { expression: 'request.dryRun', messageExpression: 'request.name' },
        { expression: "request.kind == request.requestKind && request.kind != null && variables.kind.group == ''" },
      ],
      auditAnnotations: [{ key: 'user', valueExpression: 'variables.user' }],
    });
    assert.equal(res.status, 201, res.text);
  });

  test('a well-typed policy over its variables is enforced at admission as before', async () => {
    const ns = `typed-enforced-${++seq}`;
    assert.equal((await server.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns, labels: { typed: ns } } } })).status, 201);
    const name = `typed-${++seq}`;
    const created = await server.request('POST', validatingPolicies, {
      body: {
        metadata: { name },
        spec: {
          matchConstraints: { ...matchConstraints, namespaceSelector: { matchLabels: { typed: ns } } },
          variables: variables.slice(0, 2),
          validations: [{ expression: 'variables.size <= 1', messageExpression: "variables.name + ' has ' + string(variables.size) + ' keys'" }],
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((await server.request('POST', validatingBindings, { body: { metadata: { name }, spec: { policyName: name, validationActions: ['Deny'] } } })).status, 201);
    const res = await eventually(async () => {
      const r = await server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'two' }, data: { a: '1', b: '2' } } });
      assert.equal(r.status, 422, r.text);
      return r;
    });
    assert.equal(res.json.message, `configmaps "two" is forbidden: ValidatingAdmissionPolicy '${name}' with binding '${name}' denied request: cm-two has 2 keys`);
  });

  test('a MutatingAdmissionPolicy\'s mutations see its variables typed: a type error refuses it, a well-typed one is accepted', async () => {
    const vars = [{ name: 'size', expression: 'size(object.data)' }];
    const mutation = (expression: string) => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
    const bad = await mutating({ variables: vars, mutations: [mutation("Object{metadata: Object.metadata{labels: {'size': variables.size + 'x'}}}")] });
    assert.equal(bad.status, 422, bad.text);
    const [cause] = (bad.json.details?.causes ?? []) as Cause[];
    assert.equal(cause?.field, 'spec.mutations[0].applyConfiguration.expression');
    assert.match(cause!.message, /compilation failed: ERROR: <input>:1:\d+: found no matching overload for '_\+_' applied to '\(int, string\)'/);
    const good = await mutating({ variables: vars, mutations: [mutation("Object{metadata: Object.metadata{labels: {'size': string(variables.size)}}}")] });
    assert.equal(good.status, 201, good.text);
  });
});
