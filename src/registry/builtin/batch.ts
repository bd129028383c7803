// batch/v1 jobs and cronjobs: strategies after kubernetes pkg/registry/batch/{job,cronjob}/strategy.go
// and pkg/apis/batch/validation, Table columns after printers.go (printJob, printCronJob).

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { labelSelectorJson } from '../../api/labels.ts';
import type { JsonObject } from '../../api/json.ts';
import type { ResourceType } from '../resource-type.ts';
import { ageColumn, column, humanDuration, nameColumn, timestampMs, translateTimestampSince } from '../table-columns.ts';
import { appendAll, invalid, notSupported, required, validateNonnegative } from '../validation/field.ts';
import { clone } from '../../api/json.ts';
import { specStatusStrategy } from './common.ts';
import { scheduleError, timeZoneError } from './cron-schedule.ts';
import {
  defaultJob, defaultJobTemplateSpec, generateSelector, hadPrefixedLabels, jobSpecWarnings,
  validateJob, validateJobSpecCommon, validateJobStatusUpdate, validateJobUpdate,
} from './job-spec.ts';
import { podNamePrefixWarnings, whenGenerationChanged } from './pod-warnings.ts';
import { arrayAt, ensureObject, numberAt, objectAt, objectsAt, stringAt } from './object.ts';
import { builtinType } from './skeleton.ts';
import { formatSelector } from './table-columns.ts';

// ---------- jobs ----------

/**
 * Marks a Job whose labels its defaults took from its template's. Upstream's defaults share
 * the one map, so the labels its PrepareForCreate then generates into the template show on
 * the Job too; a Job decoded again (a webhook's change) has labels of its own by then.
 */
const labelsFromTemplate = Symbol('labels from template');

function defaultJobMarked(job: KubeObject): void {
  if (defaultJob(job)) Object.defineProperty(job.metadata, labelsFromTemplate, { value: true, configurable: true });
}

/** The generated selector (it needs the uid: after the server set it); labels shared with the template follow it. */
function prepareNewJob(job: KubeObject): void {
  generateSelector(job);
  if (labelsFromTemplate in job.metadata) job.metadata.labels = clone(objectAt(objectAt(objectAt(job, 'spec'), 'template'), 'metadata')?.labels ?? {}) as Record<string, string>;
}

const jobStrategy = specStatusStrategy({
  // batch/v1 keeps a deleted Job's pods unless the client says otherwise (upstream, for compatibility), and says so.
  defaultGarbageCollectionPolicy: 'OrphanDependents',
  orphanByDefaultWarning: 'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning',
  defaults: defaultJobMarked,
  prepareForCreate: prepareNewJob,
  validate(job, old) {
    return validateJob(job, old === undefined || hadPrefixedLabels(old), old);
  },
  validateUpdate(job, old) {
    return validateJobUpdate(job, old);
  },
  warningsOnCreate: (job) => [...podNamePrefixWarnings(job), ...jobSpecWarnings(objectAt(job, 'spec'), 'spec')],
  warningsOnUpdate: (job, old) => whenGenerationChanged(job, old, () => jobSpecWarnings(objectAt(job, 'spec'), 'spec')),
  // Upstream's job SelectableFields and batch/v1 field label conversion, with its own words.
  selectableFields: (job) => ({ 'status.successful': String(numberAt(objectAt(job, 'status'), 'succeeded') ?? 0) }),
  fieldLabels: ['metadata.name', 'metadata.namespace', 'status.successful'],
  fieldLabelConversion: { notSupported: (label) => `field label ${JSON.stringify(label)} not supported for Job` },
  subresources: {
    status: {
      prepareForUpdate(job, old) {
        job.spec = clone(old.spec);
      },
      validateUpdate(job, old) {
        return validateJobStatusUpdate(job, old);
      },
    },
  },
});

function isConditionTrue(obj: KubeObject, type: string): boolean {
  // Upstream's hasJobCondition: the first condition of the type decides.
  const condition = objectsAt(objectAt(obj, 'status'), 'conditions').find((c) => c.type === type);
  return condition?.status === 'True';
}

