import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { cronJobColumns } from '../../../src/registry/builtin/batch.ts';
import { scheduleError, timeZoneError } from '../../../src/registry/builtin/cron-schedule.ts';
import { builtinType, fields, memoryStore, putStored, storeCreate, tryCreate, tryUpdate } from '../../helpers/store.ts';

const cronJobs = builtinType('cronjobs');

const jobTemplate = () => ({ spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'hello', image: 'busybox' }] } } } });

function cronJob(spec: Record<string, unknown>, name = 'hello'): KubeObject {
  return { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name, namespace: 'default' }, spec: { schedule: '*/5 * * * *', jobTemplate: jobTemplate(), ...spec } };
}

test('a created CronJob gets upstream defaults, generation 1 and an empty status; its job template no Job defaults', async () => {
  const input = cronJob({});
  input.status = { lastScheduleTime: '2024-01-01T00:00:00Z' };
  const { obj, causes } = await storeCreate(cronJobs, input);
  assert.deepEqual(causes, []);
  assert.equal(obj.metadata.generation, 1);
  assert.deepEqual(obj.status, {});
  const spec = obj.spec as Record<string, unknown>;
  assert.deepEqual([spec.concurrencyPolicy, spec.suspend, spec.successfulJobsHistoryLimit, spec.failedJobsHistoryLimit], ['Allow', false, 3, 1]);
  const templateSpec = (spec.jobTemplate as { spec: Record<string, unknown> }).spec;
  assert.deepEqual(Object.keys(templateSpec), ['template']);
  const podSpec = (templateSpec.template as { spec: Record<string, unknown> }).spec;
  assert.deepEqual([podSpec.dnsPolicy, podSpec.schedulerName, podSpec.terminationGracePeriodSeconds], ['ClusterFirst', 'default-scheduler', 30]);
});

