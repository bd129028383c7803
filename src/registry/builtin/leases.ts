// coordination.k8s.io/v1 leases, after kubernetes pkg/registry/coordination/lease and
// pkg/apis/coordination/validation.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { forbidden, invalid } from '../validation/field.ts';
import { numberAt, objectAt, stringAt } from './object.ts';
import { leaseColumns } from './table-columns.ts';

function validateLeaseSpec(lease: KubeObject): StatusCause[] {
  const spec = objectAt(lease, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const duration = numberAt(spec, 'leaseDurationSeconds');
  if (duration !== undefined && duration <= 0) causes.push(invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = numberAt(spec, 'leaseTransitions');
  if (transitions !== undefined && transitions < 0) causes.push(invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  if (stringAt(spec, 'preferredHolder') !== '' && stringAt(spec, 'holderIdentity') === '') {
    causes.push(forbidden('spec.preferredHolder', 'may only be specified if `holderIdentity` is set'));
  }
  return causes;
}

const leaseStrategy: Strategy = {
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
