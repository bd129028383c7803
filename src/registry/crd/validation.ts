// Validation of a CustomResourceDefinition, after apiextensions-apiserver's
// pkg/apis/apiextensions/validation/validation.go as it checks a v1 object. Upstream
// validates the internal version, into which v1 converts by moving a schema,
// subresources or printer columns shared by every version to the top level
// (`spec.validation`, `spec.subresources`, `spec.additionalPrinterColumns`); error paths
// follow that, as kubectl users see them ("spec.validation.openAPIV3Schema...").
// Metadata (name syntax, labels, ...) is checked by the Store; here only the rule that
// the name is `<plural>.<group>`.

import { cel } from '../../cel/lazy.ts';
import { hasValidationRules } from '../../cel/rules-present.ts';
import {
  appendAll,
  child, duplicate, fieldImmutable, forbidden, goUnstructured, index, invalid, key, notSupported, required, tooLong, tooMany,
} from '../../api/field-errors.ts';
import type { StatusCause } from '../../api/index.ts';
import { isDNS1123Subdomain } from '../../api/labels.ts';
import { prune } from '../../schema/prune.ts';
import { unsupportedStructuralField, validateStructural } from '../../schema/structural.ts';
import type { Schema } from '../../schema/types.ts';
import { validate } from '../../schema/validate.ts';
import { clone, isObject } from '../../api/json.ts';
import { semanticEqual } from '../builtin/object.ts';
import { isDNS1035Label } from '../validation/names.ts';
import { validateReviewVersionList, validateWebhookService, validateWebhookURL } from '../validation/webhook-client.ts';
import { goVersions, type InternalLayout } from './internal-json.ts';
import { openApiSchemaChecks, statusRootChecks } from './openapi-checks.ts';
import {
  isConditionTrue, type CustomResourceColumnDefinition, type CustomResourceDefinition, type CustomResourceDefinitionNames,
  type CustomResourceDefinitionVersion, type CustomResourceSubresources,
} from './types.ts';

type Raw = Record<string, unknown>;

const printerColumnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const printerColumnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** Annotation that protected groups (`*.k8s.io`, `*.kubernetes.io`) need, see kubernetes/enhancements#1111. */
const apiApprovalAnnotation = 'api-approved.kubernetes.io';

/** Upper bound of selectableFields per version, as upstream. */
const maxSelectableFields = 8;

function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function listOf<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

function objectOf<T extends object>(v: unknown): T {
  return (isObject(v) ? v : {}) as T;
}

function sharedByAll(versions: CustomResourceDefinitionVersion[], get: (v: CustomResourceDefinitionVersion) => unknown): boolean {
  if (versions.length === 0) return false;
  const first = get(versions[0]!);
  return versions.every((v) => semanticEqual(get(v), first));
}

function layoutOf(versions: CustomResourceDefinitionVersion[]): InternalLayout {
  return {
    schemaShared: sharedByAll(versions, (v) => v.schema),
    subresourcesShared: sharedByAll(versions, (v) => v.subresources),
    columnsShared: sharedByAll(versions, (v) => v.additionalPrinterColumns),
  };
}

/** Versions as objects, whatever the client sent. */
function versionsOf(crd: CustomResourceDefinition): CustomResourceDefinitionVersion[] {
  return listOf<unknown>(crd.spec?.versions).map((v) => objectOf<CustomResourceDefinitionVersion>(v));
}

function hasStatus(subresources: CustomResourceSubresources | undefined): boolean {
  return isObject(subresources) && isObject(subresources.status);
}

