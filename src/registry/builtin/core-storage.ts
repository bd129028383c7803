// core/v1 persistentvolumes and persistentvolumeclaims, after kubernetes
// pkg/apis/core/v1/defaults.go, pkg/apis/core/validation (PersistentVolume*),
// pkg/volume/validation (the mount-options annotation), pkg/api/persistentvolumeclaim (a
// claim's data sources), pkg/registry/core/persistentvolume(claim)/strategy.go and printers.go.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, child, fieldImmutable, forbidden, goJson, type FieldPath, GoValue, index, invalid, key, notSupported, required } from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain, isLabelValue, isQualifiedName } from '../validation/names.ts';
import { keepOldSpec, keepOldStatus, nowTimestamp } from './common.ts';
import { arrayAt, ensureObject, itemsAt, objectAt, present, semanticEqual, stringAt } from './object.ts';
import { canonicalQuantity, compareQuantity, integerValue, isNegative, isPositive, parseQuantity, type Quantity } from '../../api/quantity.ts';
import {
  iscsiPortalTooLong, pathWithoutBacksteps, requireStrings, secretRefFields, validateCSIDriverName, validateHostPathBeyondPath,
  validateISCSIInitiator, validateISCSITarget, validateStorageOS, validateVolumeSource,
} from './pod-volume-sources.ts';
import { validateNodeSelectorTerm } from './pod-scheduling.ts';
import { validateLabelSelector } from './selector-validation.ts';
import { isNativeResource } from './resource-names.ts';
import { builtinType } from './skeleton.ts';
import { betaStorageClassAnnotation, persistentVolumeClaimWarnings, persistentVolumeWarnings } from './storage-warnings.ts';

const accessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const volumeModes = ['Block', 'Filesystem'];
const reclaimPolicies = ['Delete', 'Recycle', 'Retain'];


/** A PersistentVolume source's own checks at `path` (the source's); `pvName` is the volume's name, "" for an inline spec. */
type PersistentSourceCheck = (source: JsonObject, path: FieldPath, pvName: string) => StatusCause[];

/** validateHostPathVolumeSource and validateLocalVolumeSource: a path is required, and without one nothing else is checked. */
const pathFirst = (rest: (source: JsonObject, path: FieldPath) => StatusCause[]): PersistentSourceCheck => (source, path) => (
  stringAt(source, 'path') === '' ? [required(child(path, 'path'))] : rest(source, path)
);

/** validateGlusterfsPersistentVolumeSource: endpoints and a path; an endpointsNamespace, if set, is a namespace's name. */
const validateGlusterfs: PersistentSourceCheck = (source, path) => {
  const causes = requireStrings(source, path, 'endpoints', 'path');
  const namespace = source.endpointsNamespace;
  if (typeof namespace !== 'string') return causes;
  const namespacePath = child(path, 'endpointsNamespace');
  if (namespace === '') causes.push(invalid(namespacePath, namespace, 'if the endpointnamespace is set, it must be a valid namespace name'));
  else for (const msg of isDNS1123Label(namespace)) causes.push(invalid(namespacePath, namespace, msg));
  return causes;
};

/** How an iSCSI PersistentVolume's checks word a name of none of the three formats (a pod volume's name the formats). */
const unknownPersistentISCSIFormat = 'must be valid format';

/**
 * validateISCSIPersistentVolumeSource: a pod volume's checks, but for the wording of a name of
 * no known format; "<pv name>:<targetPortal>" is reported at targetportal, and a secretRef
 * names its secret.
 */
const validateISCSI: PersistentSourceCheck = (source, path, pvName) => {
  const causes = requireStrings(source, path, 'targetPortal');
  const tooLong = iscsiPortalTooLong(source, pvName);
  if (tooLong !== undefined) causes.push(invalid(child(path, 'targetportal'), stringAt(source, 'targetPortal'), tooLong));
  causes.push(
    ...validateISCSITarget(source, path, unknownPersistentISCSIFormat),
    ...secretRefFields(source, path, 'name'),
    ...validateISCSIInitiator(source, path, unknownPersistentISCSIFormat),
  );
  return causes;
};

/** validateAzureFilePV: a secret and a share; a secretNamespace, if set, is not empty. */
const validateAzureFile: PersistentSourceCheck = (source, path) => {
  const causes = requireStrings(source, path, 'secretName', 'shareName');
  if (source.secretNamespace === '') causes.push(required(child(path, 'secretNamespace')));
  return causes;
};

/** validatePVSecretReference: a secret's name (a DNS subdomain) and namespace (a DNS label), both required. */
function validateSecretReference(ref: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [field, check] of [['name', isDNS1123Subdomain], ['namespace', isDNS1123Label]] as const) {
    const value = stringAt(ref, field);
    if (value === '') causes.push(required(child(path, field)));
    else for (const msg of check(value)) causes.push(invalid(child(path, field), value, msg));
  }
  return causes;
}

/** The secret references of a CSI PersistentVolume upstream checks (not nodeStageSecretRef), in its order. */
const csiSecretRefs = ['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef'];

/** validateCSIPersistentVolumeSource: the driver's name, a volume handle, and each secret reference given. */
const validateCSI: PersistentSourceCheck = (source, path) => {
  const causes = [...validateCSIDriverName(stringAt(source, 'driver'), child(path, 'driver')), ...requireStrings(source, path, 'volumeHandle')];
  for (const field of csiSecretRefs) {
    const ref = objectAt(source, field);
    if (ref !== undefined) appendAll(causes, validateSecretReference(ref, child(path, field)));
  }
  return causes;
};

