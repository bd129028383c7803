// resource.k8s.io ResourceSlices and DeviceClasses as upstream's registry treats them
// (pkg/registry/resource/resourceslice, deviceclass and pkg/apis/resource/validation):
// their defaults, validation and update rules.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { byteLength } from '../../api/labels.ts';
import { addQuantity, compareQuantity, formatQuantity, integerValue, isPositive, parseQuantity, type Quantity } from '../../api/quantity.ts';
import type { Strategy } from '../resource-type.ts';
import {
  appendAll,
  child, fieldImmutable, forbidden, goJson, index, invalid, key, notSupported, required, tooLong, tooMany, type FieldPath,
} from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain, isLabelValue } from '../validation/names.ts';
import { generationStrategy, nowTimestamp } from './common.ts';
import { arrayAt, itemsAt, objectAt, present, semanticEqual, stringAt } from './object.ts';
import {
  deviceConfigMaxSize, deviceMaxIDLength, deviceTaintEffects, validateDeviceBindingParameters, validateDeviceConfiguration, validateDeviceName,
  validateDeviceSelectors, validateDriverName, validateNodeSelector, validatePoolName, validateQualifiedName, validateSet, validateSlice,
} from './resource-devices.ts';
import { isExtendedResourceName, isQualifiedName } from './resource-names.ts';

// Limits of pkg/apis/resource (types.go).
const maxDevices = 128;
const maxDevicesWithAdvancedFeatures = 64;
const maxCounterSets = 8;
const maxCountersPerSet = 32;
const maxCounterConsumptionsPerDevice = 2;
const maxCountersPerConsumption = 32;
const maxAttributesAndCapacities = 32;
const maxAttributeValues = 48;
const maxDomainLength = 63;
const attributeValueMaxLength = 64;
const maxTaints = 16;
const maxDiscreteOptions = 10;
/** DNS1123LabelMaxLength: counter names are labels. */
const labelMaxLength = 63;

const attributeScalars = ['int', 'bool', 'string', 'version'] as const;
const attributeLists = ['ints', 'bools', 'strings', 'versions'] as const;


/** Validation's DNS-1123 helpers (ValidateDNS1123Label/Subdomain): each message an Invalid of the value. */
function asInvalid(messages: string[], path: FieldPath, value: string): StatusCause[] {
  return messages.map((msg) => invalid(path, value, msg));
}

/** A map's keys in a stable order (upstream ranges over a Go map, in no order). */
function entriesOf(map: unknown): [string, unknown][] {
  return isObject(map) ? Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [];
}

/** A long map key in a field path, cut in the middle as upstream's truncateIfTooLong does. */
function truncatedKey(name: string, maxLength: number): string {
  const limit = Math.max(maxLength, 16);
  if (name.length <= limit) return name;
  const remaining = limit - 3;
  return `${name.slice(0, Math.ceil(remaining / 2))}...${name.slice(name.length - Math.floor(remaining / 2))}`;
}

/** upstream's validateMap: too many entries stops there; key errors at the map, value errors at the key. */
function validateMap(map: unknown, max: number, truncateAt: number, path: FieldPath,
  validateKey: (name: string, p: FieldPath) => StatusCause[], validateValue: (value: unknown, p: FieldPath) => StatusCause[]): StatusCause[] {
  const entries = entriesOf(map);
  if (max >= 0 && entries.length > max) return [tooMany(path, entries.length, max)];
  return entries.flatMap(([name, value]) => [...validateKey(name, path), ...validateValue(value, key(path, truncatedKey(name, truncateAt)))]);
}

const semver = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$/;

function validateStringValue(value: string, path: FieldPath): StatusCause[] {
  return byteLength(value) > attributeValueMaxLength ? [tooLong(path, attributeValueMaxLength)] : [];
}

function validateVersionValue(value: string, path: FieldPath): StatusCause[] {
  const causes = semver.test(value) ? [] : [invalid(path, value, 'must be a string compatible with semver.org spec 2.0.0')];
  return [...causes, ...validateStringValue(value, path)];
}

/** An attribute as upstream prints it in an error: its set members, in the Go struct's order. */
function attributeJson(attr: JsonObject) {
  return goJson(Object.fromEntries([...attributeScalars, ...attributeLists].filter((k) => present(attr[k]) && !(Array.isArray(attr[k]) && attr[k].length === 0)).map((k) => [k, attr[k]])));
}

