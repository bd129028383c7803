// The root CA publisher: every namespace has the kube-root-ca.crt ConfigMap that token volumes project.
import { isStatusError, type KubeObject } from '../api/index.ts';
import { parseFieldSelector } from '../api/fields.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer } from './runtime/index.ts';

/** The ConfigMap's name and the annotation upstream writes on it. */
export const rootCaConfigMapName = 'kube-root-ca.crt';
const descriptionAnnotation = 'kubernetes.io/description';
const description = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

function isActive(ns: KubeObject): boolean {
  const phase = (ns.status as { phase?: string } | undefined)?.phase;
  return ns.metadata.deletionTimestamp === undefined && phase !== 'Terminating';
}

/**
 * Upstream's root-ca-cert-publisher controller, in-process: every active namespace has a
 * `kube-root-ca.crt` ConfigMap whose `ca.crt` is the CA that signed the serving
 * certificate; made when a namespace appears, made again when deleted, put back when changed.
 */
export class RootCaPublisher {
  private readonly namespaces: Store;
  private readonly configMaps: Store;
  private readonly caPem: string;
  private readonly controller: Controller;

  constructor(opts: { namespaces: Store; configMaps: Store; caPem: string; log: (message: string) => void }) {
    this.namespaces = opts.namespaces;
    this.configMaps = opts.configMaps;
    this.caPem = opts.caPem;
    const namespaceInformer = new Informer({ source: opts.namespaces, resource: 'namespaces', log: opts.log });
    const configMapInformer = new Informer({
      source: opts.configMaps, resource: 'configmaps', filter: { fields: parseFieldSelector(`metadata.name=${rootCaConfigMapName}`) }, log: opts.log,
    });
    this.controller = new Controller({
      name: 'root-ca-cert-publisher', informers: [namespaceInformer, configMapInformer], reconcile: (namespace) => this.ensure(namespace), log: opts.log,
    });
    const enqueueIfActive = (ns: KubeObject) => {
      if (isActive(ns)) this.controller.queue.add(ns.metadata.name!);
    };
    namespaceInformer.addHandlers({ add: enqueueIfActive, update: (_, ns) => enqueueIfActive(ns) });
    const enqueueNamespace = (cm: KubeObject) => this.controller.queue.add(cm.metadata.namespace!);
    configMapInformer.addHandlers({ update: (_, cm) => enqueueNamespace(cm), delete: enqueueNamespace });
  }

  async start(): Promise<void> {
    await this.controller.start();
  }

  close(): Promise<void> {
    return this.controller.stop();
  }

  private async ensure(namespace: string): Promise<void> {
    const existing = await this.configMaps.find(namespace, rootCaConfigMapName);
    const data = { 'ca.crt': this.caPem };
    try {
      if (existing === undefined) {
        const ns = await this.namespaces.find('', namespace);
        if (ns === undefined || !isActive(ns)) return;
        await this.configMaps.create(namespace, {
          apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: rootCaConfigMapName, annotations: { [descriptionAnnotation]: description } }, data,
        });
        return;
      }
      const current = existing as KubeObject & { data?: Record<string, string> };
      if (current.data?.['ca.crt'] === this.caPem && Object.keys(current.data).length === 1 && current.metadata.annotations?.[descriptionAnnotation] === description) return;
      await this.configMaps.update(namespace, rootCaConfigMapName, {
        ...current, metadata: { ...current.metadata, annotations: { ...current.metadata.annotations, [descriptionAnnotation]: description } }, data,
      } as KubeObject);
    } catch (err) {
      // Made or changed meanwhile (the informer brings it back), or the namespace began terminating.
      if (isStatusError(err) && (err.reason === 'AlreadyExists' || err.reason === 'Conflict' || err.code === 403 || err.code === 404)) return;
      throw err;
    }
  }
}
