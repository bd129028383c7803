// POST pods/{name}/eviction: delete a pod unless a PodDisruptionBudget forbids it, after
// upstream's pkg/registry/core/pod/storage/eviction.go.

import { badRequest, isStatusError, notFound, StatusError, type KubeObject, type Status } from '../api/index.ts';
import { budgetCovers, budgetSelector, disruptionStatus, withDisruptionAllowedCondition, rfc3339, isPodReady } from './disruption.ts';
import type { ResourceRegistry } from './registry.ts';
import type { DeleteOptions, Store } from './store.ts';

/** Upstream refuses evictions once this many are approved but not yet seen by the disruption controller. */
const maxDisruptedPodSize = 2000;
/** Retries of a conflicting pod read-delete or budget update (upstream's EvictionsRetry has 20 steps). */
const maxAttempts = 20;

export interface EvictionOptions {
  /** The request's dryRun, merged with the Eviction's deleteOptions.dryRun. */
  dryRun: boolean;
}

/** The Eviction's deleteOptions, their types checked as they were decoded (endpoints/handlers/eviction.ts). */
interface EvictionDeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  dryRun?: string[];
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

/** The deletion the Eviction asks for, as the Store takes it. */
function deleteOptionsOf(eviction: KubeObject, opts: EvictionOptions): DeleteOptions {
  const raw = (eviction as { deleteOptions?: EvictionDeleteOptions }).deleteOptions ?? {};
  const bodyDryRun = raw.dryRun ?? [];
  return {
    // Any value makes it a dry run, as upstream's dryrun.IsDryRun reads the list (nothing validates it here).
    dryRun: opts.dryRun || bodyDryRun.length > 0,
    gracePeriodSeconds: raw.gracePeriodSeconds,
    preconditions: raw.preconditions,
    propagationPolicy: raw.propagationPolicy,
  };
}

const evictionKinds = new Set(['policy/v1', 'policy/v1beta1']);

/**
 * Checks an Eviction body against the pod it is posted to: 400 as upstream when it does
 * not fit, in upstream's order: the version and kind (decoding), the namespace (the create
 * handler's EnsureObjectNamespaceMatchesRequestNamespace; none means the pod's), the name
 * (EvictionREST).
 */
export function checkEviction(eviction: KubeObject, podName: string, podNamespace: string): void {
  if (eviction.apiVersion !== undefined && !evictionKinds.has(eviction.apiVersion)) {
    throw badRequest(`the API version in the data (${eviction.apiVersion}) does not match the expected API version (policy/v1)`);
  }
  if (eviction.kind !== undefined && eviction.kind !== 'Eviction') {
    throw badRequest(`the kind in the data (${eviction.kind}) does not match the expected kind (Eviction)`);
  }
  const namespace = eviction.metadata.namespace;
  if (namespace !== undefined && namespace !== '' && namespace !== podNamespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  eviction.metadata.namespace = podNamespace;
  if ((eviction.metadata.name ?? '') !== podName) throw badRequest('name in URL does not match name in Eviction object');
}

/**
 * Evicts a pod: deletes it, unless the one PodDisruptionBudget covering it allows no
 * disruption now (429) or several budgets cover it (500). The budget's status is computed
 * from its pods and written with the eviction counted, as upstream's eviction path
 * decrements disruptionsAllowed and records the pod in disruptedPods.
 */
export async function evictPod(registry: ResourceRegistry, pods: Store, namespace: string, name: string, eviction: KubeObject, opts: EvictionOptions): Promise<Status> {
  const original = deleteOptionsOf(eviction, opts);
  const rvPinned = original.preconditions?.resourceVersion !== undefined && original.preconditions.resourceVersion !== null;
  const success: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as Status;

  // Pods the budget need not be asked about are deleted straight away; conflicts are retried.
  let pod: KubeObject | undefined;
  for (let attempt = 0; ; attempt++) {
    pod = await pods.find(namespace, name);
    if (pod === undefined) throw notFound(pods.groupResource, name);
    if (!canIgnoreBudget(pod)) break;
    const options = shouldEnforceResourceVersion(pod) && !rvPinned
      ? { ...original, preconditions: { ...original.preconditions, resourceVersion: pod.metadata.resourceVersion } }
      : original;
    try {
      await pods.delete(namespace, name, options);
      return success;
    } catch (err) {
      if (isConflict(err) && !rvPinned && attempt < maxAttempts) continue;
      throw err;
    }
  }

  const budgets = registry.lookup('policy', 'v1', 'poddisruptionbudgets')?.store;
  const covering = budgets === undefined ? [] : (await budgets.list(namespace)).items.map((i) => i.object).filter((pdb) => budgetCovers(pdb, pod));
  if (covering.length > 1) {
    throw new StatusError(500, '', 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  }

  let pinToPod = false;
  if (covering.length === 1) {
    pinToPod = await checkAndDecrement(budgets!, pods, covering[0]!, pod, original.dryRun ?? false);
  }

  const options = pinToPod
    ? { ...original, preconditions: { ...original.preconditions, resourceVersion: pod.metadata.resourceVersion } }
    : original;
  try {
    await pods.delete(namespace, name, options);
  } catch (err) {
    // The pod changed since it was judged unready: the client should try again.
    if (isConflict(err) && pinToPod && !rvPinned) throw budgetBusy(covering[0]!.metadata.name ?? '');
    throw err;
  }
  return success;
}

/**
 * Brings the budget's status up to date and takes one disruption from it. Answers true
 * when the pod goes without taking one (it is not ready and the budget is met), in which
 * case the deletion must be pinned to the pod's resourceVersion.
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
      if (isConflict(err) && attempt < maxAttempts) {
        const fresh = await budgets.find(namespace, pdbName);
        if (fresh === undefined) throw budgetBusy(pdbName);
        pdb = fresh;
        continue;
      }
      if (isConflict(err)) throw new StatusError(504, 'Timeout', `couldn't update PodDisruptionBudget "${pdbName}" due to conflicts`, { retryAfterSeconds: 10 }, { 'Retry-After': '10' });
      throw err;
    }
    if (refusal !== undefined) throw refusal;
    return unhealthyGoesFree;
  }
}
