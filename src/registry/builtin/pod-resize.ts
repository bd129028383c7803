// pods/resize: in-place changes of a pod's cpu and memory, after kubernetes
// pkg/registry/core/pod/strategy.go (podResizeStrategy) and ValidatePodResize in
// pkg/apis/core/validation, as v1.36 has them (InPlacePodVerticalScaling GA, pod-level
// resources and init containers resizable: their gates on by default).

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';
import { sameResourceRequirements } from '../../api/quantity.ts';
import type { SubresourceStrategy } from '../resource-type.ts';
import { appendAll, forbidden, invalid } from '../validation/field.ts';
import { keepOldMetadata } from './common.ts';
import { arrayAt, objectAt, objectsAt, semanticEqual, stringAt } from './object.ts';
import { podQOSClass, validatePodSpec } from './pod-spec.ts';

const resizable = ['cpu', 'memory'];

/**
 * `next`'s containers with only their resources and resize policies taken from the
 * request; undefined when containers were added, removed, renamed or reordered, which
 * validation refuses (dropNonResizeUpdatesForContainers).
 */
function resizedContainers(next: unknown[], prev: unknown[]): unknown[] | undefined {
  if (next.length === 0) return next;
  const merged = prev.map((c) => clone(c));
  for (const [i, raw] of next.entries()) {
    const container = isObject(raw) ? raw : {};
    const old = merged[i];
    if (!isObject(old) || old.name !== container.name) return undefined;
    for (const field of ['resources', 'resizePolicy']) {
      if (container[field] === undefined) delete old[field];
      else old[field] = clone(container[field]);
    }
  }
  return merged;
}

/**
 * What a write through pods/resize keeps of the client's pod (dropNonResizeUpdates): the
 * containers' and init containers' resources and resize policies and the pod-level
 * resources; everything else is the stored pod's, labels, annotations, finalizers and
 * owner references included. Containers added, removed or reordered are left for
 * validation to refuse. Any change bumps metadata.generation.
 */
function keepOnlyResize(pod: KubeObject, old: KubeObject, defaultPod: (pod: KubeObject) => void): void {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const oldSpec = objectAt(old, 'spec') ?? {};
  const containers = arrayAt(spec, 'containers');
  const initContainers = arrayAt(spec, 'initContainers');
  if (containers.length !== arrayAt(oldSpec, 'containers').length || initContainers.length !== arrayAt(oldSpec, 'initContainers').length) return;
  const merged = clone(oldSpec);
  const mergedContainers = resizedContainers(containers, arrayAt(oldSpec, 'containers')) ?? containers;
  const mergedInit = resizedContainers(initContainers, arrayAt(oldSpec, 'initContainers')) ?? initContainers;
  if (mergedContainers.length > 0 || merged.containers !== undefined) merged.containers = mergedContainers;
  if (mergedInit.length > 0 || merged.initContainers !== undefined) merged.initContainers = mergedInit;
  if (spec.resources === undefined) delete merged.resources;
  else merged.resources = clone(spec.resources);
  pod.spec = merged;
  if (old.status === undefined) delete pod.status;
  else pod.status = clone(old.status);
  keepOldMetadata(pod, old);
  defaultPod(pod);
  if (!semanticEqual(pod.spec, old.spec)) pod.metadata.generation = (old.metadata.generation ?? 0) + 1;
}

function sameContainer(a: JsonObject, b: JsonObject): boolean {
  const { resources: ra, ...restA } = a;
  const { resources: rb, ...restB } = b;
  return sameResourceRequirements(ra, rb) && semanticEqual(restA, restB);
}

/** A resource list with cpu and memory as they were (dropCPUMemoryUpdates): what may not change, to compare. */
function withOldCpuMemory(next: unknown, prev: unknown): JsonObject | undefined {
  if (!isObject(next) && !isObject(prev)) return undefined;
  const out: JsonObject = isObject(next) ? { ...next } : {};
  for (const name of resizable) {
    delete out[name];
    if (isObject(prev) && prev[name] !== undefined) out[name] = prev[name];
  }
  return out;
}