const scheduleCases: { schedule: string; error?: string }[] = [
  { schedule: '*/5 * * * *' },
  { schedule: '0 0 1,15 * MON-FRI' },
  { schedule: '30 4 * jan-mar sun' },
  { schedule: '? ? ? ? ?' },
  { schedule: '5/10 1-5/2 * * *' },
  { schedule: '@hourly' },
  { schedule: '@midnight' },
  { schedule: '@every 1h30m' },
  { schedule: '* * * *', error: 'expected exactly 5 fields, found 4: [* * * *]' },
  { schedule: '0 0 0 * * *', error: 'expected exactly 5 fields, found 6: [0 0 0 * * *]' },
  { schedule: '60 * * * *', error: 'end of range (60) above maximum (59): 60' },
  { schedule: '* 24 * * *', error: 'end of range (24) above maximum (23): 24' },
  { schedule: '* * 0 * *', error: 'beginning of range (0) below minimum (1): 0' },
  { schedule: '* * * 13 *', error: 'end of range (13) above maximum (12): 13' },
  { schedule: '* * * * 7', error: 'end of range (7) above maximum (6): 7' },
  { schedule: '5-1 * * * *', error: 'beginning of range (5) beyond end of range (1): 5-1' },
  { schedule: '1-2-3 * * * *', error: 'too many hyphens: 1-2-3' },
  { schedule: '*/2/2 * * * *', error: 'too many slashes: */2/2' },
  { schedule: '*/0 * * * *', error: 'step of range should be a positive number: */0' },
  { schedule: 'x * * * *', error: 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax' },
  { schedule: '@often', error: 'unrecognized descriptor: @often' },
  { schedule: '@every 5', error: 'failed to parse duration @every 5: time: missing unit in duration "5"' },
  { schedule: '@every 5y', error: 'failed to parse duration @every 5y: time: unknown unit "y" in duration "5y"' },
];

for (const c of scheduleCases) {
  test(`schedule ${JSON.stringify(c.schedule)} ${c.error === undefined ? 'parses' : 'is refused'}`, () => {
    assert.equal(scheduleError(c.schedule), c.error);
  });
}

const timeZoneCases: { name: string; error?: string }[] = [
  { name: 'Europe/Paris' },
  { name: 'America/Argentina/Buenos_Aires' },
  { name: 'US/Eastern' },
  { name: 'Etc/GMT+5' },
  { name: 'UTC' },
  { name: 'Mars/Olympus', error: 'unknown time zone Mars/Olympus' },
  { name: 'europe/paris', error: 'unknown time zone europe/paris' },
];

for (const c of timeZoneCases) {
  test(`time zone ${c.name} ${c.error === undefined ? 'is known' : 'is unknown'}`, () => {
    assert.equal(timeZoneError(c.name), c.error);
  });
}

const invalidCases: { name: string; spec: Record<string, unknown>; cronJobName?: string; causes: string[] }[] = [
  { name: 'no schedule', spec: { schedule: '' }, causes: ['spec.schedule: Required value'] },
  { name: 'a bad schedule', spec: { schedule: '61 * * * *' }, causes: ['spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61'] },
  {
    name: 'a time zone in the schedule',
    spec: { schedule: 'TZ=UTC 0 * * * *' },
    causes: ['spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead'],
  },
  { name: 'an unknown time zone', spec: { timeZone: 'Mars/Olympus' }, causes: ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus'] },
  { name: 'a malformed time zone', spec: { timeZone: '../etc/passwd' }, causes: ['spec.timeZone: Invalid value: "../etc/passwd": unknown time zone ../etc/passwd'] },
  { name: 'an empty time zone', spec: { timeZone: '' }, causes: ['spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string'] },
  {
    name: 'the Local time zone',
    spec: { timeZone: 'Local' },
    causes: ['spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'],
  },
  {
    name: 'an unknown concurrency policy',
    spec: { concurrencyPolicy: 'Sometimes' },
    causes: ['spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"'],
  },
  {
    name: 'negative deadline and history limits',
    spec: { startingDeadlineSeconds: -1, successfulJobsHistoryLimit: -1 },
    causes: [
      'spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0',
      'spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
    ],
  },
  {
    name: 'the job template is validated as a Job spec without selector',
    spec: {
      jobTemplate: {
        spec: {
          selector: { matchLabels: { a: 'b' } },
          manualSelector: true,
          completionMode: 'Sometimes',
          template: { spec: { containers: [{ name: 'hello', image: 'busybox' }] } },
        },
      },
    },
    causes: [
      'spec.jobTemplate.spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"',
      'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
      'spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated',
      'spec.jobTemplate.spec.manualSelector: Unsupported value: true: supported values: "nil", "false"',
    ],
  },
  {
    name: 'a name longer than 52 characters',
    spec: {},
    cronJobName: 'c'.repeat(53),
    causes: [`metadata.name: Invalid value: "${'c'.repeat(53)}": must be no more than 52 characters`],
  },
];

for (const c of invalidCases) {
  test(`create refused: ${c.name}`, async () => {
    const { causes } = await storeCreate(cronJobs, cronJob(c.spec, c.cronJobName));
    assert.deepEqual(fields(causes), c.causes);
  });
}

test('updates: a long name and a TZ= schedule from before stay updatable; an unchanged unknown time zone is not re-checked', async () => {
  const fx = memoryStore(cronJobs);
  const name = 'c'.repeat(60);
  const stored = await putStored(fx, cronJob({ schedule: 'TZ=UTC 0 * * * *', timeZone: 'Gone/Zone', concurrencyPolicy: 'Allow', suspend: false }, name));
  const next = structuredClone(stored);
  (next.spec as Record<string, unknown>).suspend = true;
  const ok = await tryUpdate(fx.store, next);
  assert.deepEqual(fields(ok.causes), ['spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule']);
  const withoutZone = structuredClone(stored);
  delete (withoutZone.spec as Record<string, unknown>).timeZone;
  const updated = await tryUpdate(fx.store, withoutZone);
  assert.deepEqual(updated.causes, []);
  // Stored without a generation: the spec change makes it 1.
  assert.equal(updated.obj.metadata.generation, 1);
});

test('a spec change bumps the generation; the status is kept', async () => {
  const fx = memoryStore(cronJobs);
  const { obj } = await tryCreate(fx.store, cronJob({}));
  const next: KubeObject = { ...structuredClone(obj), status: { active: [{ name: 'x' }] } };
  (next.spec as Record<string, unknown>).schedule = '@daily';
  const { obj: updated, causes } = await tryUpdate(fx.store, next);
  assert.deepEqual(causes, []);
  assert.equal(updated.metadata.generation, 2);
  assert.deepEqual(updated.status, {});
});

const now = Date.parse('2024-01-01T01:00:00Z');
const cellCases: { name: string; spec: Record<string, unknown>; status?: Record<string, unknown>; cells: unknown[] }[] = [
  { name: 'a new CronJob', spec: { schedule: '*/5 * * * *', suspend: false }, cells: ['*/5 * * * *', '<none>', 'False', 0, '<none>'] },
  {
    name: 'a suspended CronJob with a time zone and active Jobs',
    spec: { schedule: '@hourly', timeZone: 'Europe/Paris', suspend: true },
    status: { active: [{ name: 'a' }, { name: 'b' }], lastScheduleTime: '2024-01-01T00:58:00Z' },
    cells: ['@hourly', 'Europe/Paris', 'True', 2, '2m'],
  },
  { name: 'suspend unset', spec: { schedule: '0 0 * * *' }, cells: ['0 0 * * *', '<none>', '<unset>', 0, '<none>'] },
];

for (const c of cellCases) {
  test(`table: ${c.name}`, () => {
    const obj: KubeObject = {
      apiVersion: 'batch/v1', kind: 'CronJob',
      metadata: { name: 'hello', creationTimestamp: '2024-01-01T00:00:00Z' },
      spec: { ...c.spec, jobTemplate: jobTemplate() },
      status: c.status ?? {},
    };
    assert.deepEqual(cronJobColumns.map((col) => col.name), ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers', 'Images', 'Selector']);
    assert.deepEqual(cronJobColumns.map((col) => col.cell(obj, now)), ['hello', ...c.cells, '60m', 'hello', 'busybox', '<none>']);
  });
}
