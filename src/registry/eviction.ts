// POST pods/{name}/eviction: delete a pod unless a PodDisruptionBudget forbids it, after
// upstream's pkg/registry/core/pod/storage/eviction.go.

import { badRequest, conflict, invalid, isStatusError, notFound, StatusError, unclassifiedError, type KubeObject, type Status, type StatusCause } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';
import { isObject, type JsonObject } from '../api/json.ts';
import { budgetCovers, budgetSelector, disruptionStatus, withDisruptionAllowedCondition, rfc3339, isPodReady } from './disruption.ts';
import type { ResourceRegistry } from './registry.ts';
import type { DeleteOptions, Store } from './store.ts';

/** Upstream refuses evictions once this many are approved but not yet seen by the disruption controller. */
const maxDisruptedPodSize = 2000;
/** Retries of a conflicting pod read-delete or budget update (upstream's EvictionsRetry has 20 steps). */
const maxAttempts = 20;

/** The Eviction's deleteOptions, their types checked as they were decoded (endpoints/handlers/eviction.ts). */
export interface EvictionDeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  orphanDependents?: boolean;
  dryRun?: string[];
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

function tooManyRequests(message: string, retryAfterSeconds: number, cause: string): StatusError {
  const details: Status['details'] = { causes: [{ reason: 'DisruptionBudget', message: cause }] };
  const headers: Record<string, string> = {};
  if (retryAfterSeconds > 0) {
    details.retryAfterSeconds = retryAfterSeconds;
    headers['Retry-After'] = String(retryAfterSeconds);
  }
  return new StatusError(429, 'TooManyRequests', message, details, headers);
}

const violationMessage = "Cannot evict pod as it would violate the pod's disruption budget.";

/** createTooManyRequestsError: the budget is not settled yet; retry in 10 s. */
function budgetBusy(pdbName: string): StatusError {
  return tooManyRequests(violationMessage, 10, `The disruption budget ${pdbName} is still being processed by the server.`);
}

function pdbForbidden(name: string, why: string): StatusError {
  return new StatusError(403, 'Forbidden', `poddisruptionbudget.policy "${name}" is forbidden: ${why}`, { name, group: 'policy', kind: 'poddisruptionbudget' });
}

/** canIgnorePDB: pods that are finished, not started, or already being deleted go without a budget check. */
function canIgnoreBudget(pod: KubeObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || pod.metadata.deletionTimestamp !== undefined;
}

/** shouldEnforceResourceVersion: a running pod must not have changed (become ready) since it was checked. */
function shouldEnforceResourceVersion(pod: KubeObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp !== undefined);
}

function isConflict(err: unknown): boolean {
  return isStatusError(err) && err.code === 409 && err.reason === 'Conflict';
}

/** resourceVersionIsUnset: the client pinned no resourceVersion. */
function resourceVersionUnset(options: EvictionDeleteOptions): boolean {
  return options.preconditions?.resourceVersion === undefined || options.preconditions.resourceVersion === null;
}

function withResourceVersion(options: EvictionDeleteOptions, resourceVersion: string | undefined): EvictionDeleteOptions {
  return { ...options, preconditions: { ...options.preconditions, ...(resourceVersion !== undefined ? { resourceVersion } : {}) } };
}

/**
 * Checks the Eviction's namespace against the request's, as upstream's create handler does
 * for every create (EnsureObjectNamespaceMatchesRequestNamespace): 400 when it names another;
 * none means the request's.
 */
