// Simulated nodes (`--simulated-nodes N`): Plinth plays N kubelets, as kwok does, in the
// same process. Each node is a Node object with capacity, addresses, a Ready condition and
// the features a v1.36 kubelet declares, and a Lease in kube-node-lease renewed as a kubelet
// renews it; pods bound to a node start at once (Running, a pod IP from the node's pod CIDR,
// containers started and ready, readiness gates honoured), Job pods finish after a while (or
// fail when an annotation asks), and terminating pods are removed after their grace period,
// capped at a few seconds. No process runs anywhere: only the API objects move, which
// is what upstream's controllers and scheduler see of a cluster.
import { isStatusError, type KubeObject } from '../api/index.ts';
import { simulatedNodeAnnotation } from '../registry/builtin/nodes.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer, type Clock, type ReconcileResult, type Timer } from './runtime/index.ts';
import { systemClock } from './runtime/clock.ts';
import { rfc3339Seconds } from '../api/time.ts';
import { defaultNodeFeatures } from '../api/node-declared-features.ts';

/** On a pod: the exit code its containers finish with (non-zero fails the pod, or restarts the container under OnFailure). */
export const exitCodeAnnotation = 'simulation.plinth.dev/exit-code';
/** On a pod: seconds its containers run before they finish; Job pods finish after --simulated-pod-run-time without it. */
export const runSecondsAnnotation = 'simulation.plinth.dev/run-seconds';

const kubeletVersion = 'v1.36.2';
const fieldManager = 'kubelet';
/**
 * `status.declaredFeatures`: what a v1.36 kubelet with default gates discovers of itself. A
 * resize, which these kubelets take at once, then passes NodeDeclaredFeatureValidator.
 */
const declaredFeatures = defaultNodeFeatures();

export interface SimulatedNodesOptions {
  /** How many nodes: sim-node-0 … sim-node-(count-1). */
  count: number;
  nodes: Store;
  leases: Store;
  pods: Store;
  log: (message: string) => void;
  /** How long Job pods run before they succeed (default 3 s). */
  podRunMs?: number;
  /** The longest a terminating pod is kept, whatever its grace period (default 3 s). */
  maxGracePeriodMs?: number;
  /** How often each node's Lease is renewed (default 10 s, as a kubelet: a quarter of its 40 s duration). */
  leaseRenewMs?: number;
  clock?: Clock;
}

interface Container {
  name: string;
  image?: string;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

/** A node's name, addresses and pod CIDR, from its index. */
function nodeShape(index: number): { name: string; ip: string; podCidrBase: string } {
  const host = index + 2;
  return { name: `sim-node-${index}`, ip: `172.18.${host >> 8}.${host & 255}`, podCidrBase: `10.${244 + (index >> 8)}.${index & 255}` };
}

function timestamp(ms: number): string {
  return rfc3339Seconds(ms);
}

/** metav1.MicroTime, as a Lease's renewTime is written. */
function microTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** What a kubelet reports of a running container's resources: the cpu and memory it configured, and the requests it admitted. */
function reportedResources(c: Container): Record<string, unknown> {
  const only = (list: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(list ?? {}).filter(([name]) => name === 'cpu' || name === 'memory'));
  const requests = only(c.resources?.requests);
  const limits = only(c.resources?.limits);
  return {
    ...(Object.keys(c.resources?.requests ?? {}).length > 0 ? { allocatedResources: { ...c.resources!.requests } } : {}),
    resources: { ...(Object.keys(limits).length > 0 ? { limits } : {}), ...(Object.keys(requests).length > 0 ? { requests } : {}) },
  };
}

function podKey(pod: KubeObject): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

function spec(pod: KubeObject): Record<string, unknown> {
  return (pod.spec ?? {}) as Record<string, unknown>;
}

function status(pod: KubeObject): Record<string, unknown> {
  return (pod.status ?? {}) as Record<string, unknown>;
}

function containersOf(pod: KubeObject, field: 'containers' | 'initContainers'): Container[] {
  const list = spec(pod)[field];
  return Array.isArray(list) ? (list as Container[]) : [];
}

/** A stable fake id from a string (containerd writes 64 hex digits). */
function fakeId(seed: string): string {
  let out = '';
  for (let round = 0; out.length < 64; round++) {
    let h = 2166136261 ^ round;
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619);
    out += (h >>> 0).toString(16).padStart(8, '0');
  }
  return out.slice(0, 64);
}