/**
 * Errors of a new CRD (upstream's ValidateCustomResourceDefinition, for a v1 request).
 * Assumes field types were checked against the CRD's own schema first.
 */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = objectOf<NonNullable<CustomResourceDefinition['spec']>>(crd.spec);
  const names = objectOf<CustomResourceDefinitionNames>(spec.names);
  const name = crd.metadata.name ?? '';
  if (name !== '' && isDNS1123Subdomain(name).length === 0 && name !== `${stringOf(names.plural)}.${stringOf(spec.group)}`) {
    causes.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  appendAll(causes, validateApiApproval(crd, undefined));
  appendAll(causes, validateSpec(crd));
  appendAll(causes, validateStatus(crd));
  appendAll(causes, validateStoredVersions(crd));
  if (spec.preserveUnknownFields === true) {
    causes.push(invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in openAPIV3Schema instead'));
  }
  return causes;
}

/**
 * Errors only an update can have (upstream's ValidateCustomResourceDefinitionUpdate adds
 * these to the checks of a new CRD, which the Store runs on updates too).
 */
export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = objectOf<NonNullable<CustomResourceDefinition['spec']>>(crd.spec);
  const oldSpec = objectOf<NonNullable<CustomResourceDefinition['spec']>>(old.spec);
  const names = objectOf<CustomResourceDefinitionNames>(spec.names);
  const oldNames = objectOf<CustomResourceDefinitionNames>(oldSpec.names);
  // Scope and kind decide storage and clients' view: fixed once the CRD is established.
  if (isConditionTrue(old, 'Established')) {
    if (stringOf(spec.scope) !== stringOf(oldSpec.scope)) causes.push(invalid('spec.scope', stringOf(spec.scope), fieldImmutable));
    if (stringOf(names.kind) !== stringOf(oldNames.kind)) causes.push(invalid('spec.names.kind', stringOf(names.kind), fieldImmutable));
  }
  // They are the resource's name, which never changes.
  if (stringOf(spec.group) !== stringOf(oldSpec.group)) causes.push(invalid('spec.group', stringOf(spec.group), fieldImmutable));
  if (stringOf(names.plural) !== stringOf(oldNames.plural)) causes.push(invalid('spec.names.plural', stringOf(names.plural), fieldImmutable));
  return causes;
}

/** Errors of a write through /status (upstream's ValidateUpdateCustomResourceDefinitionStatus). */
export function validateCustomResourceDefinitionStatus(crd: CustomResourceDefinition): StatusCause[] {
  return validateStatus(crd);
}

function validateSpec(crd: CustomResourceDefinition): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = objectOf<NonNullable<CustomResourceDefinition['spec']>>(crd.spec);
  const group = stringOf(spec.group);
  if (group === '') causes.push(required('spec.group'));
  else {
    const errs = isDNS1123Subdomain(group);
    if (errs.length > 0) causes.push(invalid('spec.group', group, errs.join(',')));
    else if (group.split('.').length < 2) causes.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  }

  const scope = stringOf(spec.scope);
  if (scope === '') causes.push(required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') causes.push(notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));

  const versions = versionsOf(crd);
  const layout = layoutOf(versions);
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((version, i) => {
    const path = index('spec.versions', i);
    if (version.storage === true) storageCount++;
    const versionName = stringOf(version.name);
    if (seen.has(versionName)) unique = false;
    seen.add(versionName);
    const errs = isDNS1035Label(versionName);
    if (errs.length > 0) causes.push(invalid(child(path, 'name'), versionName, errs.join(',')));
    appendAll(causes, validateVersion(version, path, layout));
  });
  if (!unique) causes.push(invalid('spec.versions', goVersions(versions, layout), 'must contain unique version names'));
  if (storageCount !== 1) causes.push(invalid('spec.versions', goVersions(versions, layout), 'must have exactly one version marked as storage version'));

  const names = objectOf<CustomResourceDefinitionNames>(spec.names);
  if (stringOf(names.plural) === '') causes.push(required('spec.names.plural'));
  if (stringOf(names.singular) === '') causes.push(required('spec.names.singular'));
  if (stringOf(names.kind) === '') causes.push(required('spec.names.kind'));
  if (stringOf(names.listKind) === '') causes.push(required('spec.names.listKind'));
  appendAll(causes, validateNames(names, 'spec.names'));

  // What the versions share, at the top level.
  const first = versions[0];
  if (first !== undefined) {
    if (layout.schemaShared) appendAll(causes, validateSchema(first.schema, hasStatus(first.subresources) || versions.some((v) => hasStatus(v.subresources)), 'spec.validation'));
    if (layout.subresourcesShared) appendAll(causes, validateSubresources(first.subresources, 'spec.subresources'));
    if (layout.columnsShared) {
      listOf<unknown>(first.additionalPrinterColumns).forEach((col, j) => {
        appendAll(causes, validateColumn(objectOf<CustomResourceColumnDefinition>(col), index('spec.additionalPrinterColumns', j)));
      });
    }
  }

  appendAll(causes, validateConversion(spec.conversion));

  // v1 requires a schema for every version.
  const sharedSchema = layout.schemaShared && first !== undefined ? first.schema : undefined;
  if (!(isObject(sharedSchema) && isObject(sharedSchema.openAPIV3Schema))) {
    versions.forEach((version, i) => {
      if (!(isObject(version.schema) && isObject(version.schema.openAPIV3Schema))) {
        causes.push(required(`${index('spec.versions', i)}.schema.openAPIV3Schema`, 'schemas are required'));
      }
    });
  }
  return causes;
}

