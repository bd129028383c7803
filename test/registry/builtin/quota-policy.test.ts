// LimitRange defaults and validation, ResourceQuota validation and table cells, case by case.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { defaultLimitRange, validateLimitRange } from '../../../src/registry/builtin/limitranges.ts';
import { resourceQuotaColumns, validateResourceQuota } from '../../../src/registry/builtin/resourcequotas.ts';

const lines = (causes: { field?: string; message?: string }[]) => causes.map((c) => `${c.field}: ${c.message}`);
const limitRange = (...limits: unknown[]): KubeObject => ({ metadata: { name: 'lr', namespace: 'ns' }, spec: { limits } });
const quota = (spec: unknown, status?: unknown): KubeObject => ({ metadata: { name: 'q', namespace: 'ns' }, spec, ...(status ? { status } : {}) } as KubeObject);

const q = (text: string, value: number, scale: number, format: string, kept = text) =>
  `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(kept)}, Format:"${format}"}`;

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
    name: 'a duplicate type',
    limits: [{ type: 'Pod', max: { cpu: '1' } }, { type: 'Pod', max: { memory: '1Gi' } }],
    expected: ['spec.limits[1].type: Duplicate value: "Pod"'],
  },
  {
    name: 'min above max',
    limits: [{ type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' } }],
    expected: [`spec.limits[0].min[cpu]: Invalid value: ${q('2', 2, 0, 'DecimalSI')}: min value 2 is greater than max value 1`],
  },
  {
    name: 'default request above the default limit',
    limits: [{ type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '1' } }],
    expected: [`spec.limits[0].defaultRequest[cpu]: Invalid value: ${q('1', 1, 0, 'DecimalSI')}: default request value 1 is greater than default limit value 500m`],
  },
  {
    name: 'a ratio below 1',
    limits: [{ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }],
    expected: [`spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: ${q('500m', 500, -3, 'DecimalSI')}: ratio 500m is less than 1`],
  },
  {
    name: 'a ratio above max/min',
    limits: [{ type: 'Container', min: { cpu: '1' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3' } }],
    expected: [`spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: ${q('3', 3, 0, 'DecimalSI')}: ratio 3 is greater than max/min = 2.000000`],
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
    expected: [`spec.limits[0].defaultRequest[hugepages-2Mi]: Invalid value: ${q('2Mi', 2097152, 0, 'BinarySI')}: default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi`],
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
  { name: 'a fractional object count', spec: { hard: { pods: '1500m' } }, expected: [`spec.hard[pods]: Invalid value: ${q('1500m', 1500, -3, 'DecimalSI')}: must be an integer`] },
  {
    name: 'an unknown resource',
    spec: { hard: { widgets: '1' } },
    expected: [
      'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified',
      'spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota',
    ],
  },
  { name: 'an unknown scope', spec: { hard: { pods: '1' }, scopes: ['Sometimes'] }, expected: ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Sometimes"}: unsupported scope'] },
  { name: 'a scope that does not apply', spec: { hard: { configmaps: '1' }, scopes: ['BestEffort'] }, expected: ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource'] },
  {
    name: 'conflicting scopes',
    spec: { hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] },
    expected: ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating"}: conflicting scopes'],
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
      "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
    ],
  },
  { name: 'a negative used value', spec: { hard: { pods: '1' } }, status: { used: { pods: '-1' } }, expected: ['status.used[pods]: Invalid value: "-1": must be greater than or equal to 0'] },
];

for (const { name, spec, status, expected } of quotaCases) {
  test(`ResourceQuota validation: ${name}`, () => {
    assert.deepEqual(lines(validateResourceQuota(quota(spec, status))), expected);
  });
}

test('ResourceQuota table: requests and limits columns, sorted, used/hard', () => {
  const rq = quota({ hard: {} }, { hard: { pods: '10', 'limits.memory': '2Gi', 'requests.cpu': '2', configmaps: '5' }, used: { pods: '1', 'limits.memory': '1073741824', 'requests.cpu': '500m' } });
  const cells = resourceQuotaColumns.map((c) => c.cell(rq, Date.now()));
  assert.deepEqual(resourceQuotaColumns.map((c) => c.name), ['Name', 'Age', 'Request', 'Limit']);
  assert.equal(cells[2], 'configmaps: 0/5, pods: 1/10, requests.cpu: 500m/2');
  assert.equal(cells[3], 'limits.memory: 1073741824/2Gi');
});
