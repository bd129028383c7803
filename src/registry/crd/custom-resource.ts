// The resources a CRD defines, as ResourceTypes built at run time: one per served
// version, after apiextensions-apiserver's crdHandler and pkg/registry/customresource
// (strategy.go, status_strategy.go, validator.go). Validation, pruning and defaulting
// with the version's schema are the generic Store's (schemaValidation), given the schema
// among its definitions under the type's schemaName; the scale paths, the rules and the
// causes' order are the version's CustomResourceChecks, which its CustomResourceStore runs.

import { StatusError, type GroupResource, type KubeObject, type StatusCause } from '../../api/index.ts';
import { appendAll, invalid } from '../../api/field-errors.ts';
import { addWarning } from '../../api/request-context.ts';
import { cel } from '../../cel/lazy.ts';
import { hasValidationRules } from '../../cel/rules-present.ts';
import { schemaRef } from '../../schema/builtin/index.ts';
import { customResourceValidation, validate, type CorrelatedOld } from '../../schema/validate.ts';
import type { Definitions, Schema } from '../../schema/types.ts';
import { allVerbs } from '../builtin/common.ts';
import { isQualifiedName } from '../validation/names.ts';
import { clone, deepEqual, isObject } from '../../api/json.ts';
import { holdsFloatMember } from '../../api/number-forms.ts';
import type { ResourceType, ScaleAccess, Strategy } from '../resource-type.ts';
import { conversionWebhookOf, type ConversionWebhookConfig } from './conversion-webhook.ts';
import { normalizeSchema } from './defaults.ts';
import { embeddedResourceCauses, embedsResources } from './embedded-resources.ts';
import { setAtSimplePath, valueAtSimplePath } from './jsonpath.ts';
import { hasListTypes, listTypeCauses } from './list-types.ts';
import { printerColumnsOf } from './printer-columns.ts';
import { correlate } from './ratcheting.ts';
import type {
  CustomResourceDefinition, CustomResourceDefinitionNames, CustomResourceDefinitionVersion, CustomResourceSubresourceScale,
} from './types.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

/** The shared definitions map is part of this module's contract, so its callers (controllers/) need not import schema/. */
export type { Definitions };

/** One served version of a CRD: its ResourceType and the schema published under its schemaName. */
export interface CustomResourceVersion {
  type: ResourceType;
  definition: Schema;
  /** Set when the CRD's versions convert by webhook: the webhook, and the apiVersion objects are stored in. */
  conversion?: { webhook: ConversionWebhookConfig; storageAPIVersion: string };
}

export interface CustomResourceOptions {
  /** The definitions the Store and OpenAPI read; the version's schema is looked up there (status writes). */
  definitions: Definitions;
  /** Whether the CRD is being deleted: creates are refused then (405), as upstream's crdHandler. */
  terminating(): boolean;
}

/** "stable.example.com" → "com.example.stable", as upstream names CRD schemas. */
function reversedGroup(group: string): string {
  return group.split('.').reverse().join('.');
}

/** The definition name of a version's kind: `com.example.stable.v1.CronTab`. */
export function customResourceSchemaName(group: string, version: string, kind: string): string {
  return `${reversedGroup(group)}.${version}.${kind}`;
}

interface KubeVersion {
  major: number;
  /** 2: GA, 1: beta, 0: alpha. */
  stability: number;
  minor: number;
}

function kubeVersion(v: string): KubeVersion | undefined {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (m === null) return undefined;
  return { major: Number(m[1]), stability: m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, minor: m[3] === undefined ? 0 : Number(m[3]) };
}

/**
 * Upstream's version priority (CompareKubeAwareVersionStrings), highest first: GA before
 * beta before alpha, then by major and minor version; other names after, alphabetically.
 */
export function compareVersionPriority(a: string, b: string): number {
  const x = kubeVersion(a);
  const y = kubeVersion(b);
  if (x === undefined && y === undefined) return a < b ? -1 : a > b ? 1 : 0;
  if (x === undefined) return 1;
  if (y === undefined) return -1;
  if (x.stability !== y.stability) return y.stability - x.stability;
  if (x.major !== y.major) return y.major - x.major;
  return y.minor - x.minor;
}

function stringOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The names the CRD is served under: the accepted ones (spec.names until the controller accepted them). */
export function servedNames(crd: CustomResourceDefinition): Required<CustomResourceDefinitionNames> {
  const accepted = crd.status?.acceptedNames;
  const names = isObject(accepted) && stringOf(accepted.plural) !== '' ? accepted : (crd.spec?.names ?? {});
  return {
    plural: stringOf(names.plural),
    singular: stringOf(names.singular),
    kind: stringOf(names.kind),
    listKind: stringOf(names.listKind),
    shortNames: Array.isArray(names.shortNames) ? names.shortNames.map(String) : [],
    categories: Array.isArray(names.categories) ? names.categories.map(String) : [],
  };
}

/**
 * Everything but metadata: a change there bumps the generation (upstream's copyNonMetadata,
 * compared by Semantic.DeepEqual, to which the body's `1.0` is a float64 and the stored `1`
 * an int64).
 */
function nonMetadataEqual(a: KubeObject, b: KubeObject): boolean {
  const { metadata: _a, ...restA } = a;
  const { metadata: _b, ...restB } = b;
  return deepEqual(restA, restB) && !holdsFloatMember(a, 'metadata');
}

/** Go's %v of a float64: strconv's shortest 'g', exponent form below 1e-4 and from 1e6. */
function goFloat(n: number): string {
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, exponent] = n.toExponential().split('e');
  const exp = Number(exponent);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

/** 2^63: int64's bounds as doubles (its largest, 2^63 - 1, rounds to it). */
const maxInt64Double = 2 ** 63;

/** A JSON number as Go's unstructured decoding holds it: an int64 when integral and in range, else a float64. */
function isInt64(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= maxInt64Double;
}

/** Go's %T of an unstructured value. */
function goTypeName(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return isInt64(value) ? 'int64' : 'float64';
  if (value === null || value === undefined) return '<nil>';
  return Array.isArray(value) ? '[]interface {}' : 'map[string]interface {}';
}

