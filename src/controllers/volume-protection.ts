// Upstream's persistentvolumeclaim-protection and persistentvolume-protection controllers,
// in-process: a claim being deleted keeps its kubernetes.io/pvc-protection finalizer while
// a scheduled, unfinished pod uses it, and a volume being deleted keeps
// kubernetes.io/pv-protection while it is bound; then the finalizer goes and so does the
// object. Without them, the finalizers StorageObjectInUseProtection admission sets would
// keep every deleted claim and volume forever when no kube-controller-manager runs.
import { isStatusError, type KubeObject } from '../api/index.ts';
import { pvcProtectionFinalizer, pvProtectionFinalizer } from '../api/finalizers.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer, type ReconcileResult } from './runtime/index.ts';

interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName?: string };
  ephemeral?: unknown;
}

/** The claims a pod uses: named ones, and its generic ephemeral volumes' (`<pod>-<volume>`). */
function claimsOf(pod: KubeObject): string[] {
  const volumes = ((pod.spec as { volumes?: Volume[] } | undefined)?.volumes ?? []);
  return volumes.flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : v.ephemeral !== undefined ? [`${pod.metadata.name}-${v.name}`] : []));
}

/** As upstream's podUsesPVC: only a pod bound to a node and not finished holds its claims (a kubelet will not start a pod whose claim is going). */
function holdsClaims(pod: KubeObject): boolean {
  const phase = (pod.status as { phase?: string } | undefined)?.phase;
  return (pod.spec as { nodeName?: string } | undefined)?.nodeName !== undefined && (pod.spec as { nodeName?: string }).nodeName !== '' && phase !== 'Succeeded' && phase !== 'Failed';
}

function deletingWith(object: KubeObject, finalizer: string): boolean {
  return object.metadata.deletionTimestamp !== undefined && (object.metadata.finalizers ?? []).includes(finalizer);
}

export interface VolumeProtectionOptions {
  claims: Store;
  volumes: Store;
  pods: Store;
  log: (message: string) => void;
  /** Which of the two run (both by default). */
  protectClaims?: boolean;
  protectVolumes?: boolean;
}

export class VolumeProtection {
  readonly #opts: VolumeProtectionOptions;
  readonly #pods: Informer;
  readonly #claims: Informer;
  readonly #volumes: Informer;
  readonly #controller: Controller;

  constructor(opts: VolumeProtectionOptions) {
    this.#opts = opts;
    this.#pods = new Informer({ source: opts.pods, resource: 'pods', log: opts.log, indexers: { claims: (pod) => claimsOf(pod).map((c) => `${pod.metadata.namespace}/${c}`) } });
    this.#claims = new Informer({ source: opts.claims, resource: 'persistentvolumeclaims', log: opts.log });
    this.#volumes = new Informer({ source: opts.volumes, resource: 'persistentvolumes', log: opts.log });
    const informers = [...(opts.protectClaims === false ? [] : [this.#pods, this.#claims]), ...(opts.protectVolumes === false ? [] : [this.#volumes])];
    this.#controller = new Controller({
      name: 'volume-protection', informers, reconcile: (key) => this.#reconcile(key), log: opts.log,
      shouldLog: (err) => !(isStatusError(err) && (err.code === 409 || err.code === 404)),
    });
    const claim = (c: KubeObject) => {
      if (deletingWith(c, pvcProtectionFinalizer)) this.#controller.queue.add(`claim/${c.metadata.namespace}/${c.metadata.name}`);
    };
    this.#claims.addHandlers({ add: claim, update: (_, c) => claim(c) });
    // A pod that goes or finishes may free the claims it used.
    const pod = (p: KubeObject) => {
      for (const name of claimsOf(p)) this.#controller.queue.add(`claim/${p.metadata.namespace}/${name}`);
    };
    this.#pods.addHandlers({ update: (_, p) => (!holdsClaims(p) ? pod(p) : undefined), delete: pod });
    const volume = (v: KubeObject) => {
      if (deletingWith(v, pvProtectionFinalizer)) this.#controller.queue.add(`volume/${v.metadata.name}`);
    };
    this.#volumes.addHandlers({ add: volume, update: (_, v) => volume(v) });
  }

  start(): Promise<void> {
    return this.#controller.start();
  }

  close(): Promise<void> {
    return this.#controller.stop();
  }

  async #reconcile(key: string): Promise<ReconcileResult> {
    const [kind, ...rest] = key.split('/');
    if (kind === 'claim') {
      const [namespace = '', name = ''] = rest;
      const claim = this.#claims.store.get(`${namespace}/${name}`);
      if (claim === undefined || !deletingWith(claim, pvcProtectionFinalizer)) return;
      const users = this.#pods.store.byIndex('claims', `${namespace}/${name}`).filter(holdsClaims);
      if (users.length > 0) return;
      await this.#release(this.#opts.claims, claim, pvcProtectionFinalizer);
      return;
    }
    const volume = this.#volumes.store.get(rest[0] ?? '');
    if (volume === undefined || !deletingWith(volume, pvProtectionFinalizer)) return;
    if ((volume.status as { phase?: string } | undefined)?.phase === 'Bound') return;
    await this.#release(this.#opts.volumes, volume, pvProtectionFinalizer);
  }

  async #release(store: Store, object: KubeObject, finalizer: string): Promise<void> {
    try {
      await store.guaranteedUpdate(object.metadata.namespace ?? '', object.metadata.name!, undefined, {}, (current) => {
        if (current === undefined || current.metadata.uid !== object.metadata.uid) throw new Gone();
        return { ...current, metadata: { ...current.metadata, finalizers: (current.metadata.finalizers ?? []).filter((f) => f !== finalizer) } };
      });
    } catch (err) {
      if (!(err instanceof Gone) && !(isStatusError(err) && err.code === 404)) throw err;
    }
  }
}

class Gone extends Error {}
