// What a write through pods/status may hold: upstream's ValidatePodStatusUpdate
// (pkg/apis/core/validation) with the options podStatusStrategy.ValidateUpdate passes
// (pkg/registry/core/pod/strategy.go), and the v1.36 defaults of the feature gates it reads
// (ClearingNominatedNodeNameAfterBinding, ContainerRestartRules, DRAExtendedResource,
// PodDeletionCost and StrictIPCIDRValidation on). Metadata's generic rules
// (ValidateObjectMetaUpdate) are the Store's, run before these.
//
// As upstream, container statuses are not matched against the spec's containers nor
// checked for duplicate names: consumers must expect such data.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { JsonObject } from '../../api/json.ts';
import { appendAll, child, duplicate, fieldImmutable, forbidden, goJson, index, invalid, notSupported, required, type FieldPath } from '../validation/field.ts';
import { inclusiveRangeError, isDNS1123Label, isDNS1123Subdomain, isQualifiedName } from '../validation/names.ts';
import { ipWarnings, isDualStackIPs } from '../validation/ip.ts';
import { legacyIPCauses } from './legacy-ip-fields.ts';
import { arrayAt, itemsAt, numberAt, objectAt, objectsAt, stringAt } from './object.ts';
import { validatePodSpecificAnnotationUpdates } from './pod-annotations.ts';

const systemConditions = new Set(['PodScheduled', 'Ready', 'Initialized']);

/** Upstream's validatePodConditions: generations not negative; a custom condition's type a qualified name. */
function validatePodConditions(conditions: JsonObject[], path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  conditions.forEach((condition, i) => {
    const generation = numberAt(condition, 'observedGeneration');
    if (generation !== undefined && generation < 0) {
      causes.push(invalid(child(index(path, i), 'observedGeneration'), generation, 'must be a non-negative integer'));
    }
    const type = stringAt(condition, 'type');
    if (systemConditions.has(type)) return;
    // Upstream names the field "Type", as the Go struct does.
    for (const msg of isQualifiedName(type)) causes.push(invalid(child(index(path, i), 'Type'), type, msg));
  });
  return causes;
}

/** Upstream's findMatchingContainerRestartRule: the first rule whose exit codes match. */
function matchingRestartRule(container: JsonObject, exitCode: number): JsonObject | undefined {
  return objectsAt(container, 'restartPolicyRules').find((rule) => {
    const codes = objectAt(rule, 'exitCodes');
    if (codes === undefined) return false;
    const listed = arrayAt(codes, 'values').includes(exitCode);
    const operator = stringAt(codes, 'operator');
    return operator === 'In' ? listed : operator === 'NotIn' ? !listed : false;
  });
}

/**
 * Upstream's ContainerShouldRestart: the container's matching restart rule, then its own
 * restart policy, then the pod's (Always when unset).
 */
function containerShouldRestart(container: JsonObject | undefined, spec: JsonObject, exitCode: number): boolean {
  if (container !== undefined && typeof container.restartPolicy === 'string') {
    if (stringAt(matchingRestartRule(container, exitCode), 'action') === 'Restart') return true;
    switch (container.restartPolicy) {
      case 'Always': return true;
      case 'OnFailure': return exitCode !== 0;
      case 'Never': return false;
    }
  }
  switch (stringAt(spec, 'restartPolicy')) {
    case 'OnFailure': return exitCode !== 0;
    case 'Never': return false;
    default: return true;
  }
}

/** The first of `items` with each name, as a search from the start would find it. */
function firstByName(items: JsonObject[]): Map<string, JsonObject> {
  const byName = new Map<string, JsonObject>();
  for (const item of items) {
    const name = stringAt(item, 'name');
    if (!byName.has(name)) byName.set(name, item);
  }
  return byName;
}

/**
 * Upstream's container state transition rules: a container whose old status is terminated
 * may leave that state only if it would be restarted. `containers` are the old spec's
 * containers the statuses belong to (undefined for ephemeral containers, never restarted).
 */
