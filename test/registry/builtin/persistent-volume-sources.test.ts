// Each PersistentVolume source's own fields, validated as upstream's ValidatePersistentVolumeSpec
// and the validate<Kind>(PersistentVolume)Source functions it calls do
// (pkg/apis/core/validation): one valid volume per source, and invalid ones with upstream's
// exact causes (reason, field, message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import { builtinType, storeCreate } from '../../helpers/store.ts';

const pvs = builtinType('persistentvolumes');

/** A cause as one line: its reason, field and message. */
const show = (c: StatusCause) => `${c.reason} ${c.field}: ${c.message}`;

const nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } };

function pv(source: Record<string, unknown>, name = 'pv1'): KubeObject {
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...source } };
}

const subdomainError = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelError = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const quobyteRegistryError = 'must be a host:port pair or multiple pairs separated by commas';
const blobURI = 'https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd';
const managedURI = '/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}';
const iscsiTooLong = 'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.';
const eui = 'eui.0123456789ABCDEF';

interface Case {
  name: string;
  /** The volume's source (and anything else of its spec beside capacity and access modes). */
  source: Record<string, unknown>;
  causes: string[];
}

const cases: Case[] = [
  // validateHostPathVolumeSource: a path first, then no ".." and a known type.
  { name: 'hostPath with a path and a type', source: { hostPath: { path: '/data', type: 'DirectoryOrCreate' } }, causes: [] },
  { name: 'hostPath without a path: its type is not looked at', source: { hostPath: { path: '', type: 'Pipe' } },
    causes: ['FieldValueRequired spec.hostPath.path: Required value'] },
  { name: 'hostPath with no path field: reported once', source: { hostPath: {} }, causes: ['FieldValueRequired spec.hostPath.path: Required value'] },
  { name: 'hostPath with a ".." element and an unknown type', source: { hostPath: { path: '/var/../etc', type: 'Pipe' } }, causes: [
    `FieldValueInvalid spec.hostPath.path: Invalid value: "/var/../etc": must not contain '..'`,
    'FieldValueNotSupported spec.hostPath.type: Unsupported value: "Pipe": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
  ] },

  // Upstream reports a GCE disk's fields under "persistentDisk", and words the partition's range as 1 to 255.
  { name: 'gcePersistentDisk with a name and a partition', source: { gcePersistentDisk: { pdName: 'disk-1', partition: 1 } }, causes: [] },
  { name: 'gcePersistentDisk with an empty name and partition 256', source: { gcePersistentDisk: { pdName: '', partition: 256 } }, causes: [
    'FieldValueRequired spec.persistentDisk.pdName: Required value',
    'FieldValueInvalid spec.persistentDisk.partition: Invalid value: 256: must be between 1 and 255, inclusive',
  ] },
  { name: 'gcePersistentDisk without a name: reported once, as persistentDisk.pdName', source: { gcePersistentDisk: {} },
    causes: ['FieldValueRequired spec.persistentDisk.pdName: Required value'] },

  { name: 'awsElasticBlockStore with a volume ID', source: { awsElasticBlockStore: { volumeID: 'vol-0a1b', partition: 0 } }, causes: [] },
  { name: 'awsElasticBlockStore with an empty volume ID and a negative partition', source: { awsElasticBlockStore: { volumeID: '', partition: -1 } }, causes: [
    'FieldValueRequired spec.awsElasticBlockStore.volumeID: Required value',
    'FieldValueInvalid spec.awsElasticBlockStore.partition: Invalid value: -1: must be between 1 and 255, inclusive',
  ] },

  // validateGlusterfsPersistentVolumeSource: an endpointsNamespace, if set, is a namespace's name.
  { name: 'glusterfs with endpoints, a path and an endpoints namespace', source: { glusterfs: { endpoints: 'gluster', path: 'vol', endpointsNamespace: 'storage' } }, causes: [] },
  { name: 'glusterfs without endpoints or path', source: { glusterfs: { endpoints: '', path: '' } }, causes: [
    'FieldValueRequired spec.glusterfs.endpoints: Required value',
    'FieldValueRequired spec.glusterfs.path: Required value',
  ] },
  { name: 'glusterfs with an empty endpoints namespace', source: { glusterfs: { endpoints: 'gluster', path: 'vol', endpointsNamespace: '' } },
    causes: ['FieldValueInvalid spec.glusterfs.endpointsNamespace: Invalid value: "": if the endpointnamespace is set, it must be a valid namespace name'] },
  { name: 'glusterfs with an endpoints namespace that is not a DNS label', source: { glusterfs: { endpoints: 'gluster', path: 'vol', endpointsNamespace: 'Storage_1' } },
    causes: [`FieldValueInvalid spec.glusterfs.endpointsNamespace: Invalid value: "Storage_1": ${labelError}`] },
  { name: 'glusterfs with an endpoints namespace with dots', source: { glusterfs: { endpoints: 'gluster', path: 'vol', endpointsNamespace: 'a.b' } },
    causes: ['FieldValueInvalid spec.glusterfs.endpointsNamespace: Invalid value: "a.b": must not contain dots'] },

  { name: 'flocker with a dataset UUID', source: { flocker: { datasetUUID: '7a1f' } }, causes: [] },
  { name: 'flocker with neither dataset name nor UUID', source: { flocker: {} },
    causes: ['FieldValueRequired spec.flocker: Required value: one of datasetName and datasetUUID is required'] },
  { name: 'flocker with both, the name with a slash', source: { flocker: { datasetName: 'a/b', datasetUUID: 'u' } }, causes: [
    'FieldValueInvalid spec.flocker: Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously',
    `FieldValueInvalid spec.flocker.datasetName: Invalid value: "a/b": must not contain '/'`,
  ] },

  { name: 'nfs with a server and an absolute path', source: { nfs: { server: 'nfs.example.com', path: '/exports' } }, causes: [] },
  { name: 'nfs without server, with a relative path', source: { nfs: { server: '', path: 'exports' } }, causes: [
    'FieldValueRequired spec.nfs.server: Required value',
    'FieldValueInvalid spec.nfs.path: Invalid value: "exports": must be an absolute path',
  ] },
  { name: 'nfs with an empty path: required, and not absolute', source: { nfs: { server: 'nfs.example.com', path: '' } }, causes: [
    'FieldValueRequired spec.nfs.path: Required value',
    'FieldValueInvalid spec.nfs.path: Invalid value: "": must be an absolute path',
  ] },

  { name: 'rbd with monitors and an image', source: { rbd: { monitors: ['10.0.0.1:6789'], image: 'disk', secretRef: { name: 'ceph' } } }, causes: [] },
  { name: 'rbd without monitors or image', source: { rbd: { monitors: [], image: '' } }, causes: [
    'FieldValueRequired spec.rbd.monitors: Required value',
    'FieldValueRequired spec.rbd.image: Required value',
  ] },

  { name: 'quobyte with host:port pairs', source: { quobyte: { registry: 'reg1:7861,[::1]:7861', volume: 'vol' } }, causes: [] },
  { name: 'quobyte with a pair that is not host:port, and no volume', source: { quobyte: { registry: 'a:1,b', volume: '' } }, causes: [
    `FieldValueInvalid spec.quobyte.registry: Invalid value: "a:1,b": ${quobyteRegistryError}`,
    'FieldValueRequired spec.quobyte.volume: Required value',
  ] },
  { name: 'quobyte with a tenant over 64 bytes', source: { quobyte: { registry: 'reg1:7861', tenant: 't'.repeat(65), volume: 'vol' } },
    causes: ['FieldValueRequired spec.quobyte.tenant: Required value: must be a UUID and may not exceed a length of 64 characters'] },

  // Checked at "cephfs", but a second source is refused at "cephFS".
  { name: 'cephfs with monitors', source: { cephfs: { monitors: ['10.0.0.1:6789'], path: '/', secretRef: { name: 'ceph', namespace: 'rook' } } }, causes: [] },
  { name: 'cephfs without monitors', source: { cephfs: { monitors: [] } }, causes: ['FieldValueRequired spec.cephfs.monitors: Required value'] },
  { name: 'cephfs beside another source: refused as cephFS, not checked', source: { nfs: { server: 'nfs.example.com', path: '/exports' }, cephfs: { monitors: ['m'], user: 'admin' } },
    causes: ['FieldValueForbidden spec.cephFS: Forbidden: may not specify more than 1 volume type'] },

  // validateISCSIPersistentVolumeSource: a name of no known format is only "must be valid format".
  { name: 'iscsi with iqn names and a CHAP secret', source: { iscsi: {
    targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage.disk1', lun: 0, initiatorName: 'iqn.1994-05.com.example:node1',
    chapAuthSession: true, secretRef: { name: 'chap', namespace: 'default' },
  } }, causes: [] },
  { name: 'iscsi without a lun (0, which is valid)', source: { iscsi: { targetPortal: '10.0.0.1:3260', iqn: eui } }, causes: [] },
  { name: 'iscsi without a portal, with an unknown name format, lun 256, CHAP without a secret', source: { iscsi: { targetPortal: '', iqn: 'foo', lun: 256, chapAuthSession: true } }, causes: [
    'FieldValueRequired spec.iscsi.targetPortal: Required value',
    'FieldValueInvalid spec.iscsi.iqn: Invalid value: "foo": must be valid format',
    'FieldValueInvalid spec.iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive',
    'FieldValueRequired spec.iscsi.secretRef: Required value',
  ] },
  { name: 'iscsi with no iqn', source: { iscsi: { targetPortal: 'p', iqn: '', lun: 1 } }, causes: ['FieldValueRequired spec.iscsi.iqn: Required value'] },
  { name: 'iscsi with a secretRef naming nothing: its namespace is not required', source: { iscsi: { targetPortal: 'p', iqn: eui, chapAuthDiscovery: true, secretRef: {} } },
    causes: ['FieldValueRequired spec.iscsi.secretRef.name: Required value'] },
  { name: 'iscsi names that start right but do not match', source: { iscsi: { targetPortal: 'p', iqn: 'iqn.2001-04.com.example', lun: 1, initiatorName: 'eui.123' } }, causes: [
    'FieldValueInvalid spec.iscsi.iqn: Invalid value: "iqn.2001-04.com.example": must be valid format',
    'FieldValueInvalid spec.iscsi.initiatorname: Invalid value: "eui.123": must be valid format',
  ] },
  { name: 'iscsi with an initiator name of an unknown format, or empty', source: { iscsi: { targetPortal: 'p', iqn: 'naa.1', lun: 1, initiatorName: '' } }, causes: [
    'FieldValueInvalid spec.iscsi.iqn: Invalid value: "naa.1": must be valid format',
    'FieldValueInvalid spec.iscsi.initiatorname: Invalid value: "": must be valid format',
  ] },
  // "pv1:" and a portal of 60 bytes make 64; of 61, 65.
  { name: 'iscsi with an initiator name: "<pv>:<portal>" of 64 bytes', source: { iscsi: { targetPortal: 'p'.repeat(60), iqn: eui, initiatorName: 'iqn.1994-05.com.example:node1' } }, causes: [] },
  { name: 'iscsi with an initiator name: "<pv>:<portal>" longer than 64, reported at targetportal', source: { iscsi: { targetPortal: 'p'.repeat(61), iqn: eui, initiatorName: 'iqn.1994-05.com.example:node1' } },
    causes: [`FieldValueInvalid spec.iscsi.targetportal: Invalid value: "${'p'.repeat(61)}": ${iscsiTooLong}`] },
  { name: 'iscsi with a long portal and no initiator name', source: { iscsi: { targetPortal: 'p'.repeat(80), iqn: eui } }, causes: [] },

  // validateCinderPersistentVolumeSource: a secretRef names its secret and its namespace.
  { name: 'cinder with a volume ID and a secret', source: { cinder: { volumeID: 'vol', secretRef: { name: 'creds', namespace: 'openstack' } } }, causes: [] },
  { name: 'cinder without a volume ID, with a secretRef naming nothing', source: { cinder: { volumeID: '', secretRef: {} } }, causes: [
    'FieldValueRequired spec.cinder.volumeID: Required value',
    'FieldValueRequired spec.cinder.secretRef.name: Required value',
    'FieldValueRequired spec.cinder.secretRef.namespace: Required value',
  ] },
  { name: 'cinder with a secret but no namespace', source: { cinder: { volumeID: 'vol', secretRef: { name: 'creds' } } },
    causes: ['FieldValueRequired spec.cinder.secretRef.namespace: Required value'] },

  { name: 'fc with target WWNs and a lun', source: { fc: { targetWWNs: ['500a0982991b8dc5'], lun: 2 } }, causes: [] },
  { name: 'fc with neither WWNs nor WWIDs', source: { fc: {} },
    causes: ['FieldValueRequired spec.fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both'] },
  { name: 'fc with both, and lun 256', source: { fc: { targetWWNs: ['a'], wwids: ['b'], lun: 256 } }, causes: [
    'FieldValueInvalid spec.fc.targetWWNs: Invalid value: ["a"]: targetWWNs and wwids can not be specified simultaneously',
    'FieldValueInvalid spec.fc.lun: Invalid value: 256: must be between 0 and 255, inclusive',
  ] },

  // validateFlexPersistentVolumeSource checks no secretRef; a flex volume beside another source is not refused.
  { name: 'flexVolume with a driver, its own options and a secretRef naming nothing', source: { flexVolume: { driver: 'example.com/nfs', options: { 'example.com/x': '1' }, secretRef: {} } }, causes: [] },
  { name: 'flexVolume without a driver, with options in reserved namespaces', source: { flexVolume: { driver: '', options: { 'kubernetes.io/x': 'a', 'sub.K8S.io/y': 'b' } } }, causes: [
    'FieldValueRequired spec.flexVolume.driver: Required value',
    'FieldValueInvalid spec.flexVolume.options[kubernetes.io/x]: Invalid value: "kubernetes.io/x": kubernetes.io and k8s.io namespaces are reserved',
    'FieldValueInvalid spec.flexVolume.options[sub.K8S.io/y]: Invalid value: "sub.K8S.io/y": kubernetes.io and k8s.io namespaces are reserved',
  ] },
  { name: 'flexVolume beside a hostPath', source: { hostPath: { path: '/data' }, flexVolume: { driver: 'example.com/nfs' } }, causes: [] },

  // validateAzureFilePV: a secretNamespace, if set, is not empty (its form is not checked).
  { name: 'azureFile with a secret, a share and a secret namespace', source: { azureFile: { secretName: 'azure', shareName: 'share', secretNamespace: 'default' } }, causes: [] },
  { name: 'azureFile with a secret namespace that is not a DNS label', source: { azureFile: { secretName: 'azure', shareName: 'share', secretNamespace: 'Not_A_Label' } }, causes: [] },
  { name: 'azureFile without secret or share, with an empty secret namespace', source: { azureFile: { secretName: '', shareName: '', secretNamespace: '' } }, causes: [
    'FieldValueRequired spec.azureFile.secretName: Required value',
    'FieldValueRequired spec.azureFile.shareName: Required value',
    'FieldValueRequired spec.azureFile.secretNamespace: Required value',
  ] },

  { name: 'vsphereVolume with a path', source: { vsphereVolume: { volumePath: '[datastore] vol.vmdk' } }, causes: [] },
  { name: 'vsphereVolume without a path', source: { vsphereVolume: { volumePath: '' } }, causes: ['FieldValueRequired spec.vsphereVolume.volumePath: Required value'] },

  { name: 'photonPersistentDisk with an ID', source: { photonPersistentDisk: { pdID: 'pd-1' } }, causes: [] },
  { name: 'photonPersistentDisk without an ID', source: { photonPersistentDisk: { pdID: '' } }, causes: ['FieldValueRequired spec.photonPersistentDisk.pdID: Required value'] },

  { name: 'portworxVolume with an ID', source: { portworxVolume: { volumeID: 'pwx-1' } }, causes: [] },
  { name: 'portworxVolume without an ID', source: { portworxVolume: { volumeID: '' } }, causes: ['FieldValueRequired spec.portworxVolume.volumeID: Required value'] },

  // A disk without a kind is defaulted to Shared, a blob: its URI must be an https URL.
  { name: 'azureDisk, a blob by default', source: { azureDisk: { diskName: 'd', diskURI: 'https://acct.blob.core.windows.net/vhds/d.vhd' } }, causes: [] },
  { name: 'azureDisk without a kind, with a managed disk\'s URI', source: { azureDisk: { diskName: 'd', diskURI: '/subscriptions/s/disks/d' } },
    causes: [`FieldValueNotSupported spec.azureDisk.diskURI: Unsupported value: "/subscriptions/s/disks/d": supported values: "${blobURI}"`] },
  { name: 'azureDisk, managed, with a blob URI', source: { azureDisk: { diskName: 'd', diskURI: 'https://acct.blob.core.windows.net/vhds/d.vhd', kind: 'Managed' } },
    causes: [`FieldValueNotSupported spec.azureDisk.diskURI: Unsupported value: "https://acct.blob.core.windows.net/vhds/d.vhd": supported values: "${managedURI}"`] },
  { name: 'azureDisk without name or URI, with unknown caching mode and kind', source: { azureDisk: { diskName: '', diskURI: '', cachingMode: 'Sometimes', kind: 'Floppy' } }, causes: [
    'FieldValueRequired spec.azureDisk.diskName: Required value',
    'FieldValueRequired spec.azureDisk.diskURI: Required value',
    'FieldValueNotSupported spec.azureDisk.cachingMode: Unsupported value: "Sometimes": supported values: "None", "ReadOnly", "ReadWrite"',
    'FieldValueNotSupported spec.azureDisk.kind: Unsupported value: "Floppy": supported values: "Dedicated", "Managed", "Shared"',
    `FieldValueNotSupported spec.azureDisk.diskURI: Unsupported value: "": supported values: "${blobURI}"`,
  ] },

  { name: 'scaleIO with gateway, system, volume and a secret', source: { scaleIO: { gateway: 'https://gw:443/api', system: 'sys', volumeName: 'vol', secretRef: { name: 'creds', namespace: 'scaleio' } } }, causes: [] },
  { name: 'scaleIO without a secret reference', source: { scaleIO: { gateway: 'https://gw:443/api', system: 'sys', volumeName: 'vol' } }, causes: [] },
  { name: 'scaleIO without gateway, system or volume', source: { scaleIO: { gateway: '', system: '', volumeName: '' } }, causes: [
    'FieldValueRequired spec.scaleIO.gateway: Required value',
    'FieldValueRequired spec.scaleIO.system: Required value',
    'FieldValueRequired spec.scaleIO.volumeName: Required value',
  ] },

  // validateLocalVolumeSource: a path first (relative is allowed), then no ".."; node affinity required.
  { name: 'local with a path and node affinity', source: { local: { path: '/mnt/disks/ssd1' }, nodeAffinity }, causes: [] },
  { name: 'local with a relative path', source: { local: { path: 'mnt/disks/ssd1' }, nodeAffinity }, causes: [] },
  { name: 'local without a path', source: { local: { path: '' }, nodeAffinity }, causes: ['FieldValueRequired spec.local.path: Required value'] },
  { name: 'local with a ".." element', source: { local: { path: '/mnt/../etc' }, nodeAffinity },
    causes: [`FieldValueInvalid spec.local.path: Invalid value: "/mnt/../etc": must not contain '..'`] },
  { name: 'local without node affinity', source: { local: { path: '/mnt/disks/ssd1' } },
    causes: ['FieldValueRequired spec.nodeAffinity: Required value: Local volume requires node affinity'] },

  // validateStorageOSPersistentVolumeSource: a secretRef names its secret and its namespace.
  { name: 'storageos with names that are DNS labels and a secret', source: { storageos: { volumeName: 'vol', volumeNamespace: 'team', secretRef: { name: 'creds', namespace: 'storageos' } } }, causes: [] },
  { name: 'storageos without a volume name', source: { storageos: {} }, causes: ['FieldValueRequired spec.storageos.volumeName: Required value'] },
  { name: 'storageos with names that are not DNS labels, a secretRef naming nothing', source: { storageos: { volumeName: 'Vol_1', volumeNamespace: 'a.b', secretRef: {} } }, causes: [
    `FieldValueInvalid spec.storageos.volumeName: Invalid value: "Vol_1": ${labelError}`,
    'FieldValueInvalid spec.storageos.volumeNamespace: Invalid value: "a.b": must not contain dots',
    'FieldValueRequired spec.storageos.secretRef.name: Required value',
    'FieldValueRequired spec.storageos.secretRef.namespace: Required value',
  ] },

  // validateCSIPersistentVolumeSource: the driver's name (checked lower-cased, reported as given), a handle, and four of the secret references.
  { name: 'csi with an upper-case driver name, a handle and every secret reference', source: { csi: {
    driver: 'CSI.Example.com', volumeHandle: 'vol-1', volumeAttributes: { size: '1Gi' },
    controllerPublishSecretRef: { name: 'publish', namespace: 'kube-system' }, controllerExpandSecretRef: { name: 'expand', namespace: 'kube-system' },
    nodePublishSecretRef: { name: 'node.publish', namespace: 'kube-system' }, nodeExpandSecretRef: { name: 'node-expand', namespace: 'kube-system' },
    nodeStageSecretRef: { name: 'stage', namespace: 'kube-system' },
  } }, causes: [] },
  { name: 'csi with an empty driver name and no handle', source: { csi: { driver: '', volumeHandle: '' } }, causes: [
    'FieldValueRequired spec.csi.driver: Required value',
    `FieldValueInvalid spec.csi.driver: Invalid value: "": ${subdomainError}`,
    'FieldValueRequired spec.csi.volumeHandle: Required value',
  ] },
  { name: 'csi with a driver name over 63 bytes', source: { csi: { driver: 'd'.repeat(64), volumeHandle: 'vol-1' } },
    causes: ['FieldValueTooLong spec.csi.driver: Too long: may not be more than 63 bytes'] },
  { name: 'csi with a driver name that is not a subdomain', source: { csi: { driver: 'csi_driver', volumeHandle: 'vol-1' } },
    causes: [`FieldValueInvalid spec.csi.driver: Invalid value: "csi_driver": ${subdomainError}`] },
  { name: 'csi with secret references naming nothing', source: { csi: {
    driver: 'csi.example.com', volumeHandle: 'vol-1',
    controllerPublishSecretRef: {}, controllerExpandSecretRef: { name: '' }, nodePublishSecretRef: { namespace: '' }, nodeExpandSecretRef: {},
  } }, causes: [
    'FieldValueRequired spec.csi.controllerPublishSecretRef.name: Required value',
    'FieldValueRequired spec.csi.controllerPublishSecretRef.namespace: Required value',
    'FieldValueRequired spec.csi.controllerExpandSecretRef.name: Required value',
    'FieldValueRequired spec.csi.controllerExpandSecretRef.namespace: Required value',
    'FieldValueRequired spec.csi.nodePublishSecretRef.name: Required value',
    'FieldValueRequired spec.csi.nodePublishSecretRef.namespace: Required value',
    'FieldValueRequired spec.csi.nodeExpandSecretRef.name: Required value',
    'FieldValueRequired spec.csi.nodeExpandSecretRef.namespace: Required value',
  ] },
  { name: 'csi with secret names that are not subdomains and namespaces that are not DNS labels', source: { csi: {
    driver: 'csi.example.com', volumeHandle: 'vol-1',
    nodePublishSecretRef: { name: 'Bad_Name', namespace: 'a.b' }, controllerExpandSecretRef: { name: 'expand', namespace: 'Team' },
  } }, causes: [
    `FieldValueInvalid spec.csi.nodePublishSecretRef.name: Invalid value: "Bad_Name": ${subdomainError}`,
    'FieldValueInvalid spec.csi.nodePublishSecretRef.namespace: Invalid value: "a.b": must not contain dots',
    `FieldValueInvalid spec.csi.controllerExpandSecretRef.namespace: Invalid value: "Team": ${labelError}`,
  ] },
  { name: 'csi with a node stage secret naming nothing: upstream does not check it', source: { csi: { driver: 'csi.example.com', volumeHandle: 'vol-1', nodeStageSecretRef: {} } }, causes: [] },
];