export function checkEvictionNamespace(eviction: KubeObject, podNamespace: string): void {
  const namespace = eviction.metadata.namespace;
  if (namespace !== undefined && namespace !== '' && namespace !== podNamespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  eviction.metadata.namespace = podNamespace;
}

/** EvictionREST's first check, after mutating admission: the Eviction names the pod of the URL (none is no match). */
export function checkEvictionName(eviction: KubeObject, podName: string): void {
  if ((eviction.metadata.name ?? '') !== podName) throw badRequest('name in URL does not match name in Eviction object');
}

/** Go's %v of a []string. */
function goList(values: readonly string[]): string {
  return `[${values.join(' ')}]`;
}

/**
 * Upstream's propagateDryRun: the request's dryRun goes into the Eviction's deleteOptions
 * when they name none (the Eviction admission validates sees it there); both given must be
 * the same list, else the plain error upstream answers with a bare 500. Answers the
 * options of the deletion.
 */
export function propagateDryRun(eviction: KubeObject, requestDryRun: readonly string[]): EvictionDeleteOptions {
  const body = (eviction as { deleteOptions?: EvictionDeleteOptions }).deleteOptions;
  if (body === undefined || body === null) return requestDryRun.length > 0 ? { dryRun: [...requestDryRun] } : {};
  const own = body.dryRun ?? [];
  if (own.length === 0) {
    if (requestDryRun.length > 0) body.dryRun = [...requestDryRun];
    return body;
  }
  if (requestDryRun.length === 0) return body;
  if (own.length !== requestDryRun.length || own.some((v, i) => v !== requestDryRun[i])) {
    throw unclassifiedError(`Non-matching dry-run options in request and content: ${goList(requestDryRun)} and ${goList(own)}`);
  }
  return body;
}

/** Go's %#v of a []string, as a NotSupported error prints the dryRun list. */
function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/**
 * ValidateDeleteOptions, which the store's BeforeDelete runs on the eviction's deletion
 * (no handler validated them before): 422 DeleteOptions. Upstream's ValidateIgnoreStoreReadError too.
 */
function validateDeleteOptions(options: EvictionDeleteOptions): void {
  const causes: StatusCause[] = [];
  const { propagationPolicy, orphanDependents, dryRun = [] } = options;
  if (orphanDependents !== undefined && propagationPolicy !== undefined) {
    causes.push({ reason: 'FieldValueInvalid', field: 'propagationPolicy', message: `Invalid value: ${goQuote(propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set` });
  }
  if (propagationPolicy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(propagationPolicy)) {
    causes.push({ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: ${goQuote(propagationPolicy)}: supported values: "Foreground", "Background", "Orphan", "nil"` });
  }
  if (!dryRun.every((v) => v === 'All')) {
    causes.push({ reason: 'FieldValueNotSupported', field: 'dryRun', message: `Unsupported value: ${goStringSlice(dryRun)}: supported values: "All"` });
  }
  if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
    const set: Array<[string, boolean]> = [
      ['dryRun', dryRun.length > 0], ['propagationPolicy', propagationPolicy !== undefined], ['orphanDependents', orphanDependents !== undefined],
      ['gracePeriodSeconds', options.gracePeriodSeconds !== undefined], ['preconditions', options.preconditions !== undefined],
    ];
    for (const [name, isSet] of set) {
      if (isSet) causes.push({ reason: 'FieldValueInvalid', field: 'ignoreStoreReadErrorWithClusterBreakingPotential', message: `Invalid value: true: cannot be set together with .${name}` });
    }
  }
  if (causes.length > 0) throw invalid('DeleteOptions', '', causes, 'meta.k8s.io');
}

/** The deletion the options ask for, as the Store takes it. */
function storeDeleteOptions(options: EvictionDeleteOptions): DeleteOptions {
  const out: DeleteOptions = { dryRun: (options.dryRun ?? []).length > 0 };
  if (options.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.preconditions !== undefined) out.preconditions = options.preconditions;
  if (options.propagationPolicy !== undefined) out.propagationPolicy = options.propagationPolicy;
  if (options.orphanDependents !== undefined) out.orphanDependents = options.orphanDependents;
  return out;
}

/** The pod's group resource as upstream's eviction names it in its precondition conflicts (the kind, as a resource). */
const podKind = { group: '', resource: 'Pod' };

/**
 * podutil.UpdatePodCondition with the DisruptionTarget condition an eviction sets: its
 * transition time kept while its status stays True.
 */
function markDisruptionTarget(pod: KubeObject): void {
  const status = (isObject(pod.status) ? pod.status : (pod.status = {})) as JsonObject;
  const conditions = Array.isArray(status.conditions) ? status.conditions : [];
  const at = conditions.findIndex((c) => isObject(c) && c.type === 'DisruptionTarget');
  const previous = at >= 0 ? conditions[at] as JsonObject : undefined;
  const condition: JsonObject = {
    type: 'DisruptionTarget',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: previous?.status === 'True' && typeof previous.lastTransitionTime === 'string' ? previous.lastTransitionTime : rfc3339(Date.now()),
    reason: 'EvictionByEvictionAPI',
    message: 'Eviction API: evicting',
  };
  if (at >= 0) conditions[at] = condition;
  else conditions.push(condition);
  status.conditions = conditions;
}

/**
 * Upstream's addConditionAndDeletePod: unless a dry run, the pod's status first gets the
 * DisruptionTarget condition (through pods/status, the options' preconditions checked
 * against the pod as stored, a resourceVersion precondition then moved to the written
 * pod's), then the pod is deleted, its options validated as the store's BeforeDelete does.
 */
async function markAndDelete(pods: Store, namespace: string, name: string, options: EvictionDeleteOptions): Promise<void> {
  let deletion = options;
  if ((options.dryRun ?? []).length === 0) {
    const { uid, resourceVersion } = options.preconditions ?? {};
    // Written and deleted as upstream's eviction calls its pod store: no admission (the
    // eviction's own CREATE went through it).
    const { object } = await pods.guaranteedUpdate(namespace, name, undefined, { withoutAdmission: true }, (current) => {
      const pod = current!;
      if (uid !== undefined && uid !== '' && uid !== pod.metadata.uid) {
        throw conflict(podKind, name, `the UID in the precondition (${uid}) does not match the UID in record (${pod.metadata.uid ?? ''}). The object might have been deleted and then recreated`);
      }
      if (resourceVersion !== undefined && resourceVersion !== '' && resourceVersion !== pod.metadata.resourceVersion) {
        throw conflict(podKind, name, `the ResourceVersion in the precondition (${resourceVersion}) does not match the ResourceVersion in record (${pod.metadata.resourceVersion ?? ''}). The object might have been modified`);
      }
      markDisruptionTarget(pod);
      return pod;
    }, { createIfMissing: false, subresource: 'status' });
    if (!resourceVersionUnset(options)) deletion = withResourceVersion(options, object.metadata.resourceVersion);
  }
  validateDeleteOptions(deletion);
  await pods.delete(namespace, name, { ...storeDeleteOptions(deletion), withoutAdmission: true });
}

/**
 * Evicts a pod: deletes it, unless the one PodDisruptionBudget covering it allows no
 * disruption now (429) or several budgets cover it (500). The budget's status is computed
 * from its pods and written with the eviction counted, as upstream's eviction path
 * decrements disruptionsAllowed and records the pod in disruptedPods. `options` are the
 * Eviction's deleteOptions with the request's dryRun in them (propagateDryRun).
 */
export async function evictPod(registry: ResourceRegistry, pods: Store, namespace: string, name: string, options: EvictionDeleteOptions): Promise<Status> {
  const rvPinned = !resourceVersionUnset(options);
  const dryRun = (options.dryRun ?? []).length > 0;
  const success: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as Status;

  // Pods the budget need not be asked about are deleted straight away; conflicts are retried.
  let pod: KubeObject | undefined;
  for (let attempt = 0; ; attempt++) {
    pod = await pods.find(namespace, name);
    if (pod === undefined) throw notFound(pods.groupResource, name);
    if (!canIgnoreBudget(pod)) break;
    const deletion = shouldEnforceResourceVersion(pod) && !rvPinned ? withResourceVersion(options, pod.metadata.resourceVersion) : options;
    try {
      await markAndDelete(pods, namespace, name, deletion);
      return success;
    } catch (err) {
      if (isConflict(err) && !rvPinned && attempt < maxAttempts - 1) continue;
      throw err;
    }
  }

  const budgets = registry.lookup('policy', 'v1', 'poddisruptionbudgets')?.store;
  const covering = budgets === undefined ? [] : (await budgets.list(namespace)).items.map((i) => i.object).filter((pdb) => budgetCovers(pdb, pod));
  if (covering.length > 1) {
    throw unclassifiedError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  }

  let pinToPod = false;
  if (covering.length === 1) {
    pinToPod = await checkAndDecrement(budgets!, pods, covering[0]!, pod, dryRun);
  }

  const deletion = pinToPod ? withResourceVersion(options, pod.metadata.resourceVersion) : options;
  try {
    await markAndDelete(pods, namespace, name, deletion);
  } catch (err) {
    // The pod changed since it was judged unready: the client should try again.
    if (isConflict(err) && pinToPod && !rvPinned) throw budgetBusy(covering[0]!.metadata.name ?? '');
    throw err;
  }
  return success;
}

/**
 * Brings the budget's status up to date and takes one disruption from it. Answers true
 * when the pod goes without taking one (it is not ready and the budget is met, or its
 * unhealthy pods may always go), in which case the deletion must be pinned to the pod's
 * resourceVersion. A budget write that keeps conflicting fails with the last conflict
 * (upstream's retry.RetryOnConflict answers it, not a timeout).
 */
async function checkAndDecrement(budgets: Store, pods: Store, initial: KubeObject, pod: KubeObject, dryRun: boolean): Promise<boolean> {
  const namespace = initial.metadata.namespace ?? '';
  const pdbName = initial.metadata.name ?? '';
  let pdb = initial;
  for (let attempt = 0; ; attempt++) {
    const selector = budgetSelector(pdb);
    const selected = selector === undefined ? [] : (await pods.list(namespace, { filter: { labels: selector } })).items.map((i) => i.object);
    const now = Date.now();
    const status = disruptionStatus(pdb, selected, now);
    const spec = (pdb.spec ?? {}) as { unhealthyPodEvictionPolicy?: string };

    let unhealthyGoesFree = false;
    if (!isPodReady(pod)) {
      const desired = status.desiredHealthy as number;
      unhealthyGoesFree = spec.unhealthyPodEvictionPolicy === 'AlwaysAllow' || ((status.currentHealthy as number) >= desired && desired > 0);
    }

    let refusal: StatusError | undefined;
    const allowed = status.disruptionsAllowed as number;
    if (!unhealthyGoesFree) {
      if (allowed < 0) refusal = pdbForbidden(pdbName, 'pdb disruptions allowed is negative');
      else if (Object.keys((status.disruptedPods as object | undefined) ?? {}).length > maxDisruptedPodSize) {
        refusal = pdbForbidden(pdbName, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
      } else if (allowed === 0) {
        refusal = tooManyRequests(violationMessage, 0, `The disruption budget ${pdbName} needs ${status.desiredHealthy} healthy pods and has ${status.currentHealthy} currently`);
      }
    }

    let written = status;
    if (refusal === undefined && !unhealthyGoesFree) {
      written = { ...status, disruptionsAllowed: allowed - 1, disruptedPods: { ...((status.disruptedPods as object | undefined) ?? {}), [pod.metadata.name!]: rfc3339(now) } };
      if (allowed - 1 === 0) written = withDisruptionAllowedCondition(written, pdb.metadata.generation ?? 0, now);
    }
    if (dryRun) {
      if (refusal !== undefined) throw refusal;
      return unhealthyGoesFree;
    }
    try {
      await budgets.guaranteedUpdate(namespace, pdbName, pdb.metadata.resourceVersion, {}, (current) => ({ ...current!, status: written }), {
        createIfMissing: false,
        subresource: 'status',
      });
    } catch (err) {
      if (isConflict(err) && attempt < maxAttempts - 1) {
        const fresh = await budgets.find(namespace, pdbName);
        if (fresh === undefined) throw notFound(budgets.groupResource, pdbName);
        pdb = fresh;
        continue;
      }
      throw err;
    }
    if (refusal !== undefined) throw refusal;
    return unhealthyGoesFree;
  }
}
