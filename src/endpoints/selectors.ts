// Label and field selectors from the query, as a filter over a resource.
import { parseFieldSelector } from '../api/fields.ts';
import { parseLabelSelector } from '../api/labels.ts';
import type { ObjectFilter } from '../registry/filter.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { checkFieldSelector } from '../registry/selection.ts';

/** `labelSelector` and `fieldSelector` of a request; unparsable or unsupported → 400. */
export function filterFromQuery(query: URLSearchParams, type: ResourceType): ObjectFilter | undefined {
  const labelText = query.get('labelSelector') ?? '';
  const fieldText = query.get('fieldSelector') ?? '';
  if (labelText === '' && fieldText === '') return undefined;
  const filter: ObjectFilter = {};
  if (labelText !== '') filter.labels = parseLabelSelector(labelText);
  if (fieldText !== '') {
    filter.fields = checkFieldSelector(type, parseFieldSelector(fieldText));
  }
  return filter;
}
