// Routes a resource request to its verb handler, after request info has named it.
import { badRequest, methodNotAllowed, notFoundAtChainEnd, notFoundPath, StatusError, unclassifiedError } from '../api/index.ts';
import { negotiateObject, negotiateStatus, wantsPretty, type NegotiateOptions } from '../encoding/negotiate.ts';
import type { ReviewAuthorizer } from '../registry/access-review.ts';
import { CustomResourceStore } from '../registry/crd/custom-resource-store.ts';
import { validateName } from '../registry/validation/names.ts';
import { goQuote } from '../api/field-errors.ts';
import { goQuery } from './query.ts';
import type { ResourceRegistry, ServedResource } from '../registry/registry.ts';
import type { NonResourceRequestInfo, RequestInfo, ResourceRequestInfo } from './request-info.ts';
import { addWarning, currentRequest, deprecatedApiRequested } from '../api/request-context.ts';
import { discoveryCodecs, negotiateDiscovery, type Discovery } from './discovery.ts';
import { proxyToExtension, type AggregationLookup } from './aggregated-proxy.ts';
import { createHandler } from './handlers/create.ts';
import { deleteCollectionHandler, deleteHandler } from './handlers/delete.ts';
import { getHandler } from './handlers/get.ts';
import { listHandler } from './handlers/list.ts';
import { patchHandler } from './handlers/patch.ts';
import { subresourceHandler } from './handlers/subresource.ts';
import { virtualHandler } from './handlers/virtual.ts';
import type { RequestScope } from './handlers/scope.ts';
import type { AuthenticationApi } from './handlers/authentication.ts';
import { updateHandler } from './handlers/update.ts';
import { watchHandler } from './handlers/watch.ts';
import { serveHealth, type HealthCheck, type HealthObserver } from './health.ts';
import { acceptsGzip, readBody, writeBytes, writeError, type HttpRequest, type HttpResponse } from './http.ts';
import type { OpenApiService } from './openapi-service.ts';
import { versionInfo } from './version.ts';
import type { KubeletClient } from './kubelet-client.ts';
import type { PodNetworkClient } from './pod-network-client.ts';
import { WatchStreams } from './watch-streams.ts';
import { mayUpgrade as upgrades } from './upgrade.ts';

/** A registry served as promhttp serves it, in the format the Accept header negotiates. */
interface MetricsText {
  scrape(accept: string | undefined): Promise<{ contentType: string; body: string | Uint8Array }>;
}

export interface ApiHandlerOptions {
  registry: ResourceRegistry;
  /** `--kubelet-preferred-address-types`; default upstream's order. */
  kubeletPreferredAddressTypes?: readonly string[];
  /** Reaches nodes' kubelets (pods/log, nodes/proxy); absent: none is reached, as for simulated nodes. */
  kubelet?: KubeletClient;
  /** Reaches pods at their IPs (pods/proxy, services/proxy); absent: none is reached. */
  podNetwork?: PodNetworkClient;
  discovery: Discovery;
  /** The aggregation layer: which groups and versions extension API servers answer. */
  aggregation?: AggregationLookup;
  openapi: OpenApiService;
  /** /healthz's and /livez's checks. */
  healthChecks: HealthCheck[];
  /** `--aggregator-reject-forwarding-redirect` (true): an extension server's redirects answered 502, not forwarded. */
  aggregatorRejectForwardingRedirect?: boolean;
  /** /readyz's checks, the health checks among them in their place (and some passing only while not shutting down). */
  readyChecks: HealthCheck[];
  plinthVersion: string;
  featureGates: Record<string, boolean>;
  /** Watch streams and their write grace period (default: 30 s). */
  watchStreams?: WatchStreams;
  /** The authorizer in use (the server's filter chain asks it too): access reviews ask it. Absent: reviews are not answered (405). */
  authorizer?: ReviewAuthorizer;
  /**
   * Authorizes a verb a request needs besides its own (`create` for a PUT or apply of an
   * absent object, `unsafe-delete-ignore-read-errors`); throws a 403. Absent: allowed.
   */
  authorizeVerb?(info: ResourceRequestInfo, verb: string): Promise<void>;
  /** Service-account tokens, token reviews and the issuer's discovery documents. */
  authentication?: AuthenticationApi;
  /** /metrics, in Prometheus text or Protobuf, and /metrics/slis, which the health endpoints' checks feed. */
  metrics?: MetricsText & { reset(): void; readonly slis: MetricsText & HealthObserver & { reset(): void } };
  /** /debug/api_priority_and_fairness/<name>: the dump the name asks for, undefined for none (or with priority and fairness off). */
  flowControlDump?: (name: string, query: URLSearchParams) => string | undefined;
  /** klog's -v while serving, which PUT /debug/flags/v sets; absent: /debug/flags is not served. */
  verbosity?: { level: number };
  /** DELETE on /metrics and /metrics/slis resets them (upstream's handlers with profiling on); otherwise it answers the metrics. */
  resetsMetrics?: boolean;
  log: (message: string) => void;
}

