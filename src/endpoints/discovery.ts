// Discovery: /api, /apis, per group and version, and aggregated discovery.
import { createHash } from 'node:crypto';
import { apiVersionOf } from '../api/index.ts';
import { parseAccept } from '../encoding/media-type.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { notAcceptable } from '../api/index.ts';

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
  body: string;
  contentType: string;
  etag: string;
}

function document(value: unknown, contentType: string): DiscoveryDocument {
  const body = JSON.stringify(value);
  const etag = `"${createHash('sha512').update(body).digest('hex').slice(0, 64).toUpperCase()}"`;
  return { body, contentType, etag };
}

const aggregatedVersions = ['v2', 'v2beta1'] as const;
type AggregatedVersion = (typeof aggregatedVersions)[number];

/**
 * Which discovery form the client asked for: an aggregated APIGroupDiscoveryList
 * (v2 for kubectl 1.30+, v2beta1 before) or the legacy JSON documents. Entries are
 * taken in the client's order of preference, as upstream does.
 */
export function negotiateDiscovery(accept: string | undefined): AggregatedVersion | 'legacy' {
  for (const m of parseAccept(accept)) {
    if (m.q <= 0) continue;
    const essence = `${m.type}/${m.subtype}`;
    if (essence === 'application/json' && m.params.as === 'APIGroupDiscoveryList' && m.params.g === 'apidiscovery.k8s.io') {
      const v = m.params.v as AggregatedVersion;
      if (aggregatedVersions.includes(v)) return v;
      continue;
    }
    if (m.params.as !== undefined) continue;
    if (essence === 'application/json' || essence === '*/*') return 'legacy';
  }
  throw notAcceptable('only the following media types are accepted: application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
}

/** Discovery documents built from the served resources; rebuilt when they change. */
export class Discovery {
  private readonly registry: ResourceRegistry;
  private readonly serverAddress: () => string;
  private cache = new Map<string, DiscoveryDocument>();

  constructor(registry: ResourceRegistry, serverAddress: () => string) {
    this.registry = registry;
    this.serverAddress = serverAddress;
    registry.onChange(() => {
      this.cache = new Map();
    });
  }

  /** The document for a discovery path (`/api`, `/apis`, `/apis/{g}`, `/api/v1`, `/apis/{g}/{v}`), or undefined. */
  serve(parts: string[], form: AggregatedVersion | 'legacy'): DiscoveryDocument | undefined {
    const key = `${parts.join('/')}|${form}`;
    let doc = this.cache.get(key);
    if (doc === undefined) {
      doc = this.build(parts, form);
      if (doc !== undefined) this.cache.set(key, doc);
    }
    return doc;
  }

  private build(parts: string[], form: AggregatedVersion | 'legacy'): DiscoveryDocument | undefined {
    const groups = this.groups();
    const core = groups.find((g) => g.group === '');
    const named = groups.filter((g) => g.group !== '');
    const [root, a, b] = parts;
    if (parts.length === 1 && (root === 'api' || root === 'apis') && form !== 'legacy') {
      return this.aggregated(root === 'api' ? (core ? [core] : []) : named, form);
    }
    if (parts.length === 1 && root === 'api') {
      return document({
        kind: 'APIVersions',
        versions: core ? [...core.versions.keys()] : [],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: this.serverAddress() }],
      }, 'application/json');
    }
    if (parts.length === 1 && root === 'apis') {
      return document({ kind: 'APIGroupList', apiVersion: 'v1', groups: named.map(apiGroup) }, 'application/json');
    }
    if (parts.length === 2 && root === 'apis') {
      const group = named.find((g) => g.group === a);
      return group ? document({ kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group) }, 'application/json') : undefined;
    }
    const groupName = root === 'api' && parts.length === 2 ? '' : root === 'apis' && parts.length === 3 ? a : undefined;
    const version = root === 'api' ? a : b;
    if (groupName === undefined || version === undefined) return undefined;
    const types = groups.find((g) => g.group === groupName)?.versions.get(version);
    if (types === undefined) return undefined;
    return document({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: apiVersionOf(groupName, version),
      resources: types.flatMap(apiResources),
    }, 'application/json');
  }

  private groups(): GroupVersions[] {
    const byGroup = new Map<string, GroupVersions>();
    for (const { type } of this.registry.all()) {
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

  private aggregated(groups: GroupVersions[], version: AggregatedVersion): DiscoveryDocument {
    const items = groups.map((g) => ({
      metadata: g.group === '' ? { creationTimestamp: null } : { name: g.group, creationTimestamp: null },
      versions: [...g.versions.entries()].map(([v, types]) => ({
        version: v,
        resources: types.map((t) => aggregatedResource(t)),
        freshness: 'Current',
      })),
    }));
    const contentType = `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
    return document({ kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items }, contentType);
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

function apiGroup(g: GroupVersions) {
  const versions = [...g.versions.keys()].map((v) => ({ groupVersion: apiVersionOf(g.group, v), version: v }));
  return { name: g.group, versions, preferredVersion: versions[0] };
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
