// The namespace controller: empties a terminating namespace, then removes it.
import { isStatusError, type KubeObject } from '../api/index.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer, type ReconcileResult } from './runtime/index.ts';

/** How long to wait before looking again at a namespace whose contents are not gone yet (finalizers). */
const pollMs = 1000;
/** Namespaces emptied at the same time, as kube-controller-manager's --concurrent-namespace-syncs. */
const workers = 10;

/**
 * Upstream's namespace controller, in-process: when a namespace is being deleted it
 * deletes everything in it, and once nothing is left it empties the namespace's
 * spec.finalizers through /finalize, which lets the Store remove the namespace.
 * It uses the same Store API clients use (deletecollection, update).
 */
export class NamespaceController {
  private readonly registry: ResourceRegistry;
  private readonly namespaces: Store;
  private readonly controller: Controller;

  constructor(registry: ResourceRegistry, namespaces: Store, log: (message: string) => void) {
    this.registry = registry;
    this.namespaces = namespaces;
    const informer = new Informer({ source: namespaces, resource: 'namespaces', log });
    this.controller = new Controller({ name: 'namespace', informers: [informer], workers, reconcile: (name) => this.reconcile(name), log });
    const enqueueIfDeleting = (ns: KubeObject) => {
      if (ns.metadata.deletionTimestamp !== undefined) this.controller.queue.add(ns.metadata.name!);
    };
    informer.addHandlers({ add: enqueueIfDeleting, update: (_, ns) => enqueueIfDeleting(ns) });
  }

  async start(): Promise<void> {
    await this.controller.start();
  }

  close(): Promise<void> {
    return this.controller.stop();
  }

  /**
   * Deletes the namespace's contents; looks again later while some are left. Each pass says
   * in the namespace's status conditions what it found, as upstream's namespaced resources
   * deleter does: resources and finalizers remaining, deletions that failed.
   */
  private async reconcile(name: string): Promise<ReconcileResult> {
    const namespace = await this.namespaces.find('', name);
    if (namespace === undefined || namespace.metadata.deletionTimestamp === undefined) return;
    const remaining = new Map<string, number>();
    const finalizers = new Map<string, number>();
    const failures: string[] = [];
    const seen = new Set<string>();
    for (const { type, store } of this.registry.all()) {
      if (!type.namespaced || !type.verbs.includes('deletecollection')) continue;
      // Each group's resource once (discovery's preferred version), as upstream's deleter lists them.
      const resource = `${type.resource}.${type.group}`;
      if (seen.has(resource)) continue;
      seen.add(resource);
      try {
        // Background, as upstream's namespaced-resources deleter: owners go at once, the collector takes their dependents.
        await store.deleteCollection(name, undefined, { propagationPolicy: 'Background' });
        const left = (await store.list(name)).items;
        if (left.length > 0) remaining.set(resource, left.length);
        for (const { object } of left) for (const finalizer of object.metadata.finalizers ?? []) finalizers.set(finalizer, (finalizers.get(finalizer) ?? 0) + 1);
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
    await this.reportConditions(name, deletionConditions(remaining, finalizers, failures));
    if (failures.length > 0) throw new Error(`failed to delete the content of namespace ${name}: ${failures.join(', ')}`);
    if (remaining.size > 0) return { requeueAfterMs: pollMs };
    try {
      await this.namespaces.guaranteedUpdate('', name, undefined, {}, (current) => withoutKubernetesFinalizer(current!), { subresource: 'finalize' });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return;
      throw err;
    }
  }

  /** Writes the conditions through /status when one changed (upstream's updateConditions); a namespace gone meanwhile is left. */
  private async reportConditions(name: string, conditions: readonly NamespaceCondition[]): Promise<void> {
    const current = await this.namespaces.find('', name);
    if (current === undefined || !mergeConditions(current, conditions).changed) return;
    try {
      await this.namespaces.guaranteedUpdate('', name, undefined, {}, (ns) => mergeConditions(ns!, conditions).namespace, { subresource: 'status' });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return;
      throw err;
    }
  }
}

interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The conditions upstream's namespace deleter keeps, and what each says when all is well. */
const conditionTypes: ReadonlyArray<readonly [type: string, reason: string, message: string]> = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];

/** What a pass found, as upstream's condition updater words it (its lists sorted, for stable updates). */
function deletionConditions(remaining: ReadonlyMap<string, number>, finalizers: ReadonlyMap<string, number>, failures: readonly string[]): NamespaceCondition[] {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const failing = new Map<string, [string, string]>();
  if (failures.length > 0) {
    failing.set('NamespaceDeletionContentFailure', ['ContentDeletionFailed', `Failed to delete all resource types, ${failures.length} remaining: ${[...failures].sort().join(', ')}`]);
  }
  if (remaining.size > 0) {
    const counts = [...remaining].map(([resource, n]) => `${resource} has ${n} resource instances`).sort();
    failing.set('NamespaceContentRemaining', ['SomeResourcesRemain', `Some resources are remaining: ${counts.join(', ')}`]);
  }
  if (finalizers.size > 0) {
    const counts = [...finalizers].map(([finalizer, n]) => `${finalizer} in ${n} resource instances`).sort();
    failing.set('NamespaceFinalizersRemaining', ['SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${counts.join(', ')}`]);
  }
  return conditionTypes.map(([type, okReason, okMessage]) => {
    const failed = failing.get(type);
    return { type, status: failed === undefined ? 'False' : 'True', lastTransitionTime: now, reason: failed?.[0] ?? okReason, message: failed?.[1] ?? okMessage };
  });
}

/**
 * The namespace with these conditions: one of a type it lacks is added, one whose status,
 * reason or message differ replaces its fields (its transition time only when the status
 * changes), others stay as they are.
 */
function mergeConditions(ns: KubeObject, conditions: readonly NamespaceCondition[]): { namespace: KubeObject; changed: boolean } {
  const status = (ns.status ?? {}) as { conditions?: NamespaceCondition[] };
  const merged = [...(status.conditions ?? [])];
  let changed = false;
  for (const condition of conditions) {
    const at = merged.findIndex((c) => c.type === condition.type);
    if (at < 0) {
      merged.push(condition);
      changed = true;
      continue;
    }
    const old = merged[at]!;
    if (old.status === condition.status && old.reason === condition.reason && old.message === condition.message) continue;
    merged[at] = { ...old, status: condition.status, reason: condition.reason, message: condition.message, lastTransitionTime: old.status === condition.status ? old.lastTransitionTime : condition.lastTransitionTime };
    changed = true;
  }
  return { namespace: { ...ns, status: { ...status, conditions: merged } }, changed };
}

function withoutKubernetesFinalizer(ns: KubeObject): KubeObject {
  const spec = (ns.spec ?? {}) as { finalizers?: string[] };
  return { ...ns, spec: { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== 'kubernetes') } };
}
