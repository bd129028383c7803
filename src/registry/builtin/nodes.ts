// core/v1 nodes, after kubernetes pkg/registry/core/node/strategy.go and
// pkg/apis/core/validation's ValidateNode and ValidateNodeUpdate.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { appendAll, child, duplicate, forbidden, goJson, goQuote, index, invalid, notSupported, required } from '../validation/field.ts';
import { isLabelValue, isQualifiedName } from '../validation/names.ts';
import { byteLength, maxLenError } from '../../api/labels.ts';
import { canonicalQuantity, isNegative, milliValue, parseQuantity } from '../../api/quantity.ts';
import { compareStrings } from '../../apply/field-path.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { keepOldSpec, keepOldStatus } from './common.ts';
import type { JsonObject } from '../../api/json.ts';
import { cidrForLegacyFieldErrors, cidrWarnings, invalidCIDRMessage, ipFamilyOf } from '../validation/ip.ts';
import { legacyCIDRCauses } from './legacy-ip-fields.ts';
import { arrayAt, defaultEmptyObject, ensureObject, numberAt, objectAt, present, stringAt, stringsAt } from './object.ts';
import { isIntegerResourceName } from './resource-names.ts';
import { nodeColumns } from './table-columns.ts';

/**
 * Marks a Node that Plinth's simulated kubelets play (--simulated-nodes): every replica
 * answers its pods' logs with a fixed line, since no container runs anywhere.
 */
export const simulatedNodeAnnotation = 'simulation.plinth.dev/simulated';

/** The line `kubectl logs` prints for a container on a simulated node. */
export function simulatedLogLine(namespace: string, pod: string, container: string, nodeName: string): string {
  return `container ${container} of pod ${namespace}/${pod} runs on simulated node ${nodeName}: nothing runs there, so it has no output\n`;
}

const nodeInfoFields = [
  'machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion',
  'kubeProxyVersion', 'operatingSystem', 'architecture',
];

/**
 * What v1's NodeSpec conversion to the internal type and back makes of the two pod CIDR
 * fields: the internal type holds the list only, taken from podCIDR where that is set and
 * is not the list's first entry (the list is dropped then), and podCIDR is written back as
 * the list's first entry. A client that sets either field reads both.
 */
function convertPodCIDRs(spec: JsonObject): void {
  const single = stringAt(spec, 'podCIDR');
  const cidrs = stringsAt(spec, 'podCIDRs');
  if (single !== '' && cidrs[0] !== single) spec.podCIDRs = [single];
  else if (single === '' && cidrs.length > 0) spec.podCIDR = cidrs[0];
}

/**
 * SetDefaults_NodeStatus (allocatable defaults to capacity), plus the empty structs Go
 * always emits for a node (spec, daemonEndpoints, nodeInfo).
 */
function defaultNode(node: KubeObject): void {
  const n = node as JsonObject;
  defaultEmptyObject(n, 'spec');
  convertPodCIDRs(objectAt(n, 'spec')!);
  const status = ensureObject(n, 'status');
  if (status.allocatable === undefined && objectAt(status, 'capacity') !== undefined) status.allocatable = { ...objectAt(status, 'capacity') };
  const endpoints = ensureObject(status, 'daemonEndpoints');
  const kubelet = ensureObject(endpoints, 'kubeletEndpoint');
  if (kubelet.Port === undefined) kubelet.Port = 0;
  const nodeInfo = ensureObject(status, 'nodeInfo');
  for (const field of nodeInfoFields) if (nodeInfo[field] === undefined) nodeInfo[field] = '';
}

const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

function validateTaints(node: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  arrayAt(objectAt(node, 'spec'), 'taints').forEach((taint, i) => {
    // Upstream builds the path from "metadata" (ValidateNode's fldPath), not "spec".
    const p = index('metadata.taints', i);
    const key = stringAt(taint, 'key');
    const value = stringAt(taint, 'value');
    const effect = stringAt(taint, 'effect');
    for (const msg of isQualifiedName(key)) causes.push(invalid(child(p, 'key'), key, msg));
    const valueErrs = isLabelValue(value);
    if (valueErrs.length > 0) causes.push(invalid(child(p, 'value'), value, valueErrs.join(';')));
    if (effect === '') causes.push(required(child(p, 'effect')));
    else if (!taintEffects.includes(effect)) causes.push(notSupported(child(p, 'effect'), effect, taintEffects));
    const k = `${effect}\u0000${key}`;
    if (seen.has(k)) {
      // The internal core.Taint; timeAdded is already in metav1.Time's canonical form.
      const cause = duplicate(p, goJson({ Key: key, Value: value, Effect: effect, TimeAdded: stringAt(taint, 'timeAdded') || null }));
      cause.message = `${cause.message}: taints must be unique by key and effect pair`;
      causes.push(cause);
    }
    seen.add(k);
  });
  return causes;
}

