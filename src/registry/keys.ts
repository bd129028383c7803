// Storage keys of objects, by DESIGN.md's storage contract.
import type { ResourceType } from './resource-type.ts';

/** `/registry/{group}/{resource}/` (core group: `/registry/{resource}/`), as DESIGN.md's storage contract. */
export function resourcePrefix(type: Pick<ResourceType, 'group' | 'resource'>): string {
  return type.group === '' ? `/registry/${type.resource}/` : `/registry/${type.group}/${type.resource}/`;
}

/** The prefix of one namespace's objects, or of all objects when namespace is empty. */
export function collectionPrefix(type: Pick<ResourceType, 'group' | 'resource' | 'namespaced'>, namespace: string): string {
  const base = resourcePrefix(type);
  return type.namespaced && namespace !== '' ? `${base}${namespace}/` : base;
}

export function objectKey(type: Pick<ResourceType, 'group' | 'resource' | 'namespaced'>, namespace: string, name: string): string {
  return type.namespaced ? `${resourcePrefix(type)}${namespace}/${name}` : `${resourcePrefix(type)}${name}`;
}
