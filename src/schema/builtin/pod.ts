// core/v1 Pod: its spec (scheduling, DNS, security, resource claims), its status
// (conditions, container statuses) and PodTemplateSpec for workload controllers.

import type { Definitions } from '../types.ts';
import {
  CORE, atomic, bool, int32, int64, labelSelector, listOf, mapList, mergeList, object, objectMeta, ref,
  resourceList, str, strEnum, stringMap, time, topLevel,
} from './build.ts';

const v1 = { group: '', version: 'v1' };
const taintEffects = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'];
const nodeInclusion = ['Honor', 'Ignore'];

export const podDefinitions: Definitions = {
  [CORE + 'Pod']: topLevel(v1, 'Pod', 'A group of containers scheduled together onto a node, sharing network and volumes.', {
    spec: ref(CORE + 'PodSpec', 'The desired behaviour of the pod.'),
    status: ref(CORE + 'PodStatus', 'The most recently observed state of the pod; may lag behind. Read-only.'),
  }),
  [CORE + 'PodList']: listOf(v1, 'Pod', CORE + 'Pod', 'The pods.'),
  [CORE + 'PodTemplateSpec']: object('The pods a controller creates: their metadata and spec.', {
    metadata: objectMeta(),
    spec: ref(CORE + 'PodSpec', 'The desired behaviour of the pods.'),
  }),

  [CORE + 'PodSpec']: object(
    'The desired behaviour of a pod.',
    {
      activeDeadlineSeconds: int64('Seconds the pod may be active, counted from its start time, before it is failed and its containers killed.'),
      affinity: ref(CORE + 'Affinity', 'Scheduling constraints.'),
      automountServiceAccountToken: bool('Whether a service account token is mounted automatically.'),
      containers: mergeList(ref(CORE + 'Container'), 'name', 'The containers of the pod; at least one. Cannot be added or removed.'),
      dnsConfig: ref(CORE + 'PodDNSConfig', 'DNS parameters merged into those DNSPolicy generates.'),
      dnsPolicy: strEnum(['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'], 'How the pod\'s DNS is configured. Defaults to ClusterFirst.'),
      enableServiceLinks: bool('Whether services are injected as environment variables, Docker-links style. Defaults to true.'),
      ephemeralContainers: mergeList(ref(CORE + 'EphemeralContainer'), 'name', 'Ephemeral containers run in the pod, added through the ephemeralcontainers subresource only.'),
      hostAliases: mergeList(ref(CORE + 'HostAlias'), 'ip', 'Entries added to the pod\'s hosts file; not with host networking.'),
      hostIPC: bool('Use the host\'s IPC namespace. Defaults to false.'),
      hostNetwork: bool('Use the host\'s network namespace; the ports used must be listed. Defaults to false.'),
      hostPID: bool('Use the host\'s PID namespace. Defaults to false.'),
      hostUsers: bool('Use the host\'s user namespace; false creates a new one for the pod. Defaults to true.'),
      hostname: str('Hostname of the pod; system-defined when not given.'),
      imagePullSecrets: mergeList(ref(CORE + 'LocalObjectReference'), 'name', 'Secrets in the pod\'s namespace for pulling images.'),
      initContainers: mergeList(ref(CORE + 'Container'), 'name', 'Containers run in order before the others start; a failure fails the pod per its restartPolicy. Those with restartPolicy Always keep running as sidecars.'),
      nodeName: str('The node the pod runs on; set by the scheduler, or by a client to bypass it.'),
      nodeSelector: stringMap('Labels a node must have for the pod to be scheduled there.', 'atomic'),
      os: ref(CORE + 'PodOS', 'The OS of the containers; restricts which fields may be set.'),
      overhead: resourceList('Resources used by the pod sandbox, set at admission from the RuntimeClass.'),
      preemptionPolicy: strEnum(['Never', 'PreemptLowerPriority'], 'Whether the pod may preempt lower-priority pods. Defaults to PreemptLowerPriority.'),
      priority: int32('Priority of the pod, set at admission from priorityClassName.'),
      priorityClassName: str('Name of the PriorityClass; "system-node-critical" and "system-cluster-critical" are the highest.'),
      readinessGates: atomic(ref(CORE + 'PodReadinessGate'), 'Extra conditions that must be True for the pod to be ready.'),
      resourceClaims: mergeList(ref(CORE + 'PodResourceClaim'), 'name', 'ResourceClaims allocated and reserved before the pod starts (dynamic resource allocation). Immutable.', { strategy: 'merge,retainKeys' }),
      resources: ref(CORE + 'ResourceRequirements', 'Resources of the whole pod, shared by its containers.'),
      restartPolicy: strEnum(['Always', 'Never', 'OnFailure'], 'Restart policy for the containers. Defaults to Always.'),
      runtimeClassName: str('The RuntimeClass to run the pod with.'),
      schedulerName: str('The scheduler to dispatch the pod; the default scheduler when not given.'),
      schedulingGates: mergeList(ref(CORE + 'PodSchedulingGate'), 'name', 'While any gate remains, the pod is not scheduled. Set at creation; may only be removed.'),
      securityContext: ref(CORE + 'PodSecurityContext', 'Pod-level security settings and container defaults.'),
      serviceAccount: str('Deprecated alias of serviceAccountName.'),
      serviceAccountName: str('The ServiceAccount the pod runs as.'),
      setHostnameAsFQDN: bool('Set the pod\'s FQDN as its hostname. Defaults to false.'),
      shareProcessNamespace: bool('Share one PID namespace among the containers. Defaults to false.'),
      subdomain: str('Makes the pod\'s FQDN <hostname>.<subdomain>.<namespace>.svc.<cluster domain>.'),
      terminationGracePeriodSeconds: int64('Seconds given to the containers to stop gracefully; 0 kills at once. Defaults to 30.'),
      tolerations: atomic(ref(CORE + 'Toleration'), 'Taints the pod tolerates.'),
      topologySpreadConstraints: mergeList(ref(CORE + 'TopologySpreadConstraint'), 'topologyKey', 'How the pods of a group spread across topology domains; all are ANDed.', { mapKeys: ['topologyKey', 'whenUnsatisfiable'] }),
      volumes: mergeList(ref(CORE + 'Volume'), 'name', 'Volumes the containers may mount.', { strategy: 'merge,retainKeys' }),
    },
    { required: ['containers'] },
  ),

  // Scheduling
  [CORE + 'Affinity']: object('Affinity scheduling rules.', {
    nodeAffinity: ref(CORE + 'NodeAffinity', 'Which nodes the pod prefers or requires.'),
    podAffinity: ref(CORE + 'PodAffinity', 'Pods to be co-located with.'),
    podAntiAffinity: ref(CORE + 'PodAntiAffinity', 'Pods to keep away from.'),
  }),
  [CORE + 'NodeAffinity']: object('Node affinity rules.', {
    preferredDuringSchedulingIgnoredDuringExecution: atomic(ref(CORE + 'PreferredSchedulingTerm'), 'Preferences weighed by the scheduler; the node with the highest sum of matching weights wins.'),
    requiredDuringSchedulingIgnoredDuringExecution: ref(CORE + 'NodeSelector', 'Requirements a node must meet at scheduling time.'),
  }),
  [CORE + 'NodeSelector']: object(
    'A union of node selector terms.',
    { nodeSelectorTerms: atomic(ref(CORE + 'NodeSelectorTerm'), 'The terms, ORed.') },
    { required: ['nodeSelectorTerms'], mapType: 'atomic' },
  ),
  [CORE + 'NodeSelectorTerm']: object(
    'Requirements on a node, ANDed; a null or empty term matches no node.',
    {
      matchExpressions: atomic(ref(CORE + 'NodeSelectorRequirement'), 'Requirements on node labels.'),
      matchFields: atomic(ref(CORE + 'NodeSelectorRequirement'), 'Requirements on node fields.'),
    },
    { mapType: 'atomic' },
  ),
  [CORE + 'NodeSelectorRequirement']: object(
    'A requirement on a node label or field.',
    {
      key: str('The label key or field.'),
      operator: strEnum(['DoesNotExist', 'Exists', 'Gt', 'In', 'Lt', 'NotIn'], 'How the key relates to the values.'),
      values: atomic(str(), 'Values: non-empty for In and NotIn, empty for Exists and DoesNotExist, one integer for Gt and Lt.'),
    },
    { required: ['key', 'operator'] },
  ),
  [CORE + 'PreferredSchedulingTerm']: object(
    'A weighted node preference.',
    {
      preference: ref(CORE + 'NodeSelectorTerm', 'The term.'),
      weight: int32('Weight of the term, 1-100.'),
    },
    { required: ['weight', 'preference'] },
  ),
  [CORE + 'PodAffinity']: object('Pod affinity rules.', {
    preferredDuringSchedulingIgnoredDuringExecution: atomic(ref(CORE + 'WeightedPodAffinityTerm'), 'Preferences weighed by the scheduler.'),
    requiredDuringSchedulingIgnoredDuringExecution: atomic(ref(CORE + 'PodAffinityTerm'), 'Terms that must all hold at scheduling time.'),
  }),
  [CORE + 'PodAntiAffinity']: object('Pod anti-affinity rules.', {
    preferredDuringSchedulingIgnoredDuringExecution: atomic(ref(CORE + 'WeightedPodAffinityTerm'), 'Preferences weighed by the scheduler.'),
    requiredDuringSchedulingIgnoredDuringExecution: atomic(ref(CORE + 'PodAffinityTerm'), 'Terms that must all hold at scheduling time.'),
  }),
  [CORE + 'PodAffinityTerm']: object(
    'The pods (by labels, in some namespaces) this pod should, or should not, share a topology domain with.',
    {
      labelSelector: labelSelector('The pods; null matches none.'),
      matchLabelKeys: atomic(str(), 'Label keys whose values on the incoming pod are added to labelSelector as "key in (value)".'),
      mismatchLabelKeys: atomic(str(), 'Label keys whose values on the incoming pod are added to labelSelector as "key notin (value)".'),
      namespaceSelector: labelSelector('Namespaces the term applies to, in addition to namespaces; empty matches all.'),
      namespaces: atomic(str(), 'Namespaces the term applies to; with a null namespaceSelector, empty means the pod\'s own.'),
      topologyKey: str('The node label whose values define a topology domain. Must not be empty.'),
    },
    { required: ['topologyKey'] },
  ),
  [CORE + 'WeightedPodAffinityTerm']: object(
    'A weighted pod affinity term.',
    {
      podAffinityTerm: ref(CORE + 'PodAffinityTerm', 'The term.'),
      weight: int32('Weight of the term, 1-100.'),
    },
    { required: ['weight', 'podAffinityTerm'] },
  ),
  [CORE + 'Toleration']: object('Lets a pod tolerate taints matching <key, value, effect> with an operator.', {
    effect: strEnum(taintEffects, 'The taint effect to match; empty matches all effects.'),
    key: str('The taint key; empty, with operator Exists, matches every taint.'),
    operator: strEnum(['Equal', 'Exists'], 'How key and value are compared. Defaults to Equal.'),
    tolerationSeconds: int64('For NoExecute: how long the pod stays bound after the taint appears; forever when not given.'),
    value: str('The taint value to match; empty with Exists.'),
  }),
  [CORE + 'TopologySpreadConstraint']: object(
    'How matching pods spread across the domains of a topology.',
    {
      labelSelector: labelSelector('The pods counted in each domain.'),
      matchLabelKeys: atomic(str(), 'Label keys whose values on the incoming pod are ANDed with labelSelector.'),
      maxSkew: int32('The largest allowed difference between a domain\'s count and the global minimum. At least 1.'),
      minDomains: int32('Fewer eligible domains than this makes the global minimum 0. Needs whenUnsatisfiable DoNotSchedule.'),
      nodeAffinityPolicy: strEnum(nodeInclusion, 'Whether nodeAffinity and nodeSelector limit the nodes counted. Defaults to Honor.'),
      nodeTaintsPolicy: strEnum(nodeInclusion, 'Whether taints the pod does not tolerate exclude nodes. Defaults to Ignore.'),
      topologyKey: str('The node label defining the domains.'),
      whenUnsatisfiable: strEnum(['DoNotSchedule', 'ScheduleAnyway'], 'What to do when the constraint cannot be met.'),
    },
    { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] },
  ),
  [CORE + 'PodReadinessGate']: object(
    'A pod condition that must be True for readiness.',
    { conditionType: str('The condition type.') },
    { required: ['conditionType'] },
  ),
  [CORE + 'PodSchedulingGate']: object(
    'A gate that holds the pod back from scheduling.',
    { name: str('Name of the gate, unique in the pod.') },
    { required: ['name'] },
  ),
  [CORE + 'PodResourceClaim']: object(
    'A ResourceClaim the pod needs, under a name its containers use.',
    {
      name: str('Name of the claim within the pod; a DNS label.'),
      resourceClaimName: str('An existing ResourceClaim in the pod\'s namespace.'),
      resourceClaimTemplateName: str('A ResourceClaimTemplate from which a claim is created for the pod and deleted with it.'),
    },
    { required: ['name'] },
  ),
  [CORE + 'PodOS']: object('The OS of a pod.', { name: str('"linux" or "windows"; others may come.') }, { required: ['name'] }),

  // DNS and hosts
  [CORE + 'HostAlias']: object(
    'An entry of the pod\'s hosts file.',
    { hostnames: atomic(str(), 'Hostnames of the IP.'), ip: str('The IP address.') },
    { required: ['ip'] },
  ),
  [CORE + 'PodDNSConfig']: object('DNS parameters of a pod, added to those of its DNS policy.', {
    nameservers: atomic(str(), 'Name server IPs; duplicates are removed.'),
    options: atomic(ref(CORE + 'PodDNSConfigOption'), 'Resolver options; they override the policy\'s.'),
    searches: atomic(str(), 'Search domains; duplicates are removed.'),
  }),
  [CORE + 'PodDNSConfigOption']: object('A resolver option.', {
    name: str('Name of the option. Required.'),
    value: str('Value of the option.'),
  }),

  // Security
  [CORE + 'PodSecurityContext']: object('Pod-level security settings; container settings take precedence.', {
    appArmorProfile: ref(CORE + 'AppArmorProfile', 'AppArmor profile of the containers.'),
    fsGroup: int64('A supplemental group owning supported volumes (setgid, group read/write).'),
    fsGroupChangePolicy: strEnum(['Always', 'OnRootMismatch'], 'When volume ownership is changed to fsGroup. Defaults to Always.'),
    runAsGroup: int64('GID of the containers\' entrypoint processes.'),
    runAsNonRoot: bool('Refuse to start containers whose image would run as UID 0.'),
    runAsUser: int64('UID of the containers\' entrypoint processes.'),
    seLinuxChangePolicy: str('How SELinux labels are applied to volumes: "MountOption" or "Recursive".'),
    seLinuxOptions: ref(CORE + 'SELinuxOptions', 'SELinux context of the containers.'),
    seccompProfile: ref(CORE + 'SeccompProfile', 'Seccomp profile of the containers.'),
    supplementalGroups: atomic(int64(), 'Groups added to the first process of every container.'),
    supplementalGroupsPolicy: strEnum(['Merge', 'Strict'], 'Whether the image\'s groups are merged with supplementalGroups. Defaults to Merge.'),
    sysctls: atomic(ref(CORE + 'Sysctl'), 'Namespaced sysctls for the pod.'),
    windowsOptions: ref(CORE + 'WindowsSecurityContextOptions', 'Windows-specific settings of the containers.'),
  }),
  [CORE + 'Sysctl']: object(
    'A kernel parameter.',
    { name: str('Name of the parameter.'), value: str('Value of the parameter.') },
    { required: ['name', 'value'] },
  ),

  // Status
  [CORE + 'PodStatus']: object('The observed state of a pod; it may trail the actual state.', {
    conditions: mergeList(ref(CORE + 'PodCondition'), 'type', 'Current conditions of the pod.'),
    containerStatuses: atomic(ref(CORE + 'ContainerStatus'), 'One entry per container of the spec.'),
    ephemeralContainerStatuses: atomic(ref(CORE + 'ContainerStatus'), 'Statuses of the ephemeral containers that have run.'),
    hostIP: str('IP of the node the pod is on; empty until it starts.'),
    hostIPs: mergeList(ref(CORE + 'HostIP'), 'ip', 'IPs of the node; the first equals hostIP.', { listType: 'atomic' }),
    initContainerStatuses: atomic(ref(CORE + 'ContainerStatus'), 'One entry per init container of the spec.'),
    message: str('Human-readable details about why the pod is in this state.'),
    nominatedNodeName: str('The node the pod may go to once preempted pods are gone; not a guarantee.'),
    observedGeneration: int64('The pod generation this status was computed from.'),
    phase: strEnum(['Failed', 'Pending', 'Running', 'Succeeded', 'Unknown'], 'A high-level summary of where the pod is in its lifecycle.'),
    podIP: str('IP allocated to the pod; empty until allocated.'),
    podIPs: mergeList(ref(CORE + 'PodIP'), 'ip', 'IPs of the pod, at most one per family; the first equals podIP.'),
    qosClass: strEnum(['BestEffort', 'Burstable', 'Guaranteed'], 'The quality of service class derived from resource requirements.'),
    reason: str('CamelCase reason for the pod\'s state, such as "Evicted".'),
    resize: str('Deprecated: state of a requested resize; see the PodResizePending and PodResizeInProgress conditions.'),
    resourceClaimStatuses: mergeList(ref(CORE + 'PodResourceClaimStatus'), 'name', 'Names of the ResourceClaims generated for the pod.', { strategy: 'merge,retainKeys' }),
    startTime: time('When the kubelet acknowledged the pod, before images were pulled.'),
  }),
  [CORE + 'PodCondition']: object(
    'One aspect of a pod\'s state.',
    {
      lastProbeTime: time('When the condition was last probed.'),
      lastTransitionTime: time('When the status last changed.'),
      message: str('Human-readable details.'),
      observedGeneration: int64('The pod generation the condition was computed from.'),
      reason: str('CamelCase reason for the last transition.'),
      status: str('True, False or Unknown.'),
      type: str('PodScheduled, Initialized, ContainersReady, Ready, or another type.'),
    },
    { required: ['type', 'status'] },
  ),
  [CORE + 'PodIP']: object('An IP of a pod.', { ip: str('The IP address.') }, { required: ['ip'] }),
  [CORE + 'HostIP']: object('An IP of the pod\'s node.', { ip: str('The IP address.') }, { required: ['ip'] }),
  [CORE + 'PodResourceClaimStatus']: object(
    'The ResourceClaim generated for one entry of spec.resourceClaims.',
    {
      name: str('The entry in spec.resourceClaims.'),
      resourceClaimName: str('Name of the generated claim; empty when none was needed.'),
    },
    { required: ['name'] },
  ),
  [CORE + 'ContainerStatus']: object(
    'The observed state of a container.',
    {
      allocatedResources: resourceList('Resources the node allocated to the container.'),
      allocatedResourcesStatus: mergeList(ref(CORE + 'ResourceStatus'), 'name', 'Health of the resources allocated to the container.'),
      containerID: str('ID of the container: <runtime>://<id>.'),
      image: str('The image the container runs, as resolved by the runtime.'),
      imageID: str('ID of the image.'),
      lastState: ref(CORE + 'ContainerState', 'The previous termination, to debug restarts.'),
      name: str('Name of the container.'),
      ready: bool('Whether the container passes its readiness probe.'),
      resources: ref(CORE + 'ResourceRequirements', 'Resources in effect for the running container.'),
      restartCount: int32('How many times the container has restarted.'),
      started: bool('Whether postStart has run and the startup probe passed.'),
      state: ref(CORE + 'ContainerState', 'The current state.'),
      stopSignal: str('The signal that stops the container.'),
      user: ref(CORE + 'ContainerUser', 'The identity the first process runs as.'),
      volumeMounts: mergeList(ref(CORE + 'VolumeMountStatus'), 'mountPath', 'The volume mounts in effect.'),
    },
    { required: ['name', 'ready', 'restartCount', 'image', 'imageID'] },
  ),
  [CORE + 'ContainerState']: object('The state of a container; at most one field is set, waiting by default.', {
    running: ref(CORE + 'ContainerStateRunning', 'A running container.'),
    terminated: ref(CORE + 'ContainerStateTerminated', 'A terminated container.'),
    waiting: ref(CORE + 'ContainerStateWaiting', 'A waiting container.'),
  }),
  [CORE + 'ContainerStateWaiting']: object('A container that is not running yet.', {
    message: str('Why it is not running yet.'),
    reason: str('Brief reason, such as "ContainerCreating" or "CrashLoopBackOff".'),
  }),
  [CORE + 'ContainerStateRunning']: object('A running container.', {
    startedAt: time('When the container last started.'),
  }),
  [CORE + 'ContainerStateTerminated']: object(
    'A terminated container.',
    {
      containerID: str('ID of the container: <runtime>://<id>.'),
      exitCode: int32('Exit status.'),
      finishedAt: time('When it terminated.'),
      message: str('Details of the termination.'),
      reason: str('Brief reason, such as "Completed" or "OOMKilled".'),
      signal: int32('Signal that terminated it.'),
      startedAt: time('When that execution started.'),
    },
    { required: ['exitCode'] },
  ),
  [CORE + 'VolumeMountStatus']: object(
    'A volume mount in effect.',
    {
      mountPath: str('Where the volume is mounted.'),
      name: str('Name of the volume.'),
      readOnly: bool('Whether it is read-only.'),
      recursiveReadOnly: str('Disabled, Enabled or IfPossible, as applied.'),
    },
    { required: ['name', 'mountPath'] },
  ),
  [CORE + 'ContainerUser']: object('The identity of a container\'s first process.', {
    linux: ref(CORE + 'LinuxContainerUser', 'The Linux identity.'),
  }),
  [CORE + 'LinuxContainerUser']: object(
    'A Linux identity.',
    {
      gid: int64('Primary GID.'),
      supplementalGroups: atomic(int64(), 'Supplemental GIDs.'),
      uid: int64('UID.'),
    },
    { required: ['uid', 'gid'] },
  ),
  [CORE + 'ResourceStatus']: object(
    'Health of one allocated resource.',
    {
      name: str('Name of the resource, as in the container\'s resources.'),
      resources: mapList(ref(CORE + 'ResourceHealth'), ['resourceID'], 'Health of each device backing the resource.'),
    },
    { required: ['name'] },
  ),
  [CORE + 'ResourceHealth']: object(
    'Health of one device.',
    {
      health: str('Healthy, Unhealthy or Unknown.'),
      resourceID: str('ID of the device.'),
    },
    { required: ['resourceID'] },
  ),
};
