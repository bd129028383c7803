// storage.k8s.io/v1 storageclasses, csidrivers, csinodes, csistoragecapacities,
// volumeattachments and volumeattributesclasses. StorageClass and CSIDriver behaviour after
// kubernetes pkg/apis/storage/v1/defaults.go and pkg/apis/storage/validation.

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { canonicalQuantity } from '../../api/quantity.ts';
import type { ResourceType } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { fieldImmutable, forbidden, invalid, notSupported, required, tooLong } from '../validation/field.ts';
import { isQualifiedName } from '../validation/names.ts';
import { specStatusStrategy } from './common.ts';
import { arrayAt, objectAt, objectsAt, semanticEqual, stringAt } from './object.ts';
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

/** A pointer-to-bool field as upstream's printers read it: the value when set, else the default. */
function boolOr(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

/** printers.go's printCSIDriver: unset booleans print their defaults, no modes "<none>", no token requests "<unset>". */
const csiDriverColumns: TableColumn[] = [
  nameColumn,
  column('AttachRequired', (d) => boolOr(objectAt(d, 'spec')?.attachRequired, true), {
    type: 'boolean', description: 'attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting.',
  }),
  column('PodInfoOnMount', (d) => boolOr(objectAt(d, 'spec')?.podInfoOnMount, false), {
    type: 'boolean', description: 'podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true.',
  }),
  column('StorageCapacity', (d) => boolOr(objectAt(d, 'spec')?.storageCapacity, false), {
    type: 'boolean', description: 'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.',
  }),
  column('TokenRequests', (d) => {
    const spec = objectAt(d, 'spec');
    // A present list, even an empty one, prints its audiences (upstream tests the pointer, not the length).
    return Array.isArray(spec?.tokenRequests) ? objectsAt(spec, 'tokenRequests').map((t) => stringAt(t, 'audience')).join(',') : '<unset>';
  }, { description: "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication." }),
  column('RequiresRepublish', (d) => boolOr(objectAt(d, 'spec')?.requiresRepublish, false), {
    type: 'boolean', description: 'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.',
  }),
  column('Modes', (d) => arrayAt(objectAt(d, 'spec'), 'volumeLifecycleModes').map(String).join(',') || '<none>', {
    description: 'volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.',
  }),
  ageColumn,
];

export function csiDriversType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csidrivers', {
    strategy: { prepareForCreate: defaultCSIDriver, prepareForUpdate: defaultCSIDriver },
    tableColumns: csiDriverColumns,
  });
}

export function csiNodesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csinodes', {
    // printers.go's printCSINode.
    tableColumns: [
      nameColumn,
      column('Drivers', (n) => arrayAt(objectAt(n, 'spec'), 'drivers').length, { type: 'integer', description: 'Drivers indicates the number of CSI drivers registered on the node' }),
      ageColumn,
    ],
  });
}

export function csiStorageCapacitiesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csistoragecapacities', {
    // printers.go's printCSIStorageCapacity: no Age column upstream.
    tableColumns: [
      nameColumn,
      column('StorageClassName', (c) => stringAt(c, 'storageClassName'), {
        description: 'storageClassName represents the name of the StorageClass that the reported capacity applies to.',
      }),
      column('Capacity', (c) => {
        const capacity = (c as unknown as JsonObject).capacity;
        return capacity === undefined || capacity === null ? '<unset>' : canonicalQuantity(capacity);
      }, { description: 'capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.' }),
    ],
  });
}

export function volumeAttachmentsType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'volumeattachments', {
    strategy: specStatusStrategy(),
    // printers.go's printVolumeAttachment; upstream marks Attacher with the name format too.
    tableColumns: [
      nameColumn,
      column('Attacher', (va) => stringAt(objectAt(va, 'spec'), 'attacher'), {
        format: 'name', description: 'attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().',
      }),
      column('PV', (va) => stringAt(objectAt(objectAt(va, 'spec'), 'source'), 'persistentVolumeName'), {
        description: 'persistentVolumeName represents the name of the persistent volume to attach.',
      }),
      column('Node', (va) => stringAt(objectAt(va, 'spec'), 'nodeName'), { description: 'nodeName represents the node that the volume should be attached to.' }),
      column('Attached', (va) => objectAt(va, 'status')?.attached === true, {
        type: 'boolean', description: 'attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.',
      }),
      ageColumn,
    ],
  });
}

/** storageutil.IsDefaultAnnotationForVolumeAttributesClass (the alpha annotation). */
function isDefaultAttributesClass(vac: KubeObject): boolean {
  return vac.metadata.annotations?.['volumeattributesclass.alpha.kubernetes.io/is-default-class'] === 'true';
}

export function volumeAttributesClassesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'volumeattributesclasses', {
    // printers.go's printVolumeAttributesClass.
    tableColumns: [
      { ...nameColumn, cell: (vac) => `${vac.metadata.name ?? ''}${isDefaultAttributesClass(vac) ? ' (default)' : ''}` },
      column('DriverName', (vac) => stringAt(vac, 'driverName'), { description: 'Name of the CSI driver This field is immutable.' }),
      ageColumn,
    ],
  });
}
