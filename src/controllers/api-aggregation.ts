// The aggregation layer's controller, after kube-aggregator's: each APIService that names a
// service is resolved to a ready endpoint of that service (its EndpointSlices, as
// `--enable-aggregator-routing` resolves: Plinth has no service network; an ExternalName
// service to its name at the APIService's port) and checked by a
// discovery request over the front-proxy client certificate; its Available condition says
// how that went, with upstream's reasons and words. The proxy routes its group and version
// to the endpoint while it is available, and discovery lists the resources it answered.
import { createHash, X509Certificate } from 'node:crypto';
import type https from 'node:https';
import { goDialError } from '../api/go-dial-error.ts';
import { isStatusError, type KubeObject } from '../api/index.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer } from './runtime/index.ts';

type Raw = Record<string, unknown>;

/** Where an aggregated group and version is answered: a ready endpoint of its service, and the TLS agent to reach it with. */
export interface AggregationTarget {
  origin: string;
  agent: https.Agent;
  /** `<service>.<namespace>.svc`, the name its certificate is checked for. */
  serverName?: string;
  /** Why no transport can be built for it (client-go's words): the proxy answers it with a 500. */
  transportError?: string;
}

/** An aggregated group and version, for discovery and OpenAPI. */
export interface RemoteGroupVersion {
  /** The APIService's name. */
  name: string;
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** The APIResourceList's resources the extension server answered, when it did. */
  resources?: Raw[];
  /** Its own aggregated discovery entry for the group and version (an APIVersionDiscovery), when it serves aggregated discovery. */
  discovery?: Raw;
  /** Where the extension server serves this group and version's OpenAPI v3 document (with its hash), when it lists one. */
  openapi?: string;
  /** Its OpenAPI v2 document, once downloaded (the last one that was, while it cannot be). */
  openapiV2?: Raw;
}

/** A downloaded OpenAPI v2 document, its ETag to ask with next (when the server sent one) and a hash of its bytes. */
interface DownloadedSwagger {
  document: Raw;
  etag: string | undefined;
  hash: string;
}

export interface ApiAggregationOptions {
  apiServices: Store;
  services: Store;
  endpointSlices: Store;
  /** The front-proxy client certificate requests to extension servers are made with. */
  proxyClient: { certPem: string; keyPem: string };
  /** Called when what discovery lists changed. */
  onChange(): void;
  log: (message: string) => void;
  /** How often an available APIService is checked again (default 30 s). */
  recheckMs?: number;
}

interface Entry {
  name: string;
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  target?: AggregationTarget;
  available: boolean;
  resources?: Raw[];
  discovery?: Raw;
  openapi?: string;
  openapiV2?: DownloadedSwagger;
}

/** The discovery check's client timeout (its http.Client's Timeout). */
const checkTimeoutMs = 5000;

