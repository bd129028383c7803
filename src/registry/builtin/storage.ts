// storage.k8s.io/v1 storageclasses, csidrivers, csinodes, csistoragecapacities,
// volumeattachments and volumeattributesclasses. StorageClass, CSIDriver, CSINode and
// VolumeAttachment behaviour after kubernetes pkg/apis/storage/v1/defaults.go,
// pkg/apis/storage/validation and pkg/registry/storage/*/strategy.go.

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { canonicalQuantity, isNegative, parseQuantity } from '../../api/quantity.ts';
import type { ResourceType } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { byteLength, labelSelectorJson } from '../../api/labels.ts';
import { appendAll, child, duplicate, fieldImmutable, forbidden, goJson, GoValue, index, invalid, notSupported, required, tooLong, validateNonnegative, type FieldPath } from '../validation/field.ts';
import { inclusiveRangeError, isDNS1123Subdomain, isQualifiedName } from '../validation/names.ts';
import { keepOldSpec, keepOldStatus } from './common.ts';
import { csiStorageCapacityWarnings, storageClassWarnings } from './storage-warnings.ts';
import { validatePersistentVolumeSpec } from './core-storage.ts';
import { arrayAt, itemsAt, objectAt, objectsAt, present, semanticEqual, stringAt, stringsAt } from './object.ts';
import { validateLabelSelector } from './selector-validation.ts';
import { builtinType } from './skeleton.ts';
import { validateCSIDriverName } from './pod-volume-sources.ts';

const classReclaimPolicies = ['Delete', 'Retain'];
const volumeBindingModes = ['Immediate', 'WaitForFirstConsumer'];
const maxParameters = 512;
const maxParametersSize = 256 * 1024;


/** SetDefaults_StorageClass. */
function defaultStorageClass(sc: KubeObject): void {
  const obj = sc as unknown as JsonObject;
  if (!present(obj.reclaimPolicy)) obj.reclaimPolicy = 'Delete';
  if (!present(obj.volumeBindingMode)) obj.volumeBindingMode = 'Immediate';
}

/** validateParameters: at most 512 keys, none empty, 256 KiB in all; `allowEmpty` or at least one. */
function validateParameters(parameters: unknown, allowEmpty: boolean): StatusCause[] {
  const params = isObject(parameters) ? parameters : {};
  const keys = Object.keys(params);
  if (keys.length > maxParameters) return [tooLong('parameters', maxParameters)];
  const causes: StatusCause[] = [];
  let size = 0;
  for (const k of keys) {
    if (k === '') causes.push(invalid('parameters', k, 'field can not be empty.'));
    size += byteLength(k) + byteLength(String(params[k]));
  }
  if (size > maxParametersSize) causes.push(tooLong('parameters', maxParametersSize));
  if (!allowEmpty && keys.length === 0) causes.push(required('parameters', 'must contain at least one key/value pair'));
  return causes;
}

/** Parameters compared as upstream's DeepEqual of Go maps decoded from JSON: none and {} alike. */
function sameParameters(a: unknown, b: unknown): boolean {
  const params = (v: unknown) => (isObject(v) && Object.keys(v).length > 0 ? v : undefined);
  return semanticEqual(params(a), params(b));
}

/** validateProvisioner: a qualified name, letters' case aside. */
function validateProvisioner(provisioner: string, path: FieldPath): StatusCause[] {
  if (provisioner === '') return [required(path)];
  return isQualifiedName(provisioner.toLowerCase()).map((msg) => invalid(path, provisioner.toLowerCase(), msg));
}

/** A topology term as upstream compares terms: each key with the set of its values. */
type TopologyTerm = Map<string, Set<string>>;

/**
 * ValidateTopologySelectorTerm with validateTopologySelectorLabelRequirement: each
 * requirement has values, none twice, and a label name for a key; no key comes twice.
 */
function validateTopologySelectorTerm(term: JsonObject, path: FieldPath): { raw: TopologyTerm; causes: StatusCause[] } {
  const raw: TopologyTerm = new Map();
  const causes: StatusCause[] = [];
  itemsAt(term, 'matchLabelExpressions').forEach((requirement, i) => {
    const at = index(child(path, 'matchLabelExpressions'), i);
    const values = new Set<string>();
    const list = arrayAt(requirement, 'values');
    if (list.length === 0) causes.push(required(child(at, 'values')));
    list.forEach((value, j) => {
      const text = String(value);
      if (values.has(text)) causes.push(duplicate(index(child(at, 'values'), j), text));
      values.add(text);
    });
    const key = stringAt(requirement, 'key');
    for (const msg of isQualifiedName(key)) causes.push(invalid(child(at, 'key'), key, msg));
    if (raw.has(key)) causes.push(duplicate(child(at, 'key'), key));
    raw.set(key, values);
  });
  return { raw, causes };
}

