// The garbage collector (kube-controller-manager's), in-process: deletes objects whose
// owners are all gone, and carries out orphan and foreground deletion of owners.
import { apiVersionOf, isStatusError, type KubeObject, type OwnerReference } from '../api/index.ts';
import type { ResourceRegistry, ServedResource } from '../registry/registry.ts';
import {
  DependencyGraph, foregroundFinalizer, orphanFinalizer, type GraphNode, type Identity,
} from './gc-graph.ts';
import { Controller, Informer, objectKey, type Clock } from './runtime/index.ts';

/** Objects looked at at the same time, as kube-controller-manager's --concurrent-gc-syncs. */
const workers = 20;

/** Not watched, as upstream's DefaultIgnoredResources: events are many and never own anything. */
const ignoredResources = new Set(['/events', 'events.k8s.io/events']);

export interface GarbageCollectorOptions {
  registry: ResourceRegistry;
  log: (message: string) => void;
  clock?: Clock;
}

/** One watched resource: the served resource and the informer following it. */
interface Monitor {
  served: ServedResource;
  informer: Informer;
  /** Started and listed once (its objects are in the graph). */
  synced: Promise<void>;
}

/** Work queue keys: what to do, and to which node (by uid). */
const deleteKey = 'delete/';
const orphanKey = 'orphan/';

function isGone(err: unknown): boolean {
  // Not found, or found with another uid (the uid precondition failed): either way the object we meant is gone.
  return isStatusError(err) && (err.code === 404 || err.code === 409 && /Precondition failed: UID/.test(err.message));
}

/**
 * Upstream's garbage collector over the registry: an informer on every served resource
 * that can be listed, watched and deleted (custom resources included, followed as they
 * come and go) feeds the dependency graph, which queues the objects to look at. Workers
 * read the live objects through the Stores and delete, update references and remove
 * finalizers through them, as clients would; nothing runs while nothing changes.
 */
export class GarbageCollector {
  readonly #registry: ResourceRegistry;
  readonly #log: (message: string) => void;
  readonly #clock: Clock | undefined;
  readonly #controller: Controller;
  readonly graph: DependencyGraph;
  /** By group/resource: one version of each is watched, the first served (the preferred one). */
  readonly #monitors = new Map<string, Monitor>();
  readonly #pending = new Set<Promise<unknown>>();
  #unsubscribe: (() => void) | undefined;
  #resyncing: Promise<void> = Promise.resolve();
  #closed = false;
  /** The last event name suffix given (unix nanoseconds), so that two events in one millisecond differ. */
  #lastEventNanos = 0n;

