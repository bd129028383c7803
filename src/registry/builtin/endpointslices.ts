// discovery.k8s.io/v1 endpointslices, after kubernetes pkg/registry/discovery/endpointslice
// (strategy: generation, v1's dropped deprecatedTopology, warnings) and
// pkg/apis/discovery/validation: the address type required and immutable, addresses checked
// by it, ports' names and protocols, at most 1000 endpoints, zone and node hints; and the
// printer's columns.

import type { KubeObject, StatusCause, TableColumn } from '../../api/index.ts';
import { isObject, type JsonObject } from '../../api/json.ts';
import { fullyQualifiedDomainNameError } from '../../api/labels.ts';
import type { ResourceType, Strategy } from '../resource-type.ts';
import { ageColumn, column, nameColumn } from '../table-columns.ts';
import { appendAll, duplicate, fieldImmutable, goJson, index, invalid, notSupported, required, tooMany } from '../validation/field.ts';
import { isDNS1123Label, isDNS1123Subdomain, isLabelValue, isQualifiedName } from '../validation/names.ts';
import { validateLabels } from '../validation/object-meta.ts';
import { isKubernetesEndpoints } from './endpoints.ts';
import { ipFamilyOf, ipWarnings } from '../validation/ip.ts';
import { endpointIPCauses, legacyIPCauses } from './legacy-ip-fields.ts';
import { arrayAt, objectAt, objectsAt, semanticEqual, stringAt, stringsAt } from './object.ts';
import { builtinType } from './skeleton.ts';

const addressTypes = ['FQDN', 'IPv4', 'IPv6'];
const protocols = ['SCTP', 'TCP', 'UDP'];
const maxEndpoints = 1000;
const maxAddresses = 100;
const maxPorts = 20000;
const maxTopologyLabels = 16;
const maxZoneHints = 8;
const maxNodeHints = 8;

/** IsFullyQualifiedDomainName: a DNS subdomain of at least two labels, a trailing dot allowed. */
function validateFQDN(name: string, path: string): StatusCause[] {
  const error = fullyQualifiedDomainNameError(name);
  if (error === undefined) return [];
  return [error === 'required' ? required(path) : invalid(path, error.value, error.detail)];
}

/**
 * An address of the slice's type. An IP is a legacy field's (strict, KEP-4858), then of the
 * slice's family (upstream reports a wrong family at the addresses list, not the entry),
 * then one ValidateEndpointIP accepts.
 */
function validateAddress(address: unknown, addressType: string, addressesPath: string, path: string, allowSpecial: boolean): StatusCause[] {
  const text = typeof address === 'string' ? address : '';
  if (addressType === 'FQDN') return validateFQDN(text, path);
  if (addressType !== 'IPv4' && addressType !== 'IPv6') return [];
  const causes = legacyIPCauses(path, text);
  if (causes.length > 0) return causes;
  if (ipFamilyOf(text) !== addressType) causes.push(invalid(addressesPath, text, `must be an ${addressType} address`));
  if (!allowSpecial) appendAll(causes, endpointIPCauses(text, path));
  return causes;
}

/**
 * One list of an endpoint's hints: at most `max` entries (more stops the hints' checks),
 * each name once and of the right form (zones: label values; nodes: node names).
 */
function validateHintNames(entries: JsonObject[], path: string, max: number, nameErrors: (name: string) => string[]): StatusCause[] | 'too many' {
  if (entries.length > max) return 'too many';
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    const name = stringAt(entry, 'name');
    const p = `${index(path, i)}.name`;
    if (seen.has(name)) causes.push(duplicate(p, name));
    seen.add(name);
    for (const msg of nameErrors(name)) causes.push(invalid(p, name, msg));
  });
  return causes;
}

/** validateHints: forZones, then forNodes; too many of either ends the checks there. */
function validateHints(hints: JsonObject, path: string): StatusCause[] {
  const zones = objectsAt(hints, 'forZones');
  const zoneCauses = validateHintNames(zones, `${path}.forZones`, maxZoneHints, isLabelValue);
  if (zoneCauses === 'too many') return [tooMany(`${path}.forZones`, zones.length, maxZoneHints)];
  const nodes = objectsAt(hints, 'forNodes');
  const nodeCauses = validateHintNames(nodes, `${path}.forNodes`, maxNodeHints, isDNS1123Subdomain);
  if (nodeCauses === 'too many') return [...zoneCauses, tooMany(`${path}.forNodes`, nodes.length, maxNodeHints)];
  return [...zoneCauses, ...nodeCauses];
}

