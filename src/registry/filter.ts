// Label and field selectors applied to objects.
import { matchFields, type FieldSelector } from '../api/fields.ts';
import { matchLabels, type LabelSelector } from '../api/labels.ts';
import type { KubeObject } from '../api/index.ts';
import type { ResourceType } from './resource-type.ts';
import type { ObjectPredicate } from '../cache/index.ts';
import { metadataFieldSet, objectFieldSet } from './selection.ts';

/** Which objects a list, deletecollection or watch wants. */
export interface ObjectFilter {
  labels?: LabelSelector;
  fields?: FieldSelector;
}

export function objectMatches(obj: KubeObject, filter: ObjectFilter, type: ResourceType): boolean {
  if (filter.labels !== undefined && !matchLabels(filter.labels, obj.metadata.labels)) return false;
  if (filter.fields !== undefined && !matchFields(filter.fields, objectFieldSet(type, obj))) return false;
  return true;
}

/**
 * The filter as a cache predicate. One on labels, metadata.name and metadata.namespace
 * alone (an informer's usual selector) reads the object's metadata view, so the cache
 * need not decode every object to select a few.
 */
export function filterPredicate(filter: ObjectFilter, type: ResourceType): ObjectPredicate {
  const onMetadata = filter.fields === undefined || filter.fields.terms.every((term) => metadataFields.has(term.field));
  if (!onMetadata) return (obj: KubeObject) => objectMatches(obj, filter, type);
  const matches = (obj: KubeObject) => {
    if (filter.labels !== undefined && !matchLabels(filter.labels, obj.metadata.labels)) return false;
    return filter.fields === undefined || matchFields(filter.fields, metadataFieldSet(type, obj));
  };
  return Object.assign(matches, { onMetadata: true });
}

const metadataFields = new Set(['metadata.name', 'metadata.namespace']);
