// Each pod volume source's own fields, validated as upstream's validateVolumeSource and its
// validate<Kind>VolumeSource functions do (pkg/apis/core/validation): one valid volume per
// source, and invalid ones with upstream's exact causes (reason, field, message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import { validateVolumeSource } from '../../../src/registry/builtin/pod-volume-sources.ts';
import { builtinType, storeCreate } from '../../helpers/store.ts';

const pods = builtinType('pods');
const deployments = builtinType('deployments');

function pod(...volumes: Record<string, unknown>[]): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx:1' }], volumes } };
}

/** A cause as one line: its reason, field and message. */
const show = (c: StatusCause) => `${c.reason} ${c.field}: ${c.message}`;

const v = 'spec.volumes[0]';
const subdomainError = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelError = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const quobyteRegistryError = 'must be a host:port pair or multiple pairs separated by commas';
const blobURI = 'https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd';
const managedURI = '/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}';
const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

interface Case {
  name: string;
  /** The pod's one volume, named "v". */
  volume: Record<string, unknown>;
  causes: string[];
}

const cases: Case[] = [
  // emptyDir: only a negative size limit (upstream checks no medium).
  { name: 'emptyDir with a medium and a size limit', volume: { emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } }, causes: [] },
  { name: 'emptyDir with a zero size limit', volume: { emptyDir: { sizeLimit: '0' } }, causes: [] },
  { name: 'emptyDir with a negative size limit', volume: { emptyDir: { sizeLimit: '-1Gi' } },
    causes: [`FieldValueForbidden ${v}.emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity`] },

  { name: 'hostPath with a ".." element', volume: { hostPath: { path: '/var/../etc' } },
    causes: [`FieldValueInvalid ${v}.hostPath.path: Invalid value: "/var/../etc": must not contain '..'`] },
  { name: 'hostPath without a path: its type is not looked at', volume: { hostPath: { path: '', type: 'Pipe' } },
    causes: [`FieldValueRequired ${v}.hostPath.path: Required value`] },

  { name: 'gitRepo with a repository and a relative directory', volume: { gitRepo: { repository: 'https://git.example.com/app.git', directory: 'src' } }, causes: [] },
  { name: 'gitRepo without a repository, in an absolute directory with ".."', volume: { gitRepo: { repository: '', directory: '/abs/../x' } }, causes: [
    `FieldValueRequired ${v}.gitRepo.repository: Required value`,
    `FieldValueInvalid ${v}.gitRepo.directory: Invalid value: "/abs/../x": must be a relative path`,
    `FieldValueInvalid ${v}.gitRepo.directory: Invalid value: "/abs/../x": must not contain '..'`,
  ] },

  { name: 'gcePersistentDisk with a name and a partition', volume: { gcePersistentDisk: { pdName: 'disk-1', partition: 1 } }, causes: [] },
  // Upstream reports these under "persistentDisk", and words the partition's range as 1 to 255.
  { name: 'gcePersistentDisk with an empty name and partition 256', volume: { gcePersistentDisk: { pdName: '', partition: 256 } }, causes: [
    `FieldValueRequired ${v}.persistentDisk.pdName: Required value`,
    `FieldValueInvalid ${v}.persistentDisk.partition: Invalid value: 256: must be between 1 and 255, inclusive`,
  ] },

  { name: 'awsElasticBlockStore with a volume ID', volume: { awsElasticBlockStore: { volumeID: 'vol-0a1b', partition: 0 } }, causes: [] },
  { name: 'awsElasticBlockStore with an empty volume ID and a negative partition', volume: { awsElasticBlockStore: { volumeID: '', partition: -1 } }, causes: [
    `FieldValueRequired ${v}.awsElasticBlockStore.volumeID: Required value`,
    `FieldValueInvalid ${v}.awsElasticBlockStore.partition: Invalid value: -1: must be between 1 and 255, inclusive`,
  ] },

  { name: 'iscsi with an iqn name', volume: { iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage.disk1', lun: 0, initiatorName: 'iqn.1994-05.com.example:node1' } }, causes: [] },
  { name: 'iscsi with eui and naa names', volume: { iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'eui.0123456789ABCDEF', lun: 255, initiatorName: `naa.${'0123456789abcdef'.repeat(2)}` } }, causes: [] },
  { name: 'iscsi without a portal, with an unknown name format, lun 256, CHAP without a secret', volume: { iscsi: { targetPortal: '', iqn: 'foo', lun: 256, chapAuthSession: true } }, causes: [
    `FieldValueRequired ${v}.iscsi.targetPortal: Required value`,
    `FieldValueInvalid ${v}.iscsi.iqn: Invalid value: "foo": must be valid format starting with iqn, eui, or naa`,
    `FieldValueInvalid ${v}.iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive`,
    `FieldValueRequired ${v}.iscsi.secretRef: Required value`,
  ] },
  { name: 'iscsi with discovery CHAP and a secret', volume: { iscsi: { targetPortal: 'p', iqn: 'eui.0123456789ABCDEF', lun: 0, chapAuthDiscovery: true, secretRef: { name: 'chap' } } }, causes: [] },
  { name: 'iscsi with discovery CHAP and no secret', volume: { iscsi: { targetPortal: 'p', iqn: 'eui.0123456789ABCDEF', lun: 0, chapAuthDiscovery: true } },
    causes: [`FieldValueRequired ${v}.iscsi.secretRef: Required value`] },
  { name: 'iscsi names that start right but do not match', volume: { iscsi: { targetPortal: 'p', iqn: 'iqn.2001-04.com.example', lun: 1, initiatorName: 'eui.123' } }, causes: [
    `FieldValueInvalid ${v}.iscsi.iqn: Invalid value: "iqn.2001-04.com.example": must be valid format`,
    `FieldValueInvalid ${v}.iscsi.initiatorname: Invalid value: "eui.123": must be valid format`,
  ] },
  { name: 'iscsi with an initiator name of an unknown format', volume: { iscsi: { targetPortal: 'p', iqn: 'naa.1', lun: 1, initiatorName: 'node1' } }, causes: [
    `FieldValueInvalid ${v}.iscsi.iqn: Invalid value: "naa.1": must be valid format`,
    `FieldValueInvalid ${v}.iscsi.initiatorname: Invalid value: "node1": must be valid format starting with iqn, eui, or naa`,
  ] },
  { name: 'iscsi with a long portal and no initiator name', volume: { iscsi: { targetPortal: 'p'.repeat(63), iqn: 'eui.0123456789ABCDEF', lun: 0 } }, causes: [] },
  { name: 'iscsi with an initiator name: "<volume>:<portal>" longer than 64', volume: { iscsi: { targetPortal: 'p'.repeat(63), iqn: 'eui.0123456789ABCDEF', lun: 0, initiatorName: 'iqn.1994-05.com.example:node1' } },
    causes: [`FieldValueInvalid ${v}.name: Invalid value: "v": Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.`] },

  { name: 'glusterfs with endpoints and a path', volume: { glusterfs: { endpoints: 'gluster', path: 'vol' } }, causes: [] },
  { name: 'glusterfs without endpoints or path', volume: { glusterfs: { endpoints: '', path: '' } }, causes: [
    `FieldValueRequired ${v}.glusterfs.endpoints: Required value`,
    `FieldValueRequired ${v}.glusterfs.path: Required value`,
  ] },

  { name: 'flocker with a dataset name', volume: { flocker: { datasetName: 'data' } }, causes: [] },
  { name: 'flocker with neither dataset name nor UUID', volume: { flocker: {} },
    causes: [`FieldValueRequired ${v}.flocker: Required value: one of datasetName and datasetUUID is required`] },
  { name: 'flocker with both, the name with a slash', volume: { flocker: { datasetName: 'a/b', datasetUUID: 'u' } }, causes: [
    `FieldValueInvalid ${v}.flocker: Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously`,
    `FieldValueInvalid ${v}.flocker.datasetName: Invalid value: "a/b": must not contain '/'`,
  ] },

  { name: 'persistentVolumeClaim naming a claim', volume: { persistentVolumeClaim: { claimName: 'data', readOnly: true } }, causes: [] },
  { name: 'persistentVolumeClaim without a claim name: reported once', volume: { persistentVolumeClaim: { claimName: '' } },
    causes: [`FieldValueRequired ${v}.persistentVolumeClaim.claimName: Required value`] },

  { name: 'rbd with monitors and an image', volume: { rbd: { monitors: ['10.0.0.1:6789'], image: 'disk' } }, causes: [] },
  { name: 'rbd without monitors or image', volume: { rbd: { monitors: [], image: '' } }, causes: [
    `FieldValueRequired ${v}.rbd.monitors: Required value`,
    `FieldValueRequired ${v}.rbd.image: Required value`,
  ] },

  { name: 'cinder with a volume ID and a secret', volume: { cinder: { volumeID: 'vol', secretRef: { name: 'creds' } } }, causes: [] },
  { name: 'cinder without a volume ID, with a secretRef naming nothing', volume: { cinder: { volumeID: '', secretRef: { name: '' } } }, causes: [
    `FieldValueRequired ${v}.cinder.volumeID: Required value`,
    `FieldValueRequired ${v}.cinder.secretRef.name: Required value`,
  ] },

  { name: 'cephfs with monitors', volume: { cephfs: { monitors: ['10.0.0.1:6789'], path: '/' } }, causes: [] },
  { name: 'cephfs without monitors', volume: { cephfs: { monitors: [] } }, causes: [`FieldValueRequired ${v}.cephfs.monitors: Required value`] },

  { name: 'quobyte with host:port pairs, one of them IPv6', volume: { quobyte: { registry: 'reg1:7861,[::1]:7861', volume: 'vol' } }, causes: [] },
  { name: 'quobyte without registry or volume', volume: { quobyte: { registry: '', volume: '' } }, causes: [
    `FieldValueRequired ${v}.quobyte.registry: Required value: ${quobyteRegistryError}`,
    `FieldValueRequired ${v}.quobyte.volume: Required value`,
  ] },
  { name: 'quobyte with two pairs that are not host:port: one cause each', volume: { quobyte: { registry: 'a:1,b,[c]', volume: 'vol' } }, causes: [
    `FieldValueInvalid ${v}.quobyte.registry: Invalid value: "a:1,b,[c]": ${quobyteRegistryError}`,
    `FieldValueInvalid ${v}.quobyte.registry: Invalid value: "a:1,b,[c]": ${quobyteRegistryError}`,
  ] },
  // Go's net.SplitHostPort: a host with colons must be bracketed, the port follow the bracket, no stray brackets.
  { name: 'quobyte with pairs SplitHostPort refuses', volume: { quobyte: { registry: 'h:1:2,[::1]x:80,a]:1,[::1]:80', volume: 'vol' } }, causes: [
    `FieldValueInvalid ${v}.quobyte.registry: Invalid value: "h:1:2,[::1]x:80,a]:1,[::1]:80": ${quobyteRegistryError}`,
    `FieldValueInvalid ${v}.quobyte.registry: Invalid value: "h:1:2,[::1]x:80,a]:1,[::1]:80": ${quobyteRegistryError}`,
    `FieldValueInvalid ${v}.quobyte.registry: Invalid value: "h:1:2,[::1]x:80,a]:1,[::1]:80": ${quobyteRegistryError}`,
  ] },
  { name: 'quobyte with a tenant over 64 bytes: reported Required, the registry not looked at', volume: { quobyte: { registry: 'no-port', tenant: 't'.repeat(65), volume: 'vol' } },
    causes: [`FieldValueRequired ${v}.quobyte.tenant: Required value: must be a UUID and may not exceed a length of 64 characters`] },

  { name: 'fc with target WWNs and a lun', volume: { fc: { targetWWNs: ['500a0982991b8dc5'], lun: 2 } }, causes: [] },
  { name: 'fc with WWIDs', volume: { fc: { wwids: ['3600508b400105e210000900000490000'] } }, causes: [] },
  { name: 'fc with neither', volume: { fc: {} },
    causes: [`FieldValueRequired ${v}.fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both`] },
  { name: 'fc with both, and no lun', volume: { fc: { targetWWNs: ['a'], wwids: ['b'] } }, causes: [
    `FieldValueInvalid ${v}.fc.targetWWNs: Invalid value: ["a"]: targetWWNs and wwids can not be specified simultaneously`,
    `FieldValueRequired ${v}.fc.lun: Required value: lun is required if targetWWNs is specified`,
  ] },
  { name: 'fc with lun 256', volume: { fc: { targetWWNs: ['a'], lun: 256 } },
    causes: [`FieldValueInvalid ${v}.fc.lun: Invalid value: 256: must be between 0 and 255, inclusive`] },

  { name: 'flexVolume with a driver and its own options', volume: { flexVolume: { driver: 'example.com/nfs', options: { 'example.com/x': '1', 'notk8s.io/y': '2' } } }, causes: [] },
  { name: 'flexVolume without a driver, with options in reserved namespaces', volume: { flexVolume: { driver: '', options: { 'kubernetes.io/x': 'a', 'sub.K8S.io/y': 'b', 'k8s.io': 'c' } } }, causes: [
    `FieldValueRequired ${v}.flexVolume.driver: Required value`,
    `FieldValueInvalid ${v}.flexVolume.options[kubernetes.io/x]: Invalid value: "kubernetes.io/x": kubernetes.io and k8s.io namespaces are reserved`,
    `FieldValueInvalid ${v}.flexVolume.options[sub.K8S.io/y]: Invalid value: "sub.K8S.io/y": kubernetes.io and k8s.io namespaces are reserved`,
    `FieldValueInvalid ${v}.flexVolume.options[k8s.io]: Invalid value: "k8s.io": kubernetes.io and k8s.io namespaces are reserved`,
  ] },

  { name: 'azureFile with a secret and a share', volume: { azureFile: { secretName: 'azure', shareName: 'share' } }, causes: [] },
  { name: 'azureFile without secret or share', volume: { azureFile: { secretName: '', shareName: '' } }, causes: [
    `FieldValueRequired ${v}.azureFile.secretName: Required value`,
    `FieldValueRequired ${v}.azureFile.shareName: Required value`,
  ] },

  { name: 'vsphereVolume with a path', volume: { vsphereVolume: { volumePath: '[datastore] vol.vmdk' } }, causes: [] },
  { name: 'vsphereVolume without a path', volume: { vsphereVolume: { volumePath: '' } }, causes: [`FieldValueRequired ${v}.vsphereVolume.volumePath: Required value`] },

  { name: 'photonPersistentDisk with an ID', volume: { photonPersistentDisk: { pdID: 'pd-1' } }, causes: [] },
  { name: 'photonPersistentDisk without an ID', volume: { photonPersistentDisk: { pdID: '' } }, causes: [`FieldValueRequired ${v}.photonPersistentDisk.pdID: Required value`] },

  { name: 'portworxVolume with an ID', volume: { portworxVolume: { volumeID: 'pwx-1' } }, causes: [] },
  { name: 'portworxVolume without an ID', volume: { portworxVolume: { volumeID: '' } }, causes: [`FieldValueRequired ${v}.portworxVolume.volumeID: Required value`] },

  // A disk without a kind is defaulted to Shared, a blob: its URI must be an https URL.
  { name: 'azureDisk, a blob by default', volume: { azureDisk: { diskName: 'd', diskURI: 'https://acct.blob.core.windows.net/vhds/d.vhd' } }, causes: [] },
  { name: 'azureDisk, a managed disk', volume: { azureDisk: { diskName: 'd', diskURI: '/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/disks/d', kind: 'Managed', cachingMode: 'None' } }, causes: [] },
  { name: 'azureDisk without a kind, with a managed disk\'s URI', volume: { azureDisk: { diskName: 'd', diskURI: '/subscriptions/s/disks/d' } },
    causes: [`FieldValueNotSupported ${v}.azureDisk.diskURI: Unsupported value: "/subscriptions/s/disks/d": supported values: "${blobURI}"`] },
  { name: 'azureDisk, managed, with a blob URI', volume: { azureDisk: { diskName: 'd', diskURI: 'https://acct.blob.core.windows.net/vhds/d.vhd', kind: 'Managed' } },
    causes: [`FieldValueNotSupported ${v}.azureDisk.diskURI: Unsupported value: "https://acct.blob.core.windows.net/vhds/d.vhd": supported values: "${managedURI}"`] },
  { name: 'azureDisk without name or URI, with unknown caching mode and kind', volume: { azureDisk: { diskName: '', diskURI: '', cachingMode: 'Sometimes', kind: 'Floppy' } }, causes: [
    `FieldValueRequired ${v}.azureDisk.diskName: Required value`,
    `FieldValueRequired ${v}.azureDisk.diskURI: Required value`,
    `FieldValueNotSupported ${v}.azureDisk.cachingMode: Unsupported value: "Sometimes": supported values: "None", "ReadOnly", "ReadWrite"`,
    `FieldValueNotSupported ${v}.azureDisk.kind: Unsupported value: "Floppy": supported values: "Dedicated", "Managed", "Shared"`,
    `FieldValueNotSupported ${v}.azureDisk.diskURI: Unsupported value: "": supported values: "${blobURI}"`,
  ] },

  { name: 'storageos with names that are DNS labels and a secret', volume: { storageos: { volumeName: 'vol', volumeNamespace: 'team', secretRef: { name: 'creds' } } }, causes: [] },
  { name: 'storageos without a volume name', volume: { storageos: {} }, causes: [`FieldValueRequired ${v}.storageos.volumeName: Required value`] },
  { name: 'storageos with names that are not DNS labels, a secretRef naming nothing', volume: { storageos: { volumeName: 'Vol_1', volumeNamespace: 'a.b', secretRef: { name: '' } } }, causes: [
    `FieldValueInvalid ${v}.storageos.volumeName: Invalid value: "Vol_1": ${labelError}`,
    `FieldValueInvalid ${v}.storageos.volumeNamespace: Invalid value: "a.b": must not contain dots`,
    `FieldValueRequired ${v}.storageos.secretRef.name: Required value`,
  ] },

  { name: 'scaleIO with gateway, system and volume', volume: { scaleIO: { gateway: 'https://gw:443/api', system: 'sys', volumeName: 'vol', secretRef: { name: 'creds' } } }, causes: [] },
  { name: 'scaleIO without gateway, system or volume', volume: { scaleIO: { gateway: '', system: '', volumeName: '', secretRef: { name: 'creds' } } }, causes: [
    `FieldValueRequired ${v}.scaleIO.gateway: Required value`,
    `FieldValueRequired ${v}.scaleIO.system: Required value`,
    `FieldValueRequired ${v}.scaleIO.volumeName: Required value`,
  ] },

  // The driver's name is checked lower-cased, but reported as given.
  { name: 'csi with an upper-case driver name and a node publish secret', volume: { csi: { driver: 'CSI.Example.com', nodePublishSecretRef: { name: 'creds' }, volumeAttributes: { size: '1Gi' } } }, causes: [] },
  { name: 'csi with an empty driver name', volume: { csi: { driver: '' } }, causes: [
    `FieldValueRequired ${v}.csi.driver: Required value`,
    `FieldValueInvalid ${v}.csi.driver: Invalid value: "": ${subdomainError}`,
  ] },
  { name: 'csi with a driver name over 63 bytes', volume: { csi: { driver: 'd'.repeat(64) } },
    causes: [`FieldValueTooLong ${v}.csi.driver: Too long: may not be more than 63 bytes`] },
  { name: 'csi with a driver name that is not a subdomain', volume: { csi: { driver: 'csi_driver' } },
    causes: [`FieldValueInvalid ${v}.csi.driver: Invalid value: "csi_driver": ${subdomainError}`] },
  { name: 'csi with a node publish secret naming nothing', volume: { csi: { driver: 'csi.example.com', nodePublishSecretRef: { name: '' } } },
    causes: [`FieldValueRequired ${v}.csi.nodePublishSecretRef.name: Required value`] },
  // Upstream reports the secret's invalid name at csi.name.
  { name: 'csi with a node publish secret whose name is not a subdomain', volume: { csi: { driver: 'csi.example.com', nodePublishSecretRef: { name: 'Bad_Name' } } },
    causes: [`FieldValueInvalid ${v}.csi.name: Invalid value: "Bad_Name": ${subdomainError}`] },

  { name: 'ephemeral with labels and a claim spec', volume: { ephemeral: { volumeClaimTemplate: { metadata: { labels: { app: 'db' }, annotations: { note: 'x' } }, spec: claimSpec } } }, causes: [] },
  { name: 'ephemeral without a claim template', volume: { ephemeral: {} }, causes: [`FieldValueRequired ${v}.ephemeral.volumeClaimTemplate: Required value`] },
  { name: 'ephemeral claim template metadata: only labels and annotations, valid ones', volume: { ephemeral: { volumeClaimTemplate: {
    metadata: { name: 'claim', namespace: 'other', uid: 'abc', generation: 2, deletionGracePeriodSeconds: 0, finalizers: ['example.com/keep'], labels: { app: 'bad value!' } },
    spec: claimSpec,
  } } }, causes: [
    `FieldValueInvalid ${v}.ephemeral.volumeClaimTemplate.metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    `FieldValueForbidden ${v}.ephemeral.volumeClaimTemplate.metadata.name: Forbidden: cannot be set`,
    `FieldValueForbidden ${v}.ephemeral.volumeClaimTemplate.metadata.namespace: Forbidden: cannot be set`,
    `FieldValueForbidden ${v}.ephemeral.volumeClaimTemplate.metadata.uID: Forbidden: cannot be set`,
    `FieldValueForbidden ${v}.ephemeral.volumeClaimTemplate.metadata.generation: Forbidden: cannot be set`,
    `FieldValueForbidden ${v}.ephemeral.volumeClaimTemplate.metadata.deletionGracePeriodSeconds: Forbidden: cannot be set`,
    `FieldValueForbidden ${v}.ephemeral.volumeClaimTemplate.metadata.finalizers: Forbidden: cannot be set`,
  ] },
  { name: 'ephemeral claim template spec: checked as a claim\'s', volume: { ephemeral: { volumeClaimTemplate: {
    spec: { accessModes: ['ReadWriteMany', 'ReadWriteOncePod'], resources: { requests: { storage: '0' } }, volumeMode: 'Sideways', storageClassName: 'Fast' },
  } } }, causes: [
    `FieldValueForbidden ${v}.ephemeral.volumeClaimTemplate.spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes`,
    `FieldValueInvalid ${v}.ephemeral.volumeClaimTemplate.spec.resources[storage]: Invalid value: "0": must be greater than zero`,
    `FieldValueInvalid ${v}.ephemeral.volumeClaimTemplate.spec.storageClassName: Invalid value: "Fast": ${subdomainError}`,
    `FieldValueNotSupported ${v}.ephemeral.volumeClaimTemplate.spec.volumeMode: Unsupported value: "Sideways": supported values: "Block", "Filesystem"`,
  ] },
  { name: 'ephemeral claim template without a spec', volume: { ephemeral: { volumeClaimTemplate: {} } }, causes: [
    `FieldValueRequired ${v}.ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at least 1 access mode is required`,
    `FieldValueRequired ${v}.ephemeral.volumeClaimTemplate.spec.resources[storage]: Required value`,
  ] },

  // What the published schema requires but upstream's own validation decides: a lun of 0, no ScaleIO secret, a GCE disk's name under persistentDisk.
  { name: 'iscsi without a lun (0, which is valid)', volume: { iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage' } }, causes: [] },
  { name: 'scaleIO without a secret reference', volume: { scaleIO: { gateway: 'https://gw', system: 'sys', volumeName: 'vol' } }, causes: [] },
  { name: 'gcePersistentDisk without a name: reported once, as persistentDisk.pdName', volume: { gcePersistentDisk: {} },
    causes: [`FieldValueRequired ${v}.persistentDisk.pdName: Required value`] },

  // An empty pull policy is defaulted upstream before validation.
  { name: 'image with a reference and no pull policy', volume: { image: { reference: 'registry.example.com/data:1' } }, causes: [] },
  { name: 'image with a known pull policy', volume: { image: { reference: 'registry.example.com/data:1', pullPolicy: 'Never' } }, causes: [] },
  { name: 'image with an unknown pull policy', volume: { image: { reference: 'registry.example.com/data:1', pullPolicy: 'Sometimes' } },
    causes: [`FieldValueNotSupported ${v}.image.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`] },

  // What pod-spec.ts checks of secret and configMap volumes is not reported a second time.
  { name: 'secret without a name, with a bad default mode: each once', volume: { secret: { secretName: '', defaultMode: 0o1000 } }, causes: [
    `FieldValueRequired ${v}.secret.secretName: Required value`,
    `FieldValueInvalid ${v}.secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive`,
  ] },
  { name: 'configMap without a name, with a negative default mode: each once', volume: { configMap: { name: '', defaultMode: -1 } }, causes: [
    `FieldValueRequired ${v}.configMap.name: Required value`,
    `FieldValueInvalid ${v}.configMap.defaultMode: Invalid value: -1: must be a number between 0 and 0777 (octal), both inclusive`,
  ] },
];

for (const { name, volume, causes } of cases) {
  test(`volume source: ${name}`, async () => {
    const result = await storeCreate(pods, pod({ name: 'v', ...volume }));
    assert.deepEqual(result.causes.map(show).sort(), [...causes].sort());
  });
}

test('a Deployment\'s pod template volumes are checked the same way, under its path', async () => {
  const template = {
    metadata: { labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image: 'nginx:1' }], volumes: [{ name: 'data', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'] } } } }, { name: 'disk', fc: {} }] },
  };
  const result = await storeCreate(deployments, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template } });
  assert.deepEqual(result.causes.map(show).sort(), [
    'FieldValueRequired spec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources[storage]: Required value',
    'FieldValueRequired spec.template.spec.volumes[1].fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both',
  ].sort());
});

test('a Pod\'s image volume must name its image; a template\'s need not (upstream\'s ResourceIsPod)', () => {
  const volume = { name: 'v', image: { reference: '', pullPolicy: 'IfNotPresent' } };
  assert.deepEqual(validateVolumeSource(volume, 'image', v, { isPod: true }).map(show), [`FieldValueRequired ${v}.image.reference: Required value`]);
  assert.deepEqual(validateVolumeSource(volume, 'image', v, { isPod: false }).map(show), []);
  assert.deepEqual(validateVolumeSource(volume, 'image', v).map(show), []);
});

test('a Pod\'s ephemeral volume: the claim "<pod>-<volume>" it gets must be a valid name', () => {
  const volume = { name: 'data', ephemeral: { volumeClaimTemplate: { spec: claimSpec } } };
  const long = 'p'.repeat(249);
  assert.deepEqual(validateVolumeSource(volume, 'ephemeral', v, { podName: long }).map(show), [
    `FieldValueInvalid ${v}.name: Invalid value: "data": PVC name "${long}-data": must be no more than 253 characters`,
  ]);
  assert.deepEqual(validateVolumeSource(volume, 'ephemeral', v, { podName: 'Web' }).map(show), [
    `FieldValueInvalid ${v}.name: Invalid value: "data": PVC name "Web-data": ${subdomainError}`,
  ]);
  assert.deepEqual(validateVolumeSource(volume, 'ephemeral', v, { podName: 'web' }).map(show), []);
  assert.deepEqual(validateVolumeSource(volume, 'ephemeral', v).map(show), []);
});

test('through the store, a Pod\'s image volume names its image and its ephemeral claims are named after it', async () => {
  const missing = await storeCreate(pods, pod({ name: 'v', image: { reference: '' } }));
  assert.deepEqual(missing.causes.map(show), [`FieldValueRequired ${v}.image.reference: Required value`]);
  const named = { ...pod({ name: 'data', ephemeral: { volumeClaimTemplate: { spec: claimSpec } } }) };
  named.metadata = { ...named.metadata, name: 'w'.repeat(249) };
  assert.deepEqual((await storeCreate(pods, named)).causes.map(show), [
    `FieldValueInvalid ${v}.name: Invalid value: "data": PVC name "${'w'.repeat(249)}-data": must be no more than 253 characters`,
  ]);
});

test('an image volume\'s pull policy and an ephemeral claim\'s volume mode are defaulted as upstream defaults them', async () => {
  const created = await storeCreate(pods, pod(
    { name: 'latest', image: { reference: 'registry.example.com/data' } },
    { name: 'pinned', image: { reference: 'registry.example.com/data:1' } },
    { name: 'chosen', image: { reference: 'registry.example.com/data', pullPolicy: 'Never' } },
    { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: claimSpec } } },
  ));
  assert.deepEqual(created.causes, []);
  const volumes = (created.obj.spec as { volumes: Array<Record<string, any>> }).volumes;
  assert.deepEqual(volumes.slice(0, 3).map((volume) => volume.image.pullPolicy), ['Always', 'IfNotPresent', 'Never']);
  assert.equal(volumes[3]!.ephemeral.volumeClaimTemplate.spec.volumeMode, 'Filesystem');
});

test('volumes are checked as upstream\'s ValidateVolumes orders them: the first source in upstream\'s order, then the name', async () => {
  // Two sources: the first in upstream's order is checked, the other forbidden (cephfs under upstream's "cephFS").
  const two = await storeCreate(pods, pod({ name: 'v', cephfs: { monitors: [] }, hostPath: { path: '' } }));
  assert.deepEqual(two.causes.map(show), [
    `FieldValueRequired ${v}.hostPath.path: Required value`,
    `FieldValueForbidden ${v}.cephFS: Forbidden: may not specify more than 1 volume type`,
  ]);
  const downward = await storeCreate(pods, pod({ name: 'v', emptyDir: {}, downwardAPI: { items: [] } }));
  assert.deepEqual(downward.causes.map(show), [`FieldValueForbidden ${v}.downwarAPI: Forbidden: may not specify more than 1 volume type`]);
  // The source's causes come before the name's.
  const both = await storeCreate(pods, pod({ name: 'Bad_Name', secret: { secretName: '' } }));
  assert.deepEqual(both.causes.map((c) => c.field), [`${v}.secret.secretName`, `${v}.name`]);
});

test('a volume with errors is not one mounts can name, and a claim may not be one an ephemeral volume creates', async () => {
  const spec = { containers: [{ name: 'app', image: 'nginx:1', volumeMounts: [{ name: 'broken', mountPath: '/data' }] }], volumes: [{ name: 'broken', nfs: { server: '', path: '/x' } }] };
  const mounted = await storeCreate(pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec });
  assert.deepEqual(mounted.causes.map(show), [
    `FieldValueRequired ${v}.nfs.server: Required value`,
    'FieldValueNotFound spec.containers[0].volumeMounts[0].name: Not found: "broken"',
  ]);
  const claims = await storeCreate(pods, pod(
    { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: claimSpec } } },
    { name: 'reuse', persistentVolumeClaim: { claimName: 'web-scratch' } },
  ));
  assert.deepEqual(claims.causes.map(show), [
    'FieldValueInvalid spec.volumes[1].persistentVolumeClaim.claimName: Invalid value: "web-scratch": must not reference a PVC that gets created for an ephemeral volume',
  ]);
});

test('what a forbidden second source holds is not checked: upstream says only that it is one too many', async () => {
  const two = await storeCreate(pods, pod({ name: 'v', hostPath: { path: '/data' }, nfs: {} }));
  assert.deepEqual(two.causes.map(show), [`FieldValueForbidden ${v}.nfs: Forbidden: may not specify more than 1 volume type`]);
});