/** Semantic equality of two terms' raw forms, where an empty map or set equals a missing one. */
function sameTopologyTerm(a: TopologyTerm, b: TopologyTerm): boolean {
  if (a.size !== b.size) return false;
  for (const [key, values] of a) {
    const other = b.get(key);
    if (other === undefined || other.size !== values.size || [...values].some((v) => !other.has(v))) return false;
  }
  return true;
}

/**
 * validateAllowedTopologies: each term valid, and none the same as another. Upstream's list
 * of terms seen starts with one nil map per term, so a term without requirements is also
 * reported once per term given.
 */
function validateAllowedTopologies(sc: JsonObject): StatusCause[] {
  const terms = itemsAt(sc, 'allowedTopologies');
  const seen: TopologyTerm[] = terms.map(() => new Map());
  const causes: StatusCause[] = [];
  terms.forEach((term, i) => {
    const path = index('allowedTopologies', i);
    const { raw, causes: termCauses } = validateTopologySelectorTerm(term, path);
    appendAll(causes, termCauses);
    for (const earlier of seen) if (sameTopologyTerm(raw, earlier)) causes.push(duplicate(child(path, 'matchLabelExpressions'), ''));
    seen.push(raw);
  });
  return causes;
}

/** ValidateStorageClass beyond metadata. */
export function validateStorageClass(sc: KubeObject): StatusCause[] {
  const obj = sc as unknown as JsonObject;
  const causes: StatusCause[] = [];
  appendAll(causes, validateProvisioner(stringAt(obj, 'provisioner'), 'provisioner'));
  appendAll(causes, validateParameters(obj.parameters, true));
  const policy = stringAt(obj, 'reclaimPolicy');
  // Enum values are typed strings: json.Marshal writes them (`<`, `>`, `&` escaped), not %q.
  if (policy !== '' && !classReclaimPolicies.includes(policy)) causes.push(notSupported('reclaimPolicy', goJson(policy), classReclaimPolicies));
  if (!present(obj.volumeBindingMode)) causes.push(required('volumeBindingMode'));
  else if (!volumeBindingModes.includes(String(obj.volumeBindingMode))) causes.push(notSupported('volumeBindingMode', goJson(obj.volumeBindingMode), volumeBindingModes));
  appendAll(causes, validateAllowedTopologies(obj));
  return causes;
}

/**
 * ValidateStorageClassUpdate beyond the create rules (which the Store runs first, once, as
 * upstream's strategy does): what provisions volumes never changes.
 */
