// The Baseline checks of the Pod Security Standards, with their per-version revisions and
// upstream's exact reasons and details (policy/check_*.go of k8s.io/pod-security-admission
// as in release-1.36).
import { appendAll, goQuote } from '../../api/field-errors.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import {
  containersOf, containersPhrase, inUserNamespace, joinQuote, nameOf, objectAt, objects, pluralize, securityContextOf, sortedSet, stringAt,
  type Check, type CheckPod, type Violation,
} from './check.ts';

/** Pod-level and container-level settings that name their setters: "pod and containers \"a\", \"b\"". */
function setters(podIsBad: boolean, badContainers: readonly string[]): string[] {
  const out = podIsBad ? ['pod'] : [];
  if (badContainers.length > 0) out.push(containersPhrase(badContainers));
  return out;
}

// AppArmor: the profile fields, and the deprecated beta annotations, which still count.
const appArmorAnnotationPrefix = 'container.apparmor.security.beta.kubernetes.io/';
const allowedAppArmorTypes = new Set(['RuntimeDefault', 'Localhost']);

function allowedAppArmorAnnotation(value: string): boolean {
  return value === '' || value === 'runtime/default' || value.startsWith('localhost/');
}

const appArmorProfile: CheckPod = (metadata, spec) => {
  const badValues = new Set<string>();
  const badType = (profile: JsonObject | undefined): boolean => {
    if (profile === undefined || allowedAppArmorTypes.has(stringAt(profile, 'type'))) return false;
    badValues.add(stringAt(profile, 'type'));
    return true;
  };
  const podIsBad = badType(objectAt(spec, 'securityContext', 'appArmorProfile'));
  const badContainers = containersOf(spec).filter((c) => badType(objectAt(c, 'securityContext', 'appArmorProfile'))).map(nameOf);
  const forbiddenAnnotations = Object.entries(metadata.annotations ?? {})
    .filter(([k, v]) => k.startsWith(appArmorAnnotationPrefix) && !allowedAppArmorAnnotation(v))
    .map(([k, v]) => `${k}=${goQuote(v)}`)
    .sort();
  const who = setters(podIsBad, badContainers);
  if (forbiddenAnnotations.length > 0) who.push(pluralize('annotation', 'annotations', forbiddenAnnotations.length));
  if (who.length === 0) return undefined;
  const values = [...sortedSet(badValues), ...forbiddenAnnotations];
  return {
    reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length),
    detail: `${who.join(' and ')} must not set AppArmor profile type to ${joinQuote(values)}`,
  };
};

const defaultCapabilities = new Set([
  'AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT',
]);

const capabilitiesBaseline: CheckPod = (_metadata, spec) => {
  const badContainers: string[] = [];
  const added: string[] = [];
  for (const container of containersOf(spec)) {
    const capabilities = objectAt(container, 'securityContext', 'capabilities');
    if (capabilities === undefined) continue;
    const nonDefault = (Array.isArray(capabilities.add) ? capabilities.add : []).map(String).filter((c) => !defaultCapabilities.has(c));
    if (nonDefault.length === 0) continue;
    badContainers.push(nameOf(container));
    appendAll(added, nonDefault);
  }
  if (badContainers.length === 0) return undefined;
  return {
    reason: 'non-default capabilities',
    detail: `${containersPhrase(badContainers)} must not include ${joinQuote(sortedSet(added))} in securityContext.capabilities.add`,
  };
};

const hostNamespaces: CheckPod = (_metadata, spec) => {
  const shared = ['hostNetwork', 'hostPID', 'hostIPC'].filter((field) => spec[field] === true).map((field) => `${field}=true`);
  return shared.length === 0 ? undefined : { reason: 'host namespaces', detail: shared.join(', ') };
};

