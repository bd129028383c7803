// Cluster configuration types stored and validated but acted on by nothing in Plinth:
// scheduling.k8s.io priorityclasses, node.k8s.io runtimeclasses, discovery.k8s.io
// endpointslices, certificates.k8s.io certificatesigningrequests, flowcontrol schemas and
// priority levels, admission policies and their bindings, apiregistration apiservices and
// resource.k8s.io (dynamic resource allocation) types.

import type { ResourceType } from '../resource-type.ts';
import { generationStrategy, specStatusStrategy } from './common.ts';
import { builtinType } from './skeleton.ts';

export function priorityClassesType(): ResourceType {
  return builtinType('scheduling.k8s.io', 'v1', 'priorityclasses');
}

export function runtimeClassesType(): ResourceType {
  return builtinType('node.k8s.io', 'v1', 'runtimeclasses');
}

export function endpointSlicesType(): ResourceType {
  return builtinType('discovery.k8s.io', 'v1', 'endpointslices', { allowCreateOnUpdate: true });
}

export function flowSchemasType(): ResourceType {
  return builtinType('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas', { strategy: specStatusStrategy() });
}

export function priorityLevelConfigurationsType(): ResourceType {
  return builtinType('flowcontrol.apiserver.k8s.io', 'v1', 'prioritylevelconfigurations', { strategy: specStatusStrategy() });
}

export function admissionPolicyTypes(): ResourceType[] {
  const group = 'admissionregistration.k8s.io';
  return [
    builtinType(group, 'v1', 'validatingadmissionpolicies', { strategy: specStatusStrategy() }),
    builtinType(group, 'v1', 'validatingadmissionpolicybindings', { strategy: generationStrategy() }),
    builtinType(group, 'v1', 'mutatingadmissionpolicies', { strategy: generationStrategy() }),
    builtinType(group, 'v1', 'mutatingadmissionpolicybindings', { strategy: generationStrategy() }),
  ];
}

export function apiServicesType(): ResourceType {
  return builtinType('apiregistration.k8s.io', 'v1', 'apiservices', { strategy: specStatusStrategy() });
}

export function resourceAllocationTypes(): ResourceType[] {
  const group = 'resource.k8s.io';
  return [
    builtinType(group, 'v1', 'deviceclasses', { strategy: generationStrategy() }),
    builtinType(group, 'v1', 'resourceclaims', { strategy: specStatusStrategy() }),
    builtinType(group, 'v1', 'resourceclaimtemplates'),
    builtinType(group, 'v1', 'resourceslices', { strategy: generationStrategy() }),
  ];
}