function validateDeviceAttribute(raw: unknown, path: FieldPath): StatusCause[] {
  const attr = isObject(raw) ? raw : {};
  const causes: StatusCause[] = [];
  let set = 0;
  for (const name of attributeScalars) {
    if (!present(attr[name])) continue;
    set++;
    if (name === 'string') appendAll(causes, validateStringValue(String(attr.string), child(path, 'string')));
    if (name === 'version') appendAll(causes, validateVersionValue(String(attr.version), child(path, 'version')));
  }
  for (const name of attributeLists) {
    if (!present(attr[name])) continue;
    set++;
    const values = arrayAt(attr, name);
    if (values.length === 0) causes.push(invalid(child(path, name), values, 'must not be empty if specified'));
    if (name === 'strings') values.forEach((v, i) => appendAll(causes, validateStringValue(String(v), index(child(path, name), i))));
    if (name === 'versions') values.forEach((v, i) => appendAll(causes, validateVersionValue(String(v), index(child(path, name), i))));
  }
  if (set === 0) causes.push(invalid(path, '', 'exactly one value must be specified'));
  else if (set > 1) causes.push(invalid(path, attributeJson(attr), 'exactly one value must be specified'));
  return causes;
}

/** How many attribute values a device has: one per scalar, each item of a list. */
function attributeValueCount(device: JsonObject): number {
  return entriesOf(device.attributes).reduce((n, [, raw]) => {
    const attr = isObject(raw) ? raw : {};
    const items = attributeLists.reduce((m, name) => m + arrayAt(attr, name).length, 0);
    return n + (items === 0 ? 1 : items);
  }, 0);
}

const quantityAt = (parent: unknown, name: string): Quantity | undefined => (isObject(parent) ? parseQuantity(parent[name]) : undefined);

function validateValidValues(defaultValue: Quantity, capacity: Quantity, values: unknown[], path: FieldPath): StatusCause[] {
  const quantities = values.map((v) => parseQuantity(v) ?? { num: 0n, den: 1n });
  const causes: StatusCause[] = [];
  for (let i = 0; i + 1 < quantities.length; i++) {
    if (compareQuantity(quantities[i]!, quantities[i + 1]!) > 0) causes.push(invalid(index(path, i + 1), formatQuantity(quantities[i + 1]!), 'values must be sorted in ascending order'));
  }
  let foundDefault = false;
  appendAll(causes, validateSet(quantities, maxDiscreteOptions, (option, p) => {
    if (compareQuantity(option, defaultValue) === 0) foundDefault = true;
    return compareQuantity(option, capacity) > 0 ? [invalid(p, formatQuantity(option), `option is larger than capacity value: ${formatQuantity(capacity)}`)] : [];
  }, (option) => String(integerValue(option)), path));
  if (!foundDefault) causes.push(invalid(path, formatQuantity(defaultValue), 'default value is not valid according to the requestPolicy'));
  return causes;
}

function stepCauses(value: Quantity, min: Quantity, step: Quantity, path: FieldPath): StatusCause[] {
  if ((integerValue(value) - integerValue(min)) % integerValue(step) === 0n) return [];
  return [invalid(path, formatQuantity(value), `value is not a multiple of a given step (${formatQuantity(step)}) from (${formatQuantity(min)})`)];
}

