// The Node authorizer's graph (upstream's plugin/pkg/auth/authorizer/node/graph.go): which
// objects a node may read because a pod bound to it uses them. Edges point from what is
// used to its user, ending at a node: secret → pod → node, pvc → pod, pv → pvc,
// secret → pv, serviceaccount → pod, resourceclaim → pod, volumeattachment → node,
// resourceslice → node. An edge into a pod or node carries the node it leads to, so a
// search from a secret never walks through another node's pods.
import type { KubeObject } from '../api/index.ts';

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
    const spec = asRecord(pod.spec);
    const nodeName = str(spec.nodeName);
    const podKey = key('pod', namespace, name);
    this.#deleteVertex(podKey);
    const nodeKey = key('node', '', nodeName);
    this.#addEdge(podKey, nodeKey, nodeName);
    if (Object.hasOwn(pod.metadata.annotations ?? {}, mirrorPodAnnotation)) return;
    const serviceAccount = str(spec.serviceAccountName);
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
    const claimRefValue = asRecord(pv.spec).claimRef;
    if (claimRefValue === undefined || claimRefValue === null) return;
    const claimRef = asRecord(claimRefValue);
    this.#addEdge(pvKey, key('pvc', str(claimRef.namespace), str(claimRef.name)), '');
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

/** The annotation a kubelet puts on the mirror pod of a static pod. */
export const mirrorPodAnnotation = 'kubernetes.io/config.mirror';

type Rec = Record<string, unknown>;

function asRecord(value: unknown): Rec {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Rec) : {};
}

