// Reaching a node's kubelet as kube-apiserver's kubelet client does (pods/log, nodes/proxy):
// HTTPS to the address the node reports (connect.ts picks it), presenting the client
// certificate of --kubelet-client-certificate and --kubelet-client-key, and checking the
// kubelet's certificate against --kubelet-certificate-authority, or not at all without one:
// kubelets serve self-signed certificates, and upstream's transport is insecure when no CA
// is configured. A request may ask to skip the check (pods/log's insecureSkipTLSVerifyBackend).
// Failures are worded as Go's HTTP client words them, which is what upstream's answers carry.
import { lookup } from 'node:dns/promises';
import https from 'node:https';
import { isIPv4, isIPv6 } from 'node:net';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { certificateErrorCodes, goDialError, hostOf } from '../api/go-dial-error.ts';
import { answerOf, boundDial, switchOf } from './backend-request.ts';
import type { BackendUpgrade } from './upgrade.ts';

/** The client's TLS material, as the flags' files hold it. */
export interface KubeletTls {
  certPem?: string;
  keyPem?: string;
  caPem?: string;
}

export interface KubeletRequest {
  /** `host:port` (`[v6]:port`). */
  address: string;
  method: string;
  /** The path and query, as sent. */
  target: string;
  headers?: Record<string, string | string[]>;
  /** Skip checking the kubelet's certificate even with a CA configured. */
  insecure?: boolean;
}


/** Whether a request failed on the kubelet's certificate (KubeletClient.request's errors say so). */
export function isCertificateRejected(err: unknown): boolean {
  return (err as { certificateRejected?: unknown }).certificateRejected === true;
}

/**
 * Go's proxyutil.IsProxyableIP: not loopback, link-local unicast, link-local multicast or
 * interface-local multicast (IPv4-mapped IPv6 addresses as their IPv4 address).
 */
export function isProxyableIp(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const v4 = mapped?.[1] ?? (isIPv4(ip) ? ip : undefined);
  if (v4 !== undefined) {
    const [a, b, c] = v4.split('.').map(Number);
    return !(a === 127 || (a === 169 && b === 254) || (a === 224 && b === 0 && c === 0));
  }
  if (!isIPv6(ip)) return true;
  const lower = ip.toLowerCase();
  return !(lower === '::1' || /^fe[89ab]/.test(lower) || lower.startsWith('ff01:') || lower.startsWith('ff02:'));
}

/** A failure to reach the kubelet at `address` in Go's words, marked when it was the kubelet's certificate. */
function failedReaching(address: string): (err: NodeJS.ErrnoException) => Error {
  return (err) => Object.assign(new Error(goDialError(err, address)), { certificateRejected: certificateErrorCodes.has(err.code ?? '') });
}

/** The counters of what reaches kubelets: upstream's pods/log ones (`kube_apiserver_pod_logs_*`), its stream translator's and its tunnel's. */
export interface KubeletCounters {
  /** A log request, by whether it asked to skip the kubelet's certificate check. */
  logRequest(usage: 'enforce_tls' | 'skip_tls_allowed'): void;
  /** A log request that failed on the kubelet's certificate. */
  logTlsFailure(): void;
  /** An exec or attach over WebSocket v5 done, by the code it ended with (`apiserver_stream_translator_requests_total`). */
  translatedStream(code: number): void;
  /** A port-forward tunnelled over WebSocket, by the code it was answered (`apiserver_stream_tunnel_requests_total`). */
  tunnelledStream(code: number): void;
}

export class KubeletClient {
  readonly #agent: https.Agent;
  readonly #insecureAgent: https.Agent;
  readonly #proxyable: (ip: string) => boolean;
  /** Counted by pods/log and the stream translator, which is what upstream counts them for. */
  readonly counters: KubeletCounters | undefined;

  /** `proxyable`: which addresses nodes/proxy may reach (upstream's IsProxyableIP; tests on loopback widen it). */
  constructor(tls: KubeletTls = {}, proxyable: (ip: string) => boolean = isProxyableIp, counters?: KubeletCounters) {
    this.#proxyable = proxyable;
    this.counters = counters;
    const identity = { ...(tls.certPem !== undefined ? { cert: tls.certPem } : {}), ...(tls.keyPem !== undefined ? { key: tls.keyPem } : {}) };
    this.#insecureAgent = new https.Agent({ keepAlive: true, ...identity, rejectUnauthorized: false });
    this.#agent = tls.caPem === undefined ? this.#insecureAgent : new https.Agent({ keepAlive: true, ...identity, ca: tls.caPem });
  }

  /** The kubelet's answer (its body unread), or an Error worded as Go's client's. */
  request(req: KubeletRequest, body?: AsyncIterable<Buffer | string>): Promise<IncomingMessage> {
    return answerOf(this.#open(req), failedReaching(req.address), body);
  }

  /**
   * The request sent to switch protocols (its headers say which): the kubelet's 101 and the
   * connection, now the caller's to use, or its answer when it did not switch (the body
   * unread); an Error worded as Go's client's when it could not be reached.
   */
  upgrade(req: KubeletRequest, sent?: (outgoing: ClientRequest) => void): Promise<BackendUpgrade> {
    return switchOf(this.#open(req), failedReaching(req.address), sent);
  }

  /** The request, on its way to the kubelet, within Go's transport's time to connect and shake hands. */
  #open(req: KubeletRequest): ClientRequest {
    const { address } = req;
    const host = hostOf(address);
    const outgoing = https.request({
      host, port: Number(address.slice(address.lastIndexOf(':') + 1)), method: req.method, path: req.target, headers: req.headers,
      agent: req.insecure === true ? this.#insecureAgent : this.#agent,
      // The kubelet's certificate names its node, not necessarily the address dialed; upstream checks it against the address.
      servername: /^[\d.]+$|:/.test(host) ? '' : host,
    });
    boundDial(outgoing, true);
    return outgoing;
  }

  /**
   * Upstream's isProxyableHostname for nodes/proxy: every address the host resolves to must be
   * proxyable, so that a Node's reported address cannot turn the server's proxy on its own
   * loopback or link-local services. Throws upstream's words (`address not allowed`, a failed lookup).
   */
  async checkProxyable(address: string): Promise<void> {
    const host = hostOf(address);
    let found: Array<{ address: string }>;
    try {
      found = isIPv4(host) || isIPv6(host) ? [{ address: host }] : await lookup(host, { all: true });
    } catch {
      throw new Error(`lookup ${host}: no such host`);
    }
    if (found.length === 0) throw new Error('no addresses for hostname');
    if (found.some((a) => !this.#proxyable(a.address))) throw new Error('address not allowed');
  }

  close(): void {
    this.#agent.destroy();
    this.#insecureAgent.destroy();
  }
}