/**
 * The volume sources of a PersistentVolumeSpec, in the order upstream checks them, with the
 * path it reports a second source at, and the check of the PersistentVolume variant where
 * upstream has one of its own; the others are checked as a pod volume's source (upstream
 * calls the same validate<Kind>VolumeSource for both).
 */
const volumeSources: [key: string, path: string, check?: PersistentSourceCheck][] = [
  ['hostPath', 'hostPath', pathFirst(validateHostPathBeyondPath)], ['gcePersistentDisk', 'gcePersistentDisk'], ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['glusterfs', 'glusterfs', validateGlusterfs], ['flocker', 'flocker'], ['nfs', 'nfs'], ['rbd', 'rbd'], ['quobyte', 'quobyte'],
  ['cephfs', 'cephFS'], ['iscsi', 'iscsi', validateISCSI],
  ['cinder', 'cinder', (source, path) => [...requireStrings(source, path, 'volumeID'), ...secretRefFields(source, path, 'name', 'namespace')]],
  ['fc', 'fc'], ['flexVolume', 'flexVolume'], ['azureFile', 'azureFile', validateAzureFile], ['vsphereVolume', 'vsphereVolume'],
  ['photonPersistentDisk', 'photonPersistentDisk'], ['portworxVolume', 'portworxVolume'], ['azureDisk', 'azureDisk'], ['scaleIO', 'scaleIO'],
  ['local', 'local', pathFirst((source, path) => pathWithoutBacksteps(stringAt(source, 'path'), child(path, 'path')))],
  ['storageos', 'storageos', (source, path) => validateStorageOS(source, path, 'name', 'namespace')], ['csi', 'csi', validateCSI],
];

/** Access modes: each one known, ReadWriteOncePod alone. */
function validateAccessModes(modes: unknown[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let once = false;
  let other = false;
  for (const mode of modes) {
    // A typed string: json.Marshal writes it (`<`, `>`, `&` escaped), not %q.
    if (!accessModes.includes(String(mode))) causes.push(notSupported(path, goJson(mode), accessModes));
    if (mode === 'ReadWriteOncePod') once = true;
    else if (accessModes.includes(String(mode))) other = true;
  }
  if (once && other) causes.push(forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return causes;
}

function validateClassName(value: unknown, path: string): StatusCause[] {
  if (typeof value !== 'string' || value === '') return [];
  return isDNS1123Subdomain(value).map((msg) => invalid(path, value, msg));
}

/** ValidatePositiveQuantityValue. */
function validatePositiveQuantity(value: unknown, path: string): StatusCause[] {
  const q = parseQuantity(value);
  return q !== undefined && !isPositive(q) ? [invalid(path, String(value), 'must be greater than zero')] : [];
}

/** A core.ResourceList as json.Marshal writes it: a map of canonical quantities (`null` for none). */
function goResourceList(v: unknown): Record<string, string> | null {
  return isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, q]) => [k, canonicalQuantity(q)])) : null;
}

/** The internal core.VolumeNodeAffinity as json.Marshal writes it: Go field names, nil lists `null`. */
function goVolumeNodeAffinity(affinity: unknown): GoValue | null {
  if (!isObject(affinity)) return null;
  const list = <T>(v: unknown, item: (x: unknown) => T): T[] | null => (Array.isArray(v) ? v.map(item) : null);
  const requirements = (v: unknown) => list(v, (r) => ({
    Key: stringAt(r, 'key'), Operator: stringAt(r, 'operator'), Values: list(isObject(r) ? r.values : undefined, String),
  }));
  const required = objectAt(affinity, 'required');
  return goJson({
    Required: required === undefined ? null : {
      NodeSelectorTerms: list(required.nodeSelectorTerms, (t) => ({
        MatchExpressions: requirements(isObject(t) ? t.matchExpressions : undefined), MatchFields: requirements(isObject(t) ? t.matchFields : undefined),
      })),
    },
  });
}

/** The beta topology labels whose GA label a volume's node affinity may move to (upstream's betaToGALabel). */
const betaToGALabel: Record<string, string> = {
  'failure-domain.beta.kubernetes.io/zone': 'topology.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region': 'topology.kubernetes.io/region',
  'beta.kubernetes.io/os': 'kubernetes.io/os',
  'beta.kubernetes.io/arch': 'kubernetes.io/arch',
  'beta.kubernetes.io/instance-type': 'node.kubernetes.io/instance-type',
};

/** `old` with each requirement key that `updated` moved from a beta label to its GA label moved too. */
function withGALabels(updated: unknown, old: unknown): unknown {
  if (Array.isArray(old)) return old.map((item, i) => withGALabels(Array.isArray(updated) ? updated[i] : undefined, item));
  if (!isObject(old)) return old;
  const next = isObject(updated) ? updated : {};
  const out = Object.fromEntries(Object.entries(old).map(([k, v]) => [k, withGALabels(next[k], v)]));
  if (typeof old.key === 'string' && betaToGALabel[old.key] === next.key) out.key = next.key;
  return out;
}

/**
 * ValidatePersistentVolume beyond metadata, then the volume plugins' own check of the
 * mount-options annotation; `old`, on update, is the stored volume.
 */
export function validatePersistentVolume(pv: KubeObject, old?: KubeObject): StatusCause[] {
  const spec = objectAt(pv, 'spec') ?? {};
  return [...validatePersistentVolumeSpec(spec, 'spec', false, pv.metadata.name ?? '', lenientNodeAffinity(old)), ...validateMountOptionsAnnotation(pv, spec)];
}

