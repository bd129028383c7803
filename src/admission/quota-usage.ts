// What a ResourceQuota counts (upstream's quota evaluators, pkg/quota/v1/evaluator/core
// and the generic object counter): each object's usage, which quota resources and
// scopes apply to it, and a quota's whole usage in a namespace.

import type { KubeObject } from '../api/index.ts';
import { isObject } from '../api/json.ts';
import { addQuantity, compareQuantity, formatQuantity, isNegative, isZero, quantityOf, subtractQuantity, zeroQuantity, type Quantity } from '../api/quantity.ts';
import { containerResources, containersOf, podLimits, podRequests, resourceList, type ResourceList } from './pod-resources.ts';

export interface GroupResource {
  group: string;
  resource: string;
}

/** A scope requirement of a quota: spec.scopes become Exists requirements. */
export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values: string[];
}

/** Upstream's quota.Evaluator, for what Plinth counts. */
export interface Evaluator {
  groupResource: GroupResource;
  /** The quota resources, among `names`, this evaluator counts. */
  matchingResources(names: string[]): string[];
  /** Whether the object falls in a scope; objects without scopes match none. */
  matchesScope(scope: ScopeRequirement, obj: KubeObject): boolean;
  /** What the object uses. */
  usage(obj: KubeObject, now: number): ResourceList;
  /** Why the object cannot be admitted under a quota limiting `required` (pods must name cpu and memory then). */
  constraints?(required: string[], obj: KubeObject): string | undefined;
  /** The object counts as one whatever it holds: its metadata is all the evaluator reads. */
  countsOnly?: boolean;
  /** Whether an update through `subresource` ('' for the object itself) may change what the object uses (upstream's Handles); absent: none does. */
  handlesUpdate?(subresource: string, obj: KubeObject, old: KubeObject): boolean;
}

/** count/<resource>[.<group>]: the object count name of a resource. */
export function objectCountName(gr: GroupResource): string {
  return gr.group === '' ? `count/${gr.resource}` : `count/${gr.resource}.${gr.group}`;
}

/** The resource an object count name counts. */
export function groupResourceOfCount(name: string): GroupResource | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

const one = () => quantityOf(1);

/** An evaluator counting objects: count/<resource>, and the legacy name of core kinds that have one. */
function objectCounter(gr: GroupResource, legacyName?: string): Evaluator {
  const names = [objectCountName(gr), ...(legacyName ? [legacyName] : [])];
  return {
    groupResource: gr,
    matchingResources: (input) => input.filter((n) => names.includes(n)),
    matchesScope: () => false,
    usage: () => new Map(names.map((n) => [n, one()])),
    countsOnly: true,
  };
}

// ---------- pods ----------

const podResources = [
  'count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'pods',
];

/** The compute resources a quota forces every container to state (a backward-compatibility rule upstream keeps). */
const mustSpecify = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

const isNative = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
const isExtended = (name: string) => !isNative(name) && !name.startsWith('requests.');

/** Dynamic resource allocation's implicit extended resources: deviceclass.resource.kubernetes.io/<class> (resourceapi.ResourceDeviceClassPrefix). */
const deviceClassPrefix = 'deviceclass.resource.kubernetes.io/';
/** schedutil.IsDRAExtendedResourceName: what a container may request and a quota count as requests.<name>. */
const isRequestableExtended = (name: string) => isExtended(name) || name.startsWith(deviceClassPrefix);
/** isExtendedResourceNameForQuota: requests.<extended resource>, the implicit DRA ones included. */
const isExtendedQuotaName = (name: string) => name.startsWith('requests.') && (!isNative(name) || name.startsWith(`requests.${deviceClassPrefix}`));

/** podComputeUsageHelper: a container's or pod's requests and limits as quota resources. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', one()]]);
  for (const name of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(name);
    if (req !== undefined) {
      out.set(name, req);
      out.set(`requests.${name}`, req);
    }
    const lim = limits.get(name);
    if (lim !== undefined) out.set(`limits.${name}`, lim);
  }
  for (const [name, q] of requests) {
    if (name.startsWith('hugepages-')) {
      out.set(name, q);
      out.set(`requests.${name}`, q);
    }
    if (isRequestableExtended(name)) out.set(`requests.${name}`, q);
  }
  return out;
}

/** Terminal pods, and pods past their deletion grace period, use nothing but their object count (QuotaV1Pod). */
function podCharged(pod: KubeObject, now: number): boolean {
  const phase = isObject(pod.status) ? pod.status.phase : undefined;
  if (phase === 'Succeeded' || phase === 'Failed') return false;
  const deletion = pod.metadata.deletionTimestamp;
  const grace = pod.metadata.deletionGracePeriodSeconds;
  if (deletion !== undefined && grace !== undefined && grace !== null) {
    if (now > Date.parse(deletion) + Number(grace) * 1000) return false;
  }
  return true;
}