function validateStateTransitions(
  next: JsonObject[], prev: JsonObject[], path: FieldPath, spec: JsonObject, containers: JsonObject[] | undefined,
): StatusCause[] {
  const causes: StatusCause[] = [];
  // Looked up by name, not searched for each old status: long lists of statuses were quadratic.
  const containersByName = firstByName(containers ?? []);
  const notTerminated = new Map<string, number>();
  for (const status of next) {
    if (objectAt(objectAt(status, 'state'), 'terminated') !== undefined) continue;
    const name = stringAt(status, 'name');
    notTerminated.set(name, (notTerminated.get(name) ?? 0) + 1);
  }
  prev.forEach((old, i) => {
    const terminated = objectAt(objectAt(old, 'state'), 'terminated');
    if (terminated === undefined) return;
    const name = stringAt(old, 'name');
    if (containers !== undefined && containerShouldRestart(containersByName.get(name), spec, numberAt(terminated, 'exitCode') ?? 0)) return;
    // One cause for each new status of that name that is not terminated.
    for (let n = notTerminated.get(name) ?? 0; n > 0; n--) {
      causes.push(forbidden(child(index(path, i), 'state'), 'may not be transitioned to non-terminated state'));
    }
  });
  return causes;
}

/** Upstream's validatePodResourceClaimStatuses: each names one of the spec's claims, once; a claim name is a DNS subdomain. */
function validateResourceClaimStatuses(statuses: JsonObject[], spec: JsonObject, path: FieldPath): StatusCause[] {
  const claims = new Set(objectsAt(spec, 'resourceClaims').map((c) => stringAt(c, 'name')));
  const seen = new Set<string>();
  const causes: StatusCause[] = [];
  statuses.forEach((status, i) => {
    const p = child(index(path, i), 'name');
    const name = stringAt(status, 'name');
    if (!claims.has(name)) causes.push(invalid(p, name, 'must match the name of an entry in `spec.resourceClaims`'));
    if (seen.has(name)) causes.push(duplicate(p, name));
    else seen.add(name);
    // Upstream reports the generated claim's name at `name` too.
    if (typeof status.resourceClaimName === 'string') {
      for (const msg of isDNS1123Subdomain(status.resourceClaimName)) causes.push(invalid(p, status.resourceClaimName, msg));
    }
  });
  return causes;
}

/**
 * Upstream's validatePodExtendedResourceClaimStatus (DRAExtendedResource): request
 * mappings naming a container and an extended resource it requests, unique, with a DNS
 * label request name; the claim's name a DNS subdomain.
 */
function validateExtendedResourceClaimStatus(status: JsonObject | undefined, spec: JsonObject, path: FieldPath): StatusCause[] {
  if (status === undefined) return [];
  const containers = new Map([...objectsAt(spec, 'initContainers'), ...objectsAt(spec, 'containers')].map((c) => [stringAt(c, 'name'), c]));
  const causes: StatusCause[] = [];
  const mappingsPath = child(path, 'requestMappings');
  const mappings = objectsAt(status, 'requestMappings');
  if (mappings.length === 0) causes.push(required(mappingsPath, 'at least one request mapping is required'));
  const seen = new Set<string>();
  mappings.forEach((mapping, i) => {
    const p = index(mappingsPath, i);
    const containerName = stringAt(mapping, 'containerName');
    const resourceName = stringAt(mapping, 'resourceName');
    const requestName = stringAt(mapping, 'requestName');
    const container = containers.get(containerName);
    if (container === undefined) {
      causes.push(invalid(child(p, 'containerName'), containerName, 'must match the name of an entry in spec.initContainers.name or spec.containers.name'));
    } else if (!(resourceName in (objectAt(objectAt(container, 'resources'), 'requests') ?? {}))) {
      causes.push(invalid(child(p, 'resourceName'), resourceName,
        'must match the extended resource name of an entry in spec.initContainers.resources.requests or spec.containers.resources.requests'));
    }
    // Upstream reports a bad request name at the status's requestName, not the mapping's.
    for (const msg of isDNS1123Label(requestName)) causes.push(invalid(child(path, 'requestName'), requestName, msg));
    const id = JSON.stringify([containerName, resourceName, requestName]);
    if (seen.has(id)) {
      causes.push(duplicate(child(p, 'containerName'), containerName), duplicate(child(p, 'resourceName'), resourceName), duplicate(child(p, 'requestName'), requestName));
    }
    seen.add(id);
  });
  const claimName = stringAt(status, 'resourceClaimName');
  if (claimName === '') causes.push(required(child(path, 'resourceClaimName')));
  else for (const msg of isDNS1123Subdomain(claimName)) causes.push(invalid(child(path, 'resourceClaimName'), claimName, msg));
  return causes;
}

