// The ServiceAccount controller: every namespace has a `default` ServiceAccount.
import { isStatusError, type KubeObject } from '../api/index.ts';
import { parseFieldSelector } from '../api/fields.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer } from './runtime/index.ts';

/** The account every namespace has. */
const defaultAccount = 'default';

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
  private readonly controller: Controller;

  constructor(namespaces: Store, accounts: Store, log: (message: string) => void) {
    this.namespaces = namespaces;
    this.accounts = accounts;
    const namespaceInformer = new Informer({ source: namespaces, resource: 'namespaces', log });
    // Only the default accounts matter: the others need not be held.
    const accountInformer = new Informer({
      source: accounts, resource: 'serviceaccounts', filter: { fields: parseFieldSelector(`metadata.name=${defaultAccount}`) }, log,
    });
    this.controller = new Controller({
      name: 'serviceaccount', informers: [namespaceInformer, accountInformer], reconcile: (namespace) => this.ensure(namespace), log,
    });
    const enqueueIfActive = (ns: KubeObject) => {
      if (isActive(ns)) this.controller.queue.add(ns.metadata.name!);
    };
    namespaceInformer.addHandlers({ add: enqueueIfActive, update: (_, ns) => enqueueIfActive(ns) });
    accountInformer.addHandlers({ delete: (sa) => this.controller.queue.add(sa.metadata.namespace!) });
  }

  /** Starts watching; resolves once every namespace existing now has its account. */
  async start(): Promise<void> {
    await this.controller.start();
    await this.controller.idle();
  }

  close(): Promise<void> {
    return this.controller.stop();
  }

  /** Creates the namespace's default account unless it exists or the namespace is gone or terminating. */
  private async ensure(namespace: string): Promise<void> {
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
