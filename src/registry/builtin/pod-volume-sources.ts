// What a pod volume's source holds, validated as upstream's validateVolumeSource does for
// each kind of source (pkg/apis/core/validation: validateKeyToPath, the downward API's
// files, projections, and the checks of every other source), with its messages. The
// volume's name, its one source, the names secret, configMap and persistentVolumeClaim
// sources refer to and the default modes are pod-spec.ts's.

import type { StatusCause } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { byteLength } from '../../api/labels.ts';
import { isNegative, parseQuantity } from '../../api/quantity.ts';
import { appendAll, child, forbidden, goQuote, index, invalid, key, notSupported, required, tooLong, type FieldPath } from '../validation/field.ts';
import { inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain } from '../validation/names.ts';
import { validateTemplateObjectMeta } from '../validation/object-meta.ts';
import { validatePersistentVolumeClaimSpec } from './core-storage.ts';
import { arrayAt, itemsAt, numberAt, objectAt, stringAt } from './object.ts';

const fileModeError = 'must be a number between 0 and 0777 (octal), both inclusive';

/** Whether a path has a ".." element (upstream's validatePathNoBacksteps). */
export function hasBackstep(target: string): boolean {
  return target.split('/').includes('..');
}

/** Upstream's validatePathNoBacksteps: a path without a ".." element. */
export function pathWithoutBacksteps(target: string, path: FieldPath): StatusCause[] {
  return hasBackstep(target) ? [invalid(path, target, "must not contain '..'")] : [];
}

/** Upstream's validateLocalDescendingPath: relative, without a ".." element. */
export function localDescendingPath(target: string, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (target.startsWith('/')) causes.push(invalid(path, target, 'must be a relative path'));
  appendAll(causes, pathWithoutBacksteps(target, path));
  return causes;
}

/** ValidateLocalNonReservedPath: a local descending path that does not start with "..". */
function localNonReservedPath(target: string, path: FieldPath): StatusCause[] {
  const causes = localDescendingPath(target, path);
  // Not reported again when the ".." element was.
  if (target.startsWith('..') && !target.startsWith('../')) causes.push(invalid(path, target, "must not start with '..'"));
  return causes;
}

function fileMode(item: JsonObject, path: FieldPath): StatusCause[] {
  const mode = numberAt(item, 'mode');
  return mode !== undefined && (mode < 0 || mode > 0o777) ? [invalid(child(path, 'mode'), mode, fileModeError)] : [];
}

/** validateKeyToPath: an item of a ConfigMap or Secret source. */
function validateKeyToPath(item: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (stringAt(item, 'key') === '') causes.push(required(child(path, 'key')));
  const target = stringAt(item, 'path');
  if (target === '') causes.push(required(child(path, 'path')));
  appendAll(causes, localNonReservedPath(target, child(path, 'path')), fileMode(item, path));
  return causes;
}

