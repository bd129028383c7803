// resource.k8s.io ResourceClaims and ResourceClaimTemplates as upstream's registry treats
// them (pkg/registry/resource/resourceclaim(template) and pkg/apis/resource/validation):
// their defaults, validation and update rules.
//
// The feature gates these strategies consult (DRAPrioritizedList, DRAAdminAccess,
// DRADeviceTaints, DRAConsumableCapacity, DRAResourceClaimDeviceStatus,
// DRADeviceBindingConditions) are all on in v1.36, so nothing is dropped on a write.
// Declarative validation does not take over for these types in v1.36 (their strategies
// ask for no enforcement): the hand-written rules below are what answers.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { canonicalQuantity } from '../../api/quantity.ts';
import type { Strategy } from '../resource-type.ts';
import {
  appendAll, child, fieldImmutable, forbidden, goJson, GoValue, index, invalid, notSupported, required, tooLong, tooMany, type FieldPath,
} from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain, isLabelValue, isQualifiedName } from '../validation/names.ts';
import { validateConditions } from '../validation/conditions.ts';
import { objectMetaJson, validateTemplateObjectMeta } from '../validation/object-meta.ts';
import { keepOldMetadata, keepOldSpec, keepOldStatus } from './common.ts';
import { interfaceAddressErrors } from '../validation/ip.ts';
import { itemsAt, objectAt, objectsAt, semanticEqual, stringAt } from './object.ts';
import {
  deviceConfigMaxSize, deviceTaintEffects, validateDeviceBindingParameters, validateDeviceConfiguration, validateDeviceName, validateDeviceSelectors,
  validateDriverName, validateFullyQualifiedName, validateNodeSelector, validatePoolName, validateRawExtension, validateSet, validateSlice, type Validate,
} from './resource-devices.ts';

// Limits of pkg/apis/resource (types.go).
const requestsMaxSize = 32;
const firstAvailableMaxSize = 8;
const constraintsMaxSize = 32;
const reservedForMaxSize = 256;
const allocationResultsMaxSize = 32;
const deviceStatusMaxConditions = 8;
const deviceStatusDataMaxLength = 10 * 1024;
const interfaceNameMaxLength = 256;
const hardwareAddressMaxLength = 128;
const networkDataMaxIPs = 16;

const allocationModes = ['All', 'ExactCount'];
const tolerationOperators = ['Equal', 'Exists'];
const configSources = ['FromClaim', 'FromClass'];
const requestRefMessage = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

const has = (v: unknown): boolean => v !== undefined && v !== null;

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((s) => (typeof s === 'string' ? s : String(s))) : []);

function dns1123Label(name: string, path: FieldPath): StatusCause[] {
  return isDNS1123Label(name).map((msg) => invalid(path, name, msg));
}

/** validateDeviceToleration. */
function validateDeviceToleration(toleration: JsonObject, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  const key = stringAt(toleration, 'key');
  if (key !== '') causes.push(...isQualifiedName(key).map((msg) => invalid(child(path, 'key'), key, msg)));
  const operator = stringAt(toleration, 'operator');
  const value = stringAt(toleration, 'value');
  switch (operator) {
    case 'Exists':
      if (value !== '') causes.push(invalid(child(path, 'value'), value, 'must be empty for operator `Exists`'));
      break;
    case 'Equal':
      causes.push(...isLabelValue(value).map((msg) => invalid(child(path, 'value'), value, msg)));
      break;
    case '':
      causes.push(required(child(path, 'operator')));
      break;
    default:
      causes.push(notSupported(child(path, 'operator'), operator, tolerationOperators));
  }
  const effect = stringAt(toleration, 'effect');
  if (effect !== '' && !deviceTaintEffects.includes(effect)) causes.push(notSupported(child(path, 'effect'), effect, deviceTaintEffects));
  return causes;
}

/** The names constraints, configs and results may refer to: requests, with their subrequests when they have them. */
type RequestNames = Map<string, Set<string> | undefined>;