/** Whether the pod's containers finish on their own: Job pods, and pods that say how long they run. */
function finishes(pod: KubeObject): boolean {
  if (pod.metadata.annotations?.[runSecondsAnnotation] !== undefined) return true;
  return (pod.metadata.ownerReferences ?? []).some((ref) => ref.kind === 'Job' && ref.apiVersion.startsWith('batch/'));
}

function exitCodeOf(pod: KubeObject): number {
  const code = Number(pod.metadata.annotations?.[exitCodeAnnotation] ?? 0);
  return Number.isInteger(code) && code >= 0 && code <= 255 ? code : 1;
}

export class SimulatedNodes {
  readonly #opts: Required<Omit<SimulatedNodesOptions, 'clock'>>;
  readonly #clock: Clock;
  readonly #names: Map<string, ReturnType<typeof nodeShape>>;
  readonly #podInformer: Informer;
  readonly #controller: Controller;
  /** Host numbers taken in each node's pod CIDR, by pod key. */
  readonly #ips = new Map<string, Map<string, number>>();
  /** When each terminating pod was first seen terminating. */
  readonly #terminatingSince = new Map<string, number>();
  /** When this process started each pod's containers (status.startTime has whole seconds only). */
  readonly #startedAt = new Map<string, number>();
  #renewTimer: Timer | undefined;
  #closed = false;

