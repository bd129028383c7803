// Pod and container security contexts, validated as upstream's ValidatePodSpec does
// (pkg/apis/core/validation: validatePodSpecSecurityContext, ValidateSecurityContext,
// validateSysctls, the seccomp and AppArmor profile fields, the Windows options, host
// process pods, user namespaces and what each OS forbids), with its messages. Privileged
// and host process containers are refused unless the server allows them
// (`--allow-privileged`), as upstream's cluster policy.

import type { StatusCause } from '../../api/index.ts';
import { privilegedContainersAllowed } from '../../api/request-context.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { appendAll, goJson } from '../../api/field-errors.ts';
import { child, duplicate, forbidden, index, invalid, notSupported, required, tooLong, type FieldPath } from '../validation/field.ts';
import { inclusiveRangeError, isDNS1123Subdomain } from '../validation/names.ts';
import { arrayAt, itemsAt, objectAt, stringAt } from './object.ts';
import { localDescendingPath } from './pod-volume-sources.ts';

const maxID = 2147483647;

/** IsValidUserID / IsValidGroupID. */
function idCauses(value: unknown, path: FieldPath): StatusCause[] {
  return typeof value === 'number' && (value < 0 || value > maxID) ? [invalid(path, value, inclusiveRangeError(0, maxID))] : [];
}

function validateSeccompProfile(profile: JsonObject | undefined, path: FieldPath): StatusCause[] {
  if (profile === undefined) return [];
  const causes: StatusCause[] = [];
  const type = stringAt(profile, 'type');
  const types = ['Localhost', 'RuntimeDefault', 'Unconfined'];
  if (type === '') causes.push(required(child(path, 'type'), 'type is required when seccompProfile is set'));
  else if (!types.includes(type)) causes.push(notSupported(child(path, 'type'), type, types));
  const localhost = profile.localhostProfile;
  if (type === 'Localhost') {
    if (typeof localhost !== 'string') causes.push(required(child(path, 'localhostProfile'), 'must be set when seccomp type is Localhost'));
    else appendAll(causes, localDescendingPath(localhost, child(path, 'localhostProfile')));
  } else if (localhost !== undefined && localhost !== null) {
    causes.push(invalid(child(path, 'localhostProfile'), profile, 'can only be set when seccomp type is Localhost'));
  }
  return causes;
}

function validateAppArmorProfile(profile: JsonObject | undefined, path: FieldPath): StatusCause[] {
  if (profile === undefined) return [];
  const causes: StatusCause[] = [];
  const type = stringAt(profile, 'type');
  const localhost = profile.localhostProfile;
  switch (type) {
    case 'Localhost':
      if (typeof localhost !== 'string') causes.push(required(child(path, 'localhostProfile'), 'must be set when AppArmor type is Localhost'));
      else {
        if (localhost.trim() !== localhost) causes.push(invalid(child(path, 'localhostProfile'), localhost, 'must not be padded with whitespace'));
        else if (localhost === '') causes.push(required(child(path, 'localhostProfile'), 'must be set when AppArmor type is Localhost'));
        if (Buffer.byteLength(localhost) > 4095) causes.push(tooLong(child(path, 'localhostProfile'), 4095));
      }
      break;
    case 'RuntimeDefault':
    case 'Unconfined':
      if (localhost !== undefined && localhost !== null) causes.push(invalid(child(path, 'localhostProfile'), localhost, 'can only be set when AppArmor type is Localhost'));
      break;
    case '':
      causes.push(required(child(path, 'type'), 'type is required when appArmorProfile is set'));
      break;
    default:
      causes.push(notSupported(child(path, 'type'), type, ['Localhost', 'RuntimeDefault', 'Unconfined']));
  }
  return causes;
}

const sysctlName = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;
const sysctlNameMessage = `must have at most 253 characters and match regex ${sysctlName.source}`;

/** The namespace a sysctl belongs to (component-helpers' GetNamespace): the host's when it shares it. */
function sysctlNamespace(name: string): 'net' | 'ipc' | undefined {
  const normalized = name.replaceAll('/', '.');
  if (normalized.startsWith('net.')) return 'net';
  if (normalized === 'kernel.sem' || normalized.startsWith('kernel.shm') || normalized.startsWith('kernel.msg') || normalized.startsWith('fs.mqueue.')) return 'ipc';
  return undefined;
}

