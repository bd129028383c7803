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
import type { IPFamily } from './ip.ts';
import { ipFamilyOf } from './ip.ts';
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
  clusterIPsOf, externallyAccessible, isHeadless, needsClusterIP, needsHealthCheckNodePort, needsNodePort, servicePorts, serviceType, usesNodePorts,
} from './service-spec.ts';
import { serviceWarnings } from './service-warnings.ts';
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
  if (needsNodePort(oldSpec) && needsNodePort(spec)) {
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

/**
 * initIPFamilyFields, without the errors (validate reports those): ipFamilyPolicy and
 * ipFamilies from what the client asked for and what the cluster serves.
 */
function defaultIPFamilies(spec: JsonObject, clusterFamilies: IPFamily[]): void {
  if (!needsClusterIP(spec)) return;
  const dualStack = clusterFamilies.length === 2;
  const families = arrayAt(spec, 'ipFamilies').filter((f): f is IPFamily => f === 'IPv4' || f === 'IPv6');
  if (isHeadless(spec)) {
    if (families.length === 0) spec.ipFamilies = [clusterFamilies[0]!];
    if (!spec.ipFamilyPolicy) {
      // A headless service without a selector serves both families where the cluster does.
      spec.ipFamilyPolicy = dualStack && !isObject(spec.selector) ? 'RequireDualStack' : 'SingleStack';
    }
    if (spec.ipFamilyPolicy !== 'SingleStack' && dualStack && arrayAt(spec, 'ipFamilies').length === 1) {
      spec.ipFamilies = [...(spec.ipFamilies as IPFamily[]), clusterFamilies.find((f) => f !== (spec.ipFamilies as IPFamily[])[0])!];
    }
    return;
  }
  if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = families.length === 2 || clusterIPsOf(spec).length === 2 ? 'RequireDualStack' : 'SingleStack';
  if (families.length === 0) {
    const fromIPs = clusterIPsOf(spec).map(ipFamilyOf).filter((f): f is IPFamily => f !== undefined);
    spec.ipFamilies = fromIPs.length > 0 ? fromIPs.slice(0, 2) : [clusterFamilies[0]!];
  }
  const current = spec.ipFamilies as IPFamily[];
  if (spec.ipFamilyPolicy !== 'SingleStack' && dualStack && current.length === 1) {
    spec.ipFamilies = [current[0]!, clusterFamilies.find((f) => f !== current[0])!];
  }
  // PreferDualStack on a single-stack cluster settles for the one family there is.
  if (spec.ipFamilyPolicy === 'PreferDualStack' && !dualStack && current.length === 2 && clusterFamilies.includes(current[0]!)) {
    spec.ipFamilies = [current[0]!];
  }
}

const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const ipFamilyPolicies = ['SingleStack', 'PreferDualStack', 'RequireDualStack'];
const kubeletPort = 10250;

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

/** ValidateServiceClusterIPsRelatedFields, and what the cluster serves; the stored service's cluster IPs are kept as they are. */
function validateClusterIPFields(spec: JsonObject, clusterFamilies: IPFamily[], oldSpec: JsonObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const clusterIPs = clusterIPsOf(spec);
  const existingClusterIPs = oldSpec === undefined ? [] : clusterIPsOf(oldSpec);
  if (serviceType(spec) === 'ExternalName') {
    if (clusterIPs.length > 0) causes.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (arrayAt(spec, 'ipFamilies').length > 0) causes.push(forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) causes.push(forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    return causes;
  }
  const policy = spec.ipFamilyPolicy;
  if (policy === undefined || policy === null || policy === '') causes.push(required('spec.ipFamilyPolicy'));
  else if (!ipFamilyPolicies.includes(String(policy))) causes.push(notSupported('spec.ipFamilyPolicy', policy, ipFamilyPolicies));
  if (clusterIPs.length > 0 && stringAt(spec, 'clusterIP') !== clusterIPs[0]) {
    causes.push(invalid('spec.clusterIPs', clusterIPs, 'first value must match `clusterIP`'));
  }
  const families = arrayAt(spec, 'ipFamilies');
  const seen = new Set<unknown>();
  families.forEach((family, i) => {
    if (seen.has(family)) causes.push(duplicate(`spec.ipFamilies[${i}]`, family));
    seen.add(family);
    if (family !== 'IPv4' && family !== 'IPv6') causes.push(notSupported(`spec.ipFamilies[${i}]`, family, ['IPv4', 'IPv6']));
  });
  if (families.length > 2) causes.push(invalid('spec.ipFamilies', families, 'may only hold up to 2 values'));
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
  if (clusterIPs.length === 2 && ipFamilyOf(clusterIPs[0]!) === ipFamilyOf(clusterIPs[1]!)) {
    causes.push(invalid('spec.clusterIPs', clusterIPs, 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(spec)) {
    clusterIPs.forEach((ip, i) => {
      const family = families[i];
      if (family === 'IPv4' && ipFamilyOf(ip) === 'IPv6') causes.push(invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (family === 'IPv6' && ipFamilyOf(ip) === 'IPv4') causes.push(invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  // What the cluster serves (upstream reports these from its REST layer, before validation).
  if (policy === 'RequireDualStack' && clusterFamilies.length < 2) {
    causes.push(invalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
  }
  if (policy === 'SingleStack' && (families.length > 1 || (clusterIPs.length > 1 && !isHeadless(spec)))) {
    const what = families.length > 1 ? 'IP families' : "'clusterIPs'";
    causes.push(invalid('spec.ipFamilyPolicy', policy, `must be RequireDualStack or PreferDualStack when multiple ${what} are specified`));
  }
  families.forEach((family, i) => {
    if ((family === 'IPv4' || family === 'IPv6') && !clusterFamilies.includes(family)) {
      causes.push(invalid(`spec.ipFamilies[${i}]`, family, 'not configured on this cluster'));
    }
  });
  return causes;
}

/** ValidateService, for the rules clients observe; `old` is the stored service on update. */
function validateService(svc: KubeObject, clusterFamilies: IPFamily[], old: KubeObject | undefined): StatusCause[] {
  const spec = objectAt(svc, 'spec') ?? {};
  const oldSpec = old === undefined ? undefined : objectAt(old, 'spec') ?? {};
  const causes = validateKubeFinalizerNames(svc.metadata.finalizers, 'metadata.finalizers');
  const type = serviceType(spec);
  const ports = servicePorts(spec);
  const headless = isHeadless(spec);
  const clusterIPs = clusterIPsOf(spec);
  if (ports.length === 0 && !headless && type !== 'ExternalName') causes.push(required('spec.ports'));
  if (type === 'LoadBalancer') {
    ports.forEach((port, i) => {
      if (port.port === kubeletPort) causes.push(invalid(index('spec.ports', i), kubeletPort, `may not expose port ${kubeletPort} externally since it is used by kubelet`));
    });
  }
  if ((type === 'LoadBalancer' || type === 'NodePort') && headless) {
    causes.push(invalid('spec.clusterIPs[0]', clusterIPs[0] ?? 'None', `may not be set to 'None' for ${type} services`));
  }
  if (type === 'ExternalName') {
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

  appendAll(causes, validateClusterIPFields(spec, clusterFamilies, oldSpec));

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
  const hc = numberAt(spec, 'healthCheckNodePort') ?? 0;
  if (hc > 0 && type !== 'LoadBalancer') {
    causes.push(invalid('spec.healthCheckNodePort', hc, "may only be set when `type` is 'LoadBalancer'"));
  } else if (hc > 0 && etp !== 'Local') {
    causes.push(invalid('spec.healthCheckNodePort', hc, "may only be set when `externalTrafficPolicy` is 'Local'"));
  }
  const itp = spec.internalTrafficPolicy;
  if ((itp === undefined || itp === null) && (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP')) {
    causes.push(required('spec.internalTrafficPolicy'));
  }
  if (itp !== undefined && itp !== null && itp !== 'Cluster' && itp !== 'Local') {
    causes.push(notSupported('spec.internalTrafficPolicy', itp, ['Cluster', 'Local']));
  }
  if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null && type !== 'LoadBalancer') {
    causes.push(forbidden('spec.allocateLoadBalancerNodePorts', "may only be used when `type` is 'LoadBalancer'"));
  }
  return causes;
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

/** ValidateServiceUpdate's own rules: the primary cluster IP and IP family never change. */
function validateServiceUpdate(svc: KubeObject, old: KubeObject): StatusCause[] {
  const spec = objectAt(svc, 'spec') ?? {};
  const oldSpec = objectAt(old, 'spec') ?? {};
  const causes: StatusCause[] = [];
  if (serviceType(spec) === 'ExternalName' || serviceType(oldSpec) === 'ExternalName') return causes;
  if (isHeadless(spec) && isHeadless(oldSpec)) return causes;
  const ips = clusterIPsOf(spec);
  const oldIPs = clusterIPsOf(oldSpec);
  if (oldIPs.length === ips.length) {
    oldIPs.forEach((ip, i) => {
      if (ip !== ips[i]) causes.push(invalid(`spec.clusterIPs[${i}]`, ips, 'may not change once set'));
    });
  } else if (oldIPs.length > ips.length) {
    if (ips.length === 0) causes.push(invalid('spec.clusterIPs[0]', spec.clusterIPs ?? null, 'primary clusterIP can not be unset'));
    else if (ips[0] !== oldIPs[0]) causes.push(invalid('spec.clusterIPs[0]', ips, 'may not change once set'));
  } else if (oldIPs.length > 0 && ips[0] !== oldIPs[0]) {
    causes.push(invalid('spec.clusterIPs[0]', ips, 'may not change once set'));
  }
  const families = arrayAt(spec, 'ipFamilies');
  const oldFamilies = arrayAt(oldSpec, 'ipFamilies');
  if (oldFamilies.length > 0 && families.length > 0 && families[0] !== oldFamilies[0]) {
    causes.push(invalid('spec.ipFamilies[0]', families, 'may not change once set'));
  }
  return causes;
}

function serviceStrategy(clusterFamilies: IPFamily[]): Strategy {
  return {
    defaults: defaultService,

    prepareForCreate(svc) {
      svc.status = { loadBalancer: {} };
      const spec = specOf(svc);
      normalizeClusterIPs(spec, undefined);
      defaultIPFamilies(spec, clusterFamilies);
    },

    prepareForUpdate(svc, old) {
      keepOldStatus(svc, old);
      dropTypeDependentFields(svc, old);
      const spec = specOf(svc);
      normalizeClusterIPs(spec, objectAt(old, 'spec'));
      patchAllocatedValues(svc, old);
      // An ExternalName service turning into another type gets its families now.
      defaultIPFamilies(spec, clusterFamilies);
      setClusterIPs(spec, clusterIPsOf(spec));
    },

    validate(svc, old) {
      return validateService(svc, clusterFamilies, old);
    },

    validateUpdate(svc, old) {
      return validateServiceUpdate(svc, old);
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
    nameRule: 'dns1035-label',
    tableColumns: serviceColumns,
  });
}
