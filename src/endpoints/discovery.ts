// Discovery: /api, /apis, per group and version, and aggregated discovery; in JSON, YAML,
// Protobuf or (with its gate) CBOR, as upstream's codecs serve them.
import { createHash } from 'node:crypto';
import { apiVersionOf, type KubeObject } from '../api/index.ts';
import { encodeCborObject } from '../encoding/cbor-objects.ts';
import { encodeYaml } from '../encoding/decode.ts';
import { parseAccept } from '../encoding/media-type.ts';
import { loadedProtobufCodec, loadProtobufCodec } from '../encoding/protobuf-loader.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { notAcceptable, notFoundAtChainEnd, notFoundPath, StatusError } from '../api/index.ts';

type SubresourceInfo = { group?: string; version?: string; kind?: string; verbs: string[] };

/** The subresources a custom resource may have; a built-in type's come with it (ResourceType.subresourceDiscovery). */
const customResourceSubresources: Record<string, SubresourceInfo> = {
  status: { verbs: ['get', 'patch', 'update'] },
  scale: { group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
};

function infoOf(t: ResourceType, sub: string): SubresourceInfo {
  return t.subresourceDiscovery?.[sub] ?? customResourceSubresources[sub] ?? { verbs: ['get'] };
}

interface GroupVersions {
  group: string;
  versions: Map<string, ResourceType[]>;
}

/** A rendered discovery answer: body, content type and its ETag. */
export interface DiscoveryDocument {
  body: string | Uint8Array;
  contentType: string;
  etag: string;
}

/** The media types discovery is served in, as upstream's codecs serve it: CBOR last, with its gate. */
const mediaTypes = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor'] as const;
type DiscoveryMediaType = (typeof mediaTypes)[number];

/**
 * A discovery answer in its media type (the Protobuf codec and the YAML library already
 * loaded: discoveryCodecs), `params` after it. Its ETag is the upper-case hex SHA-512 of
 * `etagValue`'s JSON whatever the encoding, as upstream's calculateETag (aggregated/etag.go).
 * `protobufValue`: what the Protobuf envelope names, when the JSON differs.
 */
function document(value: Record<string, unknown>, mediaType: DiscoveryMediaType, params = '', protobufValue = value, etagValue = value): DiscoveryDocument {
  const json = JSON.stringify(value);
  const etag = `"${createHash('sha512').update(etagValue === value ? json : JSON.stringify(etagValue)).digest('hex').toUpperCase()}"`;
  const body = mediaType === 'application/json' ? json
    : mediaType === 'application/yaml' ? encodeYaml(value)
      : mediaType === 'application/cbor' ? encodeCborObject(value as unknown as KubeObject)
        : loadedProtobufCodec()!.encodeProtobufObject(protobufValue as unknown as KubeObject);
  return { body, contentType: `${mediaType}${params}`, etag };
}

/**
 * The aggregated forms served: v2 only. v2beta1 is no longer served since
 * AggregatedDiscoveryRemoveBetaType was locked on (1.35): an Accept entry asking for it is
 * passed over like any conversion the legacy handler cannot make.
 */
const aggregatedVersions = ['v2'] as const;
type AggregatedVersion = (typeof aggregatedVersions)[number];

/** The form a client asked for: an aggregated APIGroupDiscoveryList or the legacy documents, and the media type. */
export interface DiscoveryForm {
  version: AggregatedVersion | 'legacy';
  mediaType: DiscoveryMediaType;
  /**
   * Nothing in the Accept header can be served. Which 406 that is depends on the path (and
   * a missing path is 404 first), so Discovery.serve answers it: the header and the media
   * types the server has.
   */
  refused?: { accept: string | undefined; served: DiscoveryMediaType[] };
}

/**
 * Which discovery form the client asked for: an aggregated APIGroupDiscoveryList (v2; only
 * `/api` and `/apis` have one, `aggregated`) or the legacy documents, each in JSON, YAML,
 * Protobuf or, with the CBORServingAndStorage gate, CBOR. Entries are taken in the
 * client's order of preference, as upstream does. Nothing acceptable: a `refused` form.
 */
export function negotiateDiscovery(accept: string | undefined, cbor = false, aggregated = true): DiscoveryForm {
  const served = (essence: string): essence is DiscoveryMediaType => (mediaTypes as readonly string[]).includes(essence) && (cbor || essence !== 'application/cbor');
  for (const m of parseAccept(accept)) {
    if (m.q <= 0) continue;
    const essence = `${m.type}/${m.subtype}`;
    const mediaType = served(essence) ? essence : undefined;
    if (m.params.as !== undefined) {
      const v = m.params.v as AggregatedVersion;
      if (aggregated && mediaType !== undefined && m.params.as === 'APIGroupDiscoveryList' && m.params.g === 'apidiscovery.k8s.io' && aggregatedVersions.includes(v)) return { version: v, mediaType };
      continue;
    }
    if (mediaType !== undefined) return { version: 'legacy', mediaType };
    if (essence === '*/*') return { version: 'legacy', mediaType: 'application/json' };
  }
  return { version: 'legacy', mediaType: 'application/json', refused: { accept, served: mediaTypes.filter(served) } };
}

/**
 * go-restful's route matching (jsr311.go matchesAccept), in front of the discovery
 * documents kube-apiserver serves as go-restful routes: an Accept entry, cut at `;` and
 * trimmed, must be one the route produces or `*\/*`; parameters and q are not looked at.
 */
function restfulAccepts(accept: string | undefined, produces: readonly string[]): boolean {
  const header = accept === undefined || accept === '' ? '*/*' : accept;
  return header.split(',').some((entry) => {
    const semicolon = entry.indexOf(';');
    const essence = (semicolon >= 0 ? entry.slice(0, semicolon) : entry).trim();
    return essence === '*/*' || produces.includes(essence);
  });
}


/** A group and version an extension API server answers (an APIService naming a service). */
export interface RemoteGroupVersion {
  group: string;
  version: string;
  groupPriorityMinimum: number;
  versionPriority: number;
  /** Its APIResourceList's resources, once the extension server answered. */
  resources?: Record<string, unknown>[];
  /** Its own aggregated discovery entry (an APIVersionDiscovery), when it serves aggregated discovery: listed as it gave it. */
  discovery?: Record<string, unknown>;
}

/** Discovery documents built from the served resources and the aggregated ones; rebuilt when they change. */
export class Discovery {
  private readonly registry: ResourceRegistry;
  private readonly serverAddress: () => string;
  private cache = new Map<string, DiscoveryDocument>();
  /** The aggregation layer's groups and versions. */
  remote: () => RemoteGroupVersion[] = () => [];

  constructor(registry: ResourceRegistry, serverAddress: () => string) {
    this.registry = registry;
    this.serverAddress = serverAddress;
    registry.onChange(() => this.invalidate());
  }

  /** Forgets the documents built (what they list changed). */
  invalidate(): void {
    this.cache = new Map();
  }

  /**
   * The document for a discovery path (`/api`, `/apis`, `/apis/{g}`, `/api/v1`, `/apis/{g}/{v}`),
   * or undefined for a path kube-apiserver answers with go-restful's 404; the form's codec
   * loaded (discoveryCodecs). Throws the 404 of a path that reaches the end of upstream's
   * delegation chain, and a refused form's 406.
   */
  serve(parts: string[], form: DiscoveryForm): DiscoveryDocument | undefined {
    if (form.refused !== undefined) return this.refuse(parts, form.refused);
    const key = `${parts.join('/')}|${form.version}|${form.mediaType}`;
    let doc = this.cache.get(key);
    if (doc === undefined) {
      doc = this.build(parts, form);
      if (doc === undefined) {
        if (this.route(parts) === 'handler') throw notFoundAtChainEnd();
        return undefined;
      }
      this.cache.set(key, doc);
    }
    return doc;
  }

  /**
   * Who answers a discovery path in kube-apiserver: a go-restful route (`/api`, `/api/{v}`,
   * and `/apis/{g}/{v}` of a group with built-in types, whose web service `/apis/{g}`
   * catches its unknown versions) or a plain handler (the aggregator's `/apis` and
   * `/apis/{g}`, apiextensions' custom resource versions; unknown groups end at the
   * notfoundhandler).
   */
  private route(parts: string[]): 'restful' | 'handler' {
    if (parts[0] === 'api') return 'restful';
    if (parts.length !== 3) return 'handler';
    const group = parts[1];
    return this.registry.served().some(({ type }) => type.group === group && type.customResource !== true) ? 'restful' : 'handler';
  }

  /**
   * A refused Accept header, as upstream answers it: 404 first for a path that does not
   * exist; go-restful's own 406 when no entry names a type the route produces; else the
   * handler's negotiation 406 listing the types it serves.
   */
  private refuse(parts: string[], refused: NonNullable<DiscoveryForm['refused']>): never {
    // A missing handler path throws its own 404 from serve; a go-restful one is its 404 with empty details.
    if (this.serve(parts, { version: 'legacy', mediaType: 'application/json' }) === undefined) throw notFoundPath();
    // `/api`'s route produces what the aggregated-discovery wrapper's own codecs serve: no CBOR.
    const produces = parts.length === 1 ? refused.served.filter((t) => t !== 'application/cbor') : refused.served;
    if (this.route(parts) === 'restful' && !restfulAccepts(refused.accept, produces)) {
      throw new StatusError(406, 'NotAcceptable', `406: Not Acceptable\n\nAvailable representations: ${produces.join(', ')}`, {});
    }
    throw notAcceptable(`only the following media types are accepted: ${refused.served.join(', ')}`);
  }

  private build(parts: string[], form: DiscoveryForm): DiscoveryDocument | undefined {
    const { mediaType } = form;
    const legacy = (value: Record<string, unknown>) => document(value, mediaType);
    const groups = this.groups();
    const core = groups.find((g) => g.group === '');
    const named = groups.filter((g) => g.group !== '');
    const [root, a, b] = parts;
    const remote = root === 'apis' ? this.remoteGroups(named) : [];
    if (parts.length === 1 && (root === 'api' || root === 'apis') && form.version !== 'legacy') {
      return this.aggregated(root === 'api' ? (core ? [core] : []) : named, form.version, mediaType, remote);
    }
    if (parts.length === 1 && root === 'api') {
      // Upstream's JSON names no apiVersion here; its Protobuf envelope says v1, as for the others.
      const versions = {
        kind: 'APIVersions',
        versions: core ? [...core.versions.keys()] : [],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress() }],
      };
      return document(versions, mediaType, '', { ...versions, apiVersion: 'v1' });
    }
    if (parts.length === 1 && root === 'apis') {
      return legacy({ kind: 'APIGroupList', apiVersion: 'v1', groups: [...named.map((g) => apiGroup(g, remote)), ...remote.filter((r) => !r.local).map(remoteApiGroup)] });
    }
    if (parts.length === 2 && root === 'apis') {
      const group = named.find((g) => g.group === a);
      if (group !== undefined) return legacy({ kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, remote) });
      const remoteGroup = remote.find((r) => r.group === a);
      return remoteGroup ? legacy({ kind: 'APIGroup', apiVersion: 'v1', ...remoteApiGroup(remoteGroup) }) : undefined;
    }
    const groupName = root === 'api' && parts.length === 2 ? '' : root === 'apis' && parts.length === 3 ? a : undefined;
    const version = root === 'api' ? a : b;
    if (groupName === undefined || version === undefined) return undefined;
    const types = groups.find((g) => g.group === groupName)?.versions.get(version);
    if (types === undefined) return undefined;
    return legacy({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: apiVersionOf(groupName, version),
      resources: types.flatMap(apiResources),
    });
  }

  private groups(): GroupVersions[] {
    const byGroup = new Map<string, GroupVersions>();
    for (const { type } of this.registry.served()) {
      let entry = byGroup.get(type.group);
      if (entry === undefined) {
        entry = { group: type.group, versions: new Map() };
        byGroup.set(type.group, entry);
      }
      const list = entry.versions.get(type.version) ?? [];
      list.push(type);
      entry.versions.set(type.version, list);
    }
    return [...byGroup.values()];
  }

  /** The aggregated groups, each with its versions by priority; `local` when the group is served here too. */
  private remoteGroups(named: GroupVersions[]): RemoteGroup[] {
    const byGroup = new Map<string, RemoteGroup>();
    for (const r of this.remote()) {
      let group = byGroup.get(r.group);
      if (group === undefined) byGroup.set(r.group, (group = { group: r.group, local: named.some((g) => g.group === r.group), priority: r.groupPriorityMinimum, versions: [] }));
      group.priority = Math.max(group.priority, r.groupPriorityMinimum);
      group.versions.push(r);
    }
    for (const group of byGroup.values()) group.versions.sort((x, y) => y.versionPriority - x.versionPriority || compareKubeVersions(x.version, y.version));
    return [...byGroup.values()].sort((x, y) => y.priority - x.priority || (x.group < y.group ? -1 : x.group > y.group ? 1 : 0));
  }

  private aggregated(groups: GroupVersions[], version: AggregatedVersion, mediaType: DiscoveryMediaType, remote: RemoteGroup[] = []): DiscoveryDocument {
    // An extension server not (yet) read is listed Stale with no resources, as kube-aggregator's
    // discovery manager adds it; resources are omitempty there, so an empty list is left out.
    const remoteVersions = (r: RemoteGroup | undefined) => (r?.versions ?? []).map((v) => {
      if (v.discovery !== undefined) return ownDiscovery(v.version, v.discovery);
      const resources = v.resources === undefined ? [] : aggregatedRemoteResources(v.resources);
      return { version: v.version, ...(resources.length > 0 ? { resources } : {}), freshness: v.resources === undefined ? 'Stale' : 'Current' };
    });
    const items = [
      ...groups.map((g) => ({
        metadata: g.group === '' ? { creationTimestamp: null } : { name: g.group, creationTimestamp: null },
        versions: [
          ...[...g.versions.entries()].map(([v, types]) => ({
            version: v,
            resources: types.map((t) => aggregatedResource(t)),
            freshness: 'Current',
          })),
          ...remoteVersions(remote.find((r) => r.local && r.group === g.group)),
        ],
      })),
      ...remote.filter((r) => !r.local).map((r) => ({ metadata: { name: r.group, creationTimestamp: null }, versions: remoteVersions(r) })),
    ];
    const list = { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
    // Upstream hashes the list it keeps, whose TypeMeta is empty (handler.go fetchFromCache).
    return document(list, mediaType, `;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`, list, { metadata: {}, items });
  }
}

