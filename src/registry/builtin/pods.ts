// core/v1 pods, after kubernetes pkg/registry/core/pod/strategy.go.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { appendAll, forbidden, invalid, required } from '../validation/field.ts';
import { inclusiveRangeError } from '../validation/names.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { keepOldStatus, nowTimestamp } from './common.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';
import { arrayAt, ensureObject, numberAt, objectAt, objectsAt, semanticEqual, stringAt } from './object.ts';
import { validateGatedPodSchedulingUpdate, validateTolerations } from './pod-scheduling.ts';
import { defaultPodOnly, defaultPodSpec, podQOSClass, validatePodSpec } from './pod-spec.ts';
import { podColumns, podRowConditions } from './table-columns.ts';
import { resizeStrategy } from './pod-resize.ts';
import { podStatusWarnings, validatePodStatusUpdate } from './pod-status.ts';
import { validatePodSpecificAnnotations, validatePodSpecificAnnotationUpdates, validateSecurityAnnotationsMatchFields } from './pod-annotations.ts';
import { applyAppArmorVersionSkew } from './pod-apparmor.ts';
import { podWarnings } from './pod-warnings.ts';

function specOf(pod: KubeObject): JsonObject {
  return ensureObject(pod as JsonObject, 'spec');
}

function defaultPod(pod: KubeObject): void {
  const spec = specOf(pod);
  defaultPodSpec(spec);
  defaultPodOnly(spec);
}

const updatableFields =
  '`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** A short account of which spec fields differ (upstream prints a cmp.Diff here). */
function specDiff(oldSpec: JsonObject, newSpec: JsonObject): string {
  const lines = ['  core.PodSpec{'];
  for (const k of [...new Set([...Object.keys(oldSpec), ...Object.keys(newSpec)])].sort()) {
    if (semanticEqual(oldSpec[k], newSpec[k])) continue;
    if (oldSpec[k] !== undefined) lines.push(`-\t${k}: ${JSON.stringify(oldSpec[k])},`);
    if (newSpec[k] !== undefined) lines.push(`+\t${k}: ${JSON.stringify(newSpec[k])},`);
  }
  lines.push('  }');
  return lines.join('\n');
}

