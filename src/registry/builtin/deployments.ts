// apps/v1 deployments, after kubernetes pkg/apis/apps/v1/defaults.go,
// pkg/registry/apps/deployment/strategy.go and pkg/apis/apps/validation.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { isStatusError } from '../../api/index.ts';
import { labelSelectorFromObject, labelSelectorString, matchLabels } from '../../api/labels.ts';
import type { LabelSelector, LabelSelectorObject } from '../../api/labels.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { fieldImmutable, forbidden, GoValue, goQuote, invalid, notSupported, required, validateNonnegative } from '../validation/field.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { allVerbs, keepOldSpec, keepOldStatus, labelsOf } from './common.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';
import { ensureObject, numberAt, objectAt, semanticEqual } from './object.ts';
import { defaultPodTemplate, validatePodTemplateSpec } from './pod-spec.ts';
import { goLabelSelector, intOrPercentValue, validateLabelSelector, validatePositiveIntOrPercent } from './selector-validation.ts';
import { deploymentColumns } from './table-columns.ts';

function specOf(d: KubeObject): JsonObject {
  return ensureObject(d as JsonObject, 'spec');
}

/** SetDefaults_Deployment and the pod template's defaults. */
function defaultDeployment(d: KubeObject): void {
  const spec = specOf(d);
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
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
      causes.push(...validatePositiveIntOrPercent(ru.maxUnavailable, `${path}.rollingUpdate.maxUnavailable`));
      causes.push(...validatePositiveIntOrPercent(ru.maxSurge, `${path}.rollingUpdate.maxSurge`));
      const unavailable = intOrPercentValue(ru.maxUnavailable);
      const surge = intOrPercentValue(ru.maxSurge);
      if (unavailable?.value === 0 && surge?.value === 0) {
        causes.push(invalid(`${path}.rollingUpdate.maxUnavailable`, new GoValue(String(ru.maxUnavailable)), 'may not be 0 when `maxSurge` is 0'));
      }
      if (unavailable?.percent && unavailable.value > 100) {
        causes.push(invalid(`${path}.rollingUpdate.maxUnavailable`, new GoValue(String(ru.maxUnavailable)), 'must not be greater than 100%'));
      }
      break;
    }
    default:
      causes.push(notSupported(path, new GoValue(`apps.DeploymentStrategy{Type:${goQuote(String(s.type ?? ''))}}`), ['Recreate', 'RollingUpdate']));
  }
  return causes;
}

function selectorOf(spec: JsonObject): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(objectAt(spec, 'selector') as LabelSelectorObject | undefined);
  } catch (err) {
    if (isStatusError(err)) return undefined;
    throw err;
  }
}

