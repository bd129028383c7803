// A pod's aggregate requests and limits as upstream's component-helpers compute them
// (PodRequests/PodLimits): containers and sidecars add up, an init container counts
// alone with the sidecars started before it, and the pod needs the larger of the two.

import type { KubeObject } from '../api/index.ts';
import { isObject, type JsonObject } from '../api/json.ts';
import { addQuantity, compareQuantity, parseQuantity, type Quantity } from '../api/quantity.ts';

export type ResourceList = Map<string, Quantity>;

function objectsIn(parent: unknown, key: string): JsonObject[] {
  if (!isObject(parent)) return [];
  const list = parent[key];
  return Array.isArray(list) ? list.filter(isObject) : [];
}

/** The parsed quantities of a resource map; values that are not quantities are left out. */
export function resourceList(map: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!isObject(map)) return out;
  for (const [name, raw] of Object.entries(map)) {
    const q = parseQuantity(raw);
    if (q !== undefined) out.set(name, q);
  }
  return out;
}

function addInto(into: ResourceList, add: ResourceList): void {
  for (const [name, q] of add) {
    const have = into.get(name);
    into.set(name, have === undefined ? q : addQuantity(have, q));
  }
}

function maxInto(into: ResourceList, other: ResourceList): void {
  for (const [name, q] of other) {
    const have = into.get(name);
    if (have === undefined || compareQuantity(q, have) > 0) into.set(name, q);
  }
}

export function containersOf(pod: KubeObject): { containers: JsonObject[]; initContainers: JsonObject[] } {
  const spec = isObject(pod.spec) ? pod.spec : {};
  return { containers: objectsIn(spec, 'containers'), initContainers: objectsIn(spec, 'initContainers') };
}

export function containerResources(container: JsonObject, which: 'requests' | 'limits'): ResourceList {
  const resources = isObject(container.resources) ? container.resources : {};
  return resourceList(resources[which]);
}

/** The containers' statuses by name (init containers' too) when they report resources. */
function statusesWithResources(pod: KubeObject): Map<string, JsonObject> {
  const status = isObject(pod.status) ? pod.status : {};
  const byName = new Map<string, JsonObject>();
  for (const cs of [...objectsIn(status, 'containerStatuses'), ...objectsIn(status, 'initContainerStatuses')]) {
    if (typeof cs.name === 'string') byName.set(cs.name, cs);
  }
  return byName;
}

/** A resize the kubelet found it cannot do (PodResizePending, reason Infeasible): only what the container runs with counts. */
function resizeInfeasible(pod: KubeObject): boolean {
  const status = isObject(pod.status) ? pod.status : {};
  const pending = objectsIn(status, 'conditions').find((c) => c.type === 'PodResizePending');
  return pending?.reason === 'Infeasible';
}

/**
 * A container's requests or limits with its status's (component-helpers' determineContainerReqs
 * and determineContainerLimits): during an in-place resize what it asks for, what it runs
 * with and what is allocated to it, the largest of each; a resize found infeasible, what it
 * runs with (and, for requests, what is allocated).
 */
function withStatusResources(pod: KubeObject, container: JsonObject, cs: JsonObject, which: 'requests' | 'limits'): ResourceList {
  const running = resourceList((cs.resources as JsonObject)[which]);
  const infeasible = resizeInfeasible(pod);
  const out: ResourceList = infeasible ? running : containerResources(container, which);
  if (!infeasible) maxInto(out, running);
  if (which === 'requests') maxInto(out, resourceList(cs.allocatedResources));
  return out;
}

function aggregate(pod: KubeObject, which: 'requests' | 'limits', withOverhead: boolean, useStatus = false): ResourceList {
  const { containers, initContainers } = containersOf(pod);
  const statuses = useStatus ? statusesWithResources(pod) : undefined;
  /** What a container counts for: its spec's, or with its status's when asked and it reports resources. */
  const counted = (c: JsonObject): ResourceList => {
    const cs = statuses?.get(typeof c.name === 'string' ? c.name : '');
    return cs !== undefined && isObject(cs.resources) ? withStatusResources(pod, c, cs, which) : containerResources(c, which);
  };
  const total: ResourceList = new Map();
  for (const c of containers) addInto(total, counted(c));
  const sidecars: ResourceList = new Map();
  const init: ResourceList = new Map();
  for (const c of initContainers) {
    // Of init containers, only sidecars (restartable) are resized in place.
    const own = c.restartPolicy === 'Always' ? counted(c) : containerResources(c, which);
    let needs: ResourceList;
    if (c.restartPolicy === 'Always') {
      addInto(total, own);
      addInto(sidecars, own);
      needs = new Map(sidecars);
    } else {
      needs = new Map(own);
      addInto(needs, sidecars);
    }
    maxInto(init, needs);
  }
  maxInto(total, init);
  if (withOverhead) {
    const spec = isObject(pod.spec) ? pod.spec : {};
    const overhead = resourceList(spec.overhead);
    // Requests get all of it; limits only where the pod sets one (PodRequests, PodLimits).
    if (which === 'requests') addInto(total, overhead);
    else for (const [name, q] of overhead) if (total.has(name)) total.set(name, addQuantity(total.get(name)!, q));
  }
  return total;
}

/** `useStatus`: PodResourcesOptions' UseStatusResources (what quota counts of a pod resized in place). */
export function podRequests(pod: KubeObject, opts: { withOverhead?: boolean; useStatus?: boolean } = {}): ResourceList {
  return aggregate(pod, 'requests', opts.withOverhead ?? false, opts.useStatus);
}

export function podLimits(pod: KubeObject, opts: { withOverhead?: boolean; useStatus?: boolean } = {}): ResourceList {
  return aggregate(pod, 'limits', opts.withOverhead ?? false, opts.useStatus);
}
