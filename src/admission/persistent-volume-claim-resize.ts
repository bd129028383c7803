// PersistentVolumeClaimResize admission (upstream's plugin/pkg/admission/storage/persistentvolume/resize,
// on by default): a claim's storage request may grow only while it is bound, and only when
// its StorageClass (the same before and after) has `allowVolumeExpansion: true`.
import type { KubeObject } from '../api/index.ts';
import { isObject } from '../api/json.ts';
import { compareQuantity, parseQuantity, zeroQuantity } from '../api/quantity.ts';
import { unless, type AdmissionPlugin } from './chain.ts';
import { admissionForbidden } from './forbidden.ts';

function storageRequest(claim: KubeObject) {
  const spec = isObject(claim.spec) ? claim.spec : {};
  const resources = isObject(spec.resources) ? spec.resources : {};
  const requests = isObject(resources.requests) ? resources.requests : {};
  return parseQuantity(requests.storage) ?? zeroQuantity;
}

/** The claim's class: the beta annotation first, then spec.storageClassName (upstream's GetPersistentVolumeClaimClass). */
function claimClass(claim: KubeObject): string {
  const annotated = claim.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (annotated !== undefined) return annotated;
  const name = isObject(claim.spec) ? claim.spec.storageClassName : undefined;
  return typeof name === 'string' ? name : '';
}

export function persistentVolumeClaimResize(storageClass: (name: string) => Promise<KubeObject | undefined>): AdmissionPlugin {
  return {
    name: 'PersistentVolumeClaimResize',
    validate: unless((attrs) => attrs.operation !== 'UPDATE' || attrs.group !== '' || attrs.resource !== 'persistentvolumeclaims' || attrs.subresource !== ''
      || attrs.object === undefined || attrs.oldObject === undefined || compareQuantity(storageRequest(attrs.object), storageRequest(attrs.oldObject)) <= 0, async (attrs) => {
      const old = attrs.oldObject!;
      if (!isObject(old.status) || old.status.phase !== 'Bound') throw admissionForbidden(attrs, 'Only bound persistent volume claims can be expanded');
      const name = claimClass(attrs.object!);
      const allowed = name !== '' && name === claimClass(old) && (await storageClass(name))?.allowVolumeExpansion === true;
      if (!allowed) throw admissionForbidden(attrs, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }),
  };
}
