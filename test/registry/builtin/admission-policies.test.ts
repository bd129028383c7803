// Strategies of admissionregistration.k8s.io/v1 validating and mutating admission policies
// and their bindings: defaults, generation and validation, case by case.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate, storeUpdate } from '../../helpers/store.ts';

const group = 'admissionregistration.k8s.io/v1';
const vaps = builtinType('validatingadmissionpolicies');
const vapbs = builtinType('validatingadmissionpolicybindings');
const maps = builtinType('mutatingadmissionpolicies');
const mapbs = builtinType('mutatingadmissionpolicybindings');

const podRule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] };

function object(kind: string, spec: Record<string, unknown>, name = 'p'): KubeObject {
  return { apiVersion: group, kind, metadata: { name }, spec } as KubeObject;
}

function vap(extra: Record<string, unknown> = {}): KubeObject {
  return object('ValidatingAdmissionPolicy', { matchConstraints: { resourceRules: [podRule] }, validations: [{ expression: 'true' }], ...extra });
}

function map(extra: Record<string, unknown> = {}): KubeObject {
  return object('MutatingAdmissionPolicy', {
    matchConstraints: { resourceRules: [podRule] },
    mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }],
    reinvocationPolicy: 'Never',
    ...extra,
  });
}

function vapb(extra: Record<string, unknown> = {}): KubeObject {
  return object('ValidatingAdmissionPolicyBinding', { policyName: 'p', validationActions: ['Deny'], ...extra }, 'b');
}

function mapb(extra: Record<string, unknown> = {}): KubeObject {
  return object('MutatingAdmissionPolicyBinding', { policyName: 'p', ...extra }, 'b');
}

const defaultedMatch = { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ ...podRule, scope: '*' }] };

describe('defaults', () => {
  test('validating policy: failurePolicy, matchPolicy, selectors and rule scope', async () => {
    const { obj, causes } = await storeCreate(vaps, vap());
    assert.deepEqual(causes, []);
    assert.deepEqual(obj.spec, { failurePolicy: 'Fail', matchConstraints: defaultedMatch, validations: [{ expression: 'true' }] });
    assert.equal(obj.metadata.generation, 1);
  });

  test('mutating policy: reinvocationPolicy kept as sent (it has no default)', async () => {
    const { obj, causes } = await storeCreate(maps, map());
    assert.deepEqual(causes, []);
    assert.deepEqual(obj.spec, {
      failurePolicy: 'Fail', reinvocationPolicy: 'Never', matchConstraints: defaultedMatch,
      mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }],
    });
  });

  test('bindings: paramRef parameterNotFoundAction Deny and matchResources defaults', async () => {
    for (const [type, binding] of [[vapbs, vapb], [mapbs, mapb]] as const) {
      const { obj, causes } = await storeCreate(type, binding({ paramRef: { name: 'params' }, matchResources: { excludeResourceRules: [podRule] } }));
      assert.deepEqual(causes, []);
      const spec = obj.spec as Record<string, unknown>;
      assert.deepEqual(spec.paramRef, { name: 'params', parameterNotFoundAction: 'Deny' });
      assert.deepEqual(spec.matchResources, { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, excludeResourceRules: [{ ...podRule, scope: '*' }] });
    }
  });

  test('explicit values are kept', async () => {
    const { obj } = await storeCreate(maps, map({ failurePolicy: 'Ignore', reinvocationPolicy: 'IfNeeded', matchConstraints: { matchPolicy: 'Exact', resourceRules: [{ ...podRule, scope: 'Namespaced' }] } }));
    const spec = obj.spec as Record<string, any>;
    assert.equal(spec.failurePolicy, 'Ignore');
    assert.equal(spec.reinvocationPolicy, 'IfNeeded');
    assert.equal(spec.matchConstraints.matchPolicy, 'Exact');
    assert.equal(spec.matchConstraints.resourceRules[0].scope, 'Namespaced');
  });
});