function podSpec(pod: KubeObject): Record<string, unknown> {
  return isObject(pod.spec) ? pod.spec : {};
}

/** What pod-level resources may set (component-helpers' IsSupportedPodLevelResource). */
const isSupportedPodLevel = (name: string) => name === 'cpu' || name === 'memory' || name.startsWith('hugepages-');

/** The pod-level requests or limits (spec.resources) of the resources they may set. */
function podLevel(pod: KubeObject, which: 'requests' | 'limits'): ResourceList {
  const resources = podSpec(pod).resources;
  const list = resourceList(isObject(resources) ? resources[which] : undefined);
  return new Map([...list].filter(([name]) => isSupportedPodLevel(name)));
}

/** IsPodLevelResourcesSet: spec.resources requests or limits name a resource pod-level resources may set. */
function hasPodLevelResources(pod: KubeObject): boolean {
  return podLevel(pod, 'requests').size > 0 || podLevel(pod, 'limits').size > 0;
}

/**
 * PodRequests and PodLimits as PodUsageFunc asks for them (PodLevelResources on, and
 * UseStatusResources as InPlacePodVerticalScaling is): the containers' aggregate, each
 * container's counted with what its status reports during a resize, the pod-level values in
 * place of it where the pod sets them, then the overhead (all of it on requests, on limits
 * only where one is set and not zero).
 */
function podRequestsAndLimits(pod: KubeObject): { requests: ResourceList; limits: ResourceList } {
  const requests = podRequests(pod, { useStatus: true });
  const limits = podLimits(pod, { useStatus: true });
  const levelRequests = podLevel(pod, 'requests');
  for (const [name, q] of levelRequests) requests.set(name, q);
  if (hasPodLevelResources(pod)) for (const [name, q] of podLevel(pod, 'limits')) limits.set(name, q);
  for (const [name, q] of resourceList(podSpec(pod).overhead)) {
    const have = requests.get(name);
    requests.set(name, have === undefined ? q : addQuantity(have, q));
    const limit = limits.get(name);
    if (limit !== undefined && !isZero(limit)) limits.set(name, addQuantity(limit, q));
  }
  return { requests, limits };
}

function isTerminating(pod: KubeObject): boolean {
  const deadline = podSpec(pod).activeDeadlineSeconds;
  return typeof deadline === 'number' && deadline >= 0;
}

function isBestEffort(pod: KubeObject): boolean {
  return isObject(pod.status) && pod.status.qosClass === 'BestEffort';
}

function usesCrossNamespaceAffinity(pod: KubeObject): boolean {
  const affinity = isObject(podSpec(pod).affinity) ? podSpec(pod).affinity as Record<string, unknown> : {};
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = isObject(affinity[kind]) ? affinity[kind] as Record<string, unknown> : {};
    const required = Array.isArray(a.requiredDuringSchedulingIgnoredDuringExecution) ? a.requiredDuringSchedulingIgnoredDuringExecution : [];
    const preferred = Array.isArray(a.preferredDuringSchedulingIgnoredDuringExecution) ? a.preferredDuringSchedulingIgnoredDuringExecution : [];
    const terms = [...required, ...preferred.map((w) => (isObject(w) ? w.podAffinityTerm : undefined))];
    for (const t of terms) {
      if (!isObject(t)) continue;
      if ((Array.isArray(t.namespaces) && t.namespaces.length > 0) || isObject(t.namespaceSelector)) return true;
    }
  }
  return false;
}

/** A scope selector requirement on a label's value, as labels.Selector matches it (value undefined: no such label). */
function selectorMatches(scope: ScopeRequirement, value: string | undefined): boolean {
  switch (scope.operator) {
    case 'Exists': return value !== undefined;
    case 'DoesNotExist': return value === undefined;
    case 'In': return value !== undefined && scope.values.includes(value);
    case 'NotIn': return value === undefined || !scope.values.includes(value);
    default: return false;
  }
}

/** A scope selector requirement on the pod's priority class ("PriorityClass" In/NotIn/Exists/DoesNotExist). */
function matchesPriorityClass(scope: ScopeRequirement, pod: KubeObject): boolean {
  const name = podSpec(pod).priorityClassName;
  return selectorMatches(scope, typeof name === 'string' && name !== '' ? name : undefined);
}

