// Subresources that connect through to a kubelet or a pod upstream (pods/log, exec, attach,
// portforward, proxy; services/proxy; nodes/proxy). Logs (pod-log.ts), node proxying and
// the upgraded connections of exec, attach and port-forward reach a node's kubelet when it
// is a real one (kubelet-client.ts; exec and attach over WebSocket v5 through the stream
// translator, stream-translator.ts; port-forward's WebSocket tunnel, stream-tunnel.ts); the
// rest, and anything a simulated node would have to
// serve, answer at once with the Status upstream gives when it cannot reach the other end,
// after the same checks upstream makes first (the object exists, the container is valid,
// the pod is bound to a node). Plinth has no pod network.
import { badRequest, serviceUnavailable, unclassifiedError, type KubeObject } from '../../api/index.ts';
import { objectAt, objectsAt, stringAt } from '../../registry/builtin/object.ts';
import { simulatedNodeAnnotation } from '../../registry/builtin/nodes.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { answeredHeaders, forwardedHeaders, streamAnswer } from '../proxy-stream.ts';
import type { KubeletClient, KubeletUpgrade } from '../kubelet-client.ts';
import type { HttpRequest } from '../http.ts';
import { queryBool } from '../request-info.ts';
import { isUpgradeRequest, spliceConnections, takeConnection, tunnelledProtocols, wantsStreamTranslation } from '../upgrade.ts';
import type { IncomingMessage } from 'node:http';
import { goQuote } from '../../api/field-errors.ts';
import type { RequestScope } from './scope.ts';

/** Why Plinth answers in a kubelet's stead: a server without a kubelet client (a library's), or a simulated node's, which Plinth plays without running anything. */
export const noKubeletClient = 'no kubelet is reachable: this server has no kubelet client';
const simulatedKubelet = 'no kubelet is reachable: the node is simulated';

/**
 * The container a request names, as upstream's validateContainer: the only one when
 * none is named, 400 when several could be meant or the named one does not exist.
 */