function validateValidRange(defaultValue: Quantity, capacity: Quantity, range: JsonObject, path: FieldPath): StatusCause[] {
  const min = quantityAt(range, 'min');
  if (min === undefined) return [required(child(path, 'min'), 'required when validRange is defined')];
  const max = quantityAt(range, 'max');
  const step = quantityAt(range, 'step');
  const causes: StatusCause[] = [];
  const cap = formatQuantity(capacity);
  if (compareQuantity(min, capacity) > 0) causes.push(invalid(child(path, 'min'), formatQuantity(min), `min is larger than capacity value: ${cap}`));
  if (compareQuantity(defaultValue, min) < 0) causes.push(invalid(child(path, 'default'), formatQuantity(defaultValue), `default is less than min: ${formatQuantity(min)}`));
  if (max !== undefined) {
    if (compareQuantity(min, max) > 0) causes.push(invalid(child(path, 'max'), formatQuantity(min), `min is larger than max: ${formatQuantity(max)}`));
    if (compareQuantity(max, capacity) > 0) causes.push(invalid(child(path, 'max'), formatQuantity(max), `max is larger than capacity value: ${cap}`));
    if (compareQuantity(defaultValue, max) > 0) causes.push(invalid(child(path, 'default'), formatQuantity(defaultValue), `default is more than max: ${formatQuantity(max)}`));
  }
  if (step !== undefined) {
    const stepPath = child(path, 'step');
    if (!isPositive(step)) return [...causes, invalid(stepPath, formatQuantity(step), 'must be greater than zero')];
    const added = addQuantity(min, step);
    if (compareQuantity(added, capacity) > 0) causes.push(invalid(stepPath, formatQuantity(step), `one step ${formatQuantity(added)} is larger than capacity value: ${cap}`));
    appendAll(causes, stepCauses(defaultValue, min, step, stepPath));
    if (max !== undefined) appendAll(causes, stepCauses(max, min, step, stepPath));
  }
  return causes;
}

/** A consumable capacity's request policy (a device allowing multiple allocations). */
function validateRequestPolicy(capacity: Quantity, policy: JsonObject, path: FieldPath): StatusCause[] {
  const validValues = arrayAt(policy, 'validValues');
  const range = objectAt(policy, 'validRange');
  if (validValues.length > 0 && range !== undefined) {
    return [forbidden(path, 'exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time')];
  }
  const defaultValue = quantityAt(policy, 'default');
  if (validValues.length > 0) {
    if (defaultValue === undefined) return [required(child(path, 'default'), 'required when validValues is defined')];
    return validateValidValues(defaultValue, capacity, validValues, child(path, 'validValues'));
  }
  if (range !== undefined) {
    if (defaultValue === undefined) return [required(child(path, 'default'), 'required when validRange is defined')];
    return validateValidRange(defaultValue, capacity, range, child(path, 'validRange'));
  }
  return [];
}

/** A core NodeSelectorTerm list as json.Marshal writes it in an error. */
function nodeSelectorTermsJson(terms: unknown[]) {
  const requirement = (r: unknown) => {
    const req = isObject(r) ? r : {};
    return { key: stringAt(req, 'key'), operator: stringAt(req, 'operator'), ...(arrayAt(req, 'values').length > 0 ? { values: arrayAt(req, 'values') } : {}) };
  };
  return goJson(terms.map((t) => {
    const term = isObject(t) ? t : {};
    const out: Record<string, unknown> = {};
    for (const name of ['matchExpressions', 'matchFields']) if (arrayAt(term, name).length > 0) out[name] = arrayAt(term, name).map(requirement);
    return out;
  }));
}

function validateNodeName(name: string, path: FieldPath): StatusCause[] {
  return asInvalid(isDNS1123Subdomain(name), path, name);
}

function validateDeviceTaint(raw: unknown, path: FieldPath): StatusCause[] {
  const taint = isObject(raw) ? raw : {};
  const taintKey = stringAt(taint, 'key');
  const value = stringAt(taint, 'value');
  const effect = stringAt(taint, 'effect');
  const causes = asInvalid(isQualifiedName(taintKey), child(path, 'key'), taintKey);
  if (value !== '') appendAll(causes, asInvalid(isLabelValue(value), child(path, 'value'), value));
  if (effect === '') causes.push(required(child(path, 'effect')));
  else if (!deviceTaintEffects.includes(effect)) causes.push(notSupported(child(path, 'effect'), effect, deviceTaintEffects));
  return causes;
}

function validateCounterName(name: string, path: FieldPath): StatusCause[] {
  return asInvalid(isDNS1123Label(name), path, name);
}

/** A counter set (spec.sharedCounters) or a device's consumption of one: a name and a map of counters. */
function validateCounters(item: JsonObject, nameField: string, maxCounters: number, path: FieldPath): StatusCause[] {
  const name = stringAt(item, nameField);
  const causes = name === '' ? [required(child(path, nameField))] : validateCounterName(name, child(path, nameField));
  if (entriesOf(item.counters).length === 0) causes.push(required(child(path, 'counters')));
  else appendAll(causes, validateMap(item.counters, maxCounters, labelMaxLength, child(path, 'counters'), validateCounterName, () => []));
  return causes;
}