/** A container with its cpu and memory as they were; v1.36 keeps limits and requests only (its claims are dropped, so a container with claims never compares equal). */
function maskedContainer(container: JsonObject, old: JsonObject): JsonObject {
  const resources = objectAt(container, 'resources');
  const oldResources = objectAt(old, 'resources');
  const limits = withOldCpuMemory(objectAt(resources, 'limits'), objectAt(oldResources, 'limits'));
  const requests = withOldCpuMemory(objectAt(resources, 'requests'), objectAt(oldResources, 'requests'));
  return { ...container, resources: { ...(limits === undefined ? {} : { limits }), ...(requests === undefined ? {} : { requests }) } };
}

/** Names in `prev` that `next` lacks (resourcesRemoved). */
function removed(next: unknown, prev: unknown): boolean {
  const n = isObject(next) ? next : {};
  const p = isObject(prev) ? prev : {};
  return Object.keys(p).some((name) => !Object.hasOwn(n, name));
}

function hasPodLevelResources(spec: JsonObject): boolean {
  const resources = objectAt(spec, 'resources');
  return Object.keys(objectAt(resources, 'requests') ?? {}).length + Object.keys(objectAt(resources, 'limits') ?? {}).length > 0;
}

/** validatePodLevelResourcesResize: pod-level requests and limits not removed, nothing but their cpu and memory changed. */
function validatePodLevelResize(spec: JsonObject, oldSpec: JsonObject): StatusCause[] {
  const next = objectAt(spec, 'resources');
  const prev = objectAt(oldSpec, 'resources');
  if (prev !== undefined && next === undefined) return [forbidden('spec.resources', 'pod-level resources cannot be removed')];
  const causes: StatusCause[] = [];
  if (prev !== undefined) {
    if (removed(objectAt(next, 'requests'), objectAt(prev, 'requests'))) causes.push(forbidden('spec.resources.requests', 'pod-level resource requests cannot be removed'));
    if (removed(objectAt(next, 'limits'), objectAt(prev, 'limits'))) causes.push(forbidden('spec.resources.limits', 'pod-level resource limits cannot be removed'));
  }
  const limits = withOldCpuMemory(objectAt(next, 'limits'), objectAt(prev, 'limits'));
  const requests = withOldCpuMemory(objectAt(next, 'requests'), objectAt(prev, 'requests'));
  const masked = { limits, requests, claims: next?.claims };
  if (!sameResourceRequirements(masked, prev)) causes.push(forbidden('spec', 'only cpu and memory resources are mutable at pod-level'));
  return causes;
}

/** validatePodResizeContainerOrdering: containers and init containers keep their number, names and order. */
function validateOrdering(spec: JsonObject, oldSpec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const list of ['containers', 'initContainers']) {
    const next = objectsAt(spec, list);
    const prev = objectsAt(oldSpec, list);
    if (arrayAt(spec, list).length !== arrayAt(oldSpec, list).length) {
      causes.push(forbidden(`spec.${list}`, `${list} may not be added or removed on resize`));
      continue;
    }
    next.forEach((c, i) => {
      if (c.name !== prev[i]?.name) causes.push(forbidden(`spec.${list}[${i}].name`, `${list} may not be renamed or reordered on resize`));
    });
  }
  return causes;
}

/** validateContainerResize: no request or limit a container had may go. */
function validateNothingRemoved(container: JsonObject, old: JsonObject, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const resources = objectAt(container, 'resources');
  const oldResources = objectAt(old, 'resources');
  if (removed(objectAt(resources, 'requests'), objectAt(oldResources, 'requests'))) causes.push(forbidden(`${path}.resources.requests`, 'resource requests cannot be removed'));
  if (removed(objectAt(resources, 'limits'), objectAt(oldResources, 'limits'))) causes.push(forbidden(`${path}.resources.limits`, 'resource limits cannot be removed'));
  return causes;
}