/** A resource map's entry path as upstream builds it: field.NewPath("status", "capacity", name). */
function resourcePath(base: string, name: string): string {
  return name === '' ? `${base}[]` : `${base}.${name}`;
}

/**
 * upstream's ValidateNodeResources: each quantity of status.capacity and status.allocatable
 * not negative, and whole for a resource counted in units (pods, extended resources).
 */
function validateNodeResources(node: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const status = objectAt(node, 'status');
  for (const field of ['capacity', 'allocatable']) {
    for (const [name, raw] of Object.entries(objectAt(status, field) ?? {})) {
      const q = parseQuantity(raw);
      if (q === undefined) continue;
      const path = resourcePath(`status.${field}`, name);
      if (isNegative(q)) causes.push(invalid(path, canonicalQuantity(raw), 'must be greater than or equal to 0'));
      if (isIntegerResourceName(name) && milliValue(q) % 1000n !== 0n) causes.push(invalid(path, canonicalQuantity(raw), 'must be an integer'));
    }
  }
  return causes;
}

/** upstream's validateNodeSwapStatus, at the path it gives (under "metadata", ValidateNode's fldPath). */
function validateSwapStatus(node: KubeObject): StatusCause[] {
  const capacity = numberAt(objectAt(objectAt(objectAt(node, 'status'), 'nodeInfo'), 'swap'), 'capacity');
  if (capacity === undefined || capacity > 0) return [];
  return [invalid('metadata.nodeSwapStatus.capacity', capacity, 'must be greater than zero')];
}

/** ValidateNodeUpdate's check that no address is listed twice (type and address alike). */
function validateAddresses(node: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  arrayAt(objectAt(node, 'status'), 'addresses').forEach((address, i) => {
    const type = stringAt(address, 'type');
    const value = stringAt(address, 'address');
    const k = `${type}\u0000${value}`;
    // The internal core.NodeAddress, as json.Marshal writes it (Go field names).
    if (seen.has(k)) causes.push(duplicate(index('status.addresses', i), goJson({ Type: type, Address: value })));
    seen.add(k);
  });
  return causes;
}

// A declared feature's name: an UpperCamelCase segment, then '/'-separated segments of either case.
const declaredFeatureName = /^[A-Z][a-zA-Z0-9]*(\/[a-zA-Z][a-zA-Z0-9]*)*$/;

function declaredFeatureNameError(name: string): string | undefined {
  if (byteLength(name) > 253) return `invalid feature name ${goQuote(name)}: ${maxLenError(253)}`;
  if (!declaredFeatureName.test(name)) {
    return `invalid feature name ${goQuote(name)}: must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes`;
  }
  return undefined;
}

/**
 * upstream's validateNodeDeclaredFeatures: each name well formed, and the list sorted
 * (Go's string order) without repeats, each pair judged at its second entry.
 */
function validateDeclaredFeatures(node: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const features = stringsAt(objectAt(node, 'status'), 'declaredFeatures');
  features.forEach((feature, i) => {
    const nameError = declaredFeatureNameError(feature);
    if (nameError !== undefined) causes.push(invalid(index('status.declaredFeatures', i), feature, nameError));
    if (i + 1 === features.length) return;
    const next = features[i + 1]!;
    const order = compareStrings(feature, next);
    if (order === 0) causes.push(duplicate(index('status.declaredFeatures', i + 1), next));
    else if (order > 0) causes.push(invalid(index('status.declaredFeatures', i + 1), next, 'list must be sorted alphabetically'));
  });
  return causes;
}

/**
 * The pod CIDRs as upstream's internal Node holds them (convertPodCIDRs), at spec.podCIDRs'
 * paths; a stored node may predate that conversion.
 */
function podCIDRsOf(node: KubeObject): string[] {
  const spec = objectAt(node, 'spec');
  const cidrs = stringsAt(spec, 'podCIDRs');
  const single = stringAt(spec, 'podCIDR');
  return single !== '' && cidrs[0] !== single ? [single] : cidrs;
}

/**
 * ValidateNode's pod CIDRs: each a legacy field's CIDR (strict, KEP-4858; upstream passes no
 * old values: a node's CIDRs never change once set), and more than one a dual-stack pair.
 */
function validatePodCIDRs(node: KubeObject): StatusCause[] {
  const cidrs = podCIDRsOf(node);
  const path = 'spec.podCIDRs';
  const causes = cidrs.flatMap((cidr, i) => legacyCIDRCauses(index(path, i), cidr));
  if (cidrs.length < 2) return causes;
  // netutils.IsDualStackCIDRStrings (Go's sloppy parser), whose parse error upstream reports as an internal one.
  const bad = cidrs.findIndex((cidr) => cidrForLegacyFieldErrors(cidr)[0] === invalidCIDRMessage);
  if (bad >= 0) {
    const message = `invalid PodCIDRs. failed to check with dual stack with error:failed to parse cidr value:${goQuote(cidrs[bad]!)} with error:invalid CIDR address: ${cidrs[bad]!}`;
    causes.push({ reason: 'InternalError', field: path, message: `Internal error: ${message}` });
  }
  const dualStack = bad < 0 && new Set(cidrs.map((cidr) => ipFamilyOf(cidr.slice(0, cidr.indexOf('/'))))).size === 2;
  if (!dualStack || cidrs.length > 2) causes.push(invalid(path, cidrs, 'may specify no more than one CIDR for each IP family'));
  return causes;
}

