// pods/{id}/proxy and services/{id}/proxy, as kube-apiserver serves them: the target found as
// upstream's ResourceLocation finds it (`name`, `name:port` or `scheme:name:port`; a pod's
// first IP and, without a port, its first container port; a service's port by number or
// name, then an address of its endpoints whose pod still has that IP), then the request
// passed on as upstream's UpgradeAwareHandler passes it (the path after `proxy`, the query as
// sent, the body, the caller's headers but its credentials, with X-Forwarded-For and
// X-Forwarded-Uri) and the answer streamed back without CORS headers and with a redirect to
// the pod itself made a path under the proxy, and so the links of an HTML page
// (proxy-links.ts); an upgrade is joined (upgrade.ts). A pod on a simulated node has no
// network: 503 at once. A port that is no number is upstream's panic (its handler cannot
// parse the location back), one out of range its dialer's error. nodes/proxy to a port
// other than the kubelet's comes here too (connect.ts).
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { badRequest, notFound, serviceUnavailable, unclassifiedError, type KubeObject } from '../../api/index.ts';
import { goQuote } from '../../api/field-errors.ts';
import { objectAt, objectsAt, stringAt } from '../../registry/builtin/object.ts';
import { simulatedNodeAnnotation } from '../../registry/builtin/nodes.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import { isGlobalUnicast, type PodNetworkClient } from '../pod-network-client.ts';
import { goPathJoin, isHtml, maxPageBytes, proxiedUrl, RewriteError, rewrittenHtmlBody, type ProxyPlace } from '../proxy-links.ts';
import { answeredHeaders, notForwarded, streamAnswer } from '../proxy-stream.ts';
import { abandonWithCaller, connectionOffered, isUpgradeRequest, joinUpgrade, passedOnHeaders, UpgradeFailure } from '../upgrade.ts';
import type { RequestScope } from './scope.ts';

/** apimachinery's SplitSchemeNamePort: `name`, `name:port`, `scheme:name:port`, the scheme http, https or none. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  if (parts.length > 3) return undefined;
  const [scheme, name, port] = parts.length === 3 ? parts : ['', parts[0]!, parts[1] ?? ''];
  if (name === '' || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return undefined;
  return { scheme: scheme!, name: name!, port: port! };
}

/** pods/{id}/proxy (upstream's pod ResourceLocation, then its proxy handler). */
export async function podProxyHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info } = scope;
  const id = splitSchemeNamePort(info.name);
  if (id === undefined) throw badRequest(`invalid pod request ${goQuote(info.name)}`);
  const pod = await scope.served.store.get(info.namespace, id.name);
  let port = id.port;
  if (port === '') {
    const withPorts = objectsAt(objectAt(pod, 'spec'), 'containers').find((c) => objectsAt(c, 'ports').length > 0);
    const first = withPorts === undefined ? undefined : objectsAt(withPorts, 'ports')[0]!.containerPort;
    if (typeof first === 'number') port = String(first);
  }
  const ip = stringAt(objectsAt(objectAt(pod, 'status'), 'podIPs')[0], 'ip');
  if (isIP(ip) === 0 || !(scope.podNetwork?.allows(ip) ?? isGlobalUnicast(ip))) throw badRequest('address not allowed');
  const location = proxyLocation(id.scheme, ip, port);
  if (location === undefined) return answerHandlerPanic(scope);
  await refuseSimulated(registry, pod);
  await proxyToPod(scope, scope.podNetwork, location);
}