export function validateStorageClassUpdate(sc: KubeObject, old: KubeObject): StatusCause[] {
  const obj = sc as unknown as JsonObject;
  const before = old as unknown as JsonObject;
  const causes: StatusCause[] = [];
  if (!sameParameters(obj.parameters, before.parameters)) causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  if (stringAt(obj, 'provisioner') !== stringAt(before, 'provisioner')) causes.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (stringAt(obj, 'reclaimPolicy') !== stringAt(before, 'reclaimPolicy')) causes.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (!semanticEqual(obj.volumeBindingMode, before.volumeBindingMode)) causes.push(invalid('volumeBindingMode', goJson(obj.volumeBindingMode), fieldImmutable));
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
      defaults: defaultStorageClass,
      validate: validateStorageClass,
      validateUpdate: validateStorageClassUpdate,
      warningsOnCreate: storageClassWarnings,
      warningsOnUpdate: storageClassWarnings,
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

const fsGroupPolicies = ['File', 'None', 'ReadWriteOnceWithFSType'];
const lifecycleModes = ['Persistent', 'Ephemeral'];
const minTokenSeconds = 10 * 60;

/** ValidateCSIDriver beyond metadata (upstream's path for attachRequired reads `attachedRequired`). */
function validateCSIDriver(driver: KubeObject): StatusCause[] {
  const spec = objectAt(driver, 'spec');
  const causes: StatusCause[] = [];
  for (const [key, path] of [['attachRequired', 'spec.attachedRequired'], ['podInfoOnMount', 'spec.podInfoOnMount'], ['storageCapacity', 'spec.storageCapacity']]) {
    if (!present(spec?.[key!])) causes.push(required(path!));
  }
  const policy = spec?.fsGroupPolicy;
  if (present(policy) && !fsGroupPolicies.includes(String(policy))) causes.push(notSupported('spec.fsGroupPolicy', goJson(policy), fsGroupPolicies));
  const audiences = new Set<string>();
  objectsAt(spec, 'tokenRequests').forEach((request, i) => {
    const path = `spec.tokenRequests[${i}]`;
    const audience = stringAt(request, 'audience');
    if (audiences.has(audience)) {
      causes.push(duplicate(`${path}.audience`, audience));
      return;
    }
    audiences.add(audience);
    const seconds = request.expirationSeconds;
    if (typeof seconds !== 'number') return;
    if (seconds < minTokenSeconds) causes.push(invalid(`${path}.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
    if (seconds > 2 ** 32) causes.push(invalid(`${path}.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  for (const mode of arrayAt(spec, 'volumeLifecycleModes')) {
    if (!lifecycleModes.includes(String(mode))) causes.push(notSupported('spec.volumeLifecycleModes', goJson(mode), lifecycleModes));
  }
  if (!present(spec?.seLinuxMount)) causes.push(required('spec.seLinuxMount'));
  const period = spec?.nodeAllocatableUpdatePeriodSeconds;
  if (typeof period === 'number' && period < 10) causes.push(invalid('spec.nodeAllocatableUpdatePeriodSeconds', period, 'must be greater than or equal to 10 seconds'));
  return causes;
}

/** ValidateCSIDriverUpdate's immutable fields: whether volumes attach, and the lifecycle modes. */
function validateCSIDriverUpdate(driver: KubeObject, old: KubeObject): StatusCause[] {
  const spec = objectAt(driver, 'spec');
  const before = objectAt(old, 'spec');
  const causes: StatusCause[] = [];
  if (!semanticEqual(spec?.attachRequired, before?.attachRequired)) causes.push(invalid('spec.attachedRequired', spec?.attachRequired ?? null, fieldImmutable));
  if (!semanticEqual(spec?.volumeLifecycleModes, before?.volumeLifecycleModes)) {
    const modes = spec?.volumeLifecycleModes;
    causes.push(invalid('spec.volumeLifecycleModes', Array.isArray(modes) ? modes : null, fieldImmutable));
  }
  return causes;
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
    strategy: {
      defaults: defaultCSIDriver,
      // A new driver has no generation; a change of its spec counts one more.
      prepareForUpdate(driver, old) {
        if (!semanticEqual(driver.spec, old.spec)) driver.metadata.generation = (old.metadata.generation ?? 0) + 1;
      },
      validate: validateCSIDriver,
      validateUpdate: validateCSIDriverUpdate,
    },
    allowUnconditionalUpdate: false,
    tableColumns: csiDriverColumns,
  });
}

/** The longest node ID a driver may report (upstream's strategy allows the longer limit). */
const csiNodeIDMaxLength = 256;

/** ValidateCSINode beyond metadata (the name is a node's). */
function validateCSINode(node: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  objectsAt(objectAt(node, 'spec'), 'drivers').forEach((driver, i) => {
    const path = `spec.drivers[${i}]`;
    const name = stringAt(driver, 'name');
    appendAll(causes, validateCSIDriverName(name, `${path}.name`));
    const nodeID = stringAt(driver, 'nodeID');
    if (nodeID === '') causes.push(required(`${path}.nodeID`));
    if (byteLength(nodeID) > csiNodeIDMaxLength) causes.push(invalid(`${path}.nodeID`, nodeID, `must be ${csiNodeIDMaxLength} characters or less`));
    const count = objectAt(driver, 'allocatable')?.count;
    if (typeof count === 'number') appendAll(causes, validateNonnegative(count, `${path}.allocatable.count`));
    if (names.has(name)) causes.push(duplicate(`${path}.name`, name));
    names.add(name);
    // Upstream reports a topology key's errors at the driver.
    const keys = new Set<string>();
    for (const key of stringsAt(driver, 'topologyKeys')) {
      if (key === '') causes.push(required(path));
      if (keys.has(key)) causes.push(duplicate(path, key));
      keys.add(key);
      for (const msg of isQualifiedName(key)) causes.push(invalid(path, key, msg));
    }
  });
  return causes;
}

/**
 * The internal storage.CSINodeDriver as json.Marshal writes it (Go field names), without
 * its allocatable count, which may change (MutableCSINodeAllocatableCount).
 */
function csiNodeDriverGo(driver: JsonObject): GoValue {
  const keys = Array.isArray(driver.topologyKeys) ? driver.topologyKeys : null;
  return goJson({ Name: stringAt(driver, 'name'), NodeID: stringAt(driver, 'nodeID'), TopologyKeys: keys, Allocatable: null });
}

/** ValidateCSINodeUpdate: a driver of the same name keeps its node ID and topology keys. */
function validateCSINodeUpdate(node: KubeObject, old: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const withoutCount = (d: JsonObject) => ({ ...d, allocatable: undefined });
  for (const before of objectsAt(objectAt(old, 'spec'), 'drivers')) {
    for (const after of objectsAt(objectAt(node, 'spec'), 'drivers')) {
      if (stringAt(before, 'name') !== stringAt(after, 'name')) continue;
      if (!semanticEqual(withoutCount(after), withoutCount(before))) causes.push(invalid('spec.drivers', csiNodeDriverGo(after), fieldImmutable));
    }
  }
  return causes;
}

export function csiNodesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csinodes', {
    strategy: { validate: validateCSINode, validateUpdate: validateCSINodeUpdate },
    allowUnconditionalUpdate: false,
    // printers.go's printCSINode.
    tableColumns: [
      nameColumn,
      column('Drivers', (n) => arrayAt(objectAt(n, 'spec'), 'drivers').length, { type: 'integer', description: 'Drivers indicates the number of CSI drivers registered on the node' }),
      ageColumn,
    ],
  });
}

