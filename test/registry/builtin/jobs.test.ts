import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { jobColumns } from '../../../src/registry/builtin/batch.ts';
import { builtinType, fields, memoryStore, putStored, storeCreate, tryCreate, tryUpdate } from '../../helpers/store.ts';

const jobs = builtinType('jobs');

const container = { name: 'pi', image: 'perl' };

function job(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', namespace: 'default', ...metadata }, spec };
}

const minimal = () => ({ template: { spec: { restartPolicy: 'Never', containers: [{ ...container }] } } });

test('a created Job gets upstream defaults, the generated selector from its uid, generation 1 and an empty status', async () => {
  const input = job(minimal());
  input.status = { succeeded: 3 };
  const { obj, causes } = await storeCreate(jobs, input);
  assert.deepEqual(causes, []);
  const uid = obj.metadata.uid!;
  assert.match(uid, /^[0-9a-f-]{36}$/);
  assert.equal(obj.metadata.generation, 1);
  assert.deepEqual(obj.status, {});
  const spec = obj.spec as Record<string, unknown>;
  assert.deepEqual(
    { ...spec, template: undefined },
    {
      completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed', manualSelector: false,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      template: undefined,
    },
  );
  const template = spec.template as { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> };
  assert.deepEqual(template.metadata.labels, {
    'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': uid, 'job-name': 'pi',
  });
  assert.equal(template.spec.dnsPolicy, 'ClusterFirst');
  assert.equal((template.spec.containers as Record<string, unknown>[])[0]!.terminationMessagePolicy, 'File');
  // No template labels given: the Job's own labels stay unset.
  assert.equal(obj.metadata.labels, undefined);
});

const defaultCases: { name: string; spec: Record<string, unknown>; metadata?: Record<string, unknown>; expect: (spec: Record<string, unknown>, obj: KubeObject) => void }[] = [
  {
    name: 'parallelism alone leaves completions unset',
    spec: { ...minimal(), parallelism: 3 },
    expect: (s) => assert.deepEqual([s.parallelism, s.completions], [3, undefined]),
  },
  {
    name: 'completions alone gets parallelism 1',
    spec: { ...minimal(), completions: 5 },
    expect: (s) => assert.deepEqual([s.parallelism, s.completions], [1, 5]),
  },
  {
    name: 'backoffLimitPerIndex makes the default backoffLimit the int32 maximum',
    spec: { ...minimal(), completionMode: 'Indexed', completions: 2, backoffLimitPerIndex: 1 },
    expect: (s) => assert.equal(s.backoffLimit, 2147483647),
  },
  {
    name: 'a pod failure policy makes the replacement policy Failed and its conditions default to True',
    spec: { ...minimal(), podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } },
    expect: (s) => {
      assert.equal(s.podReplacementPolicy, 'Failed');
      assert.deepEqual(s.podFailurePolicy, { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] });
    },
  },
  {
    name: 'template labels become the Job labels, generated labels included, when the Job has none',
    spec: { template: { metadata: { labels: { app: 'pi' } }, spec: minimal().template.spec } },
    expect: (_s, obj) => assert.deepEqual(Object.keys(obj.metadata.labels ?? {}).sort(), [
      'app', 'batch.kubernetes.io/controller-uid', 'batch.kubernetes.io/job-name', 'controller-uid', 'job-name',
    ]),
  },
  {
    name: 'the Job keeps labels of its own',
    spec: { template: { metadata: { labels: { app: 'pi' } }, spec: minimal().template.spec } },
    metadata: { labels: { team: 'a' } },
    expect: (_s, obj) => assert.deepEqual(obj.metadata.labels, { team: 'a' }),
  },
  {
    name: 'a manual selector is kept and nothing is generated',
    spec: { ...minimal(), manualSelector: true, selector: { matchLabels: { app: 'pi' } }, template: { metadata: { labels: { app: 'pi' } }, spec: minimal().template.spec } },
    expect: (s) => {
      assert.deepEqual(s.selector, { matchLabels: { app: 'pi' } });
      assert.deepEqual((s.template as { metadata: unknown }).metadata, { labels: { app: 'pi' } });
    },
  },
];

for (const c of defaultCases) {
  test(`defaults: ${c.name}`, async () => {
    const { obj, causes } = await storeCreate(jobs, job(c.spec, c.metadata));
    assert.deepEqual(causes, []);
    c.expect(obj.spec as Record<string, unknown>, obj);
  });
}