function validateVersion(version: CustomResourceDefinitionVersion, path: string, layout: InternalLayout): StatusCause[] {
  const causes: StatusCause[] = [];
  const warning = version.deprecationWarning;
  if (typeof warning === 'string' && warning.length > 256) causes.push(tooLong(child(path, 'deprecationWarning'), 256));
  if (!layout.schemaShared) appendAll(causes, validateSchema(version.schema, hasStatus(version.subresources), child(path, 'schema')));
  if (!layout.subresourcesShared) appendAll(causes, validateSubresources(version.subresources, child(path, 'subresources')));
  if (!layout.columnsShared) {
    listOf<unknown>(version.additionalPrinterColumns).forEach((col, j) => {
      appendAll(causes, validateColumn(objectOf<CustomResourceColumnDefinition>(col), index(child(path, 'additionalPrinterColumns'), j)));
    });
  }
  appendAll(causes, validateSelectableFields(version, child(path, 'selectableFields')));
  return causes;
}

/** Upstream's ValidateCustomResourceDefinitionNames (for spec.names and status.acceptedNames). */
function validateNames(names: CustomResourceDefinitionNames, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const plural = stringOf(names.plural);
  const singular = stringOf(names.singular);
  const kind = stringOf(names.kind);
  const listKind = stringOf(names.listKind);
  const label = (value: string) => isDNS1035Label(value).join(',');
  if (plural !== '' && label(plural) !== '') causes.push(invalid(child(path, 'plural'), plural, label(plural)));
  if (singular !== '' && label(singular) !== '') causes.push(invalid(child(path, 'singular'), singular, label(singular)));
  if (kind !== '' && label(kind.toLowerCase()) !== '') {
    causes.push(invalid(child(path, 'kind'), kind, `may have mixed case, but should otherwise match: ${label(kind.toLowerCase())}`));
  }
  if (listKind !== '' && label(listKind.toLowerCase()) !== '') {
    causes.push(invalid(child(path, 'listKind'), listKind, `may have mixed case, but should otherwise match: ${label(listKind.toLowerCase())}`));
  }
  listOf<unknown>(names.shortNames).forEach((shortName, i) => {
    const value = stringOf(shortName);
    if (label(value) !== '') causes.push(invalid(index(child(path, 'shortNames'), i), value, label(value)));
  });
  if (kind !== '' && kind === listKind) causes.push(invalid(child(path, 'listKind'), listKind, 'kind and listKind may not be the same'));
  listOf<unknown>(names.categories).forEach((category, i) => {
    const value = stringOf(category);
    if (label(value) !== '') causes.push(invalid(index(child(path, 'categories'), i), value, label(value)));
  });
  return causes;
}

function validateStatus(crd: CustomResourceDefinition): StatusCause[] {
  return validateNames(objectOf<CustomResourceDefinitionNames>(crd.status?.acceptedNames), 'status.acceptedNames');
}