function requestNamesOf(devices: JsonObject | undefined): RequestNames {
  const names: RequestNames = new Map();
  for (const request of objectsAt(devices, 'requests')) {
    const subrequests = objectsAt(request, 'firstAvailable');
    names.set(stringAt(request, 'name'), subrequests.length === 0 ? undefined : new Set(subrequests.map((s) => stringAt(s, 'name'))));
  }
  return names;
}

function refersToRequest(names: RequestNames, ref: string): boolean {
  const segments = ref.split('/');
  if (segments.length > 2 || !names.has(segments[0]!)) return false;
  return segments.length === 1 || (names.get(segments[0]!)?.has(segments[1]!) ?? false);
}

/** validateRequestNameRef: `<request>` or `<request>/<subrequest>` of this claim. */
function validateRequestNameRef(names: RequestNames): Validate<string> {
  return (ref, path) => {
    const segments = ref.split('/');
    if (segments.length > 2) return [invalid(path, ref, requestRefMessage)];
    const causes = segments.flatMap((segment) => dns1123Label(segment, path));
    if (!refersToRequest(names, ref)) causes.push(invalid(path, ref, requestRefMessage));
    return causes;
  };
}

function validateRequestRefs(holder: JsonObject, path: FieldPath, names: RequestNames): StatusCause[] {
  return validateSet(strings(holder.requests), requestsMaxSize, validateRequestNameRef(names), (s) => s, child(path, 'requests'));
}

function validateDeviceClassName(name: string, path: FieldPath): StatusCause[] {
  if (name === '') return [required(path)];
  return isDNS1123Subdomain(name).map((msg) => invalid(path, name, msg));
}

/** validateDeviceAllocationMode: All takes no count, ExactCount a positive one. */
function validateAllocationMode(request: JsonObject, path: FieldPath): StatusCause[] {
  const mode = stringAt(request, 'allocationMode');
  const count = typeof request.count === 'number' ? request.count : 0;
  switch (mode) {
    case 'All':
      return count !== 0 ? [invalid(child(path, 'count'), count, "must not be specified when allocationMode is 'All'")] : [];
    case 'ExactCount':
      return count <= 0 ? [invalid(child(path, 'count'), count, 'must be greater than zero')] : [];
    default:
      return [notSupported(child(path, 'allocationMode'), mode, allocationModes)];
  }
}

/** What an exact request and a subrequest share: class, selectors, allocation mode and count, tolerations. */
function validateDeviceChoice(request: JsonObject, path: FieldPath): StatusCause[] {
  return [
    ...validateDeviceClassName(stringAt(request, 'deviceClassName'), child(path, 'deviceClassName')),
    ...validateDeviceSelectors(objectsAt(request, 'selectors'), child(path, 'selectors')),
    ...validateAllocationMode(request, path),
    ...objectsAt(request, 'tolerations').flatMap((t, i) => validateDeviceToleration(t, index(child(path, 'tolerations'), i))),
  ];
}

function validateDeviceSubRequest(subrequest: JsonObject, path: FieldPath): StatusCause[] {
  return [...dns1123Label(stringAt(subrequest, 'name'), child(path, 'name')), ...validateDeviceChoice(subrequest, path)];
}

/** validateDeviceRequest: a name, and exactly one of `exactly` and `firstAvailable`. */
function validateDeviceRequest(request: JsonObject, path: FieldPath): StatusCause[] {
  const causes = dns1123Label(stringAt(request, 'name'), child(path, 'name'));
  const subrequests = objectsAt(request, 'firstAvailable');
  const exactly = objectAt(request, 'exactly');
  if (subrequests.length > 0 && exactly !== undefined) {
    causes.push(invalid(path, null, 'exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set'));
  } else if (subrequests.length > 0) {
    appendAll(causes, validateSet(subrequests, firstAvailableMaxSize, validateDeviceSubRequest, (s) => stringAt(s, 'name'), child(path, 'firstAvailable')));
  } else if (exactly !== undefined) {
    appendAll(causes, validateDeviceChoice(exactly, child(path, 'exactly')));
  } else {
    causes.push(required(path, 'exactly one of `exactly` or `firstAvailable` is required'));
  }
  return causes;
}

