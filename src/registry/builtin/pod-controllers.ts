// What the controllers of pods share (Deployments, ReplicaSets, ReplicationControllers,
// StatefulSets, DaemonSets), after kubernetes pkg/apis/apps/validation and
// pkg/apis/core/validation: the pod selector against the template's labels, the restart
// policy their pods need, replica counters, the status fields Go always serialises, and
// what their writes are warned of.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { isStatusError } from '../../api/index.ts';
import { isEverything, labelSelectorFromObject, labelSelectorJson, matchLabels } from '../../api/labels.ts';
import type { LabelSelector, LabelSelectorObject } from '../../api/labels.ts';
import { appendAll, child, fieldImmutable, forbidden, invalid, notSupported, required, validateNonnegative } from '../validation/field.ts';
import type { FieldPath } from '../validation/field.ts';
import { labelsOf } from './common.ts';
import type { JsonObject } from '../../api/json.ts';
import { ensureObject, numberAt, objectAt, semanticEqual } from './object.ts';
import { validatePodTemplateSpec } from './pod-spec.ts';
import { podNamePrefixWarnings, podTemplateWarnings, whenGenerationChanged } from './pod-warnings.ts';
import { validateLabelSelector } from './selector-validation.ts';

/** The parsed `spec.selector` (a LabelSelector); undefined when it does not parse. */
export function podSelectorOf(spec: unknown): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(objectAt(spec, 'selector') as LabelSelectorObject | undefined);
  } catch (err) {
    if (isStatusError(err)) return undefined;
    throw err;
  }
}

/** Sets `spec.replicas` to 1 when absent (every replicated workload's first default). */
export function defaultReplicas(spec: JsonObject): void {
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
}

/** The template's labels, a Go map: null when there are none. */
function templateLabelsValue(template: JsonObject): unknown {
  return objectAt(objectAt(template, 'metadata'), 'labels') ?? null;
}

/** "`selector` does not match template `labels`", unless the selector is empty. */
export function validateTemplateMatches(selector: LabelSelector, template: JsonObject, path: FieldPath): StatusCause[] {
  if (isEverything(selector) || matchLabels(selector, labelsOf(template))) return [];
  return [invalid(child(path, 'metadata', 'labels'), templateLabelsValue(template), '`selector` does not match template `labels`')];
}

