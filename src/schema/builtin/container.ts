// core/v1 Container and EphemeralContainer with everything they hold: ports,
// environment, resources, mounts, probes, lifecycle hooks and security context.

import type { Definitions, Schema } from '../types.ts';
import {
  CORE, atomic, bool, int32, int64, intOrString, mapList, mergeList, object, quantity, ref, resourceList, str,
  strEnum,
} from './build.ts';

const protocols = ['SCTP', 'TCP', 'UDP'];

/** The fields Container and EphemeralContainer share (upstream keeps them in sync). */
function containerProperties(ephemeral: boolean): Record<string, Schema> {
  const notForEphemeral = (text: string) => (ephemeral ? 'Not allowed for ephemeral containers.' : text);
  return {
    args: atomic(str(), 'Arguments to the entrypoint; the image\'s CMD when not given. $(VAR) references are expanded from the environment; $$ escapes. Cannot be updated.'),
    command: atomic(str(), 'The entrypoint, not run in a shell; the image\'s ENTRYPOINT when not given. $(VAR) references are expanded; $$ escapes. Cannot be updated.'),
    env: mergeList(ref(CORE + 'EnvVar'), 'name', 'Environment variables to set in the container. Cannot be updated.'),
    envFrom: atomic(ref(CORE + 'EnvFromSource'), 'Sources of environment variables; a key in several sources takes the last one, and env wins over all. Cannot be updated.'),
    image: str(ephemeral ? 'Container image name.' : 'Container image name. Optional so that workload controllers can default or override it.'),
    imagePullPolicy: strEnum(['Always', 'IfNotPresent', 'Never'], 'When to pull the image. Defaults to Always for a :latest tag, IfNotPresent otherwise. Cannot be updated.'),
    lifecycle: ref(CORE + 'Lifecycle', notForEphemeral('Actions to run on container lifecycle events. Cannot be updated.')),
    livenessProbe: ref(CORE + 'Probe', notForEphemeral('Periodic probe of liveness; the container restarts when it fails. Cannot be updated.')),
    name: str(ephemeral
      ? 'Name of the ephemeral container, a DNS label unique among all containers of the pod.'
      : 'Name of the container, a DNS label unique among all containers of the pod. Cannot be updated.'),
    ports: mergeList(
      ref(CORE + 'ContainerPort'),
      'containerPort',
      ephemeral
        ? 'Not allowed for ephemeral containers.'
        : 'Ports exposed by the container, informational: a port listening on 0.0.0.0 is reachable whether listed or not. Cannot be updated.',
      { mapKeys: ['containerPort', 'protocol'] },
    ),
    readinessProbe: ref(CORE + 'Probe', notForEphemeral('Periodic probe of readiness; the pod leaves service endpoints while it fails. Cannot be updated.')),
    resizePolicy: atomic(ref(CORE + 'ContainerResizePolicy'), 'How each resource is resized in place.'),
    resources: ref(CORE + 'ResourceRequirements', ephemeral
      ? 'Not allowed for ephemeral containers: they use resources already allocated to the pod.'
      : 'Compute resources the container needs.'),
    restartPolicy: str(ephemeral
      ? 'Not allowed for ephemeral containers.'
      : 'Restart behaviour of this container; only "Always", and only for init containers, which makes them sidecars.'),
    securityContext: ref(CORE + 'SecurityContext', 'Security options; they override the pod\'s security context.'),
    startupProbe: ref(CORE + 'Probe', notForEphemeral('Probe that must succeed before the others start; the container restarts when it fails. Cannot be updated.')),
    stdin: bool('Allocate a buffer for stdin in the runtime; otherwise reads from stdin get EOF. Defaults to false.'),
    stdinOnce: bool('Close stdin after the first attach disconnects. Defaults to false.'),
    terminationMessagePath: str('File whose content becomes the termination message. Defaults to /dev/termination-log. Cannot be updated.'),
    terminationMessagePolicy: strEnum(['FallbackToLogsOnError', 'File'], 'Where the termination message comes from: the file, or the log tail when the file is empty after an error. Defaults to File. Cannot be updated.'),
    tty: bool('Allocate a TTY; requires stdin. Defaults to false.'),
    volumeDevices: mergeList(ref(CORE + 'VolumeDevice'), 'devicePath', 'Block devices used by the container.'),
    volumeMounts: mergeList(ref(CORE + 'VolumeMount'), 'mountPath', ephemeral
      ? 'Pod volumes to mount; subPath mounts are not allowed. Cannot be updated.'
      : 'Pod volumes to mount into the container\'s filesystem. Cannot be updated.'),
    workingDir: str('Working directory; the runtime\'s (or image\'s) default when not given. Cannot be updated.'),
  };
}

