// `--authorization-mode Node` wiring: the Node authorizer's graph kept by informers on the
// registry's pods, PersistentVolumes, VolumeAttachments and ResourceSlices (upstream's
// graph_populator.go), and the static rules of the bootstrap `system:node` ClusterRole.
import type { KubeObject } from '../api/index.ts';
import { bootstrapPolicy } from '../auth/bootstrap-policy.ts';
import { NodeAuthorizer } from '../auth/node-authorizer.ts';
import { nodeNameOf, sameResourceClaimStatuses } from '../api/pod-references.ts';
import { NodeGraph } from '../auth/node-graph.ts';
import type { PolicyRule } from '../auth/rbac-rules.ts';
import { Informer } from '../controllers/runtime/index.ts';
import type { ResourceRegistry } from '../registry/registry.ts';

export class NodeAuthorization {
  readonly graph = new NodeGraph();
  readonly authorizer: NodeAuthorizer;
  readonly #informers: Informer[] = [];

  constructor(registry: ResourceRegistry, log: (message: string) => void) {
    const nodeRole = bootstrapPolicy().clusterRoles.find((role) => role.metadata.name === 'system:node');
    this.authorizer = new NodeAuthorizer(this.graph, (nodeRole?.rules ?? []) as PolicyRule[]);
    const informer = (group: string, version: string, resource: string): Informer | undefined => {
      const store = registry.lookup(group, version, resource)?.store;
      if (store === undefined) return undefined;
      const made = new Informer({ source: store, resource, log });
      this.#informers.push(made);
      return made;
    };
    const graph = this.graph;

    informer('', 'v1', 'pods')?.addHandlers({
      add: (pod) => addPod(graph, undefined, pod),
      update: (old, pod) => addPod(graph, old, pod),
      delete: (pod) => {
        if (nodeNameOf(pod) !== '') graph.deletePod(pod.metadata.namespace ?? '', pod.metadata.name ?? '');
      },
    });
    informer('', 'v1', 'persistentvolumes')?.addHandlers({
      add: (pv) => graph.addPV(pv),
      update: (_old, pv) => graph.addPV(pv),
      delete: (pv) => graph.deletePV(pv.metadata.name ?? ''),
    });
    informer('storage.k8s.io', 'v1', 'volumeattachments')?.addHandlers({
      add: (va) => graph.addAttached('volumeattachment', va.metadata.name ?? '', nodeNameOf(va)),
      update: (old, va) => {
        if (nodeNameOf(old) !== nodeNameOf(va)) graph.addAttached('volumeattachment', va.metadata.name ?? '', nodeNameOf(va));
      },
      delete: (va) => graph.deleteAttached('volumeattachment', va.metadata.name ?? ''),
    });
    // A slice's nodeName never changes: updates change nothing here.
    informer('resource.k8s.io', 'v1', 'resourceslices')?.addHandlers({
      add: (slice) => graph.addAttached('resourceslice', slice.metadata.name ?? '', nodeNameOf(slice)),
      delete: (slice) => graph.deleteAttached('resourceslice', slice.metadata.name ?? ''),
    });
  }

  /** Resolves once every informer holds its first list: the graph is then current. */
  async start(): Promise<void> {
    await Promise.all(this.#informers.map((informer) => informer.start()));
  }

  async close(): Promise<void> {
    await Promise.all(this.#informers.map((informer) => informer.stop()));
  }
}


/**
 * A bound pod's edges, made again only when what they depend on changed: its node, its
 * uid (another pod of the same name) or the claims its status names. Everything else a
 * pod references is fixed once it is bound.
 */
function addPod(graph: NodeGraph, old: KubeObject | undefined, pod: KubeObject): void {
  const nodeName = nodeNameOf(pod);
  if (nodeName === '') return;
  if (old !== undefined && nodeNameOf(old) === nodeName && old.metadata.uid === pod.metadata.uid && sameResourceClaimStatuses(old, pod)) return;
  graph.addPod(pod);
}
