// The built-in resource types Plinth serves.

import type { ResourceType } from '../resource-type.ts';
import { accessReviewTypes } from './access-reviews.ts';
import { authenticationReviewTypes } from './authentication.ts';
import { bindingsType } from './bindings.ts';
import { componentStatusesType } from './componentstatuses.ts';
import { configMapsType } from './configmaps.ts';
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
import { lazyBuiltinType } from './skeleton.ts';
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
    horizontalPodAutoscalersType(),
    horizontalPodAutoscalersV1Type(),
    eventsV1Type(),
    ...accessReviewTypes(),
    ...authenticationReviewTypes(),
    ...lazyTypes(),
  ];
}

/** The module of each type whose behaviour loads on first use, by `group/version/resource`. */
function lazyModules(): [string, () => Promise<ResourceType>][] {
  const one = <M>(load: () => Promise<M>, pick: (m: M) => ResourceType) => async () => pick(await load());
  const among = <M>(load: () => Promise<M>, pick: (m: M) => ResourceType[], resource: string) => async () => {
    const found = pick(await load()).find((t) => t.resource === resource);
    if (found === undefined) throw new Error(`no ${resource} in its module`);
    return found;
  };
  const workloads = () => import('./workloads.ts');
  const replicaSets = () => import('./replicasets.ts');
  const batch = () => import('./batch.ts');
  const coreStorage = () => import('./core-storage.ts');
  const corePolicy = () => import('./core-policy.ts');
  const networking = () => import('./networking.ts');
  const storage = () => import('./storage.ts');
  const clusterConfig = () => import('./cluster-config.ts');
  const rbac = () => import('./rbac.ts');
  return [
    ['/v1/persistentvolumes', one(coreStorage, (m) => m.persistentVolumesType())],
    ['/v1/persistentvolumeclaims', one(coreStorage, (m) => m.persistentVolumeClaimsType())],
    ['/v1/limitranges', one(corePolicy, (m) => m.limitRangesType())],
    ['/v1/resourcequotas', one(corePolicy, (m) => m.resourceQuotasType())],
    ['/v1/podtemplates', one(workloads, (m) => m.podTemplatesType())],
    ['/v1/replicationcontrollers', one(replicaSets, (m) => m.replicationControllersType())],
    ['apps/v1/replicasets', one(replicaSets, (m) => m.replicaSetsType())],
    ['apps/v1/statefulsets', one(() => import('./statefulsets.ts'), (m) => m.statefulSetsType())],
    ['apps/v1/daemonsets', one(() => import('./daemonsets.ts'), (m) => m.daemonSetsType())],
    ['apps/v1/controllerrevisions', one(workloads, (m) => m.controllerRevisionsType())],
    ['batch/v1/jobs', one(batch, (m) => m.jobsType())],
    ['batch/v1/cronjobs', one(batch, (m) => m.cronJobsType())],
    ['networking.k8s.io/v1/ingresses', one(networking, (m) => m.ingressesType())],
    ['networking.k8s.io/v1/ingressclasses', one(networking, (m) => m.ingressClassesType())],
    ['networking.k8s.io/v1/networkpolicies', one(networking, (m) => m.networkPoliciesType())],
    ['networking.k8s.io/v1/ipaddresses', one(networking, (m) => m.ipAddressesType())],
    ['networking.k8s.io/v1/servicecidrs', one(networking, (m) => m.serviceCIDRsType())],
    ['storage.k8s.io/v1/storageclasses', one(storage, (m) => m.storageClassesType())],
    ['storage.k8s.io/v1/csidrivers', one(storage, (m) => m.csiDriversType())],
    ['storage.k8s.io/v1/csinodes', one(storage, (m) => m.csiNodesType())],
    ['storage.k8s.io/v1/csistoragecapacities', one(storage, (m) => m.csiStorageCapacitiesType())],
    ['storage.k8s.io/v1/volumeattachments', one(storage, (m) => m.volumeAttachmentsType())],
    ['storage.k8s.io/v1/volumeattributesclasses', one(storage, (m) => m.volumeAttributesClassesType())],
    ['scheduling.k8s.io/v1/priorityclasses', one(clusterConfig, (m) => m.priorityClassesType())],
    ['node.k8s.io/v1/runtimeclasses', one(clusterConfig, (m) => m.runtimeClassesType())],
    ['discovery.k8s.io/v1/endpointslices', one(() => import('./endpointslices.ts'), (m) => m.endpointSlicesType())],
    ['certificates.k8s.io/v1/certificatesigningrequests', one(() => import('./certificatesigningrequests.ts'), (m) => m.certificateSigningRequestsType())],
    ['flowcontrol.apiserver.k8s.io/v1/flowschemas', one(clusterConfig, (m) => m.flowSchemasType())],
    ['flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', one(clusterConfig, (m) => m.priorityLevelConfigurationsType())],
    ...['validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']
      .map((r): [string, () => Promise<ResourceType>] => [`admissionregistration.k8s.io/v1/${r}`, among(clusterConfig, (m) => m.admissionPolicyTypes(), r)]),
    ['apiregistration.k8s.io/v1/apiservices', one(clusterConfig, (m) => m.apiServicesType())],
    ...['deviceclasses', 'resourceclaims', 'resourceclaimtemplates', 'resourceslices']
      .map((r): [string, () => Promise<ResourceType>] => [`resource.k8s.io/v1/${r}`, among(clusterConfig, (m) => m.resourceAllocationTypes(), r)]),
    ...['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings']
      .map((r): [string, () => Promise<ResourceType>] => [`rbac.authorization.k8s.io/v1/${r}`, among(rbac, (m) => m.rbacTypes(), r)]),
  ];
}

/**
 * The types few clients use, each loading its module on first use (lazyBuiltinType).
 * Subresources beyond status and scale are named here, as discovery lists them before
 * the module loads.
 */
function lazyTypes(): ResourceType[] {
  const eager: Record<string, { subresources: string[] }> = {
    'certificates.k8s.io/v1/certificatesigningrequests': { subresources: ['approval', 'status'] },
  };
  return lazyModules().map(([key, load]) => {
    const [group, version, resource] = key.split('/') as [string, string, string];
    return lazyBuiltinType(group, version, resource, load, eager[key]);
  });
}
