// apps/v1 ReplicaSets and their core/v1 predecessor ReplicationControllers (a plain label
// map as selector), after kubernetes pkg/apis/apps/v1 and core/v1 defaults.go, the apps and
// core validation packages, pkg/registry/apps/replicaset and core/replicationcontroller's
// strategies, and printers.go's columns.

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { labelSelectorFromSet } from '../../api/labels.ts';
import type { GarbageCollectionPolicy, ResourceType, ScaleAccess } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, invalid, notFound, required, validateNonnegative } from '../validation/field.ts';
import { clone, type JsonObject } from '../../api/json.ts';
import { keepOldSpec, specStatusStrategy } from './common.ts';
import { ensureObject, mapsEqual, numberAt, objectAt } from './object.ts';
import {
  defaultReplicas, replicatedWarningsOnCreate, templateOf, templateWarningsOnUpdate, validateImmutableSelector, validateReplicaCounts,
  validateReplicaSetStatus, validateReplicatedTemplate, validateSelectorAndTemplate, withZeroCounters,
} from './pod-controllers.ts';
import { podTemplateWarnings, whenGenerationChanged } from './pod-warnings.ts';
import { defaultPodTemplate } from './pod-spec.ts';
import { replicasScale } from './scale-access.ts';
import { builtinType } from './skeleton.ts';
import { containersColumn, count, formatLabels, formatLabelSelector, imagesColumn, templateContainers } from './table-columns.ts';

/** ReplicaSetStatus and ReplicationControllerStatus serialise `replicas` even when 0. */
const alwaysSerialised = ['replicas'];

/**
 * What both share: defaults on every write (before the generation compares specs), a new
 * object's status `{replicas: 0}`, status written only through /status, upstream's update
 * validation, which checks the spec a second time (its causes repeat), and the warnings of
 * a create: the name and the template.
 */
function replicatedStrategy(opts: {
  defaults(obj: KubeObject): void;
  validate(obj: KubeObject, old?: KubeObject): StatusCause[];
  validateUpdate(obj: KubeObject, old: KubeObject): StatusCause[];
  validateStatus(obj: KubeObject): StatusCause[];
  warningsOnUpdate(obj: KubeObject, old: KubeObject): string[];
  scale: ScaleAccess;
  defaultGarbageCollectionPolicy?: GarbageCollectionPolicy;
}) {
  return specStatusStrategy({
    defaultGarbageCollectionPolicy: opts.defaultGarbageCollectionPolicy,
    defaults: opts.defaults,
    prepareForCreate(obj) {
      withZeroCounters(obj, alwaysSerialised);
    },
    validate: opts.validate,
    validateUpdate: opts.validateUpdate,
    warningsOnCreate: replicatedWarningsOnCreate,
    warningsOnUpdate: opts.warningsOnUpdate,
    subresources: {
      status: {
        prepareForUpdate(obj, old) {
          keepOldSpec(obj, old);
          withZeroCounters(obj, alwaysSerialised);
        },
        validateUpdate: opts.validateStatus,
      },
    },
    scale: opts.scale,
  });
}

function specOf(obj: KubeObject): JsonObject {
  return ensureObject(obj as JsonObject, 'spec');
}

// ---- ReplicaSets ----

/** SetDefaults_ReplicaSet and the pod template's defaults. */
function defaultReplicaSet(rs: KubeObject): void {
  const spec = specOf(rs);
  defaultReplicas(spec);
  defaultPodTemplate(ensureObject(spec, 'template'));
}

/** ValidateReplicaSetSpec; `old` on update. */
function validateReplicaSet(rs: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objectAt(rs, 'spec') ?? {};
  return [
    ...validateNonnegative(numberAt(spec, 'replicas') ?? 0, 'spec.replicas'),
    ...validateNonnegative(numberAt(spec, 'minReadySeconds') ?? 0, 'spec.minReadySeconds'),
    // Upstream's message names deployments here too.
    ...validateSelectorAndTemplate(spec, {
      workload: 'deployment',
      invalidDetail: 'invalid label selector',
      validateTemplate: (selector, template) => validateReplicatedTemplate(selector, template, 'spec.template', templateOf(old)),
    }),
  ];
}

/** ValidateReplicaSetStatus, with terminatingReplicas (DeploymentReplicaSetTerminatingReplicas, beta and on since 1.35). */
function validateReplicaSetStatusCounts(rs: KubeObject): StatusCause[] {
  return validateReplicaCounts(rs, {
    counters: ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration', 'terminatingReplicas'],
    atMostReplicas: ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'],
    availableOverReady: 'cannot be greater than readyReplicas',
  });
}

const specReplicas = (obj: KubeObject) => count(objectAt(obj, 'spec')?.replicas);
const status = (field: string) => (obj: KubeObject) => count(objectAt(obj, 'status')?.[field]);

