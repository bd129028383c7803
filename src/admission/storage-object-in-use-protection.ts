// StorageObjectInUseProtection admission (upstream's plugin/pkg/admission/storageobjectinuseprotection):
// new PersistentVolumeClaims get the kubernetes.io/pvc-protection finalizer and new
// PersistentVolumes kubernetes.io/pv-protection, so that neither goes while in use; the
// protection controllers remove them once it is safe. Set at creation, so those
// controllers never race the persistent volume controller's writes to add them.
import { pvcProtectionFinalizer, pvProtectionFinalizer } from '../api/finalizers.ts';
import type { AdmissionPlugin } from './chain.ts';

export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    admit(attrs) {
      if (attrs.operation !== 'CREATE' || attrs.group !== '' || attrs.subresource !== '' || attrs.object === undefined) return;
      const finalizer = attrs.resource === 'persistentvolumeclaims' ? pvcProtectionFinalizer : attrs.resource === 'persistentvolumes' ? pvProtectionFinalizer : undefined;
      if (finalizer === undefined) return;
      const meta = attrs.object.metadata;
      if (!(meta.finalizers ?? []).includes(finalizer)) meta.finalizers = [...(meta.finalizers ?? []), finalizer];
    },
  };
}
