import { isStatusError, type KubeObject } from '../api/index.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';

/** How long to wait before looking again at a namespace whose contents are not gone yet (finalizers). */
const retryMs = 1000;

/**
 * Upstream's namespace controller, in-process: when a namespace is being deleted it
 * deletes everything in it, and once nothing is left it empties the namespace's
 * spec.finalizers through /finalize, which lets the Store remove the namespace.
 * It uses the same Store API clients use (watch, deletecollection, update).
 */
export class NamespaceController {
  private readonly registry: ResourceRegistry;
  private readonly namespaces: Store;
  private readonly log: (message: string) => void;
  private readonly pending = new Map<string, ReturnType<typeof setTimeout> | undefined>();
  private stopWatch: (() => void) | undefined;
  private closed = false;

  constructor(registry: ResourceRegistry, namespaces: Store, log: (message: string) => void) {
    this.registry = registry;
    this.namespaces = namespaces;
    this.log = log;
  }

  async start(): Promise<void> {
    const watcher = await this.namespaces.watch('', { resourceVersion: '', bookmarks: false });
    this.stopWatch = () => watcher.close();
    void (async () => {
      try {
        for await (const event of watcher) {
          if (event.type !== 'BOOKMARK' && event.object.metadata.deletionTimestamp !== undefined) this.schedule(event.object.metadata.name!, 0);
        }
      } catch (err) {
        if (!this.closed) this.log(`namespace controller: watch ended: ${(err as Error).message}`);
      }
    })();
  }

  close(): void {
    this.closed = true;
    this.stopWatch?.();
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  private schedule(name: string, delayMs: number): void {
    if (this.closed || this.pending.has(name)) return;
    this.pending.set(name, setTimeout(() => {
      this.pending.delete(name);
      this.finalize(name).then(
        (done) => { if (!done) this.schedule(name, retryMs); },
        (err: unknown) => {
          this.log(`namespace controller: finalizing ${name}: ${(err as Error).message}`);
          this.schedule(name, retryMs);
        },
      );
    }, delayMs));
  }

  /** Deletes the namespace's contents; answers true once the namespace could be released. */
  private async finalize(name: string): Promise<boolean> {
    const namespace = await this.namespaces.find('', name);
    if (namespace === undefined || namespace.metadata.deletionTimestamp === undefined) return true;
    let remaining = 0;
    for (const { type, store } of this.registry.all()) {
      if (!type.namespaced || !type.verbs.includes('deletecollection')) continue;
      await store.deleteCollection(name, undefined, {});
      remaining += (await store.list(name)).items.length;
    }
    if (remaining > 0) return false;
    try {
      await this.namespaces.guaranteedUpdate('', name, undefined, {}, (current) => withoutKubernetesFinalizer(current!), { subresource: 'finalize' });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return true;
      throw err;
    }
    return true;
  }
}

function withoutKubernetesFinalizer(ns: KubeObject): KubeObject {
  const spec = (ns.spec ?? {}) as { finalizers?: string[] };
  return { ...ns, spec: { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== 'kubernetes') } };
}