/** Upstream's ValidatePodResize, on the pod keepOnlyResize left. */
function validatePodResize(pod: KubeObject, old: KubeObject): StatusCause[] {
  const spec = isObject(pod.spec) ? pod.spec : {};
  const oldSpec = objectAt(old, 'spec') ?? {};
  const oldInit = objectsAt(oldSpec, 'initContainers');
  const keepsInitRestartContainer = oldInit.some((c) => c.restartPolicy !== 'Always' && objectsAt(c, 'resizePolicy').some((p) => p.restartPolicy === 'RestartContainer'));
  const causes = validatePodSpec(spec, 'spec', { isPod: true, podName: pod.metadata.name ?? '', keepsInitRestartContainer });
  if (old.metadata.annotations?.['kubernetes.io/config.mirror'] !== undefined) return [forbidden('', 'static pods cannot be resized')];
  if (stringAt(objectAt(oldSpec, 'os'), 'name') === 'windows') return [forbidden('', 'windows pods cannot be resized')];
  const oldQOS = stringAt(objectAt(old, 'status'), 'qosClass') || podQOSClass(oldSpec);
  if (podQOSClass(spec) !== oldQOS) {
    causes.push(invalid('spec', stringAt(objectAt(pod, 'status'), 'qosClass'), 'Pod QOS Class may not change as a result of resizing'));
  }
  // A kubelet too old to resize reports no resources for its running containers.
  const running = objectsAt(objectAt(old, 'status'), 'containerStatuses').find((s) => isObject(objectAt(s, 'state')?.running));
  if (running !== undefined && !isObject(running.resources)) causes.push(forbidden('spec', 'Pod running on node without support for resize'));
  if (hasPodLevelResources(spec) || hasPodLevelResources(oldSpec)) appendAll(causes, validatePodLevelResize(spec, oldSpec));
  const ordering = validateOrdering(spec, oldSpec);
  if (ordering.length > 0) return [...causes, ...ordering];

  const containers = objectsAt(spec, 'containers');
  const oldContainers = objectsAt(oldSpec, 'containers');
  const initContainers = objectsAt(spec, 'initContainers');
  containers.forEach((c, i) => appendAll(causes, validateNothingRemoved(c, oldContainers[i]!, `spec.containers[${i}]`)));
  initContainers.forEach((c, i) => appendAll(causes, validateNothingRemoved(c, oldInit[i]!, `spec.initContainers[${i}]`)));
  containers.forEach((c, i) => {
    const old = oldContainers[i]!;
    if (!sameContainer(maskedContainer(c, old), old)) causes.push(forbidden('spec', 'only cpu and memory resources are mutable'));
  });
  initContainers.forEach((c, i) => {
    const old = oldInit[i]!;
    const path = `spec.initContainers[${i}]`;
    if (!sameContainer(maskedContainer(c, old), old)) causes.push(forbidden(path, 'only cpu and memory resources for init or sidecar containers are mutable'));
    if (c.restartPolicy !== 'Always' && !sameContainer(c, old)) {
      for (const policy of objectsAt(c, 'resizePolicy')) {
        if (policy.restartPolicy === 'RestartContainer') causes.push(forbidden(path, 'non-sidecar init containers with a resize policy of RestartContainer cannot be resized'));
      }
    }
  });
  return causes;
}

/** The pods/resize entry of the pod strategy's subresources; `defaultPod` is the pod's own defaulting. */
export function resizeStrategy(defaultPod: (pod: KubeObject) => void): SubresourceStrategy {
  return {
    prepareForUpdate: (pod, old) => keepOnlyResize(pod, old, defaultPod),
    validateUpdate: validatePodResize,
  };
}