/**
 * upstream's ValidateNodeUpdate, what of it Plinth checks; nodes/status runs it alone, a
 * PUT after `validate` (ValidateNode), so what both check (taints, resources, declared
 * features) is reported twice there as upstream does.
 */
function validateNodeUpdate(node: KubeObject, old: KubeObject): StatusCause[] {
  const causes = validateNodeResources(node);
  appendAll(causes, validateDeclaredFeatures(node));
  appendAll(causes, validateAddresses(node));
  const spec = objectAt(node, 'spec') ?? {};
  const oldSpec = objectAt(old, 'spec') ?? {};
  // podCIDR(s) and providerID may only go from unset to set.
  const cidrs = podCIDRsOf(node);
  const oldCIDRs = podCIDRsOf(old);
  if (oldCIDRs.length > 0) {
    // Upstream compares the lists entry by entry, reporting each difference.
    const changes = oldCIDRs.length !== cidrs.length ? 1 : oldCIDRs.filter((cidr, i) => cidr !== cidrs[i]).length;
    for (let i = 0; i < changes; i++) causes.push(forbidden('spec.podCIDRs', 'node updates may not change podCIDR except from "" to valid'));
  }
  const oldProvider = stringAt(oldSpec, 'providerID');
  if (oldProvider !== '' && oldProvider !== stringAt(spec, 'providerID')) {
    causes.push(forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  appendAll(causes, validateTaints(node));
  if (stringAt(spec, 'externalID') !== stringAt(oldSpec, 'externalID')) causes.push(forbidden('spec.externalID', 'may not be updated'));
  return causes;
}

/**
 * dropDisabledFields: the removed dynamic kubelet configuration. spec.configSource and
 * status.config are kept only where the stored node had them; a new node gets neither.
 */
function dropRemovedConfig(node: KubeObject, old: KubeObject | undefined): void {
  const spec = objectAt(node, 'spec');
  if (spec !== undefined && !present(objectAt(old, 'spec')?.configSource)) delete spec.configSource;
  const status = objectAt(node, 'status');
  if (status !== undefined && !present(objectAt(old, 'status')?.config)) delete status.config;
}

/** nodeWarnings: deprecated fields, and pod CIDRs a later release may refuse. */
function nodeWarnings(node: KubeObject): string[] {
  const spec = objectAt(node, 'spec');
  const warnings: string[] = [];
  if (present(spec?.configSource)) warnings.push('spec.configSource: the feature is removed');
  if (stringAt(spec, 'externalID') !== '') warnings.push('spec.externalID: this field is deprecated, and is unused by Kubernetes');
  podCIDRsOf(node).forEach((cidr, i) => appendAll(warnings, cidrWarnings(index('spec.podCIDRs', i), cidr)));
  return warnings;
}

const nodeStrategy: Strategy = {
  // Nodes may set their status on create.
  defaults: defaultNode,

  prepareForCreate(node) {
    dropRemovedConfig(node, undefined);
  },

  prepareForUpdate(node, old) {
    keepOldStatus(node, old);
    dropRemovedConfig(node, old);
  },

  validate(node) {
    const causes = validateKubeFinalizerNames(node.metadata.finalizers, 'metadata.finalizers');
    appendAll(causes, validateTaints(node));
    appendAll(causes, validateNodeResources(node));
    appendAll(causes, validateSwapStatus(node));
    appendAll(causes, validateDeclaredFeatures(node));
    appendAll(causes, validatePodCIDRs(node));
    return causes;
  },

  validateUpdate: validateNodeUpdate,

  warningsOnCreate: nodeWarnings,
  warningsOnUpdate: nodeWarnings,

  selectableFields(node) {
    return { 'spec.unschedulable': String(objectAt(node, 'spec')?.unschedulable === true) };
  },

  fieldLabels: ['metadata.name', 'spec.unschedulable'],

  subresources: {
    status: {
      prepareForUpdate(node, old) {
        keepOldSpec(node, old);
        dropRemovedConfig(node, old);
        defaultNode(node);
      },
      validateUpdate: validateNodeUpdate,
    },
  },
};

export function nodesType(): ResourceType {
  return builtinType('', 'v1', 'nodes', {
    subresources: ['proxy', 'status'],
    strategy: nodeStrategy,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    tableColumns: nodeColumns,
  });
}
