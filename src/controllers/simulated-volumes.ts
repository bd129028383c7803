// Simulated volumes, beside the simulated nodes: a default StorageClass whose volumes an
// in-process provisioner "provisions" as an external provisioner would (a
// PersistentVolume per claim, pre-bound to it through claimRef), so that
// kube-controller-manager's persistent volume controller binds them and StatefulSets
// with volumeClaimTemplates get their pods scheduled. The class binds when a pod needs
// the claim (WaitForFirstConsumer, as kind's local-path class): the scheduler picks the
// node and names it on the claim, and the volume is made on that node. Released volumes of that class
// are deleted, as their reclaim policy asks. Nothing is stored anywhere: a volume is
// only an object.
import { isStatusError, type KubeObject } from '../api/index.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer, type Clock, type ReconcileResult } from './runtime/index.ts';

/** The provisioner name of the simulated StorageClass. */
export const simulatedProvisioner = 'simulation.plinth.dev/volumes';
export const simulatedStorageClassName = 'standard';
const provisionedByAnnotation = 'pv.kubernetes.io/provisioned-by';
/** Where the scheduler says a WaitForFirstConsumer claim's pod goes. */
const selectedNodeAnnotation = 'volume.kubernetes.io/selected-node';

export interface SimulatedVolumesOptions {
  claims: Store;
  volumes: Store;
  storageClasses: Store;
  log: (message: string) => void;
  clock?: Clock;
}

function claimClass(claim: KubeObject): string | undefined {
  const name = (claim.spec as { storageClassName?: string | null } | undefined)?.storageClassName;
  return name === null || name === undefined ? undefined : name;
}

export class SimulatedVolumes {
  readonly #opts: SimulatedVolumesOptions;
  readonly #claims: Informer;
  readonly #volumes: Informer;
  readonly #classes: Informer;
  readonly #controller: Controller;

  constructor(opts: SimulatedVolumesOptions) {
    this.#opts = opts;
    const clock = opts.clock === undefined ? {} : { clock: opts.clock };
    this.#claims = new Informer({ source: opts.claims, resource: 'persistentvolumeclaims', log: opts.log, ...clock });
    this.#volumes = new Informer({ source: opts.volumes, resource: 'persistentvolumes', log: opts.log, ...clock });
    this.#classes = new Informer({ source: opts.storageClasses, resource: 'storageclasses', log: opts.log, ...clock });
    this.#controller = new Controller({
      name: 'simulated-volumes',
      informers: [this.#claims, this.#volumes, this.#classes],
      reconcile: (key) => this.#reconcile(key),
      log: opts.log,
      shouldLog: (err) => !(isStatusError(err) && (err.code === 409 || err.code === 404)),
      ...clock,
    });
    const claim = (c: KubeObject) => this.#controller.queue.add(`claim/${c.metadata.namespace}/${c.metadata.name}`);
    const volume = (v: KubeObject) => this.#controller.queue.add(`volume/${v.metadata.name}`);
    this.#claims.addHandlers({ add: claim, update: (_, c) => claim(c) });
    this.#volumes.addHandlers({ add: volume, update: (_, v) => volume(v) });
  }

  /** Makes the simulated default StorageClass when missing, then provisions. */
  async start(): Promise<void> {
    try {
      await this.#opts.storageClasses.create('', {
        apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
        metadata: { name: simulatedStorageClassName, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
        provisioner: simulatedProvisioner, reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer',
      });
    } catch (err) {
      if (!(isStatusError(err) && err.reason === 'AlreadyExists')) throw err;
    }
    await this.#controller.start();
  }

  close(): Promise<void> {
    return this.#controller.stop();
  }

  async #reconcile(key: string): Promise<ReconcileResult> {
    const [kind, ...rest] = key.split('/');
    if (kind === 'claim') return this.#provision(rest[0]!, rest[1]!);
    return this.#reclaim(rest[0]!);
  }

  /** An unbound claim of a simulated class gets its volume, pre-bound to it. */
  async #provision(namespace: string, name: string): Promise<void> {
    const claim = this.#claims.store.get(`${namespace}/${name}`);
    if (claim === undefined || claim.metadata.deletionTimestamp !== undefined) return;
    const spec = (claim.spec ?? {}) as { volumeName?: string; accessModes?: string[]; resources?: { requests?: { storage?: string } }; volumeMode?: string };
    if (spec.volumeName) return;
    const className = claimClass(claim);
    if (className === undefined) return;
    const storageClass = this.#classes.store.get(className);
    if (storageClass?.provisioner !== simulatedProvisioner) return;
    // Waiting for its first consumer: provisioned once the scheduler has chosen the node.
    const node = claim.metadata.annotations?.[selectedNodeAnnotation];
    if (storageClass.volumeBindingMode === 'WaitForFirstConsumer' && node === undefined) return;
    const volumeName = `pvc-${claim.metadata.uid}`;
    if (this.#volumes.store.get(volumeName) !== undefined) return;
    try {
      await this.#opts.volumes.create('', {
        apiVersion: 'v1', kind: 'PersistentVolume',
        metadata: { name: volumeName, annotations: { [provisionedByAnnotation]: simulatedProvisioner } },
        spec: {
          capacity: { storage: spec.resources?.requests?.storage ?? '1Gi' },
          accessModes: spec.accessModes ?? ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: (storageClass.reclaimPolicy as string | undefined) ?? 'Delete',
          storageClassName: className,
          volumeMode: spec.volumeMode ?? 'Filesystem',
          claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace, name, uid: claim.metadata.uid, resourceVersion: claim.metadata.resourceVersion },
          hostPath: { path: `/var/lib/plinth-simulated/${volumeName}`, type: '' },
          ...(node === undefined ? {} : {
            nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [node] }] }] } },
          }),
        },
      }, { fieldManager: 'simulated-provisioner' });
    } catch (err) {
      if (!(isStatusError(err) && err.reason === 'AlreadyExists')) throw err;
    }
  }

  /** A volume this provisioner made whose claim is gone goes, as reclaim policy Delete asks. */
  async #reclaim(name: string): Promise<void> {
    const volume = this.#volumes.store.get(name);
    if (volume === undefined || volume.metadata.deletionTimestamp !== undefined) return;
    if (volume.metadata.annotations?.[provisionedByAnnotation] !== simulatedProvisioner) return;
    const spec = (volume.spec ?? {}) as { persistentVolumeReclaimPolicy?: string };
    const phase = (volume.status as { phase?: string } | undefined)?.phase;
    if (phase !== 'Released' || spec.persistentVolumeReclaimPolicy !== 'Delete') return;
    try {
      await this.#opts.volumes.delete('', name, { preconditions: { uid: volume.metadata.uid! } });
    } catch (err) {
      if (!(isStatusError(err) && (err.code === 404 || err.code === 409))) throw err;
    }
  }
}
