// Pod and container security contexts, validated as upstream's ValidatePodSpec does
// (pkg/apis/core/validation: validatePodSpecSecurityContext, ValidateSecurityContext,
// validateSysctls, the seccomp and AppArmor profile fields), with its messages.
// Privileged containers are refused unless the server allows them (`--allow-privileged`), as
// upstream's cluster policy.

import type { StatusCause } from '../../api/index.ts';
import { privilegedContainersAllowed } from '../../api/request-context.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { child, duplicate, forbidden, index, invalid, notSupported, required, tooLong, type FieldPath } from '../validation/field.ts';
import { inclusiveRangeError } from '../validation/names.ts';
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
    else causes.push(...localDescendingPath(localhost, child(path, 'localhostProfile')));
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
  arrayAt(sc, 'supplementalGroups').forEach((gid, i) => causes.push(...idCauses(gid, index(child(path, 'supplementalGroups'), i))));
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    causes.push(invalid(child(path, 'shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  causes.push(...validateSysctls(spec, itemsAt(sc, 'sysctls'), child(path, 'sysctls')));
  const policy = sc.fsGroupChangePolicy;
  if (policy !== undefined && policy !== null && policy !== 'Always' && policy !== 'OnRootMismatch') {
    causes.push(notSupported(child(path, 'fsGroupChangePolicy'), policy, ['Always', 'OnRootMismatch']));
  }
  causes.push(...validateSeccompProfile(objectAt(sc, 'seccompProfile'), child(path, 'seccompProfile')));
  causes.push(...validateAppArmorProfile(objectAt(sc, 'appArmorProfile'), child(path, 'appArmorProfile')));
  return causes;
}

/** ValidateSecurityContext of a container; `hostUsers` false lets it unmask /proc. */
export function validateContainerSecurityContext(container: JsonObject, hostUsers: boolean, path: FieldPath): StatusCause[] {
  const sc = container.securityContext;
  if (!isObject(sc)) return [];
  const causes: StatusCause[] = [];
  if (sc.privileged === true && !privilegedContainersAllowed()) causes.push(forbidden(child(path, 'privileged'), 'disallowed by cluster policy'));
  causes.push(...idCauses(sc.runAsUser, child(path, 'runAsUser')), ...idCauses(sc.runAsGroup, child(path, 'runAsGroup')));
  const procMount = sc.procMount;
  if (procMount !== undefined && procMount !== null) {
    if (procMount !== 'Default' && procMount !== 'Unmasked') causes.push(notSupported(child(path, 'procMount'), procMount, ['Default', 'Unmasked']));
    if (hostUsers && procMount === 'Unmasked') causes.push(forbidden(child(path, 'procMount'), '`hostUsers` must be false to use `Unmasked`'));
  }
  causes.push(...validateSeccompProfile(objectAt(sc, 'seccompProfile'), child(path, 'seccompProfile')));
  causes.push(...validateAppArmorProfile(objectAt(sc, 'appArmorProfile'), child(path, 'appArmorProfile')));
  return causes;
}

