// Subresources that connect through to a node's kubelet upstream (pods/exec, attach,
// portforward; nodes/proxy; pods/log is pod-log.ts, the pods' and services' proxies
// workload-proxy.ts). Node proxying and the upgraded connections of exec, attach and
// port-forward (kubelet-streams.ts) reach a node's kubelet when it is a real one
// (kubelet-client.ts); what a simulated node would have to serve answers at once with the
// Status upstream gives when it cannot reach the other end, after the same checks upstream
// makes first (the object exists, the container is valid, the pod is bound to a node).
import { badRequest, serviceUnavailable, unclassifiedError, type KubeObject } from '../../api/index.ts';
import { objectAt, objectsAt, stringAt } from '../../registry/builtin/object.ts';
import { simulatedNodeAnnotation } from '../../registry/builtin/nodes.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { goQuote } from '../../api/field-errors.ts';
import { goPathJoin } from '../proxy-links.ts';
import { forwardedHeaders } from '../proxy-stream.ts';
import { connectionOffered, isUpgradeRequest } from '../upgrade.ts';
import { kubeletStreamTarget, portForwardPorts, streamToKubelet, upgradeToKubelet } from './kubelet-streams.ts';
import type { RequestScope } from './scope.ts';
import { answerAsProxied, answerHandlerPanic, proxyLocation, proxyToPod, splitSchemeNamePort } from './workload-proxy.ts';
import { joinHostPort } from '../../api/go-dial-error.ts';

/** Why Plinth answers in a kubelet's stead: a server without a kubelet client (a library's), or a simulated node's, which Plinth plays without running anything. */
export const noKubeletClient = 'no kubelet is reachable: this server has no kubelet client';
const simulatedKubelet = 'no kubelet is reachable: the node is simulated';

/**
 * The container a request names, as upstream's validateContainer: the only one when
 * none is named, 400 when several could be meant (every container named, init containers
 * first, then the pod's, then its ephemeral ones, as VisitContainers walks them) or the
 * named one does not exist.
 */
