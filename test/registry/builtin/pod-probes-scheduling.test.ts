// A pod's probes, lifecycle hooks, affinity, topology spread constraints, volume sources,
// security contexts and the smaller lists of its spec, validated with upstream's messages
// (pkg/apis/core/validation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../src/api/index.ts';
import { builtinType, fields, storeCreate } from '../../helpers/store.ts';

const pods = builtinType('pods');
const deployments = builtinType('deployments');

function pod(spec: Record<string, unknown>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'nginx:1' }], ...spec } };
}

function withContainer(container: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject {
  return pod({ containers: [{ name: 'app', image: 'nginx:1', ...container }], ...spec });
}

const c = 'spec.containers[0]';

interface Case {
  name: string;
  pod: KubeObject;
  causes: string[];
}

const cases: Case[] = [
  { name: 'valid probes and hooks of every kind pass', causes: [], pod: withContainer({
    livenessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 5 },
    readinessProbe: { httpGet: { port: 'http', httpHeaders: [{ name: 'X-Probe', value: 'yes' }] } },
    startupProbe: { grpc: { port: 9000 } },
    ports: [{ name: 'http', containerPort: 8080 }],
    lifecycle: { postStart: { tcpSocket: { port: 8080 } }, preStop: { sleep: { seconds: 0 } } },
  }) },
  { name: 'a probe without a handler', pod: withContainer({ livenessProbe: { periodSeconds: 3 } }),
    causes: [`${c}.livenessProbe: Required value: must specify a handler type`] },
  { name: 'a probe with two handlers: the second is forbidden', pod: withContainer({ readinessProbe: { exec: { command: ['x'] }, tcpSocket: { port: 80 } } }),
    causes: [`${c}.readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type`] },
  { name: 'an exec without a command', pod: withContainer({ readinessProbe: { exec: {} } }),
    causes: [`${c}.readinessProbe.exec.command: Required value`] },
  { name: 'ports out of range and bad port names', pod: withContainer({
    livenessProbe: { httpGet: { port: 70000 } },
    readinessProbe: { tcpSocket: { port: 'Not_A_Name' } },
    startupProbe: { grpc: { port: 0 } },
  }), causes: [
    `${c}.readinessProbe.tcpSocket.port: Invalid value: "Not_A_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
    `${c}.livenessProbe.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive`,
    `${c}.startupProbe.grpc.port: Invalid value: 0: must be between 1 and 65535, inclusive`,
  ] },
  { name: 'a bad header name and scheme', pod: withContainer({ readinessProbe: { httpGet: { port: 80, scheme: 'FTP', httpHeaders: [{ name: 'Bad Header', value: 'v' }] } } }),
    causes: [
      `${c}.readinessProbe.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"`,
      `${c}.readinessProbe.httpGet.httpHeaders: Invalid value: "Bad Header": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')`,
    ] },
  { name: 'negative timings, a liveness success threshold other than 1, a readiness grace period', pod: withContainer({
    livenessProbe: { exec: { command: ['x'] }, periodSeconds: -1, successThreshold: 2 },
    readinessProbe: { exec: { command: ['x'] }, terminationGracePeriodSeconds: 5 },
  }), causes: [
    `${c}.livenessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0`,
    `${c}.livenessProbe.successThreshold: Invalid value: 2: must be 1`,
    `${c}.readinessProbe.terminationGracePeriodSeconds: Invalid value: 5: must not be set for readinessProbes`,
  ] },
  { name: 'a sleep hook longer than the grace period', pod: withContainer({ lifecycle: { preStop: { sleep: { seconds: 40 } } } }, { terminationGracePeriodSeconds: 30 }),
    causes: [`${c}.lifecycle.preStop.sleep.seconds: Invalid value: 40: must be non-negative and less than terminationGracePeriodSeconds (30)`] },
  { name: 'a grpc handler is not a hook', pod: withContainer({ lifecycle: { postStart: { grpc: { port: 80 } } } }),
    causes: [`${c}.lifecycle.postStart: Required value: must specify a handler type`] },
  { name: 'an init container may not have probes unless it restarts', pod: pod({
    initContainers: [
      { name: 'init', image: 'busybox', readinessProbe: { exec: { command: ['x'] } } },
      { name: 'sidecar', image: 'busybox', restartPolicy: 'Always', readinessProbe: { exec: {} } },
    ],
  }), causes: [
    'spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
    'spec.initContainers[1].readinessProbe.exec.command: Required value',
  ] },
  { name: 'valid affinity of every kind passes', causes: [], pod: pod({ affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }] },
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, preference: { matchExpressions: [{ key: 'disk', operator: 'Gt', values: ['1'] }] } }],
    },
    podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['pod-template-hash'] }] },
    podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'zone', namespaces: ['default'] } }] },
  } }) },
  { name: 'node affinity: no terms, a bad operator, a bad key, values with Exists, a bad weight', pod: pod({ affinity: { nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] },
    preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: { matchExpressions: [{ key: 'bad key', operator: 'Exists', values: ['x'] }, { key: 'k', operator: 'Near' }] } }],
  } } }), causes: [
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term',
    'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100',
    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].key: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[1].operator: Invalid value: "Near": not a valid selector operator',
  ] },
  { name: 'node affinity: required values must be label values; a field selector only on metadata.name', pod: pod({ affinity: { nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['no spaces'] }], matchFields: [{ key: 'spec.unschedulable', operator: 'In', values: ['a', 'b'] }] }] },
  } } }), causes: [
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"no spaces\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
    'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "spec.unschedulable": not a valid field selector key',
  ] },
  { name: 'pod affinity: an empty topology key, a selector without key, matchLabelKeys without a selector', pod: pod({ affinity: { podAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { topologyKey: '', labelSelector: { matchExpressions: [{ key: '', operator: 'In', values: ['a'] }] } },
      { topologyKey: 'zone', mismatchLabelKeys: ['a'] },
    ],
  } } }), causes: [
    'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].key: Invalid value: "": name part must be non-empty',
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty',
    'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must be non-empty',
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].mismatchLabelKeys: Forbidden: must not be specified when labelSelector is not set',
  ] },
  { name: 'topology spread: skew, key, action, a repeated pair, minDomains, policies', pod: pod({ topologySpreadConstraints: [
    { maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2, nodeTaintsPolicy: 'Sometimes' },
    { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway' },
    { maxSkew: 1, topologyKey: '', whenUnsatisfiable: 'Maybe', matchLabelKeys: ['app'], labelSelector: { matchLabels: { app: 'web' } } },
  ] }), causes: [
    'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
    'spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, ScheduleAnyway}"',
    'spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway',
    'spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: "Sometimes": supported values: "Honor", "Ignore"',
    'spec.topologySpreadConstraints[2].topologyKey: Required value: can not be empty',
    'spec.topologySpreadConstraints[2].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
    'spec.topologySpreadConstraints[2].matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector',
  ] },
  { name: 'host aliases, readiness and scheduling gates, the OS', pod: pod({
    hostAliases: [{ ip: '10.0.0.300', hostnames: ['Bad_Host'] }],
    readinessGates: [{ conditionType: 'not valid!' }],
    schedulingGates: [{ name: 'example.com/wait' }, { name: 'example.com/wait' }],
    os: { name: 'plan9' },
  }), causes: [
    'spec.hostAliases[0].ip: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    "spec.hostAliases[0].hostnames[0]: Invalid value: \"Bad_Host\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    "spec.readinessGates[0].conditionType: Invalid value: \"not valid!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    'spec.schedulingGates[1]: Duplicate value: "example.com/wait"',
    'spec.os: Unsupported value: "plan9": supported values: "linux", "windows"',
  ] },
  { name: 'valid volume sources pass', causes: [], pod: pod({ volumes: [
    { name: 'a', configMap: { name: 'c', items: [{ key: 'k', path: 'dir/file', mode: 0o644 }] } },
    { name: 'b', secret: { secretName: 's', items: [{ key: 'k', path: 'k' }] } },
    { name: 'c', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
    { name: 'd', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }, { configMap: { name: 'ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } },
    { name: 'e', nfs: { server: 'nfs.example.com', path: '/exports' } },
    { name: 'f', hostPath: { path: '/var/log', type: 'Directory' } },
  ] }) },
  { name: 'items: a key, a relative path without "..", a mode', pod: pod({ volumes: [
    { name: 'a', configMap: { name: 'c', items: [{ key: '', path: '/abs' }, { key: 'k', path: 'a/../b', mode: 0o1000 }, { key: 'k', path: '..hidden' }] } },
  ] }), causes: [
    'spec.volumes[0].configMap.items[0].key: Required value',
    'spec.volumes[0].configMap.items[0].path: Invalid value: "/abs": must be a relative path',
    'spec.volumes[0].configMap.items[1].path: Invalid value: "a/../b": must not contain \'..\'',
    'spec.volumes[0].configMap.items[1].mode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive',
    'spec.volumes[0].configMap.items[2].path: Invalid value: "..hidden": must not start with \'..\'',
  ] },
  { name: 'downward API files, projections, NFS, host path types', pod: pod({ volumes: [
    { name: 'a', downwardAPI: { items: [{ path: '' }] } },
    { name: 'b', projected: { sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 60 }, configMap: { name: 'x' } },
      // The token's path is not among those a later source may not repeat, as upstream.
      { secret: { name: 's', items: [{ key: 'k', path: 'token' }, { key: 'j', path: 'token' }] } },
    ] } },
    { name: 'c', nfs: { server: '', path: 'relative' } },
    { name: 'd', hostPath: { path: '/x', type: 'Pipe' } },
  ] }), causes: [
    'spec.volumes[0].downwardAPI.path: Required value',
    'spec.volumes[0].downwardAPI: Required value: one of fieldRef and resourceFieldRef is required',
    'spec.volumes[1].projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    'spec.volumes[1].projected.sources[0]: Forbidden: may not specify more than 1 volume type per source',
    'spec.volumes[1].projected: Invalid value: "s": conflicting duplicate paths',
    'spec.volumes[2].nfs.server: Required value',
    'spec.volumes[2].nfs.path: Invalid value: "relative": must be an absolute path',
    'spec.volumes[3].hostPath.type: Unsupported value: "Pipe": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
  ] },
  { name: 'valid security contexts pass', causes: [], pod: pod({
    containers: [{ name: 'app', image: 'nginx:1', securityContext: { runAsUser: 1000, runAsNonRoot: true, privileged: true, seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/app.json' }, appArmorProfile: { type: 'RuntimeDefault' } } }],
    securityContext: { fsGroup: 2000, supplementalGroups: [3000], fsGroupChangePolicy: 'OnRootMismatch', sysctls: [{ name: 'net.core.somaxconn', value: '1024' }, { name: 'kernel/shm_rmid_forced', value: '1' }], seccompProfile: { type: 'RuntimeDefault' } },
  }) },
  { name: 'pod security context: ids, sysctls, policies, profiles', pod: pod({
    hostNetwork: true,
    hostPID: true,
    shareProcessNamespace: true,
    securityContext: {
      runAsUser: -1,
      supplementalGroups: [1, 2147483648],
      sysctls: [{ name: 'net.ipv4.ip_forward', value: '1' }, { name: 'Bad.Name', value: '1' }, { name: 'kernel.msgmax', value: '1' }, { name: 'kernel.msgmax', value: '2' }, { name: '', value: '' }],
      fsGroupChangePolicy: 'Sometimes',
      seccompProfile: { type: 'Localhost' },
      appArmorProfile: { type: 'Localhost', localhostProfile: ' padded ' },
    },
  }), causes: [
    'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
    'spec.securityContext.supplementalGroups[1]: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive',
    'spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled',
    "spec.securityContext.sysctls[0].name: Invalid value: \"net.ipv4.ip_forward\": may not be specified when 'hostNetwork' is true",
    'spec.securityContext.sysctls[1].name: Invalid value: "Bad.Name": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$',
    'spec.securityContext.sysctls[3].name: Duplicate value: "kernel.msgmax"',
    'spec.securityContext.sysctls[4].name: Required value',
    'spec.securityContext.fsGroupChangePolicy: Unsupported value: "Sometimes": supported values: "Always", "OnRootMismatch"',
    'spec.securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost',
    'spec.securityContext.appArmorProfile.localhostProfile: Invalid value: " padded ": must not be padded with whitespace',
  ] },
  { name: 'container security context: ids, /proc, profiles', pod: withContainer({ securityContext: {
    runAsGroup: -5, procMount: 'Unmasked', seccompProfile: { type: '' }, appArmorProfile: { type: 'Custom' },
  } }), causes: [
    `${c}.securityContext.runAsGroup: Invalid value: -5: must be between 0 and 2147483647, inclusive`,
    `${c}.securityContext.procMount: Invalid value: "Unmasked": \`hostUsers\` must be false to use \`Unmasked\``,
    `${c}.securityContext.seccompProfile.type: Required value: type is required when seccompProfile is set`,
    `${c}.securityContext.appArmorProfile.type: Unsupported value: "Custom": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
  ] },
  { name: 'allowPrivilegeEscalation false with privileged or CAP_SYS_ADMIN: the context as the internal Go struct', pod: withContainer({ securityContext: {
    allowPrivilegeEscalation: false, privileged: true, capabilities: { add: ['NET_ADMIN', 'CAP_SYS_ADMIN'] }, runAsUser: 1000,
  } }), causes: [
    `${c}.securityContext: Invalid value: {"Capabilities":{"Add":["NET_ADMIN","CAP_SYS_ADMIN"],"Drop":null},"Privileged":true,"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":1000,"RunAsGroup":null,"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":false,"ProcMount":null,"SeccompProfile":null,"AppArmorProfile":null}: cannot set \`allowPrivilegeEscalation\` to false and \`privileged\` to true`,
    `${c}.securityContext: Invalid value: {"Capabilities":{"Add":["NET_ADMIN","CAP_SYS_ADMIN"],"Drop":null},"Privileged":true,"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":1000,"RunAsGroup":null,"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":false,"ProcMount":null,"SeccompProfile":null,"AppArmorProfile":null}: cannot set \`allowPrivilegeEscalation\` to false and \`capabilities.Add\` CAP_SYS_ADMIN`,
  ] },
  { name: 'allowPrivilegeEscalation true with privileged passes', causes: [], pod: withContainer({ securityContext: { allowPrivilegeEscalation: true, privileged: true } }) },
  { name: 'Windows options: credential spec names and user names', pod: pod({
    initContainers: [{ name: 'a', image: 'x', securityContext: { windowsOptions: { runAsUserName: 'DOM\\AIN\\user' } } }],
    containers: [
      { name: 'b', image: 'x', securityContext: { windowsOptions: { gmsaCredentialSpecName: 'Not_Valid', gmsaCredentialSpec: '', runAsUserName: 'bad\u0001' } } },
      { name: 'c', image: 'x', securityContext: { windowsOptions: { runAsUserName: '.bad.domain\\..' } } },
      { name: 'd', image: 'x', securityContext: { windowsOptions: { runAsUserName: 'CORP\\a@b', gmsaCredentialSpec: 'x'.repeat(65 * 1024) } } },
      { name: 'e', image: 'x', securityContext: { windowsOptions: { runAsUserName: `${'u'.repeat(105)}` } } },
      { name: 'f', image: 'x', securityContext: { windowsOptions: { runAsUserName: 'example.com\\svc', gmsaCredentialSpecName: 'webapp-spec' } } },
    ],
    securityContext: { windowsOptions: { runAsUserName: 'DOMAIN\\' } },
  }), causes: [
    'spec.initContainers[0].securityContext.windowsOptions.runAsUserName: Invalid value: "DOM\\\\AIN\\\\user": runAsUserName cannot contain more than one backslash',
    `${c}.securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    `${c}.securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string`,
    `${c}.securityContext.windowsOptions.runAsUserName: Invalid value: "bad\\x01": runAsUserName cannot contain control characters`,
    'spec.containers[1].securityContext.windowsOptions.runAsUserName: Invalid value: ".bad.domain\\\\..": runAsUserName\'s Domain doesn\'t match the NetBios nor the DNS format',
    'spec.containers[1].securityContext.windowsOptions.runAsUserName: Invalid value: ".bad.domain\\\\..": runAsUserName\'s User cannot contain only periods or spaces',
    `spec.containers[2].securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: "${'x'.repeat(65 * 1024)}": gmsaCredentialSpec size must be under 64 KiB`,
    'spec.containers[2].securityContext.windowsOptions.runAsUserName: Invalid value: "CORP\\\\a@b": runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]',
    `spec.containers[3].securityContext.windowsOptions.runAsUserName: Invalid value: "${'u'.repeat(105)}": runAsUserName's User length must not be longer than 104 characters`,
    'spec.securityContext.windowsOptions.runAsUserName: Invalid value: "DOMAIN\\\\": runAsUserName\'s User cannot be empty',
  ] },
  { name: 'pod security context: supplemental groups and SELinux change policies', pod: pod({ securityContext: { supplementalGroupsPolicy: 'Loose', seLinuxChangePolicy: 'Sometimes' } }), causes: [
    'spec.securityContext.supplementalGroupsPolicy: Unsupported value: "Loose": supported values: "Merge", "Strict"',
    'spec.securityContext.seLinuxChangePolicy: Unsupported value: "Sometimes": supported values: "MountOption", "Recursive"',
  ] },
  { name: 'host process containers: all or none, on the host network, the same as the pod', pod: pod({
    securityContext: { windowsOptions: { hostProcess: true } },
    initContainers: [{ name: 'init', image: 'x', securityContext: { windowsOptions: { hostProcess: false } } }],
    containers: [{ name: 'app', image: 'x' }, { name: 'side', image: 'x', securityContext: { windowsOptions: { hostProcess: true } } }],
  }), causes: [
    'spec.initContainers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true',
    'spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers',
    'spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers',
  ] },
  { name: 'a host process pod on the host network passes', causes: [], pod: pod({ hostNetwork: true, os: { name: 'windows' }, securityContext: { windowsOptions: { hostProcess: true, runAsUserName: 'NT AUTHORITY\\SYSTEM' } } }) },
  { name: 'hostUsers false shares none of the host namespaces', pod: pod({ hostUsers: false, hostNetwork: true, hostPID: true, hostIPC: true }), causes: [
    'spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false',
    'spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false',
    'spec.HostIPC: Forbidden: when `pod.Spec.HostUsers` is false',
  ] },
  { name: 'a linux pod may not set Windows options', pod: pod({
    os: { name: 'linux' }, securityContext: { windowsOptions: {} },
    containers: [{ name: 'app', image: 'x', securityContext: { windowsOptions: { runAsUserName: 'svc' } } }],
  }), causes: [
    'spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
    `${c}.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod`,
  ] },
  { name: 'a windows pod may not set what only Linux has', pod: pod({
    os: { name: 'windows' }, hostPID: true, hostIPC: true, shareProcessNamespace: false,
    securityContext: { runAsUser: 1, runAsGroup: 1, fsGroup: 1, supplementalGroups: [1], sysctls: [{ name: 'vm.swappiness', value: '1' }], seccompProfile: { type: 'RuntimeDefault' }, seLinuxOptions: { level: 's0' }, appArmorProfile: { type: 'RuntimeDefault' }, fsGroupChangePolicy: 'Always', supplementalGroupsPolicy: 'Merge', seLinuxChangePolicy: 'Recursive' },
    containers: [{ name: 'app', image: 'x', securityContext: { capabilities: {}, readOnlyRootFilesystem: true, privileged: false, allowPrivilegeEscalation: false, procMount: 'Default', runAsUser: 1, runAsGroup: 1, seccompProfile: { type: 'RuntimeDefault' }, seLinuxOptions: {}, appArmorProfile: { type: 'RuntimeDefault' }, windowsOptions: { runAsUserName: 'svc' } } }],
  }), causes: [
    ...['appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'fsGroup', 'fsGroupChangePolicy', 'sysctls', 'runAsUser', 'runAsGroup', 'supplementalGroups', 'supplementalGroupsPolicy', 'seLinuxChangePolicy']
      .map((f) => `spec.securityContext.${f}: Forbidden: cannot be set for a windows pod`),
    ...['hostPID', 'hostIPC', 'shareProcessNamespace'].map((f) => `spec.${f}: Forbidden: cannot be set for a windows pod`),
    ...['appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup']
      .map((f) => `${c}.securityContext.${f}: Forbidden: cannot be set for a windows pod`),
  ] },
  { name: 'DNS config: what dnsPolicy None needs', pod: pod({ dnsPolicy: 'None', dnsConfig: { searches: ['example.com'] } }),
    causes: ['spec.dnsConfig.nameservers: Required value: must provide at least one DNS nameserver when `dnsPolicy` is None'] },
  { name: 'DNS config: nameservers and options', pod: pod({ dnsConfig: { nameservers: ['1.1.1.1', '8.8.8.8', '9.9.9.9', 'dns.example.com'], options: [{ value: '2' }] } }), causes: [
    'spec.dnsConfig.nameservers: Invalid value: ["1.1.1.1","8.8.8.8","9.9.9.9","dns.example.com"]: must not have more than 3 nameservers',
    'spec.dnsConfig.nameservers[3]: Invalid value: "dns.example.com": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'spec.dnsConfig.options[0]: Required value: must not be empty',
  ] },
];

for (const { name, pod: input, causes } of cases) {
  test(`pod spec: ${name}`, async () => {
    const result = await storeCreate(pods, input);
    assert.deepEqual(fields(result.causes).sort(), [...causes].sort());
  });
}

test('a Deployment\'s pod template is validated the same way', async () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1', livenessProbe: { tcpSocket: { port: 0 } } }], affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'Not Valid' }] } } } };
  const result = await storeCreate(deployments, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template } } as KubeObject);
  assert.deepEqual(fields(result.causes).sort(), [
    'spec.template.spec.containers[0].livenessProbe.tcpSocket.port: Invalid value: 0: must be between 1 and 65535, inclusive',
    "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: \"Not Valid\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ].sort());
});
