// The pod garbage collector: terminating pods no kubelet will ever finish are deleted, as
// upstream's podgc controller does: those bound to a node that does not exist (after a
// quarantine), and those never scheduled.
import { isStatusError, type KubeObject } from '../api/index.ts';
import type { Store } from '../registry/store.ts';
import type { Clock } from './runtime/index.ts';
import { Controller, Informer } from './runtime/index.ts';

/** How long a node must stay absent before its pods are deleted (upstream's quarantineTime). */
const defaultQuarantineMs = 40_000;

interface PodSpec {
  nodeName?: string;
}

interface PodStatus {
  phase?: string;
  conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string; observedGeneration?: number }[];
}

const terminalPhases = new Set(['Succeeded', 'Failed']);

function nodeNameOf(pod: KubeObject): string {
  return (pod.spec as PodSpec | undefined)?.nodeName ?? '';
}

function keyOf(pod: KubeObject): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

export interface PodGcOptions {
  pods: Store;
  nodes: Store;
  log: (message: string) => void;
  /** How long a node must be gone before its pods go (default 40 s, as upstream). */
  quarantineMs?: number;
  clock?: Clock;
}

/**
 * Upstream's podgc, in-process, for pods being deleted: one bound to a node absent for the
 * quarantine is marked Failed with a DisruptionTarget condition (reason DeletionByPodGC)
 * and force-deleted (grace 0); one never bound to a node is force-deleted. Without it,
 * graceful deletion would keep such pods (and their namespaces) forever, since no kubelet
 * ends them. Unlike upstream, pods on absent nodes that nobody deletes are left alone
 * (upstream deletes them too), and so is the terminated-pod threshold: Plinth runs no
 * kubelets, and a pod created with a made-up nodeName should not vanish.
 */
export class PodGarbageCollector {
  readonly #pods: Store;
  readonly #nodes: Store;
  readonly #podInformer: Informer;
  readonly #nodeInformer: Informer;
  readonly #controller: Controller;
  readonly #quarantineMs: number;
  readonly #now: () => number;
  /** When each node was first seen missing, while it stays missing. */
  readonly #missingSince = new Map<string, number>();

  constructor(opts: PodGcOptions) {
    this.#pods = opts.pods;
    this.#nodes = opts.nodes;
    this.#quarantineMs = opts.quarantineMs ?? defaultQuarantineMs;
    this.#now = opts.clock === undefined ? Date.now : () => opts.clock!.now();
    this.#podInformer = new Informer({ source: opts.pods, resource: 'pods', log: opts.log, ...(opts.clock === undefined ? {} : { clock: opts.clock }) });
    this.#nodeInformer = new Informer({ source: opts.nodes, resource: 'nodes', log: opts.log, ...(opts.clock === undefined ? {} : { clock: opts.clock }) });
    this.#controller = new Controller({
      name: 'pod-garbage-collector',
      informers: [this.#podInformer, this.#nodeInformer],
      reconcile: (key) => this.#reconcile(key),
      log: opts.log,
      ...(opts.clock === undefined ? {} : { clock: opts.clock }),
    });
    const enqueue = (pod: KubeObject) => {
      if (pod.metadata.deletionTimestamp === undefined) return;
      const nodeName = nodeNameOf(pod);
      if (nodeName === '' || this.#nodeInformer.store.get(nodeName) === undefined) this.#controller.queue.add(keyOf(pod));
    };
    this.#podInformer.addHandlers({ add: enqueue, update: (_, pod) => enqueue(pod) });
    this.#nodeInformer.addHandlers({
      add: (node) => this.#missingSince.delete(node.metadata.name!),
      delete: (node) => {
        for (const pod of this.#podInformer.store.list()) if (nodeNameOf(pod) === node.metadata.name) enqueue(pod);
      },
    });
  }

  start(): Promise<void> {
    return this.#controller.start();
  }

  close(): Promise<void> {
    return this.#controller.stop();
  }

  async #reconcile(key: string): Promise<{ requeueAfterMs: number } | void> {
    const [namespace = '', name = ''] = key.split('/');
    const pod = await this.#pods.find(namespace, name);
    if (pod === undefined || pod.metadata.deletionTimestamp === undefined) return;
    const nodeName = nodeNameOf(pod);
    if (nodeName === '') {
      await this.#forceDelete(pod);
      return;
    }
    if ((await this.#nodes.find('', nodeName)) !== undefined) {
      this.#missingSince.delete(nodeName);
      return;
    }
    const since = this.#missingSince.get(nodeName) ?? this.#now();
    this.#missingSince.set(nodeName, since);
    const waited = this.#now() - since;
    if (waited < this.#quarantineMs) return { requeueAfterMs: this.#quarantineMs - waited };
    await this.#markFailed(pod);
    await this.#forceDelete(pod);
  }

  /** Upstream's status patch before the deletion: phase Failed (unless terminal) and the DisruptionTarget condition. */
  async #markFailed(pod: KubeObject): Promise<void> {
    try {
      await this.#pods.guaranteedUpdate(pod.metadata.namespace!, pod.metadata.name!, undefined, { fieldManager: 'PodGC' }, (current) => {
        const updated = structuredClone(current!);
        const status = (updated.status ??= {}) as PodStatus;
        if (!terminalPhases.has(status.phase ?? '')) status.phase = 'Failed';
        const conditions = (status.conditions ??= []).filter((c) => c.type !== 'DisruptionTarget');
        conditions.push({
          type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message: 'PodGC: node no longer exists',
          lastTransitionTime: new Date(this.#now()).toISOString().replace(/\.\d+Z$/, 'Z'),
        });
        status.conditions = conditions;
        return updated;
      }, { subresource: 'status' });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return;
      throw err;
    }
  }

  async #forceDelete(pod: KubeObject): Promise<void> {
    try {
      await this.#pods.delete(pod.metadata.namespace!, pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid! } });
    } catch (err) {
      // Gone already, or another pod of the same name now: nothing to do.
      if (isStatusError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