/** An extension server's answer to the aggregator: its bytes undefined when the body did not all come. */
interface ExtensionAnswer {
  url: string;
  status: number;
  etag: string | undefined;
  contentType: string | undefined;
  bytes: Buffer | undefined;
}
/** Who the aggregator checks and asks extension servers as. */
const aggregatorHeaders = { 'x-remote-user': 'system:kube-aggregator', 'x-remote-group': 'system:masters' };
/** What kube-aggregator's discovery manager asks an extension server's `/apis` for. */
const aggregatedDiscoveryAccept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
/** Who the aggregator downloads OpenAPI v2 documents as (upstream's aggregatorUser). */
const openapiUser = 'system:aggregator';

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export class ApiAggregation {
  readonly #opts: ApiAggregationOptions;
  readonly #apiServices: Informer;
  readonly #services: Informer;
  readonly #slices: Informer;
  readonly #controller: Controller;
  /** Remote APIServices by `group/version`. */
  readonly #entries = new Map<string, Entry>();
  readonly #agents = new Map<string, https.Agent>();

  constructor(opts: ApiAggregationOptions) {
    this.#opts = opts;
    this.#apiServices = new Informer({ source: opts.apiServices, resource: 'apiservices', log: opts.log });
    this.#services = new Informer({ source: opts.services, resource: 'services', log: opts.log });
    this.#slices = new Informer({ source: opts.endpointSlices, resource: 'endpointslices', log: opts.log });
    // Five workers, as kube-aggregator runs its availability controller: an extension server
    // that hangs holds up its own check only. A failed check is retried after its queue's
    // backoff (5 ms doubling to 30 s), as upstream's sync returns it as an error; the rest
    // are looked at again every 30 s (its informer's resync).
    this.#controller = new Controller({
      name: 'apiservice-availability', informers: [this.#apiServices, this.#services, this.#slices], reconcile: (name) => this.#sync(name), log: opts.log, workers: 5,
      backoff: { baseMs: 5, maxMs: 30_000 }, shouldLog: (err) => !(err instanceof CheckFailed),
    });
    const enqueue = (o: KubeObject) => this.#controller.queue.add(o.metadata.name!);
    this.#apiServices.addHandlers({ add: enqueue, update: (_, o) => enqueue(o), delete: enqueue });
    // A service or its endpoints changed: the APIServices naming it are looked at again.
    const byService = (namespace: string, name: string) => {
      for (const apiService of this.#apiServices.store.list()) {
        const service = (apiService.spec as Raw | undefined)?.service as Raw | undefined;
        if (service !== undefined && service !== null && text(service.namespace) === namespace && text(service.name) === name) enqueue(apiService);
      }
    };
    const onService = (o: KubeObject) => byService(o.metadata.namespace ?? '', o.metadata.name ?? '');
    this.#services.addHandlers({ add: onService, update: (_, o) => onService(o), delete: onService });
    const onSlice = (o: KubeObject) => byService(o.metadata.namespace ?? '', o.metadata.labels?.['kubernetes.io/service-name'] ?? '');
    this.#slices.addHandlers({ add: onSlice, update: (_, o) => onSlice(o), delete: onSlice });
  }

  async start(): Promise<void> {
    await this.#controller.start();
  }

  async close(): Promise<void> {
    await this.#controller.stop();
    for (const agent of this.#agents.values()) agent.destroy();
  }

  /** The proxy's lookup: undefined for a group and version served here. */
  readonly lookup = (group: string, version: string): { target?: AggregationTarget } | undefined => {
    if (this.#entries.size === 0) return undefined;
    const entry = this.#entries.get(`${group}/${version}`);
    if (entry === undefined) return undefined;
    return entry.available && entry.target !== undefined ? { target: entry.target } : {};
  };

  /** The aggregated groups and versions, for discovery. */
  remote(): RemoteGroupVersion[] {
    return [...this.#entries.values()].map((e) => ({
      name: e.name, group: e.group, version: e.version, groupPriorityMinimum: e.groupPriorityMinimum, versionPriority: e.versionPriority,
      ...(e.resources !== undefined ? { resources: e.resources } : {}), ...(e.discovery !== undefined ? { discovery: e.discovery } : {}),
      ...(e.available && e.openapi !== undefined ? { openapi: e.openapi } : {}),
      ...(e.openapiV2 !== undefined ? { openapiV2: e.openapiV2.document } : {}),
    }));
  }

  #agentFor(caPem: string | undefined, insecure: boolean, serverName: string): https.Agent {
    const key = JSON.stringify([caPem, insecure, serverName]);
    let agent = this.#agents.get(key);
    if (agent === undefined) {
      agent = new (process.getBuiltinModule('node:https').Agent)({
        keepAlive: true, cert: this.#opts.proxyClient.certPem, key: this.#opts.proxyClient.keyPem, servername: serverName,
        ...(insecure ? { rejectUnauthorized: false } : caPem !== undefined ? { ca: caPem } : {}),
      });
      this.#agents.set(key, agent);
    }
    return agent;
  }

  /** A ready endpoint of the service for the APIService's port, or why there is none (upstream's reason and message). */
  #resolve(namespace: string, name: string, port: number): { origin: string } | { reason: string; message: string } {
    const service = this.#services.store.get(`${namespace}/${name}`);
    if (service === undefined) return { reason: 'ServiceNotFound', message: `service/${name} in ${JSON.stringify(namespace)} is not present` };
    // An ExternalName service is its name at the APIService's port, as upstream resolves it.
    const serviceSpec = (service.spec ?? {}) as Raw;
    if (serviceSpec.type === 'ExternalName') {
      const host = text(serviceSpec.externalName);
      return { origin: `https://${host.includes(':') ? `[${host}]` : host}:${port}` };
    }
    const ports = ((service.spec as Raw | undefined)?.ports ?? []) as Raw[];
    const servicePort = ports.find((p) => p.port === port);
    if (servicePort === undefined) return { reason: 'ServicePortError', message: `service/${name} in ${JSON.stringify(namespace)} is not listening on port ${port}` };
    const portName = text(servicePort.name);
    const slices = this.#slices.store.list().filter((s) => s.metadata.namespace === namespace && s.metadata.labels?.['kubernetes.io/service-name'] === name);
    if (slices.length === 0) return { reason: 'EndpointsNotFound', message: `cannot find endpointslices for service/${name} in ${JSON.stringify(namespace)}` };
    for (const slice of slices) {
      const slicePort = ((slice as Raw).ports as Raw[] | undefined)?.find((p) => text(p.name) === portName);
      if (slicePort === undefined || typeof slicePort.port !== 'number') continue;
      for (const endpoint of ((slice as Raw).endpoints ?? []) as Raw[]) {
        if ((endpoint.conditions as Raw | undefined)?.ready === false) continue;
        const address = (endpoint.addresses as string[] | undefined)?.[0];
        if (address === undefined) continue;
        return { origin: `https://${address.includes(':') ? `[${address}]` : address}:${slicePort.port}` };
      }
    }
    return { reason: 'MissingEndpoints', message: `endpointslices for service/${name} in ${JSON.stringify(namespace)} have no addresses with port name ${JSON.stringify(portName)}` };
  }

  /** Where the extension server lists the group and version's OpenAPI v3 document (its /openapi/v3 index), if it does. */
  async #openapiPath(target: AggregationTarget, group: string, version: string): Promise<string | undefined> {
    const index = await this.#get(target, '/openapi/v3');
    const entry = ('body' in index ? (index.body as { paths?: Record<string, { serverRelativeURL?: unknown }> }).paths : undefined)?.[`apis/${group}/${version}`];
    return typeof entry?.serverRelativeURL === 'string' ? entry.serverRelativeURL : undefined;
  }

  /**
   * kube-aggregator's discovery check: a GET of the group and version's discovery document,
   * passed by any 2xx answer. Its resources, for discovery, when it answered 200 with what
   * upstream's discovery manager decodes as an APIResourceList (undefined otherwise: the
   * version is listed Stale).
   */
  async #check(target: AggregationTarget, group: string, version: string): Promise<{ resources: Raw[] | undefined } | { error: string }> {
    const answer = await this.#request(target, `/apis/${group}/${version}`, { ...aggregatorHeaders, accept: 'application/json' });
    if ('error' in answer) return { error: answer.error };
    if (answer.status < 200 || answer.status > 299) return { error: `failing or missing response from ${answer.url}: bad status from ${answer.url}: ${answer.status}` };
    return { resources: answer.status === 200 && answer.bytes !== undefined ? apiResources(answer.bytes) : undefined };
  }

  /**
   * What kube-aggregator's discovery manager makes of the extension server's `/apis` asked
   * for aggregated discovery (v2, else v2beta1): its entry for the group and version (an
   * empty one when a list it gave does not have it); `stale` when it answered 503 (as the
   * proxy answers a server it cannot reach) or a list that does not decode; `legacy` when it
   * answered anything else, the version's APIResourceList then converted.
   */
  async #aggregatedDiscovery(target: AggregationTarget, group: string, version: string): Promise<{ entry: Raw } | 'stale' | 'legacy'> {
    const answer = await this.#request(target, '/apis', { ...aggregatorHeaders, accept: aggregatedDiscoveryAccept });
    if ('error' in answer || answer.status === 503) return 'stale';
    const contentType = String(answer.contentType ?? '');
    if (answer.status !== 200 || !/;\s*g=apidiscovery\.k8s\.io/.test(contentType) || !/as=APIGroupDiscoveryList/.test(contentType)) return 'legacy';
    if (answer.bytes === undefined) return 'stale';
    let list: unknown;
    try {
      list = JSON.parse(answer.bytes.toString('utf8'));
    } catch {
      return 'stale';
    }
    if (!isObject(list)) return 'stale';
    const items = list.items ?? [];
    if (!Array.isArray(items) || !items.every(isObject)) return 'stale';
    const item = items.find((i) => isObject(i.metadata) && i.metadata.name === group);
    const versions = item?.versions ?? [];
    if (!Array.isArray(versions) || !versions.every(isObject)) return 'stale';
    return { entry: versions.find((v) => v.version === version) ?? { version } };
  }

  /**
   * The extension server's OpenAPI v2 document, as kube-aggregator downloads it (as
   * system:aggregator, with the ETag of the last one): the last one when it did not change
   * or cannot be had now, undefined when it serves none (404).
   */
  async #openapiV2(target: AggregationTarget, last: DownloadedSwagger | undefined): Promise<DownloadedSwagger | undefined> {
    const headers: Record<string, string> = { accept: 'application/json', 'x-remote-user': openapiUser };
    if (last?.etag !== undefined) headers['if-none-match'] = last.etag;
    const answer = await this.#request(target, '/openapi/v2', headers);
    if ('error' in answer || answer.status === 304 || answer.bytes === undefined) return last;
    if (answer.status === 404) return undefined;
    if (answer.status < 200 || answer.status > 299) return last;
    const hash = createHash('sha256').update(answer.bytes).digest('hex');
    if (hash === last?.hash) return last;
    let document: unknown;
    try {
      document = JSON.parse(answer.bytes.toString('utf8'));
    } catch {
      return last;
    }
    if (typeof document !== 'object' || document === null || Array.isArray(document)) return last;
    return { document: document as Raw, etag: answer.etag, hash };
  }

  /** A GET of the extension server as the aggregator (system:kube-aggregator), its JSON answer or upstream's words for why not. */
  async #get(target: AggregationTarget, path: string): Promise<{ body: unknown } | { error: string }> {
    const answer = await this.#request(target, path, { ...aggregatorHeaders, accept: 'application/json' });
    if ('error' in answer) return answer;
    if (answer.status < 200 || answer.status > 299) return { error: `failing or missing response from ${answer.url}: bad status from ${answer.url}: ${answer.status}` };
    try {
      return { body: answer.bytes === undefined ? undefined : JSON.parse(answer.bytes.toString('utf8')) };
    } catch {
      return { body: undefined };
    }
  }

  /**
   * A GET of the extension server within the check's client timeout: its status, ETag and
   * bytes (undefined when the body did not all come), or why there was no answer in the
   * words of Go's HTTP client (`Get "<url>": <error>`).
   */
  #request(target: AggregationTarget, path: string, headers: Record<string, string>): Promise<ExtensionAnswer | { error: string }> {
    const url = `${target.origin}${path}`;
    const address = new URL(target.origin).host;
    return new Promise((resolve) => {
      let timedOut = false;
      let settled = false;
      const settle = (value: ExtensionAnswer | { error: string }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      };
      const req = process.getBuiltinModule('node:https').get(url, { agent: target.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        const etag = res.headers.etag;
        const answered = (bytes: Buffer | undefined) => settle({
          url, status: res.statusCode ?? 0, etag: typeof etag === 'string' && etag !== '' ? etag : undefined, contentType: res.headers['content-type'], bytes,
        });
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => answered(Buffer.concat(chunks)));
        res.on('error', () => answered(undefined));
        res.on('close', () => answered(res.complete ? Buffer.concat(chunks) : undefined));
      });
      // The whole exchange has the client's 5 s, as http.Client's Timeout.
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy();
      }, checkTimeoutMs);
      req.on('error', (err) => {
        const why = timedOut ? 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)' : goDialError(err as NodeJS.ErrnoException, address, target.serverName);
        settle({ error: `failing or missing response from ${url}: Get "${url}": ${why}` });
      });
    });
  }

  async #sync(name: string): Promise<{ requeueAfterMs: number } | void> {
    const apiService = this.#apiServices.store.get(name);
    const before = [...this.#entries.values()].find((e) => e.name === name);
    const spec = (apiService?.spec ?? {}) as Raw;
    const service = spec.service as Raw | null | undefined;
    if (apiService === undefined || service === undefined || service === null) {
      if (before !== undefined) {
        this.#entries.delete(`${before.group}/${before.version}`);
        this.#opts.onChange();
      }
      return;
    }
    const namespace = text(service.namespace);
    const serviceName = text(service.name);
    const entry: Entry = {
      name, group: text(spec.group), version: text(spec.version), available: false,
      groupPriorityMinimum: typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0,
      versionPriority: typeof spec.versionPriority === 'number' ? spec.versionPriority : 0,
    };
    const resolved = this.#resolve(namespace, serviceName, typeof service.port === 'number' ? service.port : 443);
    const serverName = `${serviceName}.${namespace}.svc`;
    const caBundle = typeof spec.caBundle === 'string' && spec.caBundle !== '' ? Buffer.from(spec.caBundle, 'base64') : undefined;
    const caError = caBundle === undefined ? undefined : caBundleError(caBundle);
    let condition: { status: 'True' | 'False'; reason: string; message: string } | undefined;
    if ('reason' in resolved) {
      condition = { status: 'False', ...resolved };
    } else if (caError !== undefined) {
      // client-go builds no transport: upstream's sync fails before its check and leaves the
      // condition as it was, and its proxy answers the error while that says Available.
      const stored = ((((apiService as Raw).status as Raw | undefined)?.conditions ?? []) as Raw[]).find((c) => c.type === 'Available');
      entry.available = stored?.status === 'True';
      entry.target = {
        origin: resolved.origin, agent: this.#agentFor(undefined, false, serverName), serverName,
        transportError: `unable to load root certificates: ${caError}`,
      };
    } else {
      entry.target = {
        origin: resolved.origin, agent: this.#agentFor(caBundle?.toString('utf8'), spec.insecureSkipTLSVerify === true, serverName), serverName,
      };
      const checked = await this.#check(entry.target, entry.group, entry.version);
      if ('error' in checked) condition = { status: 'False', reason: 'FailedDiscoveryCheck', message: checked.error };
      else {
        condition = { status: 'True', reason: 'Passed', message: 'all checks passed' };
        entry.available = true;
        // The discovery manager's freshness is its own: Current once it read the server, whatever the server said.
        const discovery = await this.#aggregatedDiscovery(entry.target, entry.group, entry.version);
        if (discovery === 'legacy') entry.resources = checked.resources;
        else if (discovery !== 'stale') {
          entry.resources = checked.resources;
          entry.discovery = { ...discovery.entry, freshness: 'Current' };
        }
        // Its OpenAPI document is listed in /openapi/v3 when it serves one (not a condition of availability).
        const openapi = await this.#openapiPath(entry.target, entry.group, entry.version);
        if (openapi !== undefined) entry.openapi = openapi;
      }
    }
    // Its OpenAPI v2 document goes into /openapi/v2; the last one downloaded stays while it cannot be had.
    const lastV2 = before !== undefined && before.group === entry.group && before.version === entry.version ? before.openapiV2 : undefined;
    const openapiV2 = entry.available && entry.target !== undefined && entry.target.transportError === undefined ? await this.#openapiV2(entry.target, lastV2) : lastV2;
    if (openapiV2 !== undefined) entry.openapiV2 = openapiV2;
    // The entry in use is replaced once checked: a recheck leaves the proxy routing meanwhile.
    if (before !== undefined) this.#entries.delete(`${before.group}/${before.version}`);
    this.#entries.set(`${entry.group}/${entry.version}`, entry);
    if (
      before === undefined || before.available !== entry.available || before.openapi !== entry.openapi || before.openapiV2 !== entry.openapiV2 ||
      JSON.stringify(before.resources) !== JSON.stringify(entry.resources) || JSON.stringify(before.discovery) !== JSON.stringify(entry.discovery)
    ) this.#opts.onChange();
    if (condition !== undefined) await this.#writeCondition(apiService, condition);
    if (caError !== undefined || condition?.reason === 'FailedDiscoveryCheck') throw new CheckFailed();
    return { requeueAfterMs: this.#opts.recheckMs ?? 30_000 };
  }

  /** The Available condition, written when it changed (its transition time only when its status did). */
  async #writeCondition(apiService: KubeObject, condition: { status: string; reason: string; message: string }): Promise<void> {
    const conditions = (((apiService as Raw).status as Raw | undefined)?.conditions ?? []) as Raw[];
    const current = conditions.find((c) => c.type === 'Available');
    if (current !== undefined && current.status === condition.status && current.reason === condition.reason && current.message === condition.message) return;
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const available = {
      type: 'Available', status: condition.status,
      lastTransitionTime: current !== undefined && current.status === condition.status ? current.lastTransitionTime : now,
      reason: condition.reason, message: condition.message,
    };
    try {
      await this.#opts.apiServices.guaranteedUpdate('', apiService.metadata.name!, undefined, {}, (stored) => {
        if (stored === undefined || stored.metadata.uid !== apiService.metadata.uid) throw new Gone();
        const others = ((((stored as Raw).status as Raw | undefined)?.conditions ?? []) as Raw[]).filter((c) => c.type !== 'Available');
        return { ...stored, status: { ...((stored as Raw).status as Raw | undefined), conditions: [...others, available] } } as KubeObject;
      }, { subresource: 'status' });
    } catch (err) {
      if (err instanceof Gone || (isStatusError(err) && err.code === 404)) return;
      throw err;
    }
  }
}