/** validateDeviceConstraint: its requests, and the attribute it matches (or keeps distinct). */
function validateDeviceConstraint(names: RequestNames): Validate<JsonObject> {
  return (constraint, path) => {
    const causes = validateRequestRefs(constraint, path, names);
    if (typeof constraint.matchAttribute === 'string') causes.push(...validateFullyQualifiedName(constraint.matchAttribute, child(path, 'matchAttribute')));
    else if (typeof constraint.distinctAttribute === 'string') causes.push(...validateFullyQualifiedName(constraint.distinctAttribute, child(path, 'distinctAttribute')));
    // Upstream's wording (DRAConsumableCapacity on), though here neither is set.
    else causes.push(required(path, 'exactly one of "matchAttribute" or "distinctAttribute" is required, but multiple fields are set'));
    return causes;
  };
}

function validateDeviceClaimConfiguration(names: RequestNames): Validate<JsonObject> {
  return (config, path) => [...validateRequestRefs(config, path, names), ...validateDeviceConfiguration(config, path, false)];
}

/** validateDeviceClaim: requests, constraints and configuration of a claim's (or template's) spec. */
function validateDeviceClaim(devices: JsonObject, path: FieldPath): StatusCause[] {
  const names = requestNamesOf(devices);
  return [
    ...validateSet(objectsAt(devices, 'requests'), requestsMaxSize, validateDeviceRequest, (r) => stringAt(r, 'name'), child(path, 'requests')),
    ...validateSlice(objectsAt(devices, 'constraints'), constraintsMaxSize, validateDeviceConstraint(names), child(path, 'constraints')),
    ...validateSlice(objectsAt(devices, 'config'), deviceConfigMaxSize, validateDeviceClaimConfiguration(names), child(path, 'config')),
  ];
}

/** validateResourceClaimSpec. */
function validateResourceClaimSpec(spec: JsonObject | undefined, path: FieldPath): StatusCause[] {
  return validateDeviceClaim(objectAt(spec, 'devices') ?? {}, child(path, 'devices'));
}

// Defaults (pkg/apis/resource/v1: SetDefaults_ExactDeviceRequest, SetDefaults_DeviceSubRequest,
// and the toleration operator's +default).

function defaultTolerations(holder: JsonObject): void {
  for (const toleration of objectsAt(holder, 'tolerations')) if (!has(toleration.operator) || toleration.operator === '') toleration.operator = 'Equal';
}

function defaultDeviceChoice(request: JsonObject): void {
  if (!has(request.allocationMode) || request.allocationMode === '') request.allocationMode = 'ExactCount';
  if (request.allocationMode === 'ExactCount' && (!has(request.count) || request.count === 0)) request.count = 1;
  defaultTolerations(request);
}

function defaultClaimSpec(spec: JsonObject | undefined): void {
  for (const request of objectsAt(objectAt(spec, 'devices'), 'requests')) {
    const exactly = objectAt(request, 'exactly');
    if (exactly !== undefined) defaultDeviceChoice(exactly);
    for (const subrequest of objectsAt(request, 'firstAvailable')) defaultDeviceChoice(subrequest);
  }
}

function defaultClaimStatus(status: JsonObject | undefined): void {
  for (const result of objectsAt(objectAt(objectAt(status, 'allocation'), 'devices'), 'results')) defaultTolerations(result);
}

// Bad values as upstream renders them: json.Marshal of the internal Go types, whose fields
// have no json names (Go field names, in declaration order, nothing omitted).

const goText = (v: unknown): string => (typeof v === 'string' ? v : '');
const goInt = (v: unknown): number => (typeof v === 'number' ? v : 0);
const goPointer = (v: unknown): unknown => (has(v) ? v : null);
const goSlice = <T>(v: unknown, each: (item: JsonObject) => T): T[] | null => (Array.isArray(v) ? v.map((item) => each(isObject(item) ? item : {})) : null);
const goStrings = (v: unknown): string[] | null => (Array.isArray(v) ? strings(v) : null);

