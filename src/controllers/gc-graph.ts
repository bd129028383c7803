// The garbage collector's dependency graph (upstream's GraphBuilder): objects by uid with
// their owners and dependents, kept from informer events, deciding which objects the
// collector must look at. Pure bookkeeping: no I/O, so that it is tested with plain data.

import type { KubeObject, OwnerReference } from '../api/index.ts';

export const orphanFinalizer = 'orphan';
export const foregroundFinalizer = 'foregroundDeletion';

/** Where an object is: what an owner reference names, plus the namespace. */
export interface Identity {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string;
  uid: string;
}

/**
 * Most objects own nothing and are owned by nothing: they share these rather than holding
 * an empty array and an empty Set each (~130 B of every cached object's heap).
 */
const noOwners: readonly OwnerReference[] = Object.freeze([]);
const noDependents: ReadonlySet<GraphNode> = new Set();

export class GraphNode {
  identity: Identity;
  /** Seen through an informer; a node only referred to by dependents is virtual until then. */
  observed: boolean;
  owners: readonly OwnerReference[] = noOwners;
  #dependents: Set<GraphNode> | undefined;
  beingDeleted = false;
  /** Being deleted in foreground: waiting for its blocking dependents to go. */
  deletingDependents = false;

  constructor(identity: Identity, observed: boolean) {
    this.identity = identity;
    this.observed = observed;
  }

  get dependents(): ReadonlySet<GraphNode> {
    return this.#dependents ?? noDependents;
  }

  addDependent(node: GraphNode): void {
    (this.#dependents ??= new Set()).add(node);
  }

  removeDependent(node: GraphNode): void {
    if (this.#dependents?.delete(node) === true && this.#dependents.size === 0) this.#dependents = undefined;
  }

  /** Dependents whose reference to this node has blockOwnerDeletion. */
  blockingDependents(): GraphNode[] {
    const uid = this.identity.uid;
    return [...this.dependents].filter((dep) => dep.owners.some((ref) => ref.uid === uid && ref.blockOwnerDeletion === true));
  }
}

/** What the graph asks of the collector; called synchronously, they only queue work. */
export interface GraphActions {
  /** Look at whether the node must be deleted (or, deleting in foreground, whether it may go). */
  attemptToDelete(node: GraphNode): void;
  /** Remove the node's references from its dependents, then its orphan finalizer. */
  attemptToOrphan(node: GraphNode): void;
  /** A dependent refers to an owner in another namespace (upstream's OwnerRefInvalidNamespace event). */
  invalidNamespace(dependent: GraphNode, ref: OwnerReference): void;
}

function hasFinalizer(object: KubeObject | undefined, finalizer: string): boolean {
  return (object?.metadata.finalizers ?? []).includes(finalizer);
}

function beingDeleted(object: KubeObject | undefined): boolean {
  return object?.metadata.deletionTimestamp !== undefined;
}

/** The object entered deletion holding `finalizer` with this event (or was first seen so). */
function deletionStartsWith(old: KubeObject | undefined, current: KubeObject, finalizer: string): boolean {
  if (!beingDeleted(current) || !hasFinalizer(current, finalizer)) return false;
  return old === undefined || !beingDeleted(old) || !hasFinalizer(old, finalizer);
}

function sameReference(a: OwnerReference, b: OwnerReference): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name
    && a.controller === b.controller && a.blockOwnerDeletion === b.blockOwnerDeletion;
}

export class DependencyGraph {
  readonly #nodes = new Map<string, GraphNode>();
  readonly #actions: GraphActions;

  constructor(actions: GraphActions) {
    this.#actions = actions;
  }

  get size(): number {
    return this.#nodes.size;
  }

  get(uid: string): GraphNode | undefined {
    return this.#nodes.get(uid);
  }

  /** An object added or changed, as an informer saw it; `old` is its previous state, if seen. */
  observe(object: KubeObject, apiVersion: string, kind: string, old?: KubeObject): void {
    const meta = object.metadata;
    const uid = meta.uid ?? '';
    if (uid === '') return;
    const identity: Identity = { apiVersion, kind, name: meta.name ?? '', namespace: meta.namespace ?? '', uid };
    const refs = meta.ownerReferences;
    const owners = refs === undefined || refs.length === 0 ? noOwners : refs.filter((ref) => typeof ref?.uid === 'string' && ref.uid !== '');
    let node = this.#nodes.get(uid);
    if (node !== undefined && !node.observed) this.#markObserved(node, identity);
    if (node === undefined) {
      node = new GraphNode(identity, true);
      node.owners = owners;
      node.beingDeleted = beingDeleted(object);
      node.deletingDependents = node.beingDeleted && hasFinalizer(object, foregroundFinalizer);
      this.#nodes.set(uid, node);
      this.#addToOwners(node, owners);
    } else {
      node.identity = identity;
      const { added, removed, unblocked } = diffReferences(node.owners, owners);
      // An owner deleting in foreground may have been waiting for this reference only.
      for (const ref of [...removed.filter((r) => r.blockOwnerDeletion === true), ...unblocked]) {
        const owner = this.#nodes.get(ref.uid);
        if (owner !== undefined) this.#actions.attemptToDelete(owner);
      }
      // Other changes (a new name, the controller flag) only refresh the node's copy.
      node.owners = owners;
      this.#addToOwners(node, added);
      for (const ref of removed) this.#nodes.get(ref.uid)?.removeDependent(node);
      if (beingDeleted(object)) node.beingDeleted = true;
    }
    this.#transitions(node, object, old);
  }

