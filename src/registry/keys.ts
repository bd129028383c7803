// Storage keys of objects, by DESIGN.md's storage contract.
import type { ResourceType } from './resource-type.ts';

type Keyed = Pick<ResourceType, 'group' | 'resource'> & { storage?: Pick<NonNullable<ResourceType['storage']>, 'group' | 'resource'> };

/**
 * `/registry/{group}/{resource}/` (core group: `/registry/{resource}/`), as DESIGN.md's storage
 * contract, of the stored group and resource: a type stored in another version shares its keys.
 */
export function resourcePrefix(type: Keyed): string {
  const { group, resource } = type.storage ?? type;
  return group === '' ? `/registry/${resource}/` : `/registry/${group}/${resource}/`;
}

/** The prefix of one namespace's objects, or of all objects when namespace is empty. */
export function collectionPrefix(type: Keyed & Pick<ResourceType, 'namespaced'>, namespace: string): string {
  const base = resourcePrefix(type);
  return type.namespaced && namespace !== '' ? `${base}${namespace}/` : base;
}

export function objectKey(type: Keyed & Pick<ResourceType, 'namespaced'>, namespace: string, name: string): string {
  return type.namespaced ? `${resourcePrefix(type)}${namespace}/${name}` : `${resourcePrefix(type)}${name}`;
}
