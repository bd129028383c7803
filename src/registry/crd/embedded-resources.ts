// The objects a custom resource embeds (x-kubernetes-embedded-resource), checked as
// apiextensions-apiserver's schema/objectmeta validation checks them: a kind that reads
// as a DNS-1035 label in any case, an apiVersion that parses as a group/version, and
// metadata valid as ObjectMeta with path-segment names. That apiVersion and kind are
// there, strings and not empty the schema validation already says (schema/validate.ts).

import { invalid } from '../../api/field-errors.ts';
import { isObject } from '../../api/json.ts';
import type { KubeObject, StatusCause } from '../../api/index.ts';
import { isDNS1035Label } from '../validation/names.ts';
import { validateObjectMeta } from '../validation/object-meta.ts';

type Raw = Record<string, unknown>;

/** Whether a schema embeds a resource anywhere, so objects need the walk at all. */
export function embedsResources(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(embedsResources);
  if (!isObject(schema)) return false;
  if (schema['x-kubernetes-embedded-resource'] === true) return true;
  return Object.values(schema).some(embedsResources);
}

/** Upstream's schemaobjectmeta.Validate of a custom resource (its root left to the resource's own checks). */
export function embeddedResourceCauses(schema: Raw, obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  walk(schema, obj, '', causes);
  return causes;
}

function walk(schema: Raw, value: unknown, path: string, causes: StatusCause[]): void {
  if (Array.isArray(value)) {
    if (!isObject(schema.items)) return;
    for (let i = 0; i < value.length; i++) walk(schema.items, value[i], `${path}[${i}]`, causes);
    return;
  }
  if (!isObject(value)) return;
  if (path !== '' && schema['x-kubernetes-embedded-resource'] === true) checkEmbedded(value, path, causes);
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  for (const [key, item] of Object.entries(value)) {
    const property = properties !== undefined && Object.hasOwn(properties, key) ? properties[key] : undefined;
    // field.Path's Child and Key: `spec.template`, `spec.templates[name]`.
    if (isObject(property)) walk(property, item, path === '' ? key : `${path}.${key}`, causes);
    else if (additional !== undefined) walk(additional, item, `${path}[${key}]`, causes);
  }
}

function checkEmbedded(value: Raw, path: string, causes: StatusCause[]): void {
  const { apiVersion, kind, metadata } = value;
  // schema.ParseGroupVersion: "v1" and "group/v1" parse, more slashes do not.
  if (typeof apiVersion === 'string' && apiVersion !== '' && apiVersion !== '/' && apiVersion.split('/').length > 2) {
    causes.push(invalid(`${path}.apiVersion`, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  }
  if (typeof kind === 'string' && kind !== '') {
    const errors = isDNS1035Label(kind.toLowerCase());
    if (errors.length > 0) causes.push(invalid(`${path}.kind`, kind, `may have mixed case, but should otherwise match: ${errors.join(',')}`));
  }
  if (isObject(metadata)) {
    // A name is not required of an embedded object: upstream validates a stand-in.
    const meta: Raw = { ...metadata, name: typeof metadata.name === 'string' && metadata.name !== '' ? metadata.name : 'fakename' };
    const namespaced = typeof meta.namespace === 'string' && meta.namespace !== '';
    for (const cause of validateObjectMeta({ metadata: meta } as KubeObject, 'path-segment', namespaced)) {
      causes.push({ ...cause, field: `${path}.${cause.field}` });
    }
  }
}