/**
 * Upstream's storageVersionHash: the first 8 bytes of the SHA-256 of "group/version/kind",
 * in padded standard base64. Clients (the storage version migrator) compare it across
 * answers, so it must be the same string kube-apiserver gives.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

interface RemoteGroup {
  group: string;
  /** The group is also served here (an APIService adds a version to it). */
  local: boolean;
  priority: number;
  versions: RemoteGroupVersion[];
}

function apiGroup(g: GroupVersions, remote: RemoteGroup[] = []) {
  const added = remote.find((r) => r.local && r.group === g.group)?.versions.map((v) => v.version) ?? [];
  const versions = [...g.versions.keys(), ...added].map((v) => ({ groupVersion: apiVersionOf(g.group, v), version: v }));
  return { name: g.group, versions, preferredVersion: versions[0] };
}

function remoteApiGroup(r: RemoteGroup) {
  const versions = r.versions.map((v) => ({ groupVersion: `${r.group}/${v.version}`, version: v.version }));
  return { name: r.group, versions, preferredVersion: versions[0] };
}

/** Kubernetes' version order: GA above beta above alpha, then by numbers (v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > others). */
function compareKubeVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (m === null) return undefined;
    return [m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
  };
  const x = rank(a);
  const y = rank(b);
  if (x === undefined || y === undefined) return x !== undefined ? -1 : y !== undefined ? 1 : a < b ? -1 : a > b ? 1 : 0;
  return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
}