const hostPathVolumes: CheckPod = (_metadata, spec) => {
  const names = objects(spec.volumes).filter((v) => isObject(v.hostPath)).map((v) => stringAt(v, 'name'));
  return names.length === 0 ? undefined : { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}` };
};

const hostPorts: CheckPod = (_metadata, spec) => {
  const badContainers: string[] = [];
  const ports: string[] = [];
  for (const container of containersOf(spec)) {
    const used = objects(container.ports).map((p) => p.hostPort).filter((p) => typeof p === 'number' && p !== 0);
    if (used.length === 0) continue;
    badContainers.push(nameOf(container));
    appendAll(ports, used.map(String));
  }
  if (badContainers.length === 0) return undefined;
  // Upstream sorts the ports as strings.
  const sorted = sortedSet(ports);
  return {
    reason: 'hostPort',
    detail: `${containersPhrase(badContainers)} ${pluralize('uses', 'use', badContainers.length)} ${pluralize('hostPort', 'hostPorts', sorted.length)} ${sorted.join(', ')}`,
  };
};

function handlerHosts(handler: JsonObject | undefined): string[] {
  return ['httpGet', 'tcpSocket'].map((kind) => stringAt(objectAt(handler, kind), 'host')).filter((host) => host !== '');
}

const hostProbesAndHostLifecycle: CheckPod = (_metadata, spec) => {
  const badContainers = new Set<string>();
  const hosts = new Set<string>();
  for (const container of containersOf(spec)) {
    const handlers = [
      ...['livenessProbe', 'readinessProbe', 'startupProbe'].map((probe) => objectAt(container, probe)),
      ...['postStart', 'preStop'].map((hook) => objectAt(container, 'lifecycle', hook)),
    ];
    for (const host of handlers.flatMap(handlerHosts)) {
      badContainers.add(nameOf(container));
      hosts.add(host);
    }
  }
  if (badContainers.size === 0) return undefined;
  return {
    reason: 'probe or lifecycle host',
    detail: `${pluralize('container', 'containers', badContainers.size)} ${joinQuote(sortedSet(badContainers))} ${pluralize('uses', 'use', badContainers.size)} ` +
      `${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', hosts.size)} ${joinQuote(sortedSet(hosts))}`,
  };
};

const privileged: CheckPod = (_metadata, spec) => {
  const bad = containersOf(spec).filter((c) => securityContextOf(c)?.privileged === true).map(nameOf);
  return bad.length === 0 ? undefined : { reason: 'privileged', detail: `${containersPhrase(bad)} must not set securityContext.privileged=true` };
};

/** Only the default /proc masks; restricted keeps this at every version. */
export const procMountDefaultOnly: CheckPod = (_metadata, spec) => {
  const badContainers: string[] = [];
  const types: string[] = [];
  for (const container of containersOf(spec)) {
    const procMount = securityContextOf(container)?.procMount;
    if (procMount === undefined || procMount === null || procMount === 'Default') continue;
    badContainers.push(nameOf(container));
    types.push(String(procMount));
  }
  if (badContainers.length === 0) return undefined;
  return { reason: 'procMount', detail: `${containersPhrase(badContainers)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}` };
};

const procMountUnlessUserNamespace: CheckPod = (metadata, spec) => (inUserNamespace(spec) ? undefined : procMountDefaultOnly(metadata, spec));

function seLinuxOptions(allowedTypes: ReadonlySet<string>): CheckPod {
  return (_metadata, spec) => {
    const badTypes = new Set<string>();
    let setUser = false;
    let setRole = false;
    const bad = (options: JsonObject | undefined): boolean => {
      if (options === undefined) return false;
      const type = stringAt(options, 'type');
      const typeIsBad = !allowedTypes.has(type);
      if (typeIsBad) badTypes.add(type);
      setUser ||= stringAt(options, 'user') !== '';
      setRole ||= stringAt(options, 'role') !== '';
      return typeIsBad || stringAt(options, 'user') !== '' || stringAt(options, 'role') !== '';
    };
    const podIsBad = bad(objectAt(spec, 'securityContext', 'seLinuxOptions'));
    const badContainers = containersOf(spec).filter((c) => bad(objectAt(c, 'securityContext', 'seLinuxOptions'))).map(nameOf);
    const who = setters(podIsBad, badContainers);
    if (who.length === 0) return undefined;
    const what: string[] = [];
    if (badTypes.size > 0) what.push(`${pluralize('type', 'types', badTypes.size)} ${joinQuote(sortedSet(badTypes))}`);
    if (setUser) what.push('user may not be set');
    if (setRole) what.push('role may not be set');
    return { reason: 'seLinuxOptions', detail: `${who.join(' and ')} set forbidden securityContext.seLinuxOptions: ${what.join('; ')}` };
  };
}

const seLinuxTypesV1Dot0 = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const seLinuxTypesV1Dot31 = new Set([...seLinuxTypesV1Dot0, 'container_engine_t']);

const seccompPodAnnotation = 'seccomp.security.alpha.kubernetes.io/pod';
const seccompContainerAnnotationPrefix = 'container.seccomp.security.alpha.kubernetes.io/';

function allowedSeccompType(type: unknown): boolean {
  return type === 'RuntimeDefault' || type === 'Localhost';
}