/** Go's %v of an unstructured value: maps as map[k:v ...] with sorted keys, slices as [a b]. */
function goPrinted(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return isInt64(value) ? String(value) : goFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goPrinted).join(' ')}]`;
  const entries = Object.keys(value as Record<string, unknown>).sort().map((k) => `${k}:${goPrinted((value as Record<string, unknown>)[k])}`);
  return `map[${entries.join(' ')}]`;
}

/** The value at a scale path as unstructured.NestedFieldNoCopy finds it, or its accessor error. */
function nestedField(obj: KubeObject, path: string): { value: unknown; error?: string } {
  const fields = path.replace(/^\./, '').split('.');
  let value: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (value === null || value === undefined) return { value: undefined };
    if (!isObject(value)) {
      const at = `.${fields.slice(0, i + 1).join('.')}`;
      return { value: undefined, error: `${at} accessor error: ${goPrinted(value)} is of the type ${goTypeName(value)}, expected map[string]interface{}` };
    }
    value = value[fields[i]!];
  }
  return { value };
}

/** unstructured.NestedInt64 or NestedString: the value, or the accessor error for a value of another type. */
function nestedTyped(obj: KubeObject, path: string, type: 'int64' | 'string'): { value: unknown; error?: string } {
  const found = nestedField(obj, path);
  if (found.error !== undefined || found.value === undefined || found.value === null) return found;
  const ok = type === 'int64' ? isInt64(found.value) : typeof found.value === 'string';
  if (ok) return found;
  const at = `.${path.replace(/^\./, '')}`;
  return { value: undefined, error: `${at} accessor error: ${goPrinted(found.value)} is of the type ${goTypeName(found.value)}, expected ${type}` };
}

const maxInt32 = 2147483647;

/** Upstream's ValidateScaleSpec / ValidateScaleStatus: a replicas path holds a non-negative int32 when set. */
function validateReplicasAt(obj: KubeObject, path: string): StatusCause[] {
  const { value, error } = nestedTyped(obj, path, 'int64');
  if (error !== undefined) return [invalid(path, 0, error)];
  if (!isInt64(value)) return [];
  if (value < 0) return [invalid(path, value, 'should be a non-negative integer')];
  if (value > maxInt32) return [invalid(path, value, `should be less than or equal to ${maxInt32}`)];
  return [];
}

function validateScaleStatus(obj: KubeObject, scale: CustomResourceSubresourceScale): StatusCause[] {
  const causes = validateReplicasAt(obj, stringOf(scale.statusReplicasPath));
  const selectorPath = stringOf(scale.labelSelectorPath);
  if (selectorPath !== '') {
    const { error } = nestedTyped(obj, selectorPath, 'string');
    if (error !== undefined) causes.push(invalid(selectorPath, '', error));
  }
  return causes;
}

function scaleAccess(scale: CustomResourceSubresourceScale): ScaleAccess {
  const specPath = stringOf(scale.specReplicasPath);
  const statusPath = stringOf(scale.statusReplicasPath);
  const selectorPath = stringOf(scale.labelSelectorPath);
  const int = (v: unknown) => (isInt64(v) ? v : 0);
  return {
    get(obj) {
      const selector = selectorPath === '' ? undefined : valueAtSimplePath(obj, selectorPath);
      return {
        replicas: int(valueAtSimplePath(obj, specPath)),
        statusReplicas: int(valueAtSimplePath(obj, statusPath)),
        selector: typeof selector === 'string' ? selector : '',
      };
    },
    set(obj, replicas) {
      setAtSimplePath(obj, specPath, replicas);
    },
    replicasPath: specPath.replace(/^\./, '').split('.'),
  };
}

/** Field-selector values of a version's selectableFields: strings as they are, numbers and booleans printed. */
function selectableValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

interface StrategyParams {
  groupResource: GroupResource;
  namespaced: boolean;
  statusEnabled: boolean;
  scale: CustomResourceSubresourceScale | undefined;
  selectableFields: string[];
  opts: CustomResourceOptions;
}

/**
 * The field error types after which upstream does not run the rules (strategy.go's
 * hasBlockingErr: a type, maxLength, maxItems, maxProperties, required or enum violation).
 */
const blockingReasons = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

/**
 * Appends the CEL rules' field errors to `causes` (those found before them); on an update,
 * failures at values it left unchanged (`old` correlated with `obj` as for the schema's
 * checks, upstream's cel.WithRatcheting) go out as warnings. After a blocking error the
 * rules are not run, and upstream's one cause at no field says so (field.Invalid(nil, nil, ...)).
 */
function appendRuleCauses(causes: StatusCause[], schema: Record<string, unknown> | undefined, obj: KubeObject, old: KubeObject | undefined, correlation: CorrelatedOld | undefined): StatusCause[] {
  if (schema === undefined) return causes;
  if (causes.some((c) => blockingReasons.has(c.reason ?? ''))) {
    causes.push(invalid('<nil>', 'null', 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'));
    return causes;
  }
  const { causes: failed, warnings } = cel().evaluateValidationRules(schema, obj, old, '', correlation);
  for (const warning of warnings) addWarning(warning);
  appendAll(causes, failed);
  return causes;
}

/**
 * What a custom resource version checks beyond metadata and, for the object, its schema:
 * each takes the causes found so far (metadata's first) and appends its own in upstream's
 * order. Its Store runs them (custom-resource-store.ts).
 */
export interface CustomResourceChecks {
  /**
   * A create of the object, `causes` holding metadata's and the schema's: the scale paths,
   * embedded objects, list types, then the rules (upstream's customResourceStrategy.Validate).
   */
  create(obj: KubeObject, causes: StatusCause[]): StatusCause[];
  /**
   * An update of the object (or of its scale), `causes` holding metadata's: the schema's
   * causes, then a create's, both ratcheted on one correlation of the object with its old
   * self (upstream's ValidateUpdate with CRDValidationRatcheting: what fails at a value the
   * update left as it was is not reported, or only warned of).
   */
  update(obj: KubeObject, old: KubeObject, causes: StatusCause[]): StatusCause[];
  /**
   * A write through /status, `causes` holding metadata's: status against the status schema
   * only, the scale status paths, then the rules (upstream's statusStrategy.ValidateUpdate).
   */
  status(obj: KubeObject, old: KubeObject, causes: StatusCause[]): StatusCause[];
}

/** A custom resource version's ResourceType: its Store finds the version's checks on it. */
export interface CustomResourceType extends ResourceType {
  customResourceChecks: CustomResourceChecks;
}

/** The checks of a type customResourceVersions built; undefined for any other. */
export function customResourceChecksOf(type: ResourceType): CustomResourceChecks | undefined {
  return (type as Partial<CustomResourceType>).customResourceChecks;
}

/**
 * Status validated alone, under its own path, as upstream validates a status write against
 * the status property's schema (no schema for status: nothing to check), ratcheted against
 * the stored status when there is one. The wrapper schema is kept while the version's
 * definition stays the same, so it is compiled once.
 */
function statusSchemaChecker(definitions: Definitions, schemaName: string): (obj: KubeObject, old: KubeObject) => StatusCause[] {
  let wrapped: { status: Schema; holder: Schema } | undefined;
  return (obj, old) => {
    const status = definitions[schemaName]?.properties?.status;
    if (status === undefined || !('status' in obj)) return [];
    if (wrapped?.status !== status) wrapped = { status, holder: { type: 'object', properties: { status } } };
    const value = { status: obj.status };
    const correlated = 'status' in old ? correlate(definitions, wrapped.holder, value, { status: old.status }, false) : undefined;
    return validate(definitions, wrapped.holder, value, statusValidation, correlated);
  };
}

/**
 * The schema validation of a custom resource: list types aside, as their uniqueness is
 * checked after the scale paths and embedded objects, and ratcheted (list-types.ts).
 */
const schemaValidation = { ...customResourceValidation, listTypes: false };

/** A status subtree is no resource: its root has no metadata to leave to ObjectMeta validation. */
const statusValidation = { ...schemaValidation, isResourceRoot: false };

function customResourceChecks(scale: CustomResourceSubresourceScale | undefined, schema: Record<string, unknown>, rulesSchema: Record<string, unknown> | undefined, opts: CustomResourceOptions, schemaName: string): CustomResourceChecks {
  const statusSchemaCauses = statusSchemaChecker(opts.definitions, schemaName);
  const objectSchema: Schema = { $ref: schemaRef(schemaName) };
  const embeds = embedsResources(schema);
  const listTyped = hasListTypes(schema);
  // An update reports repeated list items only when the object before had none.
  const listCauses = (obj: KubeObject, old: KubeObject | undefined): StatusCause[] => {
    if (!listTyped) return [];
    if (old !== undefined && listTypeCauses(schema, old).length > 0) return [];
    return listTypeCauses(schema, obj);
  };
  // Upstream's customResourceStrategy.Validate(Update): the validator (metadata, schema,
  // both replica paths), embedded objects, list types, then the rules.
  const objectCauses = (obj: KubeObject, old: KubeObject | undefined, causes: StatusCause[], correlation: CorrelatedOld | undefined): StatusCause[] => {
    if (scale !== undefined) appendAll(causes, validateReplicasAt(obj, stringOf(scale.specReplicasPath)), validateScaleStatus(obj, scale));
    if (embeds) appendAll(causes, embeddedResourceCauses(schema, obj));
    appendAll(causes, listCauses(obj, old));
    return appendRuleCauses(causes, rulesSchema, obj, old, correlation);
  };
  return {
    create: (obj, causes) => objectCauses(obj, undefined, causes, undefined),
    // One correlation for the schema's checks and the rules, as upstream's one CorrelatedObject.
    update(obj, old, causes) {
      const correlation = correlate(opts.definitions, objectSchema, obj, old, true);
      appendAll(causes, validate(opts.definitions, objectSchema, obj, schemaValidation, correlation));
      return objectCauses(obj, old, causes, correlation);
    },
    // statusStrategy.ValidateUpdate: no embedded objects checked; list types over the whole object.
    status(obj, old, causes) {
      appendAll(causes, statusSchemaCauses(obj, old));
      if (scale !== undefined) appendAll(causes, validateScaleStatus(obj, scale));
      appendAll(causes, listCauses(obj, old));
      return appendRuleCauses(causes, rulesSchema, obj, old, correlate(opts.definitions, objectSchema, obj, old, true));
    },
  };
}

/** The finalizers whose names need no domain: the garbage collector's and namespaces'. */
const standardFinalizers = new Set(['orphan', 'foregroundDeletion', 'kubernetes']);

/**
 * Upstream's customResourceStrategy warnings: each finalizer a write adds (sorted) whose name
 * has no path, unless a standard one; a dotted name is told to add a path.
 */
function finalizerWarnings(obj: KubeObject, old?: KubeObject): string[] {
  const before = new Set(old?.metadata.finalizers ?? []);
  const added = [...new Set(obj.metadata.finalizers ?? [])].filter((f) => !before.has(f)).sort();
  const warnings: string[] = [];
  for (const name of added) {
    const quoted = JSON.stringify(name);
    for (const message of isQualifiedName(name)) warnings.push(`metadata.finalizers: ${quoted}: ${message}`);
    if (name.includes('/') || standardFinalizers.has(name)) continue;
    const advice = name.includes('.') ? 'prefer a domain-qualified finalizer name including a path (/)' : 'prefer a domain-qualified finalizer name';
    warnings.push(`metadata.finalizers: ${quoted}: ${advice} to avoid accidental conflicts with other finalizer writers`);
  }
  return warnings;
}

/** The strategy of a version; its validation beyond metadata is its CustomResourceChecks, which its Store runs. */
function customResourceStrategy({ groupResource, namespaced, statusEnabled, scale, selectableFields, opts }: StrategyParams): Strategy {
  const strategy: Strategy = {
    prepareForCreate(obj) {
      // Upstream's crdHandler: MethodNotSupported for the resource, in words of its own.
      if (opts.terminating()) {
        throw new StatusError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { group: groupResource.group, kind: groupResource.resource });
      }
      // With the status subresource, status is written only through it.
      if (statusEnabled) delete obj.status;
      obj.metadata.generation = 1;
    },

    prepareForUpdate(obj, old) {
      if (statusEnabled) {
        if (old.status !== undefined) obj.status = clone(old.status);
        else delete obj.status;
      }
      const generation = old.metadata.generation ?? 0;
      obj.metadata.generation = nonMetadataEqual(obj, old) ? generation : generation + 1;
    },

    warningsOnCreate: (obj) => finalizerWarnings(obj),
    warningsOnUpdate: (obj, old) => finalizerWarnings(obj, old),

    // Upstream's crConverter.ConvertFieldLabel: metadata.namespace only when namespaced.
    fieldLabels: [...(namespaced ? ['metadata.name', 'metadata.namespace'] : ['metadata.name']), ...selectableFields.map((p) => p.slice(1))],
  };
  if (selectableFields.length > 0) {
    strategy.selectableFields = (obj) => {
      const fields: Record<string, string> = {};
      for (const path of selectableFields) fields[path.slice(1)] = selectableValue(valueAtSimplePath(obj, path));
      return fields;
    };
  }
  if (statusEnabled) {
    strategy.subresources = {
      status: {
        // Only status (and managed fields) change through /status: the rest is the stored object.
        prepareForUpdate(obj, old) {
          const status = obj.status;
          const managedFields = obj.metadata.managedFields;
          for (const field of Object.keys(obj)) delete obj[field];
          Object.assign(obj, clone(old));
          if (managedFields !== undefined) obj.metadata.managedFields = managedFields;
          else delete obj.metadata.managedFields;
          delete obj.metadata.resourceVersion;
          if (status !== undefined) obj.status = status;
          else delete obj.status;
        },
      },
    };
  }
  if (scale !== undefined) strategy.scale = scaleAccess(scale);
  return strategy;
}

/**
 * The schema published for a version (upstream's OpenAPI builder): the CRD's schema with
 * apiVersion, kind and metadata (ObjectMeta) added, tagged with its group, version and kind.
 */
function publishedDefinition(schema: Record<string, unknown>, group: string, version: string, kind: string): Schema {
  const definition = clone(schema) as Schema;
  normalizeSchema(definition as Record<string, unknown>);
  definition.type ??= 'object';
  definition.properties = {
    apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources' },
    kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds' },
    metadata: { $ref: schemaRef(`${META}ObjectMeta`), description: 'Standard object\'s metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata' },
    ...Object.fromEntries(Object.entries(definition.properties ?? {}).filter(([name]) => name !== 'apiVersion' && name !== 'kind' && name !== 'metadata')),
  };
  definition['x-kubernetes-group-version-kind'] = [{ group, kind, version }];
  return definition;
}

/** The served versions of a CRD as ResourceTypes, highest priority first (discovery's preferred version). */
export function customResourceVersions(crd: CustomResourceDefinition, opts: CustomResourceOptions): CustomResourceVersion[] {
  const group = stringOf(crd.spec?.group);
  const names = servedNames(crd);
  const namespaced = crd.spec?.scope === 'Namespaced';
  const versions = (Array.isArray(crd.spec?.versions) ? crd.spec.versions : [])
    .filter((v): v is CustomResourceDefinitionVersion => isObject(v) && v.served === true && stringOf(v.name) !== '')
    .sort((a, b) => compareVersionPriority(a.name!, b.name!));
  // Discovery names the storage version only when it is also served, as upstream does.
  const storage = versions.find((v) => v.storage === true);
  const storageVersion = storage === undefined ? null : { group, version: storage.name!, kind: names.kind };
  // Objects are written in the storage version whether or not it is served.
  const stored = (Array.isArray(crd.spec?.versions) ? crd.spec.versions : []).find((v) => isObject(v) && v.storage === true);
  const webhook = conversionWebhookOf(crd.metadata.name ?? '', crd.spec?.conversion);
  const conversion = webhook === undefined || stored === undefined ? undefined : { webhook, storageAPIVersion: `${group}/${stringOf(stored.name)}` };
  return versions.map((version) => {
    const name = version.name!;
    const schemaName = customResourceSchemaName(group, name, names.kind);
    const subresources = isObject(version.subresources) ? version.subresources : {};
    const statusEnabled = isObject(subresources.status);
    const scale = isObject(subresources.scale) ? subresources.scale : undefined;
    const schema = isObject(version.schema?.openAPIV3Schema) ? version.schema.openAPIV3Schema : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    const selectableFields = (Array.isArray(version.selectableFields) ? version.selectableFields : [])
      .map((f) => stringOf(f?.jsonPath)).filter((p) => p.startsWith('.'));
    const subresourceNames: string[] = [];
    if (statusEnabled) subresourceNames.push('status');
    if (scale !== undefined) subresourceNames.push('scale');
    const rulesSchema = hasValidationRules(schema) ? schema : undefined;
    const type: CustomResourceType = {
      group,
      version: name,
      resource: names.plural,
      singular: names.singular,
      kind: names.kind,
      listKind: names.listKind,
      namespaced,
      shortNames: names.shortNames,
      categories: names.categories,
      verbs: allVerbs,
      subresources: subresourceNames,
      schemaName,
      strategy: customResourceStrategy({ groupResource: { group, resource: names.plural }, namespaced, statusEnabled, scale, selectableFields, opts }),
      customResourceChecks: customResourceChecks(scale, schema, rulesSchema, opts, schemaName),
      ...(rulesSchema !== undefined ? { strategyUsesCel: true } : {}),
      // Upstream's customResourceStrategy: no create on update, no update without resourceVersion.
      allowCreateOnUpdate: false,
      allowUnconditionalUpdate: false,
      deleteReturnsObject: false,
      nameRule: 'dns1123-subdomain',
      schemaValidation,
      tableColumns: printerColumnsOf(version.additionalPrinterColumns),
      customResource: true,
      storageVersion,
      // A deprecated version warns on every request, as upstream's crdHandler does.
      ...(version.deprecated === true
        ? { deprecationWarning: typeof version.deprecationWarning === 'string' ? version.deprecationWarning : `${group}/${name} ${names.kind} is deprecated` }
        : {}),
    };
    const served: CustomResourceVersion = { type, definition: publishedDefinition(schema, group, name, names.kind) };
    if (conversion !== undefined) served.conversion = conversion;
    return served;
  });
}
