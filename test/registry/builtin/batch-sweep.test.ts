import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, memoryStore, putStored, storeCreate, tryCreate, tryUpdate } from '../../helpers/store.ts';

const jobs = builtinType('jobs');

const podTemplate = () => ({ spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } });

function job(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', namespace: 'default' }, spec: { template: podTemplate(), ...spec } };
}

const indexedSpec = { completionMode: 'Indexed', completions: 5, parallelism: 5, backoffLimitPerIndex: 1 };
const start = '2024-01-01T00:00:00Z';
const end = '2024-01-01T00:05:00Z';
const complete = [{ type: 'Complete', status: 'True' }];

/**
 * A Job created with `spec`, its status set to `stored` as a controller left it, then
 * `status` written through /status: the causes of the 422, as "field: message" lines.
 */
async function statusWrite(spec: Record<string, unknown>, stored: Record<string, unknown>, status: Record<string, unknown>): Promise<string[]> {
  const fx = memoryStore(jobs);
  const created = await tryCreate(fx.store, job(spec));
  assert.deepEqual(created.causes, []);
  const old = await putStored(fx, { ...created.obj, status: stored });
  const { causes } = await tryUpdate(fx.store, { ...structuredClone(old), status }, 'status');
  return fields(causes);
}

// ValidateJobUpdateStatus with the options of the job status strategy (JobManagedBy is GA in 1.35).
const statusCases: { name: string; spec?: Record<string, unknown>; stored: Record<string, unknown>; status: Record<string, unknown>; causes: string[] }[] = [
  {
    name: 'a terminal Complete condition may not be dropped',
    stored: { startTime: start, completionTime: end, succeeded: 1, conditions: complete },
    status: { startTime: start, succeeded: 1 },
    causes: ['status.conditions: Invalid value: cannot disable the terminal Complete=True condition'],
  },
  {
    name: 'the failed counter may not decrease',
    stored: { startTime: start, failed: 2 },
    status: { startTime: start, failed: 1 },
    causes: ['status.failed: Invalid value: 1: cannot decrease the failed counter'],
  },
  {
    name: 'the succeeded counter of a NonIndexed Job may not decrease',
    spec: { completions: 3 },
    stored: { startTime: start, succeeded: 2 },
    status: { startTime: start, succeeded: 1 },
    causes: ['status.succeeded: Invalid value: 1: cannot decrease the succeeded counter'],
  },
  {
    name: 'the succeeded counter of an Indexed Job scaled with its parallelism may decrease',
    spec: { completionMode: 'Indexed', completions: 3, parallelism: 3 },
    stored: { startTime: start, succeeded: 2, completedIndexes: '0-1' },
    status: { startTime: start, succeeded: 1, completedIndexes: '0' },
    causes: [],
  },
  {
    name: 'a Complete condition needs a completionTime',
    stored: { startTime: start, succeeded: 1 },
    status: { startTime: start, succeeded: 1, conditions: complete },
    causes: ['status.completionTime: Required value: completionTime is required for Complete jobs'],
  },
  {
    name: 'a completionTime needs a Complete condition',
    stored: { startTime: start },
    status: { startTime: start, completionTime: end },
    causes: ['status.completionTime: Invalid value: "2024-01-01T00:05:00Z": cannot set completionTime when there is no Complete=True condition'],
  },
  {
    name: 'completionTime may not be before startTime',
    stored: { startTime: end },
    status: { startTime: end, completionTime: start, conditions: complete },
    causes: ['status.completionTime: Invalid value: "2024-01-01T00:00:00Z": completionTime cannot be set before startTime'],
  },
  {
    name: 'a completionTime once set may not change',
    stored: { startTime: start, completionTime: end, conditions: complete },
    status: { startTime: start, completionTime: '2024-01-01T00:06:00Z', conditions: complete },
    causes: ['status.completionTime: Invalid value: "2024-01-01T00:06:00Z": completionTime cannot be mutated'],
  },
  {
    name: 'a finished Job has no active pods, a startTime and no uncounted pods',
    stored: { active: 1, uncountedTerminatedPods: { succeeded: ['a'] } },
    status: { active: 1, completionTime: end, conditions: complete, uncountedTerminatedPods: { succeeded: ['a'] } },
    causes: [
      'status.active: Invalid value: 1: active>0 is invalid for finished job',
      'status.startTime: Required value: startTime is required for finished job',
      'status.uncountedTerminatedPods: Invalid value: {"Succeeded":["a"],"Failed":null}: uncountedTerminatedPods needs to be empty for finished job',
    ],
  },
  {
    name: 'Complete and Failed conditions together',
    stored: { startTime: start },
    status: { startTime: start, completionTime: end, conditions: [...complete, { type: 'Failed', status: 'True' }] },
    causes: ['status.conditions: Invalid value: cannot set Complete=True and Failed=true conditions'],
  },
  {
    name: 'completedIndexes must parse below completions',
    spec: indexedSpec,
    stored: { startTime: start },
    status: { startTime: start, completedIndexes: '0,5' },
    causes: ['status.completedIndexes: Invalid value: "0,5": error parsing completedIndexes: too large index: "5"'],
  },
  {
    name: 'completedIndexes of a NonIndexed Job',
    stored: { startTime: start },
    status: { startTime: start, completedIndexes: '0' },
    causes: ['status.completedIndexes: Invalid value: "0": cannot set non-empty completedIndexes when non-indexed completion mode'],
  },
  {
    name: 'failedIndexes without backoffLimitPerIndex',
    spec: { completionMode: 'Indexed', completions: 3, parallelism: 3 },
    stored: { startTime: start },
    status: { startTime: start, failedIndexes: '1' },
    causes: ['status.failedIndexes: Invalid value: "1": cannot set non-null failedIndexes when backoffLimitPerIndex is null'],
  },
  {
    name: 'failedIndexes overlapping completedIndexes',
    spec: indexedSpec,
    stored: { startTime: start },
    status: { startTime: start, completedIndexes: '0-2', failedIndexes: '2,4' },
    causes: ['status.failedIndexes: Invalid value: "2,4": failedIndexes and completedIndexes overlap at index: 2'],
  },
  {
    name: 'startTime may not be removed from an unsuspended Job',
    stored: { startTime: start, active: 1 },
    status: { active: 1 },
    causes: ['status.startTime: Required value: startTime cannot be removed for unsuspended job'],
  },
  {
    name: 'startTime may be removed from a suspended Job',
    spec: { suspend: true },
    stored: { startTime: start },
    status: {},
    causes: [],
  },
  {
    name: 'SuccessCriteriaMet and Failed together',
    spec: indexedSpec,
    stored: { startTime: start },
    status: { startTime: start, conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Failed', status: 'True' }] },
    causes: ['status.conditions: Invalid value: cannot set SuccessCriteriaMet=True and Failed=true conditions'],
  },
  {
    name: 'a bad value already stored does not block a write that leaves it alone',
    spec: indexedSpec,
    stored: { startTime: start, active: 2, completedIndexes: '7' },
    status: { startTime: start, active: 1, completedIndexes: '7' },
    causes: [],
  },
];

for (const c of statusCases) {
  test(`status write: ${c.name}`, async () => {
    assert.deepEqual(await statusWrite(c.spec ?? {}, c.stored, c.status), c.causes);
  });
}

// IsDomainPrefixedPath on spec.managedBy (apimachinery pkg/util/validation).
test('an empty managedBy is a Required value', async () => {
  const { causes } = await storeCreate(jobs, job({ managedBy: '' }));
  assert.deepEqual(fields(causes), ['spec.managedBy: Required value']);
});

test('a managedBy whose path has characters outside an HTTP path is refused', async () => {
  const { causes } = await storeCreate(jobs, job({ managedBy: 'example.com/a b' }));
  assert.deepEqual(causes.map((c) => c.field), ['spec.managedBy']);
  // IsDomainPrefixedPath's words: RegexError("Invalid path", httpPathFmt).
  assert.equal(causes[0]!.message, `Invalid value: "a b": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')`);
});

const cronJobs = builtinType('cronjobs');

// validateTimeZone: time.LoadLocation finds no zoneinfo file named for a UTC offset.
test('a CronJob time zone written as a UTC offset is unknown', async () => {
  const cronJob: KubeObject = {
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'hello', namespace: 'default' },
    spec: { schedule: '@hourly', timeZone: '+0500', jobTemplate: { spec: { template: podTemplate() } } },
  };
  const { causes } = await storeCreate(cronJobs, cronJob);
  assert.deepEqual(fields(causes), ['spec.timeZone: Invalid value: "+0500": unknown time zone +0500']);
});
