// Predicates over a Service spec that strategy and allocator share
// (kubernetes pkg/registry/core/service/storage and pkg/api/service).

import { isObject, type JsonObject } from '../../api/json.ts';
import { arrayAt, objectAt, objectsAt, stringAt } from './object.ts';

export function serviceSpec(svc: unknown): JsonObject {
  return objectAt(svc, 'spec') ?? {};
}

export function serviceType(spec: JsonObject): string {
  return stringAt(spec, 'type') || 'ClusterIP';
}

/** Every type but ExternalName has a cluster IP (or "None"). */
export function needsClusterIP(spec: JsonObject): boolean {
  return serviceType(spec) !== 'ExternalName';
}

export function clusterIPsOf(spec: JsonObject): string[] {
  return arrayAt(spec, 'clusterIPs').filter((ip): ip is string => typeof ip === 'string');
}

export function isHeadless(spec: JsonObject): boolean {
  const ips = clusterIPsOf(spec);
  return (ips.length > 0 && ips[0] === 'None') || stringAt(spec, 'clusterIP') === 'None';
}

/** Types whose ports may carry node ports. */
export function usesNodePorts(spec: JsonObject): boolean {
  const type = serviceType(spec);
  return type === 'NodePort' || type === 'LoadBalancer';
}

/** Types that get a node port allocated for each port lacking one. */
export function needsNodePort(spec: JsonObject): boolean {
  const type = serviceType(spec);
  if (type === 'NodePort') return true;
  return type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false;
}

export function needsHealthCheckNodePort(spec: JsonObject): boolean {
  return serviceType(spec) === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
}

/** NodePort and LoadBalancer services, and ClusterIP ones with external IPs (pkg/api/service ExternallyAccessible). */
export function externallyAccessible(spec: JsonObject): boolean {
  const type = serviceType(spec);
  return type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && arrayAt(spec, 'externalIPs').length > 0);
}

export function servicePorts(spec: JsonObject): JsonObject[] {
  return objectsAt(spec, 'ports');
}

export function nodePortOf(port: unknown): number {
  return isObject(port) && typeof port.nodePort === 'number' ? port.nodePort : 0;
}
