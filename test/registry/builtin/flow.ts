// The Store's use of a ResourceType, reduced to what these tests need: prepare, then
// collect the causes a 422 would carry (metadata first, then the type's own).

import type { KubeObject, StatusCause } from '../../../src/api/index.ts';
import { builtinResourceTypes } from '../../../src/registry/builtin/index.ts';
import type { ResourceType } from '../../../src/registry/resource-type.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../../src/registry/validation/index.ts';

export function builtinType(resource: string, opts: Parameters<typeof builtinResourceTypes>[0] = {}): ResourceType {
  const rt = builtinResourceTypes(opts).find((t) => t.resource === resource);
  if (rt === undefined) throw new Error(`no built-in type ${resource}`);
  return rt;
}

/** prepareForCreate on a copy, and the causes of validating it. */
export function create(rt: ResourceType, input: KubeObject): { obj: KubeObject; causes: StatusCause[] } {
  const obj = structuredClone(input);
  rt.strategy.prepareForCreate?.(obj);
  const causes = [...validateObjectMeta(obj, rt.nameRule, rt.namespaced), ...(rt.strategy.validate?.(obj) ?? [])];
  return { obj, causes };
}

/** prepareForUpdate on a copy (with the stored uid and generation, as the Store keeps them), and the causes. */
export function update(rt: ResourceType, input: KubeObject, old: KubeObject): { obj: KubeObject; causes: StatusCause[] } {
  const obj = structuredClone(input);
  obj.metadata.uid ??= old.metadata.uid;
  obj.metadata.creationTimestamp ??= old.metadata.creationTimestamp;
  if (old.metadata.generation !== undefined) obj.metadata.generation = old.metadata.generation;
  else delete obj.metadata.generation;
  rt.strategy.prepareForUpdate?.(obj, old);
  const causes = [
    ...validateObjectMetaUpdate(obj, old),
    ...(rt.strategy.validate?.(obj) ?? []),
    ...(rt.strategy.validateUpdate?.(obj, old) ?? []),
  ];
  return { obj, causes };
}

/** A write through a subresource ("status", "finalize"). */
export function updateSubresource(rt: ResourceType, sub: string, input: KubeObject, old: KubeObject): { obj: KubeObject; causes: StatusCause[] } {
  const strategy = rt.strategy.subresources?.[sub];
  if (strategy === undefined) throw new Error(`${rt.resource} has no ${sub} strategy`);
  const obj = structuredClone(input);
  strategy.prepareForUpdate?.(obj, old);
  return { obj, causes: [...validateObjectMetaUpdate(obj, old), ...(strategy.validateUpdate?.(obj, old) ?? [])] };
}

/** The fields of causes, for compact assertions. */
export function fields(causes: StatusCause[]): string[] {
  return causes.map((c) => `${c.field}: ${c.message}`);
}
