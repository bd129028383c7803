// core/v1 services, after kubernetes pkg/registry/core/service (strategy.go and the
// storage's field normalisation) and pkg/apis/core/validation's ValidateService and
// ValidateServiceStatusUpdate. Its IP and CIDR fields are legacy ones (KEP-4858): strict for
// new values, kept as they are when the stored service held them.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { appendAll, child, duplicate, forbidden, goJson, type GoValue, index, invalid, key, notSupported, required } from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortName, isValidPortNum } from '../validation/names.ts';
import { validateKubeFinalizerNames, validateLabels } from '../validation/object-meta.ts';
import { keepOldSpec, keepOldStatus } from './common.ts';
import type { IPFamily } from '../validation/ip.ts';
import { ipFamilyOf, isDualStackIPs } from '../validation/ip.ts';
import { endpointIPCauses, legacyCIDRCauses, legacyIPCauses } from './legacy-ip-fields.ts';
import { loadBalancerIngressCauses, loadBalancerIngressPath, loadBalancerIngresses, loadBalancerIngressWarnings } from './load-balancer-status.ts';
import { clone, isObject, type JsonObject } from '../../api/json.ts';
import { arrayAt, ensureObject, numberAt, objectAt, semanticEqual, stringAt, stringsAt } from './object.ts';
import { validateProtocol } from './pod-spec.ts';
import { ServiceAllocator } from './service-allocator.ts';
import {
  defaultServiceClusterIPRange, defaultServiceNodePortRange, parsePortRange, parseServiceCIDRs, type ServiceRanges,
} from './service-ranges.ts';
import {
  clusterIPsOf, externallyAccessible, isHeadless, needsClusterIP, needsHealthCheckNodePort, servicePorts, serviceType, usesNodePorts,
} from './service-spec.ts';
import { serviceWarnings, topologyAwareHintsAnnotation, topologyModeAnnotation } from './service-warnings.ts';
import { serviceColumns } from './table-columns.ts';

const defaultClientIPTimeoutSeconds = 10800;

function specOf(svc: KubeObject): JsonObject {
  return ensureObject(svc as JsonObject, 'spec');
}

