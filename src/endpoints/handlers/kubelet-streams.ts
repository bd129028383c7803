// exec, attach and port-forward on a real node, as kube-apiserver serves them once the pod's
// kubelet is known (connect.ts checks the rest first): the kubelet's path and query as
// upstream's streamLocation builds them, then the caller's upgrade passed to the kubelet
// (UpgradeAwareHandler), an exec or attach over WebSocket v5 run on the kubelet over SPDY
// (the stream translator, stream-translator.ts), or port-forward's SPDY tunnelled in a
// WebSocket carried to the kubelet's SPDY (the tunneling handler, stream-tunnel.ts).
import type { IncomingMessage } from 'node:http';
import { badRequest, unclassifiedError } from '../../api/index.ts';
import { goQuote } from '../../api/field-errors.ts';
import { goEscape } from '../../api/go-url.ts';
import type { KubeletClient } from '../kubelet-client.ts';
import { queryBool } from '../request-info.ts';
import {
  abandonWithCaller, answerRefusal, joinUpgrade, takeConnection, tunnelledProtocols, passedOnHeaders, UpgradeFailure, wantsStreamTranslation, type BackendUpgrade,
} from '../upgrade.ts';
import type { RequestScope } from './scope.ts';

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
  return goEscape(Buffer.from(value, 'utf8'), true);
}

/**
 * The kubelet's path and query for exec, attach and port-forward, as upstream's streamLocation
 * builds them: `/exec/<ns>/<pod>/<container>` with `input`, `output`, `error`, `tty` and each
 * `command`; `/portForward/<ns>/<pod>` with one `port` listing the ports; the query in Go's url.Values order (by key).
 */
export function kubeletStreamTarget(subresource: string, namespace: string, name: string, container: string, query: URLSearchParams): string {
  const params: Array<[string, string]> = [];
  let path: string;
  if (subresource === 'portforward') {
    path = `/portForward/${namespace}/${name}`;
    // One `port`, the ports joined with commas (streamParams), when any is asked for.
    const ports = portForwardPorts(query);
    if (ports.length > 0) params.push(['port', ports.join(',')]);
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

/** The request passed to the kubelet at `address` (`target`: its path and query) the way its upgrade asks. */
export async function streamToKubelet(scope: RequestScope, kubelet: KubeletClient, address: string, target: string): Promise<void> {
  const subresource = scope.info.subresource;
  if (subresource !== 'portforward' && wantsStreamTranslation(scope.req)) return translateToKubelet(scope, kubelet, address, target);
  if (subresource === 'portforward' && tunnelledProtocols(scope.req).length > 0) return tunnelToKubelet(scope, kubelet, address, target);
  return upgradeToKubelet(scope, kubelet, address, target);
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

/**
 * The upgrade passed to the kubelet as upstream's UpgradeAwareHandler passes it (joinUpgrade):
 * the caller's request with its headers (but the credentials and impersonation the filters
 * used) and X-Forwarded-For; the kubelet's 101 and then both connections joined; a refusal
 * passed back as it came; anything else that is not a switch a 500. exec, attach and
 * port-forward over SPDY come here, and any upgrade through nodes/proxy.
 */
export async function upgradeToKubelet(scope: RequestScope, kubelet: KubeletClient, address: string, target: string): Promise<void> {
  const { req, res } = scope;
  const upgrade = await dialUpgrade(scope, kubelet, address, req.method ?? 'GET', target, passedOnHeaders(req, () => false));
  await asStatus(() => joinUpgrade(req, res, upgrade, scope.trackLongRunning));
}

/** An upgrade that could not be passed on, as upstream's connect handlers answer it: a 500 Status. */
async function asStatus(pass: () => Promise<void>): Promise<void> {
  try {
    await pass();
  } catch (err) {
    throw err instanceof UpgradeFailure ? unclassifiedError(err.message) : err;
  }
}

/** The upgrade sent to the kubelet; one that cannot be reached is upstream's 500 `error dialing backend: …`. */
async function dialUpgrade(scope: RequestScope, kubelet: KubeletClient, address: string, method: string, target: string, headers: Record<string, string | string[]>): Promise<BackendUpgrade> {
  try {
    return await kubelet.upgrade({ address, method, target, headers }, (outgoing) => abandonWithCaller(scope.req, outgoing));
  } catch (err) {
    throw unclassifiedError(`error dialing backend: ${(err as Error).message}`);
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
  const headers = { ...passedOnHeaders(req, (name) => tunnelHeaders.has(name)), upgrade: 'SPDY/3.1', 'x-stream-protocol-version': protocols };
  const upgrade = await dialUpgrade(scope, kubelet, address, 'POST', target, headers);
  // Counted as upstream's tunneling handler counts them: by the answer, the kubelet's when it did not switch.
  const counted = (code: number) => kubelet.counters?.tunnelledStream(code);
  if (!upgrade.switched) {
    counted(upgrade.answer.statusCode ?? 500);
    return asStatus(() => answerRefusal(res, upgrade.answer));
  }
  const connection = String(upgrade.answer.headers.connection ?? '').toLowerCase();
  const switchedTo = String(upgrade.answer.headers.upgrade ?? '').toLowerCase();
  if (!connection.includes('upgrade') || !switchedTo.includes('spdy/3.1')) {
    upgrade.socket.destroy();
    counted(500);
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
  const switched = await tunnel({ req: req as unknown as IncomingMessage, ...client }, upgrade, chosen === '' ? undefined : `SPDY/3.1+${chosen}`, {
    onSwitched: () => {
      res.statusCode = 101;
      counted(101);
    },
    track: (stop) => scope.trackLongRunning(stop),
  });
  // A handshake the library refused: it answered 400 and closed the connection.
  if (!switched) {
    res.statusCode = 400;
    counted(400);
  }
}

