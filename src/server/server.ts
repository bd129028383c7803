// The listener: HTTPS with HTTP/1.1 and HTTP/2, and the filter chain before endpoints.
import type http from 'node:http';
import { ServerResponse } from 'node:http';
import http2 from 'node:http2';
import net, { type AddressInfo, type Socket } from 'node:net';
import { constants as cryptoConstants, X509Certificate } from 'node:crypto';
import { createSecureContext, DEFAULT_CIPHERS, type DetailedPeerCertificate, type SecureContext, type SecureContextOptions, type SecureVersion, type TLSSocket } from 'node:tls';
import { badRequest, StatusError, unauthorized } from '../api/index.ts';
import { goDurationError } from '../api/go-time.ts';
import type { Authenticated, Authenticator, AuthorizationAttributes, Authorizer, ClientCertificate, UserInfo } from '../auth/index.ts';
import { AuthenticationFailure, anonymousUser, forbiddenError, resolveImpersonation, wantsImpersonation } from '../auth/index.ts';
import type { FlowClassifier } from '../auth/flow-schemas.ts';
import type { ApiHandler } from '../endpoints/api-handler.ts';
import type { HttpRequest, HttpResponse } from '../endpoints/http.ts';
import { warningRecorder } from '../endpoints/warnings.ts';
import { connectionTaken, offerConnection } from '../endpoints/upgrade.ts';
import { runInRequestContext } from '../api/request-context.ts';
import { requestInfo, type RequestInfo, type ResourceRequestInfo } from '../endpoints/request-info.ts';
import { parseFieldSelector } from '../api/fields.ts';
import { metricVerb, type ApiMetrics } from './metrics.ts';
import { FairLimiter } from './fair-queue.ts';
import { flowControlDump } from './flow-control-dump.ts';
import { PriorityLevels, type QueuedRequest } from './priority-levels.ts';
import { RequestConcurrency } from './request-concurrency.ts';
import { estimateWork, maxSeatsOf, oneSeat, WatchTracker, type EstimateSources } from './work-estimate.ts';
import { auditFailedAuthentication, auditId, beginAudit, type AuditPolicy, type AuditSink, type ProtobufDecoder } from './audit.ts';
import { parseRequestTarget, requestTarget } from './request-target.ts';
import { TurnLimiter } from './turns.ts';
import { releaseUnreadBody } from './unread-body.ts';
import { RequestDeadlines, type Deadline } from './request-deadlines.ts';
import { admitHttp2Request, Http2Request, Http2Response } from './http2-exchange.ts';
import { answerParseError } from './http1-parse-errors.ts';

export interface ApiServerOptions {
  bindAddress: string;
  /** 0 picks a free port. */
  port: number;
  /** `--permit-port-sharing`: SO_REUSEPORT, so that several servers may bind the same address and port. */
  reusePort?: boolean;
  certPem: string;
  keyPem: string;
  authenticator: Authenticator;
  authorizer: Authorizer;
  /**
   * CAs whose client certificates authenticate (`--client-ca-file`): the server asks for a
   * client certificate but does not require one, as kube-apiserver.
   */
  clientCaPem?: string;
  /**
   * `--requestheader-client-ca-file`: CAs of authenticating proxies. Their certificates are
   * requested too, and told apart from the client CA's by the root they chain to.
   */
  requestHeaderCaPem?: string;
  /**
   * Anonymous requests reach only the public-info-viewer paths, 401 elsewhere: what
   * Plinth does while the authorizer allows everything (AlwaysAllow would otherwise
   * let anonymous clients do anything, as it does upstream).
   */
  anonymousOnlyPublicPaths?: boolean;
  /** The ConstrainedImpersonation gate (on unless false): impersonation checks the constrained verbs before `impersonate`. */
  constrainedImpersonation?: boolean;
  handler: ApiHandler;
  /** `--cors-allowed-origins`, compiled: a request whose Origin one of them matches gets CORS headers, its preflight a 204 before authentication. */
  corsAllowedOrigins?: ReadonlyArray<{ test(origin: string): boolean }>;
  /** `--strict-transport-security-directives`: sent with every answer as one Strict-Transport-Security header. */
  hstsDirectives?: readonly string[];
  /** `--allow-privileged`: false refuses privileged containers (validation's `disallowed by cluster policy`). Absent: allowed. */
  allowPrivileged?: boolean;
  /** `--tls-min-version` and `--tls-cipher-suites` (an OpenSSL cipher string): default TLS 1.2 and Plinth's preference. */
  tls?: { minVersion?: SecureVersion; ciphers?: string };
  /**
   * `--tls-sni-cert-key`: certificates served to clients that ask for one of their names (SNI),
   * in priority order; the serving certificate for every other name and for none.
   */
  sniCertificates?: ReadonlyArray<{ certPem: string; keyPem: string; names: readonly string[] }>;
  /** `--goaway-chance`: after this share of HTTP/2 requests the connection is closed gracefully (GOAWAY), so clients reconnect, perhaps elsewhere. */
  goawayChance?: number;
  log: (message: string) => void;
  /** Detail worth logging only when asked (`-v 4` and up): clients going away mid-request. */
  debug?: (message: string) => void;
  /** HTTP/2: how long the rest of a body the answer left unread may take to arrive before the stream is reset (5 s). */
  unreadBodyGraceMs?: number;
  /** Where requests are counted and timed (/metrics). */
  metrics?: ApiMetrics;
  /**
   * `--max-requests-inflight` and `--max-mutating-requests-inflight`: with priority and
   * fairness, their sum is the seats its levels share (priority-levels.ts); otherwise, past
   * these many requests at once (reads, writes) others are answered 429. 0 is no limit.
   * Long-running requests (watches) and exempt ones (system:masters) are never held, as upstream.
   */
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** How long a request may wait for an in-flight slot before it is refused (15 s). */
  inflightQueueWaitMs?: number;
  /** `--enable-priority-and-fairness`: requests classified and queued past the limits (default); false, refused at once past them. */
  fairQueuing?: boolean;
  /**
   * API Priority and Fairness' FlowSchemas (with `fairQueuing`): each request is classified,
   * its schema's and level's uids answered in upstream's headers; an exempt level's requests
   * are never limited, others wait in their flow's queue (the schema and its distinguisher).
   */
  flowControl?: Pick<FlowClassifier, 'classify' | 'levels'>;
  /** The objects stored of a resource (its watch cache's), for a list's work estimate; undefined for one not kept here. */
  objectCount?: (group: string, resource: string) => number | undefined;
  /**
   * `--http2-max-streams-per-connection`: streams an HTTP/2 client may have open at once
   * on one connection; 0 or unset is kube-apiserver's 100. Clients needing more open
   * another connection (Go's HTTP/2 transport does).
   */
  http2MaxStreamsPerConnection?: number;
  /**
   * `--request-timeout` (60 s): how long a request that is not long-running may take, from its
   * arrival; its `timeout` parameter may shorten it. Past it, upstream's 504.
   */
  requestTimeoutMs?: number;
  /** Every request, once answered, as upstream's httplog writes it at -v 3 and up. */
  requestLog?: (line: string) => void;
  /** klog's -v, read as each request arrives (PUT /debug/flags/v changes it): `requestLog` at 3 and up, `debug` at 4 and up; absent: 0. */
  verbosity?: { readonly level: number };
  /** Requests (not long-running) slower than `slowRequestMs` (1 s), logged whatever the verbosity. */
  slowRequestLog?: (line: string) => void;
  slowRequestMs?: number;
  /**
   * `--audit-policy-file` and `--audit-log-path`: requests audited as the policy says;
   * `decodeProtobuf` reads answers written as Protobuf back for their events.
   */
  audit?: { policy: AuditPolicy; log: AuditSink; decodeProtobuf?: ProtobufDecoder };
}

