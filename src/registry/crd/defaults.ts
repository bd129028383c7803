// Defaults of a v1 CustomResourceDefinition (apiextensions-apiserver
// pkg/apis/apiextensions/v1/defaults.go), and the shape a CRD takes after a round trip
// through upstream's Go types: zero values of `omitempty` fields disappear, those of
// plain fields appear.

import { isObject } from '../../api/json.ts';
import type { CustomResourceDefinition, CustomResourceDefinitionNames } from './types.ts';

type Raw = Record<string, unknown>;

/** SetDefaults_CustomResourceDefinition(Spec) and the conversion's. */
export function setCustomResourceDefinitionDefaults(crd: CustomResourceDefinition): void {
  if (!isObject(crd.spec)) crd.spec = {};
  const spec = crd.spec;
  if (!isObject(spec.names)) spec.names = {};
  const names = spec.names as CustomResourceDefinitionNames;
  const kind = typeof names.kind === 'string' ? names.kind : '';
  if (typeof names.singular !== 'string' || names.singular === '') {
    if (kind !== '') names.singular = kind.toLowerCase();
  }
  if ((typeof names.listKind !== 'string' || names.listKind === '') && kind !== '') names.listKind = `${kind}List`;
  if (!isObject(spec.conversion)) spec.conversion = { strategy: 'None' };
  const conversion = spec.conversion as Raw;
  const webhook = isObject(conversion.webhook) ? conversion.webhook : undefined;
  const service = isObject(webhook?.clientConfig) && isObject((webhook.clientConfig as Raw).service) ? (webhook.clientConfig as Raw).service as Raw : undefined;
  if (service !== undefined && (service.port === undefined || service.port === null)) service.port = 443;
  if (Array.isArray(spec.versions)) {
    for (const version of spec.versions) {
      if (!isObject(version)) continue;
      // Plain bools in Go: always present.
      if (typeof version.served !== 'boolean') version.served = false;
      if (typeof version.storage !== 'boolean') version.storage = false;
      if (isObject(version.schema) && isObject(version.schema.openAPIV3Schema)) normalizeSchema(version.schema.openAPIV3Schema);
    }
  }
}

/** Keywords of JSONSchemaProps that Go omits when false or empty. */
const omitEmpty = new Set([
  'id', '$schema', '$ref', 'description', 'type', 'format', 'title', 'pattern', 'exclusiveMaximum', 'exclusiveMinimum',
  'uniqueItems', 'nullable', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'required', 'enum',
  'allOf', 'oneOf', 'anyOf', 'properties', 'patternProperties', 'definitions', 'dependencies', 'x-kubernetes-list-map-keys',
  'x-kubernetes-validations',
]);

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/** A schema as upstream stores it after decoding into JSONSchemaProps and encoding again. */
export function normalizeSchema(schema: Raw): void {
  for (const [field, value] of Object.entries(schema)) {
    if (omitEmpty.has(field) && isEmpty(value)) {
      delete schema[field];
      continue;
    }
    // A JSON null leaves Go's pointer unset.
    if (value === null) delete schema[field];
  }
  for (const field of ['items', 'not', 'additionalProperties', 'additionalItems']) {
    if (isObject(schema[field])) normalizeSchema(schema[field] as Raw);
  }
  for (const field of ['allOf', 'oneOf', 'anyOf']) {
    const list = schema[field];
    if (Array.isArray(list)) for (const branch of list) if (isObject(branch)) normalizeSchema(branch);
  }
  for (const field of ['properties', 'patternProperties', 'definitions']) {
    const map = schema[field];
    if (isObject(map)) for (const sub of Object.values(map)) if (isObject(sub)) normalizeSchema(sub);
  }
}

/** The storage version's name, or undefined when none is marked. */
function storageVersionOf(crd: CustomResourceDefinition): string | undefined {
  const versions = Array.isArray(crd.spec?.versions) ? crd.spec.versions : [];
  const storage = versions.find((v) => isObject(v) && v.storage === true);
  return typeof storage?.name === 'string' ? storage.name : undefined;
}

/** status.storedVersions gains the storage version (upstream's strategy keeps every version ever stored). */
export function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = storageVersionOf(crd);
  if (storage === undefined) return;
  if (!isObject(crd.status)) crd.status = {};
  const stored = Array.isArray(crd.status.storedVersions) ? crd.status.storedVersions : [];
  if (!stored.includes(storage)) crd.status.storedVersions = [...stored, storage];
}
