// Finalizers that more than one layer names: admission sets them, controllers remove them.

/** Holds a PersistentVolumeClaim while a pod uses it (StorageObjectInUseProtection, pvc-protection). */
export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
/** Holds a PersistentVolume while it is bound (StorageObjectInUseProtection, pv-protection). */
export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';