/** Where a device's nodes are said when the slice selects nodes per device, and that they are not said otherwise. */
function validateDeviceNodes(device: JsonObject, perDevice: boolean, path: FieldPath): StatusCause[] {
  const exactlyOne = 'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec';
  if (!perDevice) {
    if (!present(device.nodeName) && !present(device.nodeSelector) && !present(device.allNodes)) return [];
    return [invalid(path, null, '`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec')];
  }
  const causes: StatusCause[] = [];
  const set: string[] = [];
  if (present(device.nodeName)) {
    const nodeName = String(device.nodeName);
    if (nodeName === '') causes.push(invalid(child(path, 'nodeName'), '', 'must not be empty'));
    else {
      set.push('`nodeName`');
      appendAll(causes, validateNodeName(nodeName, child(path, 'nodeName')));
    }
  }
  const selector = objectAt(device, 'nodeSelector');
  if (selector !== undefined) {
    set.push('`nodeSelector`');
    appendAll(causes, validateNodeSelector(selector, child(path, 'nodeSelector')));
  }
  if (present(device.allNodes)) {
    if (device.allNodes === true) set.push('`allNodes`');
    else causes.push(invalid(child(path, 'allNodes'), device.allNodes, 'must be either unset or set to true'));
  }
  if (set.length === 0) causes.push(required(path, exactlyOne));
  else if (set.length > 1) causes.push(invalid(path, `{${set.join(', ')}}`, exactlyOne));
  return causes;
}

function validateDevice(device: JsonObject, old: JsonObject | undefined, perDevice: boolean, path: FieldPath): StatusCause[] {
  const name = stringAt(device, 'name');
  const causes = validateDeviceName(name, child(path, 'name'));
  const attributesAndCapacities = entriesOf(device.attributes).length + entriesOf(device.capacity).length;
  if (attributesAndCapacities > maxAttributesAndCapacities) {
    causes.push(invalid(path, attributesAndCapacities, `the total number of attributes and capacities must not exceed ${maxAttributesAndCapacities}`));
  }
  const values = attributeValueCount(device);
  if (values > maxAttributeValues) causes.push(invalid(path, values, `the total number of attribute values must not exceed ${maxAttributeValues}`));
  const nameLimit = maxDomainLength + 1 + deviceMaxIDLength;
  appendAll(causes, validateMap(device.attributes, -1, nameLimit, child(path, 'attributes'), validateQualifiedName, validateDeviceAttribute));
  // Unchanged capacities and taints are not checked again (upstream's rules tightened since they were stored).
  if (old === undefined || !semanticEqual(old.capacity, device.capacity)) {
    const multiple = device.allowMultipleAllocations === true;
    appendAll(causes, validateMap(device.capacity, -1, nameLimit, child(path, 'capacity'), validateQualifiedName, (raw, p) => {
      const policy = objectAt(raw, 'requestPolicy');
      if (policy === undefined) return [];
      if (!multiple) return [forbidden(child(p, 'requestPolicy'), 'allowMultipleAllocations must be true')];
      return validateRequestPolicy(quantityAt(raw, 'value') ?? { num: 0n, den: 1n }, policy, child(p, 'requestPolicy'));
    }));
  }
  if (old === undefined || !semanticEqual(old.taints, device.taints)) {
    appendAll(causes, validateSlice(arrayAt(device, 'taints'), maxTaints, validateDeviceTaint, child(path, 'taints')));
  }
  appendAll(causes, validateSet(itemsAt(device, 'consumesCounters'), maxCounterConsumptionsPerDevice,
    (c, p) => validateCounters(c, 'counterSet', maxCountersPerConsumption, p), (c) => stringAt(c, 'counterSet'), child(path, 'consumesCounters')));
  appendAll(causes, validateDeviceNodes(device, perDevice, path));
  appendAll(causes, validateDeviceBindingParameters(device, path));
  return causes;
}

function hasListAttributes(device: JsonObject): boolean {
  return entriesOf(device.attributes).some(([, attr]) => attributeLists.some((name) => isObject(attr) && present(attr[name])));
}

