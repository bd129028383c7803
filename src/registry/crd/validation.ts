// Validation of a CustomResourceDefinition, after apiextensions-apiserver's
// pkg/apis/apiextensions/validation/validation.go as it checks a v1 object. Upstream
// validates the internal version, into which v1 converts by moving a schema,
// subresources, printer columns (or a schema with its selectable fields) shared by every
// version to the top level (`spec.validation`, `spec.subresources`,
// `spec.additionalPrinterColumns`, `spec.selectableFields`), and by copying the first
// version's name to `spec.version`; error paths follow that, as kubectl users see them
// ("spec.validation.openAPIV3Schema..."). Metadata (name syntax, labels, ...) is checked by
// the Store; here only the rule that the name is `<plural>.<group>`.

import { cel } from '../../cel/lazy.ts';
import { hasValidationRules } from '../../cel/rules-present.ts';
import {
  appendAll,
  child, duplicate, fieldImmutable, forbidden, goUnstructured, index, invalid, key, notSupported, required, tooMany,
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
import { validFieldPath } from './field-path.ts';
import { goVersions, type InternalLayout } from './internal-json.ts';
import {
  hasInvalidMapListKeysMapSet, hasNonAtomicSetType, openApiSchemaChecks, schemaHas, statusRootChecks, type SchemaCheckOptions,
} from './openapi-checks.ts';
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
  const schemaShared = sharedByAll(versions, (v) => v.schema);
  return {
    schemaShared,
    subresourcesShared: sharedByAll(versions, (v) => v.subresources),
    columnsShared: sharedByAll(versions, (v) => v.additionalPrinterColumns),
    // Selectable fields move up with the schema only.
    selectableFieldsShared: schemaShared && sharedByAll(versions, (v) => v.selectableFields),
  };
}

/** What upstream's validationOptions relax for an update of a CRD that already broke a rule. */
interface SpecOptions extends SchemaCheckOptions {
  /** Every version needs a schema (requireOpenAPISchema). */
  requireOpenAPISchema: boolean;
}

const createOptions: SpecOptions = { requireOpenAPISchema: true, requireAtomicSetType: true, requireMapListKeysMapSetValidation: true };

/** The schemas of a spec: the versions' (v1 has no top-level one). */
function schemasOf(crd: CustomResourceDefinition): unknown[] {
  return versionsOf(crd).map((v) => (isObject(v.schema) ? v.schema.openAPIV3Schema : undefined));
}

/** Upstream's ValidateCustomResourceDefinitionUpdate options: rules the old CRD broke are not tightened. */
function updateOptions(old: CustomResourceDefinition): SpecOptions {
  const schemas = schemasOf(old);
  return {
    requireOpenAPISchema: schemas.every(isObject),
    requireAtomicSetType: !schemas.some((s) => schemaHas(s, hasNonAtomicSetType)),
    requireMapListKeysMapSetValidation: !schemas.some((s) => schemaHas(s, hasInvalidMapListKeysMapSet)),
  };
}

/** Versions as objects, whatever the client sent. */
function versionsOf(crd: CustomResourceDefinition): CustomResourceDefinitionVersion[] {
  return listOf<unknown>(crd.spec?.versions).map((v) => objectOf<CustomResourceDefinitionVersion>(v));
}

function hasStatus(subresources: CustomResourceSubresources | undefined): boolean {
  return isObject(subresources) && isObject(subresources.status);
}

const nameRule = 'must be spec.names.plural+"."+spec.group';

/**
 * Errors of a new CRD (upstream's ValidateCustomResourceDefinition, for a v1 request).
 * Assumes field types were checked against the CRD's own schema first.
 */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = objectOf<NonNullable<CustomResourceDefinition['spec']>>(crd.spec);
  const names = objectOf<CustomResourceDefinitionNames>(spec.names);
  // Upstream's name function adds this to the name's own errors (the Store's).
  const requiredName = `${stringOf(names.plural)}.${stringOf(spec.group)}`;
  const generateName = crd.metadata.generateName ?? '';
  const name = crd.metadata.name ?? '';
  if (generateName !== '' && generateName !== requiredName) causes.push(invalid('metadata.generateName', generateName, nameRule));
  if (name !== '' && name !== requiredName) causes.push(invalid('metadata.name', name, nameRule));
  appendAll(causes, validateSpec(crd, createOptions));
  appendAll(causes, validateStatus(crd));
  appendAll(causes, validateStoredVersions(crd));
  appendAll(causes, validateApiApproval(crd, undefined));
  appendAll(causes, validatePreserveUnknownFields(crd, undefined));
  return causes;
}

/**
 * Errors of an update (upstream's ValidateCustomResourceDefinitionUpdate): the spec's as
 * for a new CRD, with the rules the old CRD already broke relaxed, and what may not change.
 * The name is not checked again (names never change).
 */
