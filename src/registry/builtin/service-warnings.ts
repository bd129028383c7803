// What a valid Service is warned of, after kubernetes pkg/api/service/warnings.go
// (GetWarningsForService, v1.36), which the service strategy gives on create and update:
// deprecated annotations and fields, fields a headless or ExternalName service ignores, and
// IPs and CIDRs a later release will refuse.

import type { KubeObject } from '../../api/index.ts';
import { appendAll, index } from '../validation/field.ts';
import { cidrWarnings, ipWarnings } from '../validation/ip.ts';
import { stringAt, stringsAt } from './object.ts';
import { clusterIPsOf, serviceSpec, serviceType } from './service-spec.ts';

export const topologyAwareHintsAnnotation = 'service.kubernetes.io/topology-aware-hints';
export const topologyModeAnnotation = 'service.kubernetes.io/topology-mode';

export function serviceWarnings(svc: KubeObject): string[] {
  const spec = serviceSpec(svc);
  const warnings: string[] = [];
  if (svc.metadata.annotations?.[topologyAwareHintsAnnotation] !== undefined) {
    warnings.push(`annotation ${topologyAwareHintsAnnotation} is deprecated, please use ${topologyModeAnnotation} instead`);
  }
  const clusterIP = stringAt(spec, 'clusterIP');
  // helper.IsServiceIPSet
  if (clusterIP !== '' && clusterIP !== 'None') clusterIPsOf(spec).forEach((ip, i) => appendAll(warnings, ipWarnings(index('spec.clusterIPs', i), ip)));
  const type = serviceType(spec);
  const loadBalancerIP = stringAt(spec, 'loadBalancerIP');
  const externalIPs = stringsAt(spec, 'externalIPs');
  // The warnings' own notion of headless: a ClusterIP service whose clusterIP is None.
  const headless = type === 'ClusterIP' && clusterIP === 'None';
  if (headless) {
    if (loadBalancerIP !== '') warnings.push('spec.loadBalancerIP is ignored for headless services');
    if (externalIPs.length > 0) warnings.push('spec.externalIPs is ignored for headless services');
    if (stringAt(spec, 'sessionAffinity') !== 'None') warnings.push('spec.SessionAffinity is ignored for headless services');
  }
  externalIPs.forEach((ip, i) => appendAll(warnings, ipWarnings(index('spec.externalIPs', i), ip)));
  // KEP-5707: externalIPs deprecated in v1.36.
  if (externalIPs.length > 0 && !headless && type !== 'ExternalName') warnings.push('spec.externalIPs is deprecated and may no longer be implemented in some clusters');
  if (loadBalancerIP !== '') appendAll(warnings, ipWarnings('spec.loadBalancerIP', loadBalancerIP));
  stringsAt(spec, 'loadBalancerSourceRanges').forEach((cidr, i) => appendAll(warnings, cidrWarnings(index('spec.loadBalancerSourceRanges', i), cidr)));
  if (type === 'ExternalName' && externalIPs.length > 0) warnings.push('spec.externalIPs is ignored when spec.type is "ExternalName"');
  if (type !== 'ExternalName' && stringAt(spec, 'externalName') !== '') warnings.push('spec.externalName is ignored when spec.type is not "ExternalName"');
  if (spec.trafficDistribution === 'PreferClose') warnings.push('spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"');
  return warnings;
}