function ipsOf(status: JsonObject, field: string): string[] {
  return objectsAt(status, field).map((entry) => stringAt(entry, 'ip'));
}

/** Each address valid unless the old status held it already; at most one of each family. */
function validateIPList(entries: JsonObject[], oldIPs: string[], path: FieldPath): { valid: StatusCause[]; dualStack: StatusCause[] } {
  const valid = entries.flatMap((entry, i) => {
    const ip = stringAt(entry, 'ip');
    return legacyIPCauses(index(path, i), ip, oldIPs);
  });
  const ips = entries.map((entry) => stringAt(entry, 'ip'));
  const dualStack = ips.length > 1 && (isDualStackIPs(ips) !== true || ips.length > 2)
    ? [invalid(path, goJson(entries.map((entry) => ({ ip: stringAt(entry, 'ip') }))), 'may specify no more than one IP for each IP family')]
    : [];
  return { valid, dualStack };
}

function duplicateIPs(entries: JsonObject[], path: FieldPath): StatusCause[] {
  const seen = new Set<string>();
  const causes: StatusCause[] = [];
  entries.forEach((entry, i) => {
    const ip = stringAt(entry, 'ip');
    if (seen.has(ip)) causes.push(duplicate(index(path, i), goJson({ ip })));
    seen.add(ip);
  });
  return causes;
}

/** Upstream's validatePodIPs: valid addresses, a dual-stack pair at most, no duplicates. */
function validatePodIPs(status: JsonObject, oldStatus: JsonObject): StatusCause[] {
  const path = 'status.podIPs';
  const entries = objectsAt(status, 'podIPs');
  const { valid, dualStack } = validateIPList(entries, ipsOf(oldStatus, 'podIPs'), path);
  return entries.length > 1 ? [...valid, ...dualStack, ...duplicateIPs(entries, path)] : valid;
}

/** Upstream's validateHostIPs: the first is `hostIP`; valid addresses, no duplicates, a dual-stack pair at most. */
function validateHostIPs(status: JsonObject, oldStatus: JsonObject): StatusCause[] {
  const path = 'status.hostIPs';
  const entries = objectsAt(status, 'hostIPs');
  if (entries.length === 0) return [];
  const causes: StatusCause[] = [];
  const first = stringAt(entries[0], 'ip');
  if (stringAt(status, 'hostIP') !== first) causes.push(invalid(child(index(path, 0), 'ip'), first, 'must be equal to `hostIP`'));
  const { valid, dualStack } = validateIPList(entries, ipsOf(oldStatus, 'hostIPs'), path);
  appendAll(causes, valid);
  if (entries.length > 1) appendAll(causes, duplicateIPs(entries, path), dualStack);
  return causes;
}

function validID(id: unknown): string[] {
  return typeof id === 'number' && id >= 0 && id <= 2147483647 ? [] : [inclusiveRangeError(0, 2147483647)];
}

