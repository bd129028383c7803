// The Node authorizer's graph (upstream's plugin/pkg/auth/authorizer/node/graph.go): which
// objects a node may read because a pod bound to it uses them. Edges point from what is
// used to its user, ending at a node: secret → pod → node, pvc → pod, pv → pvc,
// secret → pv, serviceaccount → pod, resourceclaim → pod, volumeattachment → node,
// resourceslice → node. An edge into a pod or node carries the node it leads to, so a
// search from a secret never walks through another node's pods.
import type { KubeObject } from '../api/index.ts';
import { mirrorPodAnnotation, podConfigMapNames, podResourceClaimNames, podSecretNames, podVolumeClaimNames, pvSecretRefs } from '../api/pod-references.ts';

/** The kinds of vertex, named as upstream's vertexTypes (they appear in no message here). */
export type VertexType = 'configmap' | 'node' | 'pod' | 'pv' | 'pvc' | 'resourceclaim' | 'resourceslice' | 'secret' | 'serviceaccount' | 'volumeattachment';

type Key = string;

function key(type: VertexType, namespace: string, name: string): Key {
  return `${type}/${namespace}/${name}`;
}

export class NodeGraph {
  /** from → (to → the node the edge leads to, '' for none). */
  readonly #out = new Map<Key, Map<Key, string>>();
  /** to → from: what points at a vertex, to remove its edges with it. */
  readonly #in = new Map<Key, Set<Key>>();

  /**
   * A pod bound to a node (call only once `spec.nodeName` is set): its edges are made anew.
   * A mirror pod (the kubelet's copy of a static pod) reaches its node and nothing else:
   * a node must never grant itself access by creating a pod.
   */
  addPod(pod: KubeObject): void {
    const namespace = pod.metadata.namespace ?? '';
    const name = pod.metadata.name ?? '';
    const spec = (pod.spec ?? {}) as { nodeName?: unknown; serviceAccountName?: unknown };
    const nodeName = typeof spec.nodeName === 'string' ? spec.nodeName : '';
    const podKey = key('pod', namespace, name);
    this.#deleteVertex(podKey);
    const nodeKey = key('node', '', nodeName);
    this.#addEdge(podKey, nodeKey, nodeName);
    if (Object.hasOwn(pod.metadata.annotations ?? {}, mirrorPodAnnotation)) return;
    const serviceAccount = typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : '';
    if (serviceAccount !== '') this.#addEdge(key('serviceaccount', namespace, serviceAccount), podKey, nodeName);
    for (const secret of podSecretNames(pod)) this.#addEdge(key('secret', namespace, secret), podKey, nodeName);
    for (const configMap of podConfigMapNames(pod)) this.#addEdge(key('configmap', namespace, configMap), podKey, nodeName);
    for (const claim of podVolumeClaimNames(pod)) this.#addEdge(key('pvc', namespace, claim), podKey, nodeName);
    for (const claim of podResourceClaimNames(pod)) this.#addEdge(key('resourceclaim', namespace, claim), podKey, nodeName);
  }

  deletePod(namespace: string, name: string): void {
    this.#deleteVertex(key('pod', namespace, name));
  }

  /** A volume bound to a claim reaches the claim, and the secrets the kubelet uses for it reach the volume. */
  addPV(pv: KubeObject): void {
    const name = pv.metadata.name ?? '';
    const pvKey = key('pv', '', name);
    this.#deleteVertex(pvKey);
    const claimRef = (pv.spec as { claimRef?: { namespace?: unknown; name?: unknown } | null } | undefined)?.claimRef;
    if (claimRef === undefined || claimRef === null) return;
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    this.#addEdge(pvKey, key('pvc', text(claimRef.namespace), text(claimRef.name)), '');
    for (const secret of pvSecretRefs(pv)) {
      if (secret.kubeletVisible) this.#addEdge(key('secret', secret.namespace, secret.name), pvKey, '');
    }
  }

  deletePV(name: string): void {
    this.#deleteVertex(key('pv', '', name));
  }

  /** A VolumeAttachment (or a ResourceSlice) reaches the node it names; with none, it is in no edge. */
  addAttached(type: 'volumeattachment' | 'resourceslice', name: string, nodeName: string): void {
    const from = key(type, '', name);
    this.#deleteVertex(from);
    if (nodeName !== '') this.#addEdge(from, key('node', '', nodeName), nodeName);
  }

  deleteAttached(type: 'volumeattachment' | 'resourceslice', name: string): void {
    this.#deleteVertex(key(type, '', name));
  }

  /**
   * Whether a path leads from the object to the node, never through an edge that leads
   * to another node (upstream's hasPathFrom).
   */
  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    const nodeKey = key('node', '', nodeName);
    if (!this.#in.has(nodeKey)) return false;
    const start = key(type, namespace, name);
    const seen = new Set<Key>([start]);
    const pending: Key[] = [start];
    while (pending.length > 0) {
      const edges = this.#out.get(pending.pop()!);
      if (edges === undefined) continue;
      for (const [to, destination] of edges) {
        if (destination !== '' && destination !== nodeName) continue;
        if (to === nodeKey) return true;
        if (!seen.has(to)) {
          seen.add(to);
          pending.push(to);
        }
      }
    }
    return false;
  }

  /** Vertices in at least one edge, for tests: a vertex with no edges left is gone. */
  get size(): number {
    const keys = new Set<Key>([...this.#out.keys(), ...this.#in.keys()]);
    return keys.size;
  }

  #addEdge(from: Key, to: Key, destination: string): void {
    let edges = this.#out.get(from);
    if (edges === undefined) this.#out.set(from, (edges = new Map()));
    edges.set(to, destination);
    let sources = this.#in.get(to);
    if (sources === undefined) this.#in.set(to, (sources = new Set()));
    sources.add(from);
  }

  #deleteVertex(vertex: Key): void {
    const edges = this.#out.get(vertex);
    if (edges !== undefined) {
      for (const to of edges.keys()) {
        const sources = this.#in.get(to)!;
        sources.delete(vertex);
        if (sources.size === 0) this.#in.delete(to);
      }
      this.#out.delete(vertex);
    }
    const sources = this.#in.get(vertex);
    if (sources !== undefined) {
      for (const from of sources) {
        const fromEdges = this.#out.get(from)!;
        fromEdges.delete(vertex);
        if (fromEdges.size === 0) this.#out.delete(from);
      }
      this.#in.delete(vertex);
    }
  }
}
