// apps/v1 deployments, after kubernetes pkg/apis/apps/v1/defaults.go,
// pkg/registry/apps/deployment/strategy.go and pkg/apis/apps/validation.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { appendAll, forbidden, goJson, invalid, notSupported, required, validateNonnegative } from '../validation/field.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { keepOldSpec, keepOldStatus } from './common.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';
import { ensureObject, goParseInt64, numberAt, objectAt, semanticEqual } from './object.ts';
import { defaultPodTemplate } from './pod-spec.ts';
import {
  defaultReplicas, replicatedWarningsOnCreate, templateOf, templateWarningsOnUpdate, validateImmutableSelector, validateReplicaCounts, validateReplicatedTemplate,
  validateSelectorAndTemplate,
} from './pod-controllers.ts';
import { replicasScale } from './scale-access.ts';
import { goIntOrString, intOrPercentValue, validatePositiveIntOrPercent } from './selector-validation.ts';
import { deploymentColumns } from './table-columns.ts';

function specOf(d: KubeObject): JsonObject {
  return ensureObject(d as JsonObject, 'spec');
}

/** SetDefaults_Deployment and the pod template's defaults. */
function defaultDeployment(d: KubeObject): void {
  const spec = specOf(d);
  defaultReplicas(spec);
  const strategy = ensureObject(spec, 'strategy');
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rollingUpdate = ensureObject(strategy, 'rollingUpdate');
    if (rollingUpdate.maxUnavailable === undefined || rollingUpdate.maxUnavailable === null) rollingUpdate.maxUnavailable = '25%';
    if (rollingUpdate.maxSurge === undefined || rollingUpdate.maxSurge === null) rollingUpdate.maxSurge = '25%';
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined || spec.progressDeadlineSeconds === null) spec.progressDeadlineSeconds = 600;
  defaultPodTemplate(ensureObject(spec, 'template'));
}