  /** An object deleted, as an informer saw it. */
  observeDeleted(object: KubeObject): void {
    const node = this.#nodes.get(object.metadata.uid ?? '');
    if (node !== undefined) this.#remove(node);
  }

  /**
   * The collector found no object (or one with another uid) where a node says one is:
   * a virtual node goes, its dependents are looked at again. An observed node stays
   * (its informer tells when it goes).
   */
  virtualDelete(identity: Identity): void {
    const node = this.#nodes.get(identity.uid);
    if (node === undefined || node.observed) return;
    this.#remove(node);
  }

  #remove(node: GraphNode): void {
    this.#nodes.delete(node.identity.uid);
    for (const ref of node.owners) this.#nodes.get(ref.uid)?.removeDependent(node);
    for (const dep of node.dependents) this.#actions.attemptToDelete(dep);
    for (const ref of node.owners) {
      const owner = this.#nodes.get(ref.uid);
      if (owner?.deletingDependents === true) this.#actions.attemptToDelete(owner);
    }
  }

  #markObserved(node: GraphNode, identity: Identity): void {
    node.observed = true;
    // Dependents that named this owner from another namespace were wrong (bad child seen before its good parent).
    if (identity.namespace !== '') {
      for (const dep of node.dependents) {
        if (dep.identity.namespace === identity.namespace) continue;
        const ref = dep.owners.find((r) => r.uid === identity.uid);
        if (ref !== undefined) this.#actions.invalidNamespace(dep, ref);
        this.#actions.attemptToDelete(dep);
      }
    }
  }

  /** Links `node` under each owner, making virtual nodes for owners not seen yet (the collector checks they exist). */
  #addToOwners(node: GraphNode, refs: readonly OwnerReference[]): void {
    let suspicious = false;
    for (const ref of refs) {
      let owner = this.#nodes.get(ref.uid);
      if (owner === undefined) {
        owner = new GraphNode({ apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, namespace: node.identity.namespace, uid: ref.uid }, false);
        this.#nodes.set(ref.uid, owner);
        owner.addDependent(node);
        this.#actions.attemptToDelete(owner);
        continue;
      }
      owner.addDependent(node);
      const ownerNamespace = owner.identity.namespace;
      if (ownerNamespace !== '' && ownerNamespace !== node.identity.namespace) {
        if (owner.observed) this.#actions.invalidNamespace(node, ref);
        suspicious = true;
      } else if (ownerNamespace === '' && node.identity.namespace !== '' && !owner.observed) {
        // A virtual cluster-scoped owner may be a namespaced one named from a cluster-scoped dependent.
        suspicious = true;
      }
    }
    if (suspicious) this.#actions.attemptToDelete(node);
  }

  #transitions(node: GraphNode, object: KubeObject, old: KubeObject | undefined): void {
    if (deletionStartsWith(old, object, orphanFinalizer)) {
      this.#actions.attemptToOrphan(node);
      return;
    }
    if (deletionStartsWith(old, object, foregroundFinalizer)) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.#actions.attemptToDelete(dep);
      this.#actions.attemptToDelete(node);
    }
  }
}

/** What changed between two lists of owner references, by uid; `unblocked` lost blockOwnerDeletion. */
export function diffReferences(old: readonly OwnerReference[], current: readonly OwnerReference[]): { added: OwnerReference[]; removed: OwnerReference[]; unblocked: OwnerReference[] } {
  const oldByUid = new Map(old.map((ref) => [ref.uid, ref]));
  const added: OwnerReference[] = [];
  const unblocked: OwnerReference[] = [];
  for (const ref of current) {
    const before = oldByUid.get(ref.uid);
    if (before === undefined) {
      added.push(ref);
      continue;
    }
    oldByUid.delete(ref.uid);
    if (!sameReference(before, ref) && before.blockOwnerDeletion === true && ref.blockOwnerDeletion !== true) unblocked.push(ref);
  }
  return { added, removed: [...oldByUid.values()], unblocked };
}