export const replicaSetColumns: TableColumn[] = [
  nameColumn,
  column('Desired', specReplicas, {
    type: 'integer',
    description: 'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller',
  }),
  column('Current', status('replicas'), {
    type: 'integer',
    description: 'Replicas is the most recently oberved number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller',
  }),
  column('Ready', status('readyReplicas'), { type: 'integer', description: 'The number of ready replicas for this replica set.' }),
  ageColumn,
  containersColumn(templateContainers),
  imagesColumn(templateContainers),
  column('Selector', (rs) => formatLabelSelector(objectAt(rs, 'spec')?.selector), {
    priority: 1,
    description: 'Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  }),
];

export function replicaSetsType(): ResourceType {
  return builtinType('apps', 'v1', 'replicasets', {
    strategy: replicatedStrategy({
      defaults: defaultReplicaSet,
      validate: validateReplicaSet,
      validateUpdate: (rs, old) => [...validateReplicaSet(rs, old), ...validateImmutableSelector(rs, old)],
      validateStatus: validateReplicaSetStatusCounts,
      warningsOnUpdate: templateWarningsOnUpdate,
      scale: replicasScale(),
    }),
    tableColumns: replicaSetColumns,
  });
}

// ---- ReplicationControllers ----

/** SetDefaults_ReplicationController: the selector and the object's labels come from the template's labels when empty. */
function defaultReplicationController(rc: KubeObject): void {
  const spec = specOf(rc);
  const template = objectAt(spec, 'template');
  const labels = objectAt(objectAt(template, 'metadata'), 'labels');
  if (labels !== undefined) {
    if (Object.keys(objectAt(spec, 'selector') ?? {}).length === 0) spec.selector = clone(labels);
    if (Object.keys(rc.metadata.labels ?? {}).length === 0) rc.metadata.labels = clone(labels) as Record<string, string>;
  }
  defaultReplicas(spec);
  if (template !== undefined) defaultPodTemplate(template);
}

/** ValidateReplicationControllerSpec; `old` on update. */
function validateReplicationController(rc: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objectAt(rc, 'spec') ?? {};
  const selector = (objectAt(spec, 'selector') ?? {}) as Record<string, string>;
  const causes = validateNonnegative(numberAt(spec, 'minReadySeconds') ?? 0, 'spec.minReadySeconds');
  if (Object.keys(selector).length === 0) causes.push(required('spec.selector'));
  appendAll(causes, validateNonnegative(numberAt(spec, 'replicas') ?? 0, 'spec.replicas'));
  appendAll(causes, validateReplicatedTemplate(labelSelectorFromSet(selector), objectAt(spec, 'template'), 'spec.template', templateOf(old), 'ReplicationController'));
  return causes;
}

/** core.NonConvertibleAnnotationPrefix: what a conversion from a ReplicaSet could not express, noted on the object. */
const nonConvertiblePrefix = 'non-convertible.kubernetes.io';

/**
 * rcStrategy.ValidateUpdate's last causes, from the stored object's non-convertible
 * annotations: a selector named there may not change; any other field named there
 * refuses every update (upstream names it as the cause's field, the annotation's value
 * as its bad value).
 */
function validateNonConvertibleFields(rc: KubeObject, old: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(old.metadata.annotations ?? {})) {
    if (!key.startsWith(nonConvertiblePrefix)) continue;
    const parts = key.split('/');
    if (parts.length !== 2) continue;
    const brokenField = parts[1]!;
    if (brokenField.includes('selector')) {
      const selector = objectAt(rc, 'spec')?.selector;
      if (!mapsEqual(selector, objectAt(old, 'spec')?.selector)) causes.push(invalid('spec.selector', selector, 'cannot update non-convertible selector'));
    } else {
      // A NotFound with a detail, which field.NotFound does not take: upstream builds the error itself.
      causes.push(notFound(brokenField, value, 'unknown non-convertible field'));
    }
  }
  return causes;
}

export const replicationControllerColumns: TableColumn[] = [
  nameColumn,
  column('Desired', specReplicas, {
    type: 'integer',
    description: 'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
  }),
  column('Current', status('replicas'), {
    type: 'integer',
    description: 'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller',
  }),
  column('Ready', status('readyReplicas'), { type: 'integer', description: 'The number of ready replicas for this replication controller.' }),
  ageColumn,
  containersColumn(templateContainers),
  imagesColumn(templateContainers),
  column('Selector', (rc) => formatLabels(objectAt(rc, 'spec')?.selector), {
    priority: 1,
    description: 'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors',
  }),
];

export function replicationControllersType(): ResourceType {
  return builtinType('', 'v1', 'replicationcontrollers', {
    strategy: {
      ...replicatedStrategy({
        defaults: defaultReplicationController,
        validate: validateReplicationController,
        validateUpdate: (rc, old) => [...validateReplicationController(rc, old), ...validateNonConvertibleFields(rc, old)],
        validateStatus: validateReplicaSetStatus,
        // Upstream's rcStrategy passes the templates the wrong way round: an update is warned of the old one.
        warningsOnUpdate: (rc, old) => whenGenerationChanged(rc, old, () => podTemplateWarnings(templateOf(old), 'spec.template')),
        scale: replicasScale({ mapSelector: true }),
        // core/v1 keeps a deleted ReplicationController's pods unless the client says otherwise (upstream, for compatibility).
        defaultGarbageCollectionPolicy: 'OrphanDependents',
      }),
      // Upstream's ControllerToSelectableFields and core/v1 field label conversion (a
      // ReplicaSet has no such conversion: apps/v1 accepts metadata labels only).
      selectableFields: (rc) => ({ 'status.replicas': String(numberAt(objectAt(rc, 'status'), 'replicas') ?? 0) }),
      fieldLabels: ['metadata.name', 'metadata.namespace', 'status.replicas'],
    },
    tableColumns: replicationControllerColumns,
  });
}