const invalidCases: { name: string; spec: Record<string, unknown>; name2?: string; causes: string[] }[] = [
  {
    name: 'restartPolicy left to its default is refused',
    spec: { template: { spec: { containers: [container] } } },
    causes: ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
  },
  {
    name: 'restartPolicy Always is refused',
    spec: { template: { spec: { restartPolicy: 'Always', containers: [container] } } },
    causes: ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
  },
  {
    name: 'an unknown completion mode',
    spec: { ...minimal(), completionMode: 'Sometimes' },
    causes: ['spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"'],
  },
  {
    name: 'Indexed needs completions',
    spec: { ...minimal(), completionMode: 'Indexed', parallelism: 2 },
    causes: ['spec.completions: Required value: when completion mode is Indexed'],
  },
  {
    name: 'negative counts',
    spec: { ...minimal(), parallelism: -1, backoffLimit: -2 },
    causes: ['spec.parallelism: Invalid value: -1: must be greater than or equal to 0', 'spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0'],
  },
  {
    name: 'backoffLimitPerIndex needs Indexed',
    spec: { ...minimal(), backoffLimitPerIndex: 1 },
    causes: ['spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode'],
  },
  {
    name: 'a manual selector must match the template',
    spec: { ...minimal(), manualSelector: true, selector: { matchLabels: { app: 'db' } } },
    causes: ['spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`'],
  },
  {
    name: 'a manual selector is required',
    spec: { ...minimal(), manualSelector: true, template: { metadata: { labels: { app: 'pi' } }, spec: minimal().template.spec } },
    causes: ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: {"app":"pi"}: `selector` does not match template `labels`'],
  },
  {
    name: 'a conflicting job-name label in the template',
    spec: { template: { metadata: { labels: { 'job-name': 'other' } }, spec: minimal().template.spec } },
    causes: [
      'spec.template.metadata.labels[job-name]: Invalid value: {"batch.kubernetes.io/controller-uid":"UID","batch.kubernetes.io/job-name":"pi","controller-uid":"UID","job-name":"other"}: must be \'pi\'',
    ],
  },
  {
    name: 'pod failure policy rules: actions, operators, values and the pattern of a rule',
    spec: {
      ...minimal(),
      podFailurePolicy: {
        rules: [
          { action: 'Retry', onExitCodes: { operator: 'In', values: [0, 3, 2, 2] } },
          { action: 'FailJob', onExitCodes: { operator: 'Between', values: [1], containerName: 'nope' } },
          { action: '', onPodConditions: [{ type: 'DisruptionTarget', status: 'Maybe' }] },
          { action: 'Count' },
          { action: 'FailIndex', onExitCodes: { operator: 'NotIn', values: [] }, onPodConditions: [{ type: 'Ready' }] },
        ],
      },
    },
    causes: [
      'spec.podFailurePolicy.rules[0].action: Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
      'spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator',
      'spec.podFailurePolicy.rules[0].onExitCodes.values[3]: Duplicate value: 2',
      'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [0,3,2,2]: must be ordered',
      'spec.podFailurePolicy.rules[1].onExitCodes.operator: Unsupported value: "Between": supported values: "In", "NotIn"',
      'spec.podFailurePolicy.rules[1].onExitCodes.containerName: Invalid value: "nope": must be one of the container or initContainer names in the pod template',
      'spec.podFailurePolicy.rules[2].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
      'spec.podFailurePolicy.rules[2].onPodConditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'spec.podFailurePolicy.rules[3]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
      'spec.podFailurePolicy.rules[4].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set',
      'spec.podFailurePolicy.rules[4].onExitCodes.values: Invalid value: []: at least one value is required',
      'spec.podFailurePolicy.rules[4]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported',
    ],
  },
  {
    name: 'a pod failure policy needs restartPolicy Never and the Failed replacement policy',
    spec: {
      template: { spec: { restartPolicy: 'OnFailure', containers: [container] } },
      podReplacementPolicy: 'TerminatingOrFailed',
      podFailurePolicy: { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [1] } }] },
    },
    causes: [
      'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
      'spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified',
    ],
  },
  {
    name: 'a success policy needs Indexed',
    spec: { ...minimal(), successPolicy: { rules: [{ succeededCount: 1 }] } },
    causes: ['spec.successPolicy: Invalid value: {"rules":[{"succeededCount":1}]}: requires indexed completion mode'],
  },
  {
    name: 'success policy rules',
    spec: {
      ...minimal(), completionMode: 'Indexed', completions: 5,
      successPolicy: { rules: [{}, { succeededIndexes: '0-2,1', succeededCount: 6 }, { succeededIndexes: '1,3', succeededCount: 3 }] },
    },
    causes: [
      'spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified',
      'spec.successPolicy.rules[1].succeededIndexes: Invalid value: "0-2,1": error parsing succeededIndexes: non-increasing order, previous: 2, current: 1',
      'spec.successPolicy.rules[1].succeededCount: Invalid value: 6: must be less than or equal to 5 (the number of specified completions)',
      'spec.successPolicy.rules[1].succeededCount: Invalid value: 6: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field)',
      'spec.successPolicy.rules[2].succeededCount: Invalid value: 3: must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)',
    ],
  },
  {
    name: 'an Indexed Job whose last pod hostname would not be a DNS label',
    spec: { ...minimal(), completionMode: 'Indexed', completions: 10 },
    name2: 'a'.repeat(62),
    causes: [`metadata.name: Invalid value: "${'a'.repeat(62)}": will not able to create pod with invalid DNS label: ${'a'.repeat(62)}-9`],
  },
];