function validateSysctls(spec: JsonObject, sysctls: JsonObject[], path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  sysctls.forEach((sysctl, i) => {
    const p = child(index(path, i), 'name');
    const name = stringAt(sysctl, 'name');
    if (name === '') causes.push(required(p));
    else if (name.length > 253 || !sysctlName.test(name)) causes.push(invalid(p, name, sysctlNameMessage));
    else if (names.has(name)) causes.push(duplicate(p, name));
    const namespace = sysctlNamespace(name);
    if (spec.hostNetwork === true && namespace === 'net') causes.push(invalid(p, name, "may not be specified when 'hostNetwork' is true"));
    else if (spec.hostIPC === true && namespace === 'ipc') causes.push(invalid(p, name, "may not be specified when 'hostIPC' is true"));
    names.add(name);
  });
  return causes;
}

/** validatePodSpecSecurityContext; `path` is the spec's securityContext (host namespaces are the spec's in v1). */
export function validatePodSecurityContext(spec: JsonObject, path: FieldPath): StatusCause[] {
  const sc = objectAt(spec, 'securityContext');
  if (sc === undefined) return [];
  const causes: StatusCause[] = [
    ...idCauses(sc.fsGroup, child(path, 'fsGroup')),
    ...idCauses(sc.runAsUser, child(path, 'runAsUser')),
    ...idCauses(sc.runAsGroup, child(path, 'runAsGroup')),
  ];
  arrayAt(sc, 'supplementalGroups').forEach((gid, i) => appendAll(causes, idCauses(gid, index(child(path, 'supplementalGroups'), i))));
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    causes.push(invalid(child(path, 'shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  appendAll(causes, validateSysctls(spec, itemsAt(sc, 'sysctls'), child(path, 'sysctls')));
  const policy = sc.fsGroupChangePolicy;
  if (policy !== undefined && policy !== null && policy !== 'Always' && policy !== 'OnRootMismatch') {
    causes.push(notSupported(child(path, 'fsGroupChangePolicy'), policy, ['Always', 'OnRootMismatch']));
  }
  appendAll(causes, validateSeccompProfile(objectAt(sc, 'seccompProfile'), child(path, 'seccompProfile')));
  appendAll(causes, validateWindowsOptions(objectAt(sc, 'windowsOptions'), child(path, 'windowsOptions')));
  appendAll(causes, validateAppArmorProfile(objectAt(sc, 'appArmorProfile'), child(path, 'appArmorProfile')));
  const groupsPolicy = sc.supplementalGroupsPolicy;
  if (groupsPolicy !== undefined && groupsPolicy !== null && groupsPolicy !== 'Merge' && groupsPolicy !== 'Strict') {
    causes.push(notSupported(child(path, 'supplementalGroupsPolicy'), groupsPolicy, ['Merge', 'Strict']));
  }
  const changePolicy = sc.seLinuxChangePolicy;
  if (changePolicy !== undefined && changePolicy !== null && changePolicy !== 'MountOption' && changePolicy !== 'Recursive') {
    causes.push(notSupported(child(path, 'seLinuxChangePolicy'), changePolicy, ['MountOption', 'Recursive']));
  }
  return causes;
}

/** ValidateSecurityContext of a container; `hostUsers` false lets it unmask /proc. */
export function validateContainerSecurityContext(container: JsonObject, hostUsers: boolean, path: FieldPath): StatusCause[] {
  const sc = container.securityContext;
  if (!isObject(sc)) return [];
  const causes: StatusCause[] = [];
  if (sc.privileged === true && !privilegedContainersAllowed()) causes.push(forbidden(child(path, 'privileged'), 'disallowed by cluster policy'));
  appendAll(causes, idCauses(sc.runAsUser, child(path, 'runAsUser')), idCauses(sc.runAsGroup, child(path, 'runAsGroup')));
  const procMount = sc.procMount;
  if (procMount !== undefined && procMount !== null) {
    if (procMount !== 'Default' && procMount !== 'Unmasked') causes.push(notSupported(child(path, 'procMount'), procMount, ['Default', 'Unmasked']));
    if (hostUsers && procMount === 'Unmasked') causes.push(invalid(child(path, 'procMount'), procMount, '`hostUsers` must be false to use `Unmasked`'));
  }
  appendAll(causes, validateSeccompProfile(objectAt(sc, 'seccompProfile'), child(path, 'seccompProfile')));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) causes.push(invalid(path, internalSecurityContext(sc), 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    for (const capability of arrayAt(objectAt(sc, 'capabilities'), 'add')) {
      if (capability === 'CAP_SYS_ADMIN') causes.push(invalid(path, internalSecurityContext(sc), 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
    }
  }
  appendAll(causes, validateWindowsOptions(objectAt(sc, 'windowsOptions'), child(path, 'windowsOptions')));
  appendAll(causes, validateAppArmorProfile(objectAt(sc, 'appArmorProfile'), child(path, 'appArmorProfile')));
  return causes;
}

/**
 * A container's security context as upstream's error prints it: the internal Go struct
 * (core.SecurityContext) through json.Marshal, every field by its Go name.
 */
function internalSecurityContext(sc: JsonObject) {
  const or = (v: unknown) => v ?? null;
  const profile = (p: unknown) => (isObject(p) ? { Type: stringAt(p, 'type'), LocalhostProfile: or(p.localhostProfile) } : null);
  const capabilities = objectAt(sc, 'capabilities');
  const seLinux = objectAt(sc, 'seLinuxOptions');
  const windows = objectAt(sc, 'windowsOptions');
  return goJson({
    Capabilities: capabilities ? { Add: or(capabilities.add), Drop: or(capabilities.drop) } : null,
    Privileged: or(sc.privileged),
    SELinuxOptions: seLinux ? { User: stringAt(seLinux, 'user'), Role: stringAt(seLinux, 'role'), Type: stringAt(seLinux, 'type'), Level: stringAt(seLinux, 'level') } : null,
    WindowsOptions: windows
      ? { GMSACredentialSpecName: or(windows.gmsaCredentialSpecName), GMSACredentialSpec: or(windows.gmsaCredentialSpec), RunAsUserName: or(windows.runAsUserName), HostProcess: or(windows.hostProcess) }
      : null,
    RunAsUser: or(sc.runAsUser),
    RunAsGroup: or(sc.runAsGroup),
    RunAsNonRoot: or(sc.runAsNonRoot),
    ReadOnlyRootFilesystem: or(sc.readOnlyRootFilesystem),
    AllowPrivilegeEscalation: or(sc.allowPrivilegeEscalation),
    ProcMount: or(sc.procMount),
    SeccompProfile: profile(sc.seccompProfile),
    AppArmorProfile: profile(sc.appArmorProfile),
  });
}

const netBiosDomain = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
const dnsDomain = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const userNameChars = /["/\\:;|=,+*?<>@[\]]/;

/** validateWindowsSecurityContextOptions: the GMSA credential spec and the Windows user name. */
function validateWindowsOptions(options: JsonObject | undefined, path: FieldPath): StatusCause[] {
  if (options === undefined) return [];
  const causes: StatusCause[] = [];
  const specName = options.gmsaCredentialSpecName;
  if (typeof specName === 'string') {
    for (const msg of isDNS1123Subdomain(specName)) causes.push(invalid(child(path, 'gmsaCredentialSpecName'), specName, msg));
  }
  const spec = options.gmsaCredentialSpec;
  if (typeof spec === 'string') {
    const size = Buffer.byteLength(spec);
    if (size === 0) causes.push(invalid(child(path, 'gmsaCredentialSpec'), spec, 'gmsaCredentialSpec cannot be an empty string'));
    else if (size > 64 * 1024) causes.push(invalid(child(path, 'gmsaCredentialSpec'), spec, 'gmsaCredentialSpec size must be under 64 KiB'));
  }
  const name = options.runAsUserName;
  if (typeof name === 'string') appendAll(causes, runAsUserNameErrors(name).map((msg) => invalid(child(path, 'runAsUserName'), name, msg)));
  return causes;
}

/** What upstream finds wrong with a Windows `DOMAIN\\USER` name; lengths in bytes, as Go's len. */
function runAsUserNameErrors(name: string): string[] {
  if (name === '') return ['runAsUserName cannot be an empty string'];
  // Go's [[:cntrl:]]: the ASCII control characters.
  if (/[\x00-\x1f\x7f]/.test(name)) return ['runAsUserName cannot contain control characters'];
  const parts = name.split('\\');
  if (parts.length > 2) return ['runAsUserName cannot contain more than one backslash'];
  const [domain, user] = parts.length === 2 ? [parts[0]!, parts[1]!] : ['', parts[0]!];
  const errors: string[] = [];
  if (Buffer.byteLength(domain) >= 256) errors.push("runAsUserName's Domain length must be under 256 characters");
  if (parts.length === 2 && !netBiosDomain.test(domain) && !dnsDomain.test(domain)) errors.push("runAsUserName's Domain doesn't match the NetBios nor the DNS format");
  const userLength = Buffer.byteLength(user);
  if (userLength === 0) errors.push("runAsUserName's User cannot be empty");
  else if (userLength > 104) errors.push("runAsUserName's User length must not be longer than 104 characters");
  if (/^[. ]+$/.test(user)) errors.push("runAsUserName's User cannot contain only periods or spaces");
  if (userNameChars.test(user)) errors.push('runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]');
  return errors;
}

/** Every container of a spec with its path, in upstream's VisitContainersWithPath order. */
function containersWithPaths(spec: JsonObject, path: FieldPath): [JsonObject, FieldPath][] {
  const out: [JsonObject, FieldPath][] = [];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    arrayAt(spec, list).forEach((c, i) => out.push([isObject(c) ? c : {}, index(child(path, list), i)]));
  }
  return out;
}

/** validateWindowsHostProcessPod: host process containers all or none, on the host's network, if the policy allows them. */
export function validateHostProcessPod(spec: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const podHostProcess = objectAt(objectAt(spec, 'securityContext'), 'windowsOptions')?.hostProcess;
  const containers = containersWithPaths(spec, path);
  let hostProcessContainers = 0;
  for (const [container, p] of containers) {
    const hostProcess = objectAt(objectAt(container, 'securityContext'), 'windowsOptions')?.hostProcess;
    if (typeof podHostProcess === 'boolean' && typeof hostProcess === 'boolean' && podHostProcess !== hostProcess) {
      causes.push(invalid(child(p, 'securityContext', 'windowsOptions', 'hostProcess'), hostProcess, `pod hostProcess value must be identical if both are specified, was ${podHostProcess}`));
    }
    if (hostProcess === true || ((hostProcess === undefined || hostProcess === null) && podHostProcess === true)) hostProcessContainers++;
  }
  if (hostProcessContainers === 0) return causes;
  if (hostProcessContainers !== containers.length) causes.push(invalid(path, '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
  if (spec.hostNetwork !== true) causes.push(invalid(child(path, 'hostNetwork'), false, 'hostNetwork must be true if pod contains any hostProcess containers'));
  if (!privilegedContainersAllowed()) causes.push(forbidden(path, 'hostProcess containers are disallowed by cluster policy'));
  return causes;
}

/** validateHostUsers: a pod in its own user namespace shares none of the host's others. (Upstream's paths, capitals and all.) */
export function validateHostUsers(spec: JsonObject, path: FieldPath): StatusCause[] {
  if (spec.hostUsers !== false) return [];
  const detail = 'when `pod.Spec.HostUsers` is false';
  const causes: StatusCause[] = [];
  if (spec.hostNetwork === true) causes.push(forbidden(child(path, 'hostNetwork'), detail));
  if (spec.hostPID === true) causes.push(forbidden(child(path, 'HostPID'), detail));
  if (spec.hostIPC === true) causes.push(forbidden(child(path, 'HostIPC'), detail));
  return causes;
}

const given = (v: unknown) => v !== undefined && v !== null;

/** validateLinux and validateWindows: what a pod of the named OS may not set. */
export function validateForOS(spec: JsonObject, os: string, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const sc = objectAt(spec, 'securityContext');
  const scPath = child(path, 'securityContext');
  const containers = containersWithPaths(spec, path);
  if (os === 'linux') {
    const linuxOnly = 'windows options cannot be set for a linux pod';
    if (given(sc?.windowsOptions)) causes.push(forbidden(child(scPath, 'windowsOptions'), linuxOnly));
    for (const [container, p] of containers) {
      if (given(objectAt(container, 'securityContext')?.windowsOptions)) causes.push(forbidden(child(p, 'securityContext', 'windowsOptions'), linuxOnly));
    }
    return causes;
  }
  const notWindows = 'cannot be set for a windows pod';
  // Upstream's internal type keeps the host namespaces in the pod's security context.
  for (const [name, onSpec] of [['appArmorProfile', false], ['seLinuxOptions', false], ['hostUsers', true], ['hostPID', true], ['hostIPC', true],
    ['seccompProfile', false], ['fsGroup', false], ['fsGroupChangePolicy', false], ['sysctls', false], ['shareProcessNamespace', true],
    ['runAsUser', false], ['runAsGroup', false], ['supplementalGroups', false], ['supplementalGroupsPolicy', false], ['seLinuxChangePolicy', false]] as const) {
    const value = onSpec ? spec[name] : sc?.[name];
    const isSet = name === 'hostPID' || name === 'hostIPC' ? value === true : name === 'sysctls' ? arrayAt(sc, name).length > 0 : given(value);
    if (isSet) causes.push(forbidden(onSpec ? child(path, name) : child(scPath, name), notWindows));
  }
  for (const [container, p] of containers) {
    const csc = objectAt(container, 'securityContext');
    if (csc === undefined) continue;
    for (const name of ['appArmorProfile', 'seLinuxOptions', 'seccompProfile', 'capabilities', 'readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation', 'procMount', 'runAsUser', 'runAsGroup']) {
      if (given(csc[name])) causes.push(forbidden(child(p, 'securityContext', name), notWindows));
    }
  }
  return causes;
}