/** Upstream's validateContainerStatusUsers: a Linux pod's reported ids in range; a Windows pod reports none. */
function validateContainerStatusUsers(statuses: JsonObject[], path: FieldPath, os: string): StatusCause[] {
  const causes: StatusCause[] = [];
  statuses.forEach((status, i) => {
    const user = objectAt(status, 'user');
    if (user === undefined) return;
    const linux = objectAt(user, 'linux');
    const p = child(index(path, i), 'user', 'linux');
    if (os === 'windows') {
      if (linux !== undefined) causes.push(forbidden(p, 'cannot be set for a windows pod'));
      return;
    }
    if (os !== 'linux' || linux === undefined) return;
    for (const msg of validID(linux.uid)) causes.push(invalid(child(p, 'uid'), linux.uid, msg));
    for (const msg of validID(linux.gid)) causes.push(invalid(child(p, 'gid'), linux.gid, msg));
    arrayAt(linux, 'supplementalGroups').forEach((gid, g) => {
      for (const msg of validID(gid)) causes.push(invalid(index(child(p, 'supplementalGroups'), g), gid, msg));
    });
  });
  return causes;
}

const resourceHealths = ['Healthy', 'Unhealthy', 'Unknown'];

/** The `claim:<name>` or `claim:<name>/<request>` forms of a container's resource claims. */
function claimResourceNames(container: JsonObject): string[] {
  return objectsAt(objectAt(container, 'resources'), 'claims').map((c) => {
    const request = stringAt(c, 'request');
    return `claim:${stringAt(c, 'name')}${request === '' ? '' : `/${request}`}`;
  });
}

/**
 * Upstream's validateContainerStatusAllocatedResourcesStatus: each entry names one of the
 * container's requests or claims (a status for no known container is let be); its
 * resources' ids unique and their health known.
 */
function validateAllocatedResourcesStatus(statuses: JsonObject[], path: FieldPath, containers: JsonObject[]): StatusCause[] {
  const causes: StatusCause[] = [];
  const containersByName = firstByName(containers);
  statuses.forEach((status, i) => {
    const container = containersByName.get(stringAt(status, 'name'));
    objectsAt(status, 'allocatedResourcesStatus').forEach((entry, j) => {
      const p = index(child(index(path, i), 'allocatedResourcesStatus'), j);
      const name = stringAt(entry, 'name');
      if (container !== undefined) {
        if (name.startsWith('claim:')) {
          if (!claimResourceNames(container).includes(name)) {
            causes.push(invalid(child(p, 'name'), name,
              "must match one of the container's resource claims in a format 'claim:<claimName>/<request>' or 'claim:<claimName>' if request is empty"));
          }
        } else if (!(name in (objectAt(objectAt(container, 'resources'), 'requests') ?? {}))) {
          causes.push(invalid(child(p, 'name'), name, "must match one of the container's resource requests"));
        }
      }
      const ids = new Set<string>();
      objectsAt(entry, 'resources').forEach((resource, k) => {
        const rp = index(child(p, 'resources'), k);
        const health = stringAt(resource, 'health');
        if (!resourceHealths.includes(health)) causes.push(notSupported(child(rp, 'health'), health, resourceHealths));
        const id = stringAt(resource, 'resourceID');
        if (ids.has(id)) causes.push(duplicate(child(rp, 'resourceID'), id));
        ids.add(id);
      });
    });
  });
  return causes;
}