  constructor(opts: GarbageCollectorOptions) {
    this.#registry = opts.registry;
    this.#log = opts.log;
    this.#clock = opts.clock;
    this.#controller = new Controller({
      name: 'garbage collector',
      informers: [],
      workers,
      clock: opts.clock,
      reconcile: (key) => this.#process(key),
      log: opts.log,
    });
    const queue = this.#controller.queue;
    this.graph = new DependencyGraph({
      attemptToDelete: (node) => queue.add(deleteKey + node.identity.uid),
      attemptToOrphan: (node) => queue.add(orphanKey + node.identity.uid),
      invalidNamespace: (dependent, ref) => this.#track(this.#reportInvalidNamespace(dependent, ref)),
    });
  }

  /** Watches every resource, waits until the graph holds what they list, then starts working. */
  async start(): Promise<void> {
    this.#unsubscribe = this.#registry.onChange(() => {
      this.#resyncing = this.#resyncing.then(() => this.#resync()).catch((err: unknown) => this.#log(`garbage collector: ${(err as Error).message}`));
    });
    this.#resyncing = this.#resync();
    await this.#resyncing;
    await Promise.all([...this.#monitors.values()].map((m) => m.synced.catch(() => {})));
    if (this.#closed) return;
    await this.#controller.start();
  }

  /** Resolves once nothing is queued or being worked on (tests). */
  idle(): Promise<void> {
    return this.#controller.idle();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#unsubscribe?.();
    await this.#resyncing;
    await this.#controller.stop();
    await Promise.all([...this.#monitors.values()].map((m) => m.informer.stop()));
    this.#monitors.clear();
    await Promise.all(this.#pending);
  }

  #track(promise: Promise<unknown>): void {
    const tracked = promise.catch((err: unknown) => this.#log(`garbage collector: ${(err as Error).message}`)).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  /** Makes the monitors follow the served resources: new ones watched, gone ones dropped, replaced Stores followed anew. */
  async #resync(): Promise<void> {
    if (this.#closed) return;
    const wanted = new Map<string, ServedResource>();
    for (const served of this.#registry.all()) {
      const { type } = served;
      const key = `${type.group}/${type.resource}`;
      if (type.virtual || ignoredResources.has(key) || wanted.has(key)) continue;
      if (!['list', 'watch', 'delete'].every((verb) => (type.verbs as string[]).includes(verb))) continue;
      wanted.set(key, served);
    }
    for (const [key, monitor] of this.#monitors) {
      const next = wanted.get(key);
      if (next !== undefined && next.store === monitor.served.store) continue;
      this.#monitors.delete(key);
      await monitor.informer.stop();
      // A replaced Store (a CRD's versions changed): objects gone meanwhile are told by the new informer's list.
      if (next !== undefined) this.#watch(key, next, monitor.informer.store.list());
    }
    // One resource at a time, letting requests in between: starting every informer (and
    // loading every lazily loaded type) in one go would hold the event loop for a while
    // right after the server is ready.
    for (const [key, served] of wanted) {
      if (this.#closed) return;
      if (this.#monitors.has(key)) continue;
      this.#watch(key, served, []);
      // Not its first list: one resource that cannot be listed (a corrupt object) must not hold up the others.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  #watch(key: string, served: ServedResource, previous: KubeObject[]): void {
    const { type, store } = served;
    const apiVersion = apiVersionOf(type.group, type.version);
    // Metadata only, as upstream's metadata informers: the graph needs owners, uids and finalizers.
    const informer = new Informer({ source: store, resource: key, clock: this.#clock, log: this.#log, metadataOnly: true });
    informer.addHandlers({
      add: (object) => this.graph.observe(object, apiVersion, type.kind),
      update: (old, object) => this.graph.observe(object, apiVersion, type.kind, old),
      delete: (object) => this.graph.observeDeleted(object),
    });
    const synced = informer.start().then(() => {
      for (const object of previous) {
        if (informer.store.get(objectKey(object))?.metadata.uid !== object.metadata.uid) {
          this.graph.observeDeleted(object);
        }
      }
    });
    synced.catch(() => {});
    this.#monitors.set(key, { served, informer, synced });
  }

  async #process(key: string): Promise<void> {
    const uid = key.slice(key.indexOf('/') + 1);
    const node = this.graph.get(uid);
    if (node === undefined) return;
    if (key.startsWith(orphanKey)) return this.#attemptToOrphan(node);
    return this.#attemptToDelete(node);
  }

  /** The served resource of an apiVersion and kind: that version if served, else another version of the group. */
  #resourceFor(apiVersion: string, kind: string): ServedResource | undefined {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    let other: ServedResource | undefined;
    for (const served of this.#registry.all()) {
      if (served.type.group !== group || served.type.kind !== kind || served.type.virtual) continue;
      if (served.type.version === version) return served;
      other ??= served;
    }
    return other;
  }

  #served(identity: Identity): ServedResource {
    const served = this.#resourceFor(identity.apiVersion, identity.kind);
    // Retried with backoff: a custom resource may not be served yet.
    if (served === undefined) throw new Error(`unable to find the resource of ${identity.apiVersion}, Kind=${identity.kind}`);
    return served;
  }

  /** The live object a node stands for; undefined when absent or replaced by another with the same name. */
  async #live(identity: Identity): Promise<KubeObject | undefined> {
    const { type, store } = this.#served(identity);
    // A namespaced object named with no namespace cannot be found.
    if (type.namespaced && identity.namespace === '') return undefined;
    const object = await store.find(type.namespaced ? identity.namespace : '', identity.name);
    return object?.metadata.uid === identity.uid ? object : undefined;
  }

  /** Upstream's attemptToDeleteItem. */
  async #attemptToDelete(node: GraphNode): Promise<void> {
    if (node.observed && node.beingDeleted && !node.deletingDependents) return;
    const latest = await this.#live(node.identity);
    if (latest === undefined) {
      this.graph.virtualDelete(node.identity);
      return;
    }
    // A virtual node whose object exists: its informer will bring it.
    if (!node.observed) return;
    if (node.deletingDependents) return this.#processDeletingDependents(node);
    const refs = latest.metadata.ownerReferences ?? [];
    if (refs.length === 0) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const owner = await this.#owner(ref, node);
      if (owner === 'invalid') return; // a cluster-scoped object with a namespaced owner: left alone, as upstream
      if (owner === undefined) dangling.push(ref);
      else if (owner.metadata.deletionTimestamp !== undefined && (owner.metadata.finalizers ?? []).includes(foregroundFinalizer)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // References to owners waiting for their dependents would hold those owners forever.
      await this.#removeReferences(node, new Set([...dangling, ...waiting].map((ref) => ref.uid)));
      return;
    }
    if (waiting.length > 0 && node.dependents.size > 0) {
      // Its own dependents go first: delete it in foreground too. A dependent already
      // deleting in foreground could wait on it (a cycle): unblock its references first.
      if ([...node.dependents].some((dep) => dep.deletingDependents)) await this.#unblockReferences(node);
      await this.#delete(node, 'Foreground');
      return;
    }
    const finalizers = latest.metadata.finalizers ?? [];
    const policy = finalizers.includes(orphanFinalizer) ? 'Orphan' : finalizers.includes(foregroundFinalizer) ? 'Foreground' : 'Background';
    await this.#delete(node, policy);
  }

  /** The owner a reference names, looked up live; undefined when absent (by uid); 'invalid' for a namespaced owner of a cluster-scoped object. */
  async #owner(ref: OwnerReference, item: GraphNode): Promise<KubeObject | undefined | 'invalid'> {
    const { type, store } = this.#served({ ...ref, namespace: item.identity.namespace });
    if (type.namespaced && item.identity.namespace === '') return 'invalid';
    const owner = await store.find(type.namespaced ? item.identity.namespace : '', ref.name);
    return owner?.metadata.uid === ref.uid ? owner : undefined;
  }

  /** Upstream's processDeletingDependentsItem: the finalizer goes once no dependent blocks. */
  async #processDeletingDependents(node: GraphNode): Promise<void> {
    const blocking = node.blockingDependents();
    if (blocking.length === 0) {
      await this.#removeFinalizer(node, foregroundFinalizer);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.#controller.queue.add(deleteKey + dep.identity.uid);
  }

  /** Upstream's attemptToOrphan: every dependent loses its reference to the owner, then the owner its finalizer. */
  async #attemptToOrphan(owner: GraphNode): Promise<void> {
    const uids = new Set([owner.identity.uid]);
    const failures: string[] = [];
    await Promise.all([...owner.dependents].map(async (dep) => {
      try {
        await this.#removeReferences(dep, uids);
      } catch (err) {
        failures.push(`${dep.identity.kind} ${dep.identity.namespace}/${dep.identity.name}: ${(err as Error).message}`);
      }
    }));
    if (failures.length > 0) throw new Error(`failed to orphan dependents of ${describe(owner.identity)}: ${failures.join('; ')}`);
    await this.#removeFinalizer(owner, orphanFinalizer);
  }

  async #delete(node: GraphNode, propagationPolicy: string): Promise<void> {
    const { type, store } = this.#served(node.identity);
    try {
      await store.delete(type.namespaced ? node.identity.namespace : '', node.identity.name, { preconditions: { uid: node.identity.uid }, propagationPolicy });
    } catch (err) {
      if (!isGone(err)) throw err;
    }
  }

  /** A read-modify-write of the node's object with its uid as precondition; a missing or replaced object is left alone. */
  async #update(node: GraphNode, change: (object: KubeObject) => KubeObject): Promise<void> {
    const { type, store } = this.#served(node.identity);
    try {
      await store.guaranteedUpdate(type.namespaced ? node.identity.namespace : '', node.identity.name, undefined, {}, (current) => {
        const next = change(current!);
        next.metadata.uid = node.identity.uid;
        return next;
      });
    } catch (err) {
      if (!isGone(err)) throw err;
    }
  }

  #removeReferences(node: GraphNode, uids: Set<string>): Promise<void> {
    return this.#update(node, (object) => {
      const refs = object.metadata.ownerReferences ?? [];
      const kept = refs.filter((ref) => !uids.has(ref.uid));
      if (kept.length === refs.length) return object;
      if (kept.length > 0) object.metadata.ownerReferences = kept;
      else delete object.metadata.ownerReferences;
      return object;
    });
  }

  #unblockReferences(node: GraphNode): Promise<void> {
    return this.#update(node, (object) => {
      for (const ref of object.metadata.ownerReferences ?? []) if (ref.blockOwnerDeletion === true) ref.blockOwnerDeletion = false;
      return object;
    });
  }

  #removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    return this.#update(node, (object) => {
      const finalizers = object.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return object;
      object.metadata.finalizers = finalizers.filter((f) => f !== finalizer);
      return object;
    });
  }

  /** Upstream's warning event on the dependent, made as its event recorder makes one. */
  async #reportInvalidNamespace(dependent: GraphNode, ref: OwnerReference): Promise<void> {
    const events = this.#registry.lookup('', 'v1', 'events')?.store;
    if (events === undefined) return;
    const { identity } = dependent;
    const owner: Identity = { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: identity.namespace };
    const now = new Date();
    const timestamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const namespace = identity.namespace === '' ? 'default' : identity.namespace;
    // Upstream names events `<object>.<unix nanoseconds in hex>`.
    let nanos = BigInt(now.getTime()) * 1_000_000n;
    if (nanos <= this.#lastEventNanos) nanos = this.#lastEventNanos + 1n;
    this.#lastEventNanos = nanos;
    const involvedObject: Record<string, string> = { kind: identity.kind, name: identity.name, uid: identity.uid, apiVersion: identity.apiVersion };
    if (identity.namespace !== '') involvedObject.namespace = identity.namespace;
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${identity.name}.${nanos.toString(16)}`, namespace },
      involvedObject,
      reason: 'OwnerRefInvalidNamespace',
      message: `ownerRef ${describe(owner)} does not exist in namespace "${identity.namespace}"`,
      source: { component: 'garbage-collector-controller' },
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      type: 'Warning',
      reportingComponent: 'garbage-collector-controller',
      reportingInstance: '',
    };
    try {
      await events.create(namespace, event);
    } catch (err) {
      // The namespace may be going away: the event is not worth more than a line.
      if (isStatusError(err) && (err.code === 403 || err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}

/** An identity as upstream's objectReference prints in messages. */
export function describe(identity: Identity): string {
  return `[${identity.apiVersion}/${identity.kind}, namespace: ${identity.namespace}, name: ${identity.name}, uid: ${identity.uid}]`;
}