export function containerOf(pod: KubeObject, name: string, requested: string): string {
  const containers = objectsAt(objectAt(pod, 'spec'), 'containers').map((c) => stringAt(c, 'name'));
  const init = objectsAt(objectAt(pod, 'spec'), 'initContainers').map((c) => stringAt(c, 'name'));
  const ephemeral = objectsAt(objectAt(pod, 'spec'), 'ephemeralContainers').map((c) => stringAt(c, 'name'));
  if (requested === '') {
    if (containers.length === 1) return containers[0]!;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    // Go's %s of a []string: its elements between brackets, spaced.
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${[...init, ...containers, ...ephemeral].join(' ')}]`);
  }
  if (![...containers, ...init, ...ephemeral].includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/**
 * upstream's ConnectResource refuses a dry run before anything else it does (the options are
 * not read yet): any `dryRun` parameter, whatever its value.
 */
export function refuseDryRun(query: URLSearchParams): void {
  if (query.has('dryRun')) throw badRequest('dryRun is not supported');
}

/** Upstream's default `--kubelet-preferred-address-types`: the hostname, then internal DNS before IP, then external. */
export const defaultKubeletAddressTypes = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];

/** Where upstream would reach the node's kubelet: its address of the first preferred type it has, and the kubelet port it reports. */
export function kubeletAddress(node: KubeObject, nodeName: string, types: readonly string[] = defaultKubeletAddressTypes): string {
  const { host, port } = kubeletEndpoint(node, types) ?? { host: nodeName, port: kubeletPortOf(node) };
  return joinHostPort(host, port);
}

/**
 * The kubelet's host and port as upstream's NodeConnectionInfoGetter finds them: the node's
 * address of the first preferred type it has (GetPreferredNodeAddress), and the port its
 * kubelet reports (10250 when none); undefined when it has no such address.
 */
export function kubeletEndpoint(node: KubeObject, types: readonly string[] = defaultKubeletAddressTypes): { host: string; port: string } | undefined {
  const addresses = objectsAt(objectAt(node, 'status'), 'addresses');
  const preferred = types.map((type) => addresses.find((a) => a.type === type)).find((a) => a !== undefined);
  return preferred === undefined ? undefined : { host: stringAt(preferred, 'address'), port: kubeletPortOf(node) };
}

function kubeletPortOf(node: KubeObject): string {
  const endpoint = objectAt(objectAt(objectAt(node, 'status'), 'daemonEndpoints'), 'kubeletEndpoint');
  return String(typeof endpoint?.Port === 'number' && endpoint.Port > 0 ? endpoint.Port : 10250);
}


/**
 * The address of a node's kubelet that is not simulated: a node that reports no address of a
 * preferred type is upstream's GetPreferredNodeAddress error, a plain error its handlers answer
 * 500 without a reason (its addresses as Go's %v prints them).
 */
export function realKubeletAddress(node: KubeObject, types: readonly string[] = defaultKubeletAddressTypes): string {
  const endpoint = kubeletEndpoint(node, types);
  if (endpoint === undefined) {
    const known = objectsAt(objectAt(node, 'status'), 'addresses').map((a) => `{${stringAt(a, 'type')} ${stringAt(a, 'address')}}`);
    throw unclassifiedError(`no preferred addresses found; known addresses: [${known.join(' ')}]`);
  }
  return joinHostPort(endpoint.host, endpoint.port);
}

/** pods/{name}/exec, attach and portforward (log: pod-log.ts; proxy: workload-proxy.ts). */
export async function podConnectHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info, query } = scope;
  // The options decode first, as upstream's connect handler reads them before anything else.
  if (info.subresource === 'portforward') portForwardPorts(query);
  // Then the pod registry's Connect authorizes `create` (a GET's), before it reads the pod.
  await scope.authorizeConnectCreate?.();
  const pod = await scope.served.store.get(info.namespace, info.name);
  const container = info.subresource === 'portforward' ? '' : containerOf(pod, info.name, query.get('container') ?? '');
  const nodeName = stringAt(objectAt(pod, 'spec'), 'nodeName');
  if (nodeName === '') throw badRequest(`pod ${info.name} does not have a host assigned`);
  const node = await registry.lookup('', 'v1', 'nodes')!.store.get('', nodeName);
  const simulated = node.metadata.annotations?.[simulatedNodeAnnotation] === 'true';
  const address = simulated ? kubeletAddress(node, nodeName, scope.kubeletAddressTypes) : realKubeletAddress(node, scope.kubeletAddressTypes);
  // Upstream's UpgradeAwareHandler, which these subresources require an upgrade of.
  if (!isUpgradeRequest(scope.req)) throw badRequest('Upgrade request required');
  if (scope.kubelet === undefined || simulated) {
    throw unclassifiedError(`error dialing backend: ${simulated ? simulatedKubelet : noKubeletClient} (node ${JSON.stringify(nodeName)} at ${address})`);
  }
  await streamToKubelet(scope, scope.kubelet, address, kubeletStreamTarget(info.subresource, info.namespace, info.name, container, query));
}

/**
 * nodes/{id}/proxy/{path}, the id `name`, `name:port` or `scheme:name:port` (upstream's node
 * ResourceLocation): without a port or with the kubelet's, the request passed to the node's
 * kubelet as it came (method, path after `proxy`, query, body, headers but the caller's
 * credentials, with X-Forwarded-Uri), its answer back as upstream's proxy transport passes it
 * (redirects and HTML links under the proxy, no CORS headers); with another port, passed to
 * that port of the node's address as pods/proxy passes a request to a pod. A simulated node's
 * kubelet, or one that cannot be reached, is a 503.
 */
export async function nodeProxyHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info, req, res } = scope;
  const id = splitSchemeNamePort(info.name);
  if (id === undefined) throw badRequest(`invalid node request ${goQuote(info.name)}`);
  const node = await registry.lookup('', 'v1', 'nodes')!.store.get('', id.name);
  const kubelet = scope.kubelet;
  const simulated = node.metadata.annotations?.[simulatedNodeAnnotation] === 'true';
  if (simulated) {
    throw serviceUnavailable(`error trying to reach service: ${simulatedKubelet} (node ${JSON.stringify(id.name)} at ${kubeletAddress(node, id.name, scope.kubeletAddressTypes)})`);
  }
  const address = realKubeletAddress(node, scope.kubeletAddressTypes);
  if (kubelet === undefined) throw serviceUnavailable(`error trying to reach service: ${noKubeletClient} (node ${JSON.stringify(id.name)} at ${address})`);
  try {
    await kubelet.checkProxyable(address);
  } catch (err) {
    throw badRequest((err as Error).message);
  }
  const endpoint = kubeletEndpoint(node, scope.kubeletAddressTypes)!;
  // Another port than the kubelet's (compared as written): through the proxy transport, as to a pod.
  if (id.port !== '' && id.port !== endpoint.port) {
    const location = proxyLocation(id.scheme, endpoint.host, id.port);
    if (location === undefined) return answerHandlerPanic(scope);
    return proxyToPod(scope, scope.podNetwork, location);
  }
  const marker = `/nodes/${info.name}/proxy`;
  const rest = info.path.slice(info.path.indexOf(marker) + marker.length);
  // The query as sent (upstream passes the raw query on), not as parsed and encoded again.
  const url = req.url ?? '';
  const mark = url.indexOf('?');
  const path = rest === '' ? '/' : rest;
  const target = `${path}${mark < 0 ? '' : url.slice(mark)}`;
  // An upgrade (a WebSocket, SPDY) is passed on and, once the kubelet switches, both connections joined.
  if (isUpgradeRequest(req) && connectionOffered(req)) return upgradeToKubelet(scope, kubelet, address, target);
  // The proxy's root without its slash is redirected to it, as upstream's redirect hack.
  if (rest === '' && (req.method === 'GET' || req.method === 'HEAD')) {
    res.writeHead(301, { location: `${info.path}/${mark < 0 ? '' : url.slice(mark)}` });
    res.end();
    return;
  }
  const prefix = info.path.slice(0, info.path.length - rest.length);
  const headers = forwardedHeaders(req);
  headers['x-forwarded-uri'] = goPathJoin(prefix, path) + (path.endsWith('/') ? '/' : '');
  let answer;
  try {
    answer = await kubelet.request({ address, method: req.method ?? 'GET', target, headers }, req);
  } catch (err) {
    throw serviceUnavailable(`error trying to reach service: ${(err as Error).message}`);
  }
  const host = req.headers.host ?? req.headers[':authority'];
  await answerAsProxied(scope, answer, { prefix, backend: new URL(`https://${address}${path}`), requestHost: typeof host === 'string' ? host : '' });
}
