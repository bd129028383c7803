// Which message of messages.ts a (apiVersion, kind) is encoded as.

const byVersion: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  v1: {
    Namespace: 'core.v1.Namespace',
    NamespaceList: 'core.v1.NamespaceList',
    ConfigMap: 'core.v1.ConfigMap',
    ConfigMapList: 'core.v1.ConfigMapList',
    Secret: 'core.v1.Secret',
    SecretList: 'core.v1.SecretList',
    ServiceAccount: 'core.v1.ServiceAccount',
    ServiceAccountList: 'core.v1.ServiceAccountList',
    Event: 'core.v1.Event',
    EventList: 'core.v1.EventList',
    Service: 'core.v1.Service',
    ServiceList: 'core.v1.ServiceList',
    Pod: 'core.v1.Pod',
    PodList: 'core.v1.PodList',
    Binding: 'core.v1.Binding',
    PodTemplate: 'core.v1.PodTemplate',
    PodTemplateList: 'core.v1.PodTemplateList',
    Node: 'core.v1.Node',
    NodeList: 'core.v1.NodeList',
    Endpoints: 'core.v1.Endpoints',
    EndpointsList: 'core.v1.EndpointsList',
    // meta.k8s.io's List, used for lists of mixed kinds.
    List: 'meta.v1.List',
  },
  'apps/v1': {
    Deployment: 'apps.v1.Deployment',
    DeploymentList: 'apps.v1.DeploymentList',
  },
  'coordination.k8s.io/v1': {
    Lease: 'coordination.v1.Lease',
    LeaseList: 'coordination.v1.LeaseList',
  },
  'policy/v1': {
    Eviction: 'policy.v1.Eviction',
    PodDisruptionBudget: 'policy.v1.PodDisruptionBudget',
    PodDisruptionBudgetList: 'policy.v1.PodDisruptionBudgetList',
  },
  'admissionregistration.k8s.io/v1': {
    MutatingWebhookConfiguration: 'admissionregistration.v1.MutatingWebhookConfiguration',
    MutatingWebhookConfigurationList: 'admissionregistration.v1.MutatingWebhookConfigurationList',
    ValidatingWebhookConfiguration: 'admissionregistration.v1.ValidatingWebhookConfiguration',
    ValidatingWebhookConfigurationList: 'admissionregistration.v1.ValidatingWebhookConfigurationList',
  },
  'autoscaling/v1': {
    Scale: 'autoscaling.v1.Scale',
  },
};

/**
 * Kinds every group version carries: metav1.AddToGroupVersion registers the options
 * types in each of them (client-go sends DeleteOptions as "apps/v1" for deployments),
 * and Status is unversioned.
 */
const inEveryVersion: Readonly<Record<string, string>> = {
  Status: 'meta.v1.Status',
  DeleteOptions: 'meta.v1.DeleteOptions',
};

/** The message name for an apiVersion and kind, or undefined when there is none. */
export function messageFor(apiVersion: string, kind: string): string | undefined {
  return Object.hasOwn(inEveryVersion, kind) ? inEveryVersion[kind]
    : Object.hasOwn(byVersion, apiVersion) && Object.hasOwn(byVersion[apiVersion]!, kind) ? byVersion[apiVersion]![kind]
    : undefined;
}

/** Whether objects of this apiVersion and kind can be encoded to and decoded from Protobuf. */
export function hasProtobufDescriptor(apiVersion: string, kind: string): boolean {
  return messageFor(apiVersion, kind) !== undefined;
}
