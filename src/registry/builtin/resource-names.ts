// Resource names as core/v1 validation knows them (pkg/apis/core/helper): which are
// standard, which belong in a quota or a container, and the checks LimitRange and
// ResourceQuota validation share; plus the decoding check of quantity maps.

import type { StatusCause } from '../../api/index.ts';
import { isLabelKey } from '../../api/labels.ts';
import { parseQuantity, type Quantity } from '../../api/quantity.ts';
import { invalid, type FieldPath } from '../validation/field.ts';
import { isObject } from '../../api/json.ts';

const computeResources = ['cpu', 'memory', 'ephemeral-storage'];

const standardResources = new Set([
  ...computeResources,
  'requests.cpu', 'requests.memory', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);

/** Upstream's standardQuotaResources: what a quota may name without a domain. */
export const standardQuotaResources = new Set([
  ...computeResources,
  'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage',
  'limits.cpu', 'limits.memory', 'limits.ephemeral-storage',
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims', 'configmaps',
  'services.nodeports', 'services.loadbalancers',
]);

/** Counts of objects: quotas on them must be whole numbers (IsIntegerResourceName). */
const integerResources = new Set([
  'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'services.nodeports', 'services.loadbalancers',
]);

const isHugePages = (name: string) => name.startsWith('hugepages-');
const isQuotaHugePages = (name: string) => name.startsWith('requests.hugepages-') || name.startsWith('limits.hugepages-');

/** A native resource: no domain, or one under kubernetes.io. */
export function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** An extended resource (example.com/gpu): not native and not prefixed "requests.". */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

/** Upstream's IsQualifiedName messages. */
export function isQualifiedName(value: string): string[] {
  return isLabelKey(value).map((msg) => msg.replace(/^a valid label key /, 'a qualified name '));
}

function isStandardResourceName(name: string): boolean {
  return standardResources.has(name) || isHugePages(name) || isQuotaHugePages(name);
}

export function isStandardQuotaResourceName(name: string): boolean {
  return standardQuotaResources.has(name) || isQuotaHugePages(name) || isHugePages(name);
}

/** validateResourceName: a qualified name, standard when it has no domain. */
export function validateResourceName(name: string, path: FieldPath): StatusCause[] {
  const causes = isQualifiedName(name).map((msg) => invalid(path, name, msg));
  if (causes.length > 0) return causes;
  if (!name.includes('/') && !isStandardResourceName(name)) causes.push(invalid(path, name, 'must be a standard resource type or fully qualified'));
  return causes;
}

/** validateContainerResourceName: cpu, memory, ephemeral-storage, huge pages or an extended resource. */
export function validateContainerResourceName(name: string, path: FieldPath): StatusCause[] {
  const causes = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!computeResources.includes(name) && !isHugePages(name)) causes.push(invalid(path, name, 'must be a standard resource for containers'));
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    causes.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return causes;
}

/** ValidateResourceQuotaResourceName. */
export function validateQuotaResourceName(name: string, path: FieldPath): StatusCause[] {
  const causes = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardQuotaResourceName(name)) causes.push(invalid(path, name, 'must be a standard resource for quota'));
  return causes;
}

export function isIntegerResourceName(name: string): boolean {
  return integerResources.has(name) || isExtendedResourceName(name);
}

/** Overcommit (request below limit) is allowed for native resources other than huge pages. */
export function isOvercommitAllowed(name: string): boolean {
  return isNativeResource(name) && !isHugePages(name);
}

/** The parsed quantities of a resource map (spec.hard, limits[i].max...); unparseable ones are left out (decoding refused them). */
export function quantitiesOf(map: unknown): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  if (!isObject(map)) return out;
  for (const [name, raw] of Object.entries(map)) {
    const q = parseQuantity(raw);
    if (q !== undefined) out.set(name, q);
  }
  return out;
}