const handlers: Record<ResourceRequestInfo['verb'], ((scope: RequestScope) => Promise<void>) | undefined> = {
  get: getHandler,
  list: listHandler,
  watch: watchHandler,
  create: createHandler,
  update: updateHandler,
  patch: patchHandler,
  delete: deleteHandler,
  deletecollection: deleteCollectionHandler,
  // A method no verb stands for (OPTIONS, TRACE, CONNECT): routed nowhere.
  '': undefined,
};

/** Upstream's /debug/flags page: routes.DebugFlags' template over its one flag, `v`, as Go's template writes it. */
const debugFlagsIndex = '<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n<body>\n/debug/flags/<br>\n<br>\nflags:<br>\n<table>\n\n<tr>v<br>\n\n</table>\n<br>\nfull flags configurable<br>\n</body>\n</html>\n';

/**
 * /debug/flags, as upstream installs it with profiling on (its default), for any method:
 * /debug/flags/v takes a PUT of klog's verbosity (StringFlagPutHandler over logs.GlogSetter),
 * other methods there are its 406; any other path is the index page.
 */
async function serveDebugFlags(req: HttpRequest, res: HttpResponse, setter: boolean, verbosity: { level: number }): Promise<void> {
  if (!setter) {
    // Go's handler sets no type: net/http sniffs HTML.
    writeBytes(res, 200, 'text/html; charset=utf-8', debugFlagsIndex);
    return;
  }
  // Upstream's writePlainText: the text and a newline, not to be sniffed.
  const plain = (status: number, text: string) => writeBytes(res, status, 'text/plain', `${text}\n`, { 'X-Content-Type-Options': 'nosniff' });
  if (req.method !== 'PUT') return plain(406, 'unsupported http method');
  const value = (await readBody(req)).toString();
  const parsed = klogLevel(value);
  if ('error' in parsed) return plain(400, `failed set klog.logging.verbosity ${value}: ${parsed.error}`);
  verbosity.level = parsed.level;
  plain(200, `successfully set klog.logging.verbosity to ${value}`);
}

/**
 * klog's Level.Set: Go's strconv.ParseInt(text, 10, 32), a negative level too, or its error
 * (`strconv.ParseInt: parsing "x": invalid syntax`, `… value out of range`). Go reads the
 * digits in order: past 2^32 - 1 is out of range before a later character that is no digit.
 */
function klogLevel(text: string): { level: number } | { error: string } {
  const fail = (why: string) => ({ error: `strconv.ParseInt: parsing ${goQuote(text)}: ${why}` });
  const negative = text.startsWith('-');
  const digits = negative || text.startsWith('+') ? text.slice(1) : text;
  if (digits === '') return fail('invalid syntax');
  let magnitude = 0;
  for (const digit of digits) {
    if (digit < '0' || digit > '9') return fail('invalid syntax');
    magnitude = magnitude * 10 + Number(digit);
    if (magnitude > 2 ** 32 - 1) return fail('value out of range');
  }
  if (magnitude > (negative ? 2 ** 31 : 2 ** 31 - 1)) return fail('value out of range');
  return { level: negative ? -magnitude : magnitude };
}

