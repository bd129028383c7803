// apps/v1 StatefulSets, after kubernetes pkg/apis/apps/v1/defaults.go and conversion.go,
// pkg/apis/apps/validation, pkg/registry/apps/statefulset/strategy.go and printers.go.

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import type { ResourceType } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, forbidden, goJson, invalid, notSupported, required, validateNonnegative } from '../validation/field.ts';
import { validateAnnotations, validateLabels } from '../validation/object-meta.ts';
import { type JsonObject } from '../../api/json.ts';
import { keepOldSpec, specStatusStrategy } from './common.ts';
import { ensureObject, itemsAt, numberAt, objectAt, objectsAt, semanticEqual, setDefault } from './object.ts';
import {
  defaultReplicas, templateOf, templateWarningsOnUpdate, validateAlwaysRestarts, validateCollisionCount, validateReplicaCounts, validateSelectorAndTemplate,
  validateTemplateMatches, withZeroCounters,
} from './pod-controllers.ts';
import { keepsInvalidDeletionCost, validatePodSpecificAnnotations } from './pod-annotations.ts';
import { podTemplateWarnings } from './pod-warnings.ts';
import { persistentVolumeClaimSpecWarnings } from './storage-warnings.ts';
import { goIntOrString, intOrPercentValue, validatePositiveIntOrPercent } from './selector-validation.ts';
import { defaultPodTemplate } from './pod-spec.ts';
import { replicasScale } from './scale-access.ts';
import { builtinType } from './skeleton.ts';
import { isDNS1123Label } from '../validation/names.ts';
import { containersColumn, count, imagesColumn, templateContainers } from './table-columns.ts';

/** StatefulSetStatus serialises these even when 0. */
const alwaysSerialised = ['replicas', 'availableReplicas'];

const retentionPolicies = ['Retain', 'Delete'];

/** SetDefaults_StatefulSet, the pod template's defaults, and the volume claim templates' PVC defaults. */
function defaultStatefulSet(sts: KubeObject): void {
  const spec = ensureObject(sts as JsonObject, 'spec');
  setDefault(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = ensureObject(spec, 'updateStrategy');
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    ensureObject(strategy, 'rollingUpdate');
  }
  const rollingUpdate = objectAt(strategy, 'rollingUpdate');
  if (strategy.type === 'RollingUpdate' && rollingUpdate !== undefined) {
    setDefault(rollingUpdate, 'partition', 0);
    // MaxUnavailableStatefulSet, beta and on since Kubernetes 1.35.
    setDefault(rollingUpdate, 'maxUnavailable', 1);
  }
  const retention = ensureObject(spec, 'persistentVolumeClaimRetentionPolicy');
  setDefault(retention, 'whenDeleted', 'Retain');
  setDefault(retention, 'whenScaled', 'Retain');
  defaultReplicas(spec);
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  defaultPodTemplate(ensureObject(spec, 'template'));
  for (const claim of objectsAt(spec, 'volumeClaimTemplates')) {
    // The v1 conversion names the kind of each claim; SetDefaults_PersistentVolumeClaim fills the rest.
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    setDefault(ensureObject(claim, 'spec'), 'volumeMode', 'Filesystem');
    setDefault(ensureObject(claim, 'status'), 'phase', 'Pending');
  }
}

/** The internal *apps.RollingUpdateStatefulSetStrategy as json.Marshal writes it (null when unset). */
function goRollingUpdate(rollingUpdate: JsonObject | undefined): unknown {
  if (rollingUpdate === undefined) return null;
  return { Partition: numberAt(rollingUpdate, 'partition') ?? 0, MaxUnavailable: rollingUpdate.maxUnavailable ?? null };
}