class Gone extends Error {}

/** A discovery check failed (or no transport could be built): retried after the key's backoff, said in the condition rather than the log. */
class CheckFailed extends Error {}

function isObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The resources of an APIResourceList as upstream's discovery manager decodes and converts
 * one: undefined for what is not JSON, another kind, fields of the wrong types, or a
 * subresource whose scope is not its resource's (ConvertGroupVersionIntoToDiscovery's error).
 */
function apiResources(bytes: Buffer): Raw[] | undefined {
  let list: unknown;
  try {
    list = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(list) || (list.kind !== undefined && list.kind !== '' && list.kind !== 'APIResourceList')) return undefined;
  const resources = list.resources ?? [];
  if (!Array.isArray(resources) || !resources.every(isObject)) return undefined;
  const optional = (r: Raw, field: string, type: 'string' | 'boolean') => r[field] === undefined || r[field] === null || typeof r[field] === type;
  const strings = (r: Raw, field: string) => r[field] === undefined || r[field] === null || (Array.isArray(r[field]) && (r[field] as unknown[]).every((v) => typeof v === 'string'));
  const wellTyped = (r: Raw) => ['name', 'singularName', 'group', 'version', 'kind', 'storageVersionHash'].every((f) => optional(r, f, 'string')) && optional(r, 'namespaced', 'boolean') &&
    ['verbs', 'shortNames', 'categories'].every((f) => strings(r, f));
  if (!resources.every(wellTyped)) return undefined;
  const scopes = new Map(resources.filter((r) => !String(r.name ?? '').includes('/')).map((r) => [String(r.name ?? ''), r.namespaced === true]));
  for (const r of resources) {
    const [parent, sub] = String(r.name ?? '').split('/', 2);
    if (sub === undefined) continue;
    if (!scopes.has(parent!)) scopes.set(parent!, r.namespaced === true);
    else if (scopes.get(parent!) !== (r.namespaced === true)) return undefined;
  }
  return resources;
}