/**
 * An extension server's own entry for a group version, as kube-aggregator lists it after
 * reading it into its Go types: the fields those have, in their order; a missing
 * responseKind (of a resource or subresource) an empty one, as upstream fills them for
 * older clients; freshness when it gave one.
 */
function ownDiscovery(version: string, entry: Record<string, unknown>): Record<string, unknown> {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : null);
  const gvk = (v: unknown) => {
    const k = (v ?? {}) as Record<string, unknown>;
    return { group: text(k.group), version: text(k.version), kind: text(k.kind) };
  };
  const resources = (Array.isArray(entry.resources) ? entry.resources : []).map((raw: unknown) => {
    const r = (raw ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {
      resource: text(r.resource), responseKind: gvk(r.responseKind), scope: text(r.scope), singularResource: text(r.singularResource), verbs: strings(r.verbs),
    };
    if ((strings(r.shortNames) ?? []).length > 0) out.shortNames = strings(r.shortNames);
    if ((strings(r.categories) ?? []).length > 0) out.categories = strings(r.categories);
    if (Array.isArray(r.subresources) && r.subresources.length > 0) {
      out.subresources = r.subresources.map((rawSub: unknown) => {
        const sub = (rawSub ?? {}) as Record<string, unknown>;
        const subOut: Record<string, unknown> = { subresource: text(sub.subresource), responseKind: gvk(sub.responseKind) };
        if (Array.isArray(sub.acceptedTypes) && sub.acceptedTypes.length > 0) subOut.acceptedTypes = sub.acceptedTypes.map(gvk);
        subOut.verbs = strings(sub.verbs);
        return subOut;
      });
    }
    return out;
  });
  const out: Record<string, unknown> = { version };
  if (resources.length > 0) out.resources = resources;
  if (typeof entry.freshness === 'string' && entry.freshness !== '') out.freshness = entry.freshness;
  return out;
}

