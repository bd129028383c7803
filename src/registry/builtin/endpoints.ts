// core/v1 endpoints, after kubernetes pkg/registry/core/endpoint/strategy.go and
// pkg/apis/core/validation's ValidateEndpoints.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { appendAll, child, goJson, index, invalid, notSupported, required } from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortNum } from '../validation/names.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { ipWarnings } from '../validation/ip.ts';
import { endpointIPCauses, legacyIPCauses } from './legacy-ip-fields.ts';
import { isObject } from '../../api/json.ts';
import { arrayAt, objectsAt, semanticEqual, stringAt } from './object.ts';
import { endpointsColumns } from './table-columns.ts';
import { repackSubsets } from './endpoints-repack.ts';

function defaultEndpoints(ep: KubeObject): void {
  for (const subset of objectsAt(ep, 'subsets')) {
    for (const port of objectsAt(subset, 'ports')) if (!port.protocol) port.protocol = 'TCP';
  }
}

/**
 * The default/kubernetes Endpoints and EndpointSlice, which Plinth's start-up writes
 * with its own address: on a loopback bind address that is a loopback IP, which
 * ValidateEndpointIP refuses for every other endpoint.
 */
export function isKubernetesEndpoints(obj: KubeObject): boolean {
  return obj.metadata.namespace === 'default' && obj.metadata.name === 'kubernetes';
}

/** validateEndpointAddress; ValidateEndpointIP spares the default/kubernetes Endpoints. */
function validateAddress(address: unknown, path: string, allowSpecial: boolean): StatusCause[] {
  const ip = stringAt(address, 'ip');
  const ipPath = child(path, 'ip');
  const causes = legacyIPCauses(ipPath, ip);
  const hostname = stringAt(address, 'hostname');
  if (hostname !== '') for (const msg of isDNS1123Label(hostname)) causes.push(invalid(child(path, 'hostname'), hostname, msg));
  if (isObject(address) && typeof address.nodeName === 'string') {
    for (const msg of isDNS1123Subdomain(address.nodeName)) causes.push(invalid(child(path, 'nodeName'), address.nodeName, msg));
  }
  if (!allowSpecial) appendAll(causes, endpointIPCauses(ip, ipPath));
  return causes;
}

/**
 * ValidateEndpoints. An update that leaves the subsets as they were is spared their errors:
 * older releases accepted them (upstream's ratcheting of the IPs of Endpoints is the whole
 * of subsets, not address by address).
 */
function validateEndpoints(ep: KubeObject, old?: KubeObject): StatusCause[] {
  const causes = validateKubeFinalizerNames(ep.metadata.finalizers, 'metadata.finalizers');
  const subsetCauses = validateSubsets(ep);
  if (subsetCauses.length > 0 && old !== undefined && semanticEqual(old.subsets, ep.subsets)) return causes;
  return [...causes, ...subsetCauses];
}

const protocols = ['SCTP', 'TCP', 'UDP'];

/** validateEndpointPort's protocol: required, and one of three (a typed string: json.Marshal writes it, not %q). */
function validateProtocol(protocol: unknown, path: string): StatusCause[] {
  if (protocol === undefined || protocol === null || protocol === '') return [required(path)];
  if (!protocols.includes(String(protocol))) return [notSupported(path, goJson(protocol), protocols)];
  return [];
}

function validateSubsets(ep: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  arrayAt(ep, 'subsets').forEach((subset, i) => {
    const p = index('subsets', i);
    const addresses = arrayAt(subset, 'addresses');
    const notReady = arrayAt(subset, 'notReadyAddresses');
    if (addresses.length === 0 && notReady.length === 0) causes.push(required(p, 'must specify `addresses` or `notReadyAddresses`'));
    const allowSpecial = isKubernetesEndpoints(ep);
    addresses.forEach((a, j) => appendAll(causes, validateAddress(a, index(child(p, 'addresses'), j), allowSpecial)));
    notReady.forEach((a, j) => appendAll(causes, validateAddress(a, index(child(p, 'notReadyAddresses'), j), allowSpecial)));
    const ports = arrayAt(subset, 'ports');
    ports.forEach((port, j) => {
      const pp = index(child(p, 'ports'), j);
      const name = stringAt(port, 'name');
      if (ports.length > 1 && name === '') causes.push(required(child(pp, 'name')));
      else if (name !== '') for (const msg of isDNS1123Label(name)) causes.push(invalid(child(pp, 'name'), name, msg));
      const number = isObject(port) ? port.port : undefined;
      for (const msg of isValidPortNum(Number(number ?? 0))) causes.push(invalid(child(pp, 'port'), number ?? 0, msg));
      appendAll(causes, validateProtocol(isObject(port) ? port.protocol : undefined, child(pp, 'protocol')));
      const appProtocol = isObject(port) ? port.appProtocol : undefined;
      if (typeof appProtocol === 'string') for (const msg of isQualifiedName(appProtocol)) causes.push(invalid(child(pp, 'appProtocol'), appProtocol, msg));
    });
  });
  return causes;
}

/** The Endpoints controller's managed-by label (pkg/controller/endpoint): it writes only valid IPs. */
const managedByLabel = 'endpoints.kubernetes.io/managed-by';
const endpointsControllerName = 'endpoint-controller';

/** upstream's endpointsWarnings: IPs a later release will refuse, unless the Endpoints controller wrote them. */
function endpointsWarnings(ep: KubeObject): string[] {
  if (ep.metadata.labels?.[managedByLabel] === endpointsControllerName) return [];
  const warnings: string[] = [];
  arrayAt(ep, 'subsets').forEach((subset, i) => {
    for (const list of ['addresses', 'notReadyAddresses']) {
      arrayAt(subset, list).forEach((address, j) => appendAll(warnings, ipWarnings(child(index(child(index('subsets', i), list), j), 'ip'), stringAt(address, 'ip'))));
    }
  });
  return warnings;
}

/** endpointsStrategy.Canonicalize: the subsets as RepackSubsets leaves them (none: no subsets). */
function canonicalizeEndpoints(ep: KubeObject): void {
  const subsets = repackSubsets(arrayAt(ep, 'subsets'));
  if (subsets.length > 0) ep.subsets = subsets;
  else delete ep.subsets;
}

const endpointsStrategy: Strategy = {
  defaults: defaultEndpoints,
  validate: validateEndpoints,
  warningsOnCreate: endpointsWarnings,
  warningsOnUpdate: endpointsWarnings,
  canonicalize: canonicalizeEndpoints,
};

export function endpointsType(): ResourceType {
  return builtinType('', 'v1', 'endpoints', {
    subresources: [],
    strategy: endpointsStrategy,
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    tableColumns: endpointsColumns,
  });
}
