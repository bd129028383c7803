// core/v1 serviceaccounts: metadata rules only (upstream's ValidateServiceAccount), and the token subresource.

import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { serviceAccountColumns } from './table-columns.ts';

const serviceAccountStrategy: Strategy = {
  validate(sa) {
    return validateKubeFinalizerNames(sa.metadata.finalizers, 'metadata.finalizers');
  },
};

export function serviceAccountsType(): ResourceType {
  return builtinType('', 'v1', 'serviceaccounts', {
    // POST serviceaccounts/{name}/token: a TokenRequest (endpoints/handlers/authentication.ts).
    subresources: ['token'],
    strategy: serviceAccountStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: true, // upstream's registry sets ReturnDeletedObject
    nameRule: 'dns1123-subdomain',
    tableColumns: serviceAccountColumns,
  });
}