/** Long-running requests (upstream's BasicLongRunningRequestCheck): watches and streaming subresources. */
/** A `timeout` parameter Go's time.ParseDuration refuses: upstream's 400 (filters/request_deadline.go). */
function refuseBadTimeout(query: URLSearchParams): void {
  const timeout = query.get('timeout');
  if (timeout === null || timeout === '') return;
  const error = goDurationError(timeout);
  if (error !== undefined) throw badRequest(`invalid timeout specified in the request URL - ${error}`);
}

function isLongRunning(info: RequestInfo): boolean {
  return info.isResourceRequest && (info.verb === 'watch' || ['proxy', 'attach', 'exec', 'log', 'portforward'].includes(info.subresource));
}

/**
 * HTTP/2 as kube-apiserver sizes it: 100 streams per connection by default (what Go's
 * clients allow themselves before the server's settings arrive); each stream may send
 * 256 KiB (a request body's 99th percentile, upstream's figure) before it waits for the
 * server to read, in frames of up to that size, and a connection as much for each of
 * its streams at once (HTTP/2's window cannot exceed 2^31-1 bytes).
 */
const defaultMaxStreams = 100;
const uploadBufferPerStream = 256 * 1024;
const maxWindow = 2 ** 31 - 1;

/**
 * Request headers as large as kube-apiserver takes them: Go's http.DefaultMaxHeaderBytes,
 * 1 MiB, where Node's HTTP/1.1 default is 16 KiB (which a label selector of a few thousand
 * values exceeds, or a path naming an object by a long name: names in paths have no length
 * limit). Go reads 4 KiB more for the request line over HTTP/1.1, and over HTTP/2
 * advertises 32 bytes more for each of ten typical fields (SETTINGS_MAX_HEADER_LIST_SIZE);
 * so does Plinth. Past these HTTP/1.1 answers 431, HTTP/2 resets the stream
 * (ENHANCE_YOUR_CALM). Under Node's HTTP/2, nghttp2 decodes one field of at most 64 KiB
 * as HPACK encodes it (NGHTTP2_HD_MAX_NV, fixed when built: a path of 75,000 to 105,000
 * characters, by its letters); a longer one ends its connection with COMPRESSION_ERROR,
 * as it must once a header block cannot be decoded.
 */
const maxHeaderBytes = 1024 * 1024;
const http1Limits = { maxHeaderSize: maxHeaderBytes + 4096 };
const maxHeaderListSize = maxHeaderBytes + 10 * 32;

const mutatingMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

type Request = Http2Request | http.IncomingMessage;
type Response = Http2Response | http.ServerResponse;

/** Error codes of a connection or stream the client closed, reset or cancelled. */
const disconnectCodes = new Set([
  'ECONNRESET', 'EPIPE', 'ECANCELED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED',
  'ERR_HTTP2_STREAM_ERROR', 'ERR_HTTP2_STREAM_CANCEL', 'ERR_HTTP2_INVALID_STREAM',
]);

function ignoreStreamError(): void {}

function isDisconnectError(err: unknown): boolean {
  return err instanceof Error && 'code' in err && disconnectCodes.has(String(err.code));
}

/** Whether the request's connection (HTTP/1.1) or stream (HTTP/2) is closed. */
function connectionGone(req: Request): boolean {
  if ('stream' in req) return req.stream.destroyed || req.stream.closed;
  return req.destroyed || req.socket.destroyed;
}

/**
 * Paths anyone may read without credentials: exactly those of upstream's
 * system:public-info-viewer role. Named checks (`/readyz/etcd`) are not among them.
 */
const publicPaths = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

/** Each connection's client certificate, read once (HTTP/2 streams share their session's socket). */
const clientCertificates = new WeakMap<TLSSocket, ClientCertificate | null>();

/** The SHA-256 fingerprints (as Node prints them) of the certificates of a PEM bundle. */
function fingerprintsOf(pem: string | undefined): Set<string> {
  const found = new Set<string>();
  for (const block of pem?.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []) {
    try {
      found.add(new X509Certificate(block).fingerprint256);
    } catch {
      // not a certificate: Node's TLS skips it as well
    }
  }
  return found;
}

/** The fingerprint of the certificate a verified chain ends at (the trusted CA Node found). */
function rootFingerprint(peer: DetailedPeerCertificate): string {
  let cert = peer;
  for (let depth = 0; depth < 16 && cert.issuerCertificate !== undefined && cert.issuerCertificate !== cert && Object.keys(cert.issuerCertificate).length > 0; depth++) {
    cert = cert.issuerCertificate;
  }
  return cert.fingerprint256;
}

/** The kinds of credential a request carries, named as upstream's failed-authentication audit names them. */
function credentialsTried(req: HttpRequest, query: URLSearchParams): string[] {
  const methods: string[] = [];
  const authorization = String(req.headers.authorization ?? '').trim();
  const [scheme = '', ...rest] = authorization.split(' ');
  if (scheme.toLowerCase() === 'basic' && Buffer.from(rest.join(' '), 'base64').toString('latin1').includes(':')) methods.push('basic');
  if (scheme.toLowerCase() === 'bearer' && rest.length > 0) methods.push('bearer');
  if ((query.get('access_token') ?? '').trim() !== '') methods.push('access_token');
  const r = req as unknown as Request;
  const socket = ('stream' in r ? r.stream.session?.socket : r.socket) as TLSSocket | undefined;
  const peer = typeof socket?.getPeerCertificate === 'function' ? socket.getPeerCertificate() : null;
  if (peer !== null && peer !== undefined && Object.keys(peer).length > 0) methods.push('x509');
  return methods;
}

