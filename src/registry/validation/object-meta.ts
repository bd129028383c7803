// ObjectMeta validation as k8s.io/apimachinery/pkg/api/validation/objectmeta.go does it,
// on create (validateObjectMeta) and on update (validateObjectMetaUpdate).

import type { KubeObject, ObjectMeta, OwnerReference, StatusCause } from '../../api/index.ts';
import { isObject } from '../../api/json.ts';
import { byteLength, isLabelKey, isLabelValue } from '../../api/labels.ts';
import { appendAll, child, fieldImmutable, forbidden, goJson, goSyntax, index, invalid, required, tooLong, validateNonnegative } from './field.ts';
import type { FieldPath } from './field.ts';
import { isDNS1123Label, validateName } from './names.ts';
import type { NameRule } from './names.ts';

/** Upstream's TotalAnnotationSizeLimitB: keys and values together, 256 KiB. */
export const totalAnnotationSizeLimit = 256 * 1024;

const fieldManagerMaxLength = 128;

export function validateLabels(labels: unknown, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (labels === undefined || labels === null || typeof labels !== 'object') return causes;
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) {
    for (const msg of isLabelKey(k)) causes.push(invalid(path, k, msg));
    const value = typeof v === 'string' ? v : String(v);
    for (const msg of isLabelValue(value)) causes.push(invalid(path, value, msg));
  }
  return causes;
}

export function validateAnnotations(annotations: unknown, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (annotations === undefined || annotations === null || typeof annotations !== 'object') return causes;
  let total = 0;
  for (const [k, v] of Object.entries(annotations as Record<string, unknown>)) {
    // The rule is a qualified name except that case does not matter.
    for (const msg of isLabelKey(k.toLowerCase())) causes.push(invalid(path, k, msg));
    total += byteLength(k) + byteLength(typeof v === 'string' ? v : String(v));
  }
  if (total > totalAnnotationSizeLimit) causes.push(tooLong(path, totalAnnotationSizeLimit));
  return causes;
}

/** Whether json.Marshal's omitempty leaves a value out: zero scalars, empty lists and maps, nil. */
const omitted = (v: unknown): boolean =>
  v === undefined || v === null || v === '' || v === 0 || v === false || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

/** The members of `value` named in `order` that omitempty keeps; `pointers` are left out only when unset. */
function keptByOmitempty(value: Record<string, unknown>, order: string[], pointers: string[] = []): Record<string, unknown> {
  const kept = order.filter((k) => (pointers.includes(k) ? value[k] !== undefined && value[k] !== null : !omitted(value[k])));
  return Object.fromEntries(kept.map((k) => [k, value[k]]));
}

const sortedMap = (m: unknown) => (isObject(m) ? goJson(m, true) : m);

/**
 * A metav1.ObjectMeta as json.Marshal writes it when it is a field error's bad value:
 * json names in declaration order, empty members left out (omitempty), but
 * creationTimestamp, a struct, always there (`null` when unset).
 */
