// What the built-in types share.

import type { KubeObject } from '../../api/index.ts';
import type { Verb } from '../resource-type.ts';
import { clone, isObject } from '../../api/json.ts';

/** The verbs of a full read-write resource, in discovery's order. */
export const allVerbs: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** A metav1.Time as upstream serialises it: RFC 3339 in UTC, whole seconds. */
export function nowTimestamp(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
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
