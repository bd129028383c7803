// What a pod or PersistentVolume references by name, as upstream's pod and volume visitors
// (pkg/api/v1/pod VisitPodSecretNames, VisitPodConfigmapNames; persistentvolume
// VisitPVSecretNames): the Node authorizer's graph and NodeRestriction read them.
import type { KubeObject } from './types.ts';

/** `spec.nodeName` of a pod (or a VolumeAttachment, a ResourceSlice); '' when unset. */
export function nodeNameOf(object: KubeObject): string {
  const spec = object.spec as { nodeName?: unknown } | undefined;
  return typeof spec?.nodeName === 'string' ? spec.nodeName : '';
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

/** Whether two pods' claim statuses name the same claims, in order (upstream's resourceClaimStatusesEqual). */
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
