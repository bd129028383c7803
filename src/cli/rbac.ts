// RBAC wiring: the authorizer's source kept by informers on the registry's rbac Stores, and
// the bootstrap policy reconciled at start.
import { isStatusError, type KubeObject } from '../api/index.ts';
import { bootstrapPolicy, reconcileClusterRole, reconcileClusterRoleBinding, type Reconciliation } from '../auth/bootstrap-policy.ts';
import { subjectIndexKeys, type RbacSource } from '../auth/rbac.ts';
import { Informer } from '../controllers/runtime/index.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';

const group = 'rbac.authorization.k8s.io';

export interface RbacStores {
  roles: Store;
  roleBindings: Store;
  clusterRoles: Store;
  clusterRoleBindings: Store;
}

export function rbacStores(registry: ResourceRegistry): RbacStores {
  const store = (resource: string) => registry.lookup(group, 'v1', resource)!.store;
  return { roles: store('roles'), roleBindings: store('rolebindings'), clusterRoles: store('clusterroles'), clusterRoleBindings: store('clusterrolebindings') };
}

/**
 * The RBAC objects as informers hold them, bindings indexed by the subjects they name
 * (a RoleBinding under "<namespace>|<subject key>"): what the authorizer reads.
 */
export class RbacInformers implements RbacSource {
  readonly #roles: Informer;
  readonly #roleBindings: Informer;
  readonly #clusterRoles: Informer;
  readonly #clusterRoleBindings: Informer;

  constructor(stores: RbacStores, log: (message: string) => void) {
    this.#roles = new Informer({ source: stores.roles, resource: 'roles', log });
    this.#clusterRoles = new Informer({ source: stores.clusterRoles, resource: 'clusterroles', log });
    this.#roleBindings = new Informer({
      source: stores.roleBindings, resource: 'rolebindings', log,
      indexers: { subject: (binding) => subjectIndexKeys(binding).map((key) => `${binding.metadata.namespace}|${key}`) },
    });
    this.#clusterRoleBindings = new Informer({ source: stores.clusterRoleBindings, resource: 'clusterrolebindings', log, indexers: { subject: subjectIndexKeys } });
  }

  /** Resolves once every informer holds its first list: the authorizer is then current. */
  async start(): Promise<void> {
    await Promise.all([this.#roles, this.#roleBindings, this.#clusterRoles, this.#clusterRoleBindings].map((informer) => informer.start()));
  }

  async close(): Promise<void> {
    await Promise.all([this.#roles, this.#roleBindings, this.#clusterRoles, this.#clusterRoleBindings].map((informer) => informer.stop()));
  }

  clusterRoleBindings(key: string): readonly KubeObject[] {
    return this.#clusterRoleBindings.store.byIndex('subject', key);
  }

  roleBindings(namespace: string, key: string): readonly KubeObject[] {
    return this.#roleBindings.store.byIndex('subject', `${namespace}|${key}`);
  }

  role(namespace: string, name: string): KubeObject | undefined {
    return this.#roles.store.get(`${namespace}/${name}`);
  }

  clusterRole(name: string): KubeObject | undefined {
    return this.#clusterRoles.store.get(name);
  }
}

/**
 * Creates the bootstrap ClusterRoles and ClusterRoleBindings that are missing and adds
 * what is missing to those that exist, as kube-apiserver's rbac/bootstrap-roles post-start
 * hook does. Writes go straight to the Stores (no request: no escalation check).
 */
export async function reconcileBootstrapPolicy(stores: RbacStores, log: (message: string) => void): Promise<void> {
  const policy = bootstrapPolicy();
  // What is stored, one list per type (from its watch cache, which the RBAC informers read
  // next) rather than a read of each of the ~130 objects.
  const [roles, bindings] = await Promise.all([byName(stores.clusterRoles), byName(stores.clusterRoleBindings)]);
  await Promise.all([
    ...policy.clusterRoles.map((role) => reconcileOne(stores.clusterRoles, role, roles, reconcileClusterRole, log)),
    ...policy.clusterRoleBindings.map((binding) => reconcileOne(stores.clusterRoleBindings, binding, bindings, reconcileClusterRoleBinding, log)),
  ]);
}

async function byName(store: Store): Promise<Map<string, KubeObject>> {
  return new Map((await store.listAll()).map((object) => [object.metadata.name!, object]));
}

async function reconcileOne(store: Store, expected: KubeObject, listed: Map<string, KubeObject>, reconcile: (existing: KubeObject, expected: KubeObject) => Reconciliation, log: (message: string) => void): Promise<void> {
  const name = expected.metadata.name!;
  // A concurrent writer (another replica, a client) makes us read again, from the storage.
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const existing = attempt === 0 ? listed.get(name) : await store.find('', name);
      if (existing === undefined) {
        await store.create('', expected);
        return;
      }
      const result = reconcile(existing, expected);
      if (result.operation === 'none') return;
      if (result.operation === 'update') {
        await store.update('', name, result.object);
      } else {
        await store.delete('', name, { preconditions: { uid: existing.metadata.uid! } });
        await store.create('', result.object);
      }
      log(`rbac: reconciled ${store.type.kind} ${name}`);
      return;
    } catch (err) {
      if (isStatusError(err) && (err.reason === 'Conflict' || err.reason === 'AlreadyExists' || err.reason === 'NotFound')) continue;
      throw err;
    }
  }
  log(`rbac: could not reconcile ${store.type.kind} ${name}: it kept changing`);
}
