// Calls a webhook over HTTPS, the way upstream's webhook REST client does: POST of JSON
// to the URL with `?timeout=Ns`, the configuration's CA bundle (or the system roots), and
// errors worded like Go's ("Post \"URL\": context deadline exceeded").

import { goDialError, joinHostPort } from '../api/go-dial-error.ts';
import { goJsonSyntaxError } from '../api/go-json-syntax.ts';
import { genericServerResponse } from '../api/index.ts';
import type https from 'node:https';

/** node:https, loaded with the first webhook call rather than at every start. */
function httpsModule(): typeof https {
  return process.getBuiltinModule('node:https');
}

/** Why a call did not produce a response; the text is what upstream's error says. */
export class WebhookCallError extends Error {
  /** The HTTP status of an error answer; undefined when none came (no connection, a timeout). */
  readonly statusCode: number | undefined;
  /** A connection reset by the peer (client-go retries those). */
  readonly connectionReset: boolean;

  constructor(message: string, statusCode?: number, connectionReset = false) {
    super(message);
    this.statusCode = statusCode;
    this.connectionReset = connectionReset;
  }
}

/** How to reach a webhook's server: its CA (else the system roots) and, from a kubeconfig, client credentials. */
export interface TlsOptions {
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  /** The name the server's certificate must carry, when not the URL's host. */
  serverName?: string;
  insecureSkipTLSVerify?: boolean;
}

export interface CallOptions extends TlsOptions {
  timeoutMs: number;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Where to connect when not the URL's host and port (a service's endpoint); the URL still names the call. */
  connect?: ServiceEndpoint;
  /** The largest response read (default: upstream's limit on admission responses, 3 MiB). */
  maxResponseBytes?: number;
}

/** An address and port a service is served at. */
export interface ServiceEndpoint {
  host: string;
  port: number;
}

/**
 * Where a service's port is served, or why it cannot be reached in upstream's words
 * (`service "x" not found`, `no endpoints available for service "x"`).
 */
export type ServiceResolver = (namespace: string, name: string, port: number) => Promise<ServiceEndpoint | { error: string }>;

/** A webhook's clientConfig.service. */
export interface ServiceReference {
  namespace: string;
  name: string;
  port: number;
  path?: string;
}

/** A webhook's clientConfig: a URL or a service reference, and its CA. */
export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** PEM of the CA bundle; unset: the system's roots. */
  caPem?: string;
}

/**
 * POSTs `body` to the webhook a clientConfig names (its URL, or an endpoint of its service)
 * with `?timeout=Ns`, and answers the decoded JSON response. Throws WebhookCallError.
 */
export async function callWebhook(
  cc: WebhookClientConfig,
  body: unknown,
  opts: { timeoutSeconds: number; timeoutMs?: number; maxResponseBytes?: number; resolveService: ServiceResolver | undefined },
  agents: AgentPool,
): Promise<unknown> {
  const { url: configured, service, caPem } = cc;
  const url = configured !== undefined ? callURL(configured, opts.timeoutSeconds) : serviceURL(service!, opts.timeoutSeconds);
  const route = configured !== undefined ? {} : await serviceCall(service!, url, opts.resolveService);
  return postJSON(url, body, {
    timeoutMs: opts.timeoutMs ?? opts.timeoutSeconds * 1000,
    ...(caPem === undefined ? {} : { caPem }),
    ...(opts.maxResponseBytes === undefined ? {} : { maxResponseBytes: opts.maxResponseBytes }),
    ...route,
  }, agents);
}

/** The URL a service reference is called at, as upstream's client names it. */
function serviceURL(svc: ServiceReference, timeoutSeconds: number): string {
  return callURL(`https://${svc.name}.${svc.namespace}.svc:${svc.port}${svc.path ?? ''}`, timeoutSeconds);
}

/**
 * How to call a service reference: at a ready endpoint of the service (Plinth has no
 * service network: upstream's endpoint routing, `--enable-aggregator-routing`), its
 * certificate checked for the service's name (`name.namespace.svc`). Throws WebhookCallError
 * (`Post "URL": <why>`) when the service cannot be reached.
 */