/** printJob's Status cell. */
function jobStatus(job: KubeObject): string {
  if (isConditionTrue(job, 'Complete')) return 'Complete';
  if (isConditionTrue(job, 'Failed')) return 'Failed';
  if (job.metadata.deletionTimestamp !== undefined && job.metadata.deletionTimestamp !== null) return 'Terminating';
  if (isConditionTrue(job, 'Suspended')) return 'Suspended';
  if (isConditionTrue(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

/** printJob's Completions cell: succeeded/completions, or "n/1 of parallelism" for a work queue. */
function jobCompletions(job: KubeObject): string {
  const spec = objectAt(job, 'spec');
  const succeeded = numberAt(objectAt(job, 'status'), 'succeeded') ?? 0;
  const completions = numberAt(spec, 'completions');
  if (completions !== undefined) return `${succeeded}/${completions}`;
  const parallelism = numberAt(spec, 'parallelism') ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** printJob's Duration cell: from start to completion, or to now while running; empty before it starts. */
function jobDuration(job: KubeObject, now: number): string {
  const status = objectAt(job, 'status');
  const start = timestampMs(status?.startTime);
  if (start === undefined) return '';
  const completion = timestampMs(status?.completionTime);
  return humanDuration((completion ?? now) - start);
}


const containersOf = (podTemplate: unknown) => objectsAt(objectAt(podTemplate, 'spec'), 'containers');

const templateColumns = (templateOf: (obj: KubeObject) => unknown, selectorOf: (obj: KubeObject) => unknown): TableColumn[] => [
  column('Containers', (obj) => containersOf(templateOf(obj)).map((c) => stringAt(c, 'name')).join(','), {
    priority: 1, description: 'Names of each container in the template.',
  }),
  column('Images', (obj) => containersOf(templateOf(obj)).map((c) => stringAt(c, 'image')).join(','), {
    priority: 1, description: 'Images referenced by each container in the template.',
  }),
  column('Selector', (obj) => formatSelector(selectorOf(obj)), {
    priority: 1,
    description: 'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  }),
];

export const jobColumns: TableColumn[] = [
  nameColumn,
  column('Status', jobStatus, { description: 'Status of the job.' }),
  column('Completions', jobCompletions, {
    description: 'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.',
  }),
  column('Duration', jobDuration, { description: 'Time required to complete the job.' }),
  ageColumn,
  ...templateColumns((job) => objectAt(objectAt(job, 'spec'), 'template'), (job) => objectAt(job, 'spec')?.selector),
];

export function jobsType(): ResourceType {
  return builtinType('batch', 'v1', 'jobs', { strategy: jobStrategy, tableColumns: jobColumns });
}

// ---------- cronjobs ----------

const concurrencyPolicies = ['Allow', 'Forbid', 'Replace'];

/** SetDefaults_CronJob, and the job template's pod template defaults. */
function defaultCronJob(cronJob: KubeObject): void {
  const spec = ensureObject(cronJob as JsonObject, 'spec');
  if (!spec.concurrencyPolicy) spec.concurrencyPolicy = 'Allow';
  if (spec.suspend === undefined || spec.suspend === null) spec.suspend = false;
  if (spec.successfulJobsHistoryLimit === undefined || spec.successfulJobsHistoryLimit === null) spec.successfulJobsHistoryLimit = 3;
  if (spec.failedJobsHistoryLimit === undefined || spec.failedJobsHistoryLimit === null) spec.failedJobsHistoryLimit = 1;
  defaultJobTemplateSpec(ensureObject(ensureObject(spec, 'jobTemplate'), 'spec'));
}

/** ValidateJobTemplateSpec: a Job spec whose selector the Job will generate; `old` is the job template an update replaces. */
function validateJobTemplateSpec(template: unknown, path: string, old: unknown): StatusCause[] {
  const spec = objectAt(template, 'spec') ?? {};
  const causes = validateJobSpecCommon(spec, `${path}.spec`, objectAt(objectAt(old, 'spec'), 'template'));
  if (spec.selector !== undefined && spec.selector !== null) causes.push(invalid(`${path}.spec.selector`, labelSelectorJson(spec.selector), '`selector` will be auto-generated'));
  if (spec.manualSelector === true) causes.push(notSupported(`${path}.spec.manualSelector`, true, ['nil', 'false']));
  return causes;
}

/** validateScheduleFormat: robfig/cron's standard syntax, without TZ= unless the old schedule had one. */
function validateSchedule(schedule: string, allowTZ: boolean, timeZone: unknown): StatusCause[] {
  const causes: StatusCause[] = [];
  const error = scheduleError(schedule);
  if (error !== undefined) causes.push(invalid('spec.schedule', schedule, error));
  if (allowTZ && schedule.includes('TZ') && timeZone !== undefined && timeZone !== null) {
    causes.push(invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
  } else if (!allowTZ && schedule.includes('TZ')) {
    causes.push(invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
  }
  return causes;
}

/** validateTimeZone: a tz database name, never "Local". */
function validateTimeZone(timeZone: unknown): StatusCause[] {
  if (typeof timeZone !== 'string') return [];
  const path = 'spec.timeZone';
  if (timeZone === '') return [invalid(path, '', 'timeZone must be nil or non-empty string')];
  for (const part of timeZone.split('/')) {
    if (part === '.' || part === '..' || part.startsWith('-') || !/^[A-Za-z.\-_0-9+]{1,14}$/.test(part)) {
      return [invalid(path, timeZone, `unknown time zone ${timeZone}`)];
    }
  }
  const causes: StatusCause[] = [];
  if (timeZone.toLowerCase() === 'local') causes.push(invalid(path, timeZone, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones'));
  const error = timeZoneError(timeZone);
  if (error !== undefined) causes.push(invalid(path, timeZone, error));
  return causes;
}

/** validateCronJobSpec; `old` on update (TZ= kept from before is tolerated, an unchanged time zone not re-checked). */
function validateCronJobSpec(cronJob: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = objectAt(cronJob, 'spec') ?? {};
  const oldSpec = old === undefined ? undefined : objectAt(old, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const schedule = stringAt(spec, 'schedule');
  if (schedule === '') causes.push(required('spec.schedule'));
  else appendAll(causes, validateSchedule(schedule, oldSpec !== undefined && stringAt(oldSpec, 'schedule').includes('TZ'), spec.timeZone));
  const deadline = numberAt(spec, 'startingDeadlineSeconds');
  if (deadline !== undefined) appendAll(causes, validateNonnegative(deadline, 'spec.startingDeadlineSeconds'));
  if (oldSpec === undefined || (oldSpec.timeZone ?? null) !== (spec.timeZone ?? null)) appendAll(causes, validateTimeZone(spec.timeZone));
  const policy = stringAt(spec, 'concurrencyPolicy');
  if (policy === '') causes.push(required('spec.concurrencyPolicy'));
  else if (!concurrencyPolicies.includes(policy)) causes.push(notSupported('spec.concurrencyPolicy', policy, concurrencyPolicies));
  appendAll(causes, validateJobTemplateSpec(spec.jobTemplate, 'spec.jobTemplate', oldSpec?.jobTemplate));
  for (const field of ['successfulJobsHistoryLimit', 'failedJobsHistoryLimit']) {
    const value = numberAt(spec, field);
    if (value !== undefined) appendAll(causes, validateNonnegative(value, `spec.${field}`));
  }
  return causes;
}

// The CronJob controller names its Jobs `<name>-<11 characters>`; Job names stop at 63.
const maxCronJobNameLength = 63 - 11;

const jobTemplateSpecOf = (cronJob: KubeObject) => objectAt(objectAt(objectAt(cronJob, 'spec'), 'jobTemplate'), 'spec');

const cronJobStrategy = specStatusStrategy({
  defaults: defaultCronJob,
  validate(cronJob, old) {
    const causes = validateCronJobSpec(cronJob, old);
    // Only new CronJobs: older ones with longer names may still be updated and deleted.
    const name = cronJob.metadata.name ?? '';
    if (old === undefined && name.length > maxCronJobNameLength) {
      causes.push(invalid('metadata.name', name, `must be no more than ${maxCronJobNameLength} characters`));
    }
    return causes;
  },
  warningsOnCreate: (cronJob) => [...podNamePrefixWarnings(cronJob), ...jobSpecWarnings(jobTemplateSpecOf(cronJob), 'spec.jobTemplate.spec')],
  warningsOnUpdate: (cronJob, old) => [
    ...whenGenerationChanged(cronJob, old, () => jobSpecWarnings(jobTemplateSpecOf(cronJob), 'spec.jobTemplate.spec')),
    // TZ= in a schedule, which only an older CronJob may keep; upstream's message says "spec.spec".
    ...(stringAt(objectAt(cronJob, 'spec'), 'schedule').includes('TZ')
      ? ['cannot use TZ or CRON_TZ in spec.spec.schedule, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details'] : []),
  ],
});

/** printBoolPtr: "True"/"False", "<unset>" when absent. */
function boolCell(value: unknown): string {
  if (typeof value !== 'boolean') return '<unset>';
  return value ? 'True' : 'False';
}

export const cronJobColumns: TableColumn[] = [
  nameColumn,
  column('Schedule', (cj) => stringAt(objectAt(cj, 'spec'), 'schedule'), { description: 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.' }),
  column('Timezone', (cj) => {
    const timeZone = objectAt(cj, 'spec')?.timeZone;
    return typeof timeZone === 'string' ? timeZone : '<none>';
  }, {
    description: 'The time zone for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will rely on the time zone of the kube-controller-manager process. ALPHA: This field is in alpha and must be enabled via the `CronJobTimeZone` feature gate.',
  }),
  column('Suspend', (cj) => boolCell(objectAt(cj, 'spec')?.suspend), {
    type: 'boolean', description: 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.',
  }),
  column('Active', (cj) => arrayAt(objectAt(cj, 'status'), 'active').length, { type: 'integer', description: 'A list of pointers to currently running jobs.' }),
  column('Last Schedule', (cj, now) => {
    const last = objectAt(cj, 'status')?.lastScheduleTime;
    return last === undefined || last === null ? '<none>' : translateTimestampSince(last, now);
  }, { description: 'Information when was the last time the job was successfully scheduled.' }),
  ageColumn,
  ...templateColumns(
    (cj) => objectAt(objectAt(objectAt(cj, 'spec'), 'jobTemplate'), 'spec')?.template,
    (cj) => objectAt(objectAt(objectAt(cj, 'spec'), 'jobTemplate'), 'spec')?.selector,
  ),
];

export function cronJobsType(): ResourceType {
  return builtinType('batch', 'v1', 'cronjobs', { strategy: cronJobStrategy, tableColumns: cronJobColumns });
}
