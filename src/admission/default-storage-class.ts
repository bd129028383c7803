// DefaultStorageClass admission (upstream's plugin/pkg/admission/storage/storageclass/setdefault):
// a PersistentVolumeClaim created without spec.storageClassName gets the default
// StorageClass's name. An empty name ("") is a choice (no class) and stays.
import type { KubeObject } from '../api/index.ts';
import { unless, type AdmissionPlugin } from './chain.ts';

const defaultClassAnnotations = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

function isDefault(storageClass: KubeObject): boolean {
  return defaultClassAnnotations.some((annotation) => storageClass.metadata.annotations?.[annotation] === 'true');
}

/**
 * The default of a kind of class: of several marked default (upstream allows it while
 * classes change), the newest, and of those created in the same second, the first by name,
 * as upstream's GetDefaultClass for StorageClasses and IngressClasses.
 */
export function newestDefault(classes: KubeObject[], isDefaultClass: (c: KubeObject) => boolean): KubeObject | undefined {
  return classes.filter(isDefaultClass).sort((a, b) =>
    (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))[0];
}

export function defaultStorageClass(classes: KubeObject[]): KubeObject | undefined {
  return newestDefault(classes, isDefault);
}

export function defaultStorageClassAdmission(storageClasses: () => Promise<KubeObject[]>): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    admit: unless((attrs) => attrs.operation !== 'CREATE' || attrs.group !== '' || attrs.resource !== 'persistentvolumeclaims' || attrs.subresource !== '' || attrs.object === undefined, async (attrs) => {
      const spec = (attrs.object!.spec ??= {}) as { storageClassName?: string | null };
      if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
      const chosen = defaultStorageClass(await storageClasses());
      if (chosen !== undefined) spec.storageClassName = chosen.metadata.name!;
    }),
  };
}
