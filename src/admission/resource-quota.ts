// ResourceQuota admission: a new object must fit every quota of its namespace that
// counts it, and so must an update's growth (a pod's resize, a service's new type, a
// claim's larger request); the quotas' status.used is charged before the object is stored.

import { isStatusError, type KubeObject } from '../api/index.ts';
import { clone } from '../api/json.ts';
import { unless, type AdmissionAttributes, type AdmissionPlugin } from './chain.ts';
import { admissionForbidden } from './forbidden.ts';
import { resourceList, type ResourceList } from './pod-resources.ts';
import {
  addLists, computeQuotaStatus, evaluatorFor, exceeding, maskList, negativeNames, prettyPrint, quotaMatches, scopesOf, specOf, statusOf,
  subtractNonNegative, toWire, updateEvaluatorFor, withoutZeros, type Evaluator, type GroupResource,
} from './quota-usage.ts';

export interface QuotaAccess {
  /** The ResourceQuotas of a namespace, as stored now. */
  list(namespace: string): Promise<KubeObject[]>;
  /**
   * True when it is known at once, as consistently as `list`, that the namespace has no
   * ResourceQuota (most namespaces): the write is then not the plugin's concern.
   */
  noneNow?(namespace: string): boolean;
  /** Writes a quota's status; throws a 409 StatusError when the quota changed since it was read. */
  updateStatus(quota: KubeObject): Promise<void>;
  /** A namespace's objects of a resource, for counting a quota's usage afresh. */
  objects(gr: GroupResource, namespace: string): Promise<KubeObject[]>;
}

/**
 * Resources quota admission never looks at (pkg/quota/v1/install's ignoredResources): virtual
 * resources that are not stored, and events.
 */
const ignored = new Set([
  '/bindings', '/componentstatuses', 'authentication.k8s.io/tokenreviews', 'authentication.k8s.io/selfsubjectreviews',
  'authorization.k8s.io/subjectaccessreviews', 'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/localsubjectaccessreviews', 'authorization.k8s.io/selfsubjectrulesreviews',
  '/events', 'events.k8s.io/events',
]);

/** How many times the quota check reads the quotas again after a concurrent status change. */
const maxAttempts = 10;

/** The quota's hard limits and usage as admission sees them; false `current` when status lags the spec. */
function quotaState(quota: KubeObject): { hard: ResourceList; used: ResourceList; current: boolean } {
  const hard = resourceList(specOf(quota).hard);
  const status = statusOf(quota);
  const statusHard = resourceList(status.hard);
  const used = resourceList(status.used);
  const current = hard.size === statusHard.size && [...hard.keys()].every((n) => statusHard.has(n) && used.has(n));
  return { hard, used, current };
}

/**
 * Upstream's CheckRequest: the quotas that match the object are charged its usage, or on
 * an update what it uses beyond the stored object (`old`; nothing is credited for what it
 * gives back, the quota controller counts that). Answers the quotas' new usage by name,
 * or throws the 403 upstream answers.
 */
export function checkRequest(
  attrs: Pick<AdmissionAttributes, 'resource' | 'name'> & Partial<Pick<AdmissionAttributes, 'group' | 'subresource'>>,
  evaluator: Evaluator,
  quotas: { name: string; hard: ResourceList; used: ResourceList; quota: KubeObject }[],
  obj: KubeObject,
  old: KubeObject | undefined,
  now: number,
): Map<string, ResourceList> {
  // admission.NewForbidden: the group-qualified resource, the object's name, details naming both.
  const deny = (message: string) => admissionForbidden({ ...attrs, group: attrs.group ?? '', object: obj } as AdmissionAttributes, message);
  const interesting: typeof quotas = [];
  for (const q of quotas) {
    const hardNames = [...q.hard.keys()];
    if (!quotaMatches(evaluator, hardNames, scopesOf(q.quota), obj)) continue;
    const restricted = evaluator.matchingResources(hardNames);
    const problem = evaluator.constraints?.(restricted, obj);
    if (problem !== undefined) throw deny(`failed quota: ${q.name}: ${problem}`);
    interesting.push(q);
  }
  const result = new Map<string, ResourceList>();
  if (interesting.length === 0) return result;
  const usage = evaluator.usage(obj, now);
  const negative = negativeNames(usage);
  if (negative.length > 0) throw deny(`quota usage is negative for resource(s): ${negative.join(',')}`);
  // An update is charged its growth by the quotas that counted the stored object; one that did not counts it whole.
  const grown = old?.metadata.resourceVersion ? subtractNonNegative(usage, evaluator.usage(old, now)) : undefined;
  for (const q of interesting) {
    const countedBefore = grown !== undefined && quotaMatches(evaluator, [...q.hard.keys()], scopesOf(q.quota), old!);
    const delta = withoutZeros(countedBefore ? grown : usage);
    if (delta.size === 0) continue;
    const requested = maskList(delta, q.hard.keys());
    const newUsage = addLists(q.used, requested);
    // A status update is charged, never refused: what a controller records has happened already.
    const over = attrs.subresource === 'status' ? [] : exceeding(maskList(newUsage, requested.keys()), q.hard);
    if (over.length > 0) {
      throw deny(`exceeded quota: ${q.name}, requested: ${prettyPrint(maskList(requested, over))}, used: ${prettyPrint(maskList(q.used, over))}, limited: ${prettyPrint(maskList(q.hard, over))}`);
    }
    result.set(q.name, newUsage);
  }
  return result;
}

