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

function aggregate(pod: KubeObject, which: 'requests' | 'limits', withOverhead: boolean): ResourceList {
  const { containers, initContainers } = containersOf(pod);
  const total: ResourceList = new Map();
  for (const c of containers) addInto(total, containerResources(c, which));
  const sidecars: ResourceList = new Map();
  const init: ResourceList = new Map();
  for (const c of initContainers) {
    const own = containerResources(c, which);
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

export function podRequests(pod: KubeObject, opts: { withOverhead?: boolean } = {}): ResourceList {
  return aggregate(pod, 'requests', opts.withOverhead ?? false);
}

export function podLimits(pod: KubeObject, opts: { withOverhead?: boolean } = {}): ResourceList {
  return aggregate(pod, 'limits', opts.withOverhead ?? false);
}