const podEvaluator: Evaluator = {
  groupResource: { group: '', resource: 'pods' },
  matchingResources: (input) => input.filter((n) =>
    podResources.includes(n) || n.startsWith('hugepages-') || n.startsWith('requests.hugepages-') || isExtendedQuotaName(n)),
  matchesScope(scope, pod) {
    switch (scope.scopeName) {
      case 'Terminating': return isTerminating(pod);
      case 'NotTerminating': return !isTerminating(pod);
      case 'BestEffort': return isBestEffort(pod);
      case 'NotBestEffort': return !isBestEffort(pod);
      case 'PriorityClass': return matchesPriorityClass(scope, pod);
      case 'CrossNamespacePodAffinity': return usesCrossNamespaceAffinity(pod);
      default: return false;
    }
  },
  // A resize changes what a pod requests; an update of the pod itself only its terminating scope (activeDeadlineSeconds).
  handlesUpdate: (subresource, pod, old) => subresource === 'resize' || (subresource === '' && isTerminating(pod) !== isTerminating(old)),
  usage(pod, now) {
    const out: ResourceList = new Map([['count/pods', one()]]);
    if (!podCharged(pod, now)) return out;
    const { requests, limits } = podRequestsAndLimits(pod);
    for (const [name, q] of computeUsage(requests, limits)) out.set(name, q);
    return out;
  },
  constraints(required, pod) {
    // Pod-level resources make container requests optional: nothing is required then (PodLevelResources).
    if (hasPodLevelResources(pod)) return undefined;
    const wanted = required.filter((r) => mustSpecify.has(r));
    if (wanted.length === 0) return undefined;
    const missing = new Map<string, Set<string>>();
    const { containers, initContainers } = containersOf(pod);
    for (const c of [...containers, ...initContainers]) {
      const has = computeUsage(containerResources(c, 'requests'), containerResources(c, 'limits'));
      for (const r of wanted) {
        if (has.has(r)) continue;
        if (!missing.has(r)) missing.set(r, new Set());
        missing.get(r)!.add(typeof c.name === 'string' ? c.name : '');
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
};

// ---------- services ----------

const serviceEvaluator: Evaluator = {
  groupResource: { group: '', resource: 'services' },
  matchingResources: (input) => input.filter((n) => ['count/services', 'services', 'services.loadbalancers', 'services.nodeports'].includes(n)),
  matchesScope: () => false,
  // Its type can change (to NodePort or LoadBalancer).
  handlesUpdate: (subresource) => subresource === '',
  usage(svc) {
    const spec = isObject(svc.spec) ? svc.spec : {};
    const ports = Array.isArray(spec.ports) ? spec.ports : [];
    const out: ResourceList = new Map([['services', one()], ['count/services', one()]]);
    if (spec.type === 'NodePort') out.set('services.nodeports', quantityOf(ports.length));
    if (spec.type === 'LoadBalancer') {
      const withNodePorts = spec.allocateLoadBalancerNodePorts === false
        ? ports.filter((p) => isObject(p) && typeof p.nodePort === 'number' && p.nodePort !== 0).length
        : ports.length;
      out.set('services.nodeports', quantityOf(withNodePorts));
      out.set('services.loadbalancers', one());
    }
    return out;
  },
};

// ---------- persistent volume claims ----------

const storageClassSuffix = '.storageclass.storage.k8s.io/';

/** RoundUp(0), away from zero: storage is counted in whole bytes (quota validation wants integers, issue 94313). */
function wholeBytes(q: Quantity): Quantity {
  if (q.den === 1n || q.num % q.den === 0n) return q;
  const up = q.num / q.den + (q.num > 0n ? 1n : -1n);
  return { num: up, den: 1n, ...(q.format ? { format: q.format } : {}) };
}

/** getStorageUsage: the requested storage, or what status.allocatedResources holds when it is more. */
function claimStorage(pvc: KubeObject): Quantity | undefined {
  const spec = isObject(pvc.spec) ? pvc.spec : {};
  const requested = resourceList(isObject(spec.resources) ? spec.resources.requests : undefined).get('storage');
  if (requested === undefined) return undefined;
  const status = isObject(pvc.status) ? pvc.status : {};
  const allocated = resourceList(status.allocatedResources).get('storage');
  return wholeBytes(allocated !== undefined && compareQuantity(allocated, requested) > 0 ? allocated : requested);
}

/** getReferencedVolumeAttributesClassNames: the classes the claim asks for, has, or is being modified to. */
function volumeAttributesClasses(pvc: KubeObject): Set<string> {
  const names = new Set<string>();
  const spec = isObject(pvc.spec) ? pvc.spec : {};
  const status = isObject(pvc.status) ? pvc.status : {};
  const modify = isObject(status.modifyVolumeStatus) ? status.modifyVolumeStatus : {};
  for (const name of [spec.volumeAttributesClassName, status.currentVolumeAttributesClassName, modify.targetVolumeAttributesClassName]) {
    if (typeof name === 'string' && name !== '') names.add(name);
  }
  return names;
}

/** pvcMatchesScopeFunc: the VolumeAttributesClass scope, matched by any class the claim refers to. */
function claimMatchesScope(scope: ScopeRequirement, pvc: KubeObject): boolean {
  if (scope.scopeName !== 'VolumeAttributesClass') return false;
  const names = [...volumeAttributesClasses(pvc)];
  if (names.length === 0) return selectorMatches(scope, undefined);
  return names.some((name) => selectorMatches(scope, name));
}

function claimStorageClass(pvc: KubeObject): string {
  const beta = pvc.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (beta !== undefined) return beta;
  const spec = isObject(pvc.spec) ? pvc.spec : {};
  return typeof spec.storageClassName === 'string' ? spec.storageClassName : '';
}

const claimEvaluator: Evaluator = {
  groupResource: { group: '', resource: 'persistentvolumeclaims' },
  matchingResources: (input) => input.filter((n) =>
    ['count/persistentvolumeclaims', 'persistentvolumeclaims', 'requests.storage'].includes(n)
    || n.endsWith(`${storageClassSuffix}requests.storage`) || n.endsWith(`${storageClassSuffix}persistentvolumeclaims`)),
  matchesScope: claimMatchesScope,
  // A bound claim's storage request can grow, and so can its status.allocatedResources (upstream's
  // RequiresQuotaReplenish compares two fresh pointers: every status update is handled).
  handlesUpdate: (subresource) => subresource === '' || subresource === 'status',
  usage(pvc) {
    const out: ResourceList = new Map([['persistentvolumeclaims', one()], ['count/persistentvolumeclaims', one()]]);
    const storage = claimStorage(pvc);
    const cls = claimStorageClass(pvc);
    if (cls !== '') out.set(`${cls}${storageClassSuffix}persistentvolumeclaims`, one());
    if (storage !== undefined) {
      out.set('requests.storage', storage);
      if (cls !== '') out.set(`${cls}${storageClassSuffix}requests.storage`, storage);
    }
    return out;
  },
};

const builtinEvaluators: Evaluator[] = [
  podEvaluator,
  serviceEvaluator,
  claimEvaluator,
  objectCounter({ group: '', resource: 'configmaps' }, 'configmaps'),
  objectCounter({ group: '', resource: 'secrets' }, 'secrets'),
  objectCounter({ group: '', resource: 'replicationcontrollers' }, 'replicationcontrollers'),
  objectCounter({ group: '', resource: 'resourcequotas' }, 'resourcequotas'),
];

/** The resources whose objects quotas count out of the box (others only through count/ names). */
export const countedResources: GroupResource[] = builtinEvaluators.map((e) => e.groupResource);

/** The evaluator of a resource: a built-in one, or an object counter. */
export function evaluatorFor(gr: GroupResource): Evaluator {
  return builtinEvaluators.find((e) => e.groupResource.group === gr.group && e.groupResource.resource === gr.resource) ?? objectCounter(gr);
}

/** The built-in evaluator of a resource whose updates may change what it uses (pods, services, claims). */
export function updateEvaluatorFor(gr: GroupResource): Evaluator | undefined {
  return builtinEvaluators.find((e) => e.handlesUpdate !== undefined && e.groupResource.group === gr.group && e.groupResource.resource === gr.resource);
}

/** The evaluators a quota with these hard resources needs. */
export function evaluatorsFor(hardNames: string[]): Evaluator[] {
  const out = builtinEvaluators.filter((e) => e.matchingResources(hardNames).length > 0);
  for (const name of hardNames) {
    const gr = groupResourceOfCount(name);
    if (gr === undefined || out.some((e) => e.groupResource.group === gr.group && e.groupResource.resource === gr.resource)) continue;
    out.push(objectCounter(gr));
  }
  return out;
}

// ---------- quotas ----------

export function specOf(quota: KubeObject): Record<string, unknown> {
  return isObject(quota.spec) ? quota.spec : {};
}

export function statusOf(quota: KubeObject): Record<string, unknown> {
  return isObject(quota.status) ? quota.status : {};
}

/** spec.scopes (as Exists requirements) and spec.scopeSelector's expressions. */
export function scopesOf(quota: KubeObject): ScopeRequirement[] {
  const spec = specOf(quota);
  const out: ScopeRequirement[] = [];
  for (const s of Array.isArray(spec.scopes) ? spec.scopes : []) out.push({ scopeName: String(s), operator: 'Exists', values: [] });
  const selector = isObject(spec.scopeSelector) ? spec.scopeSelector : {};
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    if (!isObject(e)) continue;
    out.push({
      scopeName: String(e.scopeName ?? ''), operator: String(e.operator ?? ''),
      values: Array.isArray(e.values) ? e.values.map(String) : [],
    });
  }
  return out;
}

/** generic.Matches: the quota limits something this evaluator counts, and the object is in all its scopes. */
export function quotaMatches(evaluator: Evaluator, hardNames: string[], scopes: ScopeRequirement[], obj: KubeObject): boolean {
  if (evaluator.matchingResources(hardNames).length === 0) return false;
  return scopes.every((s) => evaluator.matchesScope(s, obj));
}

/** Resource lists as the API writes them: canonical quantities, names sorted. */
export function toWire(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...list.keys()].sort()) out[name] = formatQuantity(list.get(name)!);
  return out;
}

