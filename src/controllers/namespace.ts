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

  /** Deletes the namespace's contents; looks again later while some are left. */
  private async reconcile(name: string): Promise<ReconcileResult> {
    const namespace = await this.namespaces.find('', name);
    if (namespace === undefined || namespace.metadata.deletionTimestamp === undefined) return;
    let remaining = 0;
    for (const { type, store } of this.registry.all()) {
      if (!type.namespaced || !type.verbs.includes('deletecollection')) continue;
      // Background, as upstream's namespaced-resources deleter: owners go at once, the collector takes their dependents.
      await store.deleteCollection(name, undefined, { propagationPolicy: 'Background' });
      remaining += (await store.list(name)).items.length;
    }
    if (remaining > 0) return { requeueAfterMs: pollMs };
    try {
      await this.namespaces.guaranteedUpdate('', name, undefined, {}, (current) => withoutKubernetesFinalizer(current!), { subresource: 'finalize' });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return;
      throw err;
    }
  }
}

function withoutKubernetesFinalizer(ns: KubeObject): KubeObject {
  const spec = (ns.spec ?? {}) as { finalizers?: string[] };
  return { ...ns, spec: { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== 'kubernetes') } };
}