function goQuantities(m: unknown): Record<string, unknown> | null {
  if (!isObject(m)) return null;
  return Object.fromEntries(Object.keys(m).sort().map((k) => [k, canonicalQuantity(m[k])]));
}

function goToleration(t: JsonObject): unknown {
  return { Key: goText(t.key), Operator: goText(t.operator), Value: goText(t.value), Effect: goText(t.effect), TolerationSeconds: goPointer(t.tolerationSeconds) };
}

function goSelector(s: JsonObject): unknown {
  const c = objectAt(s, 'cel');
  return { CEL: c === undefined ? null : { Expression: goText(c.expression) } };
}

function goCapacity(c: JsonObject | undefined): unknown {
  return c === undefined ? null : { Requests: goQuantities(c.requests) };
}

function goExactRequest(r: JsonObject): unknown {
  return {
    DeviceClassName: goText(r.deviceClassName), Selectors: goSlice(r.selectors, goSelector), AllocationMode: goText(r.allocationMode),
    Count: goInt(r.count), AdminAccess: goPointer(r.adminAccess), Tolerations: goSlice(r.tolerations, goToleration), Capacity: goCapacity(objectAt(r, 'capacity')),
  };
}

function goSubRequest(r: JsonObject): unknown {
  return {
    Name: goText(r.name), DeviceClassName: goText(r.deviceClassName), Selectors: goSlice(r.selectors, goSelector), AllocationMode: goText(r.allocationMode),
    Count: goInt(r.count), Tolerations: goSlice(r.tolerations, goToleration), Capacity: goCapacity(objectAt(r, 'capacity')),
  };
}

/** An opaque configuration; the parameters (a RawExtension) are written as the JSON they are. */
function goOpaque(holder: JsonObject): unknown {
  const o = objectAt(holder, 'opaque');
  return o === undefined ? null : { Driver: goText(o.driver), Parameters: goPointer(o.parameters) };
}

function goClaimSpec(spec: JsonObject | undefined): Record<string, unknown> {
  const devices = objectAt(spec, 'devices');
  return {
    Devices: {
      Requests: goSlice(devices?.requests, (r) => {
        const exactly = objectAt(r, 'exactly');
        return { Name: goText(r.name), Exactly: exactly === undefined ? null : goExactRequest(exactly), FirstAvailable: goSlice(r.firstAvailable, goSubRequest) };
      }),
      Constraints: goSlice(devices?.constraints, (c) => ({ Requests: goStrings(c.requests), MatchAttribute: goPointer(c.matchAttribute), DistinctAttribute: goPointer(c.distinctAttribute) })),
      // DeviceConfiguration is embedded: its Opaque shows beside Requests.
      Config: goSlice(devices?.config, (c) => ({ Requests: goStrings(c.requests), Opaque: goOpaque(c) })),
    },
  };
}

/** The internal ResourceClaimTemplateSpec: its embedded ObjectMeta (json names) beside Spec. */
function goTemplateSpec(spec: JsonObject | undefined): GoValue {
  return goJson({ ...objectMetaJson(objectAt(spec, 'metadata') ?? {}), Spec: goClaimSpec(objectAt(spec, 'spec')) });
}

function goNodeSelector(selector: JsonObject | undefined): unknown {
  if (selector === undefined) return null;
  const requirement = (r: JsonObject) => ({ Key: goText(r.key), Operator: goText(r.operator), Values: goStrings(r.values) });
  return {
    NodeSelectorTerms: goSlice(selector.nodeSelectorTerms, (t) => ({ MatchExpressions: goSlice(t.matchExpressions, requirement), MatchFields: goSlice(t.matchFields, requirement) })),
  };
}