export function containerOf(pod: KubeObject, name: string, requested: string): string {
  const containers = objectsAt(objectAt(pod, 'spec'), 'containers').map((c) => stringAt(c, 'name'));
  const init = objectsAt(objectAt(pod, 'spec'), 'initContainers').map((c) => stringAt(c, 'name'));
  const ephemeral = objectsAt(objectAt(pod, 'spec'), 'ephemeralContainers').map((c) => stringAt(c, 'name'));
  if (requested === '') {
    if (containers.length === 1) return containers[0]!;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    let message = `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`;
    if (init.length > 0) message += ` or one of the init containers: [${init.join(' ')}]`;
    if (ephemeral.length > 0) message += ` or one of the ephemeral containers: [${ephemeral.join(' ')}]`;
    throw badRequest(message);
  }
  if (![...containers, ...init, ...ephemeral].includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/** Upstream's default `--kubelet-preferred-address-types`: the hostname, then internal DNS before IP, then external. */
export const defaultKubeletAddressTypes = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];

/** Where upstream would reach the node's kubelet: its address of the first preferred type it has, and the kubelet port it reports. */
export function kubeletAddress(node: KubeObject, nodeName: string, types: readonly string[] = defaultKubeletAddressTypes): string {
  const addresses = objectsAt(objectAt(node, 'status'), 'addresses');
  const preferred = types.map((type) => addresses.find((a) => a.type === type)).find((a) => a !== undefined);
  const host = preferred === undefined ? nodeName : stringAt(preferred, 'address');
  const endpoint = objectAt(objectAt(objectAt(node, 'status'), 'daemonEndpoints'), 'kubeletEndpoint');
  const port = typeof endpoint?.Port === 'number' && endpoint.Port > 0 ? endpoint.Port : 10250;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** What exec and attach ask (core/v1 PodExecOptions, PodAttachOptions), as the kubelet is told it. */
interface StreamOptions {
  container: string;
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
  /** exec's command, each argument a `command` parameter. */
  command: string[];
}

function streamOptions(query: URLSearchParams): StreamOptions {
  return {
    container: query.get('container') ?? '',
    stdin: queryBool(query.get('stdin')) === true,
    stdout: queryBool(query.get('stdout')) === true,
    stderr: queryBool(query.get('stderr')) === true,
    tty: queryBool(query.get('tty')) === true,
    command: query.getAll('command'),
  };
}

/**
 * PodPortForwardOptions' ports as Go's query conversion reads them: every `ports` value,
 * each split at commas, parsed as a 16-bit unsigned number (400 otherwise).
 */
export function portForwardPorts(query: URLSearchParams): number[] {
  const ports: number[] = [];
  for (const value of query.getAll('ports')) {
    for (const part of value.split(',')) {
      if (!/^\d+$/.test(part)) throw badRequest(`cannot convert to []int32: strconv.ParseUint: parsing ${goQuote(part)}: invalid syntax`);
      const port = Number(part);
      if (port > 0xffff) throw badRequest(`cannot convert to []int32: strconv.ParseUint: parsing ${goQuote(part)}: value out of range`);
      ports.push(port);
    }
  }
  return ports;
}

/** Go's url.QueryEscape: all but letters, digits and `-_.~` escaped, spaces as `+`. */
function goQueryEscape(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}

/**
 * The kubelet's path and query for exec, attach and port-forward, as upstream's streamLocation
 * builds them: `/exec/<ns>/<pod>/<container>` with `input`, `output`, `error`, `tty` and each
 * `command`; `/portForward/<ns>/<pod>` with each `port`; the query in Go's url.Values order (by key).
 */
export function kubeletStreamTarget(subresource: string, namespace: string, name: string, container: string, query: URLSearchParams): string {
  const params: Array<[string, string]> = [];
  let path: string;
  if (subresource === 'portforward') {
    path = `/portForward/${namespace}/${name}`;
    for (const port of portForwardPorts(query)) params.push(['port', String(port)]);
  } else {
    path = `/${subresource}/${namespace}/${name}/${container}`;
    const options = streamOptions(query);
    if (options.stdin) params.push(['input', '1']);
    if (options.stdout) params.push(['output', '1']);
    if (options.stderr) params.push(['error', '1']);
    if (options.tty) params.push(['tty', '1']);
    if (subresource === 'exec') for (const arg of options.command) params.push(['command', arg]);
  }
  // url.Values.Encode: keys sorted, a key's values in the order added.
  params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const encoded = params.map(([k, v]) => `${goQueryEscape(k)}=${goQueryEscape(v)}`).join('&');
  return encoded === '' ? path : `${path}?${encoded}`;
}

/** pods/{name}/exec, attach, portforward and proxy (log: pod-log.ts). */
export async function podConnectHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info, query } = scope;
  // The options decode first, as upstream's connect handler reads them before anything else.
  if (info.subresource === 'portforward') portForwardPorts(query);
  const pod = await scope.served.store.get(info.namespace, info.name);
  if (info.subresource === 'proxy') {
    const ip = stringAt(objectAt(pod, 'status'), 'podIP');
    if (ip === '' || ip.startsWith('127.') || ip === '::1' || ip === '0.0.0.0') throw badRequest('address not allowed');
    throw serviceUnavailable(`error trying to reach service: no pod network is reachable: Plinth runs no pods`);
  }
  const container = info.subresource === 'portforward' ? '' : containerOf(pod, info.name, query.get('container') ?? '');
  const nodeName = stringAt(objectAt(pod, 'spec'), 'nodeName');
  if (nodeName === '') throw badRequest(`pod ${info.name} does not have a host assigned`);
  const node = await registry.lookup('', 'v1', 'nodes')!.store.get('', nodeName);
  const address = kubeletAddress(node, nodeName, scope.kubeletAddressTypes);
  // Upstream's UpgradeAwareHandler, which these subresources require an upgrade of.
  if (!isUpgradeRequest(scope.req)) throw badRequest('Upgrade request required');
  const simulated = node.metadata.annotations?.[simulatedNodeAnnotation] === 'true';
  if (scope.kubelet === undefined || simulated) {
    throw unclassifiedError(`error dialing backend: ${simulated ? simulatedKubelet : noKubeletClient} (node ${JSON.stringify(nodeName)} at ${address})`);
  }
  const target = kubeletStreamTarget(info.subresource, info.namespace, info.name, container, query);
  if (info.subresource !== 'portforward' && wantsStreamTranslation(scope.req)) {
    await translateToKubelet(scope, scope.kubelet, address, target);
    return;
  }
  if (info.subresource === 'portforward' && tunnelledProtocols(scope.req).length > 0) {
    await tunnelToKubelet(scope, scope.kubelet, address, target);
    return;
  }
  await upgradeToKubelet(scope, scope.kubelet, address, target);
}

/**
 * An exec or attach over WebSocket v5: served here and run on the kubelet over SPDY, as
 * upstream's stream translator (stream-translator.ts, loaded on first use).
 */