for (const { name, source, causes } of cases) {
  test(`persistent volume source: ${name}`, async () => {
    const result = await storeCreate(pvs, pv(source));
    assert.deepEqual(result.causes.map(show).sort(), [...causes].sort());
  });
}

test('an iSCSI initiator name limits "<pv name>:<targetPortal>" by the PersistentVolume\'s own name', async () => {
  const iscsi = { targetPortal: 'p'.repeat(62), iqn: eui, initiatorName: 'iqn.1994-05.com.example:node1' };
  assert.deepEqual((await storeCreate(pvs, pv({ iscsi }, 'a'))).causes, []);
  assert.deepEqual((await storeCreate(pvs, pv({ iscsi }, 'ab'))).causes.map(show), [
    `FieldValueInvalid spec.iscsi.targetportal: Invalid value: "${'p'.repeat(62)}": ${iscsiTooLong}`,
  ]);
});

test('a PersistentVolume\'s azureDisk is defaulted as a pod volume\'s is', async () => {
  const created = await storeCreate(pvs, pv({ azureDisk: { diskName: 'd', diskURI: 'https://acct.blob.core.windows.net/vhds/d.vhd' } }));
  assert.deepEqual(created.causes, []);
  const azureDisk = (created.obj.spec as { azureDisk: Record<string, unknown> }).azureDisk;
  assert.deepEqual([azureDisk.kind, azureDisk.cachingMode], ['Shared', 'ReadWrite']);
});