for (const c of invalidCases) {
  test(`create refused: ${c.name}`, async () => {
    const { causes } = await storeCreate(jobs, job(c.spec, c.name2 === undefined ? {} : { name: c.name2 }));
    const uid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
    assert.deepEqual(fields(causes).map((line) => line.replace(uid, 'UID')), c.causes);
  });
}

test('a selector not matching the generated labels is refused', async () => {
  const { causes } = await storeCreate(jobs, job({ ...minimal(), selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'mine' } } }));
  assert.deepEqual(causes.map((c) => c.field), ['spec.selector', 'spec.template.metadata.labels']);
  assert.equal(causes[0]!.message, 'Invalid value: {"matchLabels":{"batch.kubernetes.io/controller-uid":"mine"}}: `selector` not auto-generated');
});

/** A stored Job and a client's next version of it, changed by `change`. */
async function updateCase(change: (j: KubeObject) => void, opts: { spec?: Record<string, unknown>; status?: Record<string, unknown> } = {}) {
  const fx = memoryStore(jobs);
  const created = await tryCreate(fx.store, job(opts.spec ?? minimal()));
  assert.deepEqual(created.causes, []);
  let stored = created.obj;
  if (opts.status !== undefined) stored = await putStored(fx, { ...stored, status: opts.status });
  const next = structuredClone(stored);
  change(next);
  return { fx, stored, result: await tryUpdate(fx.store, next) };
}

const immutableCases: { name: string; change: (j: KubeObject) => void; spec?: Record<string, unknown>; status?: Record<string, unknown>; fields: string[] }[] = [
  { name: 'the template', change: (j) => { templateSpec(j).containers = [{ ...container, image: 'perl:5' }]; }, fields: ['spec.template'] },
  { name: 'completions', change: (j) => { spec(j).completions = 4; }, fields: ['spec.completions'] },
  { name: 'the selector', change: (j) => { (spec(j).selector as Record<string, unknown>).matchLabels = { a: 'b' }; }, fields: ['spec.selector', 'spec.template.metadata.labels', 'spec.selector'] },
  { name: 'completionMode', change: (j) => { spec(j).completionMode = 'Indexed'; }, fields: ['spec.completionMode'] },
  {
    name: 'scheduling directives of a suspended Job that never started may change',
    spec: { ...minimal(), suspend: true },
    change: (j) => { templateSpec(j).nodeSelector = { zone: 'a' }; },
    fields: [],
  },
  {
    name: 'scheduling directives of a suspended Job that started may not',
    spec: { ...minimal(), suspend: true },
    status: { startTime: '2024-01-01T00:00:00Z' },
    change: (j) => { templateSpec(j).nodeSelector = { zone: 'a' }; },
    fields: ['spec.template'],
  },
  { name: 'parallelism may change', change: (j) => { spec(j).parallelism = 3; }, fields: [] },
  {
    name: 'completions of an Indexed Job may change with parallelism',
    spec: { ...minimal(), completionMode: 'Indexed', completions: 2, parallelism: 2 },
    change: (j) => { spec(j).completions = 4; spec(j).parallelism = 4; },
    fields: [],
  },
  {
    name: 'completions of an Indexed Job may not change alone',
    spec: { ...minimal(), completionMode: 'Indexed', completions: 2, parallelism: 2 },
    change: (j) => { spec(j).completions = 4; },
    fields: ['spec.completions'],
  },
];

function spec(j: KubeObject): Record<string, unknown> {
  return j.spec as Record<string, unknown>;
}
function templateSpec(j: KubeObject): Record<string, unknown> {
  return (spec(j).template as { spec: Record<string, unknown> }).spec;
}