function validateEndpoints(slice: KubeObject, addressType: string): StatusCause[] {
  const endpoints = arrayAt(slice, 'endpoints');
  if (endpoints.length > maxEndpoints) return [tooMany('endpoints', endpoints.length, maxEndpoints)];
  const allowSpecial = isKubernetesEndpoints(slice);
  const causes: StatusCause[] = [];
  endpoints.forEach((raw, i) => {
    const endpoint = isObject(raw) ? raw : {};
    const p = index('endpoints', i);
    const addresses = arrayAt(endpoint, 'addresses');
    if (addresses.length === 0) causes.push(required(`${p}.addresses`, 'must contain at least 1 address'));
    else if (addresses.length > maxAddresses) causes.push(tooMany(`${p}.addresses`, addresses.length, maxAddresses));
    addresses.forEach((address, j) => appendAll(causes, validateAddress(address, addressType, `${p}.addresses`, index(`${p}.addresses`, j), allowSpecial)));
    if (typeof endpoint.nodeName === 'string') {
      for (const msg of isDNS1123Subdomain(endpoint.nodeName)) causes.push(invalid(`${p}.nodeName`, endpoint.nodeName, msg));
    }
    const topology = objectAt(endpoint, 'deprecatedTopology');
    if (topology !== undefined) {
      if (Object.keys(topology).length > maxTopologyLabels) causes.push(tooMany(`${p}.deprecatedTopology`, Object.keys(topology).length, maxTopologyLabels));
      appendAll(causes, validateLabels(topology, `${p}.deprecatedTopology`));
      if ('topology.kubernetes.io/zone' in topology) {
        causes.push({ reason: 'InternalError', field: `${p}.deprecatedTopology[topology.kubernetes.io/zone]`, message: 'Internal error: reserved key was not removed in conversion' });
      }
    }
    if (typeof endpoint.hostname === 'string') {
      for (const msg of isDNS1123Label(endpoint.hostname)) causes.push(invalid(`${p}.hostname`, endpoint.hostname, msg));
    }
    const hints = objectAt(endpoint, 'hints');
    if (hints !== undefined) appendAll(causes, validateHints(hints, `${p}.hints`));
  });
  return causes;
}

function validatePorts(slice: KubeObject): StatusCause[] {
  const ports = arrayAt(slice, 'ports');
  if (ports.length > maxPorts) return [tooMany('ports', ports.length, maxPorts)];
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((raw, i) => {
    const port = isObject(raw) ? raw : {};
    const p = index('ports', i);
    const name = stringAt(port, 'name');
    if (name !== '') for (const msg of isDNS1123Label(name)) causes.push(invalid(`${p}.name`, name, msg));
    if (names.has(name)) causes.push(duplicate(`${p}.name`, name));
    names.add(name);
    const protocol = port.protocol;
    // A typed string (Protocol): json.Marshal writes it. The port number itself is not checked upstream.
    if (protocol === undefined || protocol === null) causes.push(required(`${p}.protocol`));
    else if (!protocols.includes(String(protocol))) causes.push(notSupported(`${p}.protocol`, goJson(protocol), protocols));
    if (typeof port.appProtocol === 'string') for (const msg of isQualifiedName(port.appProtocol)) causes.push(invalid(`${p}.appProtocol`, port.appProtocol, msg));
  });
  return causes;
}

/**
 * Upstream's ValidateEndpointSlice. An update that leaves the endpoints as they were is
 * spared their errors: older releases accepted them (upstream's ratcheting of the IPs of
 * EndpointSlices is the whole of endpoints, not address by address).
 */
export function validateEndpointSlice(slice: KubeObject, old?: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const addressType = stringAt(slice, 'addressType');
  if (addressType === '') causes.push(required('addressType'));
  else if (!addressTypes.includes(addressType)) causes.push(notSupported('addressType', goJson(addressType), addressTypes));
  appendAll(causes, validatePorts(slice));
  const endpointCauses = validateEndpoints(slice, addressType);
  if (endpointCauses.length > 0 && old !== undefined && semanticEqual(old.endpoints, slice.endpoints)) return causes;
  return [...causes, ...endpointCauses];
}

/** SetDefaults_EndpointPort: name "" and protocol TCP. */
function defaultEndpointSlice(slice: KubeObject): void {
  for (const port of objectsAt(slice, 'ports')) {
    if (port.name === undefined || port.name === null) port.name = '';
    if (port.protocol === undefined || port.protocol === null) port.protocol = 'TCP';
  }
}

/** The managed-by label, and the controllers whose slices hold only valid IPs (pkg/controller/endpointslice, endpointslicemirroring). */
const managedByLabel = 'endpointslice.kubernetes.io/managed-by';
const trustedManagers = ['endpointslice-controller.k8s.io', 'endpointslicemirroring-controller.k8s.io'];

