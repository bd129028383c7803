// coordination.k8s.io/v1 leases, after kubernetes pkg/registry/coordination/lease and
// pkg/apis/coordination/validation.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { JsonObject } from '../../api/json.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { appendAll, forbidden, invalid, notSupported } from '../validation/field.ts';
import { isQualifiedName } from '../validation/names.ts';
import { numberAt, objectAt, present, stringAt } from './object.ts';
import { leaseColumns } from './table-columns.ts';

/** The strategies Kubernetes defines; any other must be a prefixed name (`example.com/mine`). */
const validLeaseStrategies = ['OldestEmulationVersion'];

/**
 * ValidateCoordinatedLeaseStrategy. Upstream is given `spec.strategy` and names the field
 * once more below it, so its causes are at `spec.strategy.strategy`.
 */
function validateCoordinatedLeaseStrategy(strategy: string, path: string): StatusCause[] {
  const field = `${path}.strategy`;
  if (strategy.split('/').length === 1) {
    return validLeaseStrategies.includes(strategy) ? [] : [notSupported(field, strategy, validLeaseStrategies)];
  }
  return isQualifiedName(strategy).map((msg) => invalid(field, strategy, msg));
}

function validateLeaseSpec(lease: KubeObject): StatusCause[] {
  const spec = objectAt(lease, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const duration = numberAt(spec, 'leaseDurationSeconds');
  if (duration !== undefined && duration <= 0) causes.push(invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = numberAt(spec, 'leaseTransitions');
  if (transitions !== undefined && transitions < 0) causes.push(invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  const strategy = stringAt(spec, 'strategy');
  if (present(spec.strategy)) appendAll(causes, validateCoordinatedLeaseStrategy(strategy, 'spec.strategy'));
  if (stringAt(spec, 'preferredHolder') !== '' && strategy === '') {
    causes.push(forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return causes;
}

/**
 * The CoordinatedLeaderElection gate is off in v1.36 (beta, off by default): a new lease
 * drops spec.strategy and spec.preferredHolder; an update keeps each only when the stored
 * lease has it.
 */
function dropGatedFields(spec: JsonObject | undefined, old: JsonObject | undefined): void {
  if (spec === undefined) return;
  for (const field of ['strategy', 'preferredHolder']) {
    if (!present(old?.[field])) delete spec[field];
  }
}

const leaseStrategy: Strategy = {
  prepareForCreate(lease) {
    dropGatedFields(objectAt(lease, 'spec'), undefined);
  },
  prepareForUpdate(lease, old) {
    dropGatedFields(objectAt(lease, 'spec'), objectAt(old, 'spec'));
  },
  validate: validateLeaseSpec,
};

export function leasesType(): ResourceType {
  return builtinType('coordination.k8s.io', 'v1', 'leases', {
    subresources: [],
    strategy: leaseStrategy,
    allowCreateOnUpdate: true,
    // Leases are the one common built-in that insists on a resourceVersion for PUT.
    allowUnconditionalUpdate: false,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    tableColumns: leaseColumns,
  });
}
