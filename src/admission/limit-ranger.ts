// LimitRanger admission: default container requests and limits from the namespace's
// LimitRanges, then enforce their min, max and limit/request ratio on pods and claims.

import type { KubeObject } from '../api/index.ts';
import { isObject, type JsonObject } from '../api/json.ts';
import { formatQuantity, integerValue, milliValue, type Quantity } from '../api/quantity.ts';
import { unless, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';
import { admissionForbidden } from './forbidden.ts';
import { containerResources, containersOf, podLimits, podRequests, resourceList, type ResourceList } from './pod-resources.ts';

export const limitRangerAnnotation = 'kubernetes.io/limit-ranger';

export interface LimitRangeLookup {
  /** The LimitRanges of a namespace. */
  list(namespace: string): Promise<KubeObject[]>;
}

function limitsOf(lr: KubeObject): JsonObject[] {
  const spec = isObject(lr.spec) ? lr.spec : {};
  return Array.isArray(spec.limits) ? spec.limits.filter(isObject) : [];
}

/** The default requests and limits of a LimitRange's Container items, as written there. */
function containerDefaults(lr: KubeObject): { requests: JsonObject; limits: JsonObject } {
  const requests: JsonObject = {};
  const limits: JsonObject = {};
  for (const item of limitsOf(lr)) {
    if (item.type !== 'Container') continue;
    if (isObject(item.defaultRequest)) Object.assign(requests, item.defaultRequest);
    if (isObject(item.default)) Object.assign(limits, item.default);
  }
  return { requests, limits };
}

/**
 * Upstream's PodMutateLimitFunc: each container and init container gets the defaults it
 * lacks, and the pod (unless `annotate` is false) an annotation naming what was set. Answers whether anything changed.
 */
export function applyLimitRangeDefaults(lr: KubeObject, pod: KubeObject, annotate = true): boolean {
  const defaults = containerDefaults(lr);
  const notes: string[] = [];
  const { containers, initContainers } = containersOf(pod);
  const merge = (container: JsonObject, label: string) => {
    const resources = isObject(container.resources) ? container.resources : {};
    const limits: JsonObject = isObject(resources.limits) ? resources.limits : {};
    const requests: JsonObject = isObject(resources.requests) ? resources.requests : {};
    const setLimits = Object.keys(defaults.limits).filter((name) => !(name in limits)).sort();
    const setRequests = Object.keys(defaults.requests).filter((name) => !(name in requests)).sort();
    for (const name of setLimits) limits[name] = defaults.limits[name];
    for (const name of setRequests) requests[name] = defaults.requests[name];
    if (Object.keys(limits).length > 0) resources.limits = limits;
    if (Object.keys(requests).length > 0) resources.requests = requests;
    if (setLimits.length > 0 || setRequests.length > 0) container.resources = resources;
    const name = typeof container.name === 'string' ? container.name : '';
    if (setRequests.length > 0) notes.push(`${setRequests.join(', ')} request for ${label} ${name}`);
    if (setLimits.length > 0) notes.push(`${setLimits.join(', ')} limit for ${label} ${name}`);
  };
  for (const c of containers) merge(c, 'container');
  for (const c of initContainers) merge(c, 'init container');
  if (notes.length === 0) return false;
  if (annotate) pod.metadata.annotations = { ...pod.metadata.annotations, [limitRangerAnnotation]: `LimitRanger plugin set: ${notes.join('; ')}` };
  return true;
}

/** int64's range past which upstream compares whole units rather than thousandths (MaxMilliValue). */
const maxMilliValue = 9223372036854775807n / 1000n;

/** requestLimitEnforcedValues: thousandths when all three fit, whole units otherwise. */
function comparable(...qs: (Quantity | undefined)[]): bigint[] {
  const zero = { num: 0n, den: 1n };
  const values = qs.map((q) => integerValue(q ?? zero));
  if (values.every((v) => v <= maxMilliValue)) return qs.map((q) => milliValue(q ?? zero));
  return values;
}

const str = formatQuantity;

function minConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced) as [bigint, bigint, bigint];
  if (req === undefined) return `minimum ${name} usage per ${type} is ${str(enforced)}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  if (lim !== undefined && l < e) return `minimum ${name} usage per ${type} is ${str(enforced)}, but limit is ${str(lim)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = comparable(req, lim, enforced) as [bigint, bigint, bigint];
  if (lim === undefined) return `maximum ${name} usage per ${type} is ${str(enforced)}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${str(enforced)}, but limit is ${str(lim)}`;
  if (req !== undefined && r > e) return `maximum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

/** Claims: only requests count, limits are not user input there (maxRequestConstraint). */
function maxRequestConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList): string | undefined {
  const req = requests.get(name);
  const [r, , e] = comparable(req, undefined, enforced) as [bigint, bigint, bigint];
  if (req === undefined) return `maximum ${name} usage per ${type} is ${str(enforced)}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, requests: ResourceList, limits: ResourceList): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = comparable(req, lim, enforced) as [bigint, bigint, bigint];
  if (req === undefined || r === 0n) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but no request is specified or request is 0`;
  if (lim === undefined || l === 0n) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but no limit is specified or limit is 0`;
  const observed = Number(l) / Number(r);
  let ratio = observed;
  let max = Number(integerValue(enforced));
  if (integerValue(enforced) <= maxMilliValue) {
    ratio = observed * 1000;
    max = Number(milliValue(enforced));
  }
  if (ratio > max) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but provided ratio is ${observed.toFixed(6)}`;
  return undefined;
}

function checkItem(item: JsonObject, type: string, requests: ResourceList, limits: ResourceList, errors: string[]): void {
  const push = (msg: string | undefined) => {
    if (msg !== undefined) errors.push(msg);
  };
  for (const [name, q] of resourceList(item.min)) push(minConstraint(type, name, q, requests, limits));
  for (const [name, q] of resourceList(item.max)) push(maxConstraint(type, name, q, requests, limits));
  for (const [name, q] of resourceList(item.maxLimitRequestRatio)) push(ratioConstraint(type, name, q, requests, limits));
}

/** upstream's utilerrors aggregate message: one error alone, several deduplicated in brackets. */
export function aggregateMessage(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/**
 * The limit ranger's podRequests/podLimits: the containers' aggregate (no overhead), with
 * the pod-level cpu and memory (spec.resources) in its place where the pod sets them.
 */
function podTotals(pod: KubeObject, which: 'requests' | 'limits'): ResourceList {
  const total = which === 'requests' ? podRequests(pod) : podLimits(pod);
  const spec = isObject(pod.spec) ? pod.spec : {};
  const podLevel = resourceList(isObject(spec.resources) ? spec.resources[which] : undefined);
  for (const name of ['cpu', 'memory']) {
    const q = podLevel.get(name);
    if (q !== undefined) total.set(name, q);
  }
  return total;
}

/** PodValidateLimitFunc: the violations of one LimitRange by a pod. */
export function podLimitViolations(lr: KubeObject, pod: KubeObject): string[] {
  const errors: string[] = [];
  const { containers, initContainers } = containersOf(pod);
  for (const item of limitsOf(lr)) {
    if (item.type === 'Container') {
      for (const c of [...containers, ...initContainers]) {
        checkItem(item, 'Container', containerResources(c, 'requests'), containerResources(c, 'limits'), errors);
      }
    } else if (item.type === 'Pod') {
      checkItem(item, 'Pod', podTotals(pod, 'requests'), podTotals(pod, 'limits'), errors);
    }
  }
  return errors;
}

/** PersistentVolumeClaimValidateLimitFunc: storage requests against min and max. */
export function claimLimitViolations(lr: KubeObject, claim: KubeObject): string[] {
  const errors: string[] = [];
  const spec = isObject(claim.spec) ? claim.spec : {};
  const requests = resourceList(isObject(spec.resources) ? spec.resources.requests : undefined);
  for (const item of limitsOf(lr)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [name, q] of resourceList(item.min)) {
      const msg = minConstraint('PersistentVolumeClaim', name, q, requests, new Map());
      if (msg !== undefined) errors.push(msg);
    }
    for (const [name, q] of resourceList(item.max)) {
      const msg = maxRequestConstraint('PersistentVolumeClaim', name, q, requests);
      if (msg !== undefined) errors.push(msg);
    }
  }
  return errors;
}

function kindOf(attrs: AdmissionAttributes): 'pod' | 'claim' | undefined {
  if (attrs.group !== '' || attrs.object === undefined) return undefined;
  // A pod's resources change after create only through pods/resize (upstream).
  if (attrs.resource === 'pods' && attrs.subresource === 'resize' && attrs.operation === 'UPDATE') return 'pod';
  if (attrs.subresource !== '') return undefined;
  if (attrs.resource === 'pods' && attrs.operation === 'CREATE') return 'pod';
  if (attrs.resource === 'persistentvolumeclaims' && (attrs.operation === 'CREATE' || attrs.operation === 'UPDATE')) return 'claim';
  return undefined;
}

/** Objects being deleted are left alone, as upstream. */
function beingDeleted(attrs: AdmissionAttributes): boolean {
  return attrs.oldObject?.metadata.deletionTimestamp !== undefined;
}

/**
 * Upstream's LimitRanger plugin (plugin/pkg/admission/limitranger): on pod create and
 * pods/resize the mutating phase fills in defaults, the validating phase checks each
 * LimitRange; claims are checked on create and update. Violations answer 403.
 */
export function limitRanger(ranges: LimitRangeLookup): AdmissionPlugin {
  return {
    name: 'LimitRanger',
    admit: unless((attrs) => kindOf(attrs) !== 'pod' || beingDeleted(attrs), async (attrs) => {
      // A resize keeps the stored annotations (upstream's resize strategy puts them back after admission).
      const annotate = attrs.subresource !== 'resize';
      for (const lr of await ranges.list(attrs.namespace)) {
        if (applyLimitRangeDefaults(lr, attrs.object!, annotate)) attrs.mutated = true;
      }
    }),
    validate: unless((attrs) => kindOf(attrs) === undefined || beingDeleted(attrs), async (attrs) => {
      const kind = kindOf(attrs);
      for (const lr of await ranges.list(attrs.namespace)) {
        const errors = kind === 'pod' ? podLimitViolations(lr, attrs.object!) : claimLimitViolations(lr, attrs.object!);
        if (errors.length > 0) throw admissionForbidden(attrs, aggregateMessage(errors));
      }
    }),
  };
}