/** Taints, counter consumption and list attributes make a slice's devices costlier: fewer are allowed. */
function deviceLimit(devices: JsonObject[]): number {
  const advanced = devices.some((d) => arrayAt(d, 'taints').length > 0 || arrayAt(d, 'consumesCounters').length > 0 || hasListAttributes(d));
  return advanced ? maxDevicesWithAdvancedFeatures : maxDevices;
}

const exactlyOneNodeSelection = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';

/** validateResourceSliceSpec; `old` on update. */
export function validateResourceSliceSpec(spec: JsonObject, old: JsonObject | undefined): StatusCause[] {
  const driver = stringAt(spec, 'driver');
  const pool = objectAt(spec, 'pool') ?? {};
  const causes = validateDriverName(driver, 'spec.driver');
  appendAll(causes, validatePoolName(stringAt(pool, 'name'), 'spec.pool.name'));
  const sliceCount = typeof pool.resourceSliceCount === 'number' ? pool.resourceSliceCount : 0;
  if (sliceCount <= 0) causes.push(invalid('spec.pool.resourceSliceCount', sliceCount, 'must be greater than zero'));
  const generation = typeof pool.generation === 'number' ? pool.generation : 0;
  if (generation < 0) causes.push(invalid('spec.pool.generation', generation, 'must be greater than or equal to zero'));
  if (old !== undefined) {
    const oldPoolName = stringAt(objectAt(old, 'pool'), 'name');
    if (stringAt(pool, 'name') !== oldPoolName) causes.push(invalid('spec.pool.name', stringAt(pool, 'name'), fieldImmutable));
    if (driver !== stringAt(old, 'driver')) causes.push(invalid('spec.driver', driver, fieldImmutable));
    if (!semanticEqual(spec.nodeName ?? null, old.nodeName ?? null)) causes.push(invalid('spec.nodeName', spec.nodeName ?? null, fieldImmutable));
  }

  const set: string[] = [];
  if (present(spec.nodeName)) {
    const nodeName = String(spec.nodeName);
    if (nodeName === '') causes.push(invalid('spec.nodeName', '', 'must be either unset or set to a non-empty string'));
    else {
      set.push('`nodeName`');
      appendAll(causes, validateNodeName(nodeName, 'spec.nodeName'));
    }
  }
  const selector = objectAt(spec, 'nodeSelector');
  if (selector !== undefined) {
    set.push('`nodeSelector`');
    appendAll(causes, validateNodeSelector(selector, 'spec.nodeSelector'));
    const terms = arrayAt(selector, 'nodeSelectorTerms');
    // One term keeps the merging of selectors simple when a claim's devices come from several slices.
    if (terms.length !== 1) causes.push(invalid('spec.nodeSelector.nodeSelectorTerms', Array.isArray(selector.nodeSelectorTerms) ? nodeSelectorTermsJson(terms) : null, 'must have exactly one node selector term'));
  }
  for (const flag of ['allNodes', 'perDeviceNodeSelection']) {
    if (!present(spec[flag])) continue;
    if (spec[flag] === true) set.push(`\`${flag}\``);
    else causes.push(invalid(`spec.${flag}`, spec[flag], 'must be either unset or set to true'));
  }
  if (set.length === 0) causes.push(required('spec', exactlyOneNodeSelection));
  else if (set.length > 1) causes.push(invalid('spec', `{${set.join(', ')}}`, `${exactlyOneNodeSelection}, but multiple fields are set`));

  if (present(spec.sharedCounters) && present(spec.devices)) causes.push(invalid('spec', '', 'only one of `sharedCounters` or `devices` is allowed'));
  const devices = itemsAt(spec, 'devices');
  const oldDevices = old === undefined ? [] : itemsAt(old, 'devices');
  const perDevice = spec.perDeviceNodeSelection === true;
  appendAll(causes, validateSet(devices, deviceLimit(devices),
    (d, p) => validateDevice(d, oldDevices.find((o) => stringAt(o, 'name') === stringAt(d, 'name')), perDevice, p), (d) => stringAt(d, 'name'), 'spec.devices'));
  appendAll(causes, validateSet(itemsAt(spec, 'sharedCounters'), maxCounterSets,
    (c, p) => validateCounters(c, 'name', maxCountersPerSet, p), (c) => stringAt(c, 'name'), 'spec.sharedCounters'));
  return causes;
}