/** Upstream's ValidateContainerUpdates: containers may not come or go; each keeps an image, without surrounding whitespace. */
function validateContainerUpdates(next: unknown[], prev: unknown[], path: string): { causes: StatusCause[]; stop: boolean } {
  if (next.length !== prev.length) return { causes: [forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const causes: StatusCause[] = [];
  next.forEach((container, i) => {
    const image = stringAt(container, 'image');
    if (image === '') causes.push(required(`${path}[${i}].image`));
    if (image.trim() !== image) causes.push(invalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return { causes, stop: false };
}

/** Upstream's validateOnlyAddedTolerations: none of the old ones changed but for its tolerationSeconds; then the new ones validated (again). */
function validateOnlyAddedTolerations(next: unknown[], prev: unknown[]): StatusCause[] {
  const kept = prev.every((old) =>
    next.some((t) => isObject(old) && isObject(t) && semanticEqual({ ...old, tolerationSeconds: t.tolerationSeconds }, t)),
  );
  if (!kept) return [forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds')];
  return validateTolerations(next, 'spec.tolerations');
}

/** Upstream's validateOnlyDeletedSchedulingGates: a gate the old spec lacks is refused at its (last) index. */
function validateOnlyDeletedSchedulingGates(next: unknown[], prev: unknown[]): StatusCause[] {
  const added = new Map<string, number>();
  next.forEach((gate, i) => added.set(stringAt(gate, 'name'), i));
  for (const gate of prev) added.delete(stringAt(gate, 'name'));
  return [...added].map(([name, i]) => forbidden(`spec.schedulingGates[${i}].name`, `only deletion is allowed, but found new scheduling gate '${name}'`));
}

/** Upstream's ValidatePodUpdate: only images, activeDeadlineSeconds, added tolerations, removed scheduling gates and a few more may change. */
function validatePodUpdate(pod: KubeObject, old: KubeObject): StatusCause[] {
  const spec = specOf(pod);
  const oldSpec = objectAt(old, 'spec') ?? {};
  const causes = validatePodSpecificAnnotationUpdates(pod, old);
  for (const list of ['containers', 'initContainers']) {
    const r = validateContainerUpdates(arrayAt(spec, list), arrayAt(oldSpec, list), `spec.${list}`);
    appendAll(causes, r.causes);
    if (r.stop) return causes;
  }
  const newDeadline = numberAt(spec, 'activeDeadlineSeconds');
  const oldDeadline = numberAt(oldSpec, 'activeDeadlineSeconds');
  if (newDeadline !== undefined) {
    if (newDeadline < 0 || newDeadline > 2147483647) {
      causes.push(invalid('spec.activeDeadlineSeconds', newDeadline, inclusiveRangeError(0, 2147483647)));
      return causes;
    }
    if (oldDeadline !== undefined && oldDeadline < newDeadline) {
      causes.push(invalid('spec.activeDeadlineSeconds', newDeadline, 'must be less than or equal to previous value'));
      return causes;
    }
  } else if (oldDeadline !== undefined) {
    causes.push(invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }
  appendAll(causes, validateOnlyAddedTolerations(arrayAt(spec, 'tolerations'), arrayAt(oldSpec, 'tolerations')));
  appendAll(causes, validateOnlyDeletedSchedulingGates(arrayAt(spec, 'schedulingGates'), arrayAt(oldSpec, 'schedulingGates')));
  if (semanticEqual(spec, oldSpec)) return causes;

  // Compare the spec with the updatable fields taken from the old one.
  const munged = clone(spec);
  for (const list of ['containers', 'initContainers']) {
    const oldList = arrayAt(oldSpec, list);
    arrayAt(munged, list).forEach((c, i) => {
      if (isObject(c) && isObject(oldList[i])) c.image = (oldList[i] as JsonObject).image;
    });
  }
  munged.activeDeadlineSeconds = oldSpec.activeDeadlineSeconds;
  munged.schedulingGates = oldSpec.schedulingGates;
  munged.tolerations = oldSpec.tolerations;
  const oldGrace = numberAt(oldSpec, 'terminationGracePeriodSeconds');
  if (oldGrace !== undefined && oldGrace < 0 && numberAt(spec, 'terminationGracePeriodSeconds') === 1) {
    munged.terminationGracePeriodSeconds = oldGrace;
  }
  if (arrayAt(oldSpec, 'schedulingGates').length > 0) appendAll(causes, validateGatedPodSchedulingUpdate(munged, oldSpec, 'spec'));
  for (const k of Object.keys(munged)) if (munged[k] === undefined) delete munged[k];
  if (!semanticEqual(munged, oldSpec)) {
    causes.push(forbidden('spec', `pod updates may not change fields other than ${updatableFields}\n${specDiff(oldSpec, munged)}`));
  }
  return causes;
}

/** What a write through pods/ephemeralcontainers keeps of the client's object: spec.ephemeralContainers alone (dropNonEphemeralContainerUpdates). */
function keepOnlyEphemeralContainers(pod: KubeObject, old: KubeObject): void {
  const ephemeral = objectAt(pod, 'spec')?.ephemeralContainers;
  const { resourceVersion } = pod.metadata;
  for (const key of Object.keys(pod)) if (key !== 'apiVersion' && key !== 'kind') delete pod[key];
  Object.assign(pod, clone(old), { apiVersion: pod.apiVersion ?? old.apiVersion, kind: pod.kind ?? old.kind });
  pod.metadata.resourceVersion = resourceVersion;
  const spec = specOf(pod);
  if (ephemeral === undefined || ephemeral === null) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = clone(ephemeral);
  defaultPodSpec(spec);
  if (!semanticEqual(pod.spec, old.spec)) pod.metadata.generation = (old.metadata.generation ?? 0) + 1;
}

/** Upstream's ValidatePodEphemeralContainersUpdate: valid containers; existing ones neither removed nor changed. */
function validateEphemeralContainersUpdate(pod: KubeObject, old: KubeObject): StatusCause[] {
  if (old.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) {
    return [forbidden('', 'static pods do not support ephemeral containers')];
  }
  const spec = specOf(pod);
  const causes = validatePodSpec(spec, 'spec', { isPod: true, podName: pod.metadata.name ?? '' });
  const next = new Map(objectsAt(spec, 'ephemeralContainers').map((c) => [stringAt(c, 'name'), c]));
  for (const previous of objectsAt(objectAt(old, 'spec'), 'ephemeralContainers')) {
    const name = stringAt(previous, 'name');
    const now = next.get(name);
    if (now === undefined) causes.push(forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!semanticEqual(previous, now)) causes.push(forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n`));
  }
  return causes;
}

/**
 * Upstream's preserveOldObservedGeneration: a status or condition written without an
 * observedGeneration keeps the old one (conditions matched by type, in order, as
 * validation lets a type repeat).
 */
function keepOldObservedGenerations(status: JsonObject, oldStatus: JsonObject): void {
  if (!status.observedGeneration && oldStatus.observedGeneration) status.observedGeneration = oldStatus.observedGeneration;
  const oldGenerations = new Map<string, unknown[]>();
  for (const condition of objectsAt(oldStatus, 'conditions')) {
    const type = stringAt(condition, 'type');
    oldGenerations.set(type, [...(oldGenerations.get(type) ?? []), condition.observedGeneration]);
  }
  for (const condition of objectsAt(status, 'conditions')) {
    const previous = oldGenerations.get(stringAt(condition, 'type'))?.shift();
    if (!condition.observedGeneration && previous) condition.observedGeneration = previous;
  }
}

const podStrategy: Strategy = {
  defaults: defaultPod,

  prepareForCreate(pod) {
    pod.metadata.generation = 1;
    const spec = specOf(pod);
    const status: JsonObject = { phase: 'Pending', qosClass: podQOSClass(spec) };
    if (arrayAt(spec, 'schedulingGates').length > 0) {
      status.conditions = [{
        type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: nowTimestamp(),
        reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates',
      }];
    }
    pod.status = status;
    applyAppArmorVersionSkew(pod);
  },

  prepareForUpdate(pod, old) {
    keepOldStatus(pod, old);
    const generation = old.metadata.generation;
    const changed = !semanticEqual(pod.spec, old.spec);
    if (generation !== undefined || changed) pod.metadata.generation = (generation ?? 0) + (changed ? 1 : 0);
  },

  validate(pod, old) {
    const spec = specOf(pod);
    const causes = validateKubeFinalizerNames(pod.metadata.finalizers, 'metadata.finalizers');
    // An update checks them with what it may not change (validatePodUpdate).
    if (old === undefined) appendAll(causes, validatePodSpecificAnnotations(pod.metadata.annotations ?? {}, spec, 'metadata.annotations'));
    appendAll(causes, validatePodSpec(spec, 'spec', { isPod: true, podName: pod.metadata.name ?? '' }));
    // ValidatePodCreate's alone: a pod that has ephemeral containers (added through their
    // subresource) or was bound is updated as any other.
    if (old === undefined) {
      if (arrayAt(spec, 'ephemeralContainers').length > 0) causes.push(forbidden('spec.ephemeralContainers', 'cannot be set on create'));
      if (stringAt(spec, 'nodeName') !== '' && arrayAt(spec, 'schedulingGates').length > 0) {
        causes.push(forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared'));
      }
    }
    if (old === undefined) appendAll(causes, validateSecurityAnnotationsMatchFields(pod.metadata.annotations ?? {}, spec, 'spec'));
    return causes;
  },

  // The Store runs validate on the new object too; these are the update-only rules.
  validateUpdate: validatePodUpdate,

  // Upstream warns of no Pod update: people seldom write pods, controllers often do.
  warningsOnCreate: podWarnings,

  // Upstream's CheckGracefulDelete: the grace asked for, else the pod's own; a pod no node
  // runs (unscheduled, or finished) has nothing to stop and goes at once.
  checkGracefulDelete(pod, gracePeriodSeconds) {
    const spec = objectAt(pod, 'spec') ?? {};
    let period = gracePeriodSeconds ?? numberAt(spec, 'terminationGracePeriodSeconds') ?? 0;
    if (stringAt(spec, 'nodeName') === '') period = 0;
    const phase = stringAt(objectAt(pod, 'status'), 'phase');
    if (phase === 'Failed' || phase === 'Succeeded') period = 0;
    return period < 0 ? 1 : period;
  },

  selectableFields(pod) {
    const spec = objectAt(pod, 'spec') ?? {};
    const status = objectAt(pod, 'status') ?? {};
    const podIPs = objectsAt(status, 'podIPs');
    return {
      'spec.nodeName': stringAt(spec, 'nodeName'),
      'spec.restartPolicy': stringAt(spec, 'restartPolicy'),
      'spec.schedulerName': stringAt(spec, 'schedulerName'),
      'spec.serviceAccountName': stringAt(spec, 'serviceAccountName'),
      'spec.hostNetwork': String(spec.hostNetwork === true),
      'status.phase': stringAt(status, 'phase'),
      'status.podIP': podIPs.length > 0 ? stringAt(podIPs[0], 'ip') : stringAt(status, 'podIP'),
      'status.nominatedNodeName': stringAt(status, 'nominatedNodeName'),
    };
  },

  fieldLabels: [
    'metadata.name', 'metadata.namespace', 'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName',
    'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.podIPs', 'status.nominatedNodeName',
  ],
  // Old v1 clients select on spec.host (upstream's pod field label conversion).
  fieldLabelConversion: { renamed: { 'spec.host': 'spec.nodeName' } },

  subresources: {
    // registry/binding.ts sets spec.nodeName and the PodScheduled condition itself.
    binding: { prepareForUpdate() {} },
    ephemeralcontainers: {
      prepareForUpdate: keepOnlyEphemeralContainers,
      validateUpdate: validateEphemeralContainersUpdate,
    },
    resize: resizeStrategy(defaultPod),
    status: {
      prepareForUpdate(pod, old) {
        pod.spec = clone(old.spec);
        if (old.metadata.deletionTimestamp === undefined) delete pod.metadata.deletionTimestamp;
        else pod.metadata.deletionTimestamp = old.metadata.deletionTimestamp;
        // The kubelet may not touch owner references through pods/status.
        if (old.metadata.ownerReferences === undefined) delete pod.metadata.ownerReferences;
        else pod.metadata.ownerReferences = clone(old.metadata.ownerReferences);
        const status = ensureObject(pod as JsonObject, 'status');
        const oldStatus = objectAt(old, 'status') ?? {};
        // The QoS class is set at creation and kept.
        if (!status.qosClass && oldStatus.qosClass) status.qosClass = oldStatus.qosClass;
        keepOldObservedGenerations(status, oldStatus);
      },
      validateUpdate: validatePodStatusUpdate,
      warningsOnUpdate: podStatusWarnings,
    },
  },
};

export function podsType(): ResourceType {
  return builtinType('', 'v1', 'pods', {
    // eviction: registry/eviction.ts; binding: registry/binding.ts; log, exec, attach,
    // portforward and proxy answer that no kubelet is reachable (endpoints/handlers/connect.ts).
    subresources: ['attach', 'binding', 'ephemeralcontainers', 'eviction', 'exec', 'log', 'portforward', 'proxy', 'resize', 'status'],
    strategy: podStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: true,
    nameRule: 'dns1123-subdomain',
    tableColumns: podColumns,
    tableRowConditions: podRowConditions,
  });
}
