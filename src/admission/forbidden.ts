// Upstream's admission.NewForbidden: a plugin's refusal as a 403 naming the request's
// resource and the object's name (its generateName while it has none; "Unknown" without an
// object, as on a delete).
import { StatusError, type StatusCause } from '../api/index.ts';
import { goQuote } from '../api/field-errors.ts';
import type { AdmissionAttributes } from './chain.ts';

export function admissionForbidden(attrs: AdmissionAttributes, message: string, causes?: StatusCause[]): StatusError {
  const metadata = attrs.object?.metadata;
  const name = metadata === undefined ? 'Unknown' : metadata.name || metadata.generateName || 'Unknown';
  const qualified = attrs.group === '' ? attrs.resource : `${attrs.resource}.${attrs.group}`;
  return new StatusError(403, 'Forbidden', `${qualified} ${goQuote(name)} is forbidden: ${message}`, {
    name, ...(attrs.group === '' ? {} : { group: attrs.group }), kind: attrs.resource, ...(causes === undefined ? {} : { causes }),
  });
}
