// A PodDisruptionBudget's status computed from the pods it selects, as upstream's
// disruption controller computes it (pkg/controller/disruption/disruption.go). Plinth
// runs no such controller: the eviction path computes the status when it needs it.

import type { KubeObject } from '../api/index.ts';
import { isObject } from '../api/json.ts';
import { labelSelectorFromObject, matchLabels, type LabelSelector, type LabelSelectorObject } from '../api/labels.ts';
import { rfc3339Seconds } from '../api/time.ts';

/** How long an eviction's pod stays out of the healthy count while its deletion is not seen (DeletionTimeout). */
export const deletionTimeoutMs = 2 * 60 * 1000;

type Json = Record<string, unknown>;

function conditionsOf(obj: unknown): Json[] {
  const conditions = isObject(obj) ? obj.conditions : undefined;
  return Array.isArray(conditions) ? conditions.filter(isObject) : [];
}

/** apipod.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: KubeObject): boolean {
  return conditionsOf(pod.status).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * The selector of a budget for eviction: undefined when it selects no pod (no selector,
 * an empty one, or one that does not parse), as upstream's eviction path treats them.
 */
export function budgetSelector(pdb: KubeObject): LabelSelector | undefined {
  const spec = isObject(pdb.spec) ? pdb.spec : {};
  if (!isObject(spec.selector)) return undefined;
  let selector: LabelSelector;
  try {
    selector = labelSelectorFromObject(spec.selector as LabelSelectorObject);
  } catch {
    return undefined;
  }
  if (selector.matchesNothing || selector.requirements.length === 0) return undefined;
  return selector;
}

export function budgetCovers(pdb: KubeObject, pod: KubeObject): boolean {
  const selector = budgetSelector(pdb);
  return selector !== undefined && matchLabels(selector, pod.metadata.labels ?? {});
}

/** intstr.GetScaledValueFromIntOrPercent, rounding up. */
function scaled(value: unknown, total: number): number {
  if (typeof value === 'number') return value;
  const percent = Number(String(value).replace(/%$/, ''));
  return Number.isFinite(percent) ? Math.ceil((percent * total) / 100) : 0;
}

function timeMs(v: unknown): number | undefined {
  const ms = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function rfc3339(ms: number): string {
  return rfc3339Seconds(ms);
}

/** meta.SetStatusCondition for the DisruptionAllowed condition (pdbhelper.UpdateDisruptionAllowedCondition). */
export function withDisruptionAllowedCondition(status: Json, observedGeneration: number, nowMs: number): Json {
  const allowed = typeof status.disruptionsAllowed === 'number' && status.disruptionsAllowed > 0;
  const next: Json = {
    type: 'DisruptionAllowed',
    status: allowed ? 'True' : 'False',
    observedGeneration,
    lastTransitionTime: rfc3339(nowMs),
    reason: allowed ? 'SufficientPods' : 'InsufficientPods',
    message: '',
  };
  const conditions = conditionsOf(status).map((c) => ({ ...c }));
  const i = conditions.findIndex((c) => c.type === 'DisruptionAllowed');
  if (i < 0) conditions.push(next);
  else conditions[i] = { ...next, lastTransitionTime: conditions[i]!.status === next.status ? conditions[i]!.lastTransitionTime : next.lastTransitionTime };
  return { ...status, conditions };
}

/**
 * The status the disruption controller would write for `pdb` given the pods it selects
 * (`pods` already filtered by its selector).
 *
 * For percentages and maxUnavailable upstream expects as many pods as the pods'
 * controllers want (their scale), which evictions do not lower. Plinth has no workload
 * controllers: it expects the selected pods plus those evicted in the last DeletionTimeout
 * (kept in disruptedPods), as if a controller were bringing them back. minAvailable as a
 * number expects the selected pods, as upstream.
 */
export function disruptionStatus(pdb: KubeObject, pods: KubeObject[], nowMs: number): Json {
  const spec = isObject(pdb.spec) ? pdb.spec : {};
  const old = isObject(pdb.status) ? pdb.status : {};
  const generation = pdb.metadata.generation ?? 0;

  // Evictions allowed in the last DeletionTimeout stay recorded, except for pods being deleted.
  const recorded = isObject(old.disruptedPods) ? old.disruptedPods : {};
  const byName = new Map(pods.map((pod) => [pod.metadata.name ?? '', pod]));
  const disruptedPods: Json = {};
  let evictedGone = 0;
  for (const [name, value] of Object.entries(recorded)) {
    const at = timeMs(value);
    if (at === undefined || at + deletionTimeoutMs <= nowMs) continue;
    const pod = byName.get(name);
    if (pod !== undefined && pod.metadata.deletionTimestamp !== undefined) continue;
    disruptedPods[name] = value;
    if (pod === undefined) evictedGone++;
  }

  let desiredHealthy = 0;
  let expected = 0;
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    expected = pods.length + evictedGone;
    desiredHealthy = Math.max(0, expected - scaled(spec.maxUnavailable, expected));
  } else if (spec.minAvailable !== undefined && spec.minAvailable !== null) {
    const percent = typeof spec.minAvailable === 'string';
    expected = percent ? pods.length + evictedGone : pods.length;
    desiredHealthy = scaled(spec.minAvailable, expected);
  }
  const currentHealthy = pods.filter((pod) =>
    pod.metadata.deletionTimestamp === undefined && !(pod.metadata.name! in disruptedPods) && isPodReady(pod)).length;

  let disruptionsAllowed = currentHealthy - desiredHealthy;
  // A budget counting no pods is kept safe until it does (upstream's updatePdbStatus).
  if (expected <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
  const status: Json = { observedGeneration: generation, disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods: expected };
  if (Object.keys(disruptedPods).length > 0) status.disruptedPods = disruptedPods;
  if (old.conditions !== undefined) status.conditions = old.conditions;
  return withDisruptionAllowedCondition(status, generation, nowMs);
}