  constructor(opts: SimulatedNodesOptions) {
    this.#opts = { podRunMs: 3000, maxGracePeriodMs: 3000, leaseRenewMs: 10_000, ...opts };
    this.#clock = opts.clock ?? systemClock;
    this.#names = new Map(Array.from({ length: opts.count }, (_, i) => nodeShape(i)).map((shape) => [shape.name, shape]));
    for (const name of this.#names.keys()) this.#ips.set(name, new Map());
    this.#podInformer = new Informer({ source: opts.pods, resource: 'pods', log: opts.log, clock: this.#clock });
    this.#controller = new Controller({
      name: 'simulated-kubelets',
      informers: [this.#podInformer],
      reconcile: (key) => this.#reconcile(key),
      workers: 4,
      clock: this.#clock,
      log: opts.log,
      shouldLog: (err) => !(isStatusError(err) && (err.code === 409 || err.code === 404)),
    });
    const enqueue = (pod: KubeObject) => {
      if (this.#names.has(String(spec(pod).nodeName ?? ''))) this.#controller.queue.add(podKey(pod));
    };
    this.#podInformer.addHandlers({
      add: enqueue,
      update: (_, pod) => enqueue(pod),
      delete: (pod) => this.#release(pod),
    });
  }

  /** The simulated nodes' names. */
  get nodeNames(): string[] {
    return [...this.#names.keys()];
  }

  /** Registers the nodes and their Leases, then starts playing their kubelets. */
  async start(): Promise<void> {
    const now = this.#clock.now();
    for (const shape of this.#names.values()) {
      await this.#registerNode(shape, now);
      await this.#renewLease(shape.name, now);
    }
    this.#scheduleRenewals();
    await this.#controller.start();
    // Pod IPs already handed out (a restart) stay with their pods.
    for (const pod of this.#podInformer.store.list()) {
      const node = String(spec(pod).nodeName ?? '');
      const ip = String(status(pod).podIP ?? '');
      const shape = this.#names.get(node);
      if (shape !== undefined && ip.startsWith(`${shape.podCidrBase}.`)) this.#ips.get(node)!.set(podKey(pod), Number(ip.split('.')[3]));
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#renewTimer?.cancel();
    await this.#controller.stop();
  }

  /** Resolves once no pod is queued or being worked on (for tests). */
  idle(): Promise<void> {
    return this.#controller.idle();
  }

  async #registerNode(shape: ReturnType<typeof nodeShape>, now: number): Promise<void> {
    const { name, podCidrBase } = shape;
    const existing = await this.#opts.nodes.find('', name);
    if (existing === undefined) {
      try {
        await this.#opts.nodes.create('', {
          apiVersion: 'v1', kind: 'Node',
          metadata: {
            name,
            labels: {
              'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64',
              'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64', type: 'simulated',
            },
            annotations: { [simulatedNodeAnnotation]: 'true', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
          },
          spec: { podCIDR: `${podCidrBase}.0/24`, podCIDRs: [`${podCidrBase}.0/24`] },
        }, { fieldManager });
      } catch (err) {
        if (!(isStatusError(err) && err.reason === 'AlreadyExists')) throw err;
      }
    }
    const ready = await this.#opts.nodes.guaranteedUpdate('', name, undefined, { fieldManager }, (node) => ({ ...node!, status: this.#nodeStatus(shape, now, node) }), { subresource: 'status' });
    // TaintNodesByCondition admission creates every Node tainted not-ready; upstream's node
    // lifecycle controller lifts the taint once the node is Ready. Without it (Plinth's own
    // controllers, or a bare scheduler) nothing would be scheduled here: lift it as it would.
    if (hasNotReadyTaint(ready.object)) {
      await this.#opts.nodes.guaranteedUpdate('', name, undefined, { fieldManager }, (node) => {
        const spec = { ...(node!.spec as Record<string, unknown>) };
        const taints = (Array.isArray(spec.taints) ? spec.taints : []).filter((t) => !isNotReadyTaint(t));
        if (taints.length > 0) spec.taints = taints;
        else delete spec.taints;
        return { ...node!, spec };
      });
    }
  }

  #nodeStatus({ name, ip }: ReturnType<typeof nodeShape>, now: number, current: KubeObject | undefined): Record<string, unknown> {
    const previous = new Map(((status(current ?? { metadata: {} }).conditions ?? []) as Condition[]).map((c) => [c.type, c]));
    const condition = (type: string, value: string, reason: string, message: string) => ({
      type, status: value, lastHeartbeatTime: timestamp(now),
      lastTransitionTime: previous.get(type)?.status === value ? previous.get(type)!.lastTransitionTime : timestamp(now),
      reason, message,
    });
    const capacity = { cpu: '32', memory: '131922224Ki', pods: '110', 'ephemeral-storage': '1055762868Ki', 'hugepages-1Gi': '0', 'hugepages-2Mi': '0' };
    return {
      capacity,
      allocatable: capacity,
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status (simulated by Plinth)'),
      ],
      addresses: [{ type: 'InternalIP', address: ip }, { type: 'Hostname', address: name }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: fakeId(`machine ${name}`).slice(0, 32), systemUUID: fakeId(`system ${name}`).slice(0, 32), bootID: fakeId(`boot ${name}`).slice(0, 32),
        kernelVersion: '6.1.0-simulated', osImage: 'Plinth simulated node', containerRuntimeVersion: 'simulated://1.0.0',
        kubeletVersion, kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64',
      },
      declaredFeatures,
    };
  }

  async #renewLease(nodeName: string, now: number): Promise<void> {
    const node = await this.#opts.nodes.find('', nodeName);
    const owner = node === undefined ? [] : [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata.uid! }];
    await this.#opts.leases.guaranteedUpdate('kube-node-lease', nodeName, undefined, { fieldManager }, (lease) => ({
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
      ...lease,
      metadata: { ...lease?.metadata, name: nodeName, namespace: 'kube-node-lease', ownerReferences: owner },
      spec: { ...(lease?.spec as object | undefined), holderIdentity: nodeName, leaseDurationSeconds: 40, renewTime: microTimestamp(now) },
    }), { createIfMissing: true });
  }

  /** Every renew interval: each node's Lease; every sixth time its status too (a kubelet reports it every few minutes when nothing changed). */
  #scheduleRenewals(round = 1): void {
    if (this.#closed) return;
    this.#renewTimer = this.#clock.setTimer(this.#opts.leaseRenewMs, () => {
      const now = this.#clock.now();
      void Promise.all([...this.#names.values()].map(async (shape) => {
        await this.#renewLease(shape.name, now);
        if (round % 6 === 0) await this.#registerNode(shape, now);
      })).catch((err: unknown) => {
        if (!this.#closed) this.#opts.log(`simulated nodes: renewing: ${(err as Error).message}`);
      }).finally(() => this.#scheduleRenewals(round + 1));
    });
  }

  async #reconcile(key: string): Promise<ReconcileResult> {
    const [namespace = '', name = ''] = key.split('/');
    const pod = this.#podInformer.store.get(key) ?? await this.#opts.pods.find(namespace, name);
    if (pod === undefined) return;
    const nodeName = String(spec(pod).nodeName ?? '');
    const shape = this.#names.get(nodeName);
    if (shape === undefined) return;
    const now = this.#clock.now();

    if (pod.metadata.deletionTimestamp !== undefined) return this.#terminate(pod, now);
    const phase = status(pod).phase;
    if (phase === 'Succeeded' || phase === 'Failed') return;
    if (status(pod).startTime === undefined) {
      this.#startedAt.set(key, now);
      await this.#writeStatus(pod, (current) => this.#runningStatus(current, shape, now));
      return finishes(pod) ? { requeueAfterMs: this.#runMs(pod) } : undefined;
    }
    if (finishes(pod)) {
      const due = (this.#startedAt.get(key) ?? Date.parse(String(status(pod).startTime))) + this.#runMs(pod);
      if (now < due) return { requeueAfterMs: due - now };
      await this.#writeStatus(pod, (current) => this.#finishedStatus(current, now));
      return;
    }
    // Running: a resize is acted on, and readiness changes as the pod's readiness gates' conditions do.
    if (status(pod).observedGeneration !== pod.metadata.generation) await this.#writeStatus(pod, (current) => this.#resizedStatus(current));
    const wanted = this.#readyCondition(pod, now);
    const ready = ((status(pod).conditions ?? []) as Condition[]).find((c) => c.type === 'Ready');
    if (ready?.status !== wanted.status || ready?.reason !== wanted.reason) {
      await this.#writeStatus(pod, (current) => ({ ...status(current), conditions: upsertConditions(status(current).conditions as Condition[] | undefined, [wanted]) }));
    }
  }

  #runMs(pod: KubeObject): number {
    const seconds = Number(pod.metadata.annotations?.[runSecondsAnnotation]);
    return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : this.#opts.podRunMs;
  }

  /** After the grace period (capped), the pod goes, as a kubelet deletes it with grace 0 once its containers stopped. */
  async #terminate(pod: KubeObject, now: number): Promise<ReconcileResult> {
    const key = podKey(pod);
    const since = this.#terminatingSince.get(key) ?? now;
    this.#terminatingSince.set(key, since);
    const graceMs = Math.min((pod.metadata.deletionGracePeriodSeconds ?? 30) * 1000, this.#opts.maxGracePeriodMs);
    if (now < since + graceMs) return { requeueAfterMs: since + graceMs - now };
    try {
      await this.#opts.pods.delete(pod.metadata.namespace!, pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid! } });
    } catch (err) {
      if (!(isStatusError(err) && (err.code === 404 || err.code === 409))) throw err;
    }
    this.#terminatingSince.delete(key);
  }

  async #writeStatus(pod: KubeObject, next: (current: KubeObject) => Record<string, unknown>): Promise<void> {
    await this.#opts.pods.guaranteedUpdate(pod.metadata.namespace!, pod.metadata.name!, undefined, { fieldManager }, (current) => {
      if (current === undefined || current.metadata.uid !== pod.metadata.uid) throw new PodGone();
      return { ...current, status: next(current) };
    }, { subresource: 'status' }).catch((err: unknown) => {
      if (!(err instanceof PodGone) && !(isStatusError(err) && err.code === 404)) throw err;
    });
  }

  #allocateIP(pod: KubeObject, shape: ReturnType<typeof nodeShape>): string {
    if (spec(pod).hostNetwork === true) return shape.ip;
    const taken = this.#ips.get(shape.name)!;
    const key = podKey(pod);
    let host = taken.get(key);
    if (host === undefined) {
      const used = new Set(taken.values());
      for (host = 2; host < 255 && used.has(host); host++);
      if (host === 255) throw new Error(`simulated node ${shape.name}: no pod IP left in ${shape.podCidrBase}.0/24`);
      taken.set(key, host);
    }
    return `${shape.podCidrBase}.${host}`;
  }

  #release(pod: KubeObject): void {
    this.#ips.get(String(spec(pod).nodeName ?? ''))?.delete(podKey(pod));
    this.#terminatingSince.delete(podKey(pod));
    this.#startedAt.delete(podKey(pod));
  }

  #readyCondition(pod: KubeObject, now: number): Condition {
    const conditions = (status(pod).conditions ?? []) as Condition[];
    const gates = (Array.isArray(spec(pod).readinessGates) ? spec(pod).readinessGates as { conditionType: string }[] : []).map((g) => g.conditionType);
    const missing = gates.filter((gate) => conditions.find((c) => c.type === gate)?.status !== 'True');
    const previous = conditions.find((c) => c.type === 'Ready');
    const since = (value: string) => (previous?.status === value && previous.lastTransitionTime ? previous.lastTransitionTime : timestamp(now));
    if (missing.length === 0) return { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: since('True') };
    const gate = missing[0]!;
    const exists = conditions.some((c) => c.type === gate);
    // The kubelet's wording (status.GeneratePodReadyCondition).
    const message = exists ? `the status of pod readiness gate "${gate}" is not "True", but False` : `corresponding condition of pod readiness gate "${gate}" does not exist.`;
    return { type: 'Ready', status: 'False', lastProbeTime: null, lastTransitionTime: since('False'), reason: 'ReadinessGatesNotReady', message };
  }

  #runningStatus(pod: KubeObject, shape: ReturnType<typeof nodeShape>, now: number): Record<string, unknown> {
    const at = timestamp(now);
    const podIP = this.#allocateIP(pod, shape);
    const running = (c: Container) => ({
      name: c.name, state: { running: { startedAt: at } }, lastState: {}, ready: true, restartCount: 0,
      image: c.image ?? '', imageID: `${c.image ?? ''}@sha256:${fakeId(`image ${c.image}`)}`, containerID: `containerd://${fakeId(`${pod.metadata.uid} ${c.name}`)}`, started: true,
      ...reportedResources(c),
    });
    const initialized = (c: Container) => ({
      name: c.name, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: at, finishedAt: at, containerID: `containerd://${fakeId(`${pod.metadata.uid} ${c.name}`)}` } },
      lastState: {}, ready: true, restartCount: 0, image: c.image ?? '', imageID: `${c.image ?? ''}@sha256:${fakeId(`image ${c.image}`)}`,
      containerID: `containerd://${fakeId(`${pod.metadata.uid} ${c.name}`)}`, started: false,
    });
    const ready = this.#readyCondition(pod, now);
    const conditions = upsertConditions(status(pod).conditions as Condition[] | undefined, [
      { type: 'PodReadyToStartContainers', status: 'True', lastProbeTime: null, lastTransitionTime: at },
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: at },
      ready,
      { type: 'ContainersReady', status: 'True', lastProbeTime: null, lastTransitionTime: at },
    ]);
    const init = containersOf(pod, 'initContainers');
    return {
      ...status(pod),
      phase: 'Running',
      conditions,
      hostIP: shape.ip, hostIPs: [{ ip: shape.ip }],
      podIP, podIPs: [{ ip: podIP }],
      startTime: at,
      ...(init.length > 0 ? { initContainerStatuses: init.map(initialized) } : {}),
      containerStatuses: containersOf(pod, 'containers').map(running),
      observedGeneration: pod.metadata.generation,
    };
  }

  /** A resize (pods/resize) acted on at once: each running container reports its new resources, and the pod the generation it saw. */
  #resizedStatus(pod: KubeObject): Record<string, unknown> {
    const containers = new Map(containersOf(pod, 'containers').map((c) => [c.name, c]));
    const statuses = (status(pod).containerStatuses ?? []) as Record<string, unknown>[];
    return {
      ...status(pod),
      containerStatuses: statuses.map((s) => {
        const c = containers.get(String(s.name));
        return c === undefined ? s : { ...s, ...reportedResources(c) };
      }),
      observedGeneration: pod.metadata.generation,
    };
  }

  /** The containers exited: Succeeded with exit code 0, else Failed (Never) or restarted (OnFailure). */
  #finishedStatus(pod: KubeObject, now: number): Record<string, unknown> {
    const at = timestamp(now);
    const exitCode = exitCodeOf(pod);
    const previous = (status(pod).containerStatuses ?? []) as Record<string, unknown>[];
    const startedAt = (name: string) => ((previous.find((s) => s.name === name)?.state as { running?: { startedAt?: string } } | undefined)?.running?.startedAt) ?? at;
    const terminated = (name: string) => ({ exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: startedAt(name), finishedAt: at });
    if (exitCode !== 0 && spec(pod).restartPolicy === 'OnFailure') {
      // The kubelet restarts it in place: the pod stays Running, its restart count grows.
      this.#startedAt.set(podKey(pod), now);
      return {
        ...status(pod),
        containerStatuses: previous.map((s) => ({
          ...s, state: { running: { startedAt: at } }, lastState: { terminated: terminated(String(s.name)) }, restartCount: Number(s.restartCount ?? 0) + 1,
        })),
      };
    }
    const done = { status: 'False', reason: 'PodCompleted', lastProbeTime: null, lastTransitionTime: at };
    return {
      ...status(pod),
      phase: exitCode === 0 ? 'Succeeded' : 'Failed',
      conditions: upsertConditions(status(pod).conditions as Condition[] | undefined, [
        { type: 'PodReadyToStartContainers', status: 'False', lastProbeTime: null, lastTransitionTime: at },
        { type: 'Ready', ...done },
        { type: 'ContainersReady', ...done },
      ]),
      containerStatuses: previous.map((s) => ({ ...s, state: { terminated: { ...terminated(String(s.name)), containerID: s.containerID } }, ready: false, started: false })),
    };
  }
}