/** validateDownwardAPIVolumeFile: `path` is the source's, as upstream reports a file's errors. */
function validateDownwardAPIFile(file: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const target = stringAt(file, 'path');
  if (target === '') causes.push(required(child(path, 'path')));
  appendAll(causes, localNonReservedPath(target, child(path, 'path')));
  const fieldRef = objectAt(file, 'fieldRef');
  const resourceFieldRef = objectAt(file, 'resourceFieldRef');
  if (fieldRef !== undefined && resourceFieldRef !== undefined) causes.push(invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  if (fieldRef === undefined && resourceFieldRef === undefined) causes.push(required(path, 'one of fieldRef and resourceFieldRef is required'));
  appendAll(causes, fileMode(file, path));
  return causes;
}

const projectionKinds = ['secret', 'configMap', 'downwardAPI', 'serviceAccountToken', 'clusterTrustBundle', 'podCertificate'];

/** validateProjectionSources: one kind per source, items and paths, token lifetimes, no path twice. */
function validateProjection(projected: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const paths = new Set<string>();
  const claim = (target: string, value: unknown) => {
    if (target === '') return;
    if (paths.has(target)) causes.push(invalid(path, value, 'conflicting duplicate paths'));
    else paths.add(target);
  };
  itemsAt(projected, 'sources').forEach((source, i) => {
    const p = index(child(path, 'sources'), i);
    for (const kind of ['secret', 'configMap']) {
      const ref = objectAt(source, kind);
      if (ref === undefined) continue;
      if (stringAt(ref, 'name') === '') causes.push(required(child(p, kind, 'name')));
      itemsAt(ref, 'items').forEach((item, j) => {
        appendAll(causes, validateKeyToPath(item, index(child(p, kind, 'items'), j)));
        claim(stringAt(item, 'path'), stringAt(ref, 'name'));
      });
    }
    const downwardAPI = objectAt(source, 'downwardAPI');
    for (const file of itemsAt(downwardAPI, 'items')) {
      appendAll(causes, validateDownwardAPIFile(file, child(p, 'downwardAPI')));
      claim(stringAt(file, 'path'), stringAt(file, 'path'));
    }
    const token = objectAt(source, 'serviceAccountToken');
    if (token !== undefined) {
      const seconds = numberAt(token, 'expirationSeconds') ?? 0;
      const sp = child(p, 'serviceAccountToken', 'expirationSeconds');
      if (seconds < 600) causes.push(invalid(sp, seconds, 'may not specify a duration less than 10 minutes'));
      if (seconds > 2 ** 32) causes.push(invalid(sp, seconds, 'may not specify a duration larger than 2^32 seconds'));
      // Upstream names the projection's path here, not the source's.
      const target = stringAt(token, 'path');
      if (target === '') causes.push(required(child(path, 'path')));
      else appendAll(causes, localNonReservedPath(target, child(path, 'path')));
    }
    const kinds = projectionKinds.filter((kind) => isObject(source[kind]));
    if (kinds.length > 1) causes.push(forbidden(p, 'may not specify more than 1 volume type per source'));
  });
  return causes;
}

const hostPathTypes = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/** validateHostPathVolumeSource once its path is there (it checks nothing more without one): no ".." element, a known type. */
export function validateHostPathBeyondPath(source: JsonObject, path: FieldPath): StatusCause[] {
  const causes = pathWithoutBacksteps(stringAt(source, 'path'), child(path, 'path'));
  const type = source.type;
  if (type !== undefined && type !== null && !hostPathTypes.includes(String(type))) causes.push(notSupported(child(path, 'type'), type, hostPathTypes));
  return causes;
}

/** What the pod a volume belongs to tells its source's checks; a pod template's volumes leave both out. */
export interface VolumeSourceContext {
  /** A Pod's volume, not a template's: an image volume must name its image (upstream's ResourceIsPod). */
  isPod?: boolean;
  /** The Pod's name: an ephemeral volume's claim is named "<pod>-<volume>", which must be a valid name. */
  podName?: string;
}

/** The volume a source belongs to: its name, its path, and what its pod tells. */
interface OwningVolume {
  name: string;
  path: FieldPath;
  context: VolumeSourceContext;
}

type SourceCheck = (source: JsonObject, path: FieldPath, volume: OwningVolume) => StatusCause[];

/** field.Required for each of `fields` the source leaves empty, in order. */
export function requireStrings(source: JsonObject, path: FieldPath, ...fields: string[]): StatusCause[] {
  return fields.filter((field) => stringAt(source, field) === '').map((field) => required(child(path, field)));
}

/**
 * field.Required for each of `fields` a source's secretRef leaves empty, when it has one:
 * its name (cinder, storageos, iSCSI); a PersistentVolume's cinder and storageos sources
 * also need its namespace.
 */
export function secretRefFields(source: JsonObject, path: FieldPath, ...fields: string[]): StatusCause[] {
  const ref = objectAt(source, 'secretRef');
  return ref === undefined ? [] : requireStrings(ref, child(path, 'secretRef'), ...fields);
}

// Upstream's initiator name formats: unanchored at the start like its iqn expression; Go's
// `.` is any character but a newline and its `\s` is [\t\n\f\r ].
const iqnFormat = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\t\n\f\r ]+)$/u;
const euiFormat = /^eui[^\n][A-Za-z0-9]{16}$/u;
const naaFormat = /^naa[^\n][A-Za-z0-9]{32}$/u;

