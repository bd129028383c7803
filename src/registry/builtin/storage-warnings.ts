// Warnings for storage objects and the volumes pods use, after kubernetes
// pkg/api/persistentvolumeclaim/util.go (GetWarningsForPersistentVolumeClaim[Spec]),
// pkg/api/persistentvolume/util.go (GetWarningsForPersistentVolume), pkg/api/storage/util.go
// (GetWarningsForStorageClass, GetWarningsForCSIStorageCapacity), and the deprecated volume
// plugins pkg/api/pod/warnings.go names in the same words.

import type { KubeObject } from '../../api/index.ts';
import { formatQuantity, milliValue, parseQuantity } from '../../api/quantity.ts';
import { appendAll, child, goQuote, index, key, type FieldPath } from '../validation/field.ts';
import { nodeLabelDeprecatedMessage, nodeSelectorTermWarnings } from './node-label-warnings.ts';
import { isObject } from '../../api/json.ts';
import { itemsAt, objectAt, stringAt } from './object.ts';

/** Volume plugins gone or going, by their v1 field: the name upstream's message path gives it, and why. */
const deprecatedVolumePlugins: Readonly<Record<string, readonly [pathName: string, message: string]>> = {
  photonPersistentDisk: ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  // The GitRepoVolumeDriver gate is off by default since v1.33.
  gitRepo: ['gitRepo', 'deprecated in v1.11, and disabled by default in v1.33+'],
  scaleIO: ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  flocker: ['flocker', 'deprecated in v1.22, non-functional in v1.25+'],
  // Upstream's path names the Go field.
  storageos: ['storageOS', 'deprecated in v1.22, non-functional in v1.25+'],
  quobyte: ['quobyte', 'deprecated in v1.22, non-functional in v1.25+'],
  glusterfs: ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
  cephfs: ['cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  rbd: ['rbd', 'deprecated in v1.28, non-functional in v1.31+'],
};

/** The warnings for the deprecated plugins `source` (a volume or a PersistentVolume's spec) uses, in the order given. */
export function deprecatedVolumePluginWarnings(source: unknown, plugins: readonly string[], path: FieldPath): string[] {
  return plugins.flatMap((plugin) => {
    const [pathName, message] = deprecatedVolumePlugins[plugin]!;
    return objectAt(source, plugin) !== undefined ? [`${child(path, pathName)}: ${message}`] : [];
  });
}

const wholeQuantity = /^\+?\d+(?:[kMGTPE]|[KMGTPE]i)?$/;

/**
 * Whether a quantity is absent or plainly whole (digits with no fraction, exponent or
 * sub-unit suffix, as most are): what needs no parse to know it warns of nothing.
 */
export function isWholeBytes(value: unknown): boolean {
  return value === undefined || (typeof value === 'string' && wholeQuantity.test(value));
}

/** A memory or storage quantity that is no whole number of bytes (its milli-value not a multiple of 1000), printed canonically. */
export function fractionalBytesWarnings(value: unknown, path: FieldPath): string[] {
  if (isWholeBytes(value)) return [];
  const quantity = parseQuantity(value);
  if (quantity === undefined || milliValue(quantity) % 1000n === 0n) return [];
  return [`${path}: fractional byte value ${goQuote(formatQuantity(quantity))} is invalid, must be an integer`];
}

/** The annotation that named a volume's or claim's class before spec.storageClassName. */
export const betaStorageClassAnnotation = 'volume.beta.kubernetes.io/storage-class';
const deprecatedStorageClassAnnotation = 'deprecated since v1.8; use "storageClassName" attribute instead';

function betaStorageClassWarnings(obj: KubeObject): string[] {
  if (obj.metadata.annotations?.[betaStorageClassAnnotation] === undefined) return [];
  return [`${key('metadata.annotations', betaStorageClassAnnotation)}: ${deprecatedStorageClassAnnotation}`];
}

/** Upstream's GetWarningsForPersistentVolumeClaimSpec: fractional storage requests and limits. */
export function persistentVolumeClaimSpecWarnings(spec: unknown, path: FieldPath): string[] {
  const resources = objectAt(spec, 'resources');
  return ['requests', 'limits'].flatMap((kind) => fractionalBytesWarnings(objectAt(resources, kind)?.storage, key(child(path, 'resources', kind), 'storage')));
}

/** Upstream's GetWarningsForPersistentVolumeClaim: the beta storage-class annotation, then the spec's. */
export function persistentVolumeClaimWarnings(pvc: KubeObject): string[] {
  return [...betaStorageClassWarnings(pvc), ...persistentVolumeClaimSpecWarnings(objectAt(pvc, 'spec'), 'spec')];
}

/**
 * Upstream's GetWarningsForPersistentVolume: the beta storage-class annotation, the Recycle
 * reclaim policy, deprecated node labels in the node affinity, deprecated volume plugins.
 */
export function persistentVolumeWarnings(pv: KubeObject): string[] {
  const spec = objectAt(pv, 'spec');
  const warnings = betaStorageClassWarnings(pv);
  if (stringAt(spec, 'persistentVolumeReclaimPolicy') === 'Recycle') {
    warnings.push('spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.');
  }
  itemsAt(objectAt(objectAt(spec, 'nodeAffinity'), 'required'), 'nodeSelectorTerms').forEach((term, i) => {
    appendAll(warnings, nodeSelectorTermWarnings(term, false, index('spec.nodeAffinity.required.nodeSelectorTerms', i)));
  });
  appendAll(warnings, deprecatedVolumePluginWarnings(spec, ['cephfs', 'photonPersistentDisk', 'scaleIO', 'storageos', 'glusterfs', 'rbd'], 'spec'));
  return warnings;
}

/** Upstream's GetWarningsForStorageClass: deprecated node labels in allowedTopologies. */
export function storageClassWarnings(sc: KubeObject): string[] {
  return itemsAt(sc, 'allowedTopologies').flatMap((topology, i) => itemsAt(topology, 'matchLabelExpressions').flatMap((expression, j) => {
    const deprecated = nodeLabelDeprecatedMessage(stringAt(expression, 'key'));
    return deprecated === undefined ? [] : [`allowedTopologies[${i}].matchLabelExpressions[${j}].key: ${deprecated}`];
  }));
}

/**
 * Upstream's GetWarningsForCSIStorageCapacity (pkg/api/node's GetWarningsForNodeSelector on
 * nodeTopology): deprecated node labels its match expressions key on, then its match labels.
 */
export function csiStorageCapacityWarnings(capacity: KubeObject): string[] {
  const topology = objectAt(capacity, 'nodeTopology');
  const warnings = itemsAt(topology, 'matchExpressions').flatMap((expression, i) => {
    const label = stringAt(expression, 'key');
    const deprecated = nodeLabelDeprecatedMessage(label);
    return deprecated === undefined ? [] : [`${child(index('nodeTopology.matchExpressions', i), 'key')}: ${label} is ${deprecated}`];
  });
  const matchLabels = topology?.matchLabels;
  for (const label of isObject(matchLabels) ? Object.keys(matchLabels) : []) {
    const deprecated = nodeLabelDeprecatedMessage(label);
    // A child path, not a key: upstream names the label after a dot.
    if (deprecated !== undefined) warnings.push(`${child('nodeTopology.matchLabels', label)}: ${deprecated}`);
  }
  return warnings;
}
