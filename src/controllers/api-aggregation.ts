// The aggregation layer's controller, after kube-aggregator's: each APIService that names a
// service is resolved to a ready endpoint of that service (its EndpointSlices, as
// `--enable-aggregator-routing` resolves: Plinth has no service network; an ExternalName
// service to its name at the APIService's port) and checked by a
// discovery request over the front-proxy client certificate; its Available condition says
// how that went, with upstream's reasons and words. The proxy routes its group and version
// to the endpoint while it is available, and discovery lists the resources it answered.
import { createHash } from 'node:crypto';
import type https from 'node:https';
import { isStatusError, type KubeObject } from '../api/index.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer } from './runtime/index.ts';

type Raw = Record<string, unknown>;

/** Where an aggregated group and version is answered: a ready endpoint of its service, and the TLS agent to reach it with. */
export interface AggregationTarget {
  origin: string;
  agent: https.Agent;
  /** How long a proxied request that is not a watch may wait for an answer. */
  timeoutMs: number;
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
  /** `--request-timeout`: how long a proxied request that is not a watch may wait (default 60 s). */
  requestTimeoutMs?: number;
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

const checkTimeoutMs = 5000;
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
    this.#controller = new Controller({
      name: 'apiservice-availability', informers: [this.#apiServices, this.#services, this.#slices], reconcile: (name) => this.#sync(name), log: opts.log,
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
    if (slices.length === 0) return { reason: 'EndpointsNotFound', message: `cannot find endpoints for service/${name} in ${JSON.stringify(namespace)}` };
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
    return { reason: 'MissingEndpoints', message: `endpoints for service/${name} in ${JSON.stringify(namespace)} have no addresses with port name ${JSON.stringify(portName)}` };
  }