/** How a pod volume's iSCSI checks word a name of none of the three formats (a PersistentVolume's say only "must be valid format"). */
const unknownISCSIFormat = 'must be valid format starting with iqn, eui, or naa';

/** Upstream's check of an iSCSI qualified name (the volume's iqn, its initiatorName); `unknownFormat` words a name of no known format. */
function iscsiNameError(name: string, unknownFormat: string): string | undefined {
  if (!name.startsWith('iqn') && !name.startsWith('eui') && !name.startsWith('naa')) return unknownFormat;
  const format = name.startsWith('iqn') ? iqnFormat : name.startsWith('eui') ? euiFormat : naaFormat;
  return format.test(name) ? undefined : 'must be valid format';
}

/** The target checks of validateISCSIVolumeSource and its PersistentVolume variant: the iqn, the lun, a secret for CHAP. */
export function validateISCSITarget(source: JsonObject, path: FieldPath, unknownFormat: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const iqn = stringAt(source, 'iqn');
  if (iqn === '') causes.push(required(child(path, 'iqn')));
  else {
    const iqnError = iscsiNameError(iqn, unknownFormat);
    if (iqnError !== undefined) causes.push(invalid(child(path, 'iqn'), iqn, iqnError));
  }
  const lun = numberAt(source, 'lun') ?? 0;
  if (lun < 0 || lun > 255) causes.push(invalid(child(path, 'lun'), lun, inclusiveRangeError(0, 255)));
  if ((source.chapAuthDiscovery === true || source.chapAuthSession === true) && !isObject(source.secretRef)) causes.push(required(child(path, 'secretRef')));
  return causes;
}

/** An iSCSI source's initiator name, when it has one, in a known format. */
export function validateISCSIInitiator(source: JsonObject, path: FieldPath, unknownFormat: string): StatusCause[] {
  const initiator = source.initiatorName;
  if (typeof initiator !== 'string') return [];
  const initiatorError = iscsiNameError(initiator, unknownFormat);
  return initiatorError === undefined ? [] : [invalid(child(path, 'initiatorname'), initiator, initiatorError)];
}

/**
 * Upstream's message when a source with an initiator name makes "<name>:<targetPortal>" longer
 * than 64 bytes: `name` is a pod volume's name, or a PersistentVolume's.
 */
export function iscsiPortalTooLong(source: JsonObject, name: string): string | undefined {
  if (typeof source.initiatorName !== 'string' || byteLength(`${name}:${stringAt(source, 'targetPortal')}`) <= 64) return undefined;
  return 'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.';
}

/** validateISCSIVolumeSource, and the length of "<volume>:<targetPortal>" an initiator name needs. */
const validateISCSI: SourceCheck = (source, path, volume) => {
  const causes = [
    ...requireStrings(source, path, 'targetPortal'),
    ...validateISCSITarget(source, path, unknownISCSIFormat),
    ...validateISCSIInitiator(source, path, unknownISCSIFormat),
  ];
  const tooLong = iscsiPortalTooLong(source, volume.name);
  if (tooLong !== undefined) causes.push(invalid(child(volume.path, 'name'), volume.name, tooLong));
  return causes;
};

