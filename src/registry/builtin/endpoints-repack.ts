// The canonical form upstream stores Endpoints' subsets in: kubernetes pkg/api/endpoints/util.go's
// RepackSubsets, which endpointsStrategy.Canonicalize runs once a write is valid.

import { createHash } from 'node:crypto';
import { clone, type JsonObject } from '../../api/json.ts';
import { objectAt, objectsAt, stringAt } from './object.ts';

/** The addresses offering one port (undefined: the stand-in of a subset without ports), by address key: ready or not. */
interface PortAddresses {
  port: JsonObject | undefined;
  readiness: Map<string, boolean>;
}

/** The key of the ports of subsets without ports (upstream's `EndpointPort{Port: -1}` sentinel). */
const noPorts = 'no ports';

/**
 * RepackSubsets: every (address, port) pair of the subsets regrouped so that the addresses
 * offering the same ports share one subset. An address is one IP and targetRef uid (the
 * first one listed gives its other fields); for one port, not ready wins over ready. A
 * subset without ports keeps its addresses in a subset without ports (unless they offer
 * ports elsewhere). Addresses sort by IP then targetRef uid, ports and subsets by the md5
 * of their spew dump, as upstream's SortSubsets.
 */
export function repackSubsets(subsets: readonly unknown[]): JsonObject[] {
  const addresses = new Map<string, JsonObject>();
  const ports = new Map<string, PortAddresses>();
  subsets.forEach((subset, i) => {
    const offered = objectsAt(subset, 'ports');
    const entries = offered.length === 0 ? [portAddresses(ports, noPorts, undefined)] : offered.map((port, j) => portAddresses(ports, portKey(port, i, j), port));
    for (const entry of entries) {
      for (const address of objectsAt(subset, 'addresses')) addAddress(addresses, entry, address, true);
      for (const address of objectsAt(subset, 'notReadyAddresses')) addAddress(addresses, entry, address, false);
    }
  });

  // The ports offered by the same addresses, each with the same readiness, make one subset.
  const groups = new Map<string, { readiness: Map<string, boolean>; ports: JsonObject[] }>();
  for (const { port, readiness } of ports.values()) {
    const key = [...readiness].map(([address, ready]) => `${address}${ready ? '+' : '-'}`).sort().join('\n');
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { readiness, ports: [] }));
    if (port !== undefined) group.ports.push(port);
  }

  const repacked = [...groups.values()].map(({ readiness, ports }) => {
    const ready: JsonObject[] = [];
    const notReady: JsonObject[] = [];
    for (const [key, isReady] of readiness) (isReady ? ready : notReady).push(clone(addresses.get(key)!));
    const subset: JsonObject = {};
    if (ready.length > 0) subset.addresses = ready.sort(compareAddresses);
    if (notReady.length > 0) subset.notReadyAddresses = notReady.sort(compareAddresses);
    if (ports.length > 0) subset.ports = sortByHash(ports, (port) => `(core.EndpointPort)${portText(port)}`);
    return subset;
  });
  return sortByHash(repacked, subsetText);
}

function portAddresses(ports: Map<string, PortAddresses>, key: string, port: JsonObject | undefined): PortAddresses {
  let entry = ports.get(key);
  if (entry === undefined) ports.set(key, (entry = { port, readiness: new Map() }));
  return entry;
}

/**
 * Upstream maps ports by their Go value, where a pointer compares by address: a port with an
 * appProtocol (a *string, decoded anew for each port) is never the same key as another.
 */
function portKey(port: JsonObject, subset: number, index: number): string {
  if (typeof port.appProtocol === 'string') return `${subset}/${index}`;
  return JSON.stringify([stringAt(port, 'name'), port.port, stringAt(port, 'protocol')]);
}

/** upstream's addressKey: the IP and the targetRef's uid. */
function addressKey(address: JsonObject): string {
  return JSON.stringify([stringAt(address, 'ip'), stringAt(objectAt(address, 'targetRef'), 'uid')]);
}