describe('generation', () => {
  test('validating policy: spec changes bump it, defaults left out do not; status only through /status', async () => {
    const old = { ...(await storeCreate(vaps, vap())).obj, status: { observedGeneration: 1 } } as KubeObject;
    const same = await storeUpdate(vaps, vap({ status: {} }), old);
    assert.equal(same.obj.metadata.generation, 1);
    assert.deepEqual(same.obj.status, { observedGeneration: 1 });
    const changed = await storeUpdate(vaps, vap({ validations: [{ expression: 'false' }] }), old);
    assert.equal(changed.obj.metadata.generation, 2);
    const status = await storeUpdate(vaps, { ...vap({ validations: [{ expression: 'x' }] }), status: { observedGeneration: 7 } } as KubeObject, old, 'status');
    assert.deepEqual(status.obj.spec, old.spec);
    assert.deepEqual(status.obj.status, { observedGeneration: 7 });
  });

  for (const [name, type, make, change] of [
    ['mutating policy', maps, map, { failurePolicy: 'Ignore' }],
    ['validating binding', vapbs, vapb, { validationActions: ['Warn'] }],
    ['mutating binding', mapbs, mapb, { policyName: 'other' }],
  ] as const) {
    test(`${name}: spec changes bump it, defaults left out do not`, async () => {
      const old = (await storeCreate(type, (make as (e?: Record<string, unknown>) => KubeObject)({ matchResources: undefined }))).obj;
      const same = await storeUpdate(type, (make as () => KubeObject)(), old);
      assert.deepEqual(same.causes, []);
      assert.equal(same.obj.metadata.generation, 1);
      const changed = await storeUpdate(type, (make as (e: Record<string, unknown>) => KubeObject)(change), old);
      assert.equal(changed.obj.metadata.generation, 2);
    });
  }
});

type Case = [string, KubeObject, string[]];

const rulesRequired = 'spec.matchConstraints.resourceRules: Required value';
const bothRequired = [
  'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
  'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
];
const manyAnnotations = Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, valueExpression: '"v"' }));