/** validateFCVolumeSource: target WWNs (with a lun) or WWIDs, not both. */
const validateFC: SourceCheck = (source, path) => {
  const causes: StatusCause[] = [];
  const wwns = arrayAt(source, 'targetWWNs');
  const wwids = arrayAt(source, 'wwids');
  if (wwns.length === 0 && wwids.length === 0) causes.push(required(child(path, 'targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
  if (wwns.length > 0 && wwids.length > 0) causes.push(invalid(child(path, 'targetWWNs'), wwns, 'targetWWNs and wwids can not be specified simultaneously'));
  if (wwns.length > 0) {
    const lun = numberAt(source, 'lun');
    if (lun === undefined) causes.push(required(child(path, 'lun'), 'lun is required if targetWWNs is specified'));
    else if (lun < 0 || lun > 255) causes.push(invalid(child(path, 'lun'), lun, inclusiveRangeError(0, 255)));
  }
  return causes;
};

/** A GCE or AWS disk's partition: upstream allows 0 to 255 but words its message for 1 to 255. */
function diskPartition(source: JsonObject, path: FieldPath): StatusCause[] {
  const partition = numberAt(source, 'partition') ?? 0;
  return partition < 0 || partition > 255 ? [invalid(child(path, 'partition'), partition, inclusiveRangeError(1, 255))] : [];
}

/** Go's net.SplitHostPort, for whether it fails: a port after the last colon, a bracketed host if it has colons. */
function splitsHostPort(hostport: string): boolean {
  const colon = hostport.lastIndexOf(':');
  if (colon < 0) return false;
  let from = 0;
  let after = 0;
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']');
    if (end < 0 || end + 1 !== colon) return false;
    from = 1;
    after = end + 1;
  } else if (hostport.slice(0, colon).includes(':')) {
    return false;
  }
  return !hostport.slice(from).includes('[') && !hostport.slice(after).includes(']');
}

const quobyteRegistryError = 'must be a host:port pair or multiple pairs separated by commas';

/** validateQuobyteVolumeSource: a registry of host:port pairs, a tenant of at most 64 bytes, a volume. */
const validateQuobyte: SourceCheck = (source, path) => {
  const causes: StatusCause[] = [];
  const registry = stringAt(source, 'registry');
  if (registry === '') causes.push(required(child(path, 'registry'), quobyteRegistryError));
  // Upstream reports a long tenant as Required, and then does not look at the registry's pairs.
  else if (byteLength(stringAt(source, 'tenant')) >= 65) causes.push(required(child(path, 'tenant'), 'must be a UUID and may not exceed a length of 64 characters'));
  else {
    for (const pair of registry.split(',')) if (!splitsHostPort(pair)) causes.push(invalid(child(path, 'registry'), registry, quobyteRegistryError));
  }
  appendAll(causes, requireStrings(source, path, 'volume'));
  return causes;
};

/** validateFlockerVolumeSource: a dataset name (without '/') or UUID, not both. */
const validateFlocker: SourceCheck = (source, path) => {
  const causes: StatusCause[] = [];
  const name = stringAt(source, 'datasetName');
  const uuid = stringAt(source, 'datasetUUID');
  if (name === '' && uuid === '') causes.push(required(path, 'one of datasetName and datasetUUID is required'));
  if (name !== '' && uuid !== '') causes.push(invalid(path, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
  if (name.includes('/')) causes.push(invalid(child(path, 'datasetName'), name, "must not contain '/'"));
  return causes;
};

/** validateFlexVolumeSource: a driver, and options outside the kubernetes.io and k8s.io namespaces. */
const validateFlexVolume: SourceCheck = (source, path) => {
  const causes = requireStrings(source, path, 'driver');
  for (const option of Object.keys(objectAt(source, 'options') ?? {})) {
    const slash = option.indexOf('/');
    const domain = `.${(slash < 0 ? option : option.slice(0, slash)).toLowerCase()}`;
    if (domain.endsWith('.kubernetes.io') || domain.endsWith('.k8s.io')) {
      causes.push(invalid(key(child(path, 'options'), option), option, 'kubernetes.io and k8s.io namespaces are reserved'));
    }
  }
  return causes;
};

const azureCachingModes = ['None', 'ReadOnly', 'ReadWrite'];
const azureDiskKinds = ['Dedicated', 'Managed', 'Shared'];

/**
 * validateAzureDisk: a name, a URI whose form the kind decides (a managed disk's an Azure
 * resource ID, a blob's an https URL), known caching modes and kinds. Both default (ReadWrite,
 * Shared) before validation, so a disk without a kind is a blob.
 */
const validateAzureDisk: SourceCheck = (source, path) => {
  const causes = requireStrings(source, path, 'diskName', 'diskURI');
  const uri = stringAt(source, 'diskURI');
  const cachingMode = source.cachingMode;
  if (cachingMode !== undefined && cachingMode !== null && !azureCachingModes.includes(String(cachingMode))) {
    causes.push(notSupported(child(path, 'cachingMode'), cachingMode, azureCachingModes));
  }
  const kind = source.kind;
  if (kind === undefined || kind === null) return causes;
  if (!azureDiskKinds.includes(String(kind))) causes.push(notSupported(child(path, 'kind'), kind, azureDiskKinds));
  if (kind === 'Managed' && !uri.startsWith('/subscriptions/')) {
    causes.push(notSupported(child(path, 'diskURI'), uri, ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}']));
  }
  if (kind !== 'Managed' && !uri.startsWith('https://')) {
    causes.push(notSupported(child(path, 'diskURI'), uri, ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd']));
  }
  return causes;
};

/**
 * validateStorageOSVolumeSource: volume and namespace names are DNS labels; a secretRef has
 * each of `secretFields` (a pod volume's its name, a PersistentVolume's also its namespace).
 */
export function validateStorageOS(source: JsonObject, path: FieldPath, ...secretFields: string[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const volumeName = stringAt(source, 'volumeName');
  if (volumeName === '') causes.push(required(child(path, 'volumeName')));
  else for (const msg of isDNS1123Label(volumeName)) causes.push(invalid(child(path, 'volumeName'), volumeName, msg));
  const namespace = stringAt(source, 'volumeNamespace');
  if (namespace !== '') for (const msg of isDNS1123Label(namespace)) causes.push(invalid(child(path, 'volumeNamespace'), namespace, msg));
  appendAll(causes, secretRefFields(source, path, ...secretFields));
  return causes;
}

/** Core validation's ValidateCSIDriverName (volumes' and CSIDriver objects'): required, at most 63 bytes, a DNS subdomain once lower-cased. */
export function validateCSIDriverName(driver: string, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (driver === '') causes.push(required(path));
  if (byteLength(driver) > 63) causes.push(tooLong(path, 63));
  for (const msg of isDNS1123Subdomain(driver.toLowerCase())) causes.push(invalid(path, driver, msg));
  return causes;
}

/** validateCSIVolumeSource: the driver's name, and the name of the node publish secret. */
const validateCSI: SourceCheck = (source, path) => {
  const causes = validateCSIDriverName(stringAt(source, 'driver'), child(path, 'driver'));
  const secretRef = objectAt(source, 'nodePublishSecretRef');
  if (secretRef !== undefined) {
    const name = stringAt(secretRef, 'name');
    if (name === '') causes.push(required(child(path, 'nodePublishSecretRef', 'name')));
    // Upstream reports an invalid secret name at csi.name.
    else for (const msg of isDNS1123Subdomain(name)) causes.push(invalid(child(path, 'name'), name, msg));
  }
  return causes;
};

/** validateEphemeralVolumeSource, and the name of the claim a Pod's ephemeral volume gets. */
const validateEphemeral: SourceCheck = (source, path, volume) => {
  const template = objectAt(source, 'volumeClaimTemplate');
  if (template === undefined) return [required(child(path, 'volumeClaimTemplate'))];
  const templatePath = child(path, 'volumeClaimTemplate');
  const causes = [
    ...validateTemplateObjectMeta(objectAt(template, 'metadata') ?? {}, child(templatePath, 'metadata')),
    ...validatePersistentVolumeClaimSpec(objectAt(template, 'spec') ?? {}, child(templatePath, 'spec')),
  ];
  const podName = volume.context.podName ?? '';
  if (podName !== '' && volume.name !== '') {
    const claimName = `${podName}-${volume.name}`;
    for (const msg of isDNS1123Subdomain(claimName)) causes.push(invalid(child(volume.path, 'name'), volume.name, `PVC name ${goQuote(claimName)}: ${msg}`));
  }
  return causes;
};

const pullPolicies = ['Always', 'IfNotPresent', 'Never'];

/**
 * validateImageVolumeSource: a Pod's image volume names its image (a template's may leave
 * it to be filled in); the pull policy is known. An empty policy is defaulted before
 * validation upstream, so it is not reported missing.
 */
const validateImage: SourceCheck = (source, path, volume) => {
  const causes: StatusCause[] = [];
  if (volume.context.isPod === true && stringAt(source, 'reference') === '') causes.push(required(child(path, 'reference')));
  const policy = source.pullPolicy;
  if (policy !== undefined && policy !== null && policy !== '' && !pullPolicies.includes(String(policy))) {
    causes.push(notSupported(child(path, 'pullPolicy'), policy, pullPolicies));
  }
  return causes;
};

/** A secret's or config map's items (its name and default mode are pod-spec.ts's). */
const validateKeyToPathItems: SourceCheck = (source, path) => itemsAt(source, 'items').flatMap((item, i) => validateKeyToPath(item, index(child(path, 'items'), i)));

/** The checks of each source kind, as upstream's validate<Kind>VolumeSource. */
const sourceChecks: Record<string, SourceCheck> = {
  secret: validateKeyToPathItems,
  configMap: validateKeyToPathItems,
  downwardAPI: (source, path) => itemsAt(source, 'items').flatMap((file) => validateDownwardAPIFile(file, path)),
  projected: (source, path) => validateProjection(source, path),
  nfs: (source, path) => {
    const causes = requireStrings(source, path, 'server', 'path');
    const target = stringAt(source, 'path');
    if (!target.startsWith('/')) causes.push(invalid(child(path, 'path'), target, 'must be an absolute path'));
    return causes;
  },
  // An empty path is pod-spec.ts's to report; upstream then checks nothing else.
  hostPath: (source, path) => (stringAt(source, 'path') === '' ? [] : validateHostPathBeyondPath(source, path)),
  emptyDir: (source, path) => {
    const sizeLimit = source.sizeLimit;
    const q = sizeLimit === undefined || sizeLimit === null ? undefined : parseQuantity(sizeLimit);
    return q !== undefined && isNegative(q) ? [forbidden(child(path, 'sizeLimit'), 'SizeLimit field must be a valid resource quantity')] : [];
  },
  gitRepo: (source, path) => [...requireStrings(source, path, 'repository'), ...localDescendingPath(stringAt(source, 'directory'), child(path, 'directory'))],
  // Upstream reports a GCE disk's fields under "persistentDisk".
  gcePersistentDisk: (source, _path, volume) => {
    const pdPath = child(volume.path, 'persistentDisk');
    return [...requireStrings(source, pdPath, 'pdName'), ...diskPartition(source, pdPath)];
  },
  awsElasticBlockStore: (source, path) => [...requireStrings(source, path, 'volumeID'), ...diskPartition(source, path)],
  iscsi: validateISCSI,
  glusterfs: (source, path) => requireStrings(source, path, 'endpoints', 'path'),
  flocker: validateFlocker,
  rbd: (source, path) => [...(arrayAt(source, 'monitors').length === 0 ? [required(child(path, 'monitors'))] : []), ...requireStrings(source, path, 'image')],
  cinder: (source, path) => [...requireStrings(source, path, 'volumeID'), ...secretRefFields(source, path, 'name')],
  cephfs: (source, path) => (arrayAt(source, 'monitors').length === 0 ? [required(child(path, 'monitors'))] : []),
  quobyte: validateQuobyte,
  fc: validateFC,
  flexVolume: validateFlexVolume,
  azureFile: (source, path) => requireStrings(source, path, 'secretName', 'shareName'),
  vsphereVolume: (source, path) => requireStrings(source, path, 'volumePath'),
  photonPersistentDisk: (source, path) => requireStrings(source, path, 'pdID'),
  portworxVolume: (source, path) => requireStrings(source, path, 'volumeID'),
  azureDisk: validateAzureDisk,
  storageos: (source, path) => validateStorageOS(source, path, 'name'),
  scaleIO: (source, path) => requireStrings(source, path, 'gateway', 'system', 'volumeName'),
  csi: validateCSI,
  ephemeral: validateEphemeral,
  image: validateImage,
};

/**
 * The checks of the source `kind` (the volume's one source) beyond the names pod-spec.ts
 * checks; `path` is the volume's. `context` tells a Pod's volumes from a template's.
 */
export function validateVolumeSource(volume: JsonObject, kind: string, path: FieldPath, context: VolumeSourceContext = {}): StatusCause[] {
  const source = objectAt(volume, kind);
  const check = sourceChecks[kind];
  if (source === undefined || check === undefined) return [];
  return check(source, child(path, kind), { name: stringAt(volume, 'name'), path, context });
}