function goAllocation(allocation: JsonObject): GoValue {
  const devices = objectAt(allocation, 'devices');
  return goJson({
    Devices: {
      Results: goSlice(devices?.results, (r) => ({
        Request: goText(r.request), Driver: goText(r.driver), Pool: goText(r.pool), Device: goText(r.device), AdminAccess: goPointer(r.adminAccess),
        Tolerations: goSlice(r.tolerations, goToleration), BindingConditions: goStrings(r.bindingConditions), BindingFailureConditions: goStrings(r.bindingFailureConditions),
        ShareID: goPointer(r.shareID), ConsumedCapacity: goQuantities(r.consumedCapacity),
      })),
      Config: goSlice(devices?.config, (c) => ({ Source: goText(c.source), Requests: goStrings(c.requests), Opaque: goOpaque(c) })),
    },
    NodeSelector: goNodeSelector(objectAt(allocation, 'nodeSelector')),
    AllocationTimestamp: goPointer(allocation.allocationTimestamp),
  });
}

// Status.

/** structured.SharedDeviceID as its String() writes it: driver/pool/device, and the share's ID when there is one. */
function sharedDeviceID(device: JsonObject): string {
  const id = `${stringAt(device, 'driver')}/${stringAt(device, 'pool')}/${stringAt(device, 'device')}`;
  return typeof device.shareID === 'string' ? `${id}/${device.shareID}` : id;
}

const uuidNormalForm = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The error google/uuid's Validate gives, if any (the forms it accepts: plain, urn:uuid:, braced, without hyphens). */
function uuidError(uid: string): string | undefined {
  let s = uid;
  if (s.length === 45) {
    if (!s.toLowerCase().startsWith('urn:uuid:')) return `invalid urn prefix: ${JSON.stringify(s.slice(0, 9))}`;
    s = s.slice(9);
  } else if (s.length === 38) {
    if (!s.startsWith('{') || !s.endsWith('}')) return 'invalid bracketed UUID format';
    s = s.slice(1, -1);
  } else if (s.length === 32) {
    return /^[0-9a-fA-F]{32}$/.test(s) ? undefined : 'invalid UUID format';
  } else if (s.length !== 36) {
    return `invalid UUID length: ${s.length}`;
  }
  return /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s) ? undefined : 'invalid UUID format';
}

/** validateUID: a share's ID, a UUID in its normalised form. */
function validateUID(uid: string, path: FieldPath): StatusCause[] {
  const error = uuidError(uid);
  if (error !== undefined) return [invalid(path, uid, `error validating uid: ${error}`)];
  if (!uuidNormalForm.test(uid)) return [invalid(path, uid, 'uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters')];
  return [];
}

function validateConsumerReference(ref: JsonObject, path: FieldPath): StatusCause[] {
  return (['resource', 'name', 'uid'] as const).filter((f) => stringAt(ref, f) === '').map((f) => required(child(path, f)));
}

function validateAllocationResultEntry(names: RequestNames): Validate<JsonObject> {
  return (result, path) => [
    ...validateRequestNameRef(names)(stringAt(result, 'request'), child(path, 'request')),
    ...validateDriverName(stringAt(result, 'driver'), child(path, 'driver')),
    ...validatePoolName(stringAt(result, 'pool'), child(path, 'pool')),
    ...validateDeviceName(stringAt(result, 'device'), child(path, 'device')),
    ...validateDeviceBindingParameters(result, path),
    ...(typeof result.shareID === 'string' ? validateUID(result.shareID, child(path, 'shareID')) : []),
  ];
}

function validateAllocationConfiguration(names: RequestNames): Validate<JsonObject> {
  return (config, path) => {
    const source = stringAt(config, 'source');
    const causes: StatusCause[] = [];
    if (source === '') causes.push(required(child(path, 'source')));
    else if (!configSources.includes(source)) causes.push(notSupported(child(path, 'source'), source, configSources));
    causes.push(...validateRequestRefs(config, path, names), ...validateDeviceConfiguration(config, path, false));
    return causes;
  };
}

