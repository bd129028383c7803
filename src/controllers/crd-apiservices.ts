// kube-apiserver's CRD registration and autoregister controllers, in-process: every version a
// CustomResourceDefinition serves has a local APIService (`<version>.<group>`, labelled
// `kube-aggregator.kubernetes.io/automanaged: "true"`, groupPriorityMinimum 1000,
// versionPriority 100, Available because local), as `kubectl get apiservices` shows them in
// any cluster; it goes when no CRD serves that group and version any more. The built-in
// groups' APIServices ("onstart", made at start) are left alone.
import { isStatusError, type KubeObject } from '../api/index.ts';
import { parseLabelSelector } from '../api/labels.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer } from './runtime/index.ts';

type Raw = Record<string, unknown>;

const automanagedLabel = 'kube-aggregator.kubernetes.io/automanaged';

/** The `<version>.<group>` names of the versions a CRD serves. */
function servedNames(crd: KubeObject): string[] {
  const spec = (crd.spec ?? {}) as Raw;
  const group = typeof spec.group === 'string' ? spec.group : '';
  const versions = Array.isArray(spec.versions) ? (spec.versions as Raw[]) : [];
  return versions.filter((v) => v.served === true && typeof v.name === 'string').map((v) => `${v.name as string}.${group}`);
}

export class CrdApiServices {
  readonly #apiServices: Store;
  readonly #crdInformer: Informer;
  readonly #apiServiceInformer: Informer;
  readonly #controller: Controller;

  constructor(opts: { crds: Store; apiServices: Store; log: (message: string) => void }) {
    this.#apiServices = opts.apiServices;
    this.#crdInformer = new Informer({ source: opts.crds, resource: 'customresourcedefinitions', log: opts.log });
    this.#apiServiceInformer = new Informer({ source: opts.apiServices, resource: 'apiservices', filter: { labels: parseLabelSelector(`${automanagedLabel}=true`) }, log: opts.log });
    this.#controller = new Controller({ name: 'crd-autoregistration', informers: [this.#crdInformer, this.#apiServiceInformer], reconcile: (name) => this.#sync(name), log: opts.log });
    const enqueueCrd = (crd: KubeObject) => {
      for (const name of servedNames(crd)) this.#controller.queue.add(name);
    };
    this.#crdInformer.addHandlers({
      add: enqueueCrd,
      update: (old, crd) => {
        enqueueCrd(old);
        enqueueCrd(crd);
      },
      delete: enqueueCrd,
    });
    const enqueueApiService = (o: KubeObject) => this.#controller.queue.add(o.metadata.name!);
    this.#apiServiceInformer.addHandlers({ add: enqueueApiService, update: (_, o) => enqueueApiService(o), delete: enqueueApiService });
  }

  async start(): Promise<void> {
    await this.#controller.start();
  }

  close(): Promise<void> {
    return this.#controller.stop();
  }

  async #sync(name: string): Promise<void> {
    const served = this.#crdInformer.store.list().some((crd) => crd.metadata.deletionTimestamp === undefined && servedNames(crd).includes(name));
    const existing = await this.#apiServices.find('', name);
    const automanaged = existing?.metadata.labels?.[automanagedLabel];
    if (!served) {
      if (automanaged !== 'true') return;
      await this.#apiServices.delete('', name, { preconditions: { uid: existing!.metadata.uid! } }).catch((err: unknown) => {
        if (!(isStatusError(err) && (err.code === 404 || err.code === 409))) throw err;
      });
      return;
    }
    // A built-in group's, or one a user made: not this controller's.
    if (existing !== undefined && automanaged !== 'true') return;
    const dot = name.indexOf('.');
    const spec = { group: name.slice(dot + 1), version: name.slice(0, dot), groupPriorityMinimum: 1000, versionPriority: 100 };
    let current = existing;
    if (current === undefined) {
      try {
        current = await this.#apiServices.create('', {
          apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name, labels: { [automanagedLabel]: 'true' } }, spec,
        });
      } catch (err) {
        if (isStatusError(err) && err.code === 409) return;
        throw err;
      }
    }
    const conditions = (((current as Raw).status as Raw | undefined)?.conditions ?? []) as Raw[];
    if (conditions.some((c) => c.type === 'Available' && c.reason === 'Local')) return;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    await this.#apiServices.guaranteedUpdate('', name, undefined, {}, (stored) => {
      if (stored === undefined) throw Object.assign(new Error('gone'), { gone: true });
      return { ...stored, status: { conditions: [{ type: 'Available', status: 'True', lastTransitionTime: now, reason: 'Local', message: 'Local APIServices are always available' }] } } as KubeObject;
    }, { subresource: 'status' }).catch((err: unknown) => {
      if (!(err as { gone?: boolean }).gone && !(isStatusError(err) && err.code === 404)) throw err;
    });
  }
}
