import { isStatusError, type KubeObject } from '../api/index.ts';
import type { CacheWatcher } from '../cache/index.ts';
import type { Store } from '../registry/store.ts';

/** The account every namespace has. */
const defaultAccount = 'default';
/** How long to wait before trying again after a failed creation. */
const retryMs = 1000;

function isActive(ns: KubeObject): boolean {
  const phase = (ns.status as { phase?: string } | undefined)?.phase;
  return ns.metadata.deletionTimestamp === undefined && phase !== 'Terminating';
}

/**
 * Upstream's serviceaccounts controller, in-process: every active namespace has a
 * "default" ServiceAccount. It is made when a namespace appears (and for those existing
 * at start) and made again when deleted. Uses the Store API clients use.
 */
export class ServiceAccountController {
  private readonly namespaces: Store;
  private readonly accounts: Store;
  private readonly log: (message: string) => void;
  private readonly watchers: CacheWatcher[] = [];
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(namespaces: Store, accounts: Store, log: (message: string) => void) {
    this.namespaces = namespaces;
    this.accounts = accounts;
    this.log = log;
  }

  /** Starts watching; resolves once every namespace existing now has its account. */
  async start(): Promise<void> {
    const namespaceWatch = await this.namespaces.watch('', { resourceVersion: '', bookmarks: false });
    const accountWatch = await this.accounts.watch('', { resourceVersion: '', bookmarks: false });
    this.watchers.push(namespaceWatch, accountWatch);
    const existing = await this.namespaces.listAll();
    await Promise.all(existing.filter(isActive).map((ns) => this.ensure(ns.metadata.name!)));
    this.consume(namespaceWatch, (type, ns) => {
      if (type !== 'DELETED' && isActive(ns)) this.schedule(ns.metadata.name!, 0);
    });
    this.consume(accountWatch, (type, sa) => {
      if (type === 'DELETED' && sa.metadata.name === defaultAccount) this.schedule(sa.metadata.namespace!, 0);
    });
  }

  close(): void {
    this.closed = true;
    for (const w of this.watchers) w.close();
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  private consume(watcher: CacheWatcher, handle: (type: string, obj: KubeObject) => void): void {
    void (async () => {
      try {
        for await (const event of watcher) if (event.type !== 'BOOKMARK') handle(event.type, event.object);
      } catch (err) {
        if (!this.closed) this.log(`serviceaccount controller: watch ended: ${(err as Error).message}`);
      }
    })();
  }

  private schedule(namespace: string, delayMs: number): void {
    if (this.closed || this.pending.has(namespace)) return;
    this.pending.set(namespace, setTimeout(() => {
      this.pending.delete(namespace);
      this.ensure(namespace).catch((err: unknown) => {
        this.log(`serviceaccount controller: ${namespace}/${defaultAccount}: ${(err as Error).message}`);
        this.schedule(namespace, retryMs);
      });
    }, delayMs));
  }

  /** Creates the namespace's default account unless it exists or the namespace is gone or terminating. */
  private async ensure(namespace: string): Promise<void> {
    if (this.closed) return;
    if ((await this.accounts.find(namespace, defaultAccount)) !== undefined) return;
    const ns = await this.namespaces.find('', namespace);
    if (ns === undefined || !isActive(ns)) return;
    try {
      await this.accounts.create(namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: defaultAccount } });
    } catch (err) {
      // Already made, or the namespace began terminating meanwhile (NamespaceLifecycle refuses): nothing to do.
      if (isStatusError(err) && (err.reason === 'AlreadyExists' || err.code === 403 || err.code === 404)) return;
      throw err;
    }
  }
}
