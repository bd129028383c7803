// storage.k8s.io/v1 storageclasses, csidrivers, csinodes, csistoragecapacities,
// volumeattachments and volumeattributesclasses. StorageClass and CSIDriver behaviour after
// kubernetes pkg/apis/storage/v1/defaults.go and pkg/apis/storage/validation.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import type { ResourceType } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { fieldImmutable, forbidden, invalid, notSupported, required, tooLong } from '../validation/field.ts';
import { isQualifiedName } from '../validation/names.ts';
import { specStatusStrategy } from './common.ts';
import { semanticEqual, stringAt } from './object.ts';
import { builtinType } from './skeleton.ts';

const classReclaimPolicies = ['Delete', 'Retain'];
const volumeBindingModes = ['Immediate', 'WaitForFirstConsumer'];
const maxParameters = 512;
const maxParametersSize = 256 * 1024;

const present = (v: unknown): boolean => v !== undefined && v !== null;

/** SetDefaults_StorageClass. */
function defaultStorageClass(sc: KubeObject): void {
  const obj = sc as unknown as JsonObject;
  if (!present(obj.reclaimPolicy)) obj.reclaimPolicy = 'Delete';
  if (!present(obj.volumeBindingMode)) obj.volumeBindingMode = 'Immediate';
}

/** ValidateStorageClass beyond metadata (allowed topologies are not checked). */
export function validateStorageClass(sc: KubeObject): StatusCause[] {
  const obj = sc as unknown as JsonObject;
  const causes: StatusCause[] = [];
  const provisioner = stringAt(obj, 'provisioner');
  if (provisioner === '') causes.push(required('provisioner'));
  else for (const msg of isQualifiedName(provisioner.toLowerCase())) causes.push(invalid('provisioner', provisioner.toLowerCase(), msg));
  const params = isObject(obj.parameters) ? obj.parameters : {};
  const keys = Object.keys(params);
  if (keys.length > maxParameters) {
    causes.push(tooLong('parameters', maxParameters));
  } else {
    let size = 0;
    for (const k of keys) {
      if (k === '') causes.push(invalid('parameters', k, 'field can not be empty.'));
      size += Buffer.byteLength(k) + Buffer.byteLength(String(params[k]));
    }
    if (size > maxParametersSize) causes.push(tooLong('parameters', maxParametersSize));
  }
  const policy = stringAt(obj, 'reclaimPolicy');
  if (policy !== '' && !classReclaimPolicies.includes(policy)) causes.push(notSupported('reclaimPolicy', policy, classReclaimPolicies));
  if (!present(obj.volumeBindingMode)) causes.push(required('volumeBindingMode'));
  else if (!volumeBindingModes.includes(String(obj.volumeBindingMode))) causes.push(notSupported('volumeBindingMode', obj.volumeBindingMode, volumeBindingModes));
  return causes;
}

/** ValidateStorageClassUpdate beyond the create rules: what provisions volumes never changes. */
export function validateStorageClassUpdate(sc: KubeObject, old: KubeObject): StatusCause[] {
  const obj = sc as unknown as JsonObject;
  const before = old as unknown as JsonObject;
  const causes = validateStorageClass(sc);
  const params = (v: unknown) => (isObject(v) && Object.keys(v).length > 0 ? v : undefined);
  if (!semanticEqual(params(obj.parameters), params(before.parameters))) causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (stringAt(obj, 'provisioner') !== stringAt(before, 'provisioner')) causes.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (stringAt(obj, 'reclaimPolicy') !== stringAt(before, 'reclaimPolicy')) causes.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (!semanticEqual(obj.volumeBindingMode, before.volumeBindingMode)) causes.push(invalid('volumeBindingMode', obj.volumeBindingMode ?? null, fieldImmutable));
  return causes;
}

/** storageutil.IsDefaultAnnotation. */
function isDefaultClass(sc: KubeObject): boolean {
  const annotations = sc.metadata.annotations ?? {};
  return annotations['storageclass.kubernetes.io/is-default-class'] === 'true' || annotations['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
}

export function storageClassesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'storageclasses', {
    strategy: {
      prepareForCreate: defaultStorageClass,
      prepareForUpdate: defaultStorageClass,
      validate: validateStorageClass,
      validateUpdate: validateStorageClassUpdate,
    },
    // pkg/printers/internalversion: printStorageClass.
    tableColumns: [
      { ...nameColumn, cell: (sc) => `${sc.metadata.name ?? ''}${isDefaultClass(sc) ? ' (default)' : ''}` },
      column('Provisioner', (sc) => stringAt(sc, 'provisioner'), { description: 'provisioner indicates the type of the provisioner.' }),
      column('ReclaimPolicy', (sc) => stringAt(sc, 'reclaimPolicy') || 'Delete', { description: 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.' }),
      column('VolumeBindingMode', (sc) => stringAt(sc, 'volumeBindingMode') || 'Immediate', { description: 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.' }),
      column('AllowVolumeExpansion', (sc) => (sc as unknown as JsonObject).allowVolumeExpansion === true, { type: 'boolean', description: 'allowVolumeExpansion shows whether the storage class allow volume expand.' }),
      ageColumn,
    ],
  });
}

/** SetDefaults_CSIDriver. */
function defaultCSIDriver(driver: KubeObject): void {
  const spec = (driver.spec ??= {}) as JsonObject;
  const defaults: [string, unknown][] = [
    ['attachRequired', true], ['podInfoOnMount', false], ['storageCapacity', false], ['fsGroupPolicy', 'ReadWriteOnceWithFSType'],
    ['requiresRepublish', false], ['seLinuxMount', false],
  ];
  for (const [k, v] of defaults) if (!present(spec[k])) spec[k] = v;
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
}

export function csiDriversType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csidrivers', { strategy: { prepareForCreate: defaultCSIDriver, prepareForUpdate: defaultCSIDriver } });
}

export function csiNodesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csinodes');
}

export function csiStorageCapacitiesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csistoragecapacities');
}

export function volumeAttachmentsType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'volumeattachments', { strategy: specStatusStrategy() });
}

export function volumeAttributesClassesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'volumeattributesclasses');
}
