// networking.k8s.io/v1 ingresses, ingressclasses, networkpolicies, ipaddresses and servicecidrs.

import type { ResourceType } from '../resource-type.ts';
import { generationStrategy, specStatusStrategy } from './common.ts';
import { builtinType } from './skeleton.ts';

export function ingressesType(): ResourceType {
  return builtinType('networking.k8s.io', 'v1', 'ingresses', { strategy: specStatusStrategy() });
}

export function ingressClassesType(): ResourceType {
  return builtinType('networking.k8s.io', 'v1', 'ingressclasses', { strategy: generationStrategy() });
}

export function networkPoliciesType(): ResourceType {
  return builtinType('networking.k8s.io', 'v1', 'networkpolicies', { strategy: generationStrategy() });
}

export function ipAddressesType(): ResourceType {
  return builtinType('networking.k8s.io', 'v1', 'ipaddresses');
}

export function serviceCIDRsType(): ResourceType {
  return builtinType('networking.k8s.io', 'v1', 'servicecidrs', { strategy: specStatusStrategy() });
}
