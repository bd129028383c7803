// core/v1 Volume and its sources: the common ones (emptyDir, hostPath, configMap,
// secret, projected, downwardAPI, persistentVolumeClaim, ephemeral, csi, image, nfs)
// and the legacy in-tree plugins, kept so that manifests using them still validate.

import type { Definitions, Schema } from '../types.ts';
import {
  CORE, atomic, bool, int32, int64, labelSelector, object, objectMeta, quantity, ref, resourceList, str,
  strEnum, stringMap,
} from './build.ts';

const local = (description: string) => ref(CORE + 'LocalObjectReference', description);
const readOnly = (description = 'Mount read-only. Defaults to false.') => bool(description);
const fsType = (description = 'Filesystem type to mount, such as "ext4" or "xfs".') => str(description);
const modeBits = (description: string) => int32(`${description} Octal 0000-0777 or decimal 0-511; JSON needs decimal.`);
const keyItems = (what: string) =>
  atomic(ref(CORE + 'KeyToPath'), `Which keys of the ${what} to project and where; all keys, as files named after them, when not given.`);

/** One field per volume source; exactly one is set in a Volume. */
const volumeSources: Record<string, Schema> = {
  awsElasticBlockStore: ref(CORE + 'AWSElasticBlockStoreVolumeSource', 'Deprecated: an AWS EBS disk (now served by the CSI driver).'),
  azureDisk: ref(CORE + 'AzureDiskVolumeSource', 'Deprecated: an Azure data disk (now served by the CSI driver).'),
  azureFile: ref(CORE + 'AzureFileVolumeSource', 'Deprecated: an Azure File share (now served by the CSI driver).'),
  cephfs: ref(CORE + 'CephFSVolumeSource', 'Deprecated: a CephFS mount.'),
  cinder: ref(CORE + 'CinderVolumeSource', 'Deprecated: an OpenStack Cinder volume (now served by the CSI driver).'),
  configMap: ref(CORE + 'ConfigMapVolumeSource', 'A ConfigMap projected as files.'),
  csi: ref(CORE + 'CSIVolumeSource', 'An ephemeral volume provided by a CSI driver.'),
  downwardAPI: ref(CORE + 'DownwardAPIVolumeSource', 'Fields of the pod projected as files.'),
  emptyDir: ref(CORE + 'EmptyDirVolumeSource', 'A temporary directory that lives as long as the pod.'),
  ephemeral: ref(CORE + 'EphemeralVolumeSource', 'A volume from a PersistentVolumeClaim created for, and deleted with, the pod.'),
  fc: ref(CORE + 'FCVolumeSource', 'A Fibre Channel disk.'),
  flexVolume: ref(CORE + 'FlexVolumeSource', 'Deprecated: a volume from an exec-based plugin.'),
  flocker: ref(CORE + 'FlockerVolumeSource', 'Deprecated: a Flocker dataset.'),
  gcePersistentDisk: ref(CORE + 'GCEPersistentDiskVolumeSource', 'Deprecated: a GCE persistent disk (now served by the CSI driver).'),
  gitRepo: ref(CORE + 'GitRepoVolumeSource', 'Deprecated: a git repository cloned into the volume. Use an init container instead.'),
  glusterfs: ref(CORE + 'GlusterfsVolumeSource', 'Deprecated: a Glusterfs mount.'),
  hostPath: ref(CORE + 'HostPathVolumeSource', 'A file or directory of the host. Rarely what an application should use.'),
  image: ref(CORE + 'ImageVolumeSource', 'An OCI image or artifact mounted read-only.'),
  iscsi: ref(CORE + 'ISCSIVolumeSource', 'An iSCSI disk.'),
  nfs: ref(CORE + 'NFSVolumeSource', 'An NFS export.'),
  persistentVolumeClaim: ref(CORE + 'PersistentVolumeClaimVolumeSource', 'A PersistentVolumeClaim in the pod\'s namespace.'),
  photonPersistentDisk: ref(CORE + 'PhotonPersistentDiskVolumeSource', 'Deprecated: a Photon Controller disk.'),
  portworxVolume: ref(CORE + 'PortworxVolumeSource', 'Deprecated: a Portworx volume.'),
  projected: ref(CORE + 'ProjectedVolumeSource', 'Secrets, ConfigMaps, downward API data and tokens projected together.'),
  quobyte: ref(CORE + 'QuobyteVolumeSource', 'Deprecated: a Quobyte mount.'),
  rbd: ref(CORE + 'RBDVolumeSource', 'Deprecated: a Ceph RBD image.'),
  scaleIO: ref(CORE + 'ScaleIOVolumeSource', 'Deprecated: a ScaleIO volume.'),
  secret: ref(CORE + 'SecretVolumeSource', 'A Secret projected as files.'),
  storageos: ref(CORE + 'StorageOSVolumeSource', 'Deprecated: a StorageOS volume.'),
  vsphereVolume: ref(CORE + 'VsphereVirtualDiskVolumeSource', 'Deprecated: a vSphere disk (now served by the CSI driver).'),
};