async function translateToKubelet(scope: RequestScope, kubelet: KubeletClient, address: string, target: string): Promise<void> {
  const client = takeConnection(scope.req);
  if (client === undefined) throw unclassifiedError('request connection cannot be hijacked');
  const { translateStreams } = await import('../stream-translator.ts');
  const options = streamOptions(scope.query);
  const switched = await translateStreams({ req: scope.req as unknown as IncomingMessage, ...client }, kubelet, address, target, options, {
    // The WebSocket library answered the upgrade on the connection: the response is counted as a switch.
    onSwitched: () => { scope.res.statusCode = 101; },
    track: (stop) => scope.trackLongRunning(stop),
  });
  // A handshake the library refused: it answered 400 and closed the connection.
  if (!switched) scope.res.statusCode = 400;
}

/** How long a kubelet's refusal of an upgrade may take to come back (upstream's deadline). */
const refusalDeadlineMs = 10_000;

/**
 * The upgrade passed to the kubelet as upstream's UpgradeAwareHandler passes it: the caller's
 * request with its headers (but the credentials and impersonation the filters used) and
 * X-Forwarded-For; the kubelet's 101 and then both connections joined until either is done;
 * a refusal (400 and above) passed back as it came, anything else that is not a switch a 500.
 */
async function upgradeToKubelet(scope: RequestScope, kubelet: KubeletClient, address: string, target: string): Promise<void> {
  const { req, res } = scope;
  const upgrade = await dialUpgrade(kubelet, address, req.method ?? 'GET', target, upgradeHeaders(req, () => false));
  if (!upgrade.switched) return answerWithoutSwitch(scope, upgrade.answer);
  const client = takeConnection(req);
  if (client === undefined) {
    upgrade.socket.destroy();
    throw unclassifiedError('request connection cannot be hijacked');
  }
  // The kubelet's 101 as it came (its Connection and Upgrade headers too), then the protocol it switched to.
  const switched: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upgrade.answer.headers)) if (value !== undefined) switched[name] = value;
  res.writeHead(101, switched);
  res.end();
  if (upgrade.head.length > 0) client.socket.write(upgrade.head);
  if (client.head.length > 0) upgrade.socket.write(client.head);
  const untrack = scope.trackLongRunning(() => {
    client.socket.destroy();
    upgrade.socket.destroy();
  });
  try {
    await spliceConnections(client.socket, upgrade.socket);
  } finally {
    untrack();
  }
}

/**
 * The caller's headers as upstream's UpgradeAwareHandler sends them on: all but the
 * credentials and impersonation the filters used (and those `dropped`), with X-Forwarded-For.
 */
function upgradeHeaders(req: HttpRequest, dropped: (name: string) => boolean): Record<string, string | string[]> {
  const headers = forwardedHeaders(req, (name) => name === 'authorization' || name.startsWith('impersonate-') || name.startsWith(':') || dropped(name));
  const clientIp = (req as { socket?: { remoteAddress?: string } }).socket?.remoteAddress;
  if (clientIp !== undefined) {
    const prior = headers['x-forwarded-for'];
    headers['x-forwarded-for'] = prior === undefined ? clientIp : `${[prior].flat().join(', ')}, ${clientIp}`;
  }
  return headers;
}

/** The upgrade sent to the kubelet; one that cannot be reached is upstream's 500 `error dialing backend: …`. */
async function dialUpgrade(kubelet: KubeletClient, address: string, method: string, target: string, headers: Record<string, string | string[]>): Promise<KubeletUpgrade> {
  try {
    return await kubelet.upgrade({ address, method, target, headers });
  } catch (err) {
    throw unclassifiedError(`error dialing backend: ${(err as Error).message}`);
  }
}

/**
 * A kubelet that did not switch: its refusal (400 and above) passed back as it wrote it, with
 * upstream's 10 seconds to come back; anything else upstream's 500 `invalid upgrade response`.
 */
