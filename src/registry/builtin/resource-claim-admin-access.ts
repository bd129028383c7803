// DRA admin access (DRAAdminAccess, on in v1.36): a ResourceClaim or ResourceClaimTemplate
// that asks for admin access to devices, and a claim status that grants it, are allowed
// only in a namespace labelled `resource.kubernetes.io/admin-access: "true"`. Upstream's
// strategies check it in Validate, reading the namespace through a client; Plinth's
// strategies are pure, so the check is admission's strategy step (strategyCauses): its
// cause leads the object's own validation causes in one 422, as upstream's.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../../admission/chain.ts';
import { child, forbidden, index, type FieldPath } from '../validation/field.ts';
import { isObject } from '../../api/json.ts';
import { arrayAt, objectAt } from './object.ts';

export const adminNamespaceLabel = 'resource.kubernetes.io/admin-access';
const group = 'resource.k8s.io';

/**
 * Where the first request asking for admin access is (upstream's AuthorizedForAdmin): only
 * `exactly` may carry it (v1beta1 holds it on the request itself). The path is upstream's,
 * `spec.devices.requests[i].adminAccess` also for a template's nested spec.
 */
function requestedInSpec(spec: unknown): FieldPath | undefined {
  const requests = arrayAt(objectAt(spec, 'devices'), 'requests');
  const i = requests.findIndex((r) => isObject(r) && (objectAt(r, 'exactly') ?? r).adminAccess === true);
  return i < 0 ? undefined : child(index('spec.devices.requests', i), 'adminAccess');
}

/** The first allocation result granting admin access (upstream's adminRequested). */
function grantedInStatus(obj: KubeObject | undefined): FieldPath | undefined {
  const results = arrayAt(objectAt(objectAt(objectAt(obj, 'status'), 'allocation'), 'devices'), 'results');
  const i = results.findIndex((r) => isObject(r) && r.adminAccess === true);
  return i < 0 ? undefined : child(index('status.allocation.devices.results', i), 'adminAccess');
}

/** What of a write asks for admin access; undefined when nothing does or the check does not apply. */
function adminAccessPath(attrs: AdmissionAttributes): FieldPath | undefined {
  if (attrs.group !== group || attrs.object === undefined) return undefined;
  if (attrs.operation === 'CREATE' && attrs.subresource === '') {
    if (attrs.resource === 'resourceclaims') return requestedInSpec(objectAt(attrs.object, 'spec'));
    if (attrs.resource === 'resourceclaimtemplates') return requestedInSpec(objectAt(objectAt(attrs.object, 'spec'), 'spec'));
    return undefined;
  }
  // Updates of the spec need no check (it is immutable); a status write does, unless the
  // allocation already granted admin access (an allocation is set once).
  if (attrs.operation === 'UPDATE' && attrs.resource === 'resourceclaims' && attrs.subresource === 'status') {
    return grantedInStatus(attrs.oldObject) === undefined ? grantedInStatus(attrs.object) : undefined;
  }
  return undefined;
}

/** The check, given a consistent read of a namespace (undefined: not found). */
export function draAdminAccessCheck(namespace: (name: string) => Promise<KubeObject | undefined>): AdmissionPlugin {
  return {
    name: 'DRAAdminAccess',
    strategyCauses(attrs) {
      const path = adminAccessPath(attrs);
      return path === undefined ? undefined : check(attrs, path, namespace);
    },
  };
}

async function check(attrs: AdmissionAttributes, path: FieldPath, namespace: (name: string) => Promise<KubeObject | undefined>): Promise<StatusCause[]> {
  const ns = await namespace(attrs.namespace);
  if (ns === undefined) {
    return [{
      reason: 'InternalError', field: path,
      message: `Internal error: could not retrieve namespace to verify admin access: namespaces "${attrs.namespace}" not found`,
    }];
  }
  if (ns.metadata.labels?.[adminNamespaceLabel] !== 'true') {
    return [forbidden(path, `admin access to devices requires the \`${adminNamespaceLabel}: true\` label on the containing namespace`)];
  }
  return [];
}
