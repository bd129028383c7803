// Workload types beside Deployments: core/v1 podtemplates and replicationcontrollers,
// apps/v1 replicasets, statefulsets, daemonsets and controllerrevisions.

import type { ResourceType } from '../resource-type.ts';
import { specStatusStrategy } from './common.ts';
import { replicasScale } from './scale-access.ts';
import { builtinType } from './skeleton.ts';

export function podTemplatesType(): ResourceType {
  return builtinType('', 'v1', 'podtemplates');
}

export function replicationControllersType(): ResourceType {
  return builtinType('', 'v1', 'replicationcontrollers', {
    strategy: specStatusStrategy({ scale: replicasScale({ mapSelector: true }) }),
  });
}

export function replicaSetsType(): ResourceType {
  return builtinType('apps', 'v1', 'replicasets', { strategy: specStatusStrategy({ scale: replicasScale() }) });
}

export function statefulSetsType(): ResourceType {
  return builtinType('apps', 'v1', 'statefulsets', { strategy: specStatusStrategy({ scale: replicasScale() }) });
}

export function daemonSetsType(): ResourceType {
  return builtinType('apps', 'v1', 'daemonsets', { strategy: specStatusStrategy() });
}

export function controllerRevisionsType(): ResourceType {
  return builtinType('apps', 'v1', 'controllerrevisions');
}