async function answerWithoutSwitch(scope: RequestScope, answer: IncomingMessage): Promise<void> {
  const status = answer.statusCode ?? 0;
  if (status < 400) {
    answer.destroy();
    throw unclassifiedError(`invalid upgrade response: status code ${status}`);
  }
  const deadline = setTimeout(() => answer.destroy(), refusalDeadlineMs);
  try {
    scope.res.writeHead(status, answeredHeaders(answer));
    await streamAnswer(answer, scope.res);
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * A port-forward over WebSocket (kubectl 1.31+): SPDY tunnelled in the WebSocket's binary
 * messages, as upstream's tunneling handler serves it. The upgrade goes to the kubelet as
 * SPDY with the protocols the WebSocket named (`SPDY/3.1+portforward.k8s.io` asks for
 * `portforward.k8s.io`); once the kubelet switches, the WebSocket is accepted with the
 * protocol it chose and carries its bytes both ways; a kubelet that does not switch is
 * answered as for any upgrade.
 */
async function tunnelToKubelet(scope: RequestScope, kubelet: KubeletClient, address: string, target: string): Promise<void> {
  const { req, res } = scope;
  const protocols = tunnelledProtocols(req);
  const tunnelHeaders = new Set(['sec-websocket-protocol', 'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'upgrade', 'x-stream-protocol-version']);
  const headers = { ...upgradeHeaders(req, (name) => tunnelHeaders.has(name)), upgrade: 'SPDY/3.1', 'x-stream-protocol-version': protocols };
  const upgrade = await dialUpgrade(kubelet, address, 'POST', target, headers);
  if (!upgrade.switched) return answerWithoutSwitch(scope, upgrade.answer);
  const connection = String(upgrade.answer.headers.connection ?? '').toLowerCase();
  const switchedTo = String(upgrade.answer.headers.upgrade ?? '').toLowerCase();
  if (!connection.includes('upgrade') || !switchedTo.includes('spdy/3.1')) {
    upgrade.socket.destroy();
    res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
    res.end('unable to upgrade: missing upgrade headers in response\n');
    return;
  }
  const client = takeConnection(req);
  if (client === undefined) {
    upgrade.socket.destroy();
    throw unclassifiedError('request connection cannot be hijacked');
  }
  const chosen = String(upgrade.answer.headers['x-stream-protocol-version'] ?? '').trim();
  const { tunnel } = await import('../stream-tunnel.ts');
  await tunnel({ req: req as unknown as IncomingMessage, ...client }, upgrade, chosen === '' ? undefined : `SPDY/3.1+${chosen}`, {
    onSwitched: () => { res.statusCode = 101; },
    track: (stop) => scope.trackLongRunning(stop),
  });
}

/** services/{name}/proxy: 503 with no endpoints, as upstream, and 503 when it would dial one. */
export async function serviceProxyHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info } = scope;
  await scope.served.store.get(info.namespace, info.name);
  const endpoints = await registry.lookup('', 'v1', 'endpoints')!.store.find(info.namespace, info.name);
  const ready = objectsAt(endpoints, 'subsets').some((s) => objectsAt(s, 'addresses').length > 0);
  if (!ready) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(info.name)}`);
  throw serviceUnavailable('error trying to reach service: no pod network is reachable: Plinth runs no pods');
}

/**
 * nodes/{name}/proxy/{path}: the request passed to the node's kubelet as it came (method,
 * path after `proxy`, query, body, headers but the caller's credentials), its answer streamed
 * back. A simulated node's kubelet, or one that cannot be reached, is a 503.
 */
export async function nodeProxyHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info, req, res } = scope;
  const node = await registry.lookup('', 'v1', 'nodes')!.store.get('', info.name);
  const address = kubeletAddress(node, info.name, scope.kubeletAddressTypes);
  const kubelet = scope.kubelet;
  const simulated = node.metadata.annotations?.[simulatedNodeAnnotation] === 'true';
  if (kubelet === undefined || simulated) {
    throw serviceUnavailable(`error trying to reach service: ${simulated ? simulatedKubelet : noKubeletClient} (node ${JSON.stringify(info.name)} at ${address})`);
  }
  try {
    await kubelet.checkProxyable(address);
  } catch (err) {
    throw badRequest((err as Error).message);
  }
  const marker = `/nodes/${info.name}/proxy`;
  const rest = info.path.slice(info.path.indexOf(marker) + marker.length);
  // The query as sent (upstream passes the raw query on), not as parsed and encoded again.
  const url = req.url ?? '';
  const mark = url.indexOf('?');
  const target = `${rest === '' ? '/' : rest}${mark < 0 ? '' : url.slice(mark)}`;
  let answer;
  try {
    answer = await kubelet.request({ address, method: req.method ?? 'GET', target, headers: forwardedHeaders(req) }, req);
  } catch (err) {
    throw serviceUnavailable(`error trying to reach service: ${(err as Error).message}`);
  }
  const untrack = scope.trackLongRunning(() => answer.destroy());
  try {
    res.writeHead(answer.statusCode ?? 502, answeredHeaders(answer));
    res.flushHeaders?.();
    await streamAnswer(answer, res);
  } finally {
    untrack();
  }
}
