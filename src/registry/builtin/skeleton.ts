// The part of a built-in ResourceType that upstream's data gives (generated/resources.ts),
// and the one way to turn it into a ResourceType with the hand-written rest.

import type { ResourceType, Verb } from '../resource-type.ts';
import { upstreamResources } from './generated/resources.ts';

/** One served resource as upstream's discovery describes it, with the schema it is served with. */
export interface ResourceSkeleton {
  group: string;
  version: string;
  resource: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** Each subresource with its kind (group and version when another group's) and verbs. */
  subresources: { name: string; group?: string; version?: string; kind: string; verbs: string[] }[];
  schemaName?: string;
}

/** Upstream's skeleton of group/version/resource; throws when upstream serves no such resource. */
export function skeletonOf(group: string, version: string, resource: string): ResourceSkeleton {
  const found = upstreamResources.find((s) => s.group === group && s.version === version && s.resource === resource);
  if (found === undefined) throw new Error(`upstream serves no ${group}/${version}/${resource}`);
  return found;
}

/**
 * The subresources the generic handlers serve for any type that lists them; a type
 * serving another (pods/binding, certificatesigningrequests/approval) names it in `parts`.
 */
const genericSubresources = new Set(['status', 'scale']);

/**
 * The built-in kinds v1.36 serves deprecated, with the release that deprecated them and
 * their replacement (upstream's prerelease-lifecycle markers), by `group/version/resource`.
 */
const deprecatedKinds: Record<string, { since: string; replacement?: string }> = {
  '/v1/componentstatuses': { since: '1.19' },
  '/v1/endpoints': { since: '1.33', replacement: 'discovery.k8s.io/v1 EndpointSlice' },
};

/** Upstream's deprecation.WarningMessage for a deprecated built-in kind. */
function deprecationWarning(s: ResourceSkeleton): string | undefined {
  const deprecated = deprecatedKinds[`${s.group}/${s.version}/${s.resource}`];
  if (deprecated === undefined) return undefined;
  const groupVersion = s.group === '' ? s.version : `${s.group}/${s.version}`;
  const replacement = deprecated.replacement === undefined ? '' : `; use ${deprecated.replacement}`;
  return `${groupVersion} ${s.kind} is deprecated in v${deprecated.since}+${replacement}`;
}

/** What a built-in type adds to its skeleton: everything no data holds. */
export type BuiltinParts = Partial<Omit<ResourceType, 'group' | 'version' | 'resource' | 'singular' | 'kind' | 'listKind' | 'namespaced' | 'shortNames' | 'categories'>>;

/**
 * A built-in ResourceType: names, scope, verbs, short names, categories, subresources and
 * schema from upstream's data; the rest from `parts`, with upstream's common defaults
 * (no create on update, unconditional updates allowed, a Success Status on delete,
 * DNS-1123 subdomain names).
 */
export function builtinType(group: string, version: string, resource: string, parts: BuiltinParts = {}): ResourceType {
  const s = skeletonOf(group, version, resource);
  if (s.schemaName === undefined && parts.schemaName === undefined) throw new Error(`no schema for ${group}/${version}/${resource}`);
  const deprecation = deprecationWarning(s);
  return {
    group: s.group,
    version: s.version,
    resource: s.resource,
    singular: s.singular,
    kind: s.kind,
    listKind: `${s.kind}List`,
    namespaced: s.namespaced,
    shortNames: [...s.shortNames],
    categories: [...s.categories],
    verbs: [...s.verbs] as Verb[],
    subresources: s.subresources.map((sub) => sub.name).filter((name) => genericSubresources.has(name)),
    subresourceDiscovery: Object.fromEntries(s.subresources.map(({ name, ...info }) => [name, info])),
    schemaName: s.schemaName!,
    strategy: {},
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    deleteReturnsObject: false,
    nameRule: 'dns1123-subdomain',
    ...(deprecation === undefined ? {} : { deprecationWarning: deprecation }),
    ...parts,
  };
}

/**
 * A built-in type whose behaviour loads on first use: until `load()` has run it is the
 * skeleton with upstream's common defaults and `eager` (what discovery and routing read
 * before any request: served subresources); `load` imports the module and fills in the
 * rest. Start-up then does not load the modules of types no request has used yet.
 */
export function lazyBuiltinType(group: string, version: string, resource: string, load: () => Promise<ResourceType>, eager: BuiltinParts = {}): ResourceType {
  const type = builtinType(group, version, resource, eager);
  let loading: Promise<void> | undefined;
  type.load = () => loading ??= load().then((full) => {
    if (full.group !== group || full.version !== version || full.resource !== resource) throw new Error(`${group}/${version}/${resource} loaded as ${full.group}/${full.version}/${full.resource}`);
    Object.assign(type, full);
    delete type.load;
  });
  return type;
}