export const volumeDefinitions: Definitions = {
  [CORE + 'Volume']: object(
    'A named volume of a pod that its containers may mount. Exactly one source is set; none means emptyDir (deprecated).',
    { name: str('Name of the volume: a DNS label unique within the pod.'), ...volumeSources },
    { required: ['name'] },
  ),
  [CORE + 'KeyToPath']: object(
    'Maps a key to a file path within a volume.',
    {
      key: str('The key to project.'),
      mode: modeBits('Permission bits of the file; the volume\'s defaultMode when not given.'),
      path: str('Relative path of the file; no "..".'),
    },
    { required: ['key', 'path'] },
  ),

  // Common sources
  [CORE + 'EmptyDirVolumeSource']: object('A temporary directory sharing the pod\'s lifetime.', {
    medium: str('Storage medium: "" for the node\'s default, or "Memory" for tmpfs.'),
    sizeLimit: quantity('The most local storage the volume may use; for Memory, also bounded by the pod\'s memory limits.'),
  }),
  [CORE + 'HostPathVolumeSource']: object(
    'A path on the host.',
    {
      path: str('Path on the host; a symlink is followed to its target.'),
      type: strEnum(['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'], 'What must exist at the path. Defaults to "" (no check).'),
    },
    { required: ['path'] },
  ),
  [CORE + 'ConfigMapVolumeSource']: object('A ConfigMap whose keys become files.', {
    defaultMode: modeBits('Permission bits of the files. Defaults to 0644.'),
    items: keyItems('ConfigMap'),
    name: str('Name of the ConfigMap.'),
    optional: bool('Whether the ConfigMap or its keys may be missing.'),
  }),
  [CORE + 'SecretVolumeSource']: object('A Secret whose keys become files.', {
    defaultMode: modeBits('Permission bits of the files. Defaults to 0644.'),
    items: keyItems('Secret'),
    optional: bool('Whether the Secret or its keys may be missing.'),
    secretName: str('Name of the Secret in the pod\'s namespace.'),
  }),
  [CORE + 'DownwardAPIVolumeSource']: object('Pod fields written as files.', {
    defaultMode: modeBits('Permission bits of the files. Defaults to 0644.'),
    items: atomic(ref(CORE + 'DownwardAPIVolumeFile'), 'The files to write.'),
  }),
  [CORE + 'DownwardAPIVolumeFile']: object(
    'One file holding a pod field or a container resource.',
    {
      fieldRef: ref(CORE + 'ObjectFieldSelector', 'A pod field: annotations, labels, name, namespace or uid.'),
      mode: modeBits('Permission bits of the file; the volume\'s defaultMode when not given.'),
      path: str('Relative path of the file; no "..".'),
      resourceFieldRef: ref(CORE + 'ResourceFieldSelector', 'A container resource: limits.cpu, limits.memory, requests.cpu, requests.memory, ...'),
    },
    { required: ['path'] },
  ),
  [CORE + 'ProjectedVolumeSource']: object('Several sources projected into one directory.', {
    defaultMode: modeBits('Permission bits of the files. Defaults to 0644.'),
    sources: atomic(ref(CORE + 'VolumeProjection'), 'The sources to project.'),
  }),
  [CORE + 'VolumeProjection']: object('One source of a projected volume; exactly one field is set.', {
    clusterTrustBundle: ref(CORE + 'ClusterTrustBundleProjection', 'Trust anchors from ClusterTrustBundle objects.'),
    configMap: ref(CORE + 'ConfigMapProjection', 'Keys of a ConfigMap.'),
    downwardAPI: ref(CORE + 'DownwardAPIProjection', 'Pod fields.'),
    secret: ref(CORE + 'SecretProjection', 'Keys of a Secret.'),
    serviceAccountToken: ref(CORE + 'ServiceAccountTokenProjection', 'A bound service account token.'),
  }),
  [CORE + 'ConfigMapProjection']: object('A ConfigMap in a projected volume.', {
    items: keyItems('ConfigMap'),
    name: str('Name of the ConfigMap.'),
    optional: bool('Whether the ConfigMap or its keys may be missing.'),
  }),
  [CORE + 'SecretProjection']: object('A Secret in a projected volume.', {
    items: keyItems('Secret'),
    name: str('Name of the Secret.'),
    optional: bool('Whether the Secret or its keys may be missing.'),
  }),
  [CORE + 'DownwardAPIProjection']: object('Pod fields in a projected volume.', {
    items: atomic(ref(CORE + 'DownwardAPIVolumeFile'), 'The files to write.'),
  }),
  [CORE + 'ServiceAccountTokenProjection']: object(
    'A service account token, rotated by the kubelet before it expires.',
    {
      audience: str('Intended audience of the token; defaults to the API server\'s identifier.'),
      expirationSeconds: int64('Requested validity, at least 600 seconds. Defaults to 1 hour.'),
      path: str('Path of the token file, relative to the mount point.'),
    },
    { required: ['path'] },
  ),
  [CORE + 'ClusterTrustBundleProjection']: object(
    'ClusterTrustBundle contents written as a PEM file.',
    {
      labelSelector: labelSelector('With signerName: the bundles to include. Unset matches nothing; empty matches everything.'),
      name: str('Select one bundle by name; not with signerName or labelSelector.'),
      optional: bool('Do not block pod startup when the bundles are missing.'),
      path: str('Path of the file, relative to the volume root.'),
      signerName: str('Select the bundles of this signer.'),
    },
    { required: ['path'] },
  ),
  [CORE + 'PersistentVolumeClaimVolumeSource']: object(
    'A PersistentVolumeClaim in the pod\'s namespace.',
    {
      claimName: str('Name of the claim.'),
      readOnly: readOnly('Force read-only mounts. Defaults to false.'),
    },
    { required: ['claimName'] },
  ),
  [CORE + 'EphemeralVolumeSource']: object('A volume backed by a claim created for the pod and deleted with it.', {
    volumeClaimTemplate: ref(CORE + 'PersistentVolumeClaimTemplate', 'The claim to create, named <pod name>-<volume name>. Required.'),
  }),
  [CORE + 'PersistentVolumeClaimTemplate']: object(
    'A template for a PersistentVolumeClaim.',
    {
      metadata: objectMeta('Labels and annotations copied into the claim; other metadata is rejected.'),
      spec: ref(CORE + 'PersistentVolumeClaimSpec', 'The spec of the claim, copied unchanged.'),
    },
    { required: ['spec'] },
  ),
  [CORE + 'PersistentVolumeClaimSpec']: object('The storage a claim asks for.', {
    accessModes: atomic(str(), 'ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.'),
    dataSource: ref(CORE + 'TypedLocalObjectReference', 'A VolumeSnapshot, PersistentVolumeClaim or populator object to fill the volume from.'),
    dataSourceRef: ref(CORE + 'TypedObjectReference', 'Like dataSource, possibly in another namespace, for volume populators.'),
    resources: ref(CORE + 'VolumeResourceRequirements', 'The least storage the volume must have.'),
    selector: labelSelector('PersistentVolumes to consider for binding.'),
    storageClassName: str('Name of the StorageClass.'),
    volumeAttributesClassName: str('Name of the VolumeAttributesClass.'),
    volumeMode: strEnum(['Block', 'Filesystem'], 'Whether the volume is a filesystem or a raw block device. Defaults to Filesystem.'),
    volumeName: str('The PersistentVolume to bind to.'),
  }),
  [CORE + 'VolumeResourceRequirements']: object('Storage resource requirements.', {
    limits: resourceList('The most storage allowed.'),
    requests: resourceList('The least storage required.'),
  }),
  [CORE + 'CSIVolumeSource']: object(
    'An ephemeral volume provided by a CSI driver.',
    {
      driver: str('Name of the CSI driver.'),
      fsType: fsType('Filesystem type; the driver chooses when empty.'),
      nodePublishSecretRef: local('Secret passed to the driver\'s NodePublishVolume and NodeUnpublishVolume calls.'),
      readOnly: readOnly(),
      volumeAttributes: stringMap('Driver-specific properties.'),
    },
    { required: ['driver'] },
  ),
  [CORE + 'ImageVolumeSource']: object('An OCI image or artifact mounted read-only.', {
    pullPolicy: strEnum(['Always', 'IfNotPresent', 'Never'], 'When to pull. Defaults to Always for :latest, IfNotPresent otherwise.'),
    reference: str('The image or artifact reference, as for a container image.'),
  }),
  [CORE + 'NFSVolumeSource']: object(
    'An NFS export.',
    {
      path: str('Path exported by the server.'),
      readOnly: readOnly(),
      server: str('Hostname or IP of the NFS server.'),
    },
    { required: ['server', 'path'] },
  ),

  // Legacy in-tree sources
  [CORE + 'AWSElasticBlockStoreVolumeSource']: object(
    'An AWS EBS disk.',
    { fsType: fsType(), partition: int32('Partition to mount; 0 for the whole disk.'), readOnly: readOnly(), volumeID: str('ID of the EBS volume.') },
    { required: ['volumeID'] },
  ),
  [CORE + 'AzureDiskVolumeSource']: object(
    'An Azure data disk.',
    {
      cachingMode: strEnum(['None', 'ReadOnly', 'ReadWrite'], 'Host caching mode.'),
      diskName: str('Name of the disk in blob storage.'),
      diskURI: str('URI of the disk in blob storage.'),
      fsType: fsType(),
      kind: strEnum(['Dedicated', 'Managed', 'Shared'], 'Kind of disk.'),
      readOnly: readOnly(),
    },
    { required: ['diskName', 'diskURI'] },
  ),
  [CORE + 'AzureFileVolumeSource']: object(
    'An Azure File share.',
    { readOnly: readOnly(), secretName: str('Secret holding the storage account name and key.'), shareName: str('Name of the share.') },
    { required: ['secretName', 'shareName'] },
  ),
  [CORE + 'CephFSVolumeSource']: object(
    'A CephFS mount.',
    {
      monitors: atomic(str(), 'Ceph monitors.'),
      path: str('Root of the mount. Defaults to "/".'),
      readOnly: readOnly(),
      secretFile: str('Path of the keyring. Defaults to /etc/ceph/user.secret.'),
      secretRef: local('Secret holding the authentication secret.'),
      user: str('RADOS user. Defaults to admin.'),
    },
    { required: ['monitors'] },
  ),
  [CORE + 'CinderVolumeSource']: object(
    'An OpenStack Cinder volume.',
    { fsType: fsType(), readOnly: readOnly(), secretRef: local('Secret with OpenStack connection parameters.'), volumeID: str('ID of the volume.') },
    { required: ['volumeID'] },
  ),
  [CORE + 'FCVolumeSource']: object('A Fibre Channel disk; give targetWWNs with lun, or wwids.', {
    fsType: fsType(),
    lun: int32('Target LUN number.'),
    readOnly: readOnly(),
    targetWWNs: atomic(str(), 'Target world wide names.'),
    wwids: atomic(str(), 'Volume world wide identifiers.'),
  }),
  [CORE + 'FlexVolumeSource']: object(
    'A volume from an exec-based plugin.',
    {
      driver: str('Name of the driver.'),
      fsType: fsType(),
      options: stringMap('Extra command options.'),
      readOnly: readOnly(),
      secretRef: local('Secret passed to the plugin scripts.'),
    },
    { required: ['driver'] },
  ),
  [CORE + 'FlockerVolumeSource']: object('A Flocker dataset; give exactly one field.', {
    datasetName: str('Name of the dataset (deprecated in Flocker).'),
    datasetUUID: str('UUID of the dataset.'),
  }),
  [CORE + 'GCEPersistentDiskVolumeSource']: object(
    'A GCE persistent disk.',
    { fsType: fsType(), partition: int32('Partition to mount; 0 for the whole disk.'), pdName: str('Name of the disk.'), readOnly: readOnly() },
    { required: ['pdName'] },
  ),
  [CORE + 'GitRepoVolumeSource']: object(
    'A git repository cloned into the volume.',
    {
      directory: str('Target directory; "." clones into the volume root.'),
      repository: str('Repository URL.'),
      revision: str('Commit hash to check out.'),
    },
    { required: ['repository'] },
  ),
  [CORE + 'GlusterfsVolumeSource']: object(
    'A Glusterfs mount.',
    { endpoints: str('Name of the Endpoints describing the cluster.'), path: str('Volume path.'), readOnly: readOnly() },
    { required: ['endpoints', 'path'] },
  ),
  [CORE + 'ISCSIVolumeSource']: object(
    'An iSCSI disk.',
    {
      chapAuthDiscovery: bool('Use iSCSI Discovery CHAP authentication.'),
      chapAuthSession: bool('Use iSCSI Session CHAP authentication.'),
      fsType: fsType(),
      initiatorName: str('Custom initiator name, with iscsiInterface creating a new interface.'),
      iqn: str('Target iSCSI Qualified Name.'),
      iscsiInterface: str('Interface for the transport. Defaults to "default".'),
      lun: int32('Target LUN number.'),
      portals: atomic(str(), 'Target portals as IP or IP:port.'),
      readOnly: readOnly(),
      secretRef: local('Secret for CHAP authentication.'),
      targetPortal: str('Target portal as IP or IP:port.'),
    },
    { required: ['targetPortal', 'iqn', 'lun'] },
  ),
  [CORE + 'PhotonPersistentDiskVolumeSource']: object(
    'A Photon Controller disk.',
    { fsType: fsType(), pdID: str('ID of the disk.') },
    { required: ['pdID'] },
  ),
  [CORE + 'PortworxVolumeSource']: object(
    'A Portworx volume.',
    { fsType: fsType(), readOnly: readOnly(), volumeID: str('ID of the volume.') },
    { required: ['volumeID'] },
  ),
  [CORE + 'QuobyteVolumeSource']: object(
    'A Quobyte mount.',
    {
      group: str('Group the volume access maps to.'),
      readOnly: readOnly(),
      registry: str('Registry services as host:port, comma-separated.'),
      tenant: str('Tenant owning the volume.'),
      user: str('User the volume access maps to.'),
      volume: str('Name of an existing volume.'),
    },
    { required: ['registry', 'volume'] },
  ),
  [CORE + 'RBDVolumeSource']: object(
    'A Ceph RBD image.',
    {
      fsType: fsType(),
      image: str('Name of the image.'),
      keyring: str('Path of the keyring. Defaults to /etc/ceph/keyring.'),
      monitors: atomic(str(), 'Ceph monitors.'),
      pool: str('RADOS pool. Defaults to rbd.'),
      readOnly: readOnly(),
      secretRef: local('Secret holding the authentication secret.'),
      user: str('RADOS user. Defaults to admin.'),
    },
    { required: ['monitors', 'image'] },
  ),
  [CORE + 'ScaleIOVolumeSource']: object(
    'A ScaleIO volume.',
    {
      fsType: fsType(),
      gateway: str('Host of the ScaleIO API gateway.'),
      protectionDomain: str('Protection domain of the storage.'),
      readOnly: readOnly(),
      secretRef: local('Secret with the ScaleIO user credentials.'),
      sslEnabled: bool('Use SSL to talk to the gateway.'),
      storageMode: str('ThickProvisioned or ThinProvisioned.'),
      storagePool: str('Storage pool of the protection domain.'),
      system: str('Name of the storage system.'),
      volumeName: str('Name of an existing volume.'),
    },
    { required: ['gateway', 'system', 'secretRef'] },
  ),
  [CORE + 'StorageOSVolumeSource']: object('A StorageOS volume.', {
    fsType: fsType(),
    readOnly: readOnly(),
    secretRef: local('Secret with the StorageOS API credentials.'),
    volumeName: str('Name of the volume within the namespace.'),
    volumeNamespace: str('StorageOS namespace of the volume; defaults to the pod\'s.'),
  }),
  [CORE + 'VsphereVirtualDiskVolumeSource']: object(
    'A vSphere virtual disk.',
    {
      fsType: fsType(),
      storagePolicyID: str('ID of the storage policy.'),
      storagePolicyName: str('Name of the storage policy.'),
      volumePath: str('Path identifying the disk.'),
    },
    { required: ['volumePath'] },
  ),
};