/** validateAllocationResult, for a new allocation: its devices, then the nodes it is for. */
function validateAllocationResult(allocation: JsonObject, path: FieldPath, names: RequestNames): StatusCause[] {
  const devices = objectAt(allocation, 'devices');
  const devicesPath = child(path, 'devices');
  const nodeSelector = objectAt(allocation, 'nodeSelector');
  return [
    ...validateSlice(objectsAt(devices, 'results'), allocationResultsMaxSize, validateAllocationResultEntry(names), child(devicesPath, 'results')),
    ...validateSlice(objectsAt(devices, 'config'), 2 * deviceConfigMaxSize, validateAllocationConfiguration(names), child(devicesPath, 'config')),
    ...(nodeSelector === undefined ? [] : validateNodeSelector(nodeSelector, child(path, 'nodeSelector'))),
  ];
}

/** IsValidInterfaceAddress: an address with its prefix length, as Go writes it. */
function validateInterfaceAddress(address: string, path: FieldPath): StatusCause[] {
  return interfaceAddressErrors(address).map((msg) => invalid(path, address, msg));
}

function validateNetworkData(data: JsonObject | undefined, path: FieldPath): StatusCause[] {
  if (data === undefined) return [];
  const causes: StatusCause[] = [];
  if (Buffer.byteLength(stringAt(data, 'interfaceName')) > interfaceNameMaxLength) causes.push(tooLong(child(path, 'interfaceName'), interfaceNameMaxLength));
  if (Buffer.byteLength(stringAt(data, 'hardwareAddress')) > hardwareAddressMaxLength) causes.push(tooLong(child(path, 'hardwareAddress'), hardwareAddressMaxLength));
  causes.push(...validateSet(strings(data.ips), networkDataMaxIPs, validateInterfaceAddress, (s) => s, child(path, 'ips')));
  return causes;
}

/** validateDeviceStatus: a device of the allocation, its conditions, data and network data. */
function validateDeviceStatus(allocated: Set<string>): Validate<JsonObject> {
  return (device, path) => {
    const causes = [
      ...validateDriverName(stringAt(device, 'driver'), child(path, 'driver')),
      ...validatePoolName(stringAt(device, 'pool'), child(path, 'pool')),
      ...validateDeviceName(stringAt(device, 'device'), child(path, 'device')),
      ...(typeof device.shareID === 'string' ? validateUID(device.shareID, child(path, 'shareID')) : []),
    ];
    const id = sharedDeviceID(device);
    if (!allocated.has(id)) causes.push(invalid(path, new GoValue(id), 'must be an allocated device in the claim'));
    const conditions = itemsAt(device, 'conditions');
    if (conditions.length > deviceStatusMaxConditions) causes.push(tooMany(child(path, 'conditions'), conditions.length, deviceStatusMaxConditions));
    causes.push(...validateConditions(conditions, child(path, 'conditions')));
    if (has(device.data)) {
      causes.push(...validateRawExtension(device.data, child(path, 'data'), false, deviceStatusDataMaxLength));
    }
    causes.push(...validateNetworkData(objectAt(device, 'networkData'), child(path, 'networkData')));
    return causes;
  };
}

function allocatedDevices(status: JsonObject | undefined): Set<string> {
  return new Set(objectsAt(objectAt(objectAt(status, 'allocation'), 'devices'), 'results').map(sharedDeviceID));
}

