// The resource quota controller: keeps every ResourceQuota's status (hard = spec.hard,
// used = what the namespace's objects use) current as quotas and counted objects change.

import { isStatusError, type KubeObject } from '../api/index.ts';
import { deepEqual } from '../api/json.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer } from './runtime/index.ts';

export interface GroupResource {
  group: string;
  resource: string;
}

export interface QuotaStatus {
  hard: Record<string, string>;
  used: Record<string, string>;
}

export interface ResourceQuotaControllerOptions {
  quotas: Store;
  /** Stores of the resources quotas count out of the box: their changes make a namespace be counted again. */
  counted: Store[];
  /** Whether a counted resource's objects count as one each whatever they hold: then only their metadata is followed. */
  countsOnly?(store: Store): boolean;
  /** A namespace's objects of a resource, for counting (any served resource: count/<resource>.<group>). */
  objects(gr: GroupResource, namespace: string): Promise<KubeObject[]>;
  /** A quota's status computed from the objects (admission/quota-usage.ts, injected by the composition root). */
  computeStatus(quota: KubeObject, objects: (gr: GroupResource) => Promise<KubeObject[]>, now: number): Promise<QuotaStatus>;
  /** How often a namespace with quotas is counted again regardless of events (upstream: 5 minutes). */
  resyncMs?: number;
  log: (message: string) => void;
}

const defaultResyncMs = 5 * 60 * 1000;

function specChanged(old: KubeObject, current: KubeObject): boolean {
  return !deepEqual(old.spec, current.spec);
}

/** Pods stop using compute resources when they finish or start terminating. */
function podUsageMayHaveChanged(old: KubeObject, current: KubeObject): boolean {
  const phase = (o: KubeObject) => (o.status as { phase?: string } | undefined)?.phase;
  return phase(old) !== phase(current) || old.metadata.deletionTimestamp !== current.metadata.deletionTimestamp;
}

/**
 * A claim's usage follows its status too (allocatedResources, the volume attributes classes):
 * upstream's RequiresQuotaReplenish answers true for every update of a claim.
 */
function claimUsageMayHaveChanged(old: KubeObject, current: KubeObject): boolean {
  return specChanged(old, current) || !deepEqual(old.status, current.status);
}

/** The core resources whose usage can change other than through their spec. */
const usageChecks = new Map([
  ['pods', podUsageMayHaveChanged],
  ['persistentvolumeclaims', claimUsageMayHaveChanged],
]);

/**
 * Upstream's resource quota controller, in-process, keyed by namespace: a namespace is
 * counted again when a quota appears or its spec changes, and when a counted object
 * is deleted or changes what it uses (creates are charged by quota admission, which
 * writes status.used itself), and every `resyncMs` while it has quotas.
 *
 * It follows the counted objects only while some quota exists: without quotas no count
 * can change, and an informer on every ConfigMap, Secret, Pod and Service cost each of
 * their writes a turn of its own and its store an entry per object. Once following, it
 * counts every namespace with quotas again, for what changed before its lists.
 */
export class ResourceQuotaController {
  private readonly opts: ResourceQuotaControllerOptions;
  private readonly quotaInformer: Informer;
  private readonly controller: Controller;
  /** The counted resources' informers, while some quota exists. */
  #following: Informer[] | undefined;
  /** Starting or stopping them, one change at a time. */
  #changing: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(opts: ResourceQuotaControllerOptions) {
    this.opts = opts;
    this.quotaInformer = new Informer({ source: opts.quotas, resource: 'resourcequotas', log: opts.log });
    this.controller = new Controller({
      name: 'resourcequota',
      informers: [this.quotaInformer],
      reconcile: (namespace) => this.sync(namespace),
      // A conflict with quota admission's own write is retried quietly.
      shouldLog: (err) => !(isStatusError(err) && err.code === 409),
      log: opts.log,
    });
    this.quotaInformer.addHandlers({
      add: (quota) => {
        this.enqueue(quota);
        this.followWhileQuotas();
      },
      update: (old, current) => {
        if (specChanged(old, current)) this.enqueue(current);
      },
      delete: () => this.followWhileQuotas(),
    });
  }

  private enqueue(object: KubeObject): void {
    this.controller.queue.add(object.metadata.namespace ?? '');
  }

  /** Starts following the counted objects when a quota exists and nothing follows them, stops when none is left. */
  private followWhileQuotas(): void {
    this.#changing = this.#changing.then(async () => {
      const wanted = !this.#closed && this.quotaInformer.store.size > 0;
      if (wanted && this.#following === undefined) {
        const informers = this.countedInformers();
        this.#following = informers;
        await Promise.all(informers.map((informer) => informer.start()));
        for (const quota of this.quotaInformer.store.list()) this.enqueue(quota);
      } else if (!wanted && this.#following !== undefined) {
        const informers = this.#following;
        this.#following = undefined;
        await Promise.all(informers.map((informer) => informer.stop()));
      }
    }).catch((err: unknown) => {
      if (!this.#closed) this.opts.log(`resourcequota: following counted objects: ${(err as Error).message}`);
    });
  }

  private countedInformers(): Informer[] {
    const { opts } = this;
    // Objects counted by number alone are followed by their metadata, which the cache reads without decoding them.
    return opts.counted.map((store) => {
      const informer = new Informer({ source: store, resource: store.type.resource, log: opts.log, metadataOnly: opts.countsOnly?.(store) === true });
      const usageMayHaveChanged = (store.type.group === '' ? usageChecks.get(store.type.resource) : undefined) ?? specChanged;
      informer.addHandlers({
        delete: (object) => this.enqueue(object),
        update: (old, current) => {
          if (old.metadata.resourceVersion === current.metadata.resourceVersion) return;
          if (usageMayHaveChanged(old, current)) this.enqueue(current);
        },
      });
      return informer;
    });
  }

  async start(): Promise<void> {
    await this.controller.start();
  }

  /** Resolves once nothing is queued or being counted. */
  idle(): Promise<void> {
    return this.controller.idle();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const informers = this.#following ?? [];
    this.#following = undefined;
    // Stopping them first ends a start still waiting for its first list.
    await Promise.all([this.controller.stop(), ...informers.map((informer) => informer.stop())]);
    await this.#changing;
  }

  private async sync(namespace: string): Promise<{ requeueAfterMs: number } | void> {
    const names = this.quotaInformer.store.list().filter((q) => q.metadata.namespace === namespace).map((q) => q.metadata.name!);
    for (const name of names) {
      // Read as stored now: admission may have charged it since the informer saw it.
      const quota = await this.opts.quotas.find(namespace, name);
      if (quota === undefined) continue;
      const status = await this.opts.computeStatus(quota, (gr) => this.opts.objects(gr, namespace), Date.now());
      if (deepEqual(quota.status, status)) continue;
      await this.opts.quotas.guaranteedUpdate(namespace, name, quota.metadata.resourceVersion, {}, (current) => ({ ...current!, status }), { subresource: 'status' });
    }
    if (names.length > 0) return { requeueAfterMs: this.opts.resyncMs ?? defaultResyncMs };
  }
}