/** Before v1.19 seccomp was set by the alpha annotations. */
const seccompAnnotations: CheckPod = (metadata, spec) => {
  const annotations = metadata.annotations ?? {};
  const forbidden: string[] = [];
  const keys = [seccompPodAnnotation, ...containersOf(spec).map((c) => seccompContainerAnnotationPrefix + nameOf(c))];
  for (const key of keys) {
    const value = annotations[key];
    if (value === undefined || !Object.hasOwn(annotations, key)) continue;
    if (value !== 'runtime/default' && value !== 'docker/default' && !value.startsWith('localhost/')) forbidden.push(`${key}=${goQuote(value)}`);
  }
  if (forbidden.length === 0) return undefined;
  const list = sortedSet(forbidden);
  return { reason: 'seccompProfile', detail: `forbidden ${pluralize('annotation', 'annotations', list.length)} ${list.join(', ')}` };
};

/** The seccompProfile types explicitly set to something other than RuntimeDefault or Localhost, shared with restricted. */
export function explicitlyBadSeccomp(spec: JsonObject): Violation | undefined {
  const badValues = new Set<string>();
  const bad = (profile: JsonObject | undefined): boolean => {
    if (profile === undefined || allowedSeccompType(profile.type)) return false;
    badValues.add(stringAt(profile, 'type'));
    return true;
  };
  const podIsBad = bad(objectAt(spec, 'securityContext', 'seccompProfile'));
  const badContainers = containersOf(spec).filter((c) => bad(objectAt(c, 'securityContext', 'seccompProfile'))).map(nameOf);
  const who = setters(podIsBad, badContainers);
  if (who.length === 0) return undefined;
  return { reason: 'seccompProfile', detail: `${who.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}` };
}

const seccompProfileField: CheckPod = (_metadata, spec) => explicitlyBadSeccomp(spec);

function sysctls(allowed: ReadonlySet<string>): CheckPod {
  return (_metadata, spec) => {
    const forbidden = objects(objectAt(spec, 'securityContext')?.sysctls).map((s) => stringAt(s, 'name')).filter((name) => !allowed.has(name));
    return forbidden.length === 0 ? undefined : { reason: 'forbidden sysctls', detail: forbidden.join(', ') };
  };
}

const sysctlsV1Dot0 = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start']);
const sysctlsV1Dot27 = new Set([...sysctlsV1Dot0, 'net.ipv4.ip_local_reserved_ports']);
const sysctlsV1Dot29 = new Set([...sysctlsV1Dot27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']);
const sysctlsV1Dot32 = new Set([...sysctlsV1Dot29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem']);

const windowsHostProcess: CheckPod = (_metadata, spec) => {
  const hostProcess = (securityContext: JsonObject | undefined) => objectAt(securityContext, 'windowsOptions')?.hostProcess === true;
  const podIsBad = hostProcess(objectAt(spec, 'securityContext'));
  const who = setters(podIsBad, containersOf(spec).filter((c) => hostProcess(securityContextOf(c))).map(nameOf));
  return who.length === 0 ? undefined : { reason: 'hostProcess', detail: `${who.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` };
};

export const baselineChecks: readonly Check[] = [
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: capabilitiesBaseline }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: hostPorts }] },
  { id: 'hostProbesAndHostLifecycle', level: 'baseline', versions: [{ minimumVersion: 34, checkPod: hostProbesAndHostLifecycle }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: privileged }] },
  {
    id: 'procMount', level: 'baseline',
    versions: [{ minimumVersion: 0, checkPod: procMountDefaultOnly }, { minimumVersion: 35, checkPod: procMountUnlessUserNamespace }],
  },
  {
    id: 'seLinuxOptions', level: 'baseline',
    versions: [{ minimumVersion: 0, checkPod: seLinuxOptions(seLinuxTypesV1Dot0) }, { minimumVersion: 31, checkPod: seLinuxOptions(seLinuxTypesV1Dot31) }],
  },
  {
    id: 'seccompProfile_baseline', level: 'baseline',
    versions: [{ minimumVersion: 0, checkPod: seccompAnnotations }, { minimumVersion: 19, checkPod: seccompProfileField }],
  },
  {
    id: 'sysctls', level: 'baseline',
    versions: [
      { minimumVersion: 0, checkPod: sysctls(sysctlsV1Dot0) },
      { minimumVersion: 27, checkPod: sysctls(sysctlsV1Dot27) },
      { minimumVersion: 29, checkPod: sysctls(sysctlsV1Dot29) },
      { minimumVersion: 32, checkPod: sysctls(sysctlsV1Dot32) },
    ],
  },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimumVersion: 0, checkPod: windowsHostProcess }] },
];