/** Pods of these controllers restart Always and have no deadline; `kind` names the controller in the message. */
export function validateAlwaysRestarts(template: unknown, path: FieldPath, kind: string): StatusCause[] {
  const spec = objectAt(template, 'spec') ?? {};
  const causes: StatusCause[] = [];
  if (spec.restartPolicy !== 'Always') causes.push(notSupported(child(path, 'spec', 'restartPolicy'), spec.restartPolicy ?? '', ['Always']));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    causes.push(forbidden(child(path, 'spec', 'activeDeadlineSeconds'), `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return causes;
}

/**
 * ValidatePodTemplateSpecForReplicaSet (Deployments and ReplicaSets; ReplicationControllers
 * with their own selector); `old` is the template an update replaces.
 */
export function validateReplicatedTemplate(selector: LabelSelector, template: JsonObject | undefined, path: FieldPath, old: unknown, kind = 'ReplicaSet'): StatusCause[] {
  if (template === undefined) return [required(path)];
  return [
    ...validateTemplateMatches(selector, template, path),
    ...validatePodTemplateSpec(template, path, old),
    ...validateAlwaysRestarts(template, path, kind),
  ];
}

/**
 * A required, non-empty LabelSelector at `spec.selector`, strictly validated, then the
 * template checked against it (`validateTemplate`) when it parses; `workload` names the
 * type in the empty-selector message, `invalidDetail` is the message when it does not parse.
 */
export function validateSelectorAndTemplate(
  spec: JsonObject,
  opts: { workload: string; invalidDetail: string; validateTemplate: (selector: LabelSelector, template: JsonObject | undefined) => StatusCause[] },
): StatusCause[] {
  const causes: StatusCause[] = [];
  const selectorObj = objectAt(spec, 'selector');
  if (selectorObj === undefined) {
    causes.push(required('spec.selector'));
  } else {
    appendAll(causes, validateLabelSelector(selectorObj, 'spec.selector'));
    if (selectorCount(selectorObj) === 0) causes.push(invalid('spec.selector', labelSelectorJson(selectorObj), `empty selector is invalid for ${opts.workload}`));
  }
  const selector = podSelectorOf(spec);
  if (selector === undefined) causes.push(invalid('spec.selector', labelSelectorJson(selectorObj), opts.invalidDetail));
  else appendAll(causes, opts.validateTemplate(selector, objectAt(spec, 'template')));
  return causes;
}

/** How many labels and expressions a LabelSelector holds. */
export function selectorCount(selector: JsonObject): number {
  return Object.keys(objectAt(selector, 'matchLabels') ?? {}).length + (Array.isArray(selector.matchExpressions) ? selector.matchExpressions.length : 0);
}

/** Non-negative integers of `obj` at `fields` (absent counts as 0), checked under `path`. */
export function validateCounters(obj: unknown, fields: readonly string[], path: FieldPath): StatusCause[] {
  return fields.flatMap((k) => validateNonnegative(numberAt(obj, k) ?? 0, child(path, k)));
}

/**
 * The status checks of replicated workloads (ValidateDeploymentStatus, ValidateReplicaSetStatus,
 * ValidateStatefulSetStatus...): `counters` are non-negative, `atMostReplicas` at most
 * status.replicas, and availableReplicas at most readyReplicas (`availableOverReady` says so).
 */
export function validateReplicaCounts(
  obj: KubeObject,
  opts: { counters: readonly string[]; atMostReplicas: readonly string[]; availableOverReady: string },
): StatusCause[] {
  const status = objectAt(obj, 'status') ?? {};
  const n = (k: string) => numberAt(status, k) ?? 0;
  const causes = validateCounters(status, opts.counters, 'status');
  for (const k of opts.atMostReplicas) {
    if (n(k) > n('replicas')) causes.push(invalid(`status.${k}`, n(k), 'cannot be greater than status.replicas'));
  }
  if (n('availableReplicas') > n('readyReplicas')) causes.push(invalid('status.availableReplicas', n('availableReplicas'), opts.availableOverReady));
  return causes;
}

/** ValidateReplicaSetStatus, and ValidateReplicationControllerStatus which is alike. */
export function validateReplicaSetStatus(obj: KubeObject): StatusCause[] {
  return validateReplicaCounts(obj, {
    counters: ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration'],
    atMostReplicas: ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'],
    availableOverReady: 'cannot be greater than readyReplicas',
  });
}

/** "cannot be decremented" for status.collisionCount, as the status updates of apps types check it. */
export function validateCollisionCount(obj: KubeObject, old: KubeObject): StatusCause[] {
  const next = numberAt(objectAt(obj, 'status'), 'collisionCount');
  const before = numberAt(objectAt(old, 'status'), 'collisionCount');
  if (before === undefined || (next !== undefined && next >= before)) return [];
  return [invalid('status.collisionCount', next ?? 0, 'cannot be decremented')];
}

/**
 * Fill in the status counters Go serialises even when zero (json tags without
 * omitempty), so that a status reads as upstream's does: `{replicas: 0}` for a new ReplicaSet.
 */
export function withZeroCounters(obj: KubeObject, fields: readonly string[]): void {
  const status = ensureObject(obj as JsonObject, 'status');
  for (const k of fields) if (status[k] === undefined || status[k] === null) status[k] = 0;
}

/** spec.selector may not change (apps/v1 Deployments, ReplicaSets, DaemonSets). */
export function validateImmutableSelector(obj: KubeObject, old: KubeObject): StatusCause[] {
  const selector = objectAt(obj, 'spec')?.selector;
  return semanticEqual(selector, objectAt(old, 'spec')?.selector) ? [] : [invalid('spec.selector', labelSelectorJson(selector), fieldImmutable)];
}

/** The pod template at `spec.template`; undefined without an object (a create has no old one). */
export function templateOf(obj: KubeObject | undefined): unknown {
  return objectAt(obj, 'spec')?.template;
}

/** A new ReplicaSet's, Deployment's or ReplicationController's warnings: its name (its pods' names start with it), its template's. */
export function replicatedWarningsOnCreate(obj: KubeObject): string[] {
  return [...podNamePrefixWarnings(obj), ...podTemplateWarnings(templateOf(obj), 'spec.template')];
}

/** An update's: the template's, when the update bumped the generation. */
export function templateWarningsOnUpdate(obj: KubeObject, old: KubeObject): string[] {
  return whenGenerationChanged(obj, old, () => podTemplateWarnings(templateOf(obj), 'spec.template'));
}