/** status.storedVersions: the storage version among them, and only versions that exist (ValidateCustomResourceDefinitionStoredVersions). */
function validateStoredVersions(crd: CustomResourceDefinition): StatusCause[] {
  const given = crd.status?.storedVersions;
  const stored = listOf<unknown>(given).map(stringOf);
  if (stored.length === 0) return [invalid('status.storedVersions', Array.isArray(given) ? given : null, 'must have at least one stored version')];
  const causes: StatusCause[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const version of versionsOf(crd)) {
    const name = stringOf(version.name);
    if (version.storage === true && !remaining.has(name)) causes.push(invalid('status.storedVersions', stored, `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [version, i] of remaining) {
    causes.push(invalid(index('status.storedVersions', i), version,
      `missing from spec.versions; ${version} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${version} and removes ${version} from status.storedVersions`));
  }
  return causes;
}

function isProtectedGroup(group: string): boolean {
  return group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
}

type ApprovalState = 'approved' | 'bypassed' | 'missing' | 'invalid';

function approvalState(annotations: Record<string, string> | undefined): ApprovalState {
  const value = annotations?.[apiApprovalAnnotation];
  if (value === undefined) return 'missing';
  if (value.startsWith('unapproved')) return 'bypassed';
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? 'approved' : 'invalid';
  } catch {
    return 'invalid';
  }
}

/** Groups of the Kubernetes project need an approved API review (upstream's validateAPIApproval). */
function validateApiApproval(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): StatusCause[] {
  if (!isProtectedGroup(stringOf(crd.spec?.group))) return [];
  const state = approvalState(crd.metadata.annotations);
  if (old !== undefined && approvalState(old.metadata.annotations) === state) return [];
  const path = key('metadata.annotations', apiApprovalAnnotation);
  switch (state) {
    case 'approved':
    case 'bypassed':
      return [];
    case 'missing':
      return [required(path, `protected groups must have approval annotation "${apiApprovalAnnotation}", see https://github.com/kubernetes/enhancements/pull/1111`)];
    default:
      return [invalid(path, crd.metadata.annotations?.[apiApprovalAnnotation] ?? '', `protected groups must have approval annotation "${apiApprovalAnnotation}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111`)];
  }
}

/** Upstream's validateCustomResourceConversion, at the internal type's paths (spec.conversion.webhookClientConfig). */
function validateConversion(conversion: unknown): StatusCause[] {
  if (!isObject(conversion)) return [];
  const strategy = stringOf(conversion.strategy);
  if (strategy === '') return [required('spec.conversion.strategy')];
  if (strategy !== 'None' && strategy !== 'Webhook') return [notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook'])];
  const webhook = objectOf<Raw>(conversion.webhook);
  const reviewVersions = listOf<unknown>(webhook.conversionReviewVersions);
  const causes: StatusCause[] = [];
  if (strategy === 'None') {
    if (isObject(webhook.clientConfig)) causes.push(forbidden('spec.conversion.webhookClientConfig', 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions.length > 0) causes.push(forbidden('spec.conversion.conversionReviewVersions', 'should not be set when strategy is not set to Webhook'));
    return causes;
  }
  if (!isObject(webhook.clientConfig)) causes.push(required('spec.conversion.webhookClientConfig', 'required when strategy is set to Webhook'));
  else {
    const cc = webhook.clientConfig as Raw;
    const hasURL = typeof cc.url === 'string';
    if (hasURL === isObject(cc.service)) causes.push(required('spec.conversion.webhookClientConfig', 'exactly one of url or service is required'));
    else if (hasURL) appendAll(causes, validateWebhookURL(cc.url as string, 'spec.conversion.webhookClientConfig.url'));
    else appendAll(causes, validateWebhookService(cc.service as Raw, 'spec.conversion.webhookClientConfig.service'));
  }
  appendAll(causes, validateConversionReviewVersions(reviewVersions, 'spec.conversion.conversionReviewVersions'));
  return causes;
}

/** Upstream's validateConversionReviewVersions, a recognized version required. */
function validateConversionReviewVersions(versions: unknown[], path: string): StatusCause[] {
  if (versions.length === 0) return [required(path)];
  return validateReviewVersionList(versions.map(stringOf), path, ['v1', 'v1beta1']);
}

/** Upstream's validateSimpleJSONPath: a dot path. */
function validateSimpleJsonPath(value: string, path: string): StatusCause[] {
  if (value === '') return [invalid(path, value, 'must not be empty')];
  if (!value.startsWith('.')) return [invalid(path, value, 'must be a simple json path starting with .')];
  return [];
}

function validateColumn(col: CustomResourceColumnDefinition, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const type = stringOf(col.type);
  const format = stringOf(col.format);
  const jsonPath = stringOf(col.jsonPath);
  if (stringOf(col.name) === '') causes.push(required(child(path, 'name')));
  if (type === '') causes.push(required(child(path, 'type'), `must be one of ${printerColumnTypes.join(',')}`));
  else if (!printerColumnTypes.includes(type)) causes.push(invalid(child(path, 'type'), type, `must be one of ${printerColumnTypes.join(',')}`));
  if (format !== '' && !printerColumnFormats.includes(format)) {
    causes.push(invalid(child(path, 'format'), format, `must be one of ${printerColumnFormats.join(',')}`));
  }
  if (jsonPath === '') causes.push(required(child(path, 'JSONPath')));
  else appendAll(causes, validateSimpleJsonPath(jsonPath, child(path, 'JSONPath')));
  return causes;
}

/** Upstream's ValidateCustomResourceDefinitionSubresources: where scale reads and writes its numbers. */
function validateSubresources(subresources: unknown, path: string): StatusCause[] {
  if (!isObject(subresources) || !isObject(subresources.scale)) return [];
  const scale = subresources.scale;
  const causes: StatusCause[] = [];
  const specPath = stringOf(scale.specReplicasPath);
  const statusPath = stringOf(scale.statusReplicasPath);
  if (specPath === '') causes.push(required(`${path}.scale.specReplicasPath`));
  else {
    const errs = validateSimpleJsonPath(specPath, `${path}.scale.specReplicasPath`);
    if (errs.length > 0) appendAll(causes, errs);
    else if (!specPath.startsWith('.spec.')) causes.push(invalid(`${path}.scale.specReplicasPath`, specPath, 'should be a json path under .spec'));
  }
  if (statusPath === '') causes.push(required(`${path}.scale.statusReplicasPath`));
  else {
    const errs = validateSimpleJsonPath(statusPath, `${path}.scale.statusReplicasPath`);
    if (errs.length > 0) appendAll(causes, errs);
    else if (!statusPath.startsWith('.status.')) causes.push(invalid(`${path}.scale.statusReplicasPath`, statusPath, 'should be a json path under .status'));
  }
  const selectorPath = stringOf(scale.labelSelectorPath);
  if (selectorPath !== '') {
    const errs = validateSimpleJsonPath(selectorPath, `${path}.scale.labelSelectorPath`);
    if (errs.length > 0) appendAll(causes, errs);
    else if (!selectorPath.startsWith('.spec.') && !selectorPath.startsWith('.status.')) {
      causes.push(invalid(`${path}.scale.labelSelectorPath`, selectorPath, 'should be a json path under either .spec or .status'));
    }
  }
  return causes;
}

/** The schema a simple dot path leads to, or undefined when the schema does not specify it. */
function schemaAtPath(root: unknown, jsonPath: string): Raw | undefined {
  let current: unknown = root;
  for (const segment of jsonPath.slice(1).split('.')) {
    if (!isObject(current)) return undefined;
    const properties = current.properties;
    if (isObject(properties) && isObject(properties[segment])) current = properties[segment];
    else if (isObject(current.additionalProperties)) current = current.additionalProperties;
    else return undefined;
  }
  return isObject(current) ? current : undefined;
}

/** selectableFields: scalar fields the schema specifies, at most 8, each once. */
function validateSelectableFields(version: CustomResourceDefinitionVersion, path: string): StatusCause[] {
  const fields = listOf<unknown>(version.selectableFields);
  if (fields.length === 0) return [];
  const causes: StatusCause[] = [];
  const schema = isObject(version.schema) ? version.schema.openAPIV3Schema : undefined;
  const seen = new Set<string>();
  fields.forEach((field, i) => {
    const jsonPath = stringOf(objectOf<Raw>(field).jsonPath);
    const fieldPath = child(index(path, i), 'jsonPath');
    if (jsonPath === '') {
      causes.push(required(fieldPath));
      return;
    }
    const errs = validateSimpleJsonPath(jsonPath, fieldPath);
    if (errs.length > 0) {
      appendAll(causes, errs);
      return;
    }
    const target = schemaAtPath(schema, jsonPath);
    if (target === undefined) causes.push(invalid(fieldPath, jsonPath, 'is an invalid path: does not refer to a valid field in the schema'));
    else if (!['string', 'integer', 'boolean'].includes(stringOf(target.type))) {
      causes.push(invalid(fieldPath, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (seen.has(jsonPath)) causes.push(duplicate(fieldPath, jsonPath));
    seen.add(jsonPath);
  });
  if (fields.length > maxSelectableFields) causes.push(tooMany(path, fields.length, maxSelectableFields));
  return causes;
}

/**
 * A version's (or the shared) schema: OpenAPI checks, then, when they pass, the
 * structural checks, then, when those pass, its defaults (upstream's
 * validateCustomResourceDefinitionValidation with v1's options).
 */
function validateSchema(validation: unknown, statusEnabled: boolean, path: string): StatusCause[] {
  if (!isObject(validation)) return [];
  const schema = validation.openAPIV3Schema;
  if (!isObject(schema)) return [];
  const schemaPath = child(path, 'openAPIV3Schema');
  const causes: StatusCause[] = [];
  if (statusEnabled) appendAll(causes, statusRootChecks(schema, path));
  appendAll(causes, openApiSchemaChecks(schema, schemaPath, true));
  if (causes.length > 0) return causes;
  const unsupported = unsupportedStructuralField(schema);
  if (unsupported !== undefined) return [invalid(schemaPath, '', unsupported)];
  const structural = validateStructural(schema, schemaPath);
  if (structural.length > 0) return structural;
  return [...validateDefaults(schema, schemaPath, true), ...(hasValidationRules(schema) ? cel().validationRuleErrors(schema, schemaPath) : [])];
}

/**
 * Defaults must survive pruning unchanged and validate against their own schema
 * (upstream's structuraldefaulting.ValidateDefaults). Defaults inside a resource's
 * metadata are refused earlier; additionalProperties are not followed, as upstream.
 */
function validateDefaults(s: Raw, path: string, isRoot: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const embedded = isRoot || s['x-kubernetes-embedded-resource'] === true;
  if (s.default !== undefined && s.default !== null && !isRoot) {
    const schema = s as Schema;
    const copy = clone(s.default);
    const dropped = typeof copy === 'object' && copy !== null ? prune({}, schema, copy, { isResourceRoot: embedded && !isRoot }) : [];
    const defaultPath = child(path, 'default');
    if (dropped.length > 0) causes.push(invalid(defaultPath, goUnstructured(s.default), 'must not have unknown fields'));
    else {
      // The default validates under its own path, as upstream names it in messages.
      const holder: Schema = { type: 'object', properties: { [defaultPath]: schema } };
      appendAll(causes, validate({}, holder, { [defaultPath]: s.default }, { enums: true, formats: true, listTypes: true }));
    }
  }
  if (isObject(s.items)) appendAll(causes, validateDefaults(s.items, child(path, 'items'), false));
  if (isObject(s.properties)) {
    for (const [name, property] of Object.entries(s.properties)) {
      if (!isObject(property)) continue;
      // A resource's metadata, apiVersion and kind take no defaults (checked earlier).
      if (embedded && (name === 'metadata' || name === 'apiVersion' || name === 'kind')) continue;
      appendAll(causes, validateDefaults(property, key(child(path, 'properties'), name), false));
    }
  }
  return causes;
}
