// The built-in resource types Plinth serves.

import type { ResourceType } from '../resource-type.ts';
import { bindingsType } from './bindings.ts';
import { certificateSigningRequestsType } from './certificatesigningrequests.ts';
import { componentStatusesType } from './componentstatuses.ts';
import { configMapsType } from './configmaps.ts';
import { endpointSlicesType } from './endpointslices.ts';
import { deploymentsType } from './deployments.ts';
import { endpointsType } from './endpoints.ts';
import { eventsType } from './events.ts';
import { leasesType } from './leases.ts';
import { namespacesType } from './namespaces.ts';
import { nodesType } from './nodes.ts';
import { podDisruptionBudgetsType } from './poddisruptionbudgets.ts';
import { podsType } from './pods.ts';
import { secretsType } from './secrets.ts';
import { serviceAccountsType } from './serviceaccounts.ts';
import { servicesType } from './services.ts';
import { horizontalPodAutoscalersType, horizontalPodAutoscalersV1Type } from './autoscaling.ts';
import { eventsV1Type } from './events-v1.ts';
import { cronJobsType, jobsType } from './batch.ts';
import {
  admissionPolicyTypes, apiServicesType, flowSchemasType,
  priorityClassesType, priorityLevelConfigurationsType, resourceAllocationTypes, runtimeClassesType,
} from './cluster-config.ts';
import { limitRangesType, resourceQuotasType } from './core-policy.ts';
import { persistentVolumeClaimsType, persistentVolumesType } from './core-storage.ts';
import { ingressClassesType, ingressesType, ipAddressesType, networkPoliciesType, serviceCIDRsType } from './networking.ts';
import { rbacTypes } from './rbac.ts';
import {
  csiDriversType, csiNodesType, csiStorageCapacitiesType, storageClassesType, volumeAttachmentsType, volumeAttributesClassesType,
} from './storage.ts';
import {
  controllerRevisionsType, podTemplatesType,
} from './workloads.ts';
import { replicaSetsType, replicationControllersType } from './replicasets.ts';
import { statefulSetsType } from './statefulsets.ts';
import { daemonSetsType } from './daemonsets.ts';
import { mutatingWebhookConfigurationsType, validatingWebhookConfigurationsType } from './webhook-configurations.ts';

export interface BuiltinOptions {
  /** kube-apiserver's --service-cluster-ip-range: one CIDR, or two (dual-stack). Default 10.96.0.0/12. */
  serviceClusterIPRange?: string;
  /** kube-apiserver's --service-node-port-range. Default 30000-32767. */
  serviceNodePortRange?: string;
  /** Alias of serviceNodePortRange. */
  nodePortRange?: string;
}

/** One ResourceType per built-in type; the services type carries its ClusterIP/NodePort allocator. */
export function builtinResourceTypes(opts: BuiltinOptions = {}): ResourceType[] {
  return [
    namespacesType(),
    configMapsType(),
    secretsType(),
    serviceAccountsType(),
    eventsType(),
    servicesType({
      serviceClusterIPRange: opts.serviceClusterIPRange,
      serviceNodePortRange: opts.serviceNodePortRange ?? opts.nodePortRange,
    }),
    podsType(),
    bindingsType(),
    componentStatusesType(),
    nodesType(),
    endpointsType(),
    leasesType(),
    deploymentsType(),
    podDisruptionBudgetsType(),
    mutatingWebhookConfigurationsType(),
    validatingWebhookConfigurationsType(),
    persistentVolumesType(),
    persistentVolumeClaimsType(),
    limitRangesType(),
    resourceQuotasType(),
    podTemplatesType(),
    replicationControllersType(),
    replicaSetsType(),
    statefulSetsType(),
    daemonSetsType(),
    controllerRevisionsType(),
    jobsType(),
    cronJobsType(),
    horizontalPodAutoscalersType(),
    horizontalPodAutoscalersV1Type(),
    eventsV1Type(),
    ingressesType(),
    ingressClassesType(),
    networkPoliciesType(),
    ipAddressesType(),
    serviceCIDRsType(),
    storageClassesType(),
    csiDriversType(),
    csiNodesType(),
    csiStorageCapacitiesType(),
    volumeAttachmentsType(),
    volumeAttributesClassesType(),
    priorityClassesType(),
    runtimeClassesType(),
    endpointSlicesType(),
    certificateSigningRequestsType(),
    flowSchemasType(),
    priorityLevelConfigurationsType(),
    ...admissionPolicyTypes(),
    apiServicesType(),
    ...resourceAllocationTypes(),
    ...rbacTypes(),
  ];
}