/** SetDefaults_Service. */
function defaultService(svc: KubeObject): void {
  const spec = specOf(svc);
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const timeout = objectAt(objectAt(spec, 'sessionAffinityConfig'), 'clientIP')?.timeoutSeconds;
    if (timeout === undefined || timeout === null) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: defaultClientIPTimeoutSeconds } };
  }
  if (!spec.type) spec.type = 'ClusterIP';
  for (const port of servicePorts(spec)) {
    if (!port.protocol) port.protocol = 'TCP';
    if (port.targetPort === undefined || port.targetPort === null || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port;
  }
  if (externallyAccessible(spec) && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  const type = spec.type;
  if ((spec.internalTrafficPolicy === undefined || spec.internalTrafficPolicy === null) && (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP')) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (type === 'LoadBalancer' && (spec.allocateLoadBalancerNodePorts === undefined || spec.allocateLoadBalancerNodePorts === null)) {
    spec.allocateLoadBalancerNodePorts = true;
  }
  defaultIngressIPMode(svc);
}

/** Load-balancer ingress points with an IP default to ipMode VIP. */
function defaultIngressIPMode(svc: KubeObject): void {
  if (serviceType(specOf(svc)) !== 'LoadBalancer') return;
  for (const ingress of arrayAt(objectAt(svc.status, 'loadBalancer'), 'ingress')) {
    if (isObject(ingress) && stringAt(ingress, 'ip') !== '' && !ingress.ipMode) ingress.ipMode = 'VIP';
  }
}

function setClusterIPs(spec: JsonObject, ips: string[] | undefined): void {
  if (ips === undefined || ips.length === 0) delete spec.clusterIPs;
  else spec.clusterIPs = ips;
}

/** NormalizeClusterIPs: keep clusterIP and clusterIPs in step for clients that set only one. */
function normalizeClusterIPs(spec: JsonObject, oldSpec: JsonObject | undefined): void {
  const clusterIP = stringAt(spec, 'clusterIP');
  if (oldSpec === undefined) {
    // An old client set the singular field only.
    if (clusterIP !== '' && clusterIPsOf(spec).length === 0) spec.clusterIPs = [clusterIP];
    return;
  }
  const oldClusterIP = stringAt(oldSpec, 'clusterIP');
  const sameIPs = () => semanticEqual(oldSpec.clusterIPs, spec.clusterIPs);
  // An old client patching something else left clusterIPs out.
  if (clusterIPsOf(oldSpec).length > 0 && clusterIPsOf(spec).length === 0 && oldClusterIP === clusterIP) {
    spec.clusterIPs = clone(oldSpec.clusterIPs);
  }
  if (oldClusterIP !== clusterIP) {
    if (oldClusterIP !== '' && clusterIP === '') {
      if (sameIPs()) delete spec.clusterIPs;
    } else if (sameIPs()) {
      spec.clusterIPs = [clusterIP];
    }
  }
}

/** dropTypeDependentFields: what a type change makes moot, unless the client changed it too. */
function dropTypeDependentFields(svc: KubeObject, old: KubeObject): void {
  const spec = specOf(svc);
  const oldSpec = objectAt(old, 'spec') ?? {};
  if (needsClusterIP(oldSpec) && !needsClusterIP(spec)) {
    if (semanticEqual(oldSpec.clusterIPs, spec.clusterIPs) && stringAt(oldSpec, 'clusterIP') === stringAt(spec, 'clusterIP')) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (semanticEqual(oldSpec.ipFamilies, spec.ipFamilies)) delete spec.ipFamilies;
    if (semanticEqual(oldSpec.ipFamilyPolicy, spec.ipFamilyPolicy)) delete spec.ipFamilyPolicy;
  }
  // Node ports go when the client added none of its own (ports may come, go or change).
  const nodePorts = (s: JsonObject) => servicePorts(s).map((p) => p.nodePort).filter((n) => typeof n === 'number' && n !== 0);
  const oldNodePorts = new Set(nodePorts(oldSpec));
  if (usesNodePorts(oldSpec) && !usesNodePorts(spec) && nodePorts(spec).every((n) => oldNodePorts.has(n))) {
    for (const port of servicePorts(spec)) delete port.nodePort;
  }
  if (needsHealthCheckNodePort(oldSpec) && !needsHealthCheckNodePort(spec) && oldSpec.healthCheckNodePort === spec.healthCheckNodePort) {
    delete spec.healthCheckNodePort;
  }
  if (serviceType(oldSpec) === 'LoadBalancer' && serviceType(spec) !== 'LoadBalancer') {
    if (typeof spec.allocateLoadBalancerNodePorts === 'boolean' && spec.allocateLoadBalancerNodePorts === oldSpec.allocateLoadBalancerNodePorts) {
      delete spec.allocateLoadBalancerNodePorts;
    }
    if (spec.loadBalancerClass === oldSpec.loadBalancerClass) delete spec.loadBalancerClass;
  }
  if (externallyAccessible(oldSpec) && !externallyAccessible(spec) && spec.externalTrafficPolicy === oldSpec.externalTrafficPolicy) {
    delete spec.externalTrafficPolicy;
  }
  // Load-balancer status is cleared once the service is no longer one.
  if (serviceType(spec) !== 'LoadBalancer') ensureObject(svc as JsonObject, 'status').loadBalancer = {};
}

/** patchAllocatedValues: a PUT without the allocated values keeps the stored ones. */
function patchAllocatedValues(svc: KubeObject, old: KubeObject): void {
  const spec = specOf(svc);
  const oldSpec = objectAt(old, 'spec') ?? {};
  if (needsClusterIP(oldSpec) && needsClusterIP(spec)) {
    if (stringAt(spec, 'clusterIP') === '' && oldSpec.clusterIP !== undefined) spec.clusterIP = oldSpec.clusterIP;
    if (clusterIPsOf(spec).length === 0 && clusterIPsOf(oldSpec).length > 0) spec.clusterIPs = clone(oldSpec.clusterIPs);
  }
  // Upstream's needsNodePort here is the type alone: a LoadBalancer that allocates none keeps those it holds.
  if (usesNodePorts(oldSpec) && usesNodePorts(spec)) {
    const used = (s: JsonObject) => new Set(servicePorts(s).map((p) => p.nodePort).filter((n) => typeof n === 'number' && n !== 0));
    const newUsed = used(spec);
    const inBoth = new Set([...used(oldSpec)].filter((n) => newUsed.has(n)));
    const byName = new Map<string, unknown>();
    for (const p of servicePorts(oldSpec)) byName.set(stringAt(p, 'name'), p.nodePort);
    for (const p of servicePorts(spec)) {
      if (p.nodePort === undefined || p.nodePort === null || p.nodePort === 0) {
        const oldValue = byName.get(stringAt(p, 'name'));
        if (typeof oldValue === 'number' && oldValue !== 0 && !inBoth.has(oldValue)) p.nodePort = oldValue;
      }
    }
  }
  if (needsHealthCheckNodePort(oldSpec) && needsHealthCheckNodePort(spec) && !spec.healthCheckNodePort && oldSpec.healthCheckNodePort) {
    spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  }
}

const otherFamily = (family: IPFamily): IPFamily => (family === 'IPv4' ? 'IPv6' : 'IPv4');

function sameStrings(a: unknown, b: unknown): boolean {
  const left = Array.isArray(a) ? a : [];
  const right = Array.isArray(b) ? b : [];
  return left.length === right.length && left.every((value, i) => value === right[i]);
}

/** A selectorless service: no selector, or an empty one. */
function selectorless(spec: JsonObject): boolean {
  const selector = spec.selector;
  return !isObject(selector) || Object.keys(selector).length === 0;
}

/**
 * isMatchingPreferDualStackClusterIPFields: an update of a PreferDualStack service that
 * keeps its type, cluster IPs and families is neither upgraded nor downgraded, whatever
 * the cluster serves now.
 */
function unchangedPreferDualStack(spec: JsonObject, oldSpec: JsonObject | undefined): boolean {
  if (oldSpec === undefined || spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null) return false;
  const type = serviceType(spec);
  if (serviceType(oldSpec) !== type || type === 'ExternalName') return false;
  if (spec.ipFamilyPolicy !== 'PreferDualStack') return false;
  if (oldSpec.ipFamilyPolicy !== undefined && oldSpec.ipFamilyPolicy !== null && oldSpec.ipFamilyPolicy !== 'PreferDualStack') return false;
  return sameStrings(oldSpec.clusterIPs, spec.clusterIPs) && sameStrings(oldSpec.ipFamilies, spec.ipFamilies);
}

/**
 * initIPFamilyFields (pkg/registry/core/service/storage/alloc.go): ipFamilyPolicy and
 * ipFamilies from what the client asked for, what the stored service had (`oldSpec`, on
 * update) and what the cluster serves, primary first. It changes `spec` and answers the
 * errors upstream's REST layer answers before the strategy validates anything (so they
 * come alone).
 */
function initIPFamilyFields(spec: JsonObject, oldSpec: JsonObject | undefined, clusterFamilies: IPFamily[]): StatusCause[] {
  if (serviceType(spec) === 'ExternalName') return [];
  if (unchangedPreferDualStack(spec, oldSpec)) return [];
  const headlessSelectorless = stringAt(spec, 'clusterIP') === 'None' && selectorless(spec);
  if (spec.ipFamilyPolicy === undefined || spec.ipFamilyPolicy === null) {
    if (oldSpec !== undefined && oldSpec.ipFamilyPolicy !== undefined && oldSpec.ipFamilyPolicy !== null) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
    else spec.ipFamilyPolicy = headlessSelectorless ? 'RequireDualStack' : 'SingleStack';
  }
  const related = clusterIPsRelatedCauses(spec, oldSpec === undefined ? [] : clusterIPsOf(oldSpec));
  if (related.length > 0) return related;

  const causes: StatusCause[] = [];
  const policy = spec.ipFamilyPolicy;
  if (oldSpec !== undefined) {
    if (policy === 'SingleStack') {
      // Asking for SingleStack without touching the IPs or families releases the secondary.
      if (sameStrings(oldSpec.clusterIPs, spec.clusterIPs) && clusterIPsOf(spec).length > 1) spec.clusterIPs = clusterIPsOf(spec).slice(0, 1);
      if (sameStrings(oldSpec.ipFamilies, spec.ipFamilies) && arrayAt(spec, 'ipFamilies').length > 1) spec.ipFamilies = arrayAt(spec, 'ipFamilies').slice(0, 1);
    } else {
      const reduced = (field: string) => {
        const now = arrayAt(spec, field).length;
        return now > 0 && now < arrayAt(oldSpec, field).length;
      };
      if (reduced('clusterIPs')) causes.push(invalid('spec.ipFamilyPolicy', policy, "must be 'SingleStack' to release the secondary cluster IP"));
      if (reduced('ipFamilies')) causes.push(invalid('spec.ipFamilyPolicy', policy, "must be 'SingleStack' to release the secondary IP family"));
    }
  }
  const clusterIPs = clusterIPsOf(spec);
  if (policy === 'SingleStack') {
    if (clusterIPs.length === 2) causes.push(invalid('spec.ipFamilyPolicy', policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    if (arrayAt(spec, 'ipFamilies').length === 2) causes.push(invalid('spec.ipFamilyPolicy', policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
  }
  // Families the client left out follow its IPs.
  const families = arrayAt(spec, 'ipFamilies').slice() as IPFamily[];
  for (const [i, ip] of clusterIPs.entries()) {
    if (ip === 'None') break;
    if (i < families.length) continue;
    const family = ipFamilyOf(ip);
    if (family === undefined) continue;
    if (clusterFamilies.includes(family)) families.push(family);
    else causes.push(invalid(index('spec.clusterIPs', i), clusterIPs, `${family} is not configured on this cluster`));
  }
  if (families.length > arrayAt(spec, 'ipFamilies').length) spec.ipFamilies = families;
  if (causes.length > 0) return causes;

  const primary = clusterFamilies[0]!;
  // A headless service without a selector may serve both families, whatever the cluster serves.
  if (headlessSelectorless) {
    if (families.length === 0) families.push(primary);
    if (families.length < 2 && policy !== 'SingleStack') families.push(otherFamily(families[0]!));
    spec.ipFamilies = families;
    return [];
  }
  if (policy === 'RequireDualStack' && clusterFamilies.length < 2) {
    causes.push(invalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
  }
  families.forEach((family, i) => {
    if (!clusterFamilies.includes(family)) causes.push(invalid(index('spec.ipFamilies', i), family, 'not configured on this cluster'));
  });
  if (causes.length > 0) return causes;
  if (families.length === 0) families.push(primary);
  if (policy !== 'SingleStack' && families.length === 1 && clusterFamilies.length === 2) families.push(otherFamily(families[0]!));
  spec.ipFamilies = families;
  return [];
}

/** The errors initIPFamilyFields would answer for `spec`, leaving it as it is. */
function ipFamilyInitCauses(spec: JsonObject, oldSpec: JsonObject | undefined, clusterFamilies: IPFamily[]): StatusCause[] {
  return initIPFamilyFields(clone(spec), oldSpec, clusterFamilies);
}

/**
 * initIPFamilyFields's changes, made only when it finds nothing wrong: a refused request is
 * left as it came, so that validate, running it again, finds the same errors.
 */
function applyIPFamilyInit(spec: JsonObject, oldSpec: JsonObject | undefined, clusterFamilies: IPFamily[]): void {
  const draft = clone(spec);
  if (initIPFamilyFields(draft, oldSpec, clusterFamilies).length > 0) return;
  for (const field of ['ipFamilyPolicy', 'ipFamilies', 'clusterIPs']) {
    if (draft[field] === undefined) delete spec[field];
    else spec[field] = draft[field];
  }
}

const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
// Listed sorted, as upstream's sets.List names them in NotSupported errors.
const ipFamilyPolicies = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];
// In upstream's order (PreferSameTrafficDistribution, GA in v1.35, adds the last two).
const trafficDistributions = ['PreferClose', 'PreferSameZone', 'PreferSameNode'];

function validateServicePort(port: JsonObject, requireName: boolean, names: Set<string>, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = stringAt(port, 'name');
  if (requireName && name === '') causes.push(required(child(path, 'name')));
  else if (name !== '') {
    for (const msg of isDNS1123Label(name)) causes.push(invalid(child(path, 'name'), name, msg));
    if (names.has(name)) causes.push(duplicate(child(path, 'name'), name));
    else names.add(name);
  }
  for (const msg of isValidPortNum(Number(port.port ?? 0))) causes.push(invalid(child(path, 'port'), port.port ?? 0, msg));
  appendAll(causes, validateProtocol(port.protocol, child(path, 'protocol')));
  const target = port.targetPort;
  if (typeof target === 'number') {
    for (const msg of isValidPortNum(target)) causes.push(invalid(child(path, 'targetPort'), target, msg));
  } else if (typeof target === 'string') {
    for (const msg of isValidPortName(target)) causes.push(invalid(child(path, 'targetPort'), target, msg));
  }
  const appProtocol = port.appProtocol;
  if (typeof appProtocol === 'string') for (const msg of isQualifiedName(appProtocol)) causes.push(invalid(child(path, 'appProtocol'), appProtocol, msg));
  return causes;
}

/** ValidateService's rules for ExternalName services' cluster IP fields: they have none. */
function externalNameIPCauses(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (clusterIPsOf(spec).length > 0) causes.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
  if (arrayAt(spec, 'ipFamilies').length > 0) causes.push(forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
  if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) causes.push(forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
  return causes;
}

/**
 * ValidateServiceClusterIPsRelatedFields: clusterIP and clusterIPs in step, families and
 * policy among the supported ones, at most one address per family, each matching its
 * family. The stored service's cluster IPs (`existingClusterIPs`) are kept as they are.
 */
function clusterIPsRelatedCauses(spec: JsonObject, existingClusterIPs: string[] = []): StatusCause[] {
  if (serviceType(spec) === 'ExternalName') return [];
  const causes: StatusCause[] = [];
  const clusterIPs = clusterIPsOf(spec);
  const clusterIP = stringAt(spec, 'clusterIP');
  if (clusterIP !== '') {
    if (clusterIPs.length === 0) causes.push(required('spec.clusterIPs'));
    else if (clusterIPs[0] !== clusterIP) causes.push(invalid('spec.clusterIPs', clusterIPs, 'first value must match `clusterIP`'));
  } else if (clusterIPs.length > 0) {
    causes.push(invalid('spec.clusterIPs', clusterIPs, 'must be empty when `clusterIP` is not specified'));
  }
  const families = arrayAt(spec, 'ipFamilies');
  const seen = new Set<unknown>();
  families.forEach((family, i) => {
    if (family !== 'IPv4' && family !== 'IPv6') causes.push(notSupported(`spec.ipFamilies[${i}]`, family, ['IPv4', 'IPv6']));
    if (seen.has(family)) causes.push(duplicate(`spec.ipFamilies[${i}]`, family));
    seen.add(family);
  });
  const policy = spec.ipFamilyPolicy;
  if (policy !== undefined && policy !== null && !ipFamilyPolicies.includes(String(policy))) {
    causes.push(notSupported('spec.ipFamilyPolicy', policy, ipFamilyPolicies));
  }
  let badIPs = false;
  clusterIPs.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (clusterIPs.length > 1) {
        badIPs = true;
        causes.push(invalid('spec.clusterIPs', clusterIPs, "'None' must be the first and only value"));
      }
      return;
    }
    const ipCauses = legacyIPCauses(index('spec.clusterIPs', i), ip, existingClusterIPs);
    if (ipCauses.length > 0) badIPs = true;
    appendAll(causes, ipCauses);
  });
  if (clusterIPs.length > 2) causes.push(invalid('spec.clusterIPs', clusterIPs, 'may only hold up to 2 values'));
  if (badIPs) return causes;
  if (clusterIPs.length > 1 && isDualStackIPs(clusterIPs) !== true) {
    causes.push(invalid('spec.clusterIPs', clusterIPs, 'may specify no more than one IP for each IP family'));
  }
  // upstream's isHeadlessService: clusterIPs is exactly ["None"].
  if (!(clusterIPs.length === 1 && clusterIPs[0] === 'None')) {
    clusterIPs.forEach((ip, i) => {
      const family = families[i];
      if (family === 'IPv4' && ipFamilyOf(ip) === 'IPv6') causes.push(invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (family === 'IPv6' && ipFamilyOf(ip) === 'IPv4') causes.push(invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return causes;
}

/**
 * ValidateService, for the rules clients observe; `old` is the stored service on update.
 * A LoadBalancer may expose port 10250: upstream dropped the kubelet port rule in v1.33
 * (kubernetes#129174).
 */
function validateService(svc: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const spec = objectAt(svc, 'spec') ?? {};
  const oldSpec = old === undefined ? undefined : objectAt(old, 'spec') ?? {};
  const causes = validateKubeFinalizerNames(svc.metadata.finalizers, 'metadata.finalizers');
  const annotations = svc.metadata.annotations ?? {};
  const topologyMode = annotations[topologyModeAnnotation];
  const topologyHints = annotations[topologyAwareHintsAnnotation];
  if (topologyMode !== undefined && topologyHints !== undefined && topologyMode !== topologyHints) {
    causes.push(invalid(key('metadata.annotations', topologyModeAnnotation), topologyMode, `must match annotations[${topologyAwareHintsAnnotation}] when both are specified`));
  }
  const type = serviceType(spec);
  const ports = servicePorts(spec);
  const headless = isHeadless(spec);
  const clusterIPs = clusterIPsOf(spec);
  if (ports.length === 0 && !headless && type !== 'ExternalName') causes.push(required('spec.ports'));
  if ((type === 'LoadBalancer' || type === 'NodePort') && headless) {
    causes.push(invalid('spec.clusterIPs[0]', clusterIPs[0] ?? 'None', `may not be set to 'None' for ${type} services`));
  }
  if (type === 'ExternalName') {
    appendAll(causes, externalNameIPCauses(spec));
    const cname = stringAt(spec, 'externalName').replace(/\.$/, '');
    if (cname === '') causes.push(required('spec.externalName'));
    else for (const msg of isDNS1123Subdomain(cname)) causes.push(invalid('spec.externalName', cname, msg));
  }
  const names = new Set<string>();
  ports.forEach((port, i) => appendAll(causes, validateServicePort(port, ports.length > 1, names, index('spec.ports', i))));
  if (spec.selector !== undefined && spec.selector !== null) appendAll(causes, validateLabels(spec.selector, 'spec.selector'));

  const affinity = spec.sessionAffinity;
  if (affinity === undefined || affinity === null || affinity === '') causes.push(required('spec.sessionAffinity'));
  else if (affinity !== 'ClientIP' && affinity !== 'None') causes.push(notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (affinity === 'ClientIP') {
    const timeout = numberAt(objectAt(objectAt(spec, 'sessionAffinityConfig'), 'clientIP'), 'timeoutSeconds');
    if (timeout === undefined || timeout <= 0 || timeout > 86400) {
      causes.push(invalid('spec.sessionAffinityConfig.clientIP.timeoutSeconds', timeout ?? 0, 'must be greater than 0 and less than 86400'));
    }
  } else if (affinity === 'None' && spec.sessionAffinityConfig !== undefined && spec.sessionAffinityConfig !== null) {
    causes.push(forbidden('spec.sessionAffinityConfig', 'must not be set when session affinity is None'));
  }

  appendAll(causes, clusterIPsRelatedCauses(spec, oldSpec === undefined ? [] : clusterIPsOf(oldSpec)));

  // For historical reasons a valid external IP is also one ValidateEndpointIP accepts.
  const existingExternalIPs = stringsAt(oldSpec, 'externalIPs');
  stringsAt(spec, 'externalIPs').forEach((ip, i) => {
    const ipCauses = legacyIPCauses(index('spec.externalIPs', i), ip, existingExternalIPs);
    appendAll(causes, (ipCauses.length > 0 ? ipCauses : endpointIPCauses(ip, index('spec.externalIPs', i))));
  });

  if (!spec.type) causes.push(required('spec.type'));
  else if (!serviceTypes.includes(String(spec.type))) causes.push(notSupported('spec.type', spec.type, serviceTypes));

  if (type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if (port.nodePort) causes.push(forbidden(child(index('spec.ports', i), 'nodePort'), "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    if (!port.nodePort) return;
    const k = `${String(port.protocol)}/${String(port.nodePort)}`;
    if (nodePorts.has(k)) causes.push(duplicate(child(index('spec.ports', i), 'nodePort'), port.nodePort));
    nodePorts.add(k);
  });
  // A repeated port's key is rendered once per protocol and port: rendering it for every
  // repeat took a quarter of the time 150k repeated ports took to refuse.
  const renderedKeys = new Map<string, GoValue>();
  const portKeys = new Set<string>();
  ports.forEach((port, i) => {
    const k = `${String(port.protocol)}/${String(port.port)}`;
    if (portKeys.has(k)) {
      const protocol = port.protocol ?? '';
      const number = port.port ?? 0;
      const id = JSON.stringify([protocol, number]);
      let rendered = renderedKeys.get(id);
      if (rendered === undefined) {
        // The internal core.ServicePort upstream keys ports by: only its protocol and port set.
        rendered = goJson({ Name: '', Protocol: protocol, AppProtocol: null, Port: number, TargetPort: 0, NodePort: 0 });
        renderedKeys.set(id, rendered);
      }
      causes.push(duplicate(index('spec.ports', i), rendered));
    }
    portKeys.add(k);
  });

  appendAll(causes, validateSourceRanges(svc, type, old));

  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null && type !== 'LoadBalancer') {
    causes.push(forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  appendAll(causes, loadBalancerClassCauses(spec));
  const etp = spec.externalTrafficPolicy;
  if (!externallyAccessible(spec)) {
    if (etp !== undefined && etp !== null && etp !== '') {
      causes.push(invalid('spec.externalTrafficPolicy', etp, 'may only be set for externally-accessible services'));
    }
  } else if (etp === undefined || etp === null || etp === '') {
    causes.push(required('spec.externalTrafficPolicy'));
  } else if (etp !== 'Cluster' && etp !== 'Local') {
    causes.push(notSupported('spec.externalTrafficPolicy', etp, ['Cluster', 'Local']));
  }
  // A health check node port it needs was allocated before validation (upstream answers a bad
  // one with the allocator's 500); one it does not need must be left unset.
  const hc = numberAt(spec, 'healthCheckNodePort') ?? 0;
  if (hc !== 0 && !needsHealthCheckNodePort(spec)) {
    causes.push(invalid('spec.healthCheckNodePort', hc, "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  }
  const itp = spec.internalTrafficPolicy;
  if ((itp === undefined || itp === null) && (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP')) {
    causes.push(required('spec.internalTrafficPolicy'));
  }
  if (itp !== undefined && itp !== null && itp !== 'Cluster' && itp !== 'Local') {
    causes.push(notSupported('spec.internalTrafficPolicy', itp, ['Cluster', 'Local']));
  }
  const distribution = spec.trafficDistribution;
  if (distribution !== undefined && distribution !== null && !trafficDistributions.includes(String(distribution))) {
    causes.push(notSupported('spec.trafficDistribution', distribution, trafficDistributions));
  }
  return causes;
}

/** validateLoadBalancerClassField on the service alone: a qualified name, only on LoadBalancer services. */
function loadBalancerClassCauses(spec: JsonObject): StatusCause[] {
  const value = spec.loadBalancerClass;
  if (serviceType(spec) === 'LoadBalancer') {
    return typeof value === 'string' ? isQualifiedName(value).map((msg) => invalid('spec.loadBalancerClass', value, msg)) : [];
  }
  return value === undefined || value === null ? [] : [forbidden('spec.loadBalancerClass', "may only be used when `type` is 'LoadBalancer'")];
}

const sourceRangesAnnotation = 'service.beta.kubernetes.io/load-balancer-source-ranges';

/**
 * The load balancer's source ranges: the field (its entries may be space-padded, a historical
 * accident; the stored service's kept as they are), or else the annotation, a comma-separated
 * list checked only when it changed. Upstream names the field with a capital L.
 */
function validateSourceRanges(svc: KubeObject, type: string, old: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const notLoadBalancer = "may only be used when `type` is 'LoadBalancer'";
  const ranges = stringsAt(svc.spec, 'loadBalancerSourceRanges');
  if (ranges.length > 0) {
    const path = 'spec.LoadBalancerSourceRanges';
    if (type !== 'LoadBalancer') causes.push(forbidden(path, notLoadBalancer));
    const existing = stringsAt(old?.spec, 'loadBalancerSourceRanges').map((value) => value.trim());
    ranges.forEach((value, i) => appendAll(causes, legacyCIDRCauses(index(path, i), value.trim(), existing)));
    return causes;
  }
  const annotation = svc.metadata.annotations?.[sourceRangesAnnotation];
  if (annotation === undefined) return causes;
  const path = key('metadata.annotations', sourceRangesAnnotation);
  if (type !== 'LoadBalancer') causes.push(forbidden(path, notLoadBalancer));
  if (old !== undefined && (old.metadata.annotations?.[sourceRangesAnnotation] ?? '') === annotation) return causes;
  const list = annotation.trim();
  if (list !== '') for (const value of list.split(',')) appendAll(causes, legacyCIDRCauses(path, value.trim()));
  return causes;
}

const loadBalancerIPModes = ['Proxy', 'VIP'];

/** ValidateLoadBalancerStatus: ingress points only for a LoadBalancer, each an IP (with its ipMode) or a hostname. */
function validateLoadBalancerStatus(svc: KubeObject, old: KubeObject): StatusCause[] {
  if (serviceType(objectAt(svc, 'spec') ?? {}) !== 'LoadBalancer') {
    return loadBalancerIngresses(svc).length === 0 ? [] : [forbidden(loadBalancerIngressPath, "may only be used when `spec.type` is 'LoadBalancer'")];
  }
  return loadBalancerIngressCauses(svc, old, (entry, path) => {
    const ip = stringAt(entry, 'ip');
    const ipMode = isObject(entry) ? entry.ipMode : undefined;
    if (ipMode === undefined || ipMode === null) return ip === '' ? [] : [required(child(path, 'ipMode'), 'must be specified when `ip` is set')];
    if (ip === '') return [forbidden(child(path, 'ipMode'), 'may not be specified when `ip` is not set')];
    return loadBalancerIPModes.includes(String(ipMode)) ? [] : [notSupported(child(path, 'ipMode'), ipMode, loadBalancerIPModes)];
  });
}

/** upstream's isHeadlessService: clusterIPs is exactly ["None"]. */
function headlessByClusterIPs(spec: JsonObject): boolean {
  const ips = clusterIPsOf(spec);
  return ips.length === 1 && ips[0] === 'None';
}

/** The policy as a field error shows it: null when unset. */
function policyValue(spec: JsonObject): unknown {
  return spec.ipFamilyPolicy ?? null;
}

/** validateUpgradeDowngradeClusterIPs: the primary cluster IP never changes; releasing the secondary needs SingleStack. */
function clusterIPsUpdateCauses(spec: JsonObject, oldSpec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (headlessByClusterIPs(spec) && headlessByClusterIPs(oldSpec)) return causes;
  const ips = clusterIPsOf(spec);
  const oldIPs = clusterIPsOf(oldSpec);
  const value = spec.clusterIPs ?? null;
  if (oldIPs.length === ips.length) {
    oldIPs.forEach((ip, i) => {
      if (ip !== ips[i]) causes.push(invalid(`spec.clusterIPs[${i}]`, value, 'may not change once set'));
    });
  } else if (oldIPs.length > ips.length) {
    if (ips.length === 0) causes.push(invalid('spec.clusterIPs[0]', value, 'primary clusterIP can not be unset'));
    if (ips.length > 0 && ips[0] !== oldIPs[0]) causes.push(invalid('spec.clusterIPs[0]', value, 'may not change once set'));
    if (ips.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
      causes.push(invalid('spec.ipFamilyPolicy', policyValue(spec), "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
    causes.push(invalid('spec.clusterIPs[0]', value, 'may not change once set'));
  }
  return causes;
}

/**
 * validateUpgradeDowngradeIPFamilies: the primary family never changes; releasing the
 * secondary needs SingleStack. Every error names ipFamilies[0], and some show the
 * clusterIPs as their value, as upstream's do.
 */
function ipFamiliesUpdateCauses(spec: JsonObject, oldSpec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (headlessByClusterIPs(spec) || headlessByClusterIPs(oldSpec)) return causes;
  const families = arrayAt(spec, 'ipFamilies');
  const oldFamilies = arrayAt(oldSpec, 'ipFamilies');
  const value = spec.ipFamilies ?? null;
  const clusterIPsValue = spec.clusterIPs ?? null;
  if (oldFamilies.length === families.length) {
    oldFamilies.forEach((family, i) => {
      if (family !== families[i]) causes.push(invalid('spec.ipFamilies[0]', value, 'may not change once set'));
    });
  } else if (oldFamilies.length > families.length) {
    if (clusterIPsOf(spec).length === 0) causes.push(invalid('spec.ipFamilies[0]', value, 'primary ipFamily can not be unset'));
    if (families.length > 0 && families[0] !== oldFamilies[0]) causes.push(invalid('spec.ipFamilies[0]', clusterIPsValue, 'may not change once set'));
    if (families.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
      causes.push(invalid('spec.ipFamilyPolicy', policyValue(spec), "must be set to 'SingleStack' when releasing the secondary ipFamily"));
    }
  } else if (oldFamilies.length > 0 && families.length > 0 && families[0] !== oldFamilies[0]) {
    causes.push(invalid('spec.ipFamilies[0]', clusterIPsValue, 'may not change once set'));
  }
  return causes;
}

/**
 * ValidateServiceUpdate: its own rules first (cluster IPs and families upgrade or downgrade
 * but keep their primary, unless the service is or becomes ExternalName; the load balancer
 * class stays, and is checked here as well as by ValidateService, so a bad one is reported
 * twice; a needed health check node port stays), then ValidateService.
 */
function validateServiceUpdate(svc: KubeObject, old: KubeObject): StatusCause[] {
  const spec = objectAt(svc, 'spec') ?? {};
  const oldSpec = objectAt(old, 'spec') ?? {};
  const causes: StatusCause[] = [];
  if (serviceType(spec) !== 'ExternalName' && serviceType(oldSpec) !== 'ExternalName') {
    appendAll(causes, clusterIPsUpdateCauses(spec, oldSpec));
    appendAll(causes, ipFamiliesUpdateCauses(spec, oldSpec));
  }
  if (serviceType(spec) === 'LoadBalancer' && serviceType(oldSpec) === 'LoadBalancer' && (spec.loadBalancerClass ?? null) !== (oldSpec.loadBalancerClass ?? null)) {
    causes.push(invalid('spec.loadBalancerClass', spec.loadBalancerClass ?? null, 'may not change once set'));
  }
  appendAll(causes, loadBalancerClassCauses(spec));
  if (needsHealthCheckNodePort(spec) && needsHealthCheckNodePort(oldSpec) && (spec.healthCheckNodePort ?? 0) !== (oldSpec.healthCheckNodePort ?? 0)) {
    causes.push(forbidden('spec.healthCheckNodePort', 'field is immutable'));
  }
  appendAll(causes, validateService(svc, old));
  return causes;
}

function serviceStrategy(clusterFamilies: IPFamily[]): Strategy {
  return {
    defaults: defaultService,

    prepareForCreate(svc) {
      svc.status = { loadBalancer: {} };
      const spec = specOf(svc);
      normalizeClusterIPs(spec, undefined);
      applyIPFamilyInit(spec, undefined, clusterFamilies);
    },

    prepareForUpdate(svc, old) {
      keepOldStatus(svc, old);
      dropTypeDependentFields(svc, old);
      const spec = specOf(svc);
      normalizeClusterIPs(spec, objectAt(old, 'spec'));
      patchAllocatedValues(svc, old);
      applyIPFamilyInit(spec, objectAt(old, 'spec') ?? {}, clusterFamilies);
      setClusterIPs(spec, clusterIPsOf(spec));
    },

    // Upstream's REST layer refuses what initIPFamilyFields does while allocating, before the
    // strategy validates: those errors come alone. An update is validated by validateUpdate alone.
    validate(svc, old) {
      if (old !== undefined) return [];
      const initCauses = ipFamilyInitCauses(objectAt(svc, 'spec') ?? {}, undefined, clusterFamilies);
      return initCauses.length > 0 ? initCauses : validateService(svc, undefined);
    },

    validateUpdate(svc, old) {
      const initCauses = ipFamilyInitCauses(objectAt(svc, 'spec') ?? {}, objectAt(old, 'spec') ?? {}, clusterFamilies);
      return initCauses.length > 0 ? initCauses : validateServiceUpdate(svc, old);
    },

    warningsOnCreate: serviceWarnings,
    warningsOnUpdate: serviceWarnings,

    selectableFields(svc) {
      const spec = objectAt(svc, 'spec') ?? {};
      return { 'spec.clusterIP': stringAt(spec, 'clusterIP'), 'spec.type': stringAt(spec, 'type') };
    },

    fieldLabels: ['metadata.namespace', 'metadata.name', 'spec.clusterIP', 'spec.type'],

    subresources: {
      status: {
        prepareForUpdate(svc, old) {
          keepOldSpec(svc, old);
          defaultIngressIPMode(svc);
        },
        validateUpdate: validateLoadBalancerStatus,
        warningsOnUpdate: loadBalancerIngressWarnings,
      },
    },
  };
}

export function servicesType(ranges: ServiceRanges): ResourceType {
  // Parsed now, so that a malformed flag fails at start.
  const families = parseServiceCIDRs(ranges.serviceClusterIPRange ?? defaultServiceClusterIPRange).map((cidr) => cidr.family);
  parsePortRange(ranges.serviceNodePortRange ?? defaultServiceNodePortRange);
  return builtinType('', 'v1', 'services', {
    subresources: ['proxy', 'status'],
    strategy: serviceStrategy(families),
    allocatorFor: (storage) => new ServiceAllocator(ranges, storage),
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: true, // upstream's registry sets ReturnDeletedObject
    // DNS labels, as RelaxedServiceNameValidation (on in v1.36) has ValidateServiceCreate take them: a leading digit is fine.
    nameRule: 'dns1123-label',
    tableColumns: serviceColumns,
  });
}
