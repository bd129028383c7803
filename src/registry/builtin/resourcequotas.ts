// core/v1 ResourceQuota: upstream's validation (pkg/apis/core/validation
// ValidateResourceQuota and its update rules), strategy (pkg/registry/core/resourcequota)
// and kubectl's table (printResourceQuota).

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { appendAll, goJson, type GoValue } from '../../api/field-errors.ts';
import { isObject } from '../../api/json.ts';
import { canonicalQuantity, compareQuantity, formatQuantity, isNegative, milliValue, parseQuantity } from '../../api/quantity.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import type { Strategy } from '../resource-type.ts';
import { child, fieldImmutable, invalid, key, required, type FieldPath } from '../validation/field.ts';
import { arrayAt, objectAt, objectsAt, stringAt } from './object.ts';
import { isIntegerResourceName, isStandardQuotaResourceName, validateQuotaResourceName } from './resource-names.ts';
import { keepOldSpec, keepOldStatus } from './common.ts';

const standardScopes = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass'];
/** Scopes that only say whether a pod has a property: their selector operator must be Exists. */
const existsOnlyScopes = ['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'];
const conflictingScopes = [['BestEffort', 'NotBestEffort'], ['Terminating', 'NotTerminating']];
const podComputeResources = ['cpu', 'limits.cpu', 'limits.memory', 'memory', 'requests.cpu', 'requests.memory'];
const pvcResources = ['persistentvolumeclaims', 'requests.storage'];

/** IsResourceQuotaScopeValidForResource. */
function scopeValidForResource(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating': case 'NotTerminating': case 'NotBestEffort': case 'PriorityClass': case 'CrossNamespacePodAffinity':
      return resource === 'pods' || podComputeResources.includes(resource);
    case 'BestEffort':
      return resource === 'pods';
    case 'VolumeAttributesClass':
      return pvcResources.includes(resource);
    default:
      return true;
  }
}

/** A list as json.Marshal writes the Go slice: `null` when it was not given. */
const goList = (v: unknown): unknown[] | null => (Array.isArray(v) ? v : null);

/** The internal core.ScopeSelector as json.Marshal writes it: Go field names, no omitempty. */
function goScopeSelector(selector: unknown): GoValue {
  return goJson({
    MatchExpressions: objectsAt(selector, 'matchExpressions').map((e) => ({
      ScopeName: stringAt(e, 'scopeName'), Operator: stringAt(e, 'operator'), Values: goList(e.values),
    })),
  });
}

function validateQuantities(map: unknown, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!isObject(map)) return causes;
  for (const [name, raw] of Object.entries(map)) {
    const p = key(path, name);
    appendAll(causes, validateQuotaResourceName(name, p));
    const q = parseQuantity(raw);
    if (q === undefined) continue;
    if (isNegative(q)) causes.push(invalid(p, canonicalQuantity(raw), 'must be greater than or equal to 0'));
    // A resource.Quantity marshals as its canonical string.
    if (isIntegerResourceName(name) && milliValue(q) % 1000n !== 0n) causes.push(invalid(p, canonicalQuantity(raw), 'must be an integer'));
  }
  return causes;
}

function validateScopes(spec: Record<string, unknown>, path: FieldPath): StatusCause[] {
  const scopes = arrayAt(spec, 'scopes');
  if (scopes.length === 0) return [];
  const causes: StatusCause[] = [];
  const p = child(path, 'scopes');
  const hard = Object.keys(objectAt(spec, 'hard') ?? {}).sort();
  for (const scope of scopes) {
    if (!standardScopes.includes(String(scope))) causes.push(invalid(p, scopes, 'unsupported scope'));
    for (const resource of hard) {
      if (isStandardQuotaResourceName(resource) && !scopeValidForResource(String(scope), resource)) {
        causes.push(invalid(p, scopes, 'unsupported scope applied to resource'));
      }
    }
  }
  for (const pair of conflictingScopes) if (pair.every((s) => scopes.includes(s))) causes.push(invalid(p, scopes, 'conflicting scopes'));
  return causes;
}

