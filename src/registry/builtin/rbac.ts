// rbac.authorization.k8s.io/v1 roles, rolebindings, clusterroles and clusterrolebindings,
// stored and validated (authorizing with them is not done yet). Names are path segments, as
// upstream's ValidateRBACName.

import type { ResourceType } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';

const group = 'rbac.authorization.k8s.io';

export function rbacTypes(): ResourceType[] {
  return ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings'].map((resource) =>
    builtinType(group, 'v1', resource, { allowCreateOnUpdate: true, nameRule: 'path-segment' }));
}
