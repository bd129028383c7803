// Reaching pods at their IPs, for pods/proxy and services/proxy, as kube-apiserver's proxy
// transport does: HTTP, or HTTPS without checking the certificate (a pod's IP names no
// certificate), no client certificate, Go's dial timeouts; failures worded as Go's dialer.
// Only addresses upstream lets the proxies reach: global unicast ones (no loopback,
// link-local, multicast or unspecified address), which tests on loopback widen.
import type { ClientRequest, IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';
import { goDialError } from '../api/go-dial-error.ts';
import { answerOf, boundDial, switchOf } from './backend-request.ts';
import type { BackendUpgrade } from './upgrade.ts';

/**
 * Go's IP.IsGlobalUnicast: an address that is none of unspecified, loopback, link-local,
 * multicast or IPv4's limited broadcast (IPv4-mapped IPv6 addresses as their IPv4 address).
 */
export function isGlobalUnicast(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const v4 = mapped?.[1] ?? (isIPv4(ip) ? ip : undefined);
  if (v4 !== undefined) {
    const [a, b] = v4.split('.').map(Number) as [number, number];
    return !(v4 === '0.0.0.0' || v4 === '255.255.255.255' || a === 127 || (a === 169 && b === 254) || (a >= 224 && a <= 239));
  }
  if (!isIPv6(ip)) return false;
  // Its canonical form (`0:0::1` is `::1`), as URL writes it.
  const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const first = Number.parseInt(canonical.split(':')[0] || '0', 16);
  return !(canonical === '::' || canonical === '::1' || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00);
}

export interface PodRequest {
  url: URL;
  method: string;
  headers: Record<string, string | string[]>;
}

export class PodNetworkClient {
  readonly #allowed: (ip: string) => boolean;

  /** `allowed`: which pod IPs the proxies may reach (upstream's IsGlobalUnicast; tests on loopback widen it). */
  constructor(allowed: (ip: string) => boolean = isGlobalUnicast) {
    this.#allowed = allowed;
  }

  allows(ip: string): boolean {
    return this.#allowed(ip);
  }

  /** The pod's answer (its body unread); an Error in Go's dialer's words when it cannot be reached. */
  request(req: PodRequest, body?: AsyncIterable<Buffer | string>): Promise<IncomingMessage> {
    return answerOf(open(req), failedReaching(req.url), body);
  }

  /** The upgrade sent to the pod: its switch with the connection, or its answer. `sent` sees the request on its way. */
  upgrade(req: PodRequest, sent?: (outgoing: ClientRequest) => void): Promise<BackendUpgrade> {
    return switchOf(open(req), failedReaching(req.url), sent);
  }
}

/** The request on its way to the pod, within Go's transport's time to connect and shake hands. */
function open(req: PodRequest): ClientRequest {
  const https = req.url.protocol === 'https:';
  const outgoing = process.getBuiltinModule(https ? 'node:https' : 'node:http').request(req.url, {
    method: req.method, headers: req.headers, agent: false, ...(https ? { rejectUnauthorized: false } : {}),
  });
  boundDial(outgoing, https);
  return outgoing;
}

function failedReaching(url: URL): (err: NodeJS.ErrnoException) => Error {
  return (err) => new Error(goDialError(err, url.host));
}