function validateScopeSelector(spec: Record<string, unknown>, path: FieldPath): StatusCause[] {
  const selector = objectAt(spec, 'scopeSelector');
  if (selector === undefined) return [];
  const causes: StatusCause[] = [];
  const p = child(path, 'scopeSelector', 'matchExpressions');
  const hard = Object.keys(objectAt(spec, 'hard') ?? {}).sort();
  const names = new Set<string>();
  for (const req of objectsAt(selector, 'matchExpressions')) {
    const scope = stringAt(req, 'scopeName');
    const operator = stringAt(req, 'operator');
    const values = arrayAt(req, 'values');
    // Scope names and operators are typed strings: json.Marshal writes them, not %q.
    if (!standardScopes.includes(scope)) causes.push(invalid(child(p, 'scopeName'), goJson(scope), 'unsupported scope'));
    for (const resource of hard) {
      if (isStandardQuotaResourceName(resource) && !scopeValidForResource(scope, resource)) {
        causes.push(invalid(p, goScopeSelector(selector), 'unsupported scope applied to resource'));
      }
    }
    if (existsOnlyScopes.includes(scope) && operator !== 'Exists') {
      causes.push(invalid(child(p, 'operator'), goJson(operator),
        "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"));
    }
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) causes.push(required(child(p, 'values'), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) {
        causes.push(invalid(child(p, 'values'), values,
          "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
      }
    } else {
      causes.push(invalid(child(p, 'operator'), goJson(operator), 'not a valid selector operator'));
    }
    names.add(scope);
  }
  // Upstream reports the conflict with spec.scopes as the bad value, not the selector.
  for (const pair of conflictingScopes) if (pair.every((s) => names.has(s))) causes.push(invalid(p, goList(spec.scopes), 'conflicting scopes'));
  return causes;
}

function validateStatus(status: unknown): StatusCause[] {
  return [...validateQuantities(objectAt(status, 'hard'), 'status.hard'), ...validateQuantities(objectAt(status, 'used'), 'status.used')];
}

export function validateResourceQuota(rq: KubeObject): StatusCause[] {
  const spec = objectAt(rq, 'spec') ?? {};
  return [
    ...validateQuantities(objectAt(spec, 'hard'), 'spec.hard'),
    ...validateScopes(spec, 'spec'),
    ...validateScopeSelector(spec, 'spec'),
    ...validateStatus(rq.status),
  ];
}

/**
 * Upstream's WarningsOnCreate: a request quota above the limit quota of the same resource
 * (the bare cpu or memory stands for its request when requests.<name> is not given).
 */
function requestAboveLimitWarnings(rq: KubeObject): string[] {
  const hard = objectAt(objectAt(rq, 'spec'), 'hard') ?? {};
  const warnings: string[] = [];
  for (const resource of ['cpu', 'memory', 'storage', 'ephemeral-storage']) {
    let requestName = `requests.${resource}`;
    if (!(requestName in hard) && (resource === 'cpu' || resource === 'memory') && resource in hard) requestName = resource;
    const limitName = `limits.${resource}`;
    const request = parseQuantity(hard[requestName]);
    const limit = parseQuantity(hard[limitName]);
    if (request !== undefined && limit !== undefined && compareQuantity(request, limit) > 0) {
      warnings.push(`ResourceQuota ${requestName} (${formatQuantity(request)}) should be less than ${limitName} (${formatQuantity(limit)})`);
    }
  }
  return warnings;
}

/**
 * Upstream's resourcequotaStrategy: a create starts with an empty status, a write keeps the
 * stored status and a status write the stored spec. Unlike most types with a status, a
 * quota never gets a metadata.generation.
 */
export const resourceQuotaStrategy: Strategy = {
  prepareForCreate(rq) {
    rq.status = {};
  },
  prepareForUpdate: keepOldStatus,
  validate: validateResourceQuota,
  validateUpdate(rq, old) {
    const causes: StatusCause[] = [];
    // Upstream compares the scopes as sets: reordering them is no change.
    const scopes = new Set(arrayAt(objectAt(rq, 'spec'), 'scopes').map(String));
    const oldScopes = new Set(arrayAt(objectAt(old, 'spec'), 'scopes').map(String));
    if (scopes.size !== oldScopes.size || [...scopes].some((s) => !oldScopes.has(s))) causes.push(invalid('spec.scopes', goList(objectAt(rq, 'spec')?.scopes), fieldImmutable));
    return causes;
  },
  warningsOnCreate: requestAboveLimitWarnings,
  subresources: {
    status: {
      prepareForUpdate: keepOldSpec,
      validateUpdate: (rq) => validateStatus(rq.status),
    },
  },
};

/** kubectl's "resource: used/hard" list of one column, sorted by resource name. */
function usageCell(rq: KubeObject, limits: boolean): string {
  const hard = objectAt(objectAt(rq, 'status'), 'hard') ?? {};
  const used = objectAt(objectAt(rq, 'status'), 'used') ?? {};
  return Object.keys(hard).sort()
    .filter((name) => (name.split('.').length > 1 && name.split('.')[0] === 'limits') === limits)
    .map((name) => `${name}: ${used[name] === undefined ? '0' : canonicalQuantity(used[name])}/${canonicalQuantity(hard[name])}`)
    .join(', ');
}

/** Upstream's printResourceQuota columns. */
export const resourceQuotaColumns: TableColumn[] = [
  nameColumn,
  ageColumn,
  column('Request', (rq) => usageCell(rq, false), { description: 'Request represents a minimum amount of cpu/memory that a container may consume.' }),
  column('Limit', (rq) => usageCell(rq, true), {
    description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
  }),
];