export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [name, q] of b) out.set(name, out.has(name) ? addQuantity(out.get(name)!, q) : q);
  return out;
}

/** `a` less `b`, nothing below zero; names only `b` has are zero (quota.SubtractWithNonNegativeResult). */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map();
  for (const [name, q] of a) {
    const other = b.get(name);
    const left = other === undefined ? q : subtractQuantity(q, other);
    out.set(name, isNegative(left) || isZero(left) ? zeroQuantity : left);
  }
  for (const name of b.keys()) if (!out.has(name)) out.set(name, zeroQuantity);
  return out;
}

export function maskList(list: ResourceList, names: Iterable<string>): ResourceList {
  const keep = new Set(names);
  return new Map([...list].filter(([name]) => keep.has(name)));
}

/** The names of `a` whose value exceeds `b`'s (quota.LessThanOrEqual). */
export function exceeding(a: ResourceList, b: ResourceList): string[] {
  return [...a].filter(([name, q]) => b.has(name) && compareQuantity(q, b.get(name)!) > 0).map(([name]) => name);
}

export function negativeNames(list: ResourceList): string[] {
  return [...list].filter(([, q]) => isNegative(q)).map(([name]) => name).sort();
}

export function withoutZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, q]) => !isZero(q)));
}

/** "name=value" pairs sorted by name, comma-joined (the admission plugin's prettyPrint). */
export function prettyPrint(list: ResourceList): string {
  return [...list.keys()].sort().map((name) => `${name}=${formatQuantity(list.get(name)!)}`).join(',');
}

