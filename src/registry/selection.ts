// Field-selector support of a ResourceType: the fields an object exposes and the keys a
// selector may use (upstream's GetAttrs and field label conversion).

import type { KubeObject } from '../api/index.ts';
import { convertFieldSelector } from '../api/fields.ts';
import type { FieldSelector } from '../api/fields.ts';
import type { ResourceType } from './resource-type.ts';

/**
 * The selectable fields of an object: metadata.name, metadata.namespace for namespaced
 * types (upstream's ObjectMetaFieldsSet), and the type's own.
 */
export function objectFieldSet(rt: ResourceType, obj: KubeObject): Record<string, string> {
  const fields = metadataFieldSet(rt, obj);
  if (rt.strategy.selectableFields) Object.assign(fields, rt.strategy.selectableFields(obj));
  return fields;
}

/** The selectable fields every type has: metadata.name, and metadata.namespace for namespaced types. */
export function metadataFieldSet(rt: ResourceType, obj: KubeObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata?.name ?? '' };
  if (rt.namespaced) fields['metadata.namespace'] = obj.metadata?.namespace ?? '';
  return fields;
}

/**
 * The selector as the type selects with it (renamed labels replaced); throws 400
 * BadRequest for a term on a field the type cannot select on, worded like upstream.
 */
export function checkFieldSelector(rt: ResourceType, selector: FieldSelector): FieldSelector {
  return convertFieldSelector(selector, rt.strategy.fieldLabels, rt.strategy.fieldLabelConversion);
}