/** An extension server's APIResourceList resources in aggregated discovery's form. */
function aggregatedRemoteResources(resources: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const main = resources.filter((r) => !str(r.name).includes('/')).map((r) => {
    const entry: Record<string, unknown> = {
      resource: str(r.name), responseKind: { group: str(r.group), version: str(r.version), kind: str(r.kind) },
      scope: r.namespaced === true ? 'Namespaced' : 'Cluster', singularResource: str(r.singularName), verbs: list(r.verbs),
    };
    if (list(r.shortNames).length > 0) entry.shortNames = list(r.shortNames);
    if (list(r.categories).length > 0) entry.categories = list(r.categories);
    const subresources = resources.filter((s) => str(s.name).startsWith(`${str(r.name)}/`)).map((s) => ({
      subresource: str(s.name).slice(str(r.name).length + 1), responseKind: { group: str(s.group), version: str(s.version), kind: str(s.kind) }, verbs: list(s.verbs),
    }));
    if (subresources.length > 0) entry.subresources = subresources;
    return entry;
  });
  return main;
}

function apiResources(t: ResourceType) {
  const main: Record<string, unknown> = {
    name: t.resource,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: [...t.verbs].sort(),
  };
  if (t.shortNames.length > 0) main.shortNames = t.shortNames;
  if (t.categories.length > 0) main.categories = t.categories;
  const stored = t.storageVersion === undefined ? (t.storage ?? t) : t.storageVersion;
  if (stored !== null) main.storageVersionHash = storageVersionHash(stored.group, stored.version, stored.kind);
  const subs = t.subresources.map((sub) => {
    const info = infoOf(t, sub);
    const entry: Record<string, unknown> = { name: `${t.resource}/${sub}`, singularName: '', namespaced: t.namespaced };
    if (info.group !== undefined) entry.group = info.group;
    if (info.version !== undefined) entry.version = info.version;
    entry.kind = info.kind ?? t.kind;
    entry.verbs = info.verbs;
    return entry;
  });
  return [main, ...subs];
}

function aggregatedResource(t: ResourceType) {
  // kube-apiserver leaves a built-in kind's group and version empty where they are the
  // resource's own; apiextensions names them for custom resources.
  const own = t.customResource === true ? { group: t.group, version: t.version } : { group: '', version: '' };
  const entry: Record<string, unknown> = {
    resource: t.resource,
    responseKind: { ...own, kind: t.kind },
    scope: t.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: t.singular,
    verbs: [...t.verbs].sort(),
  };
  if (t.shortNames.length > 0) entry.shortNames = t.shortNames;
  if (t.categories.length > 0) entry.categories = t.categories;
  if (t.subresources.length > 0) {
    entry.subresources = t.subresources.map((sub) => {
      const info = infoOf(t, sub);
      return {
        subresource: sub,
        responseKind: { group: info.group ?? own.group, version: info.version ?? own.version, kind: info.kind ?? t.kind },
        verbs: info.verbs,
      };
    });
  }
  return entry;
}

/** Loads what a form's encoding needs before serve() builds it: the Protobuf codec (YAML is written without a library). */
export async function discoveryCodecs(form: DiscoveryForm): Promise<void> {
  if (form.mediaType === 'application/vnd.kubernetes.protobuf') await loadProtobufCodec();
}