/** The TLS client certificate of the request's connection, with the handshake's verdict on it. */
function clientCertificateOf(req: Request, proxyCas: ReadonlySet<string> | undefined, clientCas: ReadonlySet<string>): ClientCertificate | undefined {
  const socket = ('stream' in req ? req.stream.session?.socket : req.socket) as TLSSocket | undefined;
  if (socket === undefined || typeof socket.getPeerCertificate !== 'function') return undefined;
  let cert = clientCertificates.get(socket);
  if (cert === undefined) {
    const peer = socket.getPeerCertificate(proxyCas !== undefined);
    // With a request-header CA beside the client CA, the chain's root says which one verified it.
    const root = proxyCas === undefined || !socket.authorized || peer === null ? undefined : rootFingerprint(peer as DetailedPeerCertificate);
    cert = peer === null || Object.keys(peer).length === 0 ? null : {
      verified: socket.authorized && (root === undefined || clientCas.has(root)),
      ...(root !== undefined && proxyCas!.has(root) ? { proxyVerified: true } : {}),
      ...(socket.authorizationError ? { verificationError: String(socket.authorizationError) } : {}),
      commonName: firstOf(peer.subject?.CN),
      organizations: allOf(peer.subject?.O),
      ...(peer.ext_key_usage !== undefined ? { extendedKeyUsage: peer.ext_key_usage } : {}),
      fingerprint256: peer.fingerprint256,
    };
    clientCertificates.set(socket, cert);
  }
  return cert ?? undefined;
}

