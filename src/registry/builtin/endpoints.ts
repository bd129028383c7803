// core/v1 endpoints, after kubernetes pkg/registry/core/endpoint/strategy.go and
// pkg/apis/core/validation's ValidateEndpoints.

import type { KubeObject, StatusCause } from '../../api/index.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { builtinType } from './skeleton.ts';
import { child, index, invalid, required } from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortNum } from '../validation/names.ts';
import { validateKubeFinalizerNames } from '../validation/object-meta.ts';
import { invalidIPMessage, parseIP } from './ip.ts';
import { isObject } from '../../api/json.ts';
import { arrayAt, objectsAt, stringAt } from './object.ts';
import { validateProtocol } from './pod-spec.ts';
import { endpointsColumns } from './table-columns.ts';

function defaultEndpoints(ep: KubeObject): void {
  for (const subset of objectsAt(ep, 'subsets')) {
    for (const port of objectsAt(subset, 'ports')) if (!port.protocol) port.protocol = 'TCP';
  }
}

/**
 * The default/kubernetes Endpoints and EndpointSlice, which Plinth's start-up writes
 * with its own address: on a loopback bind address that is a loopback IP, which
 * ValidateNonSpecialIP refuses for every other endpoint.
 */
export function isKubernetesEndpoints(obj: KubeObject): boolean {
  return obj.metadata.namespace === 'default' && obj.metadata.name === 'kubernetes';
}

/** ValidateNonSpecialIP: addresses that cannot be an endpoint. */
export function specialIPMessage(ip: string): string | undefined {
  const parsed = parseIP(ip);
  if (parsed === undefined) return undefined;
  const v = parsed.value;
  if (parsed.family === 'IPv4') {
    if (v === 0n) return 'may not be unspecified (0.0.0.0, ::)';
    if (v >> 24n === 127n) return 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
    if (v >> 16n === 0xa9fen) return 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
    if (v >> 8n === 0xe00000n) return 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';
    return undefined;
  }
  if (v === 0n) return 'may not be unspecified (0.0.0.0, ::)';
  if (v === 1n) return 'may not be in the loopback range (127.0.0.0/8, ::1/128)';
  if (v >> 118n === 0x3fan) return 'may not be in the link-local range (169.254.0.0/16, fe80::/10)';
  if (v >> 112n === 0xff02n) return 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)';
  return undefined;
}

function validateAddress(address: unknown, path: string, allowSpecial: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const ip = stringAt(address, 'ip');
  if (parseIP(ip) === undefined) causes.push(invalid(child(path, 'ip'), ip, invalidIPMessage));
  const hostname = stringAt(address, 'hostname');
  if (hostname !== '') for (const msg of isDNS1123Label(hostname)) causes.push(invalid(child(path, 'hostname'), hostname, msg));
  if (isObject(address) && typeof address.nodeName === 'string') {
    for (const msg of isDNS1123Subdomain(address.nodeName)) causes.push(invalid(child(path, 'nodeName'), address.nodeName, msg));
  }
  const special = allowSpecial ? undefined : specialIPMessage(ip);
  if (special !== undefined) causes.push(invalid(child(path, 'ip'), ip, special));
  return causes;
}

function validateEndpoints(ep: KubeObject): StatusCause[] {
  const causes = validateKubeFinalizerNames(ep.metadata.finalizers, 'metadata.finalizers');
  arrayAt(ep, 'subsets').forEach((subset, i) => {
    const p = index('subsets', i);
    const addresses = arrayAt(subset, 'addresses');
    const notReady = arrayAt(subset, 'notReadyAddresses');
    if (addresses.length === 0 && notReady.length === 0) causes.push(required(p, 'must specify `addresses` or `notReadyAddresses`'));
    const allowSpecial = isKubernetesEndpoints(ep);
    addresses.forEach((a, j) => causes.push(...validateAddress(a, index(child(p, 'addresses'), j), allowSpecial)));
    notReady.forEach((a, j) => causes.push(...validateAddress(a, index(child(p, 'notReadyAddresses'), j), allowSpecial)));
    const ports = arrayAt(subset, 'ports');
    ports.forEach((port, j) => {
      const pp = index(child(p, 'ports'), j);
      const name = stringAt(port, 'name');
      if (ports.length > 1 && name === '') causes.push(required(child(pp, 'name')));
      else if (name !== '') for (const msg of isDNS1123Label(name)) causes.push(invalid(child(pp, 'name'), name, msg));
      const number = isObject(port) ? port.port : undefined;
      for (const msg of isValidPortNum(Number(number ?? 0))) causes.push(invalid(child(pp, 'port'), number ?? 0, msg));
      causes.push(...validateProtocol(isObject(port) ? port.protocol : undefined, child(pp, 'protocol')));
      const appProtocol = isObject(port) ? port.appProtocol : undefined;
      if (typeof appProtocol === 'string') for (const msg of isQualifiedName(appProtocol)) causes.push(invalid(child(pp, 'appProtocol'), appProtocol, msg));
    });
  });
  return causes;
}

const endpointsStrategy: Strategy = {
  prepareForCreate: defaultEndpoints,
  prepareForUpdate(ep) {
    defaultEndpoints(ep);
  },
  validate: validateEndpoints,
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
