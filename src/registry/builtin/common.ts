// What the built-in types share.

import type { KubeObject } from '../../api/index.ts';
import type { Strategy, Verb } from '../resource-type.ts';
import { semanticEqual } from './object.ts';
import { clone, isObject } from '../../api/json.ts';
import { rfc3339Seconds } from '../../api/time.ts';

/** The verbs of a full read-write resource, in discovery's order. */
export const allVerbs: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** A metav1.Time as upstream serialises it: RFC 3339 in UTC, whole seconds. */
export function nowTimestamp(): string {
  return rfc3339Seconds();
}

/** Keep the stored status: writes through the main resource do not change it. */
export function keepOldStatus(obj: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete obj.status;
  else obj.status = clone(old.status);
}

/** Keep the stored spec: writes through the status subresource do not change it. */
export function keepOldSpec(obj: KubeObject, old: KubeObject): void {
  if (old.spec === undefined) delete obj.spec;
  else obj.spec = clone(old.spec);
}

/**
 * What a write through a status-like subresource keeps of the stored metadata beyond what
 * the store keeps (metav1.ResetObjectMetaForStatus): labels, annotations, finalizers and
 * owner references.
 */
export function keepOldMetadata(obj: KubeObject, old: KubeObject): void {
  for (const field of ['labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
    if (old.metadata[field] === undefined) delete obj.metadata[field];
    else (obj.metadata as Record<string, unknown>)[field] = clone(old.metadata[field]);
  }
}

/** The immutable flag of a ConfigMap or Secret. */
export function isImmutable(obj: KubeObject): boolean {
  return (obj as { immutable?: unknown }).immutable === true;
}

export function labelsOf(obj: unknown): Record<string, string> {
  if (!isObject(obj)) return {};
  const meta = obj.metadata;
  if (!isObject(meta) || !isObject(meta.labels)) return {};
  return meta.labels as Record<string, string>;
}

/**
 * The strategy most built-in types with a status subresource share (upstream's
 * PrepareForCreate/PrepareForUpdate of ReplicaSets, Jobs, Ingresses...): a create starts
 * with an empty status and generation 1; a write through the main resource keeps the
 * stored status and bumps the generation when the spec changed; a write through status
 * keeps the stored spec. `also` adds the type's own defaulting and validation.
 */
export function specStatusStrategy(also: Strategy = {}): Strategy {
  return {
    ...also,
    prepareForCreate(obj) {
      obj.status = {};
      obj.metadata.generation = 1;
      also.prepareForCreate?.(obj);
    },
    prepareForUpdate(obj, old) {
      keepOldStatus(obj, old);
      // The type's own preparation (defaults) comes first: only a real spec change counts.
      also.prepareForUpdate?.(obj, old);
      const generation = old.metadata.generation ?? 0;
      obj.metadata.generation = semanticEqual(obj.spec, old.spec) ? generation : generation + 1;
    },
    subresources: {
      status: {
        prepareForUpdate(obj, old) {
          keepOldSpec(obj, old);
        },
      },
      ...also.subresources,
    },
  };
}

/**
 * A type without status whose spec still counts generations (upstream's strategies for
 * PriorityLevel-like configuration objects): generation 1 on create, bumped when anything
 * but metadata changed.
 */
export function generationStrategy(also: Strategy = {}): Strategy {
  return {
    ...also,
    prepareForCreate(obj) {
      obj.metadata.generation = 1;
      also.prepareForCreate?.(obj);
    },
    prepareForUpdate(obj, old) {
      // The type's own preparation (defaults) comes first: only a real change counts.
      also.prepareForUpdate?.(obj, old);
      const { metadata: _m, ...rest } = obj;
      const { metadata: _o, ...oldRest } = old;
      const generation = old.metadata.generation ?? 0;
      obj.metadata.generation = semanticEqual(rest, oldRest) ? generation : generation + 1;
    },
  };
}