function firstOf(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

function allOf(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * The TLS suites in the server's order, as Go's servers (kube-apiserver) choose: for TLS
 * 1.3 AES-128-GCM first, where Node's default order (and so a Node client's) puts
 * AES-256-GCM first (~10% more CPU per byte: 3.4 against 3.7 GB/s here, and a watch
 * fan-out encrypts hundreds of MB a second); ChaCha20 when the client lists it first
 * (SSL_OP_PRIORITIZE_CHACHA, Go's rule for clients without AES instructions). TLS 1.2's
 * are Node's, which already put AES-128-GCM first.
 */
const cipherPreference = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256', ...DEFAULT_CIPHERS.split(':').filter((c) => !c.startsWith('TLS_'))].join(':');

/**
 * A socket bound to an IPv4 address, for the server to listen on; undefined for any other
 * address (or a Node without net.BoundSocket), which `listen(port, host)` takes as before;
 * the bind's failure (EADDRINUSE and the like) as an Error. `listen(port, host)` resolves
 * even an address literal through dns.lookup and asks of each answer whether it is an
 * IPv6 link-local address, and that first test compiles Node's IPv6 expression: ~10 ms of
 * every start on the project's machine.
 */
function boundSocket(port: number, host: string): net.BoundSocket | Error | undefined {
  if (typeof net.BoundSocket !== 'function' || !net.isIPv4(host)) return undefined;
  try {
    return new net.BoundSocket({ host, port });
  } catch (err) {
    return err as Error;
  }
}

/**
 * The HTTPS listener (HTTP/1.1 and HTTP/2 through ALPN) and the filter chain:
 * panic recovery → authentication → authorization → handler.
 */
export class ApiServer {
  private readonly opts: ApiServerOptions;
  private readonly server: http2.Http2SecureServer;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private inFlight = 0;
  /** Starts at most a few requests per turn of the event loop (turns.ts says why). */
  private readonly turns = new TurnLimiter();
  private readonly deadlines: RequestDeadlines;
  /** The in-flight limits of reads and writes, when set: what limits requests priority and fairness has not classified. */
  private readonly limiters: { readOnly?: FairLimiter; mutating?: FairLimiter } = {};
  /** Priority and fairness' levels, sharing both limits' seats, for the requests it classified. */
  private readonly priorityLevels: PriorityLevels | undefined;
  /** Requests executing and waiting by kind, as upstream's in-flight filters count them (metrics). */
  private readonly concurrency: RequestConcurrency;
  /** What a request's work is estimated from: the objects stored, the watches open (counted while fairness is on). */
  private readonly workSources: EstimateSources;
  /** With a request-header CA: its certificates' fingerprints, and the client CA's (a client certificate's root tells them apart). */
  private proxyCas: ReadonlySet<string> | undefined;
  private clientCas: ReadonlySet<string>;
  /** The CA bundles in the TLS context, as given or as last changed (setClientCas). */
  private clientCaPem: string | undefined;
  private requestHeaderCaPem: string | undefined;
  /** The serving certificate and key in the TLS context, as given or as last changed. */
  private serving: { certPem: string; keyPem: string };
  /** `--tls-sni-cert-key` certificates, as given or as last changed, and their contexts by the names they serve. */
  private sniCertificates: NonNullable<ApiServerOptions['sniCertificates']>;
  private sniContexts = new Map<string, SecureContext>();
  /** The Strict-Transport-Security header, when directives are configured (upstream joins them with "; "). */
  private readonly hsts: string | undefined;
  /** What a shutdown waits for among the requests in flight (see waitUntil). */
  private readonly waiters = new Set<{ done: () => boolean; resolve: () => void }>();
  /** Of the requests in flight, the long-running ones (watches): a drain before closing the listener does not wait for them. */
  private longRunningInFlight = 0;
  /** Set while a shutdown with `sendRetryAfter` drains: new requests are refused. */
  private refusing = false;
  private stopping = false;

  constructor(opts: ApiServerOptions) {
    this.opts = opts;
    this.deadlines = new RequestDeadlines(opts.requestTimeoutMs ?? 60_000);
    // Without fair queuing (--enable-priority-and-fairness=false) a request past the limit is refused at once, as upstream's max-in-flight filter refuses it.
    const queueLength = opts.fairQueuing === false ? 0 : 50;
    const limiter = (limit: number | undefined) => (limit === undefined || limit <= 0 ? undefined : new FairLimiter({ limit, queueLength, maxWaitMs: opts.inflightQueueWaitMs ?? 15_000 }));
    const [readOnly, mutating] = [limiter(opts.maxRequestsInflight), limiter(opts.maxMutatingRequestsInflight)];
    this.proxyCas = opts.requestHeaderCaPem === undefined ? undefined : fingerprintsOf(opts.requestHeaderCaPem);
    this.clientCas = fingerprintsOf(opts.clientCaPem);
    this.clientCaPem = opts.clientCaPem;
    this.requestHeaderCaPem = opts.requestHeaderCaPem;
    this.serving = { certPem: opts.certPem, keyPem: opts.keyPem };
    this.hsts = opts.hstsDirectives === undefined || opts.hstsDirectives.length === 0 ? undefined : opts.hstsDirectives.join('; ');
    if (readOnly !== undefined) this.limiters.readOnly = readOnly;
    if (mutating !== undefined) this.limiters.mutating = mutating;
    // Upstream's server concurrency limit: both flags' sum, shared out among the levels.
    const serverLimit = Math.max(0, opts.maxRequestsInflight ?? 0) + Math.max(0, opts.maxMutatingRequestsInflight ?? 0);
    this.priorityLevels = opts.fairQueuing !== false && opts.flowControl !== undefined && serverLimit > 0
      ? new PriorityLevels({
        serverLimit, maxWaitMs: opts.inflightQueueWaitMs ?? 15_000,
        ...(opts.metrics !== undefined ? { noAccommodation: (level: string, schema: string) => opts.metrics!.flowControl(schema, level).noteNoAccommodation() } : {}),
      })
      : undefined;
    this.workSources = { objectCount: opts.objectCount ?? (() => undefined), watches: new WatchTracker() };
    // Without priority and fairness the executing counts are fractions of the in-flight limits; with it, counts.
    this.concurrency = new RequestConcurrency(opts.fairQueuing === false
      ? { waiting: false, limits: { readOnly: opts.maxRequestsInflight ?? 0, mutating: opts.maxMutatingRequestsInflight ?? 0 } }
      : { waiting: true });
    opts.metrics?.requestConcurrencyFrom(this.concurrency);
    const levels = this.priorityLevels;
    if (levels !== undefined) {
      opts.metrics?.levelSeatsFrom(() => {
        levels.configure(opts.flowControl!.levels());
        return { levels: levels.seats(), fairFraction: levels.fairFraction };
      });
    }
    const maxStreams = opts.http2MaxStreamsPerConnection || defaultMaxStreams;
    this.sniCertificates = opts.sniCertificates ?? [];
    this.sniContexts = this.buildSniContexts();
    this.server = http2.createSecureServer({
      ...this.secureContextOptions(opts.certPem, opts.keyPem),
      ...(opts.sniCertificates !== undefined && opts.sniCertificates.length > 0 ? { SNICallback: (name: string, done: (err: Error | null, ctx?: SecureContext) => void) => done(null, this.sniContext(name)) } : {}),
      allowHTTP1: true,
      ...(opts.clientCaPem !== undefined || opts.requestHeaderCaPem !== undefined ? { requestCert: true, rejectUnauthorized: false } : {}),
      // Node's HTTP/1.1 options, which the HTTP/2 server's types do not list, reach its HTTP/1.1 connections.
      ...http1Limits,
      settings: { maxConcurrentStreams: maxStreams, initialWindowSize: uploadBufferPerStream, maxFrameSize: uploadBufferPerStream, maxHeaderListSize },
    });
    // HTTP/2 on the core stream API (http2-exchange.ts says why), HTTP/1.1 through Node's request and response.
    const onStream = (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
      // Errors end in the stream's close, which the request and answer see; unheard, one would end the process.
      stream.on('error', ignoreStreamError);
      if (!admitHttp2Request(stream, headers)) return;
      const req = new Http2Request(stream, headers, rawHeaders);
      this.accept(req, new Http2Response(stream, req.method));
    };
    this.server.on('stream', onStream);
    this.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => this.accept(req, res));
    // exec, attach and port-forward switch protocols, a node's and the aggregator's proxies pass
    // upgrades on, and watches may be asked for over WebSocket: those requests come with their
    // connection (endpoints/upgrade.ts). Node's HTTP/1.1 code asks the server which upgrades to
    // hand over (the handler knows); any other is served as a plain request.
    (this.server as unknown as { shouldUpgradeCallback(req: http.IncomingMessage): boolean }).shouldUpgradeCallback = (req) => {
      try {
        const { path, query } = parseRequestTarget(req.url ?? '/');
        return this.opts.handler.mayUpgrade(requestInfo(req.method ?? 'GET', path, query));
      } catch {
        // A target that does not parse is served as a plain request, which answers it with a 400.
        return false;
      }
    };
    this.server.on('upgrade', (req: http.IncomingMessage, socket: Socket, head: Buffer) => this.acceptUpgrade(req, socket, head));
    // Node hands a CONNECT over with its connection, and drops it when nothing listens; Go's
    // server passes it to the handler as any request (kube-apiserver answers it through its filters).
    this.server.on('connect', (req: http.IncomingMessage, socket: Socket) => this.acceptConnect(req, socket));
    // A 'request' listener makes Node add its compatibility layer as a second 'stream' listener: not for us.
    for (const listener of this.server.listeners('stream')) if (listener !== onStream) this.server.removeListener('stream', listener as (...args: unknown[]) => void);
    this.server.on('secureConnection', (socket: TLSSocket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server.on('session', (session) => {
      if (!session.destroyed) session.setLocalWindowSize(Math.min(maxStreams * uploadBufferPerStream, maxWindow));
      this.sessions.add(session);
      session.once('close', () => this.sessions.delete(session));
    });
    // A TLS handshake that fails (a client not trusting our CA) is the client's business.
    this.server.on('tlsClientError', () => {});
    this.server.on('clientError', answerParseError);
  }

  /** What the TLS context of new connections is made of: the serving certificate, the CAs client certificates are asked of, the ciphers. */
  private secureContextOptions(certPem: string, keyPem: string): SecureContextOptions {
    const cas = [this.clientCaPem, this.requestHeaderCaPem].filter((pem) => pem !== undefined);
    return {
      cert: certPem,
      key: keyPem,
      ciphers: this.opts.tls?.ciphers ?? cipherPreference,
      honorCipherOrder: true,
      secureOptions: cryptoConstants.SSL_OP_PRIORITIZE_CHACHA,
      ...(this.opts.tls?.minVersion !== undefined ? { minVersion: this.opts.tls.minVersion } : {}),
      ...(cas.length > 0 ? { ca: cas } : {}),
    };
  }

  /**
   * The SNI certificates' contexts by name, as upstream's named certificates: the first
   * certificate naming a name serves it, names given on the flag before those read from a
   * certificate.
   */
  private buildSniContexts(): Map<string, SecureContext> {
    const byName = new Map<string, SecureContext>();
    for (const cert of this.sniCertificates) {
      const context = createSecureContext(this.secureContextOptions(cert.certPem, cert.keyPem));
      for (const name of cert.names) if (!byName.has(name.toLowerCase())) byName.set(name.toLowerCase(), context);
    }
    return byName;
  }

  /** The context for a name a client asked for: an exact name, else the wildcard of its first label; undefined for the serving certificate. */
  private sniContext(serverName: string): SecureContext | undefined {
    const name = serverName.toLowerCase();
    const exact = this.sniContexts.get(name);
    if (exact !== undefined) return exact;
    const labels = name.split('.');
    labels[0] = '*';
    return this.sniContexts.get(labels.join('.'));
  }

  /** Serve these SNI certificates to new connections (an SNI file changed); open ones keep theirs. */
  setSniCertificates(certificates: NonNullable<ApiServerOptions['sniCertificates']>): void {
    this.sniCertificates = certificates;
    this.sniContexts = this.buildSniContexts();
  }

  /** Serve new connections with this certificate (a serving certificate file changed); open ones keep theirs. */
  setServingCertificate(certPem: string, keyPem: string): void {
    this.serving = { certPem, keyPem };
    this.server.setSecureContext(this.secureContextOptions(certPem, keyPem));
  }

  /**
   * Trust these CAs for client certificates, and these for authenticating proxies, from the
   * next TLS handshake on (a CA file changed); open connections keep what they proved.
   */
  setClientCas(clientCaPem: string, requestHeaderCaPem: string | undefined): void {
    this.clientCaPem = clientCaPem;
    this.requestHeaderCaPem = requestHeaderCaPem;
    this.clientCas = fingerprintsOf(clientCaPem);
    this.proxyCas = requestHeaderCaPem === undefined ? undefined : fingerprintsOf(requestHeaderCaPem);
    this.server.setSecureContext(this.secureContextOptions(this.serving.certPem, this.serving.keyPem));
    // The SNI certificates' contexts ask for client certificates of the same CAs.
    this.sniContexts = this.buildSniContexts();
  }

  /**
   * An upgrade request, answered through a response of our own on its connection: any answer
   * but a switch ends the connection after it; a handler that switches takes the connection.
   * The response closes with the connection (so a switched one counts as long-running until
   * it ends), as Node's own responses close with theirs.
   */
  private acceptUpgrade(req: http.IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on('error', ignoreStreamError);
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    offerConnection(req, socket, head);
    res.once('finish', () => {
      if (!connectionTaken(req)) socket.end();
    });
    this.accept(req, res);
  }

  /**
   * A CONNECT request, answered as any request through a response of our own on its
   * connection (no handler may take it: nothing is tunnelled); the connection ends after the
   * answer, as Node's parser has let go of it.
   */
  private acceptConnect(req: http.IncomingMessage, socket: Socket): void {
    socket.on('error', ignoreStreamError);
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once('finish', () => socket.end());
    this.accept(req, res);
  }

  private accept(req: Request, res: Response): void {
    if (this.hsts !== undefined) res.setHeader('Strict-Transport-Security', this.hsts);
    // Upstream's probabilistic GOAWAY: the streams open go on, the client's next request takes a new connection.
    if (this.opts.goawayChance !== undefined && 'stream' in req && Math.random() < this.opts.goawayChance) req.stream.session?.close();
    releaseUnreadBody(req, res, this.opts.unreadBodyGraceMs);
    this.noteDisconnect(req, res);
    // In flight from arrival, so that close() waits for those still to start too.
    this.inFlight++;
    this.turns.admit(() => void this.serve(req, res));
  }

  /** API Priority and Fairness' debug dump of that name (flow-control-dump.ts); undefined without priority levels. */
  flowControlDump(name: string, query: URLSearchParams): string | undefined {
    if (this.priorityLevels === undefined) return undefined;
    this.priorityLevels.configure(this.opts.flowControl!.levels());
    return flowControlDump(this.priorityLevels.dump(), name, query);
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  async start(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      const { port, bindAddress } = this.opts;
      if (this.opts.reusePort === true) {
        this.server.once('error', reject);
        this.server.listen({ port, host: bindAddress, reusePort: true }, () => {
          this.server.off('error', reject);
          resolve();
        });
        return;
      }
      const bound = boundSocket(port, bindAddress);
      if (bound instanceof Error) {
        reject(bound);
        return;
      }
      const listening = () => {
        this.server.off('error', reject);
        resolve();
      };
      this.server.once('error', reject);
      if (bound !== undefined) this.server.listen(bound, listening);
      else this.server.listen(port, bindAddress, listening);
    });
    this.priorityLevels?.start();
    return (this.server.address() as AddressInfo).port;
  }

  /**
   * Graceful termination, as upstream's once its shutdown delay has passed: the listener closes
   * (idle connections with it, HTTP/2 ones told GOAWAY), or, with `sendRetryAfter`, stays open
   * until the requests in flight that are not watches are done while new ones (but health
   * checks, metrics and the server's own) get upstream's 429 and `Retry-After: 5`. Then
   * watches end (all at once, or spread over `watchGraceMs` so that their clients come back a
   * few at a time), the requests left get up to `graceMs`, and the connections close.
   */
  async close(opts: ShutdownOptions = {}): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.priorityLevels?.stop();
    this.deadlines.stop();
    const graceMs = opts.graceMs ?? 10_000;
    if (opts.sendRetryAfter === true) {
      this.refusing = true;
      await this.waitUntil(() => this.inFlight === this.longRunningInFlight, graceMs);
    }
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (opts.watchGraceMs !== undefined && opts.watchGraceMs > 0) await this.opts.handler.stopLongRunningOver(opts.watchGraceMs);
    else this.opts.handler.stopLongRunning();
    for (const session of this.sessions) session.close();
    await this.waitUntil(() => this.inFlight === 0, graceMs);
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  /** Resolves once `done` holds (checked as requests end) or `ms` passed. */
  private waitUntil(done: () => boolean, ms: number): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        done,
        resolve: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.resolve, ms).unref();
      this.waiters.add(waiter);
    });
  }

  /** A request ended: wake the shutdown waiting for what it waits for. */
  private requestEnded(): void {
    for (const waiter of this.waiters) if (waiter.done()) waiter.resolve();
  }

  /** Serves a request counted in flight on arrival. */
  private async serve(req: Request, res: Response): Promise<void> {
    try {
      await this.measured(req, res);
    } catch (err) {
      await this.answerError(req, res, err);
    } finally {
      this.inFlight--;
      if (this.waiters.size > 0) this.requestEnded();
    }
  }

  /** An error as its Status answer. */
  private async answerError(req: Request, res: Response, err: unknown): Promise<void> {
    // A client that went away mid-request is no server error, and there is no one to answer (noteDisconnect logs it).
    if (isDisconnectError(err) && connectionGone(req)) return;
    await this.opts.handler.writeError(req as HttpRequest, res as unknown as HttpResponse, err);
  }

  /** The request through the filter chain, counted and timed for /metrics once its target parsed. */
  private async measured(req: Request, res: Response): Promise<void> {
    const { path, query } = requestTarget(req.method ?? 'GET', req.url ?? '/');
    // Every request has its audit ID from the start (upstream's WithAuditInit), audited or not.
    const auditID = auditId(req.rawHeaders, res as unknown as HttpResponse);
    if (this.refusing && !exemptFromRefusal(req, path)) {
      refuseWhileShuttingDown(res as unknown as HttpResponse);
      return;
    }
    const info = requestInfo(req.method ?? 'GET', path, query);
    const method = req.method ?? 'GET';
    if (isLongRunning(info)) {
      this.longRunningInFlight++;
      res.once('close', () => {
        this.longRunningInFlight--;
        if (this.waiters.size > 0) this.requestEnded();
      });
    }
    const labels = {
      verb: metricVerb(method, info.verb, info.isResourceRequest, req.headers['content-type'], info.isResourceRequest ? info.subresource : ''),
      dryRun: query.has('dryRun'),
      group: info.isResourceRequest ? info.group : '',
      version: info.isResourceRequest ? info.version : '',
      resource: info.isResourceRequest ? info.resource : '',
      subresource: info.isResourceRequest ? info.subresource : '',
      scope: !info.isResourceRequest ? '' : info.name !== '' ? 'resource' : info.namespace !== '' ? 'namespace' : 'cluster',
    };
    const metrics = this.opts.metrics;
    const finished = metrics?.startRequest(labels, isLongRunning(info));
    let deadline: Deadline | undefined;
    if (finished !== undefined) {
      res.once('close', () => {
        finished(res.statusCode);
        // Ended in self-defense: at its deadline, or refused by the limits (upstream's terminations).
        const terminated = deadline?.timedOut === true ? 504 : refusedByLimits.has(res) ? 429 : 0;
        if (terminated !== 0) metrics!.requestTerminated({ ...labels, subresource: info.isResourceRequest ? info.subresource : info.path }, terminated);
      });
    }
    const requestLog = (this.opts.verbosity?.level ?? 0) >= 3 ? this.opts.requestLog : undefined;
    const slowLog = isLongRunning(info) ? undefined : this.opts.slowRequestLog;
    if (requestLog !== undefined || slowLog !== undefined) {
      const started = performance.now();
      res.once('close', () => {
        const ms = performance.now() - started;
        const slow = slowLog !== undefined && ms > (this.opts.slowRequestMs ?? 1000);
        if (requestLog === undefined && !slow) return;
        const latency = `${(ms / 1000).toFixed(6).replace(/\.?0+$/, '')}s`;
        const agent = req.headers['user-agent'] ?? '';
        const source = (req as unknown as { socket?: { remoteAddress?: string } }).socket?.remoteAddress ?? '';
        (requestLog ?? slowLog!)(`${slow ? '"Slow request" ' : ''}"HTTP" verb=${JSON.stringify(method)} URI=${JSON.stringify(req.url ?? '/')} latency=${JSON.stringify(latency)} userAgent=${JSON.stringify(agent)} audit-ID=${JSON.stringify(auditID)} srcIP=${JSON.stringify(source)} resp=${res.statusCode}`);
      });
    }
    if (isLongRunning(info)) {
      await this.filterChain(req as HttpRequest, res as unknown as HttpResponse, path, query, info, auditID);
      return;
    }
    deadline = this.deadlines.start(res as unknown as HttpResponse, query.get('timeout'));
    try {
      await this.filterChain(req as HttpRequest, res as unknown as HttpResponse, path, query, info, auditID, deadline);
    } catch (err) {
      if (!deadline.timedOut) throw err;
      // Answered 504 already: what the handler ran into after that is answered past the
      // deadline's guard, to no one, before the handler counts as returned: its audit event
      // records it, as upstream's handler writes its error inside the timeout filter.
      await this.answerError(req, res, err);
    } finally {
      this.deadlines.end(deadline);
    }
  }

  /** Logs, at debug level, a request whose client left before the whole answer was written. */
  private noteDisconnect(req: Request, res: Response): void {
    const debug = (this.opts.verbosity?.level ?? 0) >= 4 ? this.opts.debug : undefined;
    if (debug === undefined) return;
    const closed = (finished: boolean) => {
      if (!finished) debug(`client went away before the answer was complete: ${req.method} ${req.url}`);
    };
    // HTTP/2: a stream reset with an error code (CANCEL from a client giving up) or closed before the answer ended.
    if ('stream' in req) req.stream.once('close', () => closed(req.stream.rstCode === http2.constants.NGHTTP2_NO_ERROR && res.writableEnded));
    else (res as http.ServerResponse).once('close', () => closed((res as http.ServerResponse).writableFinished));
  }

  private async filterChain(req: HttpRequest, res: HttpResponse, path: string, query: URLSearchParams, info: RequestInfo, auditID: string, deadline?: Deadline): Promise<void> {
    if (this.stopping) res.setHeader('Connection', 'close');
    // Upstream's request deadline filter, before CORS and authentication: a short request's
    // `timeout` must be a Go duration.
    if (!isLongRunning(info)) refuseBadTimeout(query);
    if (this.opts.corsAllowedOrigins !== undefined && answeredCors(req, res, this.opts.corsAllowedOrigins)) return;
    const auditRequest = (who: UserInfo) => ({
      url: req.url ?? '/', verb: info.verb,
      userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : undefined,
      sourceIP: (req as unknown as { socket?: { remoteAddress?: string } }).socket?.remoteAddress,
      rawHeaders: req.rawHeaders ?? [],
      auditID,
      user: who,
      apiVersion: info.isResourceRequest ? info.version : '',
      attributes: {
        user: who, verb: info.verb, resourceRequest: info.isResourceRequest, path: info.path,
        group: info.isResourceRequest ? info.group : '', resource: info.isResourceRequest ? info.resource : '', subresource: info.isResourceRequest ? info.subresource : '',
        namespace: info.isResourceRequest ? info.namespace : '', name: info.isResourceRequest ? info.name || info.selectedName : '',
      },
    });
    let user: UserInfo;
    let authenticated: Authenticated;
    try {
      authenticated = await this.authenticate(req, path);
      user = authenticated.user;
    } catch (err) {
      // Credentials that name nobody are audited too, as upstream's failed-authentication audit does.
      if (this.opts.audit !== undefined && err instanceof StatusError && err.code === 401) {
        const { auditAnnotations } = err as { auditAnnotations?: Readonly<Record<string, string>> };
        auditFailedAuthentication(this.opts.audit.policy, this.opts.audit.log, auditRequest({ name: '', uid: '', groups: [] }), credentialsTried(req, query), res, auditAnnotations);
      }
      throw err;
    }
    // Audited from here, as upstream's filter comes after authentication: what impersonation
    // and authorization refuse is in the log too, and the policy matches the authenticated user.
    // What the authenticator noted: annotations of every event (RequestReceived's too, as upstream's), the caller's warnings.
    const audit = this.opts.audit === undefined ? undefined
      : beginAudit(this.opts.audit.policy, this.opts.audit.log, { ...auditRequest(user), annotations: authenticated.auditAnnotations ?? {} }, res as unknown as Parameters<typeof beginAudit>[3], this.opts.audit.decodeProtobuf, deadline);
    const addWarning = warningRecorder(res);
    for (const warning of authenticated.warnings ?? []) addWarning(warning);
    // A blocking-strict backend that did not store the request's first event: refused, as upstream's audit filter.
    if (audit !== undefined && audit.stored !== true && !(await audit.stored)) {
      internalError(res, req.url ?? '/', 'failed to store audit event');
      return;
    }
    const attributes = info.isResourceRequest
      ? {
        verb: info.verb, group: info.group, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name || info.selectedName, path: info.path,
        version: info.version, fieldSelector: selectorTerms(info, query), labelSelector: rawLabelSelector(info, query),
      }
      : { verb: info.verb, group: '', resource: '', subresource: '', namespace: '', name: '', path: info.path };
    // As upstream, impersonation comes after auditing and before authorization; constrained
    // impersonation (v1.36) asks about the request's own attributes (impersonate-on:<mode>:<verb>).
    const rawHeaders = req.rawHeaders ?? [];
    if (wantsImpersonation(rawHeaders)) {
      const impersonated = await resolveImpersonation(user, rawHeaders, this.opts.authorizer, {
        request: attributes, constrainedImpersonation: this.opts.constrainedImpersonation !== false,
      });
      if (impersonated !== undefined) {
        user = impersonated.user;
        audit?.impersonated(user, impersonated.constraint);
      }
    }
    // The limits come after impersonation, as upstream's priority and fairness filter: the
    // impersonated user is classified and queued, and a refusal is audited.
    const admitted = await this.admitInflight(req.method ?? 'GET', info, query, user, res);
    if (admitted === false) return;
    if (admitted !== undefined) res.once('close', admitted.release);
    const decision = await this.opts.authorizer.authorize(user, attributes);
    // The decision and its reason annotate the audit event, as upstream's authorization filter does.
    if (decision.decision === 'Allow') {
      audit?.annotate('authorization.k8s.io/decision', 'allow');
      audit?.annotate('authorization.k8s.io/reason', decision.reason ?? '');
    } else {
      // A mode that failed (a webhook that could not be asked) is a server error, as upstream's filter answers it.
      if (decision.error !== undefined) {
        audit?.annotate('authorization.k8s.io/reason', 'internal error');
        internalError(res, req.url ?? '/', decision.error);
        return;
      }
      audit?.annotate('authorization.k8s.io/decision', 'forbid');
      audit?.annotate('authorization.k8s.io/reason', decision.reason ?? '');
      throw forbiddenError(user, attributes, decision.reason);
    }
    // Admission and the Store learn the user, and add warnings, through the request context.
    const context = {
      user, addWarning,
      ...(deadline !== undefined ? { deadline: deadline.at } : {}),
      group: info.isResourceRequest ? info.group : '', resource: info.isResourceRequest ? info.resource : '', verb: info.verb,
      ...(this.opts.allowPrivileged === false ? { allowPrivileged: false } : {}),
      ...(audit !== undefined ? { addAuditAnnotation: audit.annotate } : {}),
      ...(audit?.requestBody !== undefined ? { auditRequestBody: audit.requestBody } : {}),
      ...(audit?.requestObject !== undefined ? { auditRequestObject: audit.requestObject } : {}),
      ...(admitted?.initialized !== undefined ? { watchInitialized: admitted.initialized } : {}),
      deprecatedApiRequested: (removedRelease: string) => {
        audit?.annotate('k8s.io/deprecated', 'true');
        if (removedRelease !== '') audit?.annotate('k8s.io/removed-release', removedRelease);
        if (info.isResourceRequest) {
          this.opts.metrics?.requestedDeprecatedApi({ group: info.group, version: info.version, resource: info.resource, subresource: info.subresource, removedRelease });
        }
      },
    };
    await runInRequestContext(context, () => this.opts.handler.handle(req, res, info, query));
  }

  /**
   * Counts the request against the limits. Classified by priority and fairness, it takes
   * the seats its work is estimated at in its priority level, waiting in the level's queues
   * past its limit (priority-levels.ts); a watch holds them only until it is initialized
   * (the handler says when). Otherwise (fairness off, or not configured) against the
   * in-flight limit of reads or writes (upstream's WithMaxInFlightLimit; with fairness on,
   * a queue per user). Answers what to call when it ends, if it counted, or false when it
   * was refused with upstream's 429.
   */
  private async admitInflight(method: string, info: RequestInfo, query: URLSearchParams, user: UserInfo, res: HttpResponse): Promise<Admission | undefined | false> {
    const watch = info.isResourceRequest && info.verb === 'watch';
    // Other long-running requests pass unclassified.
    if (isLongRunning(info) && !watch) return undefined;
    const mutating = mutatingMethods.has(method);
    const classified = this.opts.fairQueuing === false ? undefined : this.opts.flowControl?.classify(user, info);
    if (classified !== undefined) {
      res.setHeader('X-Kubernetes-Pf-Flowschema-Uid', classified.schemaUid);
      res.setHeader('X-Kubernetes-Pf-Prioritylevel-Uid', classified.levelUid);
    }
    // Without the classification, watches are not limited, and system:masters' requests
    // (the admin, or loopback) are served as the exempt schema would serve them.
    if (classified === undefined && (watch || user.groups.includes('system:masters'))) return undefined;
    const flow = classified === undefined ? undefined : this.opts.metrics?.flowControl(classified.schemaName, classified.level.name);
    const levels = this.priorityLevels;
    // While it lasts, a watch counts toward the work of writes it will hear of.
    const forgetWatch = watch ? this.workSources.watches.register(info) : undefined;
    if (classified !== undefined && levels === undefined) {
      // Nothing limits it (both in-flight flags 0): counted, not held.
      if (flow !== undefined && !watch) flow.dispatched.value++;
      return forgetWatch === undefined ? undefined : { release: forgetWatch };
    }
    // The seats its work takes (upstream estimates the exempt level's requests too).
    const work = classified === undefined || !info.isResourceRequest
      ? oneSeat
      : estimateWork(info, query, levels!.levelMaxSeats(classified.level.name), this.workSources, flow?.observeWatchCount);
    const seats = maxSeatsOf(work);
    flow?.observeEstimatedSeats(seats);
    if (classified !== undefined) {
      levels!.configure(this.opts.flowControl!.levels());
      // A client that goes away while its request waits takes it out of the queue; an
      // exempt level's requests never wait (their seats count as its demand, which leaves
      // less for others to borrow).
      const exempt = classified.level.exempt;
      // Upstream times the wait of every request of a limited level, whether it waited or not.
      const waitStarted = exempt || flow === undefined ? 0 : performance.now();
      const acquired = levels!.acquire(classified.level.name, classified.schemaName, classified.flow, exempt
        ? (work === oneSeat ? exemptOneSeat : { work })
        : { work, whenAbandoned: (abandon) => res.once('close', abandon), describe: () => queuedRequest(user, info), ...(flow !== undefined ? { enqueued: flow.observeQueueLength } : {}) });
      let seat: Awaited<typeof acquired>;
      if (acquired instanceof Promise) {
        if (flow !== undefined) {
          flow.inQueue.value++;
          flow.inQueueSeats.value += seats;
        }
        this.concurrency.note('waiting', mutating, 1);
        seat = await acquired;
        this.concurrency.note('waiting', mutating, -1);
        if (flow !== undefined) {
          flow.inQueue.value--;
          flow.inQueueSeats.value -= seats;
        }
        if (seat === 'abandoned') {
          forgetWatch?.();
          return false;
        }
      } else {
        seat = acquired;
      }
      if (!exempt) flow?.observeWait((performance.now() - waitStarted) / 1000, typeof seat === 'object');
      if (typeof seat !== 'object') {
        forgetWatch?.();
        flow?.rejected(seat);
        this.opts.metrics?.requestDropped(mutating);
        tooManyRequests(res, levels!.retryAfter(classified.level.name));
        return false;
      }
      if (flow !== undefined) {
        flow.dispatched.value++;
        flow.executing.value++;
        flow.executingSeats.value += seats;
      }
      const { release } = seat;
      const started = flow === undefined ? 0 : performance.now();
      const done = this.executing(mutating, () => {
        if (flow !== undefined) {
          flow.executing.value--;
          flow.executingSeats.value -= seats;
          flow.observeExecution((performance.now() - started) / 1000, watch);
        }
        release();
      });
      if (forgetWatch === undefined) return { release: done };
      // A watch gives its seats back once it is initialized, or when it ends before that.
      return {
        release: () => {
          forgetWatch();
          done();
        },
        initialized: done,
      };
    }
    const limiter = mutating ? this.limiters.mutating : this.limiters.readOnly;
    if (limiter === undefined) return undefined;
    // A client that goes away while its request waits takes it out of the queue.
    const release = await limiter.acquire(user.name, (abandon) => res.once('close', abandon));
    if (release === 'abandoned') return false;
    if (release !== undefined) {
      return { release: this.executing(mutating, release) };
    }
    this.opts.metrics?.requestDropped(mutating);
    tooManyRequests(res, 1);
    return false;
  }

  /** Counts a request executing from now until the function returned is first called, which then calls `release`. */
  private executing(mutating: boolean, release: () => void): () => void {
    const concurrency = this.concurrency;
    concurrency.note('executing', mutating, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      concurrency.note('executing', mutating, -1);
      release();
    };
  }

  /**
   * Who the credentials name (a client certificate, a bearer token), or
   * system:anonymous for a request with none; invalid credentials are 401, as is
   * anonymous access when it is off (or, see anonymousOnlyPublicPaths, off this path).
   */
  private async authenticate(req: HttpRequest, path: string): Promise<Authenticated> {
    const clientCertificate = clientCertificateOf(req as unknown as Request, this.proxyCas, this.clientCas);
    let found;
    try {
      found = await this.opts.authenticator({
        headers: req.headers, path, ...(this.proxyCas !== undefined ? { rawHeaders: req.rawHeaders ?? [] } : {}), ...(clientCertificate !== undefined ? { clientCertificate } : {}),
      });
    } catch (err) {
      // The refusal's audit annotations go with the 401 to the failed-authentication event.
      if (err instanceof AuthenticationFailure) throw Object.assign(unauthorized(), { auditAnnotations: err.auditAnnotations });
      throw err;
    }
    if (found === undefined) throw unauthorized();
    if (found.user.name === anonymousUser.name && this.opts.anonymousOnlyPublicPaths && !publicPaths.has(path)) throw unauthorized();
    return found;
  }
}