/** ValidateResourceClaimStatusUpdate beyond metadata. */
function validateClaimStatusUpdate(claim: KubeObject, old: KubeObject): StatusCause[] {
  const status = objectAt(claim, 'status');
  const oldStatus = objectAt(old, 'status');
  const names = requestNamesOf(objectAt(objectAt(claim, 'spec'), 'devices'));
  const reservedFor = objectsAt(status, 'reservedFor');
  const causes = [
    ...validateSet(reservedFor, reservedForMaxSize, validateConsumerReference, (r) => stringAt(r, 'uid'), 'status.reservedFor'),
    ...validateSet(objectsAt(status, 'devices'), -1, validateDeviceStatus(allocatedDevices(status)), (d) => new GoValue(sharedDeviceID(d)), 'status.devices'),
  ];
  const allocation = objectAt(status, 'allocation');
  const oldAllocation = objectAt(oldStatus, 'allocation');
  if (reservedFor.length > 0) {
    if (allocation === undefined) {
      causes.push(forbidden('status.reservedFor', 'may not be specified when `allocated` is not set'));
    } else if (has(claim.metadata.deletionTimestamp)) {
      // While the claim is being deleted, consumers may go but not come.
      const before = objectsAt(oldStatus, 'reservedFor');
      if (reservedFor.some((r) => !before.some((b) => semanticEqual(b, r)))) {
        causes.push(forbidden('status.reservedFor', 'new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set'));
      }
    }
  }
  if (allocation !== undefined && oldAllocation !== undefined) {
    if (!semanticEqual(allocation, oldAllocation)) causes.push(invalid('status.allocation', goAllocation(allocation), fieldImmutable));
  } else if (allocation !== undefined) {
    causes.push(...validateAllocationResult(allocation, 'status.allocation', names));
  }
  return causes;
}

/** dropDeallocatedStatusDevices: status entries of devices the old allocation had and the new one has not go. */
function dropDeallocatedStatusDevices(claim: KubeObject, old: KubeObject): void {
  const status = objectAt(claim, 'status');
  if (status === undefined || !Array.isArray(status.devices)) return;
  const kept = allocatedDevices(status);
  const deallocated = [...allocatedDevices(objectAt(old, 'status'))].filter((id) => !kept.has(id));
  const devices = objectsAt(status, 'devices').filter((d) => !deallocated.includes(sharedDeviceID(d)));
  if (devices.length === 0) delete status.devices;
  else status.devices = devices;
}

/**
 * A ResourceClaim's strategy: spec and status apart. Unlike most spec/status types, upstream's
 * never sets a generation (its PrepareForCreate only clears the status): a claim has none.
 */
export function resourceClaimStrategy(): Strategy {
  return {
    defaults(obj) {
      defaultClaimSpec(objectAt(obj, 'spec'));
    },
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate: keepOldStatus,
    // The spec is immutable: an update checks that alone (ValidateResourceClaimUpdate).
    validate: (obj, old) => (old === undefined ? validateResourceClaimSpec(objectAt(obj, 'spec'), 'spec') : []),
    validateUpdate(obj, old) {
      const spec = objectAt(obj, 'spec');
      return semanticEqual(spec, objectAt(old, 'spec')) ? [] : [invalid('spec', goJson(goClaimSpec(spec)), fieldImmutable)];
    },
    subresources: {
      status: {
        prepareForUpdate(obj, old) {
          keepOldSpec(obj, old);
          keepOldMetadata(obj, old);
          defaultClaimStatus(objectAt(obj, 'status'));
          dropDeallocatedStatusDevices(obj, old);
        },
        validateUpdate: validateClaimStatusUpdate,
      },
    },
  };
}

/** validateResourceClaimTemplateSpec: the claim's metadata (labels and annotations only) and spec. */
function validateTemplate(obj: KubeObject): StatusCause[] {
  const spec = objectAt(obj, 'spec');
  return [
    ...validateTemplateObjectMeta(objectAt(spec, 'metadata') ?? {}, 'spec.metadata'),
    ...validateResourceClaimSpec(objectAt(spec, 'spec'), 'spec.spec'),
  ];
}

/** A ResourceClaimTemplate's strategy. */
export function resourceClaimTemplateStrategy(): Strategy {
  return {
    defaults(obj) {
      defaultClaimSpec(objectAt(objectAt(obj, 'spec'), 'spec'));
    },
    // An update is validated as a create, and then its spec must not have changed.
    validate: validateTemplate,
    validateUpdate(obj, old) {
      const spec = objectAt(obj, 'spec');
      return semanticEqual(spec, objectAt(old, 'spec')) ? [] : [invalid('spec', goTemplateSpec(spec), fieldImmutable)];
    },
  };
}