for (const c of immutableCases) {
  test(`update: ${c.name}`, async () => {
    const { result } = await updateCase(c.change, { spec: c.spec, status: c.status });
    assert.deepEqual(result.causes.map((x) => x.field), c.fields);
  });
}

test('an immutable template answers upstream\'s "field is immutable"', async () => {
  const { result } = await updateCase((j) => { templateSpec(j).containers = [{ ...container, image: 'perl:5' }]; });
  assert.equal(result.causes.length, 1);
  assert.equal(result.causes[0]!.reason, 'FieldValueInvalid');
  assert.match(result.causes[0]!.message ?? '', /^Invalid value: \{.*"image":"perl:5".*\}: field is immutable$/);
});

test('a spec change bumps the generation; status sent to the main resource is ignored', async () => {
  const { result, stored } = await updateCase((j) => { spec(j).parallelism = 2; j.status = { succeeded: 1 }; });
  assert.deepEqual(result.causes, []);
  assert.equal(result.obj.metadata.generation, 2);
  assert.deepEqual(result.obj.status, stored.status);
});

test('status is written through /status only, with its counters checked', async () => {
  const fx = memoryStore(jobs);
  const { obj } = await tryCreate(fx.store, job(minimal()));
  const ok = await tryUpdate(fx.store, { ...obj, spec: { ...spec(obj), parallelism: 9 }, status: { active: 1, startTime: '2024-01-01T00:00:00Z' } }, 'status');
  assert.deepEqual(ok.causes, []);
  assert.equal(spec(ok.obj).parallelism, 1);
  assert.deepEqual(ok.obj.status, { active: 1, startTime: '2024-01-01T00:00:00Z' });
  const bad = await tryUpdate(fx.store, { ...ok.obj, status: { active: 1, failed: -1, ready: 2 } }, 'status');
  assert.deepEqual(fields(bad.causes), [
    'status.failed: Invalid value: -1: must be greater than or equal to 0',
    'status.ready: Invalid value: 2: cannot set more ready pods than active',
    // The transitions upstream's status strategy refuses (JobManagedBy's rules, GA since 1.35).
    'status.failed: Invalid value: -1: cannot decrease the failed counter',
    'status.startTime: Required value: startTime cannot be removed for unsuspended job',
  ]);
});

const now = Date.parse('2024-01-01T01:00:00Z');
const cellCases: { name: string; spec: Record<string, unknown>; status?: Record<string, unknown>; deleting?: boolean; cells: unknown[] }[] = [
  { name: 'a new Job', spec: { completions: 1 }, cells: ['Running', '0/1', ''] },
  { name: 'a running Job', spec: { completions: 3 }, status: { succeeded: 1, startTime: '2024-01-01T00:55:00Z' }, cells: ['Running', '1/3', '5m'] },
  {
    name: 'a complete Job',
    spec: { completions: 1 },
    status: { succeeded: 1, startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:00:42Z', conditions: [{ type: 'Complete', status: 'True' }] },
    cells: ['Complete', '1/1', '42s'],
  },
  { name: 'a failed Job', spec: { completions: 1 }, status: { conditions: [{ type: 'Failed', status: 'True' }] }, cells: ['Failed', '0/1', ''] },
  { name: 'a suspended work queue', spec: { parallelism: 3 }, status: { conditions: [{ type: 'Suspended', status: 'True' }] }, cells: ['Suspended', '0/1 of 3', ''] },
  { name: 'a deleting Job', spec: { parallelism: 1 }, deleting: true, cells: ['Terminating', '0/1', ''] },
  { name: 'a Job about to fail', spec: { completions: 2 }, status: { conditions: [{ type: 'FailureTarget', status: 'True' }] }, cells: ['FailureTarget', '0/2', ''] },
];

for (const c of cellCases) {
  test(`table: ${c.name}`, () => {
    const obj: KubeObject = {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: { name: 'pi', creationTimestamp: '2024-01-01T00:00:00Z', ...(c.deleting ? { deletionTimestamp: '2024-01-01T00:59:00Z' } : {}) },
      spec: { ...c.spec, selector: { matchLabels: { a: 'b' } }, template: { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } } },
      status: c.status ?? {},
    };
    assert.deepEqual(jobColumns.map((col) => col.name), ['Name', 'Status', 'Completions', 'Duration', 'Age', 'Containers', 'Images', 'Selector']);
    assert.deepEqual(jobColumns.map((col) => col.cell(obj, now)), ['pi', ...c.cells, '60m', 'a,b', 'x,y', 'a=b']);
  });
}