/** ValidateDeploymentSpec. */
function validateDeploymentSpec(d: KubeObject): StatusCause[] {
  const spec = objectAt(d, 'spec') ?? {};
  const causes = validateKubeFinalizerNames(d.metadata.finalizers, 'metadata.finalizers');
  const replicas = numberAt(spec, 'replicas') ?? 0;
  causes.push(...validateNonnegative(replicas, 'spec.replicas'));
  const selectorObj = objectAt(spec, 'selector');
  if (selectorObj === undefined) {
    causes.push(required('spec.selector'));
  } else {
    causes.push(...validateLabelSelector(selectorObj, 'spec.selector'));
    const count = Object.keys(objectAt(selectorObj, 'matchLabels') ?? {}).length + (Array.isArray(selectorObj.matchExpressions) ? selectorObj.matchExpressions.length : 0);
    if (count === 0) causes.push(invalid('spec.selector', goLabelSelector(selectorObj), 'empty selector is invalid for deployment'));
  }
  const selector = selectorOf(spec);
  if (selector === undefined) {
    causes.push(invalid('spec.selector', goLabelSelector(selectorObj), 'invalid label selector'));
  } else {
    const template = objectAt(spec, 'template');
    if (template === undefined) {
      causes.push(required('spec.template'));
    } else {
      const empty = !selector.matchesNothing && selector.requirements.length === 0;
      if (!empty && !matchLabels(selector, labelsOf(template))) {
        const templateLabels = objectAt(objectAt(template, 'metadata'), 'labels');
        causes.push(invalid('spec.template.metadata.labels', templateLabels ?? new GoValue('map[string]string(nil)'), '`selector` does not match template `labels`'));
      }
      causes.push(...validatePodTemplateSpec(template, 'spec.template'));
      const templateSpec = objectAt(template, 'spec') ?? {};
      const restartPolicy = templateSpec.restartPolicy;
      if (restartPolicy !== 'Always') causes.push(notSupported('spec.template.spec.restartPolicy', restartPolicy ?? '', ['Always']));
      if (templateSpec.activeDeadlineSeconds !== undefined && templateSpec.activeDeadlineSeconds !== null) {
        causes.push(forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicaSet is not Supported'));
      }
    }
  }
  causes.push(...validateStrategy(spec.strategy, 'spec.strategy'));
  const minReadySeconds = numberAt(spec, 'minReadySeconds') ?? 0;
  causes.push(...validateNonnegative(minReadySeconds, 'spec.minReadySeconds'));
  const revisionHistoryLimit = numberAt(spec, 'revisionHistoryLimit');
  if (revisionHistoryLimit !== undefined) causes.push(...validateNonnegative(revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const progressDeadlineSeconds = numberAt(spec, 'progressDeadlineSeconds');
  if (progressDeadlineSeconds !== undefined) {
    causes.push(...validateNonnegative(progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    if (progressDeadlineSeconds <= minReadySeconds) {
      causes.push(invalid('spec.progressDeadlineSeconds', progressDeadlineSeconds, 'must be greater than minReadySeconds'));
    }
  }
  return causes;
}

/** ValidateDeploymentStatus. */
function validateDeploymentStatus(d: KubeObject): StatusCause[] {
  const status = objectAt(d, 'status') ?? {};
  const n = (k: string) => numberAt(status, k) ?? 0;
  const causes: StatusCause[] = [];
  for (const k of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']) {
    causes.push(...validateNonnegative(n(k), `status.${k}`));
  }
  const collisionCount = numberAt(status, 'collisionCount');
  if (collisionCount !== undefined) causes.push(...validateNonnegative(collisionCount, 'status.collisionCount'));
  const msg = 'cannot be greater than status.replicas';
  for (const k of ['updatedReplicas', 'readyReplicas', 'availableReplicas']) {
    if (n(k) > n('replicas')) causes.push(invalid(`status.${k}`, n(k), msg));
  }
  if (n('availableReplicas') > n('readyReplicas')) causes.push(invalid('status.availableReplicas', n('availableReplicas'), 'cannot be greater than readyReplicas'));
  return causes;
}

const deploymentStrategy: Strategy = {
  prepareForCreate(d) {
    defaultDeployment(d);
    d.status = {};
    d.metadata.generation = 1;
  },

  prepareForUpdate(d, old) {
    defaultDeployment(d);
    keepOldStatus(d, old);
    // Spec changes bump the generation; so do annotation changes, which are copied to replica sets.
    const generation = old.metadata.generation ?? 0;
    const changed = !semanticEqual(d.spec, old.spec) || !semanticEqual(d.metadata.annotations, old.metadata.annotations);
    d.metadata.generation = changed ? generation + 1 : generation;
  },

  validate(d) {
    return validateDeploymentSpec(d);
  },

  validateUpdate(d, old) {
    const selector = objectAt(d, 'spec')?.selector;
    const oldSelector = objectAt(old, 'spec')?.selector;
    return semanticEqual(selector, oldSelector) ? [] : [invalid('spec.selector', goLabelSelector(selector), fieldImmutable)];
  },

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

  scale: {
    get(d) {
      const spec = objectAt(d, 'spec') ?? {};
      const selector = selectorOf(spec);
      return {
        replicas: numberAt(spec, 'replicas') ?? 0,
        statusReplicas: numberAt(objectAt(d, 'status'), 'replicas') ?? 0,
        selector: selector === undefined ? '' : labelSelectorString(selector),
      };
    },
    set(d, replicas) {
      specOf(d).replicas = replicas;
    },
  },
};

export function deploymentsType(): ResourceType {
  return {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    singular: 'deployment',
    kind: 'Deployment',
    listKind: 'DeploymentList',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    verbs: allVerbs,
    subresources: ['status', 'scale'],
    schemaName: 'io.k8s.api.apps.v1.Deployment',
    strategy: deploymentStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    tableColumns: deploymentColumns,
  };
}