/**
 * A quota's status as upstream's resource quota controller computes it: hard is the
 * spec's, used the sum of the usage of every object in the namespace that the quota
 * matches, for each hard resource something counts (0 when nothing uses it).
 */
export async function computeQuotaStatus(
  quota: KubeObject,
  objects: (gr: GroupResource) => Promise<KubeObject[]>,
  now: number,
): Promise<{ hard: Record<string, string>; used: Record<string, string> }> {
  const hard = resourceList(specOf(quota).hard);
  const hardNames = [...hard.keys()];
  const scopes = scopesOf(quota);
  let used: ResourceList = new Map();
  // Usage of hard resources nothing counts is kept as observed.
  const previous = resourceList(statusOf(quota).used);
  for (const [name, q] of previous) if (hard.has(name)) used.set(name, q);
  for (const evaluator of evaluatorsFor(hardNames)) {
    const names = evaluator.matchingResources(hardNames);
    let sum: ResourceList = new Map(names.map((n) => [n, zeroQuantity]));
    for (const obj of await objects(evaluator.groupResource)) {
      if (!scopes.every((s) => evaluator.matchesScope(s, obj))) continue;
      sum = addLists(sum, maskList(evaluator.usage(obj, now), names));
    }
    for (const [name, q] of sum) used.set(name, q);
  }
  used = maskList(used, hardNames);
  return { hard: toWire(hard), used: toWire(used) };
}

