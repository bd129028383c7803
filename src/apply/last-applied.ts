// Moving from client-side apply to server-side apply without conflicts, as upstream's
// lastAppliedManager and lastAppliedUpdater (k8s.io/apimachinery/pkg/util/managedfields/
// internal). Both act only for the manager "kubectl", the one `kubectl apply --server-side`
// uses; kubectl then hands the client-side-apply manager's fields to its own Apply entry
// with a JSON patch of metadata.managedFields (client-go util/csaupgrade), which
// updateManagedFields accepts like any write that sets managedFields.

import type { FieldSet } from './field-set.ts';
import { compare } from './compare.ts';
import { fieldsOf } from './fields-of.ts';
import { goString, compareStrings } from './field-path.ts';
import type { Topology } from './topology.ts';
import { isObject, type JsonObject } from '../api/json.ts';

export const lastAppliedAnnotation = 'kubectl.kubernetes.io/last-applied-configuration';

/** Upstream's TotalAnnotationSizeLimitB. */
const totalAnnotationSizeLimit = 256 * 1024;

/** The manager whose applies upgrade from client-side apply. */
export const upgradingManager = 'kubectl';

function annotationsOf(obj: unknown): JsonObject | undefined {
  if (!isObject(obj) || !isObject(obj.metadata)) return undefined;
  const annotations = obj.metadata.annotations;
  return isObject(annotations) ? annotations : undefined;
}

export function lastAppliedOf(obj: unknown): string | undefined {
  const value = annotationsOf(obj)?.[lastAppliedAnnotation];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The fields client-side apply last applied with the values the object still has: an
 * apply by "kubectl" may take these from other managers without a conflict. Undefined when
 * the object has no usable last-applied annotation for `apiVersion`.
 */
export function fieldsFromLastApplied(live: unknown, topology: Topology, apiVersion: string): FieldSet | undefined {
  const text = lastAppliedOf(live);
  if (text === undefined) return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied) || lastApplied.apiVersion !== apiVersion) return undefined;
  try {
    const set = fieldsOf(lastApplied, topology);
    const c = compare(lastApplied, live, topology);
    return set.difference(c.modified).difference(c.added).difference(c.removed);
  } catch {
    return undefined;
  }
}

/** The annotation's value for an applied configuration: its JSON without the annotation itself, as Go encodes it. */
export function lastAppliedValue(applied: JsonObject): string {
  let config = applied;
  const annotations = annotationsOf(applied);
  if (annotations !== undefined && lastAppliedAnnotation in annotations) {
    const { [lastAppliedAnnotation]: _, ...rest } = annotations;
    config = { ...applied, metadata: { ...(applied.metadata as JsonObject), annotations: rest } };
  }
  return encodeSorted(config) + '\n';
}

function encodeSorted(v: unknown): string {
  if (v === null || typeof v !== 'object') return typeof v === 'string' ? goString(v) : v === undefined ? 'null' : JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(encodeSorted).join(',') + ']';
  const obj = v as JsonObject;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort(compareStrings);
  return '{' + keys.map((k) => goString(k) + ':' + encodeSorted(obj[k])).join(',') + '}';
}

/**
 * Sets the annotation on `obj` (whose metadata it may replace, never mutate), dropping
 * it instead when the annotations would pass upstream's 256 KiB total.
 */
export function withLastApplied(obj: JsonObject, value: string): JsonObject {
  const metadata = isObject(obj.metadata) ? obj.metadata : {};
  const annotations: Record<string, unknown> = { ...(isObject(metadata.annotations) ? metadata.annotations : {}), [lastAppliedAnnotation]: value };
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  if (size > totalAnnotationSizeLimit) delete annotations[lastAppliedAnnotation];
  return { ...obj, metadata: { ...metadata, annotations } };
}
