// LimitRange defaults and validation, ResourceQuota validation and table cells, case by case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { defaultLimitRange, validateLimitRange } from '../../../src/registry/builtin/limitranges.ts';
import { resourceQuotaColumns, resourceQuotaStrategy, validateResourceQuota } from '../../../src/registry/builtin/resourcequotas.ts';

const lines = (causes: { field?: string; message?: string }[]) => causes.map((c) => `${c.field}: ${c.message}`);
const limitRange = (...limits: unknown[]): KubeObject => ({ metadata: { name: 'lr', namespace: 'ns' }, spec: { limits } });
const quota = (spec: unknown, status?: unknown): KubeObject => ({ metadata: { name: 'q', namespace: 'ns' }, spec, ...(status ? { status } : {}) } as KubeObject);

const defaultCases: { name: string; item: Record<string, unknown>; expected: Record<string, unknown> }[] = [
  { name: 'default limit falls back to max', item: { type: 'Container', max: { cpu: '2' } }, expected: { type: 'Container', max: { cpu: '2' }, default: { cpu: '2' }, defaultRequest: { cpu: '2' } } },
  { name: 'default request falls back to the default limit', item: { type: 'Container', default: { memory: '1Gi' } }, expected: { type: 'Container', default: { memory: '1Gi' }, defaultRequest: { memory: '1Gi' } } },
  { name: 'default request falls back to min', item: { type: 'Container', min: { cpu: '100m' } }, expected: { type: 'Container', min: { cpu: '100m' }, defaultRequest: { cpu: '100m' } } },
  { name: 'a given default request stays', item: { type: 'Container', default: { cpu: '1' }, defaultRequest: { cpu: '200m' } }, expected: { type: 'Container', default: { cpu: '1' }, defaultRequest: { cpu: '200m' } } },
  { name: 'Pod items get no defaults', item: { type: 'Pod', max: { cpu: '2' } }, expected: { type: 'Pod', max: { cpu: '2' } } },
];

for (const { name, item, expected } of defaultCases) {
  test(`LimitRange defaults: ${name}`, () => {
    const lr = limitRange(item);
    defaultLimitRange(lr);
    assert.deepEqual((lr.spec as { limits: unknown[] }).limits[0], expected);
  });
}