class PodGone extends Error {}

/** Conditions with each of `updates` replacing the one of its type (a changed status keeps its new transition time), in kubelet's order. */
function upsertConditions(current: Condition[] | undefined, updates: Condition[]): Condition[] {
  const byType = new Map((current ?? []).map((c) => [c.type, c]));
  for (const update of updates) {
    const old = byType.get(update.type);
    byType.set(update.type, old !== undefined && old.status === update.status && old.reason === update.reason ? { ...old, ...update, lastTransitionTime: old.lastTransitionTime ?? update.lastTransitionTime } : update);
  }
  const order = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'];
  return [...byType.values()].sort((a, b) => rank(order, a.type) - rank(order, b.type));
}

function rank(order: string[], type: string): number {
  const at = order.indexOf(type);
  return at < 0 ? order.length : at;
}

const notReadyTaintKey = 'node.kubernetes.io/not-ready';

function isNotReadyTaint(taint: unknown): boolean {
  return typeof taint === 'object' && taint !== null && (taint as { key?: unknown }).key === notReadyTaintKey && (taint as { effect?: unknown }).effect === 'NoSchedule';
}

function hasNotReadyTaint(node: KubeObject): boolean {
  const taints = (node.spec as { taints?: unknown } | undefined)?.taints;
  return Array.isArray(taints) && taints.some(isNotReadyTaint);
}