/** ValidateCSIStorageCapacity beyond metadata. */
function validateCSIStorageCapacity(capacity: KubeObject): StatusCause[] {
  const obj = capacity as unknown as JsonObject;
  const causes: StatusCause[] = [];
  const topology = objectAt(obj, 'nodeTopology');
  if (topology !== undefined) appendAll(causes, validateLabelSelector(topology, 'nodeTopology'));
  const className = stringAt(obj, 'storageClassName');
  for (const msg of isDNS1123Subdomain(className)) causes.push(invalid('storageClassName', className, msg));
  if (present(obj.capacity)) {
    const q = parseQuantity(obj.capacity);
    if (q !== undefined && isNegative(q)) causes.push(invalid('capacity', canonicalQuantity(obj.capacity), 'must be greater than or equal to 0'));
  }
  return causes;
}

/** ValidateCSIStorageCapacityUpdate: what the capacity was asked for never changes. */
function validateCSIStorageCapacityUpdate(capacity: KubeObject, old: KubeObject): StatusCause[] {
  const obj = capacity as unknown as JsonObject;
  const before = old as unknown as JsonObject;
  const causes: StatusCause[] = [];
  if (!semanticEqual(obj.nodeTopology, before.nodeTopology)) {
    causes.push(invalid('nodeTopology', labelSelectorJson(obj.nodeTopology), fieldImmutable));
  }
  const className = stringAt(obj, 'storageClassName');
  if (className !== stringAt(before, 'storageClassName')) causes.push(invalid('storageClassName', className, fieldImmutable));
  return causes;
}