/** services/{id}/proxy (upstream's service ResourceLocation, then its proxy handler). */
export async function serviceProxyHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info } = scope;
  const id = splitSchemeNamePort(info.name);
  if (id === undefined) throw badRequest(`invalid service request ${goQuote(info.name)}`);
  let portName = id.port;
  // A port number (what Go's ParseInt reads as an int64) names the service port that has it;
  // only then is the service itself read.
  const number = goParseInt64(portName);
  if (number !== undefined) {
    const service = await scope.served.store.get(info.namespace, id.name);
    const servicePort = objectsAt(objectAt(service, 'spec'), 'ports').find((p) => typeof p.port === 'number' && BigInt(p.port) === number);
    if (servicePort === undefined) throw serviceUnavailable(`no service port ${number} found for service ${goQuote(id.name)}`);
    portName = stringAt(servicePort, 'name');
  }
  const endpoints = await registry.lookup('', 'v1', 'endpoints')!.store.find(info.namespace, id.name);
  if (endpoints === undefined) {
    // Upstream reads the Endpoints, which its endpoints controller keeps for every service with a
    // selector (none ready: no subsets) and for no other: without one (Plinth runs no such
    // controller) a service with a selector has none ready, any other has no Endpoints at all.
    const service = await scope.served.store.find(info.namespace, id.name);
    if (service === undefined || !controllerKeepsEndpoints(service)) throw notFound({ group: '', resource: 'endpoints' }, id.name);
    throw serviceUnavailable(`no endpoints available for service ${goQuote(id.name)}`);
  }
  const subsets = objectsAt(endpoints, 'subsets');
  if (subsets.length === 0) throw serviceUnavailable(`no endpoints available for service ${goQuote(id.name)}`);
  const pods = registry.lookup('', 'v1', 'pods')!.store;
  // From a random subset and address on, as upstream spreads the proxied requests.
  const firstSubset = Math.floor(Math.random() * subsets.length);
  for (let s = 0; s < subsets.length; s++) {
    const subset = subsets[(firstSubset + s) % subsets.length]!;
    const addresses = objectsAt(subset, 'addresses');
    if (addresses.length === 0) continue;
    for (const port of objectsAt(subset, 'ports')) {
      if (stringAt(port, 'name') !== portName) continue;
      const firstAddress = Math.floor(Math.random() * addresses.length);
      for (let a = 0; a < addresses.length; a++) {
        const address = addresses[(firstAddress + a) % addresses.length]!;
        const pod = await addressPod(pods, info.namespace, address);
        if (pod === undefined) continue;
        await refuseSimulated(registry, pod);
        await proxyToPod(scope, scope.podNetwork, proxyLocation(id.scheme, stringAt(address, 'ip'), String(port.port))!);
        return;
      }
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${goQuote(info.name)}`);
}

/** Go's strconv.ParseInt(s, 10, 64) when it succeeds: an optional sign, decimal digits, within an int64. */
function goParseInt64(text: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value >= -(2n ** 63n) && value < 2n ** 63n ? value : undefined;
}

/**
 * Whether upstream's endpoints controller keeps an Endpoints for the service: one with a
 * selector that is not of type ExternalName (an empty selector is none: it is stored as none).
 */
function controllerKeepsEndpoints(service: KubeObject): boolean {
  const spec = objectAt(service, 'spec');
  if (stringAt(spec, 'type') === 'ExternalName') return false;
  return Object.keys(objectAt(spec, 'selector') ?? {}).length > 0;
}

/** Upstream's isValidAddress: the address names a pod of the namespace, which still has its IP. */
async function addressPod(pods: { find(namespace: string, name: string): Promise<KubeObject | undefined> }, namespace: string, address: Record<string, unknown>): Promise<KubeObject | undefined> {
  const ref = objectAt(address, 'targetRef');
  if (ref === undefined || stringAt(ref, 'namespace') !== namespace) return undefined;
  const pod = await pods.find(namespace, stringAt(ref, 'name'));
  const ip = stringAt(address, 'ip');
  return pod !== undefined && objectsAt(objectAt(pod, 'status'), 'podIPs').some((p) => p.ip === ip) ? pod : undefined;
}

/** A pod on a simulated node runs nowhere: its proxy is refused at once rather than dialed. */
async function refuseSimulated(registry: ResourceRegistry, pod: KubeObject): Promise<void> {
  const nodeName = stringAt(objectAt(pod, 'spec'), 'nodeName');
  if (nodeName === '') return;
  const node = await registry.lookup('', 'v1', 'nodes')!.store.find('', nodeName);
  if (node?.metadata.annotations?.[simulatedNodeAnnotation] === 'true') {
    throw serviceUnavailable(`error trying to reach service: no pod network is reachable: pod ${pod.metadata.name} runs on a simulated node (node ${goQuote(nodeName)})`);
  }
}

/** Where a proxy sends the request, and the error Go's dialer gives for its port before any connection (Go's words, without the proxy's). */
interface ProxyLocation {
  url: URL;
  dialError?: string;
}

/**
 * `scheme://ip[:port]` as upstream's proxy handler holds it after normalizeLocation (http
 * without a scheme). Undefined when Go's url.Parse refuses the port (not all digits):
 * normalizeLocation then dereferences nil (answerHandlerPanic). A port past 65535, or 0, is
 * dialed and fails as Go's dialer fails it.
 */
export function proxyLocation(scheme: string, ip: string, port: string): ProxyLocation | undefined {
  const host = ip.includes(':') ? `[${ip}]` : ip;
  const base = `${scheme === '' ? 'http' : scheme}://${host}`;
  if (port === '') return { url: new URL(base) };
  if (!/^\d+$/.test(port)) return undefined;
  const number = Number(port);
  if (number > 0xffff) return { url: new URL(base), dialError: `dial tcp: address ${port}: invalid port` };
  // Port 0 is dialed: the connection is refused (Node would not even try).
  if (number === 0) return { url: new URL(base), dialError: `dial tcp ${host}:0: connect: connection refused` };
  return { url: new URL(`${base}:${number}`) };
}

/**
 * What kube-apiserver answers when its handler panics, as for a proxy location it cannot
 * parse: its panic filter (WithPanicRecovery) answers with Go's http.Error, plain text.
 */
export function answerHandlerPanic(scope: RequestScope): void {
  scope.res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
  scope.res.end('This request caused apiserver to panic. Look in the logs for details.\n');
}

/** The request passed to the pod at `base` and its answer back (upstream's UpgradeAwareHandler with its rewriting transport). */
export async function proxyToPod(scope: RequestScope, podNetwork: PodNetworkClient | undefined, base: ProxyLocation): Promise<void> {
  const noPodNetwork = 'no pod network is reachable: this server has no pod network client';
  const { req, res, info } = scope;
  const url = req.url ?? '';
  const mark = url.indexOf('?');
  const query = mark < 0 ? '' : url.slice(mark);
  // The path after `proxy` as the connect options read it: a leading slash, the request's trailing one kept.
  const marker = `/${info.resource}/${info.name}/proxy`;
  const requestPath = info.path;
  const rest = requestPath.slice(requestPath.indexOf(marker) + marker.length);
  let path = goPathJoin(rest);
  if (rest.endsWith('/') && !path.endsWith('/')) path += '/';
  const location = new URL(`${path}${query}`, base.url);
  if (isUpgradeRequest(req) && connectionOffered(req)) {
    // Upstream dials for an upgrade itself: its failures are `error dialing backend`, 500.
    if (base.dialError !== undefined) throw unclassifiedError(`error dialing backend: ${base.dialError}`);
    if (podNetwork === undefined) throw serviceUnavailable(`error trying to reach service: ${noPodNetwork}`);
    let upgrade;
    try {
      upgrade = await podNetwork.upgrade({ url: location, method: req.method ?? 'GET', headers: passedOnHeaders(req, () => false) }, (outgoing) => abandonWithCaller(req, outgoing));
    } catch (err) {
      throw unclassifiedError(`error dialing backend: ${(err as Error).message}`);
    }
    try {
      await joinUpgrade(req, res, upgrade, scope.trackLongRunning);
    } catch (err) {
      throw err instanceof UpgradeFailure ? unclassifiedError(err.message) : err;
    }
    return;
  }
  // A request for the proxy's root without its slash is sent to it with one, as upstream's redirect hack (nothing is dialed).
  if (path === '' && (req.method === 'GET' || req.method === 'HEAD')) {
    res.writeHead(301, { location: `${requestPath}/${query}` });
    res.end();
    return;
  }
  // Through upstream's proxy transport: what cannot be reached is its 503.
  if (base.dialError !== undefined) throw serviceUnavailable(`error trying to reach service: ${base.dialError}`);
  if (podNetwork === undefined) throw serviceUnavailable(`error trying to reach service: ${noPodNetwork}`);
  const prefix = requestPath.slice(0, requestPath.length - rest.length);
  // Go's reverse proxy drops the hop-by-hop headers.
  const headers = passedOnHeaders(req, notForwarded);
  // The Host the caller sent (HTTP/2's authority), as Go's reverse proxy passes it.
  const host = req.headers.host ?? req.headers[':authority'];
  if (typeof host === 'string') headers.host = host;
  headers['x-forwarded-uri'] = goPathJoin(prefix, location.pathname) + (location.pathname.endsWith('/') ? '/' : '');
  let answer;
  try {
    answer = await podNetwork.request({ url: location, method: req.method ?? 'GET', headers }, req);
  } catch (err) {
    throw serviceUnavailable(`error trying to reach service: ${(err as Error).message}`);
  }
  await answerAsProxied(scope, answer, { prefix, backend: location, requestHost: typeof host === 'string' ? host : '' });
}

/**
 * The backend's answer back to the caller, as through upstream's proxy transport: without
 * CORS headers, a redirect to the backend made a path under the proxy, and an HTML page's
 * links with it (proxy-links.ts); else streamed as it comes.
 */
export async function answerAsProxied(scope: RequestScope, answer: IncomingMessage, place: ProxyPlace): Promise<void> {
  const { res } = scope;
  const untrack = scope.trackLongRunning(() => answer.destroy());
  try {
    const answered = answeredHeaders(answer);
    for (const name of ['access-control-allow-credentials', 'access-control-allow-headers', 'access-control-allow-methods', 'access-control-allow-origin']) delete answered[name];
    const redirect = answer.headers.location;
    if (typeof redirect === 'string' && redirect !== '') answered.location = proxiedUrl(redirect, place);
    else if (isHtml(answer.headers['content-type'])) {
      const page = await rewrittenPage(answer, place);
      if (page !== undefined) {
        delete answered['content-length'];
        res.writeHead(answer.statusCode ?? 502, answered);
        res.end(page);
        return;
      }
    }
    res.writeHead(answer.statusCode ?? 502, answered);
    res.flushHeaders?.();
    await streamAnswer(answer, res);
  } finally {
    untrack();
  }
}

/**
 * An HTML answer read whole and its links rewritten (proxy-links.ts), in the encoding it came
 * in; undefined for an encoding upstream passes on as it came. A body that cannot be read
 * is upstream's unclassified 500 with Go's words.
 */
async function rewrittenPage(answer: IncomingMessage, place: ProxyPlace): Promise<Buffer | undefined> {
  const encoding = answer.headers['content-encoding'] ?? '';
  if (encoding !== '' && encoding !== 'gzip' && encoding !== 'deflate') return undefined;
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of answer) {
    read += (chunk as Buffer).length;
    if (read > maxPageBytes) {
      answer.destroy();
      throw unclassifiedError(`the page is larger than ${maxPageBytes} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return await rewrittenHtmlBody(Buffer.concat(chunks), encoding, (url) => proxiedUrl(url, place));
  } catch (err) {
    throw err instanceof RewriteError ? unclassifiedError(err.message) : err;
  }
}