/**
 * Decoding's defaults and the strategy's dropping of fields whose feature gate is off in
 * v1.36 (DRANodeAllocatableResources, DRAListTypeAttributes), unless the stored slice uses them.
 */
/** SetDefaults_DeviceTaint: a taint without a time was added now. */
function defaultSlice(spec: JsonObject | undefined): void {
  for (const device of itemsAt(spec, 'devices')) {
    for (const taint of itemsAt(device, 'taints')) if (!present(taint.timeAdded)) taint.timeAdded = nowTimestamp();
  }
}

function prepareSlice(spec: JsonObject | undefined, old: JsonObject | undefined): void {
  if (spec === undefined) return;
  const devices = itemsAt(spec, 'devices');
  const oldDevices = old === undefined ? [] : itemsAt(old, 'devices');
  if (!oldDevices.some((d) => entriesOf(d.nodeAllocatableResourceMappings).length > 0)) {
    for (const device of devices) delete device.nodeAllocatableResourceMappings;
  }
  if (!oldDevices.some(hasListAttributes)) {
    for (const device of devices) {
      for (const [, attr] of entriesOf(device.attributes)) if (isObject(attr)) for (const name of attributeLists) delete attr[name];
    }
  }
}

/** A driver's name is compared as written: upstream's WarningsOnCreate and WarningsOnUpdate warn of capitals, which validation allows. */
function driverCaseWarnings(slice: KubeObject): string[] {
  const driver = stringAt(objectAt(slice, 'spec'), 'driver');
  return driver === driver.toLowerCase() ? [] : [`spec.driver: driver names should be lowercase; ${JSON.stringify(driver)} contains uppercase characters`];
}

/** A ResourceSlice's strategy: defaults, dropped gated fields, validation; its generation moves with any change. */
export function resourceSliceStrategy(): Strategy {
  return generationStrategy({
    warningsOnCreate: driverCaseWarnings,
    warningsOnUpdate: driverCaseWarnings,
    defaults(obj) {
      defaultSlice(objectAt(obj, 'spec'));
    },
    prepareForCreate(obj) {
      prepareSlice(objectAt(obj, 'spec'), undefined);
    },
    prepareForUpdate(obj, old) {
      prepareSlice(objectAt(obj, 'spec'), objectAt(old, 'spec'));
    },
    validate(obj, old) {
      return validateResourceSliceSpec(objectAt(obj, 'spec') ?? {}, old === undefined ? undefined : objectAt(old, 'spec') ?? {});
    },
  });
}

/** validateDeviceClassSpec; on update, selectors and config as stored are not checked again. */
export function validateDeviceClassSpec(spec: JsonObject, old: JsonObject | undefined): StatusCause[] {
  const selectorsStored = old !== undefined && semanticEqual(spec.selectors ?? [], old.selectors ?? []);
  const causes = validateDeviceSelectors(itemsAt(spec, 'selectors'), 'spec.selectors', selectorsStored);
  const configStored = old !== undefined && semanticEqual(spec.config ?? [], old.config ?? []);
  appendAll(causes, validateSlice(itemsAt(spec, 'config'), deviceConfigMaxSize, (c, p) => validateDeviceConfiguration(c, p, configStored), 'spec.config'));
  if (present(spec.extendedResourceName)) {
    const name = String(spec.extendedResourceName);
    if (!isExtendedResourceName(name)) causes.push(invalid('spec.extendedResourceName', name, 'must be a valid extended resource name'));
  }
  return causes;
}

/** A DeviceClass's strategy: validation (CEL selectors compile); its generation moves with any change. */
export function deviceClassStrategy(): Strategy {
  return generationStrategy({
    validate(obj, old) {
      const spec = objectAt(obj, 'spec') ?? {};
      // Upstream's ValidateUpdate runs the create validation and then the update one, each with its own causes.
      const causes = validateDeviceClassSpec(spec, undefined);
      return old === undefined ? causes : [...causes, ...validateDeviceClassSpec(spec, objectAt(old, 'spec') ?? {})];
    },
  });
}