const validatingPolicyCases: Case[] = [
  ['a valid policy with everything', vap({
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    matchConditions: [{ name: 'not-system', expression: 'true' }],
    variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
    validations: [{ expression: 'variables.replicas < 5', message: 'too many', reason: 'Forbidden', messageExpression: '"x"' }],
    auditAnnotations: [{ key: 'high-replicas', valueExpression: '"y"' }],
  }), []],
  ['an unknown failurePolicy', vap({ failurePolicy: 'Maybe' }), ['spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"']],
  ['no matchConstraints', vap({ matchConstraints: undefined }), ['spec.matchConstraints: Required value']],
  ['no resourceRules', vap({ matchConstraints: {} }), [rulesRequired]],
  ['an unknown matchPolicy', vap({ matchConstraints: { matchPolicy: 'Close', resourceRules: [podRule] } }), ['spec.matchConstraints.matchPolicy: Unsupported value: "Close": supported values: "Equivalent", "Exact"']],
  ['a rule without operations, groups, versions and resources', vap({ matchConstraints: { resourceRules: [{}] } }), [
    'spec.matchConstraints.resourceRules[0].operations: Required value',
    'spec.matchConstraints.resourceRules[0].apiGroups: Required value',
    'spec.matchConstraints.resourceRules[0].apiVersions: Required value',
    'spec.matchConstraints.resourceRules[0].resources: Required value',
  ]],
  ['an unknown operation and scope', vap({ matchConstraints: { resourceRules: [{ ...podRule, operations: ['PATCH'], scope: 'Global' }] } }), [
    'spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
    'spec.matchConstraints.resourceRules[0].scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"',
  ]],
  ['wildcards beside other values', vap({ matchConstraints: { excludeResourceRules: [{ operations: ['*', 'CREATE'], apiGroups: ['*', 'apps'], apiVersions: ['*', 'v1'], resources: ['*', 'pods'] }], resourceRules: [podRule] } }), [
    `spec.matchConstraints.excludeResourceRules[0].operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`,
    `spec.matchConstraints.excludeResourceRules[0].apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other API groups`,
    `spec.matchConstraints.excludeResourceRules[0].apiVersions: Invalid value: ["*","v1"]: if '*' is present, must not specify other API versions`,
    `spec.matchConstraints.excludeResourceRules[0].resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources without subresources`,
  ]],
  ['bad and duplicate resourceNames', vap({ matchConstraints: { resourceRules: [{ ...podRule, resourceNames: ['a/b', 'x', 'x'] }] } }), [
    `spec.matchConstraints.resourceRules[0].resourceNames[0]: Invalid value: "a/b": may not contain '/'`,
    'spec.matchConstraints.resourceRules[0].resourceNames[2]: Duplicate value: "x"',
  ]],
  ['a bad namespaceSelector', vap({ matchConstraints: { namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] }, resourceRules: [podRule] } }), [
    "spec.matchConstraints.namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  ]],
  ['neither validations nor auditAnnotations', vap({ validations: [] }), bothRequired],
  ['a validation without expression', vap({ validations: [{ expression: '  ' }] }), ['spec.validations[0].expression: Required value: expression is not specified']],
  ['a message with a line break', vap({ validations: [{ expression: 'true', message: 'two\nlines' }] }), ['spec.validations[0].message: Invalid value: "two\\nlines": message must not contain line breaks']],
  ['a blank message', vap({ validations: [{ expression: 'true', message: ' ' }] }), ['spec.validations[0].message: Invalid value: " ": message must be non-empty if specified']],
  ['a blank messageExpression', vap({ validations: [{ expression: 'true', messageExpression: ' ' }] }), ['spec.validations[0].messageExpression: Invalid value: " ": must be non-empty if specified']],
  ['an unknown reason', vap({ validations: [{ expression: 'true', reason: 'Teapot' }] }), ['spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"']],
  ['an audit annotation with a bad key and no valueExpression', vap({ validations: [], auditAnnotations: [{ key: 'a b', valueExpression: '' }] }), [
    `spec.auditAnnotations[0].key: Invalid value: "p/a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    'spec.auditAnnotations[0].valueExpression: Required value: valueExpression is not specified',
  ]],
  ['duplicate audit annotation keys', vap({ auditAnnotations: [{ key: 'k', valueExpression: '"a"' }, { key: 'k', valueExpression: '"b"' }] }), ['spec.auditAnnotations[1].key: Duplicate value: "k"']],
  ['more than 20 audit annotations, reported as the internal []AuditAnnotation', vap({ auditAnnotations: manyAnnotations }), [
    `spec.auditAnnotations: Invalid value: [${manyAnnotations.map((a) => `{"Key":"${a.key}","ValueExpression":"\\"v\\""}`).join(',')}]: must not have more than 20 auditAnnotations`,
  ]],
  ['a valueExpression over 5 KiB', vap({ auditAnnotations: [{ key: 'k', valueExpression: `"${'x'.repeat(5 * 1024)}"` }] }), ['spec.auditAnnotations[0].valueExpression: Required value: must not exceed 5120 bytes in length']],
  ['match conditions: bad name, duplicate, no expression', vap({ matchConditions: [{ name: 'a', expression: 'true' }, { name: 'a', expression: '' }, { name: '-x-', expression: 'true' }, { expression: 'true' }] }), [
    'spec.matchConditions[1].expression: Required value',
    'spec.matchConditions[1].name: Duplicate value: "a"',
    `spec.matchConditions[2].name: Invalid value: "-x-": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    'spec.matchConditions[3].name: Required value',
  ]],
  ['match conditions and validations that are not exactly bool (a dynamically typed result is not; request.dryRun, typed, is)', vap({
    matchConditions: [{ name: 'dyn', expression: 'object.spec.enabled' }, { name: 'negated', expression: '!request.dryRun' }, { name: 'typed', expression: 'request.dryRun' }],
    validations: [{ expression: 'object.spec.enabled' }, { expression: 'object.spec.enabled == true' }, { expression: 'request.dryRun' }],
  }), [
    'spec.matchConditions[0].expression: Invalid value: "object.spec.enabled": must evaluate to bool',
    'spec.validations[0].expression: Invalid value: "object.spec.enabled": must evaluate to bool',
  ]],
  ['variables: not an identifier, reserved, no name, no expression', vap({ variables: [{ name: '1x', expression: '1' }, { name: 'in', expression: '1' }, { name: '', expression: '1' }, { name: 'ok', expression: ' ' }] }), [
    'spec.variables[0].name: Invalid value: "1x": name is not a valid CEL identifier',
    'spec.variables[1].name: Invalid value: "in": name is not a valid CEL identifier',
    'spec.variables[2].name: Required value: name is not specified',
    'spec.variables[3].expression: Required value: expression is not specified',
  ]],
  ['paramKind without apiVersion and kind', vap({ paramKind: {} }), ['spec.paramKind.apiVersion: Required value', 'spec.paramKind.kind: Required value']],
  ['paramKind with a bad group, version and kind', vap({ paramKind: { apiVersion: 'Ex_ample/V1', kind: 'Config_Map' } }), [
    `spec.paramKind.apiVersion: Invalid value: "Ex_ample": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    `spec.paramKind.apiVersion: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    `spec.paramKind.kind: Invalid value: "Config_Map": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
  ]],
  ['paramKind apiVersion with two slashes or no version', vap({ paramKind: { apiVersion: 'a/b/c', kind: 'K' } }), ['spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c']],
  ['paramKind apiVersion without version', vap({ paramKind: { apiVersion: 'example.com/', kind: 'K' } }), ['spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified']],
];

const mutatingPolicyCases: Case[] = [
  ['a valid JSONPatch mutation', map({ mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[]' } }] }), []],
  ['no mutations', map({ mutations: [] }), ['spec.mutations: Required value: mutations must contain at least one item']],
  ['a mutation without patchType', map({ mutations: [{ applyConfiguration: { expression: 'Object{}' } }] }), ['spec.mutations[0].patchType: Required value']],
  ['an unknown patchType', map({ mutations: [{ patchType: 'Merge' }] }), ['spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"']],
  ['JSONPatch without jsonPatch, with applyConfiguration', map({ mutations: [{ patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } }] }), [
    'spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch',
    'spec.mutations[0].applyConfiguration: Invalid value: "{applyConfiguration}": must not be specified when patchType is JSONPatch',
  ]],
  ['ApplyConfiguration without applyConfiguration, with jsonPatch', map({ mutations: [{ patchType: 'ApplyConfiguration', jsonPatch: { expression: '[]' } }] }), [
    'spec.mutations[0].applyConfiguration: Required value: must be specified when patchType is ApplyConfiguration',
    'spec.mutations[0].jsonPatch: Invalid value: "{jsonPatch}": must not be specified when patchType is ApplyConfiguration',
  ]],
  ['an empty patch expression', map({ mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '' } }, { patchType: 'ApplyConfiguration', applyConfiguration: {} }] }), [
    'spec.mutations[0].jsonPatch.expression: Required value',
    'spec.mutations[1].applyConfiguration.expression: Required value',
  ]],
  ['an unknown reinvocationPolicy', map({ reinvocationPolicy: 'Always' }), ['spec.reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']],
  ['a rule matching DELETE', map({ matchConstraints: { resourceRules: [{ ...podRule, operations: ['DELETE'] }] } }), ['spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"']],
  ['no resourceRules and a bad failurePolicy', map({ failurePolicy: 'Later', matchConstraints: { resourceRules: [] } }), ['spec.failurePolicy: Unsupported value: "Later": supported values: "Fail", "Ignore"', rulesRequired]],
];

const validatingBindingCases: Case[] = [
  ['a valid binding with a selector paramRef', vapb({ paramRef: { selector: { matchLabels: { a: 'b' } }, parameterNotFoundAction: 'Allow' }, validationActions: ['Warn', 'Audit'] }), []],
  ['no policyName', vapb({ policyName: '' }), ['spec.policyName: Required value']],
  ['a policyName that is no DNS subdomain', vapb({ policyName: 'Bad_Name' }), [
    `spec.policyName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ]],
  ['no validationActions', vapb({ validationActions: [] }), ['spec.validationActions: Required value: at least one validation action is required']],
  ['an unknown validationAction', vapb({ validationActions: ['Block'] }), ['spec.validationActions[0]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"']],
  ['a repeated validationAction', vapb({ validationActions: ['Deny', 'Deny'] }), ['spec.validationActions[1]: Duplicate value: "Deny"']],
  ['Deny and Warn together', vapb({ validationActions: ['Deny', 'Warn'] }), [
    'spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
  ]],
  ['paramRef with both name and selector', vapb({ paramRef: { name: 'p', selector: {}, parameterNotFoundAction: 'Deny' } }), [
    'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
    'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
  ]],
  ['paramRef with neither, and a bad name elsewhere', vapb({ paramRef: { parameterNotFoundAction: 'Ignore' } }), [
    'spec.paramRef: Required value: one of name or selector must be specified',
    'spec.paramRef.parameterNotFoundAction: Unsupported value: "Ignore": supported values: "Deny", "Allow"',
  ]],
  ['paramRef name not a path segment', vapb({ paramRef: { name: '..' } }), [`spec.paramRef.name: Invalid value: "..": may not be '..'`]],
  ['matchResources checked as a policy\'s', vapb({ matchResources: { resourceRules: [{ ...podRule, resources: [] }] } }), ['spec.matchResources.resourceRules[0].resources: Required value']],
];