const limitRangeCases: { name: string; limits: unknown[]; expected: string[] }[] = [
  { name: 'a valid Container item', limits: [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '2' }, default: { cpu: '1' }, defaultRequest: { cpu: '500m' }, maxLimitRequestRatio: { cpu: '4' } }], expected: [] },
  { name: 'an unknown type', limits: [{ type: 'Node', max: { cpu: '1' } }], expected: ['spec.limits[0].type: Invalid value: "Node": must be a standard limit type or fully qualified'] },
  {
    name: 'a type is a typed string, written as JSON',
    limits: [{ type: 'a&b', max: { cpu: '1' } }],
    expected: ["spec.limits[0].type: Invalid value: \"a\\u0026b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"],
  },
  {
    name: 'a duplicate type',
    limits: [{ type: 'Pod', max: { cpu: '1' } }, { type: 'Pod', max: { memory: '1Gi' } }],
    expected: ['spec.limits[1].type: Duplicate value: "Pod"'],
  },
  {
    name: 'min above max',
    limits: [{ type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' } }],
    expected: [`spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1`],
  },
  {
    name: 'default request above the default limit',
    limits: [{ type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '1' } }],
    expected: [`spec.limits[0].defaultRequest[cpu]: Invalid value: "1": default request value 1 is greater than default limit value 500m`],
  },
  {
    name: 'a ratio below 1',
    limits: [{ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }],
    expected: [`spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1`],
  },
  {
    name: 'a ratio above max/min',
    limits: [{ type: 'Container', min: { cpu: '1' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3' } }],
    expected: [`spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "3": ratio 3 is greater than max/min = 2.000000`],
  },
  {
    name: 'defaults on a Pod item',
    limits: [{ type: 'Pod', default: { cpu: '1' } }],
    expected: ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"],
  },
  {
    name: 'a claim item without storage bounds',
    limits: [{ type: 'PersistentVolumeClaim', max: { cpu: '1' } }],
    expected: ['spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided'],
  },
  {
    name: 'a non-container resource on a Container item',
    limits: [{ type: 'Container', max: { storage: '1Gi' } }],
    expected: ['spec.limits[0].max[storage]: Invalid value: "storage": must be a standard resource for containers'],
  },
  {
    name: 'huge pages defaults must not overcommit',
    limits: [{ type: 'Container', default: { 'hugepages-2Mi': '4Mi' }, defaultRequest: { 'hugepages-2Mi': '2Mi' } }],
    expected: [`spec.limits[0].defaultRequest[hugepages-2Mi]: Invalid value: "2Mi": default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi`],
  },
];

for (const { name, limits, expected } of limitRangeCases) {
  test(`LimitRange validation: ${name}`, () => {
    assert.deepEqual(lines(validateLimitRange(limitRange(...limits))), expected);
  });
}

const quotaCases: { name: string; spec: unknown; status?: unknown; expected: string[] }[] = [
  { name: 'a valid quota', spec: { hard: { pods: '10', 'requests.cpu': '2', 'count/deployments.apps': '3', 'requests.example.com/gpu': '1' } }, expected: [] },
  { name: 'a negative hard value', spec: { hard: { 'requests.cpu': '-1' } }, expected: ['spec.hard[requests.cpu]: Invalid value: "-1": must be greater than or equal to 0'] },
  { name: 'a fractional object count', spec: { hard: { pods: '1500m' } }, expected: ['spec.hard[pods]: Invalid value: "1500m": must be an integer'] },
  { name: 'a fractional count given in a non-canonical form', spec: { hard: { pods: '1.5' } }, expected: ['spec.hard[pods]: Invalid value: "1500m": must be an integer'] },
  {
    name: 'an unknown resource',
    spec: { hard: { widgets: '1' } },
    expected: [
      'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified',
      'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota',
    ],
  },
  { name: 'an unknown scope', spec: { hard: { pods: '1' }, scopes: ['Sometimes'] }, expected: ['spec.scopes: Invalid value: ["Sometimes"]: unsupported scope'] },
  { name: 'a scope that does not apply', spec: { hard: { configmaps: '1' }, scopes: ['BestEffort'] }, expected: ['spec.scopes: Invalid value: ["BestEffort"]: unsupported scope applied to resource'] },
  {
    name: 'conflicting scopes',
    spec: { hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] },
    expected: ['spec.scopes: Invalid value: ["Terminating","NotTerminating"]: conflicting scopes'],
  },
  {
    name: 'a PriorityClass selector without values',
    spec: { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } },
    expected: ["spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"],
  },
  {
    name: 'a BestEffort selector with In',
    spec: { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'In', values: ['x'] }] } },
    expected: [
      "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
    ],
  },
  {
    name: 'a selector scope that does not apply',
    spec: { hard: { configmaps: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }, { scopeName: 'NotTerminating', operator: 'Exists' }] } },
    expected: [
      'spec.scopeSelector.matchExpressions: Invalid value: {"MatchExpressions":[{"ScopeName":"PriorityClass","Operator":"In","Values":["high"]},{"ScopeName":"NotTerminating","Operator":"Exists","Values":null}]}: unsupported scope applied to resource',
      'spec.scopeSelector.matchExpressions: Invalid value: {"MatchExpressions":[{"ScopeName":"PriorityClass","Operator":"In","Values":["high"]},{"ScopeName":"NotTerminating","Operator":"Exists","Values":null}]}: unsupported scope applied to resource',
    ],
  },
  {
    name: 'an Exists selector with values',
    spec: { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists', values: ['a', 'b'] }] } },
    expected: ["spec.scopeSelector.matchExpressions.values: Invalid value: [\"a\",\"b\"]: must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"],
  },
  {
    name: 'conflicting selector scopes report spec.scopes',
    spec: { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'Exists' }, { scopeName: 'NotBestEffort', operator: 'Exists' }] } },
    expected: ['spec.scopeSelector.matchExpressions: Invalid value: null: conflicting scopes'],
  },
  { name: 'a negative used value', spec: { hard: { pods: '1' } }, status: { used: { pods: '-1' } }, expected: ['status.used[pods]: Invalid value: "-1": must be greater than or equal to 0'] },
];

for (const { name, spec, status, expected } of quotaCases) {
  test(`ResourceQuota validation: ${name}`, () => {
    assert.deepEqual(lines(validateResourceQuota(quota(spec, status))), expected);
  });
}

const quotaUpdateCases: { name: string; scopes?: unknown[]; oldScopes?: unknown[]; expected: string[] }[] = [
  { name: 'reordered scopes are no change', scopes: ['NotTerminating', 'BestEffort'], oldScopes: ['BestEffort', 'NotTerminating'], expected: [] },
  { name: 'a changed scope', scopes: ['BestEffort'], oldScopes: ['NotBestEffort'], expected: ['spec.scopes: Invalid value: ["BestEffort"]: field is immutable'] },
  { name: 'removed scopes', oldScopes: ['BestEffort'], expected: ['spec.scopes: Invalid value: null: field is immutable'] },
];

for (const { name, scopes, oldScopes, expected } of quotaUpdateCases) {
  test(`ResourceQuota update: ${name}`, () => {
    const rq = quota({ hard: { pods: '1' }, ...(scopes ? { scopes } : {}) });
    const old = quota({ hard: { pods: '1' }, ...(oldScopes ? { scopes: oldScopes } : {}) });
    assert.deepEqual(lines(resourceQuotaStrategy.validateUpdate!(rq, old)), expected);
  });
}

test('ResourceQuota table: requests and limits columns, sorted, used/hard', () => {
  const rq = quota({ hard: {} }, { hard: { pods: '10', 'limits.memory': '2Gi', 'requests.cpu': '2', configmaps: '5' }, used: { pods: '1', 'limits.memory': '1073741824', 'requests.cpu': '500m' } });
  const cells = resourceQuotaColumns.map((c) => c.cell(rq, Date.now()));
  assert.deepEqual(resourceQuotaColumns.map((c) => c.name), ['Name', 'Age', 'Request', 'Limit']);
  assert.equal(cells[2], 'configmaps: 0/5, pods: 1/10, requests.cpu: 500m/2');
  assert.equal(cells[3], 'limits.memory: 1073741824/2Gi');
});