/** validateRollingUpdateStatefulSet: a partition of at least 0, at most 100% and not 0 unavailable. */
function validateRollingUpdate(rollingUpdate: JsonObject): StatusCause[] {
  const path = 'spec.updateStrategy.rollingUpdate';
  const causes = validateNonnegative(numberAt(rollingUpdate, 'partition') ?? 0, `${path}.partition`);
  const maxUnavailable = rollingUpdate.maxUnavailable;
  if (maxUnavailable === undefined || maxUnavailable === null) return causes;
  const maxPath = `${path}.maxUnavailable`;
  appendAll(causes, validatePositiveIntOrPercent(maxUnavailable, maxPath));
  const v = intOrPercentValue(maxUnavailable);
  if (v.value === 0) causes.push(invalid(maxPath, goIntOrString(maxUnavailable), 'cannot be 0'));
  if (v.percent && v.value > 100) causes.push(invalid(maxPath, goIntOrString(maxUnavailable), 'must not be greater than 100%'));
  return causes;
}

function validateUpdateStrategy(spec: JsonObject): StatusCause[] {
  const strategy = objectAt(spec, 'updateStrategy') ?? {};
  const type = strategy.type ?? '';
  const rollingUpdate = objectAt(strategy, 'rollingUpdate');
  switch (type) {
    case '':
      return [required('spec.updateStrategy')];
    case 'OnDelete':
      if (rollingUpdate === undefined) return [];
      return [invalid('spec.updateStrategy.rollingUpdate', goJson(goRollingUpdate(rollingUpdate)), "only allowed for updateStrategy 'RollingUpdate'")];
    case 'RollingUpdate':
      return rollingUpdate === undefined ? [] : validateRollingUpdate(rollingUpdate);
    default:
      return [invalid('spec.updateStrategy', goJson({ Type: type, RollingUpdate: goRollingUpdate(rollingUpdate) }), "must be 'RollingUpdate' or 'OnDelete'")];
  }
}