const mutatingBindingCases: Case[] = [
  ['a valid binding', mapb({ matchResources: { resourceRules: [{ ...podRule, operations: ['UPDATE'] }] } }), []],
  ['no policyName', mapb({ policyName: undefined }), ['spec.policyName: Required value']],
  ['a rule matching DELETE', mapb({ matchResources: { resourceRules: [{ ...podRule, operations: ['DELETE'] }] } }), ['spec.matchResources.resourceRules.operations: Unsupported value: "DELETE": supported values: "*", "CONNECT", "CREATE", "UPDATE"']],
  ['paramRef without name or selector', mapb({ paramRef: {} }), ['spec.paramRef: Required value: one of name or selector must be specified']],
];

for (const [title, type, cases] of [
  ['validating admission policies', vaps, validatingPolicyCases],
  ['mutating admission policies', maps, mutatingPolicyCases],
  ['validating admission policy bindings', vapbs, validatingBindingCases],
  ['mutating admission policy bindings', mapbs, mutatingBindingCases],
] as const) {
  describe(title, () => {
    for (const [name, input, expected] of cases) {
      test(name, async () => assert.deepEqual(fields((await storeCreate(type, input)).causes), expected));
    }
  });
}

test('an update checks the same rules', async () => {
  const old = (await storeCreate(vapbs, vapb())).obj;
  const { causes } = await storeUpdate(vapbs, { ...vapb({ validationActions: ['Deny', 'Warn'] }), metadata: old.metadata } as KubeObject, old);
  assert.equal(causes.length, 1);
  assert.equal(causes[0]!.field, 'spec.validationActions');
});