export const containerDefinitions: Definitions = {
  [CORE + 'Container']: object('An application container to run in a pod.', containerProperties(false), { required: ['name'] }),
  [CORE + 'EphemeralContainer']: object(
    'A temporary container added to a running pod, for debugging, through the pods/ephemeralcontainers subresource. It has no resource or scheduling guarantees and is never restarted.',
    {
      ...containerProperties(true),
      targetContainerName: str('A container of the pod whose namespaces (IPC, PID, ...) this container joins.'),
    },
    { required: ['name'] },
  ),
  [CORE + 'ContainerPort']: object(
    'A network port of a container.',
    {
      containerPort: int32('Port number on the pod\'s IP, 0 < x < 65536.'),
      hostIP: str('Host IP to bind the host port to.'),
      hostPort: int32('Port number on the host; must match containerPort with host networking. Rarely needed.'),
      name: str('An IANA service name unique within the pod; services may refer to the port by it.'),
      protocol: { ...strEnum(protocols, 'UDP, TCP or SCTP. Defaults to TCP.'), default: 'TCP' },
    },
    { required: ['containerPort'] },
  ),

  // Environment
  [CORE + 'EnvVar']: object(
    'An environment variable of a container.',
    {
      name: str('Name of the variable.'),
      value: str('The value; $(VAR) references to earlier variables are expanded, $$ escapes. Defaults to "".'),
      valueFrom: ref(CORE + 'EnvVarSource', 'Where the value comes from; not with a non-empty value.'),
    },
    { required: ['name'] },
  ),
  [CORE + 'EnvVarSource']: object('The source of an environment variable\'s value; exactly one field is set.', {
    configMapKeyRef: ref(CORE + 'ConfigMapKeySelector', 'A key of a ConfigMap.'),
    fieldRef: ref(CORE + 'ObjectFieldSelector', 'A field of the pod: metadata.name, metadata.namespace, metadata.labels[\'k\'], metadata.annotations[\'k\'], spec.nodeName, spec.serviceAccountName, status.hostIP(s), status.podIP(s).'),
    resourceFieldRef: ref(CORE + 'ResourceFieldSelector', 'A resource limit or request of the container.'),
    secretKeyRef: ref(CORE + 'SecretKeySelector', 'A key of a Secret in the pod\'s namespace.'),
  }),
  [CORE + 'ConfigMapKeySelector']: object(
    'Selects a key of a ConfigMap.',
    {
      key: str('The key.'),
      name: str('Name of the ConfigMap.'),
      optional: bool('Whether the ConfigMap or the key may be missing.'),
    },
    { required: ['key'], mapType: 'atomic' },
  ),
  [CORE + 'SecretKeySelector']: object(
    'Selects a key of a Secret.',
    {
      key: str('The key.'),
      name: str('Name of the Secret.'),
      optional: bool('Whether the Secret or the key may be missing.'),
    },
    { required: ['key'], mapType: 'atomic' },
  ),
  [CORE + 'ObjectFieldSelector']: object(
    'Selects a field of the pod.',
    {
      apiVersion: str('Version of the schema fieldPath refers to. Defaults to "v1".'),
      fieldPath: str('Path of the field.'),
    },
    { required: ['fieldPath'], mapType: 'atomic' },
  ),
  [CORE + 'ResourceFieldSelector']: object(
    'Selects a resource of a container and its output unit.',
    {
      containerName: str('The container; required for volumes, optional for environment variables.'),
      divisor: quantity('Unit of the output. Defaults to "1".'),
      resource: str('The resource: limits.cpu, limits.memory, requests.cpu, ...'),
    },
    { required: ['resource'], mapType: 'atomic' },
  ),
  [CORE + 'EnvFromSource']: object('A source of a set of environment variables.', {
    configMapRef: ref(CORE + 'ConfigMapEnvSource', 'The ConfigMap to take all keys from.'),
    prefix: str('Prefix prepended to every key.'),
    secretRef: ref(CORE + 'SecretEnvSource', 'The Secret to take all keys from.'),
  }),
  [CORE + 'ConfigMapEnvSource']: object('A ConfigMap whose data becomes environment variables.', {
    name: str('Name of the ConfigMap.'),
    optional: bool('Whether the ConfigMap may be missing.'),
  }),
  [CORE + 'SecretEnvSource']: object('A Secret whose data becomes environment variables.', {
    name: str('Name of the Secret.'),
    optional: bool('Whether the Secret may be missing.'),
  }),

  // Resources
  [CORE + 'ResourceRequirements']: object('Compute resource requirements.', {
    claims: mapList(ref(CORE + 'ResourceClaim'), ['name'], 'Entries of spec.resourceClaims this container uses (dynamic resource allocation). Immutable.'),
    limits: resourceList('The most of each resource allowed.'),
    requests: resourceList('The least of each resource required; defaults to limits when only those are given. Cannot exceed limits.'),
  }),
  [CORE + 'ResourceClaim']: object(
    'A reference to one entry of the pod\'s resourceClaims.',
    {
      name: str('Name of the entry in pod.spec.resourceClaims.'),
      request: str('One request of the claim to use; empty for the whole claim.'),
    },
    { required: ['name'] },
  ),
  [CORE + 'ContainerResizePolicy']: object(
    'How a resource of a container is resized.',
    {
      resourceName: str('The resource: cpu or memory.'),
      restartPolicy: str('NotRequired (resize in place when possible) or RestartContainer.'),
    },
    { required: ['resourceName', 'restartPolicy'] },
  ),

  // Mounts
  [CORE + 'VolumeMount']: object(
    'A volume mounted into a container.',
    {
      mountPath: str('Where in the container to mount; must not contain ":".'),
      mountPropagation: strEnum(['Bidirectional', 'HostToContainer', 'None'], 'How mounts propagate between host and container. Defaults to None.'),
      name: str('Name of the pod volume.'),
      readOnly: bool('Mount read-only. Defaults to false.'),
      recursiveReadOnly: str('Disabled, IfPossible or Enabled: whether readOnly applies to submounts too.'),
      subPath: str('Path inside the volume to mount instead of its root.'),
      subPathExpr: str('Like subPath with $(VAR) references expanded from the environment; not with subPath.'),
    },
    { required: ['name', 'mountPath'] },
  ),
  [CORE + 'VolumeDevice']: object(
    'A raw block device mapped into a container.',
    {
      devicePath: str('Path of the device inside the container.'),
      name: str('Name of a persistentVolumeClaim volume of the pod.'),
    },
    { required: ['name', 'devicePath'] },
  ),

  // Probes and lifecycle hooks
  [CORE + 'Probe']: object('A health check of a container.', {
    exec: ref(CORE + 'ExecAction', 'Run a command in the container.'),
    failureThreshold: int32('Consecutive failures after which the probe counts as failed. Defaults to 3; at least 1.'),
    grpc: ref(CORE + 'GRPCAction', 'Call a gRPC health check.'),
    httpGet: ref(CORE + 'HTTPGetAction', 'Send an HTTP GET.'),
    initialDelaySeconds: int32('Seconds after container start before the first probe.'),
    periodSeconds: int32('Seconds between probes. Defaults to 10; at least 1.'),
    successThreshold: int32('Consecutive successes after a failure for the probe to count as passing. Defaults to 1; must be 1 for liveness and startup.'),
    tcpSocket: ref(CORE + 'TCPSocketAction', 'Open a TCP connection.'),
    terminationGracePeriodSeconds: int64('Grace period for the pod when this probe fails; overrides the pod\'s.'),
    timeoutSeconds: int32('Seconds after which the probe times out. Defaults to 1; at least 1.'),
  }),
  [CORE + 'ExecAction']: object('Runs a command inside the container, not in a shell; exit status 0 is healthy.', {
    command: atomic(str(), 'The command line; its working directory is "/".'),
  }),
  [CORE + 'HTTPGetAction']: object(
    'An HTTP GET request.',
    {
      host: str('Host to connect to; defaults to the pod IP. Prefer a "Host" header.'),
      httpHeaders: atomic(ref(CORE + 'HTTPHeader'), 'Extra request headers; repeated headers are allowed.'),
      path: str('Path to request.'),
      port: intOrString('Port number (1-65535) or name of a container port.'),
      scheme: strEnum(['HTTP', 'HTTPS'], 'Scheme to use. Defaults to HTTP.'),
    },
    { required: ['port'] },
  ),
  [CORE + 'HTTPHeader']: object(
    'A header of an HTTP probe.',
    { name: str('Header name; case does not matter.'), value: str('Header value.') },
    { required: ['name', 'value'] },
  ),
  [CORE + 'TCPSocketAction']: object(
    'Opens a TCP connection.',
    {
      host: str('Host to connect to; defaults to the pod IP.'),
      port: intOrString('Port number (1-65535) or name of a container port.'),
    },
    { required: ['port'] },
  ),
  [CORE + 'GRPCAction']: object(
    'A gRPC health check (grpc.health.v1).',
    {
      port: int32('Port of the gRPC service, 1-65535.'),
      service: { ...str('Service name sent in the HealthCheckRequest; gRPC\'s default behaviour when empty.'), default: '' },
    },
    { required: ['port'] },
  ),
  [CORE + 'Lifecycle']: object('Actions run on container lifecycle events; the container waits for them.', {
    postStart: ref(CORE + 'LifecycleHandler', 'Runs right after the container is created; when it fails, the container is restarted per its policy.'),
    preStop: ref(CORE + 'LifecycleHandler', 'Runs before the container is terminated by an API request or management event, within the grace period.'),
    stopSignal: str('Signal sent to stop the container (SIGTERM by default); needs spec.os.name.'),
  }),
  [CORE + 'LifecycleHandler']: object('An action of a lifecycle hook; exactly one field is set.', {
    exec: ref(CORE + 'ExecAction', 'Run a command in the container.'),
    httpGet: ref(CORE + 'HTTPGetAction', 'Send an HTTP GET.'),
    sleep: ref(CORE + 'SleepAction', 'Sleep for a while.'),
    tcpSocket: ref(CORE + 'TCPSocketAction', 'Deprecated and not supported as a hook; kept for compatibility.'),
  }),
  [CORE + 'SleepAction']: object('Sleeps.', { seconds: int64('Seconds to sleep.') }, { required: ['seconds'] }),

  // Security
  [CORE + 'SecurityContext']: object('Security settings of a container; they override the pod\'s.', {
    allowPrivilegeEscalation: bool('Whether a process may gain more privileges than its parent (no_new_privs); always true when privileged or with CAP_SYS_ADMIN.'),
    appArmorProfile: ref(CORE + 'AppArmorProfile', 'AppArmor profile; overrides the pod\'s.'),
    capabilities: ref(CORE + 'Capabilities', 'Capabilities to add and drop. Defaults to the runtime\'s set.'),
    privileged: bool('Run privileged: essentially root on the host. Defaults to false.'),
    procMount: strEnum(['Default', 'Unmasked'], 'The kind of /proc mount. Defaults to Default.'),
    readOnlyRootFilesystem: bool('Mount the root filesystem read-only. Defaults to false.'),
    runAsGroup: int64('GID of the entrypoint process.'),
    runAsNonRoot: bool('Refuse to start when the image would run as UID 0.'),
    runAsUser: int64('UID of the entrypoint process; the image\'s user when not given.'),
    seLinuxOptions: ref(CORE + 'SELinuxOptions', 'SELinux context of the container.'),
    seccompProfile: ref(CORE + 'SeccompProfile', 'Seccomp profile; overrides the pod\'s.'),
    windowsOptions: ref(CORE + 'WindowsSecurityContextOptions', 'Windows-specific settings.'),
  }),
  [CORE + 'Capabilities']: object('POSIX capabilities to add and remove.', {
    add: atomic(str(), 'Capabilities to add.'),
    drop: atomic(str(), 'Capabilities to remove.'),
  }),
  [CORE + 'SELinuxOptions']: object('SELinux labels.', {
    level: str('SELinux level label.'),
    role: str('SELinux role label.'),
    type: str('SELinux type label.'),
    user: str('SELinux user label.'),
  }),
  [CORE + 'WindowsSecurityContextOptions']: object('Windows-specific security settings.', {
    gmsaCredentialSpec: str('Contents of the GMSA credential spec, filled in by the GMSA webhook.'),
    gmsaCredentialSpecName: str('Name of the GMSA credential spec to use.'),
    hostProcess: bool('Run as a host process container; needs host networking, and all containers must agree.'),
    runAsUserName: str('Windows user name of the entrypoint process.'),
  }),
  [CORE + 'SeccompProfile']: object(
    'A seccomp profile.',
    {
      localhostProfile: str('Profile file on the node, relative to the kubelet\'s seccomp directory; only for type Localhost.'),
      type: strEnum(['Localhost', 'RuntimeDefault', 'Unconfined'], 'Which profile to apply.'),
    },
    { required: ['type'] },
  ),
  [CORE + 'AppArmorProfile']: object(
    'An AppArmor profile.',
    {
      localhostProfile: str('Profile loaded on the node; only for type Localhost.'),
      type: strEnum(['Localhost', 'RuntimeDefault', 'Unconfined'], 'Which profile to apply.'),
    },
    { required: ['type'] },
  ),
};
