// apps/v1 DaemonSets, after kubernetes pkg/apis/apps/v1/defaults.go and conversion.go,
// pkg/apis/apps/validation, pkg/registry/apps/daemonset/strategy.go and printers.go.

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import type { ResourceType } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, goJson, invalid, notSupported, required, validateNonnegative } from '../validation/field.ts';
import { type JsonObject } from '../../api/json.ts';
import { labelSelectorJson } from '../../api/labels.ts';
import { keepOldSpec, specStatusStrategy } from './common.ts';
import { ensureObject, goParseInt64, numberAt, objectAt, semanticEqual, setDefault } from './object.ts';
import {
  podSelectorOf, selectorCount, templateOf, validateAlwaysRestarts, validateCollisionCount, validateCounters, validateImmutableSelector, validateTemplateMatches,
  withZeroCounters,
} from './pod-controllers.ts';
import { podTemplateWarnings } from './pod-warnings.ts';
import { defaultPodTemplate, validatePodTemplateSpec } from './pod-spec.ts';
import { goIntOrString, intOrPercentValue, validateLabelSelector, validatePositiveIntOrPercent } from './selector-validation.ts';
import { builtinType } from './skeleton.ts';
import { containersColumn, count, formatLabels, formatLabelSelector, imagesColumn, templateContainers } from './table-columns.ts';

/** DaemonSetStatus serialises these even when 0. */
const alwaysSerialised = ['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'];

/**
 * apps/v1 has no spec.templateGeneration: the v1 conversion keeps the internal counter in
 * this annotation, which the server alone sets.
 */
const templateGenerationAnnotation = 'deprecated.daemonset.template.generation';

/** SetDefaults_DaemonSet and the pod template's defaults. */
function defaultDaemonSet(ds: KubeObject): void {
  const spec = ensureObject(ds as JsonObject, 'spec');
  const strategy = ensureObject(spec, 'updateStrategy');
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = ensureObject(strategy, 'rollingUpdate');
    if (rollingUpdate.maxUnavailable === undefined || rollingUpdate.maxUnavailable === null) rollingUpdate.maxUnavailable = 1;
    if (rollingUpdate.maxSurge === undefined || rollingUpdate.maxSurge === null) rollingUpdate.maxSurge = 0;
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(ensureObject(spec, 'template'));
}

function templateGenerationOf(ds: KubeObject): number {
  const value = Number(ds.metadata.annotations?.[templateGenerationAnnotation]);
  return Number.isInteger(value) ? value : 0;
}

/** Convert_v1_DaemonSet_To_apps_DaemonSet: the annotation, when present, must parse as an int64. */
function templateGenerationConversionError(ds: KubeObject): string | undefined {
  const value = ds.metadata.annotations?.[templateGenerationAnnotation];
  if (value === undefined) return undefined;
  const parsed = goParseInt64(value);
  return 'error' in parsed ? parsed.error : undefined;
}

function setTemplateGeneration(ds: KubeObject, generation: number): void {
  ds.metadata.annotations = { ...ds.metadata.annotations, [templateGenerationAnnotation]: String(generation) };
}