function items(value: unknown): Rec[] {
  return Array.isArray(value) ? value.map(asRecord) : [];
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Init, regular and ephemeral containers, as upstream's VisitContainers with AllContainers. */
function allContainers(spec: Rec): Rec[] {
  return [...items(spec.initContainers), ...items(spec.containers), ...items(spec.ephemeralContainers)];
}

/** Secret names a pod uses (upstream's VisitPodSecretNames): pull secrets, environment, volumes. */
export function podSecretNames(pod: KubeObject): string[] {
  const spec = asRecord(pod.spec);
  const names = items(spec.imagePullSecrets).map((ref) => str(ref.name));
  for (const container of allContainers(spec)) {
    for (const from of items(container.envFrom)) {
      if (from.secretRef !== undefined && from.secretRef !== null) names.push(str(asRecord(from.secretRef).name));
    }
    for (const env of items(container.env)) {
      const ref = asRecord(env.valueFrom).secretKeyRef;
      if (ref !== undefined && ref !== null) names.push(str(asRecord(ref).name));
    }
  }
  for (const volume of items(spec.volumes)) {
    const source = volumeSource(volume);
    if (source === undefined) continue;
    const [kind, value] = source;
    switch (kind) {
      case 'azureFile': if (str(value.secretName) !== '') names.push(str(value.secretName)); break;
      case 'secret': names.push(str(value.secretName)); break;
      case 'projected':
        for (const projection of items(value.sources)) {
          if (projection.secret !== undefined && projection.secret !== null) names.push(str(asRecord(projection.secret).name));
        }
        break;
      case 'csi': if (value.nodePublishSecretRef != null) names.push(str(asRecord(value.nodePublishSecretRef).name)); break;
      case 'cephfs': case 'cinder': case 'flexVolume': case 'rbd': case 'scaleIO': case 'iscsi': case 'storageos':
        if (value.secretRef != null) names.push(str(asRecord(value.secretRef).name));
        break;
    }
  }
  return names;
}

/** ConfigMap names a pod uses (upstream's VisitPodConfigmapNames). */
export function podConfigMapNames(pod: KubeObject): string[] {
  const spec = asRecord(pod.spec);
  const names: string[] = [];
  for (const container of allContainers(spec)) {
    for (const from of items(container.envFrom)) {
      if (from.configMapRef != null) names.push(str(asRecord(from.configMapRef).name));
    }
    for (const env of items(container.env)) {
      const ref = asRecord(env.valueFrom).configMapKeyRef;
      if (ref != null) names.push(str(asRecord(ref).name));
    }
  }
  for (const volume of items(spec.volumes)) {
    const source = volumeSource(volume);
    if (source === undefined) continue;
    const [kind, value] = source;
    if (kind === 'configMap') names.push(str(value.name));
    else if (kind === 'projected') {
      for (const projection of items(value.sources)) {
        if (projection.configMap != null) names.push(str(asRecord(projection.configMap).name));
      }
    }
  }
  return names;
}

/** The claims a pod's volumes use: named ones, and an ephemeral volume's `<pod>-<volume>`. */
export function podVolumeClaimNames(pod: KubeObject): string[] {
  const names: string[] = [];
  for (const volume of items(asRecord(pod.spec).volumes)) {
    const source = volumeSource(volume);
    if (source === undefined) continue;
    const [kind, value] = source;
    let claim = '';
    if (kind === 'persistentVolumeClaim') claim = str(value.claimName);
    else if (kind === 'ephemeral') claim = `${pod.metadata.name ?? ''}-${str(volume.name)}`;
    if (claim !== '') names.push(claim);
  }
  return names;
}

/**
 * The ResourceClaims a pod uses (upstream's resourceclaim.Name): a claim named in the
 * spec, or the one its status names for a claim made from a template (none while the
 * status has no entry for it yet); and the claim of its extended resources.
 */
export function podResourceClaimNames(pod: KubeObject): string[] {
  const names: string[] = [];
  const statuses = items(asRecord(pod.status).resourceClaimStatuses);
  for (const claim of items(asRecord(pod.spec).resourceClaims)) {
    if (typeof claim.resourceClaimName === 'string') names.push(claim.resourceClaimName);
    else if (typeof claim.resourceClaimTemplateName === 'string') {
      const status = statuses.find((s) => s.name === claim.name);
      if (status !== undefined && typeof status.resourceClaimName === 'string') names.push(status.resourceClaimName);
    }
  }
  const extended = str(asRecord(asRecord(pod.status).extendedResourceClaimStatus).resourceClaimName);
  if (extended !== '') names.push(extended);
  return names;
}

/** Whether two pods' claim statuses name the same claims (the populator redoes a pod's edges when not). */
export function sameResourceClaimStatuses(a: KubeObject, b: KubeObject): boolean {
  const left = items(asRecord(a.status).resourceClaimStatuses);
  const right = items(asRecord(b.status).resourceClaimStatuses);
  return left.length === right.length && left.every((s, i) => s.name === right[i]!.name && (s.resourceClaimName ?? null) === (right[i]!.resourceClaimName ?? null));
}

/**
 * The secrets a PersistentVolume's source names (upstream's VisitPVSecretNames); those a
 * kubelet reads are `kubeletVisible` (a CSI driver's controller secrets are not). A
 * reference without a namespace is in the bound claim's, as volumes persisted before
 * secret namespaces existed.
 */
export function pvSecretRefs(pv: KubeObject): { namespace: string; name: string; kubeletVisible: boolean }[] {
  const spec = asRecord(pv.spec);
  const claimNamespace = str(asRecord(spec.claimRef).namespace);
  const out: { namespace: string; name: string; kubeletVisible: boolean }[] = [];
  const add = (namespace: string, name: string, kubeletVisible = true) => {
    if (name !== '') out.push({ namespace, name, kubeletVisible });
  };
  const source = volumeSource(spec);
  if (source === undefined) return out;
  const [kind, value] = source;
  const ref = asRecord(value.secretRef);
  switch (kind) {
    case 'azureFile': add(str(value.secretNamespace) || claimNamespace, str(value.secretName)); break;
    case 'cephfs': case 'flexVolume': case 'rbd': case 'scaleIO': case 'iscsi':
      if (value.secretRef != null) add(str(ref.namespace) || claimNamespace, str(ref.name));
      break;
    case 'cinder': case 'storageos':
      if (value.secretRef != null) add(str(ref.namespace), str(ref.name));
      break;
    case 'csi':
      for (const [field, kubeletVisible] of [['controllerPublishSecretRef', false], ['controllerExpandSecretRef', false], ['nodePublishSecretRef', true], ['nodeStageSecretRef', true], ['nodeExpandSecretRef', true]] as const) {
        if (value[field] != null) add(str(asRecord(value[field]).namespace), str(asRecord(value[field]).name), kubeletVisible);
      }
      break;
  }
  return out;
}

/** The volume sources upstream's visitors look at, in the order of their switch: the first one set wins. */
const volumeSources = [
  'azureFile', 'cephfs', 'cinder', 'flexVolume', 'projected', 'rbd', 'secret', 'scaleIO', 'iscsi', 'storageos', 'csi',
  'configMap', 'persistentVolumeClaim', 'ephemeral',
] as const;

function volumeSource(volume: Rec): [(typeof volumeSources)[number], Rec] | undefined {
  for (const kind of volumeSources) {
    const value = volume[kind];
    if (value !== undefined && value !== null) return [kind, asRecord(value)];
  }
  return undefined;
}
