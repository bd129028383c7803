// Label and field selectors applied to objects.
import { matchFields, type FieldSelector } from '../api/fields.ts';
import { matchLabels, type LabelSelector } from '../api/labels.ts';
import type { KubeObject } from '../api/index.ts';
import type { ResourceType } from './resource-type.ts';
import { objectFieldSet } from './selection.ts';

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