/** ValidateRollingUpdateDaemonSet: exactly one of maxUnavailable and maxSurge is non-zero. */
function validateRollingUpdate(rollingUpdate: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const k of ['maxUnavailable', 'maxSurge']) appendAll(causes, validatePositiveIntOrPercent(rollingUpdate[k], `${path}.${k}`));
  for (const k of ['maxUnavailable', 'maxSurge']) {
    const v = intOrPercentValue(rollingUpdate[k]);
    if (v.percent && v.value > 100) causes.push(invalid(`${path}.${k}`, goIntOrString(rollingUpdate[k]), 'must not be greater than 100%'));
  }
  const hasUnavailable = intOrPercentValue(rollingUpdate.maxUnavailable).value !== 0;
  const hasSurge = intOrPercentValue(rollingUpdate.maxSurge).value !== 0;
  if (hasUnavailable && hasSurge) causes.push(invalid(`${path}.maxSurge`, goIntOrString(rollingUpdate.maxSurge), 'may not be set when maxUnavailable is non-zero'));
  if (!hasUnavailable && !hasSurge) causes.push(required(`${path}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  return causes;
}

/** ValidateDaemonSetUpdateStrategy. */
function validateUpdateStrategy(strategy: JsonObject | undefined): StatusCause[] {
  const type = strategy?.type ?? '';
  const rollingUpdate = objectAt(strategy, 'rollingUpdate');
  switch (type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate':
      if (rollingUpdate === undefined) return [required('spec.updateStrategy.rollingUpdate')];
      return validateRollingUpdate(rollingUpdate, 'spec.updateStrategy.rollingUpdate');
    default: {
      // The internal apps.DaemonSetUpdateStrategy, whose unset int-or-strings are 0.
      const value = goJson({
        Type: type,
        RollingUpdate: rollingUpdate === undefined ? null : { MaxUnavailable: rollingUpdate.maxUnavailable ?? 0, MaxSurge: rollingUpdate.maxSurge ?? 0 },
      });
      return [notSupported('spec.updateStrategy', value, ['RollingUpdate', 'OnDelete'])];
    }
  }
}

/** ValidateDaemonSetSpec; `old` on update. */
function validateDaemonSet(ds: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objectAt(ds, 'spec') ?? {};
  const selectorObj = objectAt(spec, 'selector');
  const template = objectAt(spec, 'template') ?? {};
  const causes = selectorObj === undefined ? [] : validateLabelSelector(selectorObj, 'spec.selector');
  // A missing selector matches nothing; one that does not parse is left to the checks above.
  const selector = podSelectorOf(spec);
  if (selector !== undefined) appendAll(causes, validateTemplateMatches(selector, template, 'spec.template'));
  if (selectorObj !== undefined && selectorCount(selectorObj) === 0) causes.push(invalid('spec.selector', labelSelectorJson(selectorObj), 'empty selector is invalid for daemonset'));
  appendAll(causes, validatePodTemplateSpec(template, 'spec.template', templateOf(old)));
  appendAll(causes, validateAlwaysRestarts(template, 'spec.template', 'DaemonSet'));
  appendAll(causes, validateNonnegative(numberAt(spec, 'minReadySeconds') ?? 0, 'spec.minReadySeconds'));
  appendAll(causes, validateUpdateStrategy(objectAt(spec, 'updateStrategy')));
  const revisionHistoryLimit = numberAt(spec, 'revisionHistoryLimit');
  if (revisionHistoryLimit !== undefined) appendAll(causes, validateNonnegative(revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  return causes;
}

/** validateDaemonSetStatus and the collision count rule of its status update. */
function validateDaemonSetStatus(ds: KubeObject, old: KubeObject): StatusCause[] {
  const counters = [
    'currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration',
    'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount',
  ];
  return [...validateCounters(objectAt(ds, 'status'), counters, 'status'), ...validateCollisionCount(ds, old)];
}

const status = (field: string) => (ds: KubeObject) => count(objectAt(ds, 'status')?.[field]);

export const daemonSetColumns: TableColumn[] = [
  nameColumn,
  column('Desired', status('desiredNumberScheduled'), {
    type: 'integer',
    description: 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  }),
  column('Current', status('currentNumberScheduled'), {
    type: 'integer',
    description: 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/',
  }),
  column('Ready', status('numberReady'), {
    type: 'integer', description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
  }),
  column('Up-to-date', status('updatedNumberScheduled'), { type: 'integer', description: 'The total number of nodes that are running updated daemon pod' }),
  column('Available', status('numberAvailable'), {
    type: 'integer',
    description: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)',
  }),
  column('Node Selector', (ds) => formatLabels(objectAt(objectAt(objectAt(ds, 'spec'), 'template'), 'spec')?.nodeSelector), {
    description: "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
  }),
  ageColumn,
  containersColumn(templateContainers),
  imagesColumn(templateContainers),
  column('Selector', (ds) => formatLabelSelector(objectAt(ds, 'spec')?.selector), {
    priority: 1,
    description: 'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  }),
];

export function daemonSetsType(): ResourceType {
  return builtinType('apps', 'v1', 'daemonsets', {
    strategy: specStatusStrategy({
      defaults: defaultDaemonSet,
      conversionError: templateGenerationConversionError,
      prepareForCreate(ds) {
        setTemplateGeneration(ds, Math.max(templateGenerationOf(ds), 1));
        withZeroCounters(ds, alwaysSerialised);
      },
      prepareForUpdate(ds, old) {
        // A template change counts a template generation; clients cannot set it.
        const generation = templateGenerationOf(old);
        const templateChanged = !semanticEqual(objectAt(ds, 'spec')?.template, objectAt(old, 'spec')?.template);
        setTemplateGeneration(ds, templateChanged ? generation + 1 : generation);
      },
      validate: validateDaemonSet,
      // Upstream validates the spec a second time on update (its causes repeat), then the selector.
      validateUpdate: (ds, old) => [...validateDaemonSet(ds, old), ...validateImmutableSelector(ds, old)],
      warningsOnCreate: (ds) => podTemplateWarnings(templateOf(ds), 'spec.template'),
      // Upstream warns of an update that changed the template (its template generation moved).
      warningsOnUpdate: (ds, old) => (templateGenerationOf(ds) === templateGenerationOf(old) ? [] : podTemplateWarnings(templateOf(ds), 'spec.template')),
      subresources: {
        status: {
          prepareForUpdate(ds, old) {
            keepOldSpec(ds, old);
            // The template generation is part of upstream's internal spec, which /status restores.
            setTemplateGeneration(ds, templateGenerationOf(old));
            withZeroCounters(ds, alwaysSerialised);
          },
          validateUpdate: validateDaemonSetStatus,
        },
      },
    }),
    tableColumns: daemonSetColumns,
  });
}