  /** Where the extension server lists the group and version's OpenAPI v3 document (its /openapi/v3 index), if it does. */
  async #openapiPath(target: AggregationTarget, group: string, version: string): Promise<string | undefined> {
    const index = await this.#get(target, '/openapi/v3');
    const entry = ('body' in index ? (index.body as { paths?: Record<string, { serverRelativeURL?: unknown }> }).paths : undefined)?.[`apis/${group}/${version}`];
    return typeof entry?.serverRelativeURL === 'string' ? entry.serverRelativeURL : undefined;
  }

  /** GET of the group and version's discovery document from the extension server. */
  async #check(target: AggregationTarget, group: string, version: string): Promise<{ resources: Raw[] } | { error: string }> {
    const answer = await this.#get(target, `/apis/${group}/${version}`);
    if ('error' in answer) return { error: answer.error };
    const resources = (answer.body as { resources?: unknown } | undefined)?.resources;
    return { resources: Array.isArray(resources) ? (resources as Raw[]) : [] };
  }

  /**
   * The extension server's own aggregated discovery entry for the group and version, as
   * kube-aggregator's discovery manager asks `/apis` for it (v2, else v2beta1); undefined
   * when it answers the legacy form or nothing for this group and version (its legacy
   * APIResourceList is converted then).
   */
  async #aggregatedDiscovery(target: AggregationTarget, group: string, version: string): Promise<Raw | undefined> {
    const answer = await this.#request(target, '/apis', { ...aggregatorHeaders, accept: aggregatedDiscoveryAccept });
    if ('error' in answer || answer.status !== 200) return undefined;
    const contentType = String(answer.contentType ?? '');
    if (!/;\s*g=apidiscovery\.k8s\.io/.test(contentType) || !/as=APIGroupDiscoveryList/.test(contentType)) return undefined;
    let list: unknown;
    try {
      list = JSON.parse(answer.bytes.toString('utf8'));
    } catch {
      return undefined;
    }
    const items = (list as { items?: unknown } | null)?.items;
    if (!Array.isArray(items)) return undefined;
    const item = items.find((i: Raw) => ((i?.metadata ?? {}) as Raw).name === group) as Raw | undefined;
    const versions = item?.versions;
    if (!Array.isArray(versions)) return undefined;
    const found = versions.find((v: Raw) => v?.version === version) as Raw | undefined;
    return found !== undefined && typeof found === 'object' ? found : undefined;
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
    if ('error' in answer || answer.status === 304) return last;
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
      return { body: JSON.parse(answer.bytes.toString('utf8')) };
    } catch {
      return { body: undefined };
    }
  }

  /** A GET of the extension server: its status, ETag and bytes, or why there are none in upstream's words. */
  #request(target: AggregationTarget, path: string, headers: Record<string, string>): Promise<{ url: string; status: number; etag: string | undefined; contentType: string | undefined; bytes: Buffer } | { error: string }> {
    const url = `${target.origin}${path}`;
    return new Promise((resolve) => {
      const req = process.getBuiltinModule('node:https').get(url, { agent: target.agent, timeout: checkTimeoutMs, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const etag = res.headers.etag;
          resolve({ url, status: res.statusCode ?? 0, etag: typeof etag === 'string' && etag !== '' ? etag : undefined, contentType: res.headers['content-type'], bytes: Buffer.concat(chunks) });
        });
        res.on('error', (err) => resolve({ error: `failing or missing response from ${url}: ${err.message}` }));
      });
      req.on('timeout', () => req.destroy(new Error(`Get "${url}": context deadline exceeded`)));
      req.on('error', (err) => resolve({ error: `failing or missing response from ${url}: ${err.message}` }));
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
    let condition: { status: 'True' | 'False'; reason: string; message: string };
    if ('reason' in resolved) {
      condition = { status: 'False', ...resolved };
    } else {
      const caPem = typeof spec.caBundle === 'string' && spec.caBundle !== '' ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : undefined;
      entry.target = {
        origin: resolved.origin, agent: this.#agentFor(caPem, spec.insecureSkipTLSVerify === true, `${serviceName}.${namespace}.svc`), timeoutMs: this.#opts.requestTimeoutMs ?? 60_000,
      };
      const checked = await this.#check(entry.target, entry.group, entry.version);
      if ('error' in checked) condition = { status: 'False', reason: 'FailedDiscoveryCheck', message: checked.error };
      else {
        condition = { status: 'True', reason: 'Passed', message: 'all checks passed' };
        entry.available = true;
        entry.resources = checked.resources;
        const discovery = await this.#aggregatedDiscovery(entry.target, entry.group, entry.version);
        if (discovery !== undefined) entry.discovery = discovery;
        // Its OpenAPI document is listed in /openapi/v3 when it serves one (not a condition of availability).
        const openapi = await this.#openapiPath(entry.target, entry.group, entry.version);
        if (openapi !== undefined) entry.openapi = openapi;
      }
    }
    // Its OpenAPI v2 document goes into /openapi/v2; the last one downloaded stays while it cannot be had.
    const lastV2 = before !== undefined && before.group === entry.group && before.version === entry.version ? before.openapiV2 : undefined;
    const openapiV2 = entry.available && entry.target !== undefined ? await this.#openapiV2(entry.target, lastV2) : lastV2;
    if (openapiV2 !== undefined) entry.openapiV2 = openapiV2;
    // The entry in use is replaced once checked: a recheck leaves the proxy routing meanwhile.
    if (before !== undefined) this.#entries.delete(`${before.group}/${before.version}`);
    this.#entries.set(`${entry.group}/${entry.version}`, entry);
    if (
      before === undefined || before.available !== entry.available || before.openapi !== entry.openapi || before.openapiV2 !== entry.openapiV2 ||
      JSON.stringify(before.resources) !== JSON.stringify(entry.resources) || JSON.stringify(before.discovery) !== JSON.stringify(entry.discovery)
    ) this.#opts.onChange();
    await this.#writeCondition(apiService, condition);
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