/** ValidateStatefulSetSpec; `old` on update. */
function validateStatefulSet(sts: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objectAt(sts, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const policy = spec.podManagementPolicy ?? '';
  if (policy === '') causes.push(required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') causes.push(invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  appendAll(causes, validateUpdateStrategy(spec));
  const retention = objectAt(spec, 'persistentVolumeClaimRetentionPolicy');
  if (retention !== undefined) {
    for (const k of ['whenDeleted', 'whenScaled']) {
      if (!retentionPolicies.includes(String(retention[k] ?? ''))) {
        causes.push(notSupported(`spec.persistentVolumeClaimRetentionPolicy.${k}`, retention[k] ?? '', retentionPolicies));
      }
    }
  }
  appendAll(causes, validateNonnegative(numberAt(spec, 'replicas') ?? 0, 'spec.replicas'));
  appendAll(causes, validateNonnegative(numberAt(spec, 'minReadySeconds') ?? 0, 'spec.minReadySeconds'));
  const ordinals = objectAt(spec, 'ordinals');
  if (ordinals !== undefined) appendAll(causes, validateNonnegative(numberAt(ordinals, 'start') ?? 0, 'spec.ordinals.start'));
  // Pods take serviceName as their subdomain, a DNS label. Upstream checks it on create only
  // (AllowInvalidServiceName on update, kubernetes#130233): a stored StatefulSet stays updatable.
  const serviceName = typeof spec.serviceName === 'string' ? spec.serviceName : '';
  if (old === undefined && serviceName !== '') {
    for (const msg of isDNS1123Label(serviceName)) causes.push(invalid('spec.serviceName', serviceName, msg));
  }
  appendAll(causes, validateSelectorAndTemplate(spec, {
    workload: 'statefulset',
    invalidDetail: '',
    // Upstream checks only the template's labels and annotations here, not its pod spec.
    validateTemplate: (selector, template) => {
      if (template === undefined) return [required('spec.template')];
      const meta = objectAt(template, 'metadata');
      const annotations = (meta?.annotations ?? {}) as Record<string, string>;
      return [
        ...validateTemplateMatches(selector, template, 'spec.template'),
        ...validateLabels(meta?.labels, 'spec.template.labels'),
        ...validateAnnotations(meta?.annotations, 'spec.template.annotations'),
        ...validatePodSpecificAnnotations(annotations, objectAt(template, 'spec') ?? {}, 'spec.template.annotations', keepsInvalidDeletionCost(templateOf(old))),
      ];
    },
  }));
  appendAll(causes, validateAlwaysRestarts(objectAt(spec, 'template'), 'spec.template', 'StatefulSet'));
  return causes;
}

/** The spec fields an update may change (ValidateStatefulSetUpdate); any other change is forbidden. */
const updatableFields = ['replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];
const updatableMessage = `updates to statefulset spec for fields other than ${updatableFields.slice(0, -1).map((f) => `'${f}'`).join(', ')} and '${updatableFields.at(-1)}' are forbidden`;

function validateStatefulSetUpdate(sts: KubeObject, old: KubeObject): StatusCause[] {
  const rest = (obj: KubeObject) => {
    const spec = { ...(objectAt(obj, 'spec') ?? {}) };
    for (const f of updatableFields) delete spec[f];
    return spec;
  };
  return semanticEqual(rest(sts), rest(old)) ? [] : [forbidden('spec', updatableMessage)];
}

/** ValidateStatefulSetStatus and the collision count rule of its status update. */
function validateStatefulSetStatus(sts: KubeObject, old: KubeObject): StatusCause[] {
  return [
    ...validateReplicaCounts(sts, {
      counters: ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount'],
      atMostReplicas: ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'],
      availableOverReady: 'cannot be greater than status.readyReplicas',
    }),
    ...validateCollisionCount(sts, old),
  ];
}

/**
 * What a StatefulSet's every write is warned of (upstream's strategy): its claim templates'
 * fractional storage, named as `claimPath` says (upstream's paths differ between create and
 * update), and a negative revisionHistoryLimit.
 */
function statefulSetSpecWarnings(sts: KubeObject, claimPath: (i: number) => string): string[] {
  const spec = objectAt(sts, 'spec');
  const warnings = itemsAt(spec, 'volumeClaimTemplates').flatMap((claim, i) => persistentVolumeClaimSpecWarnings(claim.spec, claimPath(i)));
  const limit = numberAt(spec, 'revisionHistoryLimit');
  if (limit !== undefined && limit < 0) warnings.push('spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended');
  return warnings;
}

export const statefulSetColumns: TableColumn[] = [
  nameColumn,
  column('Ready', (sts) => `${count(objectAt(sts, 'status')?.readyReplicas)}/${count(objectAt(sts, 'spec')?.replicas)}`, {
    description: 'Number of the pod with ready state',
  }),
  ageColumn,
  containersColumn(templateContainers),
  imagesColumn(templateContainers),
];

export function statefulSetsType(): ResourceType {
  return builtinType('apps', 'v1', 'statefulsets', {
    // Pods are named after the set, so its name must be a DNS label (ValidateStatefulSetName).
    nameRule: 'dns1123-label',
    strategy: specStatusStrategy({
      defaults: defaultStatefulSet,
      prepareForCreate(sts) {
        withZeroCounters(sts, alwaysSerialised);
      },
      validate: validateStatefulSet,
      validateUpdate: validateStatefulSetUpdate,
      warningsOnCreate: (sts) => [
        ...podTemplateWarnings(templateOf(sts), 'spec.template'),
        ...statefulSetSpecWarnings(sts, (i) => `spec.volumeClaimTemplates[${i}]`),
      ],
      warningsOnUpdate: (sts, old) => [
        ...templateWarningsOnUpdate(sts, old),
        ...statefulSetSpecWarnings(sts, (i) => `spec.volumeClaimTemplates[${i}].Spec`),
      ],
      subresources: {
        status: {
          prepareForUpdate(sts, old) {
            keepOldSpec(sts, old);
            withZeroCounters(sts, alwaysSerialised);
          },
          validateUpdate: validateStatefulSetStatus,
        },
      },
      scale: replicasScale(),
    }),
    tableColumns: statefulSetColumns,
  });
}
