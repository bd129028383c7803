// Job specs' defaults, generated selector, validation and warnings, shared by Jobs and
// CronJobs' job templates, after kubernetes pkg/apis/batch/v1/defaults.go,
// pkg/registry/batch/job/strategy.go, pkg/apis/batch/validation/validation.go and
// pkg/api/job/warnings.go.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { isStatusError } from '../../api/index.ts';
import { byteLength, isDomainPrefixedPath, labelSelectorFromObject, labelSelectorJson, matchLabels, type LabelSelector, type LabelSelectorObject } from '../../api/labels.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';
import { appendAll, child, duplicate, fieldImmutable, GoValue, goJson, index, invalid, invalidOmittingValue, notSupported, required, tooLong, tooMany, validateNonnegative } from '../validation/field.ts';
import type { FieldPath } from '../validation/field.ts';
import { isDNS1123Label, isQualifiedName } from '../validation/names.ts';
import { arrayAt, ensureObject, numberAt, objectAt, objectsAt, present, semanticEqual, stringAt } from './object.ts';
import { defaultPodTemplate, validatePodTemplateSpec } from './pod-spec.ts';
import { podTemplateWarnings } from './pod-warnings.ts';
import { validateLabelSelector } from './selector-validation.ts';

export const jobNameLabel = 'batch.kubernetes.io/job-name';
export const controllerUidLabel = 'batch.kubernetes.io/controller-uid';
const legacyJobNameLabel = 'job-name';
const legacyControllerUidLabel = 'controller-uid';


// ---------- defaults ----------

/** SetDefaults_PodFailurePolicyOnPodConditionsPattern: a pattern's status defaults to True. */
function defaultPodFailurePolicy(spec: JsonObject): void {
  for (const rule of objectsAt(objectAt(spec, 'podFailurePolicy'), 'rules')) {
    for (const pattern of objectsAt(rule, 'onPodConditions')) {
      if (!pattern.status) pattern.status = 'True';
    }
  }
}

/** What a job template gets wherever it appears (a CronJob's jobTemplate has no Job defaults). */
export function defaultJobTemplateSpec(spec: JsonObject): void {
  defaultPodFailurePolicy(spec);
  defaultPodTemplate(ensureObject(spec, 'template'));
}

/**
 * SetDefaults_Job. Answers whether the Job's labels were taken from its template's: upstream
 * then shares one map, so labels later generated into the template show on the Job too.
 */
export function defaultJob(job: KubeObject): boolean {
  const spec = ensureObject(job as JsonObject, 'spec');
  if (!present(spec.completions) && !present(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (!present(spec.parallelism)) spec.parallelism = 1;
  if (!present(spec.backoffLimit)) spec.backoffLimit = present(spec.backoffLimitPerIndex) ? 2147483647 : 6;
  const templateLabels = objectAt(objectAt(spec.template, 'metadata'), 'labels');
  let sharedLabels = false;
  if (templateLabels !== undefined && Object.keys(job.metadata.labels ?? {}).length === 0) {
    job.metadata.labels = clone(templateLabels) as Record<string, string>;
    sharedLabels = true;
  }
  if (!present(spec.completionMode)) spec.completionMode = 'NonIndexed';
  if (!present(spec.suspend)) spec.suspend = false;
  defaultJobTemplateSpec(spec);
  if (!present(spec.podReplacementPolicy)) spec.podReplacementPolicy = present(spec.podFailurePolicy) ? 'Failed' : 'TerminatingOrFailed';
  if (!present(spec.manualSelector)) spec.manualSelector = false;
  return sharedLabels;
}

/**
 * The selector and pod labels upstream generates unless spec.manualSelector: the Job's uid
 * and name under both the batch.kubernetes.io labels and the legacy unprefixed ones; the
 * selector matches the prefixed uid. Labels the client set are left for validation to judge.
 */
export function generateSelector(job: KubeObject): void {
  const spec = ensureObject(job as JsonObject, 'spec');
  if (spec.manualSelector === true) return;
  const labels = ensureObject(ensureObject(ensureObject(spec, 'template'), 'metadata'), 'labels');
  const name = job.metadata.name ?? '';
  const uid = job.metadata.uid ?? '';
  for (const label of [legacyJobNameLabel, jobNameLabel]) if (!(label in labels)) labels[label] = name;
  for (const label of [legacyControllerUidLabel, controllerUidLabel]) if (!(label in labels)) labels[label] = uid;
  const selector = ensureObject(spec, 'selector');
  const selectorLabels = ensureObject(selector, 'matchLabels');
  if (!(controllerUidLabel in selectorLabels)) selectorLabels[controllerUidLabel] = uid;
}

// ---------- validation ----------

function selectorOf(selectorObj: unknown): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(isObject(selectorObj) ? (selectorObj as LabelSelectorObject) : undefined);
  } catch (err) {
    if (isStatusError(err)) return undefined;
    throw err;
  }
}

