// core/v1 kinds other than Pod: Namespace, ConfigMap, Secret, ServiceAccount, Event,
// Service, Endpoints, Node, Binding, and the object references they share.

import type { Definitions } from '../types.ts';
import {
  CORE, META, atomic, bool, bytes, int32, int64, intOrString, listOf, mapOf, mergeList, microTime, object,
  ref, resourceList, set, str, strEnum, stringMap, time, topLevel,
} from './build.ts';

const v1 = { group: '', version: 'v1' };
const protocols = ['SCTP', 'TCP', 'UDP'];

export const coreDefinitions: Definitions = {
  // References between objects.
  [CORE + 'ObjectReference']: object(
    'Enough information to inspect or modify the referred object.',
    {
      apiVersion: str('API version of the referent.'),
      fieldPath: str('When referring to part of an object, the path to it, such as "spec.containers{name}".'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      namespace: str('Namespace of the referent.'),
      resourceVersion: str('The resourceVersion of the referent this reference was made to, if any.'),
      uid: str('UID of the referent.'),
    },
    { mapType: 'atomic' },
  ),
  [CORE + 'LocalObjectReference']: object(
    'Names an object in the same namespace.',
    { name: str('Name of the referent.') },
    { mapType: 'atomic' },
  ),
  [CORE + 'TypedLocalObjectReference']: object(
    'Names a typed object in the same namespace.',
    {
      apiGroup: str('Group of the referent; empty for the core group.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
    },
    { required: ['kind', 'name'], mapType: 'atomic' },
  ),
  [CORE + 'TypedObjectReference']: object(
    'Names a typed object, possibly in another namespace.',
    {
      apiGroup: str('Group of the referent; empty for the core group.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      namespace: str('Namespace of the referent, when it may differ from the referrer\'s.'),
    },
    { required: ['kind', 'name'] },
  ),

  // Namespace
  [CORE + 'Namespace']: topLevel(v1, 'Namespace', 'A scope for names. Deleting one deletes everything in it.', {
    spec: ref(CORE + 'NamespaceSpec', 'The desired behaviour of the namespace.'),
    status: ref(CORE + 'NamespaceStatus', 'The observed state of the namespace.'),
  }),
  [CORE + 'NamespaceSpec']: object('The desired behaviour of a namespace.', {
    finalizers: atomic(str(), 'Values that must all be removed before the namespace is removed from storage.'),
  }),
  [CORE + 'NamespaceStatus']: object('The observed state of a namespace.', {
    conditions: mergeList(ref(CORE + 'NamespaceCondition'), 'type', 'The latest observations of the namespace\'s state.'),
    phase: strEnum(['Active', 'Terminating'], 'The lifecycle phase of the namespace.'),
  }),
  [CORE + 'NamespaceCondition']: object(
    'One aspect of a namespace\'s state.',
    {
      lastTransitionTime: time('When the status last changed.'),
      message: str('Human-readable details.'),
      reason: str('CamelCase reason for the last transition.'),
      status: str('True, False or Unknown.'),
      type: str('The condition type.'),
    },
    { required: ['type', 'status'] },
  ),
  [CORE + 'NamespaceList']: listOf(v1, 'Namespace', CORE + 'Namespace', 'The namespaces.'),

  // ConfigMap and Secret
  [CORE + 'ConfigMap']: topLevel(v1, 'ConfigMap', 'Configuration data for pods to consume, as key/value pairs.', {
    binaryData: mapOf(bytes(), 'Binary values (base64 in JSON). Keys must not overlap with data.'),
    data: stringMap('UTF-8 values. Keys consist of alphanumerics, "-", "_" and "."; they must not overlap with binaryData.'),
    immutable: bool('When true, data and binaryData cannot change; only metadata can.'),
  }),
  [CORE + 'ConfigMapList']: listOf(v1, 'ConfigMap', CORE + 'ConfigMap', 'The config maps.'),
  [CORE + 'Secret']: topLevel(v1, 'Secret', 'Sensitive data such as passwords, tokens or keys. The values together must be under 1 MiB.', {
    data: mapOf(bytes(), 'The secret values, base64-encoded in JSON.'),
    immutable: bool('When true, data cannot change; only metadata can.'),
    stringData: stringMap('Write-only convenience: values given as plain strings are merged into data on write and never returned.'),
    type: str('Used for programmatic handling of the data, such as "Opaque", "kubernetes.io/tls" or "kubernetes.io/dockerconfigjson".'),
  }),
  [CORE + 'SecretList']: listOf(v1, 'Secret', CORE + 'Secret', 'The secrets.'),

  // ServiceAccount
  [CORE + 'ServiceAccount']: topLevel(v1, 'ServiceAccount', 'An identity for processes running in pods.', {
    automountServiceAccountToken: bool('Whether pods using this account get an API token mounted; a pod may override it.'),
    imagePullSecrets: atomic(ref(CORE + 'LocalObjectReference'), 'Secrets used to pull images for pods using this account.'),
    secrets: mergeList(ref(CORE + 'ObjectReference'), 'name', 'Secrets pods using this account may use, when the account is annotated to enforce it.'),
  }),
  [CORE + 'ServiceAccountList']: listOf(v1, 'ServiceAccount', CORE + 'ServiceAccount', 'The service accounts.'),

  // Event (core/v1)
  [CORE + 'Event']: topLevel(
    v1,
    'Event',
    'A report of something that happened in the cluster. Best-effort and short-lived; do not rely on it for correctness.',
    {
      action: str('What was done, or failed, about the involved object.'),
      count: int32('How many times this event has occurred.'),
      eventTime: microTime('When the event was first observed.'),
      firstTimestamp: time('When the event was first recorded.'),
      involvedObject: ref(CORE + 'ObjectReference', 'The object the event is about.'),
      lastTimestamp: time('When the event was most recently recorded.'),
      message: str('Human-readable description.'),
      reason: str('Short machine-readable reason for the transition.'),
      related: ref(CORE + 'ObjectReference', 'A secondary object, for more complex actions.'),
      reportingComponent: str('The controller that emitted the event, such as "kubernetes.io/kubelet".'),
      reportingInstance: str('The instance of that controller, such as "kubelet-xyzf".'),
      series: ref(CORE + 'EventSeries', 'The series this event belongs to, if it repeats.'),
      source: ref(CORE + 'EventSource', 'The component reporting the event.'),
      type: str('Normal or Warning; more types may be added.'),
    },
    { required: ['metadata', 'involvedObject'] },
  ),
  [CORE + 'EventSource']: object('Who reported an event.', {
    component: str('The component that generated the event.'),
    host: str('The node it was generated on.'),
  }),
  [CORE + 'EventSeries']: object('A series of repeated events.', {
    count: int32('Occurrences so far.'),
    lastObservedTime: microTime('When the last occurrence was observed.'),
  }),
  [CORE + 'EventList']: listOf(v1, 'Event', CORE + 'Event', 'The events.'),

  // Service
  [CORE + 'Service']: topLevel(v1, 'Service', 'A stable virtual address and name in front of a set of pods chosen by a selector.', {
    spec: ref(CORE + 'ServiceSpec', 'The desired behaviour of the service.'),
    status: ref(CORE + 'ServiceStatus', 'The observed state of the service. Read-only.'),
  }),
  [CORE + 'ServiceSpec']: object('The desired behaviour of a service.', {
    allocateLoadBalancerNodePorts: bool('Whether node ports are allocated for a LoadBalancer service. Defaults to true.'),
    clusterIP: str('The virtual IP of the service, usually allocated. "None" makes a headless service. Cannot change except to or from ExternalName.'),
    clusterIPs: atomic(str(), 'The virtual IPs, one per IP family; the first equals clusterIP.'),
    externalIPs: atomic(str(), 'Extra IPs that nodes accept traffic for on behalf of this service. Not managed by Kubernetes.'),
    externalName: str('For type ExternalName: the DNS name the service is an alias (CNAME) of.'),
    externalTrafficPolicy: strEnum(['Cluster', 'Local'], 'How traffic arriving on external addresses is routed: to all endpoints, or to the receiving node\'s only.'),
    healthCheckNodePort: int32('The node port answering health checks for LoadBalancer services with externalTrafficPolicy Local.'),
    internalTrafficPolicy: strEnum(['Cluster', 'Local'], 'How traffic to the cluster IP is routed: to all endpoints, or to the client node\'s only.'),
    ipFamilies: atomic(strEnum(['IPv4', 'IPv6']), 'The IP families of the service, matching clusterIPs.'),
    ipFamilyPolicy: strEnum(['PreferDualStack', 'RequireDualStack', 'SingleStack'], 'Whether the service is single- or dual-stack. Defaults to SingleStack.'),
    loadBalancerClass: str('The load balancer implementation to use, for type LoadBalancer. Cannot change once set.'),
    loadBalancerIP: str('Deprecated: the IP asked of the cloud load balancer.'),
    loadBalancerSourceRanges: atomic(str(), 'Client CIDRs allowed through the cloud load balancer.'),
    ports: mergeList(ref(CORE + 'ServicePort'), 'port', 'The ports the service exposes.', { mapKeys: ['port', 'protocol'] }),
    publishNotReadyAddresses: bool('Treat every endpoint as ready, for peer discovery through DNS.'),
    selector: stringMap('Routes traffic to pods with these labels. Empty means endpoints are managed elsewhere.', 'atomic'),
    sessionAffinity: strEnum(['ClientIP', 'None'], 'Sticky sessions by client IP, or none. Defaults to None.'),
    sessionAffinityConfig: ref(CORE + 'SessionAffinityConfig', 'Settings of session affinity.'),
    trafficDistribution: str('A preference for how traffic is spread across endpoints, such as "PreferClose".'),
    type: strEnum(['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'], 'How the service is exposed. Defaults to ClusterIP.'),
  }),
  [CORE + 'ServicePort']: object(
    'A port a service exposes.',
    {
      appProtocol: str('The application protocol, as a hint to implementations ("http", "kubernetes.io/h2c", ...).'),
      name: str('Name of the port, unique within the service; optional when there is only one port.'),
      nodePort: int32('The port on every node, for NodePort and LoadBalancer services; allocated when not given.'),
      port: int32('The port the service listens on.'),
      protocol: { ...strEnum(protocols, 'TCP, UDP or SCTP. Defaults to TCP.'), default: 'TCP' },
      targetPort: intOrString('The pod port traffic goes to: a number, or the name of a container port. Defaults to port.'),
    },
    { required: ['port'] },
  ),
  [CORE + 'SessionAffinityConfig']: object('Settings of session affinity.', {
    clientIP: ref(CORE + 'ClientIPConfig', 'Settings of client-IP affinity.'),
  }),
  [CORE + 'ClientIPConfig']: object('Settings of client-IP session affinity.', {
    timeoutSeconds: int32('How long a session sticks, in seconds (1 to 86400). Defaults to 10800.'),
  }),
  [CORE + 'ServiceStatus']: object('The observed state of a service.', {
    conditions: mergeList(ref(META + 'Condition'), 'type', 'The current conditions of the service.'),
    loadBalancer: ref(CORE + 'LoadBalancerStatus', 'The state of the load balancer, if any.'),
  }),
  [CORE + 'LoadBalancerStatus']: object('The state of a load balancer.', {
    ingress: atomic(ref(CORE + 'LoadBalancerIngress'), 'The points where traffic for the service enters.'),
  }),
  [CORE + 'LoadBalancerIngress']: object('One ingress point of a load balancer.', {
    hostname: str('Set for DNS-based load balancers.'),
    ip: str('Set for IP-based load balancers.'),
    ipMode: str('"VIP" or "Proxy": how traffic reaches the nodes.'),
    ports: atomic(ref(CORE + 'PortStatus'), 'The state of each service port on this ingress point.'),
  }),
  [CORE + 'PortStatus']: object(
    'The state of one service port.',
    {
      error: str('The problem with the port, if any, as CamelCase or a qualified name.'),
      port: int32('The service port number.'),
      protocol: strEnum(protocols, 'The service port protocol.'),
    },
    { required: ['port', 'protocol'] },
  ),
  [CORE + 'ServiceList']: listOf(v1, 'Service', CORE + 'Service', 'The services.'),

  // Endpoints
  [CORE + 'Endpoints']: topLevel(v1, 'Endpoints', 'The addresses and ports that implement a service.', {
    subsets: atomic(ref(CORE + 'EndpointSubset'), 'Groups of addresses sharing the same ports; the endpoints are the union of all subsets.'),
  }),
  [CORE + 'EndpointSubset']: object('Addresses with a common set of ports.', {
    addresses: atomic(ref(CORE + 'EndpointAddress'), 'Addresses that are ready.'),
    notReadyAddresses: atomic(ref(CORE + 'EndpointAddress'), 'Addresses that are not ready yet, or failed a probe.'),
    ports: atomic(ref(CORE + 'EndpointPort'), 'Ports available on the addresses.'),
  }),
  [CORE + 'EndpointAddress']: object(
    'One endpoint address.',
    {
      hostname: str('Hostname of the endpoint.'),
      ip: str('The IP of the endpoint; not loopback or link-local.'),
      nodeName: str('The node hosting the endpoint.'),
      targetRef: ref(CORE + 'ObjectReference', 'The object providing the endpoint.'),
    },
    { required: ['ip'], mapType: 'atomic' },
  ),
  [CORE + 'EndpointPort']: object(
    'One endpoint port.',
    {
      appProtocol: str('The application protocol, as a hint to implementations.'),
      name: str('Name matching the service port\'s name; optional when there is one port.'),
      port: int32('The port number.'),
      protocol: strEnum(protocols, 'TCP, UDP or SCTP. Defaults to TCP.'),
    },
    { required: ['port'], mapType: 'atomic' },
  ),
  [CORE + 'EndpointsList']: listOf(v1, 'Endpoints', CORE + 'Endpoints', 'The endpoints.'),

  // Node
  [CORE + 'Node']: topLevel(v1, 'Node', 'A worker machine that runs pods.', {
    spec: ref(CORE + 'NodeSpec', 'The desired behaviour of the node.'),
    status: ref(CORE + 'NodeStatus', 'The observed state of the node. Read-only.'),
  }),
  [CORE + 'NodeSpec']: object('The desired behaviour of a node.', {
    configSource: ref(CORE + 'NodeConfigSource', 'Deprecated: dynamic kubelet configuration was removed.'),
    externalID: str('Deprecated and unused.'),
    podCIDR: str('The pod IP range assigned to the node.'),
    podCIDRs: set(str(), 'The pod IP ranges assigned to the node, at most one per IP family; the first equals podCIDR.', 'merge'),
    providerID: str('The cloud provider\'s ID of the node: <provider>://<id>.'),
    taints: atomic(ref(CORE + 'Taint'), 'Taints that repel pods not tolerating them.'),
    unschedulable: bool('When true, no new pods are scheduled to the node.'),
  }),
  [CORE + 'Taint']: object(
    'Marks a node so that pods not tolerating it are kept away or evicted.',
    {
      effect: strEnum(['NoExecute', 'NoSchedule', 'PreferNoSchedule'], 'What happens to pods that do not tolerate the taint.'),
      key: str('The taint key.'),
      timeAdded: time('When the taint was added; set for NoExecute taints only.'),
      value: str('The taint value.'),
    },
    { required: ['key', 'effect'] },
  ),
  [CORE + 'NodeConfigSource']: object('Deprecated: the source of a node\'s dynamic configuration.', {
    configMap: ref(CORE + 'ConfigMapNodeConfigSource', 'A ConfigMap holding the configuration.'),
  }),
  [CORE + 'ConfigMapNodeConfigSource']: object(
    'Deprecated: a ConfigMap used as a node\'s configuration.',
    {
      kubeletConfigKey: str('The key holding the kubelet configuration.'),
      name: str('Name of the ConfigMap.'),
      namespace: str('Namespace of the ConfigMap.'),
      resourceVersion: str('resourceVersion of the ConfigMap.'),
      uid: str('UID of the ConfigMap.'),
    },
    { required: ['namespace', 'name', 'kubeletConfigKey'] },
  ),
  [CORE + 'NodeStatus']: object('The observed state of a node.', {
    addresses: mergeList(ref(CORE + 'NodeAddress'), 'type', 'Addresses of the node. The merge key is not unique; prefer replacing the whole list.'),
    allocatable: resourceList('Resources available for scheduling. Defaults to capacity.'),
    capacity: resourceList('Total resources of the node.'),
    conditions: mergeList(ref(CORE + 'NodeCondition'), 'type', 'Current conditions of the node.'),
    config: ref(CORE + 'NodeConfigStatus', 'Deprecated: state of dynamic kubelet configuration.'),
    daemonEndpoints: ref(CORE + 'NodeDaemonEndpoints', 'Endpoints of daemons on the node.'),
    features: ref(CORE + 'NodeFeatures', 'Features the node supports.'),
    images: atomic(ref(CORE + 'ContainerImage'), 'Container images on the node.'),
    nodeInfo: ref(CORE + 'NodeSystemInfo', 'Identifiers and versions of the node.'),
    phase: strEnum(['Pending', 'Running', 'Terminated'], 'Deprecated and never set.'),
    runtimeHandlers: atomic(ref(CORE + 'NodeRuntimeHandler'), 'The runtime handlers available.'),
    volumesAttached: atomic(ref(CORE + 'AttachedVolume'), 'Volumes attached to the node.'),
    volumesInUse: atomic(str(), 'Attachable volumes in use on the node.'),
  }),
  [CORE + 'NodeCondition']: object(
    'One aspect of a node\'s state.',
    {
      lastHeartbeatTime: time('When the condition was last reported.'),
      lastTransitionTime: time('When the status last changed.'),
      message: str('Human-readable details.'),
      reason: str('CamelCase reason for the last transition.'),
      status: str('True, False or Unknown.'),
      type: str('Ready, MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable, or another type.'),
    },
    { required: ['type', 'status'] },
  ),
  [CORE + 'NodeAddress']: object(
    'One address of a node.',
    {
      address: str('The address.'),
      type: str('Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.'),
    },
    { required: ['type', 'address'] },
  ),
  [CORE + 'NodeDaemonEndpoints']: object('Ports of daemons on a node.', {
    kubeletEndpoint: ref(CORE + 'DaemonEndpoint', 'Where the kubelet listens.'),
  }),
  [CORE + 'DaemonEndpoint']: object('One daemon endpoint.', { Port: int32('The port number.') }, { required: ['Port'] }),
  [CORE + 'NodeSystemInfo']: object(
    'Identifiers and versions a node reports.',
    {
      architecture: str('CPU architecture.'),
      bootID: str('Boot ID.'),
      containerRuntimeVersion: str('Container runtime and version, such as "containerd://1.7.0".'),
      kernelVersion: str('Kernel version (uname -r).'),
      kubeProxyVersion: str('Deprecated: kube-proxy version.'),
      kubeletVersion: str('Kubelet version.'),
      machineID: str('Machine ID (man 5 machine-id).'),
      operatingSystem: str('Operating system.'),
      osImage: str('OS image from /etc/os-release.'),
      swap: ref(CORE + 'NodeSwapStatus', 'Swap memory of the node.'),
      systemUUID: str('System UUID.'),
    },
    {
      required: [
        'machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion',
        'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture',
      ],
    },
  ),
  [CORE + 'NodeSwapStatus']: object('Swap memory of a node.', { capacity: int64('Total swap, in bytes.') }),
  [CORE + 'ContainerImage']: object('An image present on a node.', {
    names: atomic(str(), 'Names the image is known by.'),
    sizeBytes: int64('Size of the image in bytes.'),
  }),
  [CORE + 'AttachedVolume']: object(
    'A volume attached to a node.',
    { devicePath: str('Where the device is available.'), name: str('Name of the volume.') },
    { required: ['name', 'devicePath'] },
  ),
  [CORE + 'NodeConfigStatus']: object('Deprecated: state of dynamic kubelet configuration.', {
    active: ref(CORE + 'NodeConfigSource', 'The configuration in use.'),
    assigned: ref(CORE + 'NodeConfigSource', 'The configuration the node will try to use.'),
    error: str('Problems reconciling the configuration.'),
    lastKnownGood: ref(CORE + 'NodeConfigSource', 'The configuration to fall back to.'),
  }),
  [CORE + 'NodeRuntimeHandler']: object('A runtime handler available on a node.', {
    features: ref(CORE + 'NodeRuntimeHandlerFeatures', 'What the handler supports.'),
    name: str('Handler name; empty for the default handler.'),
  }),
  [CORE + 'NodeRuntimeHandlerFeatures']: object('Features of a runtime handler.', {
    recursiveReadOnlyMounts: bool('Whether recursive read-only mounts are supported.'),
    userNamespaces: bool('Whether user namespaces are supported.'),
  }),
  [CORE + 'NodeFeatures']: object('Features a node supports.', {
    supplementalGroupsPolicy: bool('Whether the node honours pods\' supplementalGroupsPolicy.'),
  }),
  [CORE + 'NodeList']: listOf(v1, 'Node', CORE + 'Node', 'The nodes.'),

  // Binding (pods/binding)
  [CORE + 'Binding']: topLevel(
    v1,
    'Binding',
    'Binds an object to another, such as a pod to a node (POST to pods/binding).',
    { target: ref(CORE + 'ObjectReference', 'The object to bind to.') },
    { required: ['target'] },
  ),
};