/** How a shutdown ends: see ApiServer.close. */
export interface ShutdownOptions {
  /** How long the requests left may take once the listener closed (default 10 s). */
  graceMs?: number;
  /** `--shutdown-send-retry-after`. */
  sendRetryAfter?: boolean;
  /** `--shutdown-watch-termination-grace-period`: watches are ended spread over this long. */
  watchGraceMs?: number;
}

/**
 * What a draining server still serves (upstream's isRequestExemptFromRetryAfter): its
 * own loopback requests (the `kube-apiserver/` user agent upstream gives them), health checks
 * and metrics.
 */
function exemptFromRefusal(req: Request, path: string): boolean {
  const agent = req.headers['user-agent'];
  if (typeof agent === 'string' && agent.startsWith('kube-apiserver/')) return true;
  return ['/metrics', '/readyz', '/livez', '/healthz'].some((prefix) => path.startsWith(prefix));
}

/** An exempt level's usual request: it never waits, so nothing to hear of its client leaving nor to show of it. */
const exemptOneSeat = Object.freeze({ work: oneSeat });

/** A request counted against the limits: what ends it, and for a watch, what gives its seats back once it is initialized. */
interface Admission {
  release(): void;
  initialized?: () => void;
}

/** What a waiting request shows of itself in /debug/api_priority_and_fairness/dump_requests. */
function queuedRequest(user: UserInfo, info: RequestInfo): QueuedRequest {
  return info.isResourceRequest
    ? { user: user.name, verb: info.verb, path: info.path, namespace: info.namespace, name: info.name || info.selectedName, group: info.group, version: info.version, resource: info.resource, subresource: info.subresource }
    : { user: user.name, verb: info.verb, path: info.path, namespace: '', name: '', group: '', version: '', resource: '', subresource: '' };
}