/** Creates of objects, and the updates their evaluator says may change what they use. */
function handled(attrs: AdmissionAttributes): boolean {
  // The object is read last: an apply decodes what it wrote only when a plugin reads it
  // (Store.applyOffloaded), and most updates are not charged.
  if (!attrs.namespaced || attrs.namespace === '' || ignored.has(`${attrs.group}/${attrs.resource}`)) return false;
  if (attrs.operation === 'CREATE') return attrs.subresource === '' && attrs.object !== undefined;
  if (attrs.operation !== 'UPDATE') return false;
  const evaluator = updateEvaluatorFor({ group: attrs.group, resource: attrs.resource });
  if (evaluator === undefined || attrs.oldObject === undefined) return false;
  const object = attrs.object;
  return object !== undefined && evaluator.handlesUpdate!(attrs.subresource, object, attrs.oldObject);
}

/**
 * Upstream's ResourceQuota plugin (apiserver's admission/plugin/resourcequota), for
 * creates and the updates that can use more: each quota that counts the object must have
 * room for it, and its status.used is charged before the object is stored (a concurrent
 * charge makes the status write conflict, and the check runs again). A quota whose status does not yet
 * cover its spec (just made, the controller has not counted yet) is counted here first,
 * where upstream would refuse with "status unknown". Dry runs check but charge nothing.
 */
export function resourceQuotaAdmission(access: QuotaAccess, now: () => number = Date.now): AdmissionPlugin {
  return {
    name: 'ResourceQuota',
    validate: unless((attrs) => !handled(attrs) || access.noneNow?.(attrs.namespace) === true, async (attrs) => {
      const evaluator = evaluatorFor({ group: attrs.group, resource: attrs.resource });
      const obj = attrs.object!;
      // Quotas already charged are not checked again when a later one's write conflicted (upstream retries only those).
      const written = new Set<string>();
      for (let attempt = 1; ; attempt++) {
        const stored = (await access.list(attrs.namespace))
          .filter((q) => !written.has(q.metadata.name!))
          .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : 1));
        if (stored.length === 0) return;
        const quotas = [];
        for (const quota of stored) {
          let state = quotaState(quota);
          let fresh = quota;
          if (!state.current) {
            fresh = clone(quota);
            fresh.status = await computeQuotaStatus(quota, (gr) => access.objects(gr, attrs.namespace), now());
            state = quotaState(fresh);
          }
          quotas.push({ name: quota.metadata.name!, hard: state.hard, used: state.used, quota: fresh, recounted: fresh !== quota });
        }
        const charged = checkRequest(attrs, evaluator, quotas, obj, attrs.oldObject, now());
        if (attrs.dryRun) return;
        try {
          for (const q of quotas) {
            const used = charged.get(q.name);
            if (used === undefined && !q.recounted) continue;
            const next = clone(q.quota);
            next.status = { ...statusOf(q.quota), used: toWire(used ?? q.used) };
            await access.updateStatus(next);
            written.add(q.name);
          }
          return;
        } catch (err) {
          if (!(isStatusError(err) && err.code === 409) || attempt >= maxAttempts) throw err;
        }
      }
    }),
  };
}