export function csiStorageCapacitiesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'csistoragecapacities', {
    strategy: {
      validate: validateCSIStorageCapacity,
      validateUpdate: validateCSIStorageCapacityUpdate,
      warningsOnCreate: csiStorageCapacityWarnings,
      warningsOnUpdate: csiStorageCapacityWarnings,
    },
    allowUnconditionalUpdate: false,
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

const maxAttachedVolumeMetadataSize = 256 * 1024;
const maxVolumeErrorMessageSize = 1024;
const sourceRule = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';

/** ValidateVolumeAttachment and the checks v1 adds (ValidateVolumeAttachmentV1), beyond metadata. */
function validateVolumeAttachment(va: KubeObject): StatusCause[] {
  const spec = objectAt(va, 'spec');
  const causes: StatusCause[] = [];
  const attacher = stringAt(spec, 'attacher');
  if (attacher === '') causes.push(required('spec.attacher'));
  const source = objectAt(spec, 'source');
  const volumeName = source?.persistentVolumeName;
  const named = typeof volumeName === 'string';
  const inline = present(source?.inlineVolumeSpec);
  if (!named && !inline) causes.push(required('spec.source', sourceRule));
  else if (named && inline) causes.push(forbidden('spec.source', sourceRule));
  else if (named && volumeName === '') causes.push(required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  else if (inline) appendAll(causes, validatePersistentVolumeSpec(objectAt(source, 'inlineVolumeSpec') ?? {}, 'spec.source.inlineVolumeSpec', true));
  const nodeName = stringAt(spec, 'nodeName');
  for (const msg of isDNS1123Subdomain(nodeName)) causes.push(invalid('spec.nodeName', nodeName, msg));
  const status = objectAt(va, 'status');
  const metadata = objectAt(status, 'attachmentMetadata') ?? {};
  let size = 0;
  for (const [k, v] of Object.entries(metadata)) size += byteLength(k) + byteLength(typeof v === 'string' ? v : '');
  if (size > maxAttachedVolumeMetadataSize) causes.push(tooLong('status.attachmentMetadata', maxAttachedVolumeMetadataSize));
  for (const which of ['attachError', 'detachError']) {
    const error = objectAt(status, which);
    if (error === undefined) continue;
    // Upstream names the metadata's limit for a message too long.
    if (byteLength(stringAt(error, 'message')) > maxVolumeErrorMessageSize) causes.push(tooLong(`status.${which}.message`, maxAttachedVolumeMetadataSize));
    const code = error.errorCode;
    if (typeof code === 'number' && code < 0) causes.push(invalid(`status.${which}.errorCode`, code, inclusiveRangeError(0, 2 ** 31 - 1)));
  }
  appendAll(causes, validateCSIDriverName(attacher, 'spec.attacher'));
  if (named) for (const msg of isDNS1123Subdomain(volumeName)) causes.push(invalid('spec.source.persistentVolumeName', volumeName, msg));
  return causes;
}

/**
 * The internal storage.VolumeAttachmentSpec as json.Marshal writes it (Go field names). An
 * inline volume spec is not rendered but shown as `{...}`: it is an internal
 * core.PersistentVolumeSpec, some thirty fields with the volume source pointers inlined.
 */
function goVolumeAttachmentSpec(spec: JsonObject | undefined): GoValue {
  const source = objectAt(spec, 'source');
  const name = source?.persistentVolumeName;
  const text = goJson({
    Attacher: stringAt(spec, 'attacher'),
    Source: { PersistentVolumeName: typeof name === 'string' ? name : null, InlineVolumeSpec: null },
    NodeName: stringAt(spec, 'nodeName'),
  }).text;
  return new GoValue(present(source?.inlineVolumeSpec) ? text.replace('"InlineVolumeSpec":null', '"InlineVolumeSpec":{...}') : text);
}

/** The spec never changes. */
function validateVolumeAttachmentUpdate(va: KubeObject, old: KubeObject): StatusCause[] {
  return semanticEqual(va.spec, old.spec) ? [] : [invalid('spec', goVolumeAttachmentSpec(objectAt(va, 'spec')), fieldImmutable)];
}

export function volumeAttachmentsType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'volumeattachments', {
    // The status is the attacher's: a create starts without one, a PUT keeps the stored one.
    // Upstream keeps no generation, as the spec never changes.
    strategy: {
      prepareForCreate(va) {
        va.status = {};
      },
      prepareForUpdate: keepOldStatus,
      validate: validateVolumeAttachment,
      validateUpdate: validateVolumeAttachmentUpdate,
      // A status write is checked as a whole write (the spec is the stored one).
      subresources: { status: { prepareForUpdate: keepOldSpec, validateUpdate: validateVolumeAttachment } },
    },
    allowUnconditionalUpdate: false,
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

/** ValidateVolumeAttributesClass beyond metadata: a driver, and parameters (at least one). */
function validateVolumeAttributesClass(vac: KubeObject): StatusCause[] {
  const obj = vac as unknown as JsonObject;
  return [...validateProvisioner(stringAt(obj, 'driverName'), 'driverName'), ...validateParameters(obj.parameters, false)];
}

/** ValidateVolumeAttributesClassUpdate: the driver and its parameters never change. */
function validateVolumeAttributesClassUpdate(vac: KubeObject, old: KubeObject): StatusCause[] {
  const obj = vac as unknown as JsonObject;
  const before = old as unknown as JsonObject;
  const causes: StatusCause[] = [];
  if (stringAt(obj, 'driverName') !== stringAt(before, 'driverName')) causes.push(forbidden('driverName', 'updates to driverName are forbidden.'));
  if (!sameParameters(obj.parameters, before.parameters)) causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  return causes;
}

export function volumeAttributesClassesType(): ResourceType {
  return builtinType('storage.k8s.io', 'v1', 'volumeattributesclasses', {
    strategy: { validate: validateVolumeAttributesClass, validateUpdate: validateVolumeAttributesClassUpdate },
    // printers.go's printVolumeAttributesClass.
    tableColumns: [
      { ...nameColumn, cell: (vac) => `${vac.metadata.name ?? ''}${isDefaultAttributesClass(vac) ? ' (default)' : ''}` },
      column('DriverName', (vac) => stringAt(vac, 'driverName'), { description: 'Name of the CSI driver This field is immutable.' }),
      ageColumn,
    ],
  });
}
