// matchPolicy Equivalent, as upstream's webhooks and admission policies apply it: rules that
// do not name the request's resource may name another resource stored with it (another
// version, or another group's name for the same objects); the webhook or policy then sees
// the request as that resource serves it, objects converted, and a mutation made there is
// converted back to the request's version.

import type { KubeObject } from '../api/index.ts';
import type { AdmissionAttributes } from './chain.ts';

/** A resource by group, version and plural name. */
export interface ResourceRef {
  group: string;
  version: string;
  resource: string;
}

/** A resource stored with the request's, and the kind it serves. */
export interface EquivalentResource extends ResourceRef {
  kind: string;
}

/** What the server knows of equivalent resources, for matchPolicy Equivalent. */
export interface Equivalents {
  /** The resources stored with the request's, its own included. */
  equivalents(attrs: AdmissionAttributes): EquivalentResource[];
  /** An object of one resource as an equivalent one serves it (a new object). */
  convert(obj: KubeObject, from: ResourceRef, to: ResourceRef): Promise<KubeObject>;
}

/**
 * The first resource stored with the request's that a rule matches, rule by rule (upstream
 * tries every equivalent against the first rule before the second); undefined when none.
 */
export function equivalentMatch<R>(rules: R[], attrs: AdmissionAttributes, source: Equivalents, matches: (rule: R, attrs: AdmissionAttributes) => boolean): EquivalentResource | undefined {
  const others = source.equivalents(attrs).filter((e) => e.group !== attrs.group || e.version !== attrs.version || e.resource !== attrs.resource);
  if (others.length === 0) return undefined;
  for (const rule of rules) {
    for (const equivalent of others) {
      if (matches(rule, { ...attrs, group: equivalent.group, version: equivalent.version, resource: equivalent.resource })) return equivalent;
    }
  }
  return undefined;
}

/**
 * The request's attributes as the equivalent resource serves them: its group, version,
 * resource and kind, the objects converted (a subresource with a kind of its own, such as a
 * Scale, is the same in every version), and the request's own kept for the review.
 */
export async function versionedAttributes(request: AdmissionAttributes, to: EquivalentResource, source: Equivalents): Promise<AdmissionAttributes> {
  const from: ResourceRef = { group: request.group, version: request.version, resource: request.resource };
  const ownKind = request.kindGroupVersion !== undefined;
  const convert = (obj: KubeObject | undefined) => (obj === undefined || ownKind ? obj : source.convert(obj, from, to));
  const [object, oldObject] = await Promise.all([convert(request.object), convert(request.oldObject)]);
  const { group, version, resource, kind, kindGroupVersion } = request;
  return {
    ...request,
    group: to.group,
    version: to.version,
    resource: to.resource,
    kind: ownKind ? kind : to.kind,
    object,
    oldObject,
    requestedAs: { group, version, resource, kind, ...(kindGroupVersion !== undefined ? { kindGroupVersion } : {}) },
  };
}

/** A mutation made to the object as another version serves it: the request's object becomes it, converted back. */
export async function takeMutation(sent: AdmissionAttributes, request: AdmissionAttributes, source: Equivalents): Promise<void> {
  const target = request.object!;
  const changed = request.kindGroupVersion !== undefined
    ? sent.object!
    : await source.convert(sent.object!, { group: sent.group, version: sent.version, resource: sent.resource }, { group: request.group, version: request.version, resource: request.resource });
  if (changed !== target) {
    for (const key of Object.keys(target)) delete (target as Record<string, unknown>)[key];
    Object.assign(target, changed);
  }
  request.mutated = true;
}