/** mapAddressByPort: the first address of a key stands for it; a not-ready listing for the port is kept over a ready one. */
function addAddress(addresses: Map<string, JsonObject>, entry: PortAddresses, address: JsonObject, ready: boolean): void {
  const key = addressKey(address);
  if (!addresses.has(key)) addresses.set(key, address);
  if (entry.readiness.get(key) !== false) entry.readiness.set(key, ready);
}

/** LessEndpointAddress: by IP bytes, then an address without targetRef first, then by the targetRef's uid. */
function compareAddresses(a: JsonObject, b: JsonObject): number {
  const byIP = compareBytes(stringAt(a, 'ip'), stringAt(b, 'ip'));
  if (byIP !== 0) return byIP;
  const refA = objectAt(a, 'targetRef');
  const refB = objectAt(b, 'targetRef');
  if (refA === undefined || refB === undefined) return (refA === undefined ? 0 : 1) - (refB === undefined ? 0 : 1);
  return compareBytes(stringAt(refA, 'uid'), stringAt(refB, 'uid'));
}

function compareBytes(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Sorted by the md5 of each item's text, as upstream's portsByHash and subsetsByHash (DeepHashObject). */
function sortByHash(items: JsonObject[], text: (item: JsonObject) => string): JsonObject[] {
  return items
    .map((item) => ({ item, digest: createHash('md5').update(text(item)).digest() }))
    .sort((a, b) => Buffer.compare(a.digest, b.digest))
    .map(({ item }) => item);
}

// What DeepHashObject hashes: spew's "%#v" of upstream's internal types (k8s.io/kubernetes/pkg/apis/core),
// fields in their Go order, each value after its type in parentheses, strings as they are, a nil
// pointer or slice `<nil>`. Without the `+` flag spew prints no pointer addresses: the text, and
// so the order, depend on the values alone.

function subsetText(subset: JsonObject): string {
  const addresses = sliceText('core.EndpointAddress', objectsAt(subset, 'addresses').map(addressText));
  const notReady = sliceText('core.EndpointAddress', objectsAt(subset, 'notReadyAddresses').map(addressText));
  const ports = sliceText('core.EndpointPort', objectsAt(subset, 'ports').map(portText));
  return `(core.EndpointSubset){Addresses:${addresses} NotReadyAddresses:${notReady} Ports:${ports}}`;
}

/** A slice field: its type, then its items without theirs (RepackSubsets leaves an empty slice nil). */
function sliceText(itemType: string, items: string[]): string {
  return `([]${itemType})${items.length === 0 ? '<nil>' : `[${items.join(' ')}]`}`;
}

function addressText(address: JsonObject): string {
  const ref = objectAt(address, 'targetRef');
  const refText = ref === undefined ? '<nil>'
    : `{Kind:(string)${stringAt(ref, 'kind')} Namespace:(string)${stringAt(ref, 'namespace')} Name:(string)${stringAt(ref, 'name')} UID:(types.UID)${stringAt(ref, 'uid')}`
      + ` APIVersion:(string)${stringAt(ref, 'apiVersion')} ResourceVersion:(string)${stringAt(ref, 'resourceVersion')} FieldPath:(string)${stringAt(ref, 'fieldPath')}}`;
  return `{IP:(string)${stringAt(address, 'ip')} Hostname:(string)${stringAt(address, 'hostname')} NodeName:(*string)${pointedString(address.nodeName)} TargetRef:(*core.ObjectReference)${refText}}`;
}

function portText(port: JsonObject): string {
  return `{Name:(string)${stringAt(port, 'name')} Port:(int32)${String(port.port)} Protocol:(core.Protocol)${stringAt(port, 'protocol')} AppProtocol:(*string)${pointedString(port.appProtocol)}}`;
}

function pointedString(value: unknown): string {
  return typeof value === 'string' ? value : '<nil>';
}