/** A label map as upstream renders it in an error: JSON with sorted keys, null when unset. */
function labelsJSON(labels: unknown): GoValue {
  return isObject(labels) ? goJson(labels, true) : new GoValue('null');
}

/** ValidateHasLabel. */
function validateHasLabel(meta: JsonObject | undefined, path: FieldPath, label: string, expected: string): StatusCause[] {
  const labels = objectAt(meta, 'labels');
  if (labels === undefined || !(label in labels)) return [required(`${path}.labels[${label}]`, expected)];
  if (labels[label] !== expected) return [invalid(`${path}.labels[${label}]`, labelsJSON(labels), `must be '${expected}'`)];
  return [];
}

/** validateGeneratedSelector: the generated labels and selector must be as generated. */
function validateGeneratedSelector(job: KubeObject, requirePrefixedLabels: boolean): StatusCause[] {
  const spec = objectAt(job, 'spec') ?? {};
  if (spec.manualSelector === true || !present(spec.selector)) return [];
  const causes: StatusCause[] = [];
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  if (uid === '') causes.push(required('metadata.uid'));
  const meta = objectAt(objectAt(spec, 'template'), 'metadata');
  const path = 'spec.template.metadata';
  appendAll(causes, validateHasLabel(meta, path, legacyControllerUidLabel, uid));
  appendAll(causes, validateHasLabel(meta, path, legacyJobNameLabel, name));
  const expected: Record<string, string> = { [legacyControllerUidLabel]: uid, [legacyJobNameLabel]: name };
  if (requirePrefixedLabels) {
    appendAll(causes, validateHasLabel(meta, path, controllerUidLabel, uid));
    appendAll(causes, validateHasLabel(meta, path, jobNameLabel, name));
    expected[controllerUidLabel] = uid;
    expected[jobNameLabel] = name;
  }
  const selector = selectorOf(spec.selector);
  if (selector !== undefined && !matchLabels(selector, expected)) {
    causes.push(invalid('spec.selector', labelSelectorJson(spec.selector), '`selector` not auto-generated'));
  }
  return causes;
}

const podFailurePolicyActions = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const exitCodeOperators = ['In', 'NotIn'];
const conditionStatuses = ['False', 'True', 'Unknown'];
const quotedList = (values: string[]) => `[${values.map((v) => `"${v}"`).join(' ')}]`;

function validateOnExitCodes(onExitCodes: JsonObject, path: FieldPath, containerNames: Set<string>): StatusCause[] {
  const causes: StatusCause[] = [];
  const operator = stringAt(onExitCodes, 'operator');
  if (operator === '') causes.push(required(child(path, 'operator'), `valid values: ${quotedList(exitCodeOperators)}`));
  else if (!exitCodeOperators.includes(operator)) causes.push(notSupported(child(path, 'operator'), operator, exitCodeOperators));
  if (typeof onExitCodes.containerName === 'string' && !containerNames.has(onExitCodes.containerName)) {
    causes.push(invalid(child(path, 'containerName'), onExitCodes.containerName, 'must be one of the container or initContainer names in the pod template'));
  }
  const valuesPath = child(path, 'values');
  const values = arrayAt(onExitCodes, 'values').map(Number);
  if (values.length === 0) causes.push(invalid(valuesPath, goJson(onExitCodes.values ?? null), 'at least one value is required'));
  else if (values.length > 255) causes.push(tooMany(valuesPath, values.length, 255));
  const seen = new Set<number>();
  let ordered = true;
  values.forEach((value, j) => {
    if (operator === 'In' && value === 0) causes.push(invalid(index(valuesPath, j), value, 'must not be 0 for the In operator'));
    if (seen.has(value)) causes.push(duplicate(index(valuesPath, j), value));
    else seen.add(value);
    if (j > 0 && values[j - 1]! > value) ordered = false;
  });
  if (!ordered) causes.push(invalid(valuesPath, goJson(values), 'must be ordered'));
  return causes;
}