/**
 * ValidationOptionsForPersistentVolume's AllowInvalidLabelValueInRequiredNodeAffinity: the
 * stored volume's required node affinity already held a value that is no label value
 * (helper.HasInvalidLabelValueInNodeSelectorTerms).
 */
function lenientNodeAffinity(old: KubeObject | undefined): boolean {
  const terms = itemsAt(objectAt(objectAt(objectAt(old, 'spec'), 'nodeAffinity'), 'required'), 'nodeSelectorTerms');
  return terms.some((term) => itemsAt(term, 'matchExpressions').some((req) => arrayAt(req, 'values').some((v) => isLabelValue(String(v)).length > 0)));
}

/** validateVolumeNodeAffinity: a required node selector of at least one term. */
function validateVolumeNodeAffinity(affinity: unknown, path: FieldPath, lenientValues: boolean): StatusCause[] {
  const requiredSelector = objectAt(affinity, 'required');
  if (requiredSelector === undefined) return [required(child(path, 'required'), 'must specify required node constraints')];
  const termsPath = child(path, 'required', 'nodeSelectorTerms');
  const terms = itemsAt(requiredSelector, 'nodeSelectorTerms');
  if (terms.length === 0) return [required(termsPath, 'must have at least one node selector term')];
  return terms.flatMap((term, i) => validateNodeSelectorTerm(term, !lenientValues, index(termsPath, i)));
}

/** The annotation that gave a volume's mount options before spec.mountOptions. */
const mountOptionsAnnotation = 'volume.beta.kubernetes.io/mount-options';

/** The volume sources whose plugins take mount options, as upstream's checkMountOption lists them. */
const mountOptionSources = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'cinder', 'cephfs',
  'azureFile', 'vsphereVolume', 'azureDisk', 'photonPersistentDisk',
];

/**
 * checkMountOption (pkg/volume/validation, which the PersistentVolume strategy runs after
 * ValidatePersistentVolume): the mount-options annotation, even empty, only on a volume of
 * a source listed above. Upstream checks spec.mountOptions against no source.
 */
function validateMountOptionsAnnotation(pv: KubeObject, spec: JsonObject): StatusCause[] {
  const annotations = pv.metadata.annotations ?? {};
  if (!Object.hasOwn(annotations, mountOptionsAnnotation) || mountOptionSources.some((key) => present(spec[key]))) return [];
  return [forbidden(child('metadata', 'annotations', mountOptionsAnnotation), 'may not specify mount options for this volume type')];
}

const inlineOnly = 'may not be specified in the context of inline volumes';

/**
 * ValidatePersistentVolumeSpec at `path`: a PersistentVolume's, or `inline` a
 * VolumeAttachment's inline volume spec (a CSI volume with no capacity, claim, class or
 * node affinity of its own, kept on Retain and Filesystem; upstream does not check its
 * volumeAttributesClassName there). `pvName` is the PersistentVolume's name (an inline
 * spec has none), which an iSCSI source's initiator name limits; `lenientNodeAffinityValues`
 * when the stored volume's node affinity already held values that are no label values.
 */
