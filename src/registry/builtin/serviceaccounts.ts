// core/v1 serviceaccounts: metadata rules only (upstream's ValidateServiceAccount).

import type { ResourceType, Strategy } from '../resource-type.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { allVerbs } from './common.ts';
import { serviceAccountColumns } from './table-columns.ts';

const serviceAccountStrategy: Strategy = {
  validate(sa) {
    return validateKubeFinalizerNames(sa.metadata.finalizers, 'metadata.finalizers');
  },
};

export function serviceAccountsType(): ResourceType {
  return {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    singular: 'serviceaccount',
    kind: 'ServiceAccount',
    listKind: 'ServiceAccountList',
    namespaced: true,
    shortNames: ['sa'],
    categories: [],
    verbs: allVerbs,
    subresources: [],
    schemaName: 'io.k8s.api.core.v1.ServiceAccount',
    strategy: serviceAccountStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: true, // upstream's registry sets ReturnDeletedObject
    nameRule: 'dns1123-subdomain',
    tableColumns: serviceAccountColumns,
  };
}