async function serviceCall(svc: ServiceReference, url: string, resolve: ServiceResolver | undefined): Promise<{ connect: ServiceEndpoint; serverName: string }> {
  if (resolve === undefined) throw new WebhookCallError(`Post "${url}": service "${svc.namespace}/${svc.name}" cannot be reached: no service resolver; use clientConfig.url`);
  const target = await resolve(svc.namespace, svc.name, svc.port);
  if ('error' in target) throw new WebhookCallError(`Post "${url}": ${target.error}`);
  return { connect: target, serverName: `${svc.name}.${svc.namespace}.svc` };
}

/** Largest webhook response read, as upstream's limit on admission responses. */
const defaultMaxResponseBytes = 3 * 1024 * 1024;

/** The URL called: the configured one with `timeout` added (client-go's Request.Timeout). */
export function callURL(base: string, timeoutSeconds: number): string {
  // Kept as written (Go keeps an explicit default port); validation allows no query of its own.
  return `${base}${base.includes('?') ? '&' : '?'}timeout=${timeoutSeconds}s`;
}

/** `host:port` of the URL dialed (443 by default), as Go's errors name it. */
function addressOf(url: URL): string {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return joinHostPort(host, url.port === '' ? '443' : url.port);
}

/**
 * POSTs `body` and answers the decoded JSON response. Throws WebhookCallError for a
 * failed connection, a timeout, an error status or a body that is not JSON.
 */
export function postJSON(url: string, body: unknown, opts: CallOptions, agents: AgentPool): Promise<unknown> {
  const target = new URL(url);
  const payload = Buffer.from(JSON.stringify(body));
  const fail = (why: string) => new WebhookCallError(`Post "${url}": ${why}`);
  return new Promise((resolve, reject) => {
    const signal = AbortSignal.timeout(opts.timeoutMs);
    const req = httpsModule().request(target, {
      method: 'POST',
      agent: agents.agentFor(opts),
      signal,
      ...(opts.connect === undefined ? {} : { hostname: opts.connect.host, port: opts.connect.port, servername: opts.serverName }),
      headers: {
        ...(opts.connect === undefined ? {} : { Host: target.host }),
        'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': payload.byteLength,
        ...(opts.token !== undefined ? { Authorization: `Bearer ${opts.token}` } : {}),
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > (opts.maxResponseBytes ?? defaultMaxResponseBytes)) {
          req.destroy();
          reject(fail('response body too large'));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (err) => reject(fail(signal.aborted ? 'context deadline exceeded' : err.message)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        if (status < 200 || status > 206) {
          // client-go: a Status body is the error; otherwise a generic one naming the code.
          const message = typeof (parsed as { message?: unknown } | undefined)?.message === 'string' ? (parsed as { message: string }).message : '';
          reject(new WebhookCallError(message !== '' ? message : genericServerResponse(status, text.slice(0, 256)).message, status));
          return;
        }
        if (parsed === undefined) {
          reject(new WebhookCallError(`couldn't get version/kind; json parse error: ${goJsonSyntaxError(Buffer.from(text, 'utf8')) ?? 'unexpected end of JSON input'}`));
          return;
        }
        resolve(parsed);
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const { connect } = opts;
      const dialed = connect === undefined ? addressOf(target) : `${connect.host.includes(':') ? `[${connect.host}]` : connect.host}:${connect.port}`;
      const why = signal.aborted || err.name === 'AbortError' || err.name === 'TimeoutError' ? 'context deadline exceeded' : goDialError(err, dialed, connect === undefined ? undefined : opts.serverName);
      reject(new WebhookCallError(`Post "${url}": ${why}`, undefined, err.code === 'ECONNRESET'));
    });
    req.end(payload);
  });
}

/** Keep-alive agents per CA bundle and client credentials, reused across calls like upstream's cached clients. */
export class AgentPool {
  private readonly agents = new Map<string, https.Agent>();

  agentFor(tls: TlsOptions): https.Agent {
    const { caPem, certPem, keyPem, serverName, insecureSkipTLSVerify } = tls;
    const key = JSON.stringify([caPem, certPem, keyPem, serverName, insecureSkipTLSVerify]);
    let agent = this.agents.get(key);
    if (agent === undefined) {
      agent = new (httpsModule().Agent)({
        keepAlive: true,
        ...(caPem === undefined ? {} : { ca: caPem }),
        ...(certPem === undefined || keyPem === undefined ? {} : { cert: certPem, key: keyPem }),
        ...(serverName === undefined ? {} : { servername: serverName }),
        ...(insecureSkipTLSVerify === true ? { rejectUnauthorized: false } : {}),
      });
      this.agents.set(key, agent);
    }
    return agent;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