export function validatePersistentVolumeSpec(spec: JsonObject, path: string, inline: boolean, pvName = '', lenientNodeAffinityValues = false): StatusCause[] {
  const causes: StatusCause[] = [];
  const capacity = objectAt(spec, 'capacity');
  const capacityKeys = capacity === undefined ? [] : Object.keys(capacity);
  if (inline) {
    if (present(spec.claimRef)) causes.push(forbidden(`${path}.claimRef`, inlineOnly));
    if (capacityKeys.length > 0) causes.push(forbidden(`${path}.capacity`, inlineOnly));
    if (!present(spec.csi)) causes.push(required(`${path}.csi`, 'has to be specified in the context of inline volumes'));
  }
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) causes.push(required(`${path}.accessModes`));
  appendAll(causes, validateAccessModes(modes, `${path}.accessModes`));
  if (!inline) {
    if (capacityKeys.length === 0) causes.push(required(`${path}.capacity`));
    if (!capacityKeys.includes('storage') || capacityKeys.length > 1) causes.push(notSupported(`${path}.capacity`, goResourceList(capacity), ['storage']));
    for (const k of capacityKeys) {
      appendAll(causes, basicResourceCauses(capacity![k], `${path}.capacity[${k}]`));
      appendAll(causes, validatePositiveQuantity(capacity![k], `${path}.capacity[${k}]`));
    }
  }
  const policy = stringAt(spec, 'persistentVolumeReclaimPolicy');
  if (policy !== '') {
    if (inline) {
      if (policy !== 'Retain') causes.push(forbidden(`${path}.persistentVolumeReclaimPolicy`, 'may only be Retain in the context of inline volumes'));
    } else if (!reclaimPolicies.includes(policy)) {
      causes.push(notSupported(`${path}.persistentVolumeReclaimPolicy`, goJson(policy), reclaimPolicies));
    }
  }
  if (present(spec.nodeAffinity)) {
    if (inline) causes.push(forbidden(`${path}.nodeAffinity`, inlineOnly));
    else appendAll(causes, validateVolumeNodeAffinity(spec.nodeAffinity, `${path}.nodeAffinity`, lenientNodeAffinityValues));
  }
  let count = 0;
  for (const [key, fieldName, check] of volumeSources) {
    const source = spec[key];
    if (!present(source)) continue;
    if (count > 0 && key !== 'flexVolume') {
      causes.push(forbidden(`${path}.${fieldName}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    // A PersistentVolumeSpec holds its source as a Volume does (upstream embeds the source in both).
    if (check === undefined) appendAll(causes, validateVolumeSource(spec, key, path));
    else appendAll(causes, check(isObject(source) ? source : {}, child(path, key), pvName));
    if (key === 'local' && (inline || !present(spec.nodeAffinity))) causes.push(required(`${path}.nodeAffinity`, 'Local volume requires node affinity'));
  }
  if (count === 0) causes.push(required(path, 'must specify a volume type'));
  const hostPath = stringAt(objectAt(spec, 'hostPath'), 'path');
  if (present(spec.hostPath) && hostPath.replace(/\/+$/, '') === '' && hostPath.startsWith('/') && policy === 'Recycle') {
    causes.push(forbidden(`${path}.persistentVolumeReclaimPolicy`, "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (inline) {
    if (stringAt(spec, 'storageClassName') !== '') causes.push(forbidden(`${path}.storageClassName`, inlineOnly));
    if (present(spec.volumeMode) && spec.volumeMode !== 'Filesystem') {
      causes.push(forbidden(`${path}.volumeMode`, 'may not specify volumeMode other than Filesystem in the context of inline volumes'));
    }
    return causes;
  }
  appendAll(causes, validateClassName(spec.storageClassName, `${path}.storageClassName`));
  if (present(spec.volumeMode) && !volumeModes.includes(String(spec.volumeMode))) causes.push(notSupported(`${path}.volumeMode`, goJson(spec.volumeMode), volumeModes));
  if (present(spec.volumeAttributesClassName)) {
    if (spec.volumeAttributesClassName === '') causes.push(required(`${path}.volumeAttributesClassName`, 'an empty string is disallowed'));
    else appendAll(causes, validateClassName(spec.volumeAttributesClassName, `${path}.volumeAttributesClassName`));
    if (!present(spec.csi)) causes.push(required(`${path}.csi`, 'has to be specified when using volumeAttributesClassName'));
  }
  return causes;
}

/** The volume source part of a spec (upstream's embedded PersistentVolumeSource). */
function volumeSourceOf(spec: JsonObject | undefined): JsonObject {
  const out: JsonObject = {};
  for (const [key] of volumeSources) if (present(spec?.[key])) out[key] = spec![key]!;
  return out;
}

/** ValidatePersistentVolumeUpdate beyond the create rules. */
export function validatePersistentVolumeUpdate(pv: KubeObject, old: KubeObject): StatusCause[] {
  const spec = objectAt(pv, 'spec');
  const oldSpec = objectAt(old, 'spec');
  // Upstream's ValidatePersistentVolumeUpdate checks the spec again, but not the mount-options annotation.
  const causes = validatePersistentVolumeSpec(spec ?? {}, 'spec', false, pv.metadata.name ?? '', lenientNodeAffinity(old));
  const source = volumeSourceOf(spec);
  const oldSource = volumeSourceOf(oldSpec);
  // A CSI volume may gain a controllerExpandSecretRef it did not have.
  const oldCsi = objectAt(oldSource, 'csi');
  const csi = objectAt(source, 'csi');
  if (oldCsi !== undefined && csi !== undefined && !present(oldCsi.controllerExpandSecretRef)) {
    const { controllerExpandSecretRef: _, ...rest } = csi;
    source.csi = rest;
  }
  if (!semanticEqual(source, oldSource)) causes.push(forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  if (!semanticEqual(spec?.volumeMode, oldSpec?.volumeMode)) causes.push(invalid('volumeMode', goJson(spec?.volumeMode), fieldImmutable));
  // validatePvNodeAffinity (MutablePVNodeAffinity is off by default).
  if (present(oldSpec?.nodeAffinity) && !semanticEqual(spec?.nodeAffinity, withGALabels(spec?.nodeAffinity, oldSpec?.nodeAffinity))) {
    causes.push(invalid('nodeAffinity', goVolumeNodeAffinity(spec?.nodeAffinity), `${fieldImmutable}, except for updating from beta label to GA`));
  }
  if (present(oldSpec?.volumeAttributesClassName) && !present(spec?.volumeAttributesClassName)) {
    causes.push(forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
  }
  return causes;
}

/** ValidatePersistentVolumeClaim beyond metadata, with the options of a create, or of an update from `old`. */
export function validatePersistentVolumeClaim(pvc: KubeObject, old?: KubeObject): StatusCause[] {
  return validatePersistentVolumeClaimSpec(objectAt(pvc, 'spec') ?? {}, 'spec', old !== undefined && namedAPIGroup(objectAt(old, 'spec')));
}

/**
 * The bad value of the checks across dataSource and dataSourceRef: upstream gives the
 * field.Path of dataSource, which json.Marshal writes as {} (its fields are unexported).
 */
const fieldPathValue = goJson({});

/**
 * validateDataSource and validateDataSourceRef at `path`: a name and a kind; a kind of the
 * core group only PersistentVolumeClaim; an API group a DNS subdomain (unless the stored
 * claim already had one); and, of a dataSourceRef (`namespaced`), a namespace a DNS label.
 */
function validateDataSourceReference(ref: JsonObject, path: string, namespaced: boolean, allowInvalidAPIGroup: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  if (stringAt(ref, 'name') === '') causes.push(required(`${path}.name`));
  const kind = stringAt(ref, 'kind');
  if (kind === '') causes.push(required(`${path}.kind`));
  const apiGroup = stringAt(ref, 'apiGroup');
  if (apiGroup === '' && kind !== 'PersistentVolumeClaim') causes.push(invalid(path, kind, "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  if (apiGroup !== '' && !allowInvalidAPIGroup) for (const msg of isDNS1123Subdomain(apiGroup)) causes.push(invalid(`${path}.apiGroup`, apiGroup, msg));
  const namespace = namespaced ? stringAt(ref, 'namespace') : '';
  if (namespace !== '') for (const msg of isDNS1123Label(namespace)) causes.push(invalid(`${path}.namespace`, namespace, msg));
  return causes;
}

/**
 * ValidatePersistentVolumeClaimSpec at `path`: a claim's spec, or the claim template's of an
 * ephemeral volume. Upstream checks no resource but the storage request (limits, and other
 * requests, go unchecked), and the dataSourceRef's namespace whatever the
 * CrossNamespaceVolumeDataSource gate (the claim strategy drops such a dataSourceRef while it
 * is off; a pod's claim template keeps it). `allowInvalidAPIGroup` when the stored claim's
 * data source already named an API group.
 */
export function validatePersistentVolumeClaimSpec(spec: JsonObject, path: string, allowInvalidAPIGroup = false): StatusCause[] {
  const causes: StatusCause[] = [];
  const modes = Array.isArray(spec.accessModes) ? spec.accessModes : [];
  if (modes.length === 0) causes.push(required(`${path}.accessModes`, 'at least 1 access mode is required'));
  const selector = objectAt(spec, 'selector');
  if (selector !== undefined) appendAll(causes, validateLabelSelector(selector, `${path}.selector`));
  appendAll(causes, validateAccessModes(modes, `${path}.accessModes`));
  const requests = objectAt(objectAt(spec, 'resources'), 'requests');
  if (requests === undefined || !present(requests.storage)) causes.push(required(`${path}.resources[storage]`));
  else appendAll(causes, validatePositiveQuantity(requests.storage, `${path}.resources[storage]`));
  appendAll(causes, validateClassName(spec.storageClassName, `${path}.storageClassName`));
  // A typed string: json.Marshal writes it, as a volume's.
  if (present(spec.volumeMode) && !volumeModes.includes(String(spec.volumeMode))) causes.push(notSupported(`${path}.volumeMode`, goJson(spec.volumeMode), volumeModes));
  const source = objectAt(spec, 'dataSource');
  const sourceRef = objectAt(spec, 'dataSourceRef');
  if (source !== undefined) appendAll(causes, validateDataSourceReference(source, `${path}.dataSource`, false, allowInvalidAPIGroup));
  if (sourceRef !== undefined) appendAll(causes, validateDataSourceReference(sourceRef, `${path}.dataSourceRef`, true, allowInvalidAPIGroup));
  if (sourceRef !== undefined && stringAt(sourceRef, 'namespace') !== '') {
    if (source !== undefined) causes.push(invalid(path, fieldPathValue, 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (source !== undefined && sourceRef !== undefined && !sameReference(source, sourceRef)) {
    causes.push(invalid(path, fieldPathValue, 'must match dataSourceRef'));
  }
  appendAll(causes, validateClassName(spec.volumeAttributesClassName, `${path}.volumeAttributesClassName`));
  return causes;
}

/** isDataSourceEqualDataSourceRef: the same kind, name and API group, where an API group given (even empty) differs from none. */
function sameReference(a: JsonObject, b: JsonObject): boolean {
  const sameGroup = present(a.apiGroup) === present(b.apiGroup) && stringAt(a, 'apiGroup') === stringAt(b, 'apiGroup');
  return sameGroup && stringAt(a, 'kind') === stringAt(b, 'kind') && stringAt(a, 'name') === stringAt(b, 'name');
}

/** A reference's kind, name and, if it has one, API group: what upstream copies from one data source field to the other. */
function copyReference(ref: JsonObject): JsonObject {
  return { ...(present(ref.apiGroup) ? { apiGroup: ref.apiGroup! } : {}), kind: stringAt(ref, 'kind'), name: stringAt(ref, 'name') };
}

/** NormalizeDataSources (AnyVolumeDataSource, GA): whichever of dataSource and dataSourceRef is set fills the other, but a dataSourceRef into another namespace. */
function normalizeDataSources(spec: JsonObject): void {
  const source = objectAt(spec, 'dataSource');
  const sourceRef = objectAt(spec, 'dataSourceRef');
  if (source !== undefined && !present(spec.dataSourceRef)) spec.dataSourceRef = copyReference(source);
  else if (sourceRef !== undefined && !present(spec.dataSource) && stringAt(sourceRef, 'namespace') === '') spec.dataSource = copyReference(sourceRef);
}

/** The data sources a claim could always name: another claim, or a VolumeSnapshot (upstream's dataSourceIsPvcOrSnapshot). */
function isClaimOrSnapshot(ref: JsonObject | undefined): boolean {
  const kind = stringAt(ref, 'kind');
  const apiGroup = stringAt(ref, 'apiGroup');
  return (kind === 'PersistentVolumeClaim' && apiGroup === '') || (kind === 'VolumeSnapshot' && apiGroup === 'snapshot.storage.k8s.io');
}

/**
 * The claim strategy's data source steps, before validation, on a create (`oldSpec`
 * undefined) or an update: DropDisabledFields drops a dataSourceRef naming a namespace
 * (CrossNamespaceVolumeDataSource, alpha and off in 1.36) unless the stored claim had a
 * dataSourceRef; EnforceDataSourceBackwardsCompatibility silently drops a dataSource other
 * than a claim or VolumeSnapshot when no dataSourceRef is given and the stored claim had no
 * data source; then NormalizeDataSources.
 */
function prepareDataSources(spec: JsonObject, oldSpec: JsonObject | undefined): void {
  const sourceRef = objectAt(spec, 'dataSourceRef');
  if (sourceRef !== undefined && stringAt(sourceRef, 'namespace') !== '' && !present(oldSpec?.dataSourceRef)) delete spec.dataSourceRef;
  const hadDataSource = present(oldSpec?.dataSource) || present(oldSpec?.dataSourceRef);
  if (!hadDataSource && !present(spec.dataSourceRef) && !isClaimOrSnapshot(objectAt(spec, 'dataSource'))) delete spec.dataSource;
  normalizeDataSources(spec);
}

/** ValidationOptionsForPersistentVolumeClaim's AllowInvalidAPIGroupInDataSourceOrRef: the stored claim's data source named an API group. */
function namedAPIGroup(spec: JsonObject | undefined): boolean {
  return present(objectAt(spec, 'dataSource')?.apiGroup) || present(objectAt(spec, 'dataSourceRef')?.apiGroup);
}

const storageRequest = (spec: JsonObject | undefined): Quantity => parseQuantity(objectAt(objectAt(spec, 'resources'), 'requests')?.storage) ?? { num: 0n, den: 1n };

/**
 * ValidatePersistentVolumeClaimUpdate beyond the create rules: the beta storage-class
 * annotation stays, and the spec as created,
 * but for volumeName (set once), a storage class set where none was, and, on bound claims,
 * the storage request and volumeAttributesClassName; the request may shrink only down to
 * what status.capacity records (RecoverVolumeExpansionFailure, on by default).
 */
export function validatePersistentVolumeClaimUpdate(pvc: KubeObject, old: KubeObject): StatusCause[] {
  const causes = validatePersistentVolumeClaim(pvc, old);
  const spec = structuredClone(objectAt(pvc, 'spec') ?? {});
  const oldSpec = structuredClone(objectAt(old, 'spec') ?? {});
  // Upstream normalizes the stored claim's data sources too, for claims stored before it filled them in.
  normalizeDataSources(oldSpec);
  if (stringAt(oldSpec, 'volumeName') === '') {
    if (present(spec.volumeName)) oldSpec.volumeName = spec.volumeName!;
    else delete oldSpec.volumeName;
  }
  const oldAnnotation = old.metadata.annotations?.[betaStorageClassAnnotation];
  const newAnnotation = pvc.metadata.annotations?.[betaStorageClassAnnotation];
  // A class named by the beta annotation may move to spec.storageClassName, the annotation
  // kept or dropped (validateStorageClassUpgradeFromAnnotation); otherwise the annotation,
  // absent as "", never changes.
  const fromAnnotation = oldAnnotation !== undefined && !present(oldSpec.storageClassName) && spec.storageClassName === oldAnnotation
    && (newAnnotation === undefined || newAnnotation === oldAnnotation);
  if (!fromAnnotation && (newAnnotation ?? '') !== (oldAnnotation ?? '')) {
    causes.push(invalid(child('metadata', 'annotations', betaStorageClassAnnotation), newAnnotation ?? '', fieldImmutable));
  }
  if (!present(oldSpec.storageClassName) && present(spec.storageClassName) && (oldAnnotation === undefined || oldAnnotation === spec.storageClassName)) {
    oldSpec.storageClassName = spec.storageClassName!;
  }
  const bound = stringAt(objectAt(pvc, 'status'), 'phase') === 'Bound';
  if (bound) {
    const requests = objectAt(objectAt(spec, 'resources'), 'requests');
    const oldStorage = objectAt(objectAt(oldSpec, 'resources'), 'requests')?.storage;
    if (requests !== undefined) {
      if (oldStorage === undefined) delete requests.storage;
      else requests.storage = oldStorage;
    }
    if (present(spec.volumeAttributesClassName)) {
      if (present(oldSpec.volumeAttributesClassName)) spec.volumeAttributesClassName = oldSpec.volumeAttributesClassName!;
      else delete spec.volumeAttributesClassName;
    }
  }
  if (!specsEqual(spec, oldSpec)) {
    causes.push(forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
  }
  const newSize = storageRequest(objectAt(pvc, 'spec'));
  const oldSize = storageRequest(objectAt(old, 'spec'));
  const statusSize = parseQuantity(objectAt(objectAt(old, 'status'), 'capacity')?.storage) ?? { num: 0n, den: 1n };
  if (compareQuantity(newSize, oldSize) < 0 && compareQuantity(newSize, statusSize) <= 0) {
    causes.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  const newSpec = objectAt(pvc, 'spec');
  const prevSpec = objectAt(old, 'spec');
  if (!semanticEqual(newSpec?.volumeMode, prevSpec?.volumeMode)) causes.push(invalid('volumeMode', newSpec?.volumeMode ?? null, fieldImmutable));
  if (present(prevSpec?.volumeAttributesClassName) && !semanticEqual(newSpec?.volumeAttributesClassName, prevSpec?.volumeAttributesClassName)) {
    if (!present(newSpec?.volumeAttributesClassName)) causes.push(forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
    else if (newSpec?.volumeAttributesClassName === '') causes.push(forbidden('spec.volumeAttributesClassName', 'update from non-nil value to an empty string is forbidden'));
  }
  return causes;
}

/** Semantic equality of two claim specs: quantities compare by value ("1Gi" equals "1024Mi"). */
function specsEqual(a: JsonObject, b: JsonObject): boolean {
  const normalise = (spec: JsonObject): JsonObject => {
    const copy = structuredClone(spec);
    const resources = objectAt(copy, 'resources');
    for (const list of ['requests', 'limits']) {
      const values = objectAt(resources, list);
      if (values === undefined) continue;
      for (const k of Object.keys(values)) {
        const q = parseQuantity(values[k]);
        if (q !== undefined) values[k] = quantityKey(q);
      }
    }
    return copy;
  };
  return semanticEqual(normalise(a), normalise(b));
}

/** A quantity's value in lowest terms, as text. */
function quantityKey(q: Quantity): string {
  const gcd = (x: bigint, y: bigint): bigint => (y === 0n ? (x < 0n ? -x : x) : gcd(y, x % y));
  const g = gcd(q.num, q.den) || 1n;
  return `${q.num / g}/${q.den / g}`;
}

/** validatePersistentVolumeClaimResourceKey: a qualified name, and of the native resources only storage. */
function claimResourceKeyCauses(name: string, path: FieldPath): StatusCause[] {
  const causes = isQualifiedName(name).map((msg) => invalid(path, name, msg));
  if (causes.length === 0 && isNativeResource(name) && name !== 'storage') causes.push(notSupported(path, name, ['storage']));
  return causes;
}

/** validateBasicResource: a quantity below zero, shown as its int64 Value() (rounded away from zero). */
function basicResourceCauses(value: unknown, path: FieldPath): StatusCause[] {
  const q = parseQuantity(value);
  if (q === undefined || !isNegative(q)) return [];
  return [invalid(path, new GoValue(String(-integerValue({ ...q, num: -q.num }))), 'must be a valid resource quantity')];
}

/** Upstream's resizeStatusSet, sorted as sets.List names it. */
const resizeStatuses = ['ControllerResizeInProgress', 'ControllerResizeInfeasible', 'NodeResizeInProgress', 'NodeResizeInfeasible', 'NodeResizePending'];

/**
 * ValidatePersistentVolumeClaimStatusUpdate beyond metadata (RecoverVolumeExpansionFailure
 * on): access modes in the kept spec, no negative capacity, and of allocatedResourceStatuses
 * and allocatedResources, keys that name storage or a domain's resource, known resize states
 * and no negative sizes. Upstream names a bad state by its key, at the map's path.
 */
function validatePersistentVolumeClaimStatus(pvc: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const modes = objectAt(pvc, 'spec')?.accessModes;
  if (!Array.isArray(modes) || modes.length === 0) causes.push(required('Spec.accessModes'));
  const status = objectAt(pvc, 'status');
  for (const [name, value] of Object.entries(objectAt(status, 'capacity') ?? {})) appendAll(causes, basicResourceCauses(value, key('status.capacity', name)));
  const statusesPath = 'status.allocatedResourceStatuses';
  for (const [name, state] of Object.entries(objectAt(status, 'allocatedResourceStatuses') ?? {})) {
    appendAll(causes, claimResourceKeyCauses(name, statusesPath));
    if (!resizeStatuses.includes(String(state))) causes.push(notSupported(statusesPath, name, resizeStatuses));
  }
  const allocatedPath = 'status.allocatedResources';
  for (const [name, value] of Object.entries(objectAt(status, 'allocatedResources') ?? {})) {
    const keyCauses = claimResourceKeyCauses(name, allocatedPath);
    appendAll(causes, keyCauses.length > 0 ? keyCauses : basicResourceCauses(value, key(allocatedPath, name)));
  }
  return causes;
}

/** SetDefaults_PersistentVolume's spec part. */
function defaultPersistentVolume(pv: KubeObject): void {
  const spec = ensureObject(pv as unknown as JsonObject, 'spec');
  if (stringAt(spec, 'persistentVolumeReclaimPolicy') === '') spec.persistentVolumeReclaimPolicy = 'Retain';
  if (!present(spec.volumeMode)) spec.volumeMode = 'Filesystem';
}

/** SetDefaults_PersistentVolumeClaimSpec, then the strategy's data source steps (`old` on an update). */
function preparePersistentVolumeClaim(pvc: KubeObject, old?: KubeObject): void {
  prepareDataSources(ensureObject(pvc as unknown as JsonObject, 'spec'), old === undefined ? undefined : objectAt(old, 'spec') ?? {});
}

const persistentVolumeStrategy: Strategy = {
  defaults: defaultPersistentVolume,
  prepareForCreate(pv) {
    pv.status = { phase: 'Pending', lastPhaseTransitionTime: nowTimestamp() };
  },
  prepareForUpdate(pv, old) {
    keepOldStatus(pv, old);
  },
  validate: validatePersistentVolume,
  validateUpdate: validatePersistentVolumeUpdate,
  warningsOnCreate: persistentVolumeWarnings,
  warningsOnUpdate: persistentVolumeWarnings,
  subresources: {
    status: {
      prepareForUpdate(pv, old) {
        keepOldSpec(pv, old);
        const status = ensureObject(pv as unknown as JsonObject, 'status');
        const oldStatus = objectAt(old, 'status');
        if (stringAt(status, 'phase') === '') status.phase = 'Pending';
        const samePhase = stringAt(status, 'phase') === stringAt(oldStatus, 'phase');
        if (samePhase && !present(status.lastPhaseTransitionTime)) {
          if (present(oldStatus?.lastPhaseTransitionTime)) status.lastPhaseTransitionTime = oldStatus!.lastPhaseTransitionTime!;
        } else if (!samePhase && (!present(status.lastPhaseTransitionTime) || status.lastPhaseTransitionTime === oldStatus?.lastPhaseTransitionTime)) {
          status.lastPhaseTransitionTime = nowTimestamp();
        }
      },
    },
  },
};

const persistentVolumeClaimStrategy: Strategy = {
  defaults(pvc) {
    const spec = ensureObject(pvc as unknown as JsonObject, 'spec');
    if (!present(spec.volumeMode)) spec.volumeMode = 'Filesystem';
  },
  prepareForCreate(pvc) {
    preparePersistentVolumeClaim(pvc);
    pvc.status = { phase: 'Pending' };
  },
  prepareForUpdate(pvc, old) {
    preparePersistentVolumeClaim(pvc, old);
    keepOldStatus(pvc, old);
  },
  validate: validatePersistentVolumeClaim,
  validateUpdate: validatePersistentVolumeClaimUpdate,
  warningsOnCreate: persistentVolumeClaimWarnings,
  warningsOnUpdate: persistentVolumeClaimWarnings,
  subresources: {
    status: {
      prepareForUpdate(pvc, old) {
        keepOldSpec(pvc, old);
        const status = ensureObject(pvc as unknown as JsonObject, 'status');
        if (stringAt(status, 'phase') === '') status.phase = 'Pending';
      },
      validateUpdate: validatePersistentVolumeClaimStatus,
    },
  },
};

/** helper.GetAccessModesAsString: each mode once, in a fixed order, abbreviated. */
export function accessModesString(modes: unknown): string {
  const list = Array.isArray(modes) ? modes : [];
  const short: [string, string][] = [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']];
  return short.filter(([mode]) => list.includes(mode)).map(([, abbr]) => abbr).join(',');
}

/** The class of a volume or claim: the beta annotation wins over spec.storageClassName. */
function storageClassOf(obj: KubeObject): string {
  return obj.metadata.annotations?.[betaStorageClassAnnotation] ?? stringAt(objectAt(obj, 'spec'), 'storageClassName');
}

function phaseCell(obj: KubeObject): string {
  return obj.metadata.deletionTimestamp ? 'Terminating' : stringAt(objectAt(obj, 'status'), 'phase');
}

function unsetOr(v: unknown): string {
  return typeof v === 'string' && v !== '' ? v : '<unset>';
}

const volumeModeDescription = 'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.';

export function persistentVolumesType(): ResourceType {
  return builtinType('', 'v1', 'persistentvolumes', {
    strategy: persistentVolumeStrategy,
    // pkg/printers/internalversion: printPersistentVolume.
    tableColumns: [
      nameColumn,
      column('Capacity', (pv) => String(objectAt(objectAt(pv, 'spec'), 'capacity')?.storage ?? '0'), { description: "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity" }),
      column('Access Modes', (pv) => accessModesString(objectAt(pv, 'spec')?.accessModes), { description: 'accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes' }),
      column('Reclaim Policy', (pv) => stringAt(objectAt(pv, 'spec'), 'persistentVolumeReclaimPolicy'), { description: 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming' }),
      column('Status', phaseCell, { description: 'phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase' }),
      column('Claim', (pv) => {
        const ref = objectAt(objectAt(pv, 'spec'), 'claimRef');
        return ref === undefined ? '' : `${stringAt(ref, 'namespace')}/${stringAt(ref, 'name')}`;
      }, { description: 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding' }),
      column('StorageClass', storageClassOf, { description: 'StorageClass of the pv' }),
      column('VolumeAttributesClass', (pv) => unsetOr(objectAt(pv, 'spec')?.volumeAttributesClassName), { description: 'VolumeAttributesClass of the pv' }),
      column('Reason', (pv) => stringAt(objectAt(pv, 'status'), 'reason'), { description: 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.' }),
      ageColumn,
      column('VolumeMode', (pv) => unsetOr(objectAt(pv, 'spec')?.volumeMode), { priority: 1, description: 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.' }),
    ],
  });
}

export function persistentVolumeClaimsType(): ResourceType {
  return builtinType('', 'v1', 'persistentvolumeclaims', {
    strategy: persistentVolumeClaimStrategy,
    // pkg/printers/internalversion: printPersistentVolumeClaim. Capacity and access modes come from status once a volume is named.
    tableColumns: [
      nameColumn,
      column('Status', phaseCell, { description: 'phase represents the current phase of PersistentVolumeClaim.' }),
      column('Volume', (pvc) => stringAt(objectAt(pvc, 'spec'), 'volumeName'), { description: 'volumeName is the binding reference to the PersistentVolume backing this claim.' }),
      column('Capacity', (pvc) => (stringAt(objectAt(pvc, 'spec'), 'volumeName') === '' ? '' : String(objectAt(objectAt(pvc, 'status'), 'capacity')?.storage ?? '0')), { description: 'capacity represents the actual resources of the underlying volume.' }),
      column('Access Modes', (pvc) => (stringAt(objectAt(pvc, 'spec'), 'volumeName') === '' ? '' : accessModesString(objectAt(pvc, 'status')?.accessModes)), { description: 'accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1' }),
      column('StorageClass', storageClassOf, { description: 'StorageClass of the pvc' }),
      column('VolumeAttributesClass', (pvc) => unsetOr(objectAt(pvc, 'spec')?.volumeAttributesClassName), { description: 'VolumeAttributesClass of the pvc' }),
      ageColumn,
      column('VolumeMode', (pvc) => unsetOr(objectAt(pvc, 'spec')?.volumeMode), { priority: 1, description: volumeModeDescription }),
    ],
  });
}