function validateOnPodConditions(patterns: JsonObject[], path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (patterns.length > 20) causes.push(tooMany(path, patterns.length, 20));
  patterns.forEach((pattern, j) => {
    const p = index(path, j);
    const type = stringAt(pattern, 'type');
    for (const msg of isQualifiedName(type)) causes.push(invalid(child(p, 'type'), type, msg));
    const status = stringAt(pattern, 'status');
    if (status === '') causes.push(required(child(p, 'status'), `valid values: ${quotedList(conditionStatuses)}`));
    else if (!conditionStatuses.includes(status)) causes.push(notSupported(child(p, 'status'), status, conditionStatuses));
  });
  return causes;
}

function validatePodFailurePolicy(spec: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const rulesPath = child(path, 'rules');
  const rules = objectsAt(objectAt(spec, 'podFailurePolicy'), 'rules');
  if (rules.length > 20) causes.push(tooMany(rulesPath, rules.length, 20));
  const podSpec = objectAt(objectAt(spec, 'template'), 'spec');
  const containerNames = new Set([...objectsAt(podSpec, 'containers'), ...objectsAt(podSpec, 'initContainers')].map((c) => stringAt(c, 'name')));
  rules.forEach((rule, i) => {
    const p = index(rulesPath, i);
    const action = stringAt(rule, 'action');
    if (action === '') causes.push(required(child(p, 'action'), `valid values: ${quotedList(podFailurePolicyActions)}`));
    else if (action === 'FailIndex') {
      if (!present(spec.backoffLimitPerIndex)) causes.push(invalid(child(p, 'action'), action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!podFailurePolicyActions.includes(action)) causes.push(notSupported(child(p, 'action'), action, podFailurePolicyActions));
    const onExitCodes = objectAt(rule, 'onExitCodes');
    const onPodConditions = objectsAt(rule, 'onPodConditions');
    if (onExitCodes !== undefined) appendAll(causes, validateOnExitCodes(onExitCodes, child(p, 'onExitCodes'), containerNames));
    if (onPodConditions.length > 0) appendAll(causes, validateOnPodConditions(onPodConditions, child(p, 'onPodConditions')));
    if (onExitCodes !== undefined && onPodConditions.length > 0) {
      causes.push({ reason: 'FieldValueInvalid', field: p, message: 'Invalid value: specifying both OnExitCodes and OnPodConditions is not supported' });
    }
    if (onExitCodes === undefined && onPodConditions.length === 0) {
      causes.push({ reason: 'FieldValueInvalid', field: p, message: 'Invalid value: specifying one of OnExitCodes and OnPodConditions is required' });
    }
  });
  return causes;
}

/** parseIndexInterval and validateIndexesFormat: "1,3-5,7" below `completions`; answers how many indexes. */
function indexesError(text: string, completions: number): { total: number; error?: string } {
  if (text === '') return { total: 0 };
  let last: number | undefined;
  let total = 0;
  for (const interval of text.split(',')) {
    const limits = interval.split('-');
    if (limits.length > 2) return { total: 0, error: `the fragment "${interval}" violates the requirement that an index interval can have at most two parts separated by '-'` };
    const bounds: number[] = [];
    for (const limit of limits) {
      if (!/^[+-]?[0-9]+$/.test(limit)) return { total: 0, error: `cannot convert string to integer for index: "${limit}"` };
      const n = Number(limit);
      if (n >= completions) return { total: 0, error: `too large index: "${limit}"` };
      bounds.push(n);
    }
    const [x, y = x] = bounds as [number, number?];
    if (bounds.length === 2 && x >= y!) return { total: 0, error: `non-increasing order, previous: ${x}, current: ${y}` };
    if (last !== undefined && last >= x) return { total: 0, error: `non-increasing order, previous: ${last}, current: ${x}` };
    total += y! - x + 1;
    last = y;
  }
  return { total };
}

function validateSuccessPolicy(spec: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const rulesPath = child(path, 'rules');
  const rules = objectsAt(objectAt(spec, 'successPolicy'), 'rules');
  if (rules.length === 0) causes.push(required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > 20) causes.push(tooMany(rulesPath, rules.length, 20));
  const completions = numberAt(spec, 'completions') ?? 0;
  rules.forEach((rule, i) => {
    const p = index(rulesPath, i);
    if (!present(rule.succeededCount) && !present(rule.succeededIndexes)) {
      causes.push(required(p, 'at least one of succeededCount or succeededIndexes must be specified'));
    }
    let total = 0;
    if (typeof rule.succeededIndexes === 'string') {
      const indexesPath = child(p, 'succeededIndexes');
      if (rule.succeededIndexes.length > 64 * 1024) causes.push(tooLong(indexesPath, 64 * 1024));
      const parsed = indexesError(rule.succeededIndexes, completions);
      total = parsed.total;
      if (parsed.error !== undefined) causes.push(invalid(indexesPath, rule.succeededIndexes, `error parsing succeededIndexes: ${parsed.error}`));
    }
    const count = numberAt(rule, 'succeededCount');
    if (count !== undefined) {
      const countPath = child(p, 'succeededCount');
      appendAll(causes, validateNonnegative(count, countPath));
      if (count > completions) causes.push(invalid(countPath, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      if (typeof rule.succeededIndexes === 'string' && count > total) {
        causes.push(invalid(countPath, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  });
  return causes;
}

/**
 * validateJobSpec: what a Job's spec and a CronJob's job template share; `oldTemplate` is
 * the pod template an update replaces.
 */
export function validateJobSpecCommon(spec: JsonObject, path: FieldPath, oldTemplate?: unknown): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const field of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes']) {
    const value = numberAt(spec, field);
    if (value !== undefined) appendAll(causes, validateNonnegative(value, child(path, field)));
  }
  const completions = numberAt(spec, 'completions');
  const parallelism = numberAt(spec, 'parallelism');
  const maxFailedIndexes = numberAt(spec, 'maxFailedIndexes');
  const backoffLimitPerIndex = numberAt(spec, 'backoffLimitPerIndex');
  if (maxFailedIndexes !== undefined && backoffLimitPerIndex === undefined) {
    causes.push(required(child(path, 'backoffLimitPerIndex'), 'when maxFailedIndexes is specified'));
  }
  if (typeof spec.managedBy === 'string') {
    appendAll(causes, isDomainPrefixedPath(spec.managedBy, child(path, 'managedBy')));
    if (byteLength(spec.managedBy) > 63) causes.push(tooLong(child(path, 'managedBy'), 63));
  }
  const mode = spec.completionMode;
  if (present(mode)) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') causes.push(notSupported(child(path, 'completionMode'), mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed') {
      if (completions === undefined) causes.push(required(child(path, 'completions'), 'when completion mode is Indexed'));
      if (parallelism !== undefined && parallelism > 100000) {
        causes.push(invalid(child(path, 'parallelism'), parallelism, 'must be less than or equal to 100000 when completion mode is Indexed'));
      }
      if (completions !== undefined && maxFailedIndexes !== undefined && maxFailedIndexes > completions) {
        causes.push(invalid(child(path, 'maxFailedIndexes'), maxFailedIndexes, 'must be less than or equal to completions'));
      }
      if (maxFailedIndexes !== undefined && maxFailedIndexes > 100000) {
        causes.push(invalid(child(path, 'maxFailedIndexes'), maxFailedIndexes, 'must be less than or equal to 100000'));
      }
      if (completions !== undefined && completions > 100000 && backoffLimitPerIndex !== undefined) {
        if (maxFailedIndexes === undefined) causes.push(required(child(path, 'maxFailedIndexes'), 'must be specified when completions is above 100000'));
        if (parallelism !== undefined && parallelism > 10000) {
          causes.push(invalid(child(path, 'parallelism'), parallelism, 'must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index'));
        }
        if (maxFailedIndexes !== undefined && maxFailedIndexes > 10000) {
          causes.push(invalid(child(path, 'maxFailedIndexes'), maxFailedIndexes, 'must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index'));
        }
      }
    }
  }
  if (!present(mode) || mode === 'NonIndexed') {
    if (backoffLimitPerIndex !== undefined) causes.push(invalid(child(path, 'backoffLimitPerIndex'), backoffLimitPerIndex, 'requires indexed completion mode'));
    if (maxFailedIndexes !== undefined) causes.push(invalid(child(path, 'maxFailedIndexes'), maxFailedIndexes, 'requires indexed completion mode'));
  }
  if (present(spec.podFailurePolicy)) appendAll(causes, validatePodFailurePolicy(spec, child(path, 'podFailurePolicy')));
  if (present(spec.successPolicy)) {
    if (mode !== 'Indexed') causes.push(invalid(child(path, 'successPolicy'), goJson(spec.successPolicy), 'requires indexed completion mode'));
    else appendAll(causes, validateSuccessPolicy(spec, child(path, 'successPolicy')));
  }
  const replacement = spec.podReplacementPolicy;
  if (present(replacement)) {
    if (present(spec.podFailurePolicy)) {
      if (replacement !== 'Failed') causes.push(notSupported(child(path, 'podReplacementPolicy'), replacement, ['Failed']));
    } else if (replacement !== 'Failed' && replacement !== 'TerminatingOrFailed') {
      causes.push(notSupported(child(path, 'podReplacementPolicy'), replacement, ['Failed', 'TerminatingOrFailed']));
    }
  }
  const templatePath = child(path, 'template');
  appendAll(causes, validatePodTemplateSpec(spec.template, templatePath, oldTemplate));
  const restartPolicy = stringAt(objectAt(spec.template, 'spec'), 'restartPolicy');
  const restartPath = child(templatePath, 'spec', 'restartPolicy');
  // A template without restartPolicy was defaulted to Always: both read as "not chosen".
  if (restartPolicy === 'Always' || restartPolicy === '') causes.push(required(restartPath, 'valid values: "OnFailure", "Never"'));
  else if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') causes.push(notSupported(restartPath, restartPolicy, ['OnFailure', 'Never']));
  else if (present(spec.podFailurePolicy) && restartPolicy !== 'Never') {
    causes.push(invalid(restartPath, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return causes;
}

/**
 * ValidateJob: a Job's own rules; `requirePrefixedLabels` unless an old Job never had the
 * batch.kubernetes.io labels; `old` on update.
 */
export function validateJob(job: KubeObject, requirePrefixedLabels: boolean, old?: KubeObject): StatusCause[] {
  const spec = objectAt(job, 'spec') ?? {};
  const causes = validateGeneratedSelector(job, requirePrefixedLabels);
  appendAll(causes, validateJobSpecCommon(spec, 'spec', objectAt(objectAt(old, 'spec'), 'template')));
  if (!present(spec.selector)) causes.push(required('spec.selector'));
  else if (isObject(spec.selector)) appendAll(causes, validateLabelSelector(spec.selector, 'spec.selector'));
  const selector = selectorOf(spec.selector);
  const templateLabels = objectAt(objectAt(spec.template, 'metadata'), 'labels');
  if (selector !== undefined && !matchLabels(selector, (templateLabels ?? {}) as Record<string, string>)) {
    causes.push(invalid('spec.template.metadata.labels', labelsJSON(templateLabels), '`selector` does not match template `labels`'));
  }
  const completions = numberAt(spec, 'completions');
  if (spec.completionMode === 'Indexed' && completions !== undefined && completions > 0) {
    const hostname = `${job.metadata.name ?? ''}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      causes.push(invalid('metadata.name', job.metadata.name ?? '', `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return causes;
}

/**
 * The pod template a suspended Job that never started may change: its scheduling
 * directives (node affinity, node selector, tolerations, scheduling gates) and its labels
 * and annotations; the rest of `old` must stay (validatePodTemplateUpdate).
 */
function comparableOldTemplate(template: JsonObject, old: JsonObject, mutableSchedulingDirectives: boolean): JsonObject {
  if (!mutableSchedulingDirectives) return old;
  const result = clone(old);
  const spec = ensureObject(result, 'spec');
  const newSpec = objectAt(template, 'spec') ?? {};
  const newAffinity = objectAt(newSpec, 'affinity');
  const oldAffinity = objectAt(spec, 'affinity');
  if (newAffinity === undefined && oldAffinity !== undefined) {
    delete oldAffinity.nodeAffinity;
    if (Object.keys(oldAffinity).length === 0) delete spec.affinity;
  } else if (newAffinity !== undefined) {
    const affinity = oldAffinity ?? (spec.affinity = {});
    if (newAffinity.nodeAffinity === undefined) delete (affinity as JsonObject).nodeAffinity;
    else (affinity as JsonObject).nodeAffinity = clone(newAffinity.nodeAffinity);
  }
  for (const field of ['nodeSelector', 'tolerations', 'schedulingGates']) {
    if (newSpec[field] === undefined) delete spec[field];
    else spec[field] = clone(newSpec[field]);
  }
  const meta = ensureObject(result, 'metadata');
  const newMeta = objectAt(template, 'metadata') ?? {};
  for (const field of ['labels', 'annotations']) {
    if (newMeta[field] === undefined) delete meta[field];
    else meta[field] = clone(newMeta[field]);
  }
  return result;
}

/** ValidateJobSpecUpdate's immutability rules. */
export function validateJobUpdate(job: KubeObject, old: KubeObject): StatusCause[] {
  const spec = objectAt(job, 'spec') ?? {};
  const oldSpec = objectAt(old, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const immutable = (field: string, value: unknown) => {
    if (!semanticEqual(spec[field], oldSpec[field])) causes.push(invalid(child('spec', field), value, fieldImmutable));
  };
  // Completions of an Indexed Job may change together with parallelism (elastic Indexed Jobs).
  if (spec.completionMode === 'Indexed') {
    if (!semanticEqual(spec.completions, oldSpec.completions) && present(spec.completions) && spec.completions !== spec.parallelism) {
      causes.push(invalid('spec.completions', spec.completions, 'can only be modified in tandem with spec.parallelism'));
    }
  } else {
    immutable('completions', spec.completions ?? null);
  }
  if (!semanticEqual(spec.selector, oldSpec.selector)) causes.push(invalid('spec.selector', labelSelectorJson(spec.selector), fieldImmutable));
  const suspended = oldSpec.suspend === true;
  const started = present(objectAt(old, 'status')?.startTime);
  const template = objectAt(spec, 'template') ?? {};
  const oldTemplate = comparableOldTemplate(template, objectAt(oldSpec, 'template') ?? {}, suspended && !started);
  if (!semanticEqual(template, oldTemplate)) causes.push(invalid('spec.template', goJson(template), fieldImmutable));
  immutable('completionMode', spec.completionMode ?? null);
  immutable('podFailurePolicy', goJson(spec.podFailurePolicy ?? null));
  immutable('backoffLimitPerIndex', spec.backoffLimitPerIndex ?? null);
  immutable('managedBy', spec.managedBy ?? null);
  immutable('successPolicy', goJson(spec.successPolicy ?? null));
  return causes;
}

/** Whether the old Job's template carries both batch.kubernetes.io labels (upstream's RequirePrefixedLabels on update). */
export function hadPrefixedLabels(old: KubeObject): boolean {
  const labels = objectAt(objectAt(objectAt(objectAt(old, 'spec'), 'template'), 'metadata'), 'labels') ?? {};
  return jobNameLabel in labels && controllerUidLabel in labels;
}

/** IsConditionTrue: any condition of the type with status True. */
function hasTrueCondition(job: KubeObject, type: string): boolean {
  return objectsAt(objectAt(job, 'status'), 'conditions').some((c) => c.type === type && c.status === 'True');
}

const isComplete = (job: KubeObject) => hasTrueCondition(job, 'Complete');
const isFailed = (job: KubeObject) => hasTrueCondition(job, 'Failed');
const isFailureTarget = (job: KubeObject) => hasTrueCondition(job, 'FailureTarget');
const isSuccessCriteriaMet = (job: KubeObject) => hasTrueCondition(job, 'SuccessCriteriaMet');
const isFinished = (job: KubeObject) => isComplete(job) || isFailed(job);

/** A metav1.Time as an instant (ms), undefined when unset or unreadable. */
function instantAt(status: JsonObject, field: string): number | undefined {
  const value = status[field];
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Whether two optional times differ (ptr.Equal on metav1.Time: unset vs set, or another instant). */
function timeChanged(status: JsonObject, oldStatus: JsonObject, field: string): boolean {
  return present(status[field]) !== present(oldStatus[field]) || instantAt(status, field) !== instantAt(oldStatus, field);
}

/** The uncountedTerminatedPods value upstream names: its internal struct, Go field names, nil lists null. */
function uncountedValue(uncounted: JsonObject): GoValue {
  return goJson({ Succeeded: uncounted.succeeded ?? null, Failed: uncounted.failed ?? null });
}

/** parseIndexInterval over one "x" or "x-y" of completed or failed indexes. */
function indexInterval(text: string, completions: number): [number, number] | undefined {
  const parsed = indexesError(text, completions);
  if (parsed.error !== undefined || text === '') return undefined;
  const [x, y = x] = text.split('-').map(Number) as [number, number?];
  return [x, y!];
}

/** validateFailedIndexesNotOverlapCompleted: the first index both lists hold, intervals that do not parse skipped. */
function overlapError(completed: string, failed: string, completions: number): string | undefined {
  if (completed === '' || failed === '') return undefined;
  const c = completed.split(',').map((t) => indexInterval(t, completions));
  const f = failed.split(',').map((t) => indexInterval(t, completions));
  let ci = 0;
  let fi = 0;
  while (ci < c.length && fi < f.length) {
    const ci0 = c[ci];
    const fi0 = f[fi];
    if (ci0 === undefined) ci++;
    else if (fi0 === undefined) fi++;
    else {
      if (ci0[0] <= fi0[1] && fi0[0] <= ci0[1]) return `failedIndexes and completedIndexes overlap at index: ${Math.max(ci0[0], fi0[0])}`;
      if (ci0[0] <= fi0[0]) ci++;
      else fi++;
    }
  }
  return undefined;
}

/**
 * ValidateJobUpdateStatus with the options upstream's job status strategy sets (JobManagedBy,
 * GA since 1.35): counters and uncounted pods always; rules on conditions, times and indexes
 * when what they judge changed (so a bad status already stored does not block other
 * writes); then the transitions from `old` a status may not make.
 */
export function validateJobStatusUpdate(job: KubeObject, old: KubeObject): StatusCause[] {
  const status = objectAt(job, 'status') ?? {};
  const oldStatus = objectAt(old, 'status') ?? {};
  const spec = objectAt(job, 'spec') ?? {};
  const causes: StatusCause[] = [];
  for (const field of ['active', 'succeeded', 'failed', 'ready', 'terminating']) {
    const value = numberAt(status, field);
    if (value !== undefined) appendAll(causes, validateNonnegative(value, `status.${field}`));
  }
  const uncounted = objectAt(status, 'uncountedTerminatedPods');
  const seen = new Set<string>();
  for (const list of ['succeeded', 'failed']) {
    arrayAt(uncounted, list).forEach((uid, i) => {
      const p = `status.uncountedTerminatedPods.${list}[${i}]`;
      if (uid === '') causes.push(invalid(p, '', 'must not be empty'));
      else if (seen.has(String(uid))) causes.push(duplicate(p, uid));
      else seen.add(String(uid));
    });
  }

  const complete = isComplete(job);
  const failed = isFailed(job);
  const finished = isFinished(job);
  const completeChanged = complete !== isComplete(old);
  const failedChanged = failed !== isFailed(old);
  const failureTargetChanged = isFailureTarget(job) !== isFailureTarget(old);
  const finishedChanged = finished !== isFinished(old);
  const completedIndexes = stringAt(status, 'completedIndexes');
  const completedIndexesChanged = completedIndexes !== stringAt(oldStatus, 'completedIndexes');
  const failedIndexes = typeof status.failedIndexes === 'string' ? status.failedIndexes : undefined;
  const failedIndexesChanged = failedIndexes !== (typeof oldStatus.failedIndexes === 'string' ? oldStatus.failedIndexes : undefined);
  const active = numberAt(status, 'active') ?? 0;
  const activeChanged = active !== (numberAt(oldStatus, 'active') ?? 0);
  const startTimeChanged = timeChanged(status, oldStatus, 'startTime');
  const completionTimeChanged = timeChanged(status, oldStatus, 'completionTime');
  const uncountedChanged = !semanticEqual(status.uncountedTerminatedPods ?? null, oldStatus.uncountedTerminatedPods ?? null);
  const conditions = 'status.conditions';

  if ((completeChanged || failedChanged) && complete && failed) {
    causes.push(invalidOmittingValue(conditions, 'cannot set Complete=True and Failed=true conditions'));
  }
  if ((completeChanged || failureTargetChanged) && complete && isFailureTarget(job)) {
    causes.push(invalidOmittingValue(conditions, 'cannot set Complete=True and FailureTarget=true conditions'));
  }
  if (completeChanged || completionTimeChanged) {
    if (present(status.completionTime) && !complete) {
      causes.push(invalid('status.completionTime', status.completionTime, 'cannot set completionTime when there is no Complete=True condition'));
    }
    if (!present(status.completionTime) && complete) causes.push(required('status.completionTime', 'completionTime is required for Complete jobs'));
  }
  if (startTimeChanged || completionTimeChanged) {
    const start = instantAt(status, 'startTime');
    const completion = instantAt(status, 'completionTime');
    if (start !== undefined && completion !== undefined && completion < start) {
      causes.push(invalid('status.completionTime', status.completionTime, 'completionTime cannot be set before startTime'));
    }
  }
  if ((finishedChanged || activeChanged) && active > 0 && finished) {
    causes.push(invalid('status.active', active, 'active>0 is invalid for finished job'));
  }
  if ((finishedChanged || startTimeChanged) && !present(status.startTime) && finished) {
    causes.push(required('status.startTime', 'startTime is required for finished job'));
  }
  if ((finishedChanged || uncountedChanged) && finished && uncounted !== undefined
    && arrayAt(uncounted, 'succeeded').length + arrayAt(uncounted, 'failed').length > 0) {
    causes.push(invalid('status.uncountedTerminatedPods', uncountedValue(uncounted), 'uncountedTerminatedPods needs to be empty for finished job'));
  }
  const completions = numberAt(spec, 'completions');
  const backoffLimitPerIndex = present(spec.backoffLimitPerIndex);
  if (completedIndexesChanged && completions !== undefined) {
    const { error } = indexesError(completedIndexes, completions);
    if (error !== undefined) causes.push(invalid('status.completedIndexes', completedIndexes, `error parsing completedIndexes: ${error}`));
  }
  if (failedIndexesChanged && completions !== undefined && backoffLimitPerIndex && failedIndexes !== undefined) {
    const { error } = indexesError(failedIndexes, completions);
    if (error !== undefined) causes.push(invalid('status.failedIndexes', failedIndexes, `error parsing failedIndexes: ${error}`));
  }
  const indexed = spec.completionMode === 'Indexed';
  if (completedIndexesChanged && completedIndexes !== '' && !indexed) {
    causes.push(invalid('status.completedIndexes', completedIndexes, 'cannot set non-empty completedIndexes when non-indexed completion mode'));
  }
  if (failedIndexesChanged && !backoffLimitPerIndex && failedIndexes !== undefined) {
    causes.push(invalid('status.failedIndexes', failedIndexes, 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'));
  }
  if ((failedIndexesChanged || completedIndexesChanged) && completions !== undefined && failedIndexes !== undefined) {
    const error = overlapError(completedIndexes, failedIndexes, completions);
    if (error !== undefined) causes.push(invalid('status.failedIndexes', failedIndexes, error));
  }
  const ready = numberAt(status, 'ready');
  if (ready !== undefined && ready > active) causes.push(invalid('status.ready', ready, 'cannot set more ready pods than active'));
  const successCriteriaMet = isSuccessCriteriaMet(job);
  if (successCriteriaMet && failed) causes.push(invalidOmittingValue(conditions, 'cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (successCriteriaMet && isFailureTarget(job)) {
    causes.push(invalidOmittingValue(conditions, 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  }
  if (present(spec.successPolicy) && !successCriteriaMet && complete) {
    causes.push(invalidOmittingValue(conditions, 'cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'));
  }

  // ValidateJobStatusUpdate: transitions from the stored status.
  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (hasTrueCondition(old, type) && !hasTrueCondition(job, type)) {
      causes.push(invalidOmittingValue(conditions, `cannot disable the terminal ${type}=True condition`));
    }
  }
  const failedCount = numberAt(status, 'failed') ?? 0;
  if (failedCount < (numberAt(oldStatus, 'failed') ?? 0)) causes.push(invalid('status.failed', failedCount, 'cannot decrease the failed counter'));
  // An Indexed Job whose completions follow its parallelism may be scaled down, and its count with it.
  const succeeded = numberAt(status, 'succeeded') ?? 0;
  const scalable = indexed && (spec.completions ?? null) === (spec.parallelism ?? null);
  if (!scalable && succeeded < (numberAt(oldStatus, 'succeeded') ?? 0)) {
    causes.push(invalid('status.succeeded', succeeded, 'cannot decrease the succeeded counter'));
  }
  if (present(status.completionTime) && present(oldStatus.completionTime) && completionTimeChanged) {
    causes.push(invalid('status.completionTime', status.completionTime, 'completionTime cannot be mutated'));
  }
  if (startTimeChanged && present(oldStatus.startTime) && spec.suspend !== true) {
    causes.push(required('status.startTime', 'startTime cannot be removed for unsuspended job'));
  }
  if (isSuccessCriteriaMet(old) && !successCriteriaMet) {
    causes.push(invalidOmittingValue(conditions, 'cannot disable the SuccessCriteriaMet=True condition'));
  }
  if (isComplete(old) && !isSuccessCriteriaMet(old) && successCriteriaMet) {
    causes.push(invalidOmittingValue(conditions, 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'));
  }
  return causes;
}

// ---------- warnings ----------

/** Above these an Indexed Job's completed indexes may not all be tracked when many fail. */
const completionsSoftLimit = 100_000;
const parallelismSoftLimit = 10_000;

/** Upstream's WarningsForJobSpec: an Indexed Job too large to track well, then its pod template's warnings; `path` is the spec's. */
export function jobSpecWarnings(spec: unknown, path: FieldPath): string[] {
  const warnings: string[] = [];
  const completions = numberAt(spec, 'completions') ?? 0;
  const parallelism = numberAt(spec, 'parallelism') ?? 0;
  if (stringAt(spec, 'completionMode') === 'Indexed' && completions > completionsSoftLimit && parallelism > parallelismSoftLimit) {
    warnings.push(`${path}: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail`);
  }
  appendAll(warnings, podTemplateWarnings(objectAt(spec, 'template'), child(path, 'template')));
  return warnings;
}