function validateStrategy(strategy: unknown, path: string): StatusCause[] {
  const s = isObject(strategy) ? strategy : {};
  const causes: StatusCause[] = [];
  switch (s.type) {
    case 'Recreate':
      if (s.rollingUpdate !== undefined && s.rollingUpdate !== null) {
        causes.push(forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'"));
      }
      break;
    case 'RollingUpdate': {
      const ru = objectAt(s, 'rollingUpdate');
      if (ru === undefined) {
        causes.push(required(`${path}.rollingUpdate`, 'this should be defaulted and never be nil'));
        break;
      }
      appendAll(causes, validatePositiveIntOrPercent(ru.maxUnavailable, `${path}.rollingUpdate.maxUnavailable`));
      appendAll(causes, validatePositiveIntOrPercent(ru.maxSurge, `${path}.rollingUpdate.maxSurge`));
      const unavailable = intOrPercentValue(ru.maxUnavailable);
      const surge = intOrPercentValue(ru.maxSurge);
      if (unavailable.value === 0 && surge.value === 0) {
        causes.push(invalid(`${path}.rollingUpdate.maxUnavailable`, goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
      }
      if (unavailable.percent && unavailable.value > 100) {
        causes.push(invalid(`${path}.rollingUpdate.maxUnavailable`, goIntOrString(ru.maxUnavailable), 'must not be greater than 100%'));
      }
      break;
    }
    default: {
      // The internal apps.DeploymentStrategy, whose unset int-or-strings are 0.
      const ru = objectAt(s, 'rollingUpdate');
      const value = goJson({ Type: s.type ?? '', RollingUpdate: ru === undefined ? null : { MaxUnavailable: ru.maxUnavailable ?? 0, MaxSurge: ru.maxSurge ?? 0 } });
      causes.push(notSupported(path, value, ['Recreate', 'RollingUpdate']));
    }
  }
  return causes;
}

/**
 * apps/v1 keeps the internal spec.rollbackTo of older versions in this annotation: the v1
 * conversion reads it as an int64 (ValidateRollback then checks it), and writes it back.
 */
const rollbackAnnotation = 'deprecated.deployment.rollback.to';

/** The annotation's revision; an empty one is none (Convert_v1_Deployment_To_apps_Deployment). */
function rollbackRevision(d: KubeObject): { value: bigint } | { error: string } | undefined {
  const revision = d.metadata.annotations?.[rollbackAnnotation];
  return revision === undefined || revision === '' ? undefined : goParseInt64(revision);
}

/**
 * The annotation as the v1 conversion writes it back from the internal rollbackTo: the
 * revision's decimal form ("+07" is "7"), gone when empty.
 */
function normalizeRollbackAnnotation(d: KubeObject): void {
  const revision = rollbackRevision(d);
  const annotations = d.metadata.annotations;
  if (annotations === undefined || !Object.hasOwn(annotations, rollbackAnnotation)) return;
  if (revision === undefined) {
    delete annotations[rollbackAnnotation];
    if (Object.keys(annotations).length === 0) delete d.metadata.annotations;
  } else if ('value' in revision) {
    annotations[rollbackAnnotation] = revision.value.toString();
  }
}

/** The conversion refuses a revision that is not an int64, in its own words. */
function rollbackConversionError(d: KubeObject): string | undefined {
  const revision = rollbackRevision(d);
  return revision !== undefined && 'error' in revision ? `failed to parse annotation[${rollbackAnnotation}]=${d.metadata.annotations![rollbackAnnotation]} as int64: ${revision.error}` : undefined;
}

/** ValidateDeploymentSpec; `old` on update. */
function validateDeploymentSpec(d: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = objectAt(d, 'spec') ?? {};
  const causes = validateKubeFinalizerNames(d.metadata.finalizers, 'metadata.finalizers');
  const replicas = numberAt(spec, 'replicas') ?? 0;
  appendAll(causes, validateNonnegative(replicas, 'spec.replicas'));
  appendAll(causes, validateSelectorAndTemplate(spec, {
    workload: 'deployment',
    invalidDetail: 'invalid label selector',
    validateTemplate: (selector, template) => validateReplicatedTemplate(selector, template, 'spec.template', templateOf(old)),
  }));
  appendAll(causes, validateStrategy(spec.strategy, 'spec.strategy'));
  const minReadySeconds = numberAt(spec, 'minReadySeconds') ?? 0;
  appendAll(causes, validateNonnegative(minReadySeconds, 'spec.minReadySeconds'));
  const revisionHistoryLimit = numberAt(spec, 'revisionHistoryLimit');
  if (revisionHistoryLimit !== undefined) appendAll(causes, validateNonnegative(revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const rollbackTo = rollbackRevision(d);
  if (rollbackTo !== undefined && 'value' in rollbackTo) appendAll(causes, validateNonnegative(Number(rollbackTo.value), 'spec.rollback.version'));
  const progressDeadlineSeconds = numberAt(spec, 'progressDeadlineSeconds');
  if (progressDeadlineSeconds !== undefined) {
    appendAll(causes, validateNonnegative(progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    if (progressDeadlineSeconds <= minReadySeconds) {
      causes.push(invalid('spec.progressDeadlineSeconds', progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  return causes;
}

/** ValidateDeploymentStatus (terminatingReplicas: DeploymentReplicaSetTerminatingReplicas, beta and on since 1.35). */
function validateDeploymentStatus(d: KubeObject): StatusCause[] {
  return validateReplicaCounts(d, {
    counters: ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'terminatingReplicas', 'collisionCount'],
    atMostReplicas: ['updatedReplicas', 'readyReplicas', 'availableReplicas'],
    availableOverReady: 'cannot be greater than readyReplicas',
  });
}

const deploymentStrategy: Strategy = {
  defaults(d) {
    normalizeRollbackAnnotation(d);
    defaultDeployment(d);
  },
  conversionError: rollbackConversionError,

  prepareForCreate(d) {
    d.status = {};
    d.metadata.generation = 1;
  },

  prepareForUpdate(d, old) {
    keepOldStatus(d, old);
    // Spec changes bump the generation; so do annotation changes, which are copied to replica sets.
    const generation = old.metadata.generation ?? 0;
    const changed = !semanticEqual(d.spec, old.spec) || !semanticEqual(d.metadata.annotations, old.metadata.annotations);
    d.metadata.generation = changed ? generation + 1 : generation;
  },

  validate(d, old) {
    return validateDeploymentSpec(d, old);
  },

  validateUpdate: validateImmutableSelector,

  warningsOnCreate: replicatedWarningsOnCreate,
  warningsOnUpdate: templateWarningsOnUpdate,

  subresources: {
    status: {
      prepareForUpdate(d, old) {
        keepOldSpec(d, old);
        if (old.metadata.labels === undefined) delete d.metadata.labels;
        else d.metadata.labels = clone(old.metadata.labels);
      },
      validateUpdate(d) {
        return validateDeploymentStatus(d);
      },
    },
  },

  scale: replicasScale(),
};

export function deploymentsType(): ResourceType {
  return builtinType('apps', 'v1', 'deployments', {
    subresources: ['status', 'scale'],
    strategy: deploymentStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    tableColumns: deploymentColumns,
  });
}