/** The pods' subresources upstream authorizes `create` on too (AuthorizePodWebsocketUpgradeCreatePermission). */
const podStreams: ReadonlySet<string> = new Set(['exec', 'attach', 'portforward']);

/** Routes an authenticated, authorized request to discovery, health, OpenAPI or a verb handler. */
export class ApiHandler {
  private readonly opts: ApiHandlerOptions;
  /** Stop functions of running watches, ended on shutdown. */
  private readonly longRunning = new Set<() => void>();
  private readonly watchStreams: WatchStreams;

  constructor(opts: ApiHandlerOptions) {
    this.opts = opts;
    this.watchStreams = opts.watchStreams ?? new WatchStreams({ writeGraceMs: 30_000 });
  }

  /** Ends every long-running request (watches) so that shutdown is not held up by them. */
  stopLongRunning(): void {
    for (const stop of this.longRunning) stop();
  }

  /**
   * Ends the long-running requests one after the other, spread evenly over `ms`, as upstream
   * terminates watches over its grace period so that their clients do not all come back at once.
   */
  async stopLongRunningOver(ms: number): Promise<void> {
    const stops = [...this.longRunning];
    for (const [i, stop] of stops.entries()) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, ms / stops.length));
      stop();
    }
  }

  private trackLongRunning = (stop: () => void): (() => void) => {
    this.longRunning.add(stop);
    return () => this.longRunning.delete(stop);
  };

  /**
   * Answers an error as a Status in the serializer the request's Accept allows (no
   * conversions; JSON when nothing fits), as upstream's ErrorNegotiated.
   */
  writeError(req: HttpRequest, res: HttpResponse, err: unknown): Promise<void> {
    const query = goQuery((req.url ?? '').split('?')[1] ?? '');
    const negotiated = negotiateStatus(req.headers.accept, { cbor: this.cbor, pretty: wantsPretty(query, req.headers['user-agent']) });
    return writeError(res, err, this.opts.log, negotiated);
  }

  private get cbor(): boolean {
    return this.opts.featureGates.CBORServingAndStorage ?? false;
  }

  /**
   * Whether an HTTP/1.1 upgrade request is handed over with its connection: those upgrade.ts
   * names, and any resource request an extension server answers (the aggregator's proxy
   * passes an upgrade on).
   */
  mayUpgrade(info: RequestInfo): boolean {
    if (upgrades(info)) return true;
    return info.isResourceRequest && info.group !== '' && this.opts.aggregation?.(info.group, info.version) !== undefined;
  }

  async handle(req: HttpRequest, res: HttpResponse, info: RequestInfo, query: URLSearchParams): Promise<void> {
    // An empty path segment (`//x/api/...`, `/api/v1//pods`) matches no route upstream: 404, never served as the path without it.
    if (info.path.includes('//')) throw this.unrouted(info.path);
    const aggregation = this.opts.aggregation;
    if (aggregation !== undefined) {
      // A group and version an APIService gives to a service: the extension server answers,
      // its OpenAPI v3 document included.
      const parts = info.isResourceRequest ? [] : info.parts;
      const openapi = parts[0] === 'openapi' && parts[1] === 'v3' && parts[2] === 'apis' && parts.length === 5;
      const group = info.isResourceRequest ? info.group : parts[0] === 'apis' && parts.length >= 3 ? parts[1]! : openapi ? parts[3]! : '';
      const found = group === '' ? undefined : aggregation(group, info.isResourceRequest ? info.version : openapi ? parts[4]! : parts[2]!);
      const user = currentRequest()?.user;
      if (found !== undefined && user !== undefined) return proxyToExtension(req, res, found.target, user, { forwardRedirects: this.opts.aggregatorRejectForwardingRedirect === false, track: this.trackLongRunning });
    }
    if (info.isResourceRequest) return this.handleResource(req, res, info, query);
    return this.handleNonResource(req, res, info, query);
  }

  /**
   * Paths other than resources'. One no handler takes is answered by the end of upstream's
   * delegation chain whatever the method (notFoundAtChainEnd), or by go-restful's 404 under
   * its web services; the paths served take GET and HEAD, other methods 405 (/metrics
   * answers any method, as upstream's promhttp handlers, and /debug/flags as its DebugFlags).
   */
  private async handleNonResource(req: HttpRequest, res: HttpResponse, info: NonResourceRequestInfo, query: URLSearchParams): Promise<void> {
    const [root, ...rest] = info.parts;
    // A CONNECT's authority (no path) is no path any of upstream's muxes serves.
    if (info.path === '') throw notFoundAtChainEnd();
    const method = req.method ?? 'GET';
    const reads = method === 'GET' || method === 'HEAD';
    switch (root) {
      case 'api':
      case 'apis': {
        if (!reads) {
          // The path decides first: a missing document is its 404 (Discovery.serve throws the chain end's).
          if (this.opts.discovery.serve(info.parts, { version: 'legacy', mediaType: 'application/json' }) === undefined) throw notFoundPath();
          throw methodNotAllowed();
        }
        // A group's or version's document has no aggregated form: upstream's handler for it passes those entries over.
        const form = negotiateDiscovery(req.headers.accept, this.cbor, info.parts.length === 1);
        await discoveryCodecs(form);
        const doc = this.opts.discovery.serve(info.parts, form);
        if (doc === undefined) throw notFoundPath();
        const headers = { ETag: doc.etag, Vary: 'Accept' };
        if (req.headers['if-none-match'] === doc.etag) {
          res.writeHead(304, headers);
          res.end();
          return;
        }
        writeBytes(res, 200, doc.contentType, doc.body, headers);
        return;
      }
      // go-restful's web service /version: a path under it that its one route does not match is its 404.
      case 'version':
        if (rest.length > 0) throw notFoundPath();
        if (!reads) throw methodNotAllowed();
        writeBytes(res, 200, 'application/json', JSON.stringify(versionInfo(this.opts.plinthVersion), null, 2));
        return;
      case 'healthz':
      case 'livez':
        return serveHealth(res, root, this.opts.healthChecks, query, info.path, method, this.opts.metrics?.slis);
      case 'readyz':
        return serveHealth(res, root, this.opts.readyChecks, query, info.path, method, this.opts.metrics?.slis);
      case 'openapi':
        return this.opts.openapi.serve(req, res, rest, query);
      // promhttp's handlers, which answer any method with the metrics; with profiling on (the
      // default) DELETE resets them (upstream's MetricsWithReset and SLIMetricsWithReset).
      case 'metrics': {
        // Registered at exactly these paths: no other under them, a trailing slash included.
        const metrics = this.opts.metrics;
        const slis = info.path === '/metrics/slis';
        if (metrics === undefined || (info.path !== '/metrics' && !slis)) throw notFoundAtChainEnd();
        const served = slis ? metrics.slis : metrics;
        if (method === 'DELETE' && this.opts.resetsMetrics === true) {
          served.reset();
          // io.WriteString with no type set: net/http sniffs text.
          writeBytes(res, 200, 'text/plain; charset=utf-8', 'metrics reset\n');
          return;
        }
        const { contentType, body } = await served.scrape(req.headers.accept);
        writeBytes(res, 200, contentType, body);
        return;
      }
      case 'debug': {
        if (rest[0] === 'flags' && this.opts.verbosity !== undefined) {
          // The mux's exact path /debug/flags/v sets the flag; /debug/flags and every other path under it are the index.
          const setter = rest.length === 2 && rest[1] === 'v' && !info.path.endsWith('/');
          return serveDebugFlags(req, res, setter, this.opts.verbosity);
        }
        const dump = rest.length === 2 && rest[0] === 'api_priority_and_fairness' ? this.opts.flowControlDump?.(rest[1]!, query) : undefined;
        if (dump === undefined) throw notFoundAtChainEnd();
        if (!reads) throw methodNotAllowed();
        // Go's handler sets no type: net/http sniffs the text.
        writeBytes(res, 200, 'text/plain; charset=utf-8', dump);
        return;
      }
      // The service-account issuer's OpenID discovery, as upstream's routes.OpenIDMetadataServer.
      case '.well-known':
        if (rest.length !== 1 || rest[0] !== 'openid-configuration' || this.opts.authentication === undefined) throw notFoundAtChainEnd();
        if (!reads) throw methodNotAllowed();
        writeBytes(res, 200, 'application/json', JSON.stringify(await this.opts.authentication.openIdConfiguration()), { 'Cache-Control': 'public, max-age=3600' });
        return;
      case 'openid':
        if (rest.length !== 2 || rest[0] !== 'v1' || rest[1] !== 'jwks' || this.opts.authentication === undefined) throw notFoundAtChainEnd();
        if (!reads) throw methodNotAllowed();
        writeBytes(res, 200, 'application/jwk-set+json', JSON.stringify(await this.opts.authentication.jwks()), { 'Cache-Control': 'public, max-age=3600' });
        return;
      default:
        throw notFoundAtChainEnd();
    }
  }

  /**
   * The 404 of a path nothing serves, as the handler upstream's director picks for it
   * answers: a path under one of kube-apiserver's go-restful web services (a root followed
   * by the path's end or a `/`: `/api`, `/version`, `/apis/<group>` of a group with built-in
   * types) is go-restful's Status; any other reaches the end of the delegation chain
   * (apiextensions' handler passes unknown groups, versions and custom resources on).
   */
  private unrouted(path: string): StatusError {
    const [, root, group = ''] = path.split('/');
    const restful = root === 'api' || root === 'version'
      || (root === 'apis' && group !== '' && this.opts.registry.served().some(({ type }) => type.group === group && type.customResource !== true));
    return restful ? notFoundPath() : notFoundAtChainEnd();
  }

  private async handleResource(req: HttpRequest, res: HttpResponse, info: ResourceRequestInfo, query: URLSearchParams): Promise<void> {
    const served = this.opts.registry.lookup(info.group, info.version, info.resource);
    if (served === undefined || served.disabled === true) throw this.unrouted(info.path);
    const { type } = served;
    // Paths that do not exist for the type's scope: a namespaced object needs its namespace
    // (except for lists and watches across namespaces), a cluster-scoped one has none: upstream
    // serves no such route, whatever the verb (only a namespace's own path names one).
    if (!type.namespaced && info.namespace !== '' && !isNamespaceOwnPath(info)) throw this.unrouted(info.path);
    if (type.namespaced && info.namespace === '' && info.verb !== 'list' && info.verb !== 'watch') {
      // A built-in's collection path exists (for list), so another verb there is 405; upstream's
      // custom resource handler passes any path it does not serve on, to the chain's end.
      throw info.name === '' && !(served.store instanceof CustomResourceStore) ? methodNotAllowed() : this.unrouted(info.path);
    }
    // Upstream's installer warns of a deprecated API on every route it serves, errors included,
    // and its metrics count the request and mark its audit event.
    if (type.deprecationWarning !== undefined) {
      addWarning(type.deprecationWarning);
      deprecatedApiRequested();
    }
    const custom = served.store instanceof CustomResourceStore;
    const routed = info.subresource === '' || type.subresources.includes(info.subresource);
    // go-restful routes a built-in's reads by GET alone: HEAD, and a legacy /watch/ path with
    // any other method, are its 405 (a proxy routes HEAD too). Upstream's custom resource
    // handler goes by the verb instead: HEAD is a get, /watch/ a watch, and a method no verb
    // stands for is its NewMethodNotSupported (on a subresource: subresource.ts).
    if (routed && req.method !== 'GET' && !custom && info.subresource !== 'proxy' && (info.verb === 'get' || info.verb === 'list' || info.verb === 'watch')) throw methodNotAllowed();
    if (info.subresource === '' && info.verb === '' && custom) {
      throw methodNotAllowed(` is not supported on resources of kind ${JSON.stringify(`${info.resource}.${info.group}`)}`, { group: info.group, kind: info.resource });
    }
    // Table columns, subresources' rules and field selectors are the type's behaviour.
    if (type.load !== undefined) await type.load();
    // Every answer may be a Table or a metadata view (upstream's transformResponseObject);
    // custom resources have no Protobuf; a watch streams, which YAML cannot.
    const media: NegotiateOptions = {
      tables: true,
      metadata: true,
      protobuf: servesProtobuf(served),
      cbor: this.cbor,
      pretty: wantsPretty(query, req.headers['user-agent']),
      stream: info.verb === 'watch' && info.subresource === '',
    };
    if (info.subresource !== '') {
      if (type.subresources.includes(info.subresource)) checkPathSegmentName(info);
      await subresourceHandler({
        req, res, info, query, served, negotiated: negotiateObject(req.headers.accept, media),
        gzip: false, watchList: false, cbor: this.cbor, trackLongRunning: this.trackLongRunning, watchStreams: this.watchStreams, log: this.opts.log,
        ...(this.opts.kubeletPreferredAddressTypes !== undefined ? { kubeletAddressTypes: this.opts.kubeletPreferredAddressTypes } : {}),
        ...(this.opts.kubelet !== undefined ? { kubelet: this.opts.kubelet } : {}),
        ...(this.opts.podNetwork !== undefined ? { podNetwork: this.opts.podNetwork } : {}),
        ...(this.connectCreateChecked(info) ? { authorizeConnectCreate: () => this.authorizeConnectCreate(info) } : {}),
      }, this.opts.registry, this.opts.authentication);
      return;
    }
    const handler = handlers[info.verb];
    if (handler === undefined || info.verb === '' || !type.verbs.includes(info.verb)) throw methodNotAllowed();
    if (type.virtual) {
      await virtualHandler({
        req, res, info, query, served, negotiated: negotiateObject(req.headers.accept, media),
        gzip: false, watchList: false, cbor: this.cbor, trackLongRunning: this.trackLongRunning, watchStreams: this.watchStreams, log: this.opts.log,
      }, this.opts.registry, this.opts.authorizer, this.opts.authentication);
      return;
    }
    checkNamePresence(info, served);
    if (info.verb !== 'watch') checkPathSegmentName(info);
    const negotiated = negotiateObject(req.headers.accept, media);
    const gates = this.opts.featureGates;
    await handler({
      req, res, info, query, served, negotiated,
      gzip: (gates.APIResponseCompression ?? false) && acceptsGzip(req),
      watchList: gates.WatchList ?? false,
      unsafeMalformedObjectDeletion: gates.AllowUnsafeMalformedObjectDeletion ?? false,
      cbor: this.cbor,
      trackLongRunning: this.trackLongRunning,
      watchStreams: this.watchStreams,
      ...(this.opts.authorizeVerb === undefined ? {} : {
        authorizeCreate: () => this.opts.authorizeVerb!(info, 'create'),
        authorizeVerb: (verb: string) => this.opts.authorizeVerb!(info, verb),
      }),
      log: this.opts.log,
    });
  }

  /**
   * Whether a request to pods/exec, attach or portforward is authorized for `create` too
   * before it connects: with the AuthorizePodWebsocketUpgradeCreatePermission gate (beta, on
   * since v1.35), a request whose verb is not create already (a GET, which WebSockets use).
   */
  private connectCreateChecked(info: ResourceRequestInfo): boolean {
    return info.verb !== 'create' && info.group === '' && info.resource === 'pods' && podStreams.has(info.subresource)
      && this.opts.authorizer !== undefined && (this.opts.featureGates.AuthorizePodWebsocketUpgradeCreatePermission ?? true);
  }

  /**
   * Upstream's ensureAuthorizedForVerb (pkg/registry/core/pod/rest/authorize.go), which the
   * pods' Connect runs first: the request's own attributes asked again with the verb
   * `create`; a denial is NewForbidden of the pod, the authorizer's reason its words (none
   * from RBAC); a mode that failed is its plain error, a 500 without reason.
   */
  private async authorizeConnectCreate(info: ResourceRequestInfo): Promise<void> {
    const user = currentRequest()?.user;
    if (user === undefined) return;
    const decision = await this.opts.authorizer!.authorize(user, {
      verb: 'create', group: info.group, resource: info.resource, subresource: info.subresource,
      namespace: info.namespace, name: info.name, path: info.path, version: info.version,
    });
    if (decision.error !== undefined) throw unclassifiedError(decision.error);
    if (decision.decision === 'Allow') return;
    // NewForbidden(pods, name, reason): StatusDetails in their field order (name, then kind; the core group is empty).
    throw new StatusError(403, 'Forbidden', `pods ${JSON.stringify(info.name)} is forbidden: ${decision.reason ?? ''}`, { name: info.name, kind: 'pods' });
  }
}