export function objectMetaJson(meta: ObjectMeta): Record<string, unknown> {
  const m = meta as Record<string, unknown>;
  const first = keptByOmitempty(m, ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation']);
  const pointers = ['deletionTimestamp', 'deletionGracePeriodSeconds'];
  const later = keptByOmitempty(m, [...pointers, 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'], pointers);
  if (later.labels !== undefined) later.labels = sortedMap(later.labels);
  if (later.annotations !== undefined) later.annotations = sortedMap(later.annotations);
  if (Array.isArray(later.ownerReferences)) later.ownerReferences = later.ownerReferences.map((r) => ownerReferenceJson(isObject(r) ? r : {}));
  if (Array.isArray(later.managedFields)) {
    const entryFields = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'];
    later.managedFields = later.managedFields.map((e) => keptByOmitempty(isObject(e) ? e : {}, entryFields, ['time', 'fieldsV1']));
  }
  return { ...first, creationTimestamp: m.creationTimestamp || null, ...later };
}

/** A metav1.OwnerReference as json.Marshal writes it: json names, unset pointers left out (omitempty). */
function ownerReferenceJson(ref: Partial<Record<keyof OwnerReference, unknown>>): Record<string, unknown> {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return {
    apiVersion: text(ref.apiVersion), kind: text(ref.kind), name: text(ref.name), uid: text(ref.uid),
    ...(typeof ref.controller === 'boolean' ? { controller: ref.controller } : {}),
    ...(typeof ref.blockOwnerDeletion === 'boolean' ? { blockOwnerDeletion: ref.blockOwnerDeletion } : {}),
  };
}

function validateOwnerReferences(refs: unknown, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!Array.isArray(refs)) return causes;
  let firstController = '';
  for (const raw of refs as OwnerReference[]) {
    const ref = (raw ?? {}) as OwnerReference;
    // Decoding refused members of other types; a stray one reads as empty rather than crash.
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const slash = apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
    if (version === '') causes.push(invalid(child(path, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (!ref.kind) causes.push(invalid(child(path, 'kind'), ref.kind ?? '', 'must not be empty'));
    if (!ref.name) causes.push(invalid(child(path, 'name'), ref.name ?? '', 'must not be empty'));
    if (!ref.uid) causes.push(invalid(child(path, 'uid'), ref.uid ?? '', 'must not be empty'));
    if (group === '' && version === 'v1' && ref.kind === 'Event') {
      causes.push(invalid(path, goJson(ownerReferenceJson(ref)), '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController !== '') {
        const all = goJson((refs as OwnerReference[]).map((r) => ownerReferenceJson(r ?? {})));
        causes.push(invalid(path, all, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`));
      } else {
        firstController = current;
      }
    }
  }
  return causes;
}

function validateFinalizers(finalizers: unknown, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!Array.isArray(finalizers)) return causes;
  let orphan = false;
  let foreground = false;
  for (const f of finalizers) {
    const name = String(f);
    for (const msg of isLabelKey(name)) causes.push(invalid(path, name, msg));
    if (name === 'orphan') orphan = true;
    if (name === 'foregroundDeletion') foreground = true;
  }
  if (orphan && foreground) causes.push(invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  return causes;
}

const standardFinalizers = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/**
 * Built-in (core, apps) types also refuse finalizer names without a '/' that are not
 * one of the standard ones (upstream's validateKubeFinalizerName), each at its index
 * (`metadata.finalizers[1]`), as core's ValidateObjectMeta reports them.
 */
export function validateKubeFinalizerNames(finalizers: unknown, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!Array.isArray(finalizers)) return causes;
  finalizers.forEach((f, i) => appendAll(causes, validateKubeFinalizerName(String(f), index(path, i))));
  return causes;
}

/** validateKubeFinalizerName of one name, at `path`. */
export function validateKubeFinalizerName(name: string, path: FieldPath): StatusCause[] {
  if (name.includes('/') || standardFinalizers.has(name)) return [];
  return [invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified')];
}

function validateManagedFields(entries: unknown, path: FieldPath): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!Array.isArray(entries)) return causes;
  entries.forEach((raw, i) => {
    const entry = (raw ?? {}) as Record<string, unknown>;
    const p = index(path, i);
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') {
      causes.push(invalid(child(p, 'operation'), entry.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (typeof entry.fieldsType === 'string' && entry.fieldsType !== '' && entry.fieldsType !== 'FieldsV1') {
      causes.push(invalid(child(p, 'fieldsType'), entry.fieldsType, 'must be `FieldsV1`'));
    }
    if (typeof entry.manager === 'string' && byteLength(entry.manager) > fieldManagerMaxLength) {
      causes.push(tooLong(child(p, 'manager'), fieldManagerMaxLength));
    }
  });
  return causes;
}

function metaOf(obj: KubeObject): ObjectMeta {
  const meta = obj.metadata;
  return meta !== null && typeof meta === 'object' ? meta : {};
}

function commonMetaCauses(meta: ObjectMeta, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const namespace = meta.namespace ?? '';
  if (namespaced) {
    if (namespace === '') causes.push(required('metadata.namespace'));
    else for (const msg of isDNS1123Label(namespace)) causes.push(invalid('metadata.namespace', namespace, msg));
  } else if (namespace !== '') {
    causes.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }
  if (typeof meta.generation === 'number') appendAll(causes, validateNonnegative(meta.generation, 'metadata.generation'));
  appendAll(causes, validateLabels(meta.labels, 'metadata.labels'));
  appendAll(causes, validateAnnotations(meta.annotations, 'metadata.annotations'));
  appendAll(causes, validateOwnerReferences(meta.ownerReferences, 'metadata.ownerReferences'));
  appendAll(causes, validateFinalizers(meta.finalizers, 'metadata.finalizers'));
  appendAll(causes, validateManagedFields(meta.managedFields, 'metadata.managedFields'));
  return causes;
}

/**
 * Metadata errors of a new object, as upstream's ValidateObjectMeta: generateName and
 * name by the type's rule, namespace presence by scope, labels, annotations (256 KiB in
 * all), owner references, finalizers and managed fields. Call it after generating the
 * name from generateName.
 */
export function validateObjectMeta(obj: KubeObject, nameRule: NameRule, namespaced: boolean): StatusCause[] {
  const meta = metaOf(obj);
  const causes: StatusCause[] = [];
  const generateName = meta.generateName ?? '';
  if (generateName !== '') {
    for (const msg of validateName(generateName, nameRule, true)) causes.push(invalid('metadata.generateName', generateName, msg));
  }
  const name = meta.name ?? '';
  if (name === '') causes.push(required('metadata.name', 'name or generateName is required'));
  else for (const msg of validateName(name, nameRule, false)) causes.push(invalid('metadata.name', name, msg));
  appendAll(causes, commonMetaCauses(meta, namespaced));
  return causes;
}

function sameValue(a: unknown, b: unknown): boolean {
  return (a ?? '') === (b ?? '');
}

/**
 * Metadata errors of an update, as upstream's rest.BeforeUpdate finds them: first its
 * validateCommonFields, which checks the new metadata as a create's (ValidateObjectMetaAccessor,
 * names and generateName by the path-segment rule) and then as an update
 * (ValidateObjectMetaAccessorUpdate: no new finalizers once deleting, generation never
 * decremented, identity and lifecycle fields immutable); then the type's own ValidateObjectMeta,
 * most built-in types' update validation checking generateName by `nameRule` again (none for
 * custom resources). Each cause is listed once where upstream repeats the checks (labels up
 * to four times); the message, which upstream's aggregate dedupes, is the same. (The
 * missing-resourceVersion rule is the Store's: it depends on whether the type allows
 * unconditional updates.)
 */
export function validateObjectMetaUpdate(obj: KubeObject, old: KubeObject, namespaced: boolean, nameRule?: NameRule): StatusCause[] {
  const meta = metaOf(obj);
  const oldMeta = metaOf(old);
  const causes = validateObjectMeta(obj, 'path-segment', namespaced);
  if (oldMeta.deletionTimestamp) {
    const oldFinalizers = new Set(oldMeta.finalizers ?? []);
    const extra = [...new Set(meta.finalizers ?? [])].filter((f) => !oldFinalizers.has(f)).sort();
    if (extra.length > 0) {
      causes.push(forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers ${goSyntax(extra)}`));
    }
  }
  if ((meta.generation ?? 0) < (oldMeta.generation ?? 0)) {
    causes.push(invalid('metadata.generation', meta.generation ?? 0, 'must not be decremented'));
  }
  const immutable: (keyof ObjectMeta)[] = ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds'];
  for (const field of immutable) {
    if (!sameValue(meta[field], oldMeta[field])) causes.push(invalid(`metadata.${field}`, meta[field] ?? null, fieldImmutable));
  }
  const generateName = meta.generateName ?? '';
  if (nameRule !== undefined && nameRule !== 'path-segment' && generateName !== '') {
    for (const msg of validateName(generateName, nameRule, true)) causes.push(invalid('metadata.generateName', generateName, msg));
  }
  return causes;
}

/** ObjectMeta's fields a template's metadata may not set (all but labels and annotations), with the path upstream names each by (its Go field name, first letter lowered). */
const templateMetaFields: [field: string, pathName: string][] = [
  ['name', 'name'], ['generateName', 'generateName'], ['namespace', 'namespace'], ['selfLink', 'selfLink'], ['uid', 'uID'],
  ['resourceVersion', 'resourceVersion'], ['generation', 'generation'], ['creationTimestamp', 'creationTimestamp'],
  ['deletionTimestamp', 'deletionTimestamp'], ['deletionGracePeriodSeconds', 'deletionGracePeriodSeconds'],
  ['ownerReferences', 'ownerReferences'], ['finalizers', 'finalizers'], ['managedFields', 'managedFields'],
];

/** Whether a metadata field holds other than its Go zero value: "" and 0 are a value's zero; a pointer (deletionGracePeriodSeconds) is set even at 0, a list even when empty. */
function isSetInTemplate(field: string, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value) || field === 'deletionGracePeriodSeconds') return true;
  return value !== '' && value !== 0;
}

/** Upstream's ValidateTemplateObjectMeta (a ResourceClaimTemplate's claim metadata, an ephemeral volume's claim template's): valid annotations and labels, nothing else. */
export function validateTemplateObjectMeta(meta: Record<string, unknown>, path: FieldPath): StatusCause[] {
  const causes = [...validateAnnotations(meta.annotations, child(path, 'annotations')), ...validateLabels(meta.labels, child(path, 'labels'))];
  for (const [field, pathName] of templateMetaFields) {
    if (isSetInTemplate(field, meta[field])) causes.push(forbidden(child(path, pathName), 'cannot be set'));
  }
  return causes;
}