/**
 * Why client-go cannot make a root pool of a caBundle (rootCertPool, createErrorParsingCAData):
 * undefined when a PEM CERTIFICATE block in it parses, as crypto/x509's AppendCertsFromPEM
 * takes it.
 */
function caBundleError(bundle: Buffer): string | undefined {
  const text = bundle.toString('latin1');
  const block = /(?<=^|\n)-----BEGIN ([^\n]*?)-----[ \t\r]*\n([\s\S]*?)(?:^|\n)-----END \1-----[ \t\r]*(?:\n|$)/g;
  const blocks: { type: string; headers: boolean; der: Buffer | undefined; end: number }[] = [];
  for (let match = block.exec(text); match !== null; match = block.exec(text)) {
    const lines = match[2]!.split('\n');
    const headers = lines.length > 0 && lines[0]!.includes(':');
    const body = lines.slice(headers ? lines.findIndex((l) => l.trim() === '') + 1 : 0).join('').replace(/\s/g, '');
    blocks.push({ type: match[1]!, headers, der: /^[A-Za-z0-9+/]*={0,2}$/.test(body) && body.length % 4 === 0 ? Buffer.from(body, 'base64') : undefined, end: block.lastIndex });
  }
  const parses = (der: Buffer) => {
    try {
      new X509Certificate(der);
      return true;
    } catch {
      return false;
    }
  };
  if (blocks.some((b) => b.type === 'CERTIFICATE' && !b.headers && b.der !== undefined && parses(b.der))) return undefined;
  // In Go's order: a block that does not decode is skipped as text; what is left after the last one does not decode.
  let consumed = 0;
  for (const b of blocks) {
    if (b.der === undefined) continue;
    consumed = b.end;
    if (b.type !== 'CERTIFICATE' || b.headers) continue;
    return 'failed to parse certificate: x509: malformed certificate';
  }
  return consumed < text.length || blocks.length === 0 ? 'unable to parse bytes as PEM block' : 'no valid certificate authority data seen';
}