/** warnOnBadIPs: IPs a later release will refuse, unless one of upstream's own controllers wrote them. */
function badIPWarnings(slice: KubeObject): string[] {
  if (trustedManagers.includes(slice.metadata.labels?.[managedByLabel] ?? '')) return [];
  return arrayAt(slice, 'endpoints').flatMap((endpoint, i) =>
    stringsAt(endpoint, 'addresses').flatMap((address, j) => ipWarnings(index(`${index('endpoints', i)}.addresses`, j), address)));
}

/** The label upstream's EndpointSlice controller wrote a node's name under in deprecatedTopology (v1beta1's topology). */
const hostnameLabel = 'kubernetes.io/hostname';

/**
 * dropTopologyOnV1: v1 does not take deprecatedTopology from clients. Every endpoint's is
 * dropped unless the write leaves the endpoints as they were; a node name the stored slice
 * held there moves to nodeName when the endpoint has none.
 */
function dropDeprecatedTopology(slice: KubeObject, old?: KubeObject): void {
  if (old !== undefined && semanticEqual(old.endpoints, slice.endpoints)) return;
  const storedNodeNames = new Set(objectsAt(old, 'endpoints').map((e) => stringAt(objectAt(e, 'deprecatedTopology'), hostnameLabel)).filter((n) => n !== ''));
  for (const endpoint of objectsAt(slice, 'endpoints')) {
    const topology = objectAt(endpoint, 'deprecatedTopology');
    const nodeName = topology?.[hostnameLabel];
    if ((endpoint.nodeName === undefined || endpoint.nodeName === null) && typeof nodeName === 'string' && storedNodeNames.has(nodeName) && isDNS1123Subdomain(nodeName).length === 0) {
      endpoint.nodeName = nodeName;
    }
    delete endpoint.deprecatedTopology;
  }
}

/** What a slice holds besides its metadata (upstream compares the whole object with ObjectMeta emptied). */
function contentOf(slice: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, apiVersion: _apiVersion, kind: _kind, ...content } = slice;
  return content;
}

const endpointSliceStrategy: Strategy = {
  defaults: defaultEndpointSlice,
  prepareForCreate(slice) {
    slice.metadata.generation = 1;
    dropDeprecatedTopology(slice);
  },
  prepareForUpdate(slice, old) {
    // The generation counts any change but metadata's, labels' too; then v1 drops deprecatedTopology.
    const changed = !semanticEqual(contentOf(slice), contentOf(old)) || !semanticEqual(slice.metadata.labels, old.metadata.labels);
    const generation = (old.metadata.generation ?? 0) + (changed ? 1 : 0);
    if (generation === 0) delete slice.metadata.generation;
    else slice.metadata.generation = generation;
    dropDeprecatedTopology(slice, old);
  },
  validate: validateEndpointSlice,
  validateUpdate(slice, old) {
    if (semanticEqual(slice.addressType, old.addressType)) return [];
    return [invalid('addressType', slice.addressType ?? '', fieldImmutable)];
  },
  // warnOnDeprecatedAddressType on create only, as upstream's strategy.
  warningsOnCreate: (slice) => [...(slice.addressType === 'FQDN' ? ['spec.addressType: FQDN endpoints are deprecated'] : []), ...badIPWarnings(slice)],
  warningsOnUpdate: badIPWarnings,
};

/** printers.go's listWithMoreString: at most three entries, "+ N more...", "<unset>" when empty. */
function listWithMore(values: string[]): string {
  const max = 3;
  if (values.length > max) return `${values.slice(0, max).join(',')} + ${values.length - max} more...`;
  return values.length === 0 ? '<unset>' : values.join(',');
}

const endpointSliceColumns: TableColumn[] = [
  nameColumn,
  column('AddressType', (slice) => stringAt(slice, 'addressType'), {
    description: 'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.',
  }),
  column('Ports', (slice) => listWithMore(objectsAt(slice, 'ports').map((port) =>
    typeof port.port === 'number' ? String(port.port) : typeof port.name === 'string' ? port.name : '*')), {
    description: 'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.',
  }),
  column('Endpoints', (slice) => listWithMore(objectsAt(slice, 'endpoints').flatMap((e) => arrayAt(e, 'addresses').map(String))), {
    description: 'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.',
  }),
  ageColumn,
];

export function endpointSlicesType(): ResourceType {
  return builtinType('discovery.k8s.io', 'v1', 'endpointslices', {
    strategy: endpointSliceStrategy,
    tableColumns: endpointSliceColumns,
  });
}