/** Answers refused by the limits, for the metrics of requests ended in self-defense. */
const refusedByLimits = new WeakSet<object>();

/** Upstream's refusal past the limits: 429, plain text (Go's http.Error), try again after `retryAfter` seconds. */
function tooManyRequests(res: HttpResponse, retryAfter: number): void {
  refusedByLimits.add(res);
  res.statusCode = 429;
  res.setHeader('Retry-After', String(retryAfter));
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end('Too many requests, please try again later.\n');
}

/**
 * A request that arrived while a shutdown drains: upstream's WithRetryAfter answer (429, plain
 * text, try again in 5 s, the connection to be closed once idle).
 */
function refuseWhileShuttingDown(res: HttpResponse): void {
  res.statusCode = 429;
  res.setHeader('Connection', 'close');
  res.setHeader('Retry-After', '5');
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end('The apiserver is shutting down, please try again later.\n');
}

/**
 * Upstream's CORS filter, outside authentication: a request from an allowed origin gets the
 * headers a browser needs to read the answer (credentials allowed); its preflight (OPTIONS)
 * is answered here, 204. Other origins pass untouched. Answers whether the request was answered.
 */
function answeredCors(req: HttpRequest, res: HttpResponse, allowed: ReadonlyArray<{ test(origin: string): boolean }>): boolean {
  const origin = req.headers.origin;
  if (typeof origin !== 'string' || origin === '' || !allowed.some((pattern) => pattern.test(origin))) return false;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Methods', 'POST, GET, OPTIONS, PUT, DELETE, PATCH');
  res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since');
  res.setHeader('Access-Control-Expose-Headers', 'Date');
  res.setHeader('Access-Control-Allow-Credentials', 'true');
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(204);
  res.end();
  return true;
}