/** Upstream's ValidatePodStatusUpdate, after the Store's ValidateObjectMetaUpdate; in its order. */
export function validatePodStatusUpdate(pod: KubeObject, old: KubeObject): StatusCause[] {
  const spec = objectAt(pod, 'spec') ?? {};
  const oldSpec = objectAt(old, 'spec') ?? {};
  const status = objectAt(pod, 'status') ?? {};
  const oldStatus = objectAt(old, 'status') ?? {};
  const causes = validatePodSpecificAnnotationUpdates(pod, old);
  appendAll(causes, validatePodConditions(objectsAt(status, 'conditions'), 'status.conditions'));

  if (stringAt(spec, 'nodeName') !== stringAt(oldSpec, 'nodeName')) causes.push(forbidden('status.nodeName', 'may not be changed directly'));
  const nominated = stringAt(status, 'nominatedNodeName');
  const oldNominated = stringAt(oldStatus, 'nominatedNodeName');
  if (nominated !== '' && nominated !== oldNominated) {
    for (const msg of isDNS1123Subdomain(nominated)) causes.push(invalid('status.nominatedNodeName', nominated, msg));
    // ClearingNominatedNodeNameAfterBinding: a bound pod is nominated nowhere else.
    if (stringAt(oldSpec, 'nodeName') !== '') causes.push(forbidden('status.nominatedNodeName', 'may not be set on pods that are already bound to a node'));
  }
  const generation = numberAt(status, 'observedGeneration');
  if (generation !== undefined && generation < 0) causes.push(invalid('status.observedGeneration', generation, 'must be a non-negative integer'));
  const qosClass = stringAt(status, 'qosClass');
  if (qosClass !== stringAt(oldStatus, 'qosClass')) causes.push(invalid('status.qosClass', qosClass, fieldImmutable));

  const statuses = objectsAt(status, 'containerStatuses');
  const initStatuses = objectsAt(status, 'initContainerStatuses');
  const ephemeralStatuses = objectsAt(status, 'ephemeralContainerStatuses');
  appendAll(
    causes,
    validateStateTransitions(statuses, objectsAt(oldStatus, 'containerStatuses'), 'status.containerStatuses', oldSpec, objectsAt(oldSpec, 'containers')),
    validateStateTransitions(initStatuses, objectsAt(oldStatus, 'initContainerStatuses'), 'status.initContainerStatuses', oldSpec, objectsAt(oldSpec, 'initContainers')),
    validateStateTransitions(ephemeralStatuses, objectsAt(oldStatus, 'ephemeralContainerStatuses'), 'status.ephemeralContainerStatuses', oldSpec, undefined),
    validateResourceClaimStatuses(objectsAt(status, 'resourceClaimStatuses'), spec, 'status.resourceClaimStatuses'),
    validateExtendedResourceClaimStatus(objectAt(status, 'extendedResourceClaimStatus'), spec, 'status.extendedResourceClaimStatus'),
    validatePodIPs(status, oldStatus),
    validateHostIPs(status, oldStatus),
  );

  const os = stringAt(objectAt(spec, 'os'), 'name') || 'linux';
  appendAll(
    causes,
    validateContainerStatusUsers(statuses, 'status.containerStatuses', os),
    validateContainerStatusUsers(initStatuses, 'status.initContainerStatuses', os),
    validateContainerStatusUsers(ephemeralStatuses, 'status.ephemeralContainerStatuses', os),
    validateAllocatedResourcesStatus(statuses, 'status.containerStatuses', objectsAt(spec, 'containers')),
    validateAllocatedResourcesStatus(initStatuses, 'status.initContainerStatuses', objectsAt(spec, 'initContainers')),
  );
  // Ephemeral containers are given no resources.
  ephemeralStatuses.forEach((s, i) => {
    if (arrayAt(s, 'allocatedResourcesStatus').length > 0) {
      causes.push(forbidden(child(index('status.ephemeralContainerStatuses', i), 'allocatedResourcesStatus'), 'must not be specified in container status'));
    }
  });
  return causes;
}

/** The pods/status strategy's WarningsOnUpdate: pod and host IPs in forms a later release will refuse, or IPv6 not canonical. */
export function podStatusWarnings(pod: KubeObject): string[] {
  const status = objectAt(pod, 'status');
  return ['podIPs', 'hostIPs'].flatMap((field) =>
    itemsAt(status, field).flatMap((entry, i) => ipWarnings(child(index(`status.${field}`, i), 'ip'), stringAt(entry, 'ip'))));
}