export function validateCustomResourceDefinitionUpdate(crd: CustomResourceDefinition, old: CustomResourceDefinition): StatusCause[] {
  const causes = validateSpec(crd, updateOptions(old));
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
  appendAll(causes, validateStatus(crd));
  appendAll(causes, validateStoredVersions(crd));
  appendAll(causes, validateApiApproval(crd, old));
  appendAll(causes, validatePreserveUnknownFields(crd, old));
  return causes;
}

/** Errors of a write through /status (upstream's ValidateUpdateCustomResourceDefinitionStatus). */
export function validateCustomResourceDefinitionStatus(crd: CustomResourceDefinition): StatusCause[] {
  return validateStatus(crd);
}

/** v1 takes no preserveUnknownFields: true, unless the CRD had it already (upstream's validatePreserveUnknownFields). */
function validatePreserveUnknownFields(crd: CustomResourceDefinition, old: CustomResourceDefinition | undefined): StatusCause[] {
  if (old?.spec?.preserveUnknownFields === true || crd.spec?.preserveUnknownFields !== true) return [];
  return [invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

/** Upstream's SchemaHas(s, default != nil) over every version's schema. */
function specHasDefaults(crd: CustomResourceDefinition): boolean {
  return schemasOf(crd).some((s) => schemaHas(s, (node) => node.default !== undefined && node.default !== null));
}

function validateSpec(crd: CustomResourceDefinition, opts: SpecOptions): StatusCause[] {
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
  const first = versions[0];
  const preserveUnknownFields = spec.preserveUnknownFields === true;

  // A schema for every version (shared, or each its own).
  const sharedSchema = layout.schemaShared && first !== undefined ? first.schema : undefined;
  if (!(isObject(sharedSchema) && isObject(sharedSchema.openAPIV3Schema))) {
    versions.forEach((version, i) => {
      if (isObject(version.schema) && isObject(version.schema.openAPIV3Schema)) return;
      const path = `${index('spec.versions', i)}.schema.openAPIV3Schema`;
      if (opts.requireOpenAPISchema) causes.push(required(path, 'schemas are required'));
      else if (!preserveUnknownFields && version.served === true) causes.push(required(path, 'because otherwise all fields are pruned'));
    });
  }
  if (preserveUnknownFields && specHasDefaults(crd)) {
    causes.push(invalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }

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
    appendAll(causes, validateVersion(version, path, layout, opts));
  });
  if (!unique) causes.push(invalid('spec.versions', goVersions(versions, layout), 'must contain unique version names'));
  if (storageCount !== 1) causes.push(invalid('spec.versions', goVersions(versions, layout), 'must have exactly one version marked as storage version'));
  // The internal spec.version is the first version's name, checked again there.
  const firstName = stringOf(first?.name);
  if (firstName !== '') {
    const errs = isDNS1035Label(firstName);
    if (errs.length > 0) causes.push(invalid('spec.version', firstName, errs.join(',')));
  }

  const names = objectOf<CustomResourceDefinitionNames>(spec.names);
  if (stringOf(names.plural) === '') causes.push(required('spec.names.plural'));
  if (stringOf(names.singular) === '') causes.push(required('spec.names.singular'));
  if (stringOf(names.kind) === '') causes.push(required('spec.names.kind'));
  if (stringOf(names.listKind) === '') causes.push(required('spec.names.listKind'));
  appendAll(causes, validateNames(names, 'spec.names'));

  // What the versions share, at the top level.
  if (first !== undefined) {
    if (layout.schemaShared) appendAll(causes, validateSchema(first.schema, versions.some((v) => hasStatus(v.subresources)), 'spec.validation', opts));
    if (layout.subresourcesShared) appendAll(causes, validateSubresources(first.subresources, 'spec.subresources'));
    if (layout.columnsShared) {
      listOf<unknown>(first.additionalPrinterColumns).forEach((col, j) => {
        appendAll(causes, validateColumn(objectOf<CustomResourceColumnDefinition>(col), index('spec.additionalPrinterColumns', j)));
      });
    }
    if (layout.selectableFieldsShared && listOf<unknown>(first.selectableFields).length > 0) {
      appendAll(causes, validateSelectableFields(first.selectableFields, first.schema, 'spec', 'selectableFields may only be set when validations.schema is included'));
    }
  }

  const conversion = spec.conversion;
  if (preserveUnknownFields && isObject(conversion) && conversion.strategy !== 'None') {
    causes.push(invalid('spec.conversion.strategy', stringOf(conversion.strategy), 'must be None if spec.preserveUnknownFields is true'));
  }
  appendAll(causes, validateConversion(conversion));
  return causes;
}

/** Printable as Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Upstream's validateDeprecationWarning: set only on a deprecated version, 1 to 256 bytes of printable text. */
function deprecationWarningErrors(deprecated: boolean, warning: string | undefined): string[] {
  if (!deprecated && warning !== undefined) return ['can only be set for deprecated versions'];
  if (warning === undefined) return [];
  const errors: string[] = [];
  if (Buffer.byteLength(warning, 'utf8') > 256) errors.push('must be <= 256 characters long');
  if (warning.length === 0) errors.push('must not be an empty string');
  let at = 0;
  for (const ch of warning) {
    if (!printable.test(ch)) {
      errors.push(`must only contain printable UTF-8 characters; non-printable character found at index ${at}`);
      break;
    }
    at += Buffer.byteLength(ch, 'utf8');
  }
  return errors;
}

function validateVersion(version: CustomResourceDefinitionVersion, path: string, layout: InternalLayout, opts: SpecOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  const warning = typeof version.deprecationWarning === 'string' ? version.deprecationWarning : undefined;
  for (const error of deprecationWarningErrors(version.deprecated === true, warning)) {
    causes.push(invalid(child(path, 'deprecationWarning'), warning, error));
  }
  if (!layout.schemaShared) appendAll(causes, validateSchema(version.schema, hasStatus(version.subresources), child(path, 'schema'), opts));
  if (!layout.subresourcesShared) appendAll(causes, validateSubresources(version.subresources, child(path, 'subresources')));
  if (!layout.columnsShared) {
    listOf<unknown>(version.additionalPrinterColumns).forEach((col, j) => {
      appendAll(causes, validateColumn(objectOf<CustomResourceColumnDefinition>(col), index(child(path, 'additionalPrinterColumns'), j)));
    });
  }
  if (!layout.selectableFieldsShared && listOf<unknown>(version.selectableFields).length > 0) {
    // A schema every version shares is no version's own in the internal version: upstream then refuses the version's fields.
    const schema = layout.schemaShared ? undefined : version.schema;
    appendAll(causes, validateSelectableFields(version.selectableFields, schema, path, 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
  }
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

/**
 * selectableFields (upstream's ValidateCustomResourceSelectableFields): each a path to a
 * string, boolean or integer field of the schema outside metadata, each once, at most 8.
 * `base` is where they are ("spec", or a version's path), `noSchema` what is said when
 * there is no schema to check them with.
 */
function validateSelectableFields(selectableFields: unknown, validation: unknown, base: string, noSchema: string): StatusCause[] {
  const path = child(base, 'selectableFields');
  const schema = isObject(validation) ? validation.openAPIV3Schema : undefined;
  if (!isObject(schema)) return [invalid(path, '', noSchema)];
  const unsupported = unsupportedStructuralField(schema);
  if (unsupported !== undefined) return [invalid(child(base, 'schema.openAPIV3Schema'), '', unsupported)];
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  listOf<unknown>(selectableFields).forEach((field, i) => {
    const jsonPath = stringOf(objectOf<Raw>(field).jsonPath);
    const fieldPath = child(index(path, i), 'jsonPath');
    if (jsonPath === '') {
      causes.push(required(fieldPath));
      return;
    }
    const found = validFieldPath(jsonPath, schema, false);
    if (!found.ok) {
      causes.push(invalid(fieldPath, jsonPath, `is an invalid path: ${found.error}`));
      return;
    }
    if (found.root === 'metadata') causes.push(invalid(fieldPath, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'integer', 'boolean'].includes(stringOf(found.schema?.type))) {
      causes.push(invalid(fieldPath, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (seen.has(found.path)) causes.push(duplicate(fieldPath, jsonPath));
    seen.add(found.path);
  });
  if (seen.size > maxSelectableFields) causes.push(tooMany(path, seen.size, maxSelectableFields));
  return causes;
}

/**
 * A version's (or the shared) schema, as upstream's validateCustomResourceDefinitionValidation
 * with v1's options: with the status subresource only some fields at the root, never
 * nullable there; then the structural checks, and when they pass the defaults, and when
 * those pass the rules' compilation; the OpenAPI checks after those. What NewStructural
 * refuses is said only when nothing else is.
 */
function validateSchema(validation: unknown, statusEnabled: boolean, path: string, opts: SpecOptions): StatusCause[] {
  if (!isObject(validation)) return [];
  const schema = validation.openAPIV3Schema;
  if (!isObject(schema)) return [];
  const schemaPath = child(path, 'openAPIV3Schema');
  const causes: StatusCause[] = [];
  if (statusEnabled) appendAll(causes, statusRootChecks(schema, path));
  if (schema.nullable === true) causes.push(forbidden(child(schemaPath, 'nullable'), 'nullable cannot be true at the root'));
  const unsupported = unsupportedStructuralField(schema);
  let compileRules = false;
  if (unsupported === undefined) {
    const structural = validateStructural(schema, schemaPath);
    const defaults = structural.length > 0 ? [] : validateDefaults(schema, schemaPath, true);
    appendAll(causes, structural, defaults);
    compileRules = structural.length === 0 && defaults.length === 0;
  }
  const schemaErrors = openApiSchemaChecks(schema, schemaPath, true, opts);
  appendAll(causes, schemaErrors);
  if (compileRules && hasValidationRules(schema)) appendAll(causes, ruleCompilationErrors(schema, schemaPath, schemaErrors));
  if (causes.length === 0 && unsupported !== undefined) causes.push(invalid(schemaPath, '', unsupported));
  return causes;
}

/** Whether `field` is `node` or a path under it. */
function isAtOrUnder(field: string | undefined, node: string): boolean {
  return field !== undefined && field.startsWith(node) && (field.length === node.length || field[node.length] === '.' || field[node.length] === '[');
}

/** The nodes CEL rules apply to, as upstream's OpenAPI walk visits them: additionalProperties, properties, items, then the node. */
function ruleNodes(s: Raw, path: string, visit: (node: Raw, path: string) => void): void {
  if (isObject(s.additionalProperties)) ruleNodes(s.additionalProperties, child(path, 'additionalProperties'), visit);
  if (isObject(s.properties)) {
    for (const [name, property] of Object.entries(s.properties)) if (isObject(property)) ruleNodes(property, key(child(path, 'properties'), name), visit);
  }
  if (isObject(s.items)) ruleNodes(s.items, child(path, 'items'), visit);
  visit(s, path);
}

/**
 * The rules' compilation errors as upstream reports them: not compiled at a node with a
 * schema error at or under it, and each node's after those of the nodes under it; the
 * total cost last.
 */
function ruleCompilationErrors(schema: Raw, schemaPath: string, schemaErrors: StatusCause[]): StatusCause[] {
  let compiled = schema;
  if (schemaErrors.length > 0) {
    compiled = clone(schema);
    ruleNodes(compiled, schemaPath, (node, path) => {
      if (schemaErrors.some((c) => isAtOrUnder(c.field, path))) delete node['x-kubernetes-validations'];
    });
    if (!hasValidationRules(compiled)) return [];
  }
  const errors = cel().validationRuleErrors(compiled, schemaPath);
  const byNode = new Map<string, StatusCause[]>();
  const rest: StatusCause[] = [];
  const contribution = `Forbidden: ${cel().totalCostContribution}`;
  for (const cause of errors) {
    const at = cause.field?.indexOf('.x-kubernetes-validations[') ?? -1;
    // The rules that made the total too costly are named after every node's own causes, as upstream's walk adds them at its end.
    if (at < 0 || cause.message === contribution) {
      rest.push(cause);
      continue;
    }
    const node = cause.field!.slice(0, at);
    byNode.set(node, [...(byNode.get(node) ?? []), cause]);
  }
  const ordered: StatusCause[] = [];
  ruleNodes(compiled, schemaPath, (_node, path) => {
    appendAll(ordered, byNode.get(path) ?? []);
    byNode.delete(path);
  });
  for (const left of byNode.values()) appendAll(ordered, left);
  appendAll(ordered, rest);
  return ordered;
}

/**
 * Defaults must survive pruning unchanged, validate against their own schema and pass its
 * rules (upstream's structuraldefaulting.ValidateDefaults, the root taken for an embedded
 * resource). Defaults inside a resource's metadata are refused earlier; additionalProperties
 * are not followed, as upstream.
 */
function validateDefaults(s: Raw, path: string, isRoot: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const embedded = isRoot || s['x-kubernetes-embedded-resource'] === true;
  if (s.default !== undefined && s.default !== null) {
    const schema = s as Schema;
    const copy = clone(s.default);
    const dropped = typeof copy === 'object' && copy !== null ? prune({}, schema, copy, { isResourceRoot: embedded }) : [];
    const defaultPath = child(path, 'default');
    if (dropped.length > 0) causes.push(invalid(defaultPath, goUnstructured(s.default), 'must not have unknown fields'));
    // The default validates under its own path, as upstream names it in messages.
    const holder: Schema = { type: 'object', properties: { [defaultPath]: schema } };
    const invalidDefault = validate({}, holder, { [defaultPath]: s.default }, { enums: true, formats: true, listTypes: true });
    appendAll(causes, invalidDefault);
    // Its rules (and those under it) run on it as on a created value. Rules that do not
    // compile are left to the compilation's errors (upstream says "rule compile error" here).
    if (invalidDefault.length === 0 && hasValidationRules(s) && cel().validationRuleErrors(s, path).every((c) => c.reason === 'FieldValueForbidden')) {
      appendAll(causes, cel().evaluateValidationRules(s, s.default, undefined, defaultPath).causes);
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