/**
 * Upstream's responsewriters.InternalError: a plain-text 500 naming the request URI
 * (`Internal Server Error: "/api/v1/pods": <err>`), HTML's special characters escaped.
 */
function internalError(res: HttpResponse, uri: string, error: string): void {
  const body = `Internal Server Error: ${JSON.stringify(uri)}: ${error}`.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  res.statusCode = 500;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(`${body}\n`);
}

/** A list's, watch's or deletecollection's label selector, for the webhooks that are told it. */
function rawLabelSelector(info: ResourceRequestInfo, query: URLSearchParams): string | undefined {
  if (info.verb !== 'list' && info.verb !== 'watch' && info.verb !== 'deletecollection') return undefined;
  const raw = query.get('labelSelector');
  return raw === null || raw === '' ? undefined : raw;
}

/**
 * The field selector authorization sees, as upstream's AuthorizeWithSelectors gives it: a
 * list's, watch's or deletecollection's, parsed; none when it does not parse.
 */
function selectorTerms(info: ResourceRequestInfo, query: URLSearchParams): AuthorizationAttributes['fieldSelector'] {
  if (info.verb !== 'list' && info.verb !== 'watch' && info.verb !== 'deletecollection') return undefined;
  const raw = query.get('fieldSelector');
  if (raw === null || raw === '') return undefined;
  try {
    return parseFieldSelector(raw).terms;
  } catch {
    return undefined;
  }
}
