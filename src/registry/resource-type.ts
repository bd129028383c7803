import type { KubeObject, StatusCause } from '../api/index.ts';

/** The per-type behaviour the generic Store calls (upstream's "strategy"). */
export interface Strategy {
  /** Set defaults and clear what a client may not set on create (e.g. status where upstream drops it). */
  prepareForCreate?(obj: KubeObject): void;
  /** Same for update; `old` is the stored object. Bump generation here when the spec changed. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Field errors of a new object (names are checked by the Store with `validateName`). */
  validate?(obj: KubeObject): StatusCause[];
  /** Field errors of an update (immutability rules and the like). */
  validateUpdate?(obj: KubeObject, old: KubeObject): StatusCause[];
  /**
   * Field-selector values of an object, beyond metadata.name and metadata.namespace
   * which every type has (upstream's selectable fields / GetAttrs).
   */
  selectableFields?(obj: KubeObject): Record<string, string>;
}

/**
 * Side effects a type needs around storage writes (Service ClusterIP and NodePort
 * allocation). Called only for real writes, never on dry run.
 */
export interface Allocator {
  /** Reserve what the object asks for or needs; fill in what was allocated. Throws a StatusError (422) when taken. */
  allocate(obj: KubeObject): void;
  /** Adjust reservations for an update; throws like allocate. */
  reallocate(obj: KubeObject, old: KubeObject): void;
  /** Release what the object holds (after delete, or when a write failed). */
  release(obj: KubeObject): void;
  /** Rebuild state from stored objects at startup. */
  restore(objects: KubeObject[]): void;
}

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** One served resource. A CRD becomes one at run time. */
export interface ResourceType {
  group: string;
  version: string;
  /** Plural, lower-case: "configmaps". */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: Verb[];
  /** Subresources served, such as "status" and "scale". */
  subresources: string[];
  /** Name of this type's schema among the definitions ("io.k8s.api.core.v1.ConfigMap"). */
  schemaName: string;
  strategy: Strategy;
  allocator?: Allocator;
  /** PUT of a missing object creates it (upstream: true for most custom resources and some built-ins). */
  allowCreateOnUpdate: boolean;
  /** DELETE answers the deleted object instead of a Success Status (upstream: pods and a few others). */
  deleteReturnsObject: boolean;
  /** Name rule: "dns1123-subdomain" (most types), "dns1123-label" (namespaces, services), or "path-segment". */
  nameRule: 'dns1123-subdomain' | 'dns1123-label' | 'path-segment';
}