/**
 * Upstream routes PUT and PATCH to an object's path only and POST to its collection's: a
 * built-in answers the others 405 (go-restful knows the path, not the method), where they
 * created (POST with a name) or answered 404 for an object named "". Upstream's custom
 * resource handler takes any of them, and an update or patch without a name is its namer's 400.
 */
function checkNamePresence(info: ResourceRequestInfo, served: ServedResource): void {
  const unnamedWrite = info.name === '' && (info.verb === 'update' || info.verb === 'patch');
  if (served.store instanceof CustomResourceStore) {
    if (unnamedWrite) throw badRequest('name parameter required.');
    return;
  }
  if (unnamedWrite || (info.name !== '' && info.verb === 'create')) throw methodNotAllowed();
}

/**
 * An object's name in the path must be one a storage key can hold: not "." or "..", no "%"
 * (sent escaped). Upstream's registry refuses it with 400 as it makes the key
 * (NamespaceKeyFunc / NoNamespaceKeyFunc), before reading anything; a watch only selects
 * by the name. A "/" (sent as %2F) is left to the lookup: upstream splits the unescaped
 * path, so such a name never reaches its registry.
 */
function checkPathSegmentName(info: ResourceRequestInfo): void {
  if (info.name === '' || info.name.includes('/')) return;
  const problems = validateName(info.name, 'path-segment');
  if (problems.length > 0) throw badRequest(`Name parameter invalid: ${goQuote(info.name)}: ${problems.join(';')}`);
}

/** Custom resources have no Protobuf form, as upstream: a client asking for Protobuf or JSON gets JSON. */
function servesProtobuf(served: ServedResource): boolean {
  return !(served.store instanceof CustomResourceStore);
}

/**
 * Whether a path with a namespace names a namespace itself (`/api/v1/namespaces/x`,
 * `/api/v1/namespaces/x/status`) rather than a resource inside namespace x
 * (`/api/v1/namespaces/x/namespaces/y`): both parse to resource "namespaces".
 */
function isNamespaceOwnPath(info: ResourceRequestInfo): boolean {
  if (info.resource !== 'namespaces') return false;
  let rest = info.path.split('/').filter((p) => p !== '').slice(info.prefix === 'api' ? 2 : 3);
  if (rest[0] === 'watch') rest = rest.slice(1);
  return rest.length === (info.subresource === '' ? 2 : 3);
}
