// pods/{id}/proxy and services/{id}/proxy, as kube-apiserver serves them: the target found as
// upstream's ResourceLocation finds it (`name`, `name:port` or `scheme:name:port`; a pod's
// first IP and, without a port, its first container port; a service's port by number or
// name, then an address of its endpoints whose pod still has that IP), then the request
// passed on as upstream's UpgradeAwareHandler passes it (the path after `proxy`, the query as
// sent, the body, the caller's headers but its credentials, with X-Forwarded-For and
// X-Forwarded-Uri) and the answer streamed back without CORS headers and with a redirect to
// the pod itself made a path under the proxy, and so the links of an HTML page
// (proxy-links.ts); an upgrade is joined (upgrade.ts). A pod on a simulated node has no
// network: 503 at once.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { badRequest, serviceUnavailable, unclassifiedError, type KubeObject } from '../../api/index.ts';
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
  await refuseSimulated(registry, pod);
  await proxyToPod(scope, scope.podNetwork, target(id.scheme, ip, port));
}

/** services/{id}/proxy (upstream's service ResourceLocation, then its proxy handler). */
export async function serviceProxyHandler(scope: RequestScope, registry: ResourceRegistry): Promise<void> {
  const { info } = scope;
  const id = splitSchemeNamePort(info.name);
  if (id === undefined) throw badRequest(`invalid service request ${goQuote(info.name)}`);
  const service = await scope.served.store.get(info.namespace, id.name);
  let portName = id.port;
  // A port number names the service port that has it.
  if (/^[+-]?\d+$/.test(portName)) {
    const number = Number(portName);
    const servicePort = objectsAt(objectAt(service, 'spec'), 'ports').find((p) => p.port === number);
    if (servicePort === undefined) throw serviceUnavailable(`no service port ${number} found for service ${goQuote(id.name)}`);
    portName = stringAt(servicePort, 'name');
  }
  // Without an endpoint controller (upstream always runs one) there may be no Endpoints: as none ready.
  const endpoints = await registry.lookup('', 'v1', 'endpoints')!.store.find(info.namespace, id.name);
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
        await proxyToPod(scope, scope.podNetwork, target(id.scheme, stringAt(address, 'ip'), String(port.port)));
        return;
      }
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${goQuote(info.name)}`);
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

/** `scheme://ip[:port]`, http without a scheme (upstream's normalizeLocation). */
function target(scheme: string, ip: string, port: string): URL {
  const host = ip.includes(':') ? `[${ip}]` : ip;
  if (port !== '' && !/^\d+$/.test(port)) throw serviceUnavailable(`error trying to reach service: dial tcp: address ${host}:${port}: unknown port`);
  return new URL(`${scheme === '' ? 'http' : scheme}://${host}${port === '' ? '' : `:${port}`}`);
}

/** The request passed to the pod at `base` and its answer back (upstream's UpgradeAwareHandler with its rewriting transport). */
async function proxyToPod(scope: RequestScope, podNetwork: PodNetworkClient | undefined, base: URL): Promise<void> {
  if (podNetwork === undefined) throw serviceUnavailable('error trying to reach service: no pod network is reachable: this server has no pod network client');
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
  const location = new URL(`${path}${query}`, base);
  if (isUpgradeRequest(req) && connectionOffered(req)) {
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
  // A request for the proxy's root without its slash is sent to it with one, as upstream's redirect hack.
  if (path === '' && (req.method === 'GET' || req.method === 'HEAD')) {
    res.writeHead(301, { location: `${requestPath}/${query}` });
    res.end();
    return;
  }
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
